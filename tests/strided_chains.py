"""Hypothesis strategies for non-contiguous inputs: a random base tensor, then a random chain of
view ops (transpose, strided slice, expand of a size-1 dim) that works on a tensorlab tensor and
on a torch tensor alike, so both libraries see the same layout over the same storage."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import tensorlab as tl


@st.composite
def view_chains(draw, min_dims: int = 1, max_dims: int = 3, max_side: int = 5):
    """(base shape, list of (name, fn)) where the fns applied in order give a strided view."""
    ndim = draw(st.integers(min_dims, max_dims))
    shape = [draw(st.integers(1, max_side)) for _ in range(ndim)]
    ops = []
    cur = list(shape)
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["transpose", "slice", "expand"]))
        if kind == "transpose" and len(cur) >= 2:
            a, b = draw(st.integers(0, len(cur) - 1)), draw(st.integers(0, len(cur) - 1))
            ops.append((f"transpose({a},{b})", lambda t, a=a, b=b: t.transpose(a, b)))
            cur[a], cur[b] = cur[b], cur[a]
        elif kind == "slice" and cur:
            d = draw(st.integers(0, len(cur) - 1))
            if cur[d] < 2:
                continue
            start = draw(st.integers(0, cur[d] - 1))
            step = draw(st.integers(1, 2))
            idx = (slice(None),) * d + (slice(start, None, step),)
            ops.append((f"[{idx}]", lambda t, idx=idx: t[idx]))
            cur[d] = len(range(start, cur[d], step))
        elif kind == "expand" and cur:
            d = draw(st.integers(0, len(cur) - 1))
            if cur[d] != 1:
                continue
            n = draw(st.integers(2, 3))
            new = list(cur)
            new[d] = n
            ops.append((f"expand{tuple(new)}", lambda t, new=tuple(new): t.expand(*new)))
            cur = new
    return tuple(shape), ops


def apply(t, ops):
    for _, fn in ops:
        t = fn(t)
    return t


def make_bases(torch, shape, dtype="float64", requires_grad=False, seed=0):
    """The same values as a tensorlab and a torch tensor (fresh, contiguous)."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        arr = rng.standard_normal(shape).astype(dtype)
    else:
        arr = rng.integers(-5, 6, size=shape).astype(dtype)
    ours = tl.from_numpy(arr.copy())
    theirs = torch.tensor(arr)
    if requires_grad:
        ours.requires_grad_(True)
        theirs.requires_grad_(True)
    return ours, theirs
