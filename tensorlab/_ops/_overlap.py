"""In-place elementwise ops on a tensor whose elements share memory (overlapping windows made by
``as_strided`` / ``unfold``, without a stride-0 dim, which PyTorch refuses outright).

PyTorch's ``TensorIterator`` then runs its loop element after element: an element read by k
windows is updated k times, each update reading the value the previous one wrote
(``x.unfold(0, 2, 1).add_(1)`` adds 2 to the middle elements). A numpy expression reads all old
values first and writes once. So such writes run here in rounds: round r updates, for every
memory cell, its r-th reader (in the loop's order); within a round every cell is touched once.
"""

from __future__ import annotations

import numpy as np


def may_self_overlap(shape, stride) -> bool:
    """False when the layout surely has no two elements on one memory cell: sorted by stride,
    each dim's stride is larger than the span of all smaller ones (cheap, ndim-sized)."""
    extent = 0
    for st, n in sorted((st, n) for n, st in zip(shape, stride) if n > 1):
        if st <= extent:
            return True
        extent += (n - 1) * st
    return False


def _positions(t) -> np.ndarray:
    from ..autograd.views import storage_positions

    return storage_positions(t._shape, t._stride, t._offset)


def self_overlapping(t) -> bool:
    """Some memory cell holds two of ``t``'s elements (checked exactly when the cheap test fails)."""
    if not t.numel() or not may_self_overlap(t._shape, t._stride):
        return False
    flat = _positions(t).reshape(-1)
    return np.unique(flat).size < flat.size


def occurrences(flat: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries hold the same value (0 for the first reader)."""
    order = np.argsort(flat, kind="stable")
    srt = flat[order]
    idx = np.arange(srt.size)
    start = np.ones(srt.size, dtype=bool)
    start[1:] = srt[1:] != srt[:-1]
    first = np.maximum.accumulate(np.where(start, idx, 0))
    occ = np.empty(srt.size, dtype=np.int64)
    occ[order] = idx - first
    return occ


def sequential_inplace(out, operands, arrays, common, kernel):
    """``out <- kernel(*operands)`` one reader at a time, as PyTorch's loop does (see above).
    ``arrays`` are the operands' values (those of ``out`` itself are re-read every round)."""
    from ._elementwise import _compute_np, cast_array

    shape = out._shape
    flat = _positions(out).reshape(-1)
    occ = occurrences(flat)
    comp = _compute_np(common)
    fixed = [
        None if x is out else np.broadcast_to(a, shape).reshape(-1)
        for x, a in zip(operands, arrays)
    ]
    storage = out._storage._array
    with np.errstate(all="ignore"):
        for r in range(int(occ.max()) + 1):
            sel = np.nonzero(occ == r)[0]
            cells = flat[sel]
            args = [
                cast_array(storage[cells], common).astype(comp, copy=False) if f is None else f[sel]
                for f in fixed
            ]
            storage[cells] = cast_array(np.asarray(kernel(*args)), out.dtype)
    return out


def sequential_unary(out, compute):
    """``out <- compute(out)`` one reader at a time (``compute`` maps a tensor of the current
    values to the new values), for the unary in-place ops (``neg_``, ``exp_``, ...)."""
    from .._tensor import Tensor
    from ._elementwise import cast_array

    flat = _positions(out).reshape(-1)
    occ = occurrences(flat)
    storage = out._storage._array
    with np.errstate(all="ignore"):
        for r in range(int(occ.max()) + 1):
            cells = flat[np.nonzero(occ == r)[0]]
            current = Tensor._from_array(storage[cells], out.dtype)
            storage[cells] = cast_array(np.asarray(compute(current)), out.dtype)
    return out
