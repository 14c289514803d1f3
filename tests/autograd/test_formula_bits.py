"""Derivative formulas computed as ATen computes them, so a hand-derived gradient compares
``torch.equal`` with autograd's (Karpathy's makemore part 4 "becoming a backprop ninja") and
tensorlab's gradients are torch's bit for bit wherever the forward values are.

What is defined and tested here: given the same saved values (the forward's result or input),
tensorlab's backward gives torch's bits (``pow`` with the exponents ATen special-cases,
``tanh``'s fused multiply-add, ``sigmoid``'s and ``rsqrt``'s order). What stays out of reach:
transcendental functions (``exp``, ``tanh``, ``pow`` with other exponents) are Sleef's in torch
and numpy's here, so the forward values themselves can differ in the last bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl

SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=9)


def _arrays(shape, lo=0.125, hi=4.0):
    return hnp.arrays(
        np.float32, shape, elements=st.floats(lo, hi, width=32, allow_subnormal=False)
    )


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=SHAPES, e=st.sampled_from([-1, 2, 3, 4, 0.5, 1.5, 1, -0.5]))
def test_pow_backward_is_torchs_and_the_hand_derived_one(torch, data, shape, e):
    x0 = data.draw(_arrays(shape))
    g0 = data.draw(_arrays(shape, -2.0, 2.0))
    x = tl.tensor(x0, requires_grad=True)
    (x**e).backward(tl.tensor(g0))
    # the makemore check: the hand-derived gradient, written with the same ops, is bit-equal
    hand = tl.tensor(g0) * (e * tl.tensor(x0) ** (e - 1)) if e != 1 else tl.tensor(g0)
    assert tl.equal(x.grad, hand)
    xt = torch.tensor(x0, requires_grad=True)
    (xt**e).backward(torch.tensor(g0))
    if e == -0.5:  # pow(-1.5) is std::pow / Sleef in torch: agreement to rounding only
        np.testing.assert_allclose(x.grad._np(), xt.grad.numpy(), rtol=1e-6)
    else:
        np.testing.assert_array_equal(x.grad._np(), xt.grad.numpy())


def test_makemore_counts_sum_inv(torch):
    """``counts_sum**-1``: the lecture's dcounts_sum = -counts_sum**-2 * dcounts_sum_inv is
    autograd's gradient exactly, in both libraries."""
    for lib in (tl, torch):
        lib.manual_seed(0)
        counts = lib.rand(32, 27) * 5
        counts_sum = counts.sum(1, keepdim=True).requires_grad_(True)
        counts_sum_inv = counts_sum**-1
        g = lib.randn(32, 1)
        counts_sum_inv.backward(g)
        assert lib.equal((-(counts_sum.detach() ** -2)) * g, counts_sum.grad)


def _fuses_tanh_backward(torch) -> bool:
    """Whether this machine's torch computes ``1 - y * y`` in tanh_backward with one rounding
    (its AVX2/AVX512 kernels, compiled with FMA contraction, do)."""
    y = torch.tensor([0.3333333432674408, 0.7071067690849304, 0.1] * 4)
    g = torch.ones_like(y)
    fused = (1 - y.double() * y.double()).float()
    return torch.equal(torch.ops.aten.tanh_backward(g, y), fused)


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_tanh_backward_bits(torch, data, shape):
    if not _fuses_tanh_backward(torch):
        pytest.skip("this torch computes tanh_backward with two roundings (no FMA)")
    x0 = data.draw(_arrays(shape, -3.0, 3.0))
    g0 = data.draw(_arrays(shape, -2.0, 2.0))
    x = tl.tensor(x0, requires_grad=True)
    y = x.tanh()
    y.backward(tl.tensor(g0))
    theirs = torch.ops.aten.tanh_backward(torch.tensor(g0), torch.tensor(y.detach()._np()))
    np.testing.assert_array_equal(x.grad._np(), theirs.numpy())


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_sigmoid_backward_bits(torch, data, shape):
    x0 = data.draw(_arrays(shape, -6.0, 6.0))
    g0 = data.draw(_arrays(shape, -2.0, 2.0))
    x = tl.tensor(x0, requires_grad=True)
    y = x.sigmoid()
    y.backward(tl.tensor(g0))
    theirs = torch.ops.aten.sigmoid_backward(torch.tensor(g0), torch.tensor(y.detach()._np()))
    np.testing.assert_array_equal(x.grad._np(), theirs.numpy())


@settings(max_examples=30, deadline=None)
@given(data=st.data(), shape=SHAPES)
def test_rsqrt_backward_bits(torch, data, shape):
    x0 = data.draw(_arrays(shape))
    g0 = data.draw(_arrays(shape, -2.0, 2.0))
    x = tl.tensor(x0, requires_grad=True)
    r = x.rsqrt()
    r.backward(tl.tensor(g0))
    rt = torch.tensor(r.detach()._np())
    theirs = -0.5 * torch.tensor(g0) * rt.pow(3)  # ATen: -0.5 * grad * result.pow(3)
    np.testing.assert_array_equal(x.grad._np(), theirs.numpy())
