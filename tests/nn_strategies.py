"""Hypothesis helpers shared by the nn differential tests: the same data in tensorlab and torch,
laid out contiguous or not (transposed, sliced, expanded, channels last)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import tensorlab as tl

LAYOUTS = ("contiguous", "transposed", "sliced", "channels_last", "expanded")


def make_pair(torch, shape, layout: str, seed: int, *, requires_grad=True, dtype="float32"):
    """(tensorlab tensor, torch tensor) with the same values and the same strides.

    ``transposed`` swaps the last two dims of a contiguous tensor of the swapped shape;
    ``sliced`` takes every other element along the last dim of a wider tensor; ``channels_last``
    stores a 4-d tensor NHWC; ``expanded`` broadcasts a size-1 batch (stride 0). The leaves are
    the views themselves (they require grad), so gradients come back in their layout.
    """
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    nd = len(shape)
    if layout == "transposed" and nd >= 2:
        base_shape = shape[:-2] + (shape[-1], shape[-2])
    elif layout == "sliced" and nd >= 1:
        base_shape = shape[:-1] + (2 * shape[-1],)
    elif layout == "channels_last" and nd == 4:
        base_shape = (shape[0], shape[2], shape[3], shape[1])
    elif layout == "expanded" and nd >= 1:
        base_shape = (1,) + shape[1:]
    else:
        base_shape = shape
        layout = "contiguous"
    base = rng.standard_normal(base_shape).astype(dtype)
    if dtype.startswith("int"):
        base = rng.integers(-5, 6, base_shape).astype(dtype)

    def view(lib, t):
        if layout == "transposed":
            return t.transpose(-1, -2)
        if layout == "sliced":
            return t[..., ::2]
        if layout == "channels_last":
            return t.permute(0, 3, 1, 2)
        if layout == "expanded":
            return t.expand(*shape)
        return t

    a = view(tl, tl.from_numpy(base.copy()))
    b = view(torch, torch.from_numpy(base.copy()))
    if requires_grad and dtype.startswith("float"):
        a = a.detach().requires_grad_(True)
        b = b.detach().requires_grad_(True)
    return a, b


layouts = st.sampled_from(LAYOUTS)
seeds = st.integers(0, 2**16)
