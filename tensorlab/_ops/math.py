"""Elementwise math and matrix products, split by family as PyTorch keeps them:

- :mod:`._elementwise`: the ``TensorIterator`` steps every elementwise op shares;
- :mod:`.arithmetic`: ``add``, ``sub``, ``mul``, ``div``, ``pow``, ... and their in-place forms;
- :mod:`.comparison`: comparisons, logical/bitwise ops, ``clamp``, ``where``, ``lerp``, closeness;
- :mod:`.unary`: ``abs``, ``exp``, ``sigmoid``, rounding, ...;
- :mod:`.linalg`: ``dot``, ``mv``, ``mm``, ``bmm``, ``outer``, ``matmul``.

This module imports them all (so every op is attached to ``Tensor``) and then makes the methods
count argument positions after ``self``, as PyTorch's messages do.
"""

from __future__ import annotations

import re

from .._tensor import Tensor
from . import arithmetic, comparison, linalg, unary  # noqa: F401
from ._elementwise import (  # noqa: F401  (re-exported: reduce.py and tests use them)
    cast_array,
    fresh_contiguous,
    not_implemented,
    scalar_name,
)
from .comparison import maximum, minimum  # noqa: F401

# ---------------------------------------------------------------------------------------------
# methods count positions after ``self``: "add(): argument 'other' (position 1) must be Tensor"
# ---------------------------------------------------------------------------------------------

_POSITION = re.compile(r"^(\w+\(\): argument '\w+' \(position )(\d+)(\) must be .*)$", re.S)


def _as_method(fn):
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            m = _POSITION.match(str(e))
            if not m or "'input'" in str(e):
                raise
            raise TypeError(f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}") from None

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    return method


for _name in (
    "add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow "
    "maximum minimum eq ne lt le gt ge not_equal less less_equal greater greater_equal "
    "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor isclose allclose "
    "equal lerp dot mv mm bmm outer ger matmul"
).split():
    setattr(Tensor, _name, _as_method(getattr(Tensor, _name)))
