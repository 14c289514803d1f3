"""Helpers shared by the explainers: how they print shapes and lists, and where a layout reads."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor


def call_text(shape) -> str:
    """Arguments of a call: ``view(2, 5)``, ``view(10)``."""
    return "(" + ", ".join(str(s) for s in shape) + ")"


def tup(shape) -> str:
    """A tuple as Python prints it: ``(2, 5)``, ``(10,)``."""
    return str(tuple(shape))


def boundaries(sizes) -> list[int]:
    """Cumulative element counts from the right, at the left edge of each entry."""
    out, acc = [], 1
    for s in reversed(sizes):
        acc *= s
        out.append(acc)
    return out[::-1]


def positions(shape, stride, offset):
    from ..autograd.views import storage_positions

    return storage_positions(tuple(shape), tuple(stride), offset)


def list_text(xs, limit: int = 8) -> str:
    xs = list(xs)
    body = ", ".join(str(x) for x in xs[:limit])
    return "[" + body + (", ..." if len(xs) > limit else "") + "]"


def window_lines(pos, n_window_dims: int, limit: int = 4):
    """(window index, storage positions) for the first ``limit`` windows: the last
    ``pos.ndim - n_window_dims`` dims walk inside a window."""
    lead = pos.shape[:n_window_dims]
    out = []
    for k, idx in enumerate(np.ndindex(*lead)):
        if k == limit:
            break
        out.append((idx, pos[idx].reshape(-1).tolist()))
    return out


def pair(v) -> tuple[int, int]:
    """``3`` -> ``(3, 3)``; ``(2, 3)`` -> ``(2, 3)``; ``(2,)`` -> ``(2, 2)``."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]), int(v[0]))
        return (int(v[0]), int(v[1]))
    return (int(v), int(v))


def as_tensor(v) -> Tensor:
    """A tensorlab Tensor for ``v`` (a tensorlab tensor is returned as is)."""
    if isinstance(v, Tensor):
        return v
    arr = np.asarray(v)
    return Tensor._from_array(arr, D.from_numpy_dtype(arr.dtype))
