"""``Variable``: the wrapper of PyTorch before 0.4, kept as torch keeps it (deprecated).

``Variable(t)`` returns a plain ``Tensor``: ``t.detach()`` (same storage, no history), with
``requires_grad`` set from the second argument; ``Variable()`` is an empty float tensor. Every
tensor is an instance of ``Variable`` (``isinstance(t, Variable)``), as in torch.
"""

from __future__ import annotations

import warnings

from .._tensor import Tensor

__all__ = ["Variable"]

_NAMES = ("data", "requires_grad", "volatile", "_grad_fn", "name")
_VOLATILE_WARNING = (
    "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."
)


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """``Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None)``
    returns ``data.detach()`` with ``requires_grad`` set (a ``Tensor``, never a ``Variable``)."""

    def __new__(cls, *args, **kwargs):
        if len(args) > len(_NAMES):
            raise TypeError(
                f"function takes at most {len(_NAMES)} arguments ({len(args) + len(kwargs)} given)"
            )
        values = dict(zip(_NAMES, args))
        for key, value in kwargs.items():
            if key not in _NAMES:
                raise TypeError(f"'{key}' is an invalid keyword argument for this function")
            if key in values:
                pos = _NAMES.index(key) + 1
                raise TypeError(
                    f"argument for function given by name ('{key}') and position ({pos})"
                )
            values[key] = value
        data = values.get("data")
        requires_grad = _flag(values.get("requires_grad", False))
        volatile = _flag(values.get("volatile", False))
        if volatile:
            warnings.warn(_VOLATILE_WARNING, UserWarning, stacklevel=2)
        if volatile and requires_grad:
            raise ValueError("Variable can't be volatile and require_grad at the same time!")
        if values.get("_grad_fn") is not None:
            raise TypeError("_grad_fn has to be a Function object or None, but got "
                            f"{type(values['_grad_fn']).__name__}")  # fmt: skip
        if data is None:
            from .._ops.creation import empty

            var = empty(0)
        elif isinstance(data, Tensor):
            var = data.detach()
        else:
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not var.is_floating_point():
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        var.requires_grad_(requires_grad)
        name = values.get("name")
        if name is not None:
            var.name = name
        return var


def _flag(value) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return bool(value)
    raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
