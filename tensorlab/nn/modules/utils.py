"""``_single``/``_pair``/``_triple``: one value or a tuple, as ``torch/nn/modules/utils.py``."""

from __future__ import annotations

import collections.abc
from itertools import repeat


def _ntuple(n: int):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    return parse


_single = _ntuple(1)
_pair = _ntuple(2)
_triple = _ntuple(3)


def _reverse_repeat_tuple(t, n: int) -> tuple:
    return tuple(x for x in reversed(t) for _ in range(n))
