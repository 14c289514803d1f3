"""Hypothesis strategies for differential tests on non-contiguous inputs.

``tensors(shape)`` draws a :class:`Spec`: the values and a layout (contiguous, transposed, sliced
with a step, or expanded along some dims). ``spec.build(lib)`` makes the same tensor in tensorlab or
torch: a leaf (``requires_grad`` for float dtypes when asked) and the strided view of it the op
receives, so gradients flow back through the view to the leaf in both libraries.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from helpers import assert_same
from hypothesis import strategies as st

import tensorlab as tl


@dataclass(frozen=True)
class Spec:
    shape: tuple
    dtype: str
    layout: tuple  # ("contig",) | ("perm", perm) | ("slice",) | ("expand", dims)
    seed: int

    def base_array(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        shape = list(self.shape)
        kind = self.layout[0]
        if kind == "perm":
            shape = [self.shape[p] for p in self.layout[1]]
        elif kind == "slice" and shape:
            shape[-1] = shape[-1] * 2 + 1
        elif kind == "expand":
            shape = [1 if d in self.layout[1] else s for d, s in enumerate(self.shape)]
        if self.dtype == "bool":
            return rng.random(shape) < 0.5
        if self.dtype.startswith("int"):
            return rng.integers(-5, 6, size=shape).astype(self.dtype)
        return np.round(rng.standard_normal(shape) * 4, 2).astype(self.dtype)

    def build(self, lib, requires_grad: bool = False):
        """(view, leaf): the tensor the op gets and the leaf that collects gradients."""
        # from_numpy: torch.tensor(empty numpy array) has stride 0, which from_numpy has not
        leaf = lib.from_numpy(np.array(self.base_array()))
        if requires_grad and self.dtype.startswith("float"):
            leaf.requires_grad_(True)
        kind = self.layout[0]
        if kind == "perm":
            inv = [0] * len(self.layout[1])
            for i, p in enumerate(self.layout[1]):
                inv[p] = i
            return leaf.permute(*inv), leaf
        if kind == "slice" and self.shape:
            return leaf[..., 1::2], leaf
        if kind == "expand":
            return leaf.expand(*self.shape), leaf
        return leaf, leaf


@st.composite
def layouts(draw, shape):
    kind = draw(st.sampled_from(["contig", "perm", "slice", "expand"]))
    if kind == "perm" and len(shape) >= 2:
        return ("perm", tuple(draw(st.permutations(range(len(shape))))))
    if kind == "slice" and shape:
        return ("slice",)
    if kind == "expand" and shape:
        dims = draw(st.sets(st.sampled_from(range(len(shape))), min_size=1))
        return ("expand", tuple(sorted(dims)))
    return ("contig",)


@st.composite
def tensors(draw, shape=None, dtype="float32", min_dims=1, max_dims=3, max_side=4, min_side=0):
    if shape is None:
        n = draw(st.integers(min_dims, max_dims))
        shape = tuple(draw(st.integers(min_side, max_side)) for _ in range(n))
    return Spec(tuple(shape), dtype, draw(layouts(shape)), draw(st.integers(0, 2**31 - 1)))


def grad_like(shape, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def run_both(torch, fn, specs, *, grad=True, layout=True, exact=True, rtol=1e-5, atol=1e-5):
    """``fn(lib, *inputs)`` in both libraries on the same strided inputs; compares the results,
    their grad_fn names and the gradients that reach the leaves."""
    ours_in = [s.build(tl, grad) for s in specs]
    theirs_in = [s.build(torch, grad) for s in specs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = fn(torch, *[v for v, _ in theirs_in])
        ours = fn(tl, *[v for v, _ in ours_in])
    assert_same(ours, theirs, layout=layout, exact=exact, rtol=rtol, atol=atol)
    if not grad or theirs.grad_fn is None:
        assert ours.grad_fn is None or not grad
        return ours, theirs
    assert ours.grad_fn is not None, theirs.grad_fn.name()
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    g = grad_like(tuple(theirs.shape))
    try:
        theirs.backward(torch.from_numpy(g))
    except RuntimeError as e:
        # torch 2.13's own scatter formula fails when src is larger than index
        assert "returned an invalid gradient" in str(e)
        return ours, theirs
    ours.backward(tl.tensor(g))
    for (_, lo), (_, lt) in zip(ours_in, theirs_in):
        if lt.grad is None:
            assert lo.grad is None
        else:
            np.testing.assert_allclose(lo.grad._np(), lt.grad.numpy(), rtol=rtol, atol=atol)
    return ours, theirs
