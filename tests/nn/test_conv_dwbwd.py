"""Both gradients of a stride-1 depthwise conv2d at once (:mod:`tensorlab.nn._conv_dwbwd`),
against torch 2.13's autograd: kernel sizes and dilations per dim, paddings from none to beyond
the kernel's reach, channel counts, float32/float64; when it declines; non-finite inputs
(the weight gradient redone the exact way); through ``conv2d``/``conv1d`` and autograd."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn import _conv_dwbwd as DB

TOL = {np.dtype("float64"): 1e-10, np.dtype("float32"): 2e-4}


def _torch_grads(torch, x, w, g, padding, dilation):
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    out = torch.nn.functional.conv2d(xt, wt, padding=padding, dilation=dilation, groups=x.shape[1])
    assert tuple(out.shape) == g.shape
    gx, gw = torch.autograd.grad(out, (xt, wt), torch.tensor(g))
    return gx.numpy(), gw.numpy()


def _close(ours, ref):
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    tol = TOL[ref.dtype]
    scale = max(1.0, float(np.abs(ref).max(initial=0)))
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol * scale)


@st.composite
def cases(draw):
    k = [draw(st.integers(1, 5)) for _ in range(2)]
    d = [draw(st.integers(1, 3)) for _ in range(2)]
    p = [draw(st.integers(0, 4)) for _ in range(2)]
    sizes = []
    for kk, dd, pp in zip(k, d, p):
        lo = max(1, dd * (kk - 1) + 1 - 2 * pp)
        sizes.append(draw(st.integers(lo, lo + 20)))
    n, c = draw(st.integers(1, 3)), draw(st.integers(1, 6))
    return dict(
        x=(n, c, *sizes),
        w=(c, 1, *k),
        padding=p,
        dilation=d,
        dtype=draw(st.sampled_from(["float64", "float32"])),
        seed=draw(st.integers(0, 2**16)),
    )


def _arrays(case):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["x"]).astype(case["dtype"])
    w = rng.standard_normal(case["w"]).astype(case["dtype"])
    out = [
        s + 2 * p - d * (k - 1)
        for s, p, d, k in zip(case["x"][2:], case["padding"], case["dilation"], case["w"][2:])
    ]
    g = rng.standard_normal((*case["x"][:2], *out)).astype(case["dtype"])
    return x, w, g


@settings(max_examples=80, deadline=None)
@given(case=cases())
def test_both_gradients_match_torch(torch, case):
    x, w, g = _arrays(case)
    ours = DB.depthwise_backward(g, x, w, case["padding"], case["dilation"])
    assert ours is not None
    ref = _torch_grads(torch, x, w, g, case["padding"], case["dilation"])
    _close(ours[0], ref[0])
    _close(ours[1], ref[1])


def test_when_it_applies_and_declines(monkeypatch):
    assert DB.applies((2, 4, 9, 9), (4, 1, 3, 3), (1, 1), 4)
    assert not DB.applies((2, 4, 9, 9), (4, 1, 3, 3), (2, 2), 4)  # a stride
    assert not DB.applies((2, 4, 9, 9), (8, 1, 3, 3), (1, 1), 4)  # a channel multiplier
    assert not DB.applies((2, 8, 9, 9), (4, 2, 3, 3), (1, 1), 4)  # two channels per group
    assert not DB.applies((2, 4, 9), (4, 1, 3), (1,), 4)  # not 2-d
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal((2, 4, 9, 9)), rng.standard_normal((2, 4, 9, 9))
    w = rng.standard_normal((4, 1, 3, 3))
    assert DB.depthwise_backward(g, x, w, (1, 1), (1, 1)) is not None
    w[1, 0, 2, 2] = np.inf  # inf * 0 on the grid's zero columns: declined
    assert DB.depthwise_backward(g, x, w, (1, 1), (1, 1)) is None
    monkeypatch.setattr(DB, "DW_BWD_IMAGE_BYTES", 1000)  # buffers too big: declined
    assert DB.depthwise_backward(g, x, np.ones((4, 1, 3, 3)), (1, 1), (1, 1)) is None


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("where", [(0, 1, 0, 0), (1, 2, 4, 8), (0, 0, 8, 3)])
def test_non_finite_input_through_autograd(torch, bad, where):
    """An inf/nan pixel (some read by every tap, some by one only): the weight gradient of
    the shared pass would spread it over the grid's zero columns; it is redone exactly."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9, 9))
    x[where] = bad
    w = rng.standard_normal((3, 1, 3, 3))
    xt, wt = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
    out = F.conv2d(xt, wt, padding=1, groups=3)
    g = rng.standard_normal(tuple(out.shape))
    ours = tl.autograd.grad(out, (xt, wt), tl.tensor(g))
    ref = _torch_grads(torch, x, w, g, 1, 1)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a._np(), b, rtol=1e-10, atol=1e-10)  # nan where torch's


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.integers(1, 5),
    size=st.integers(1, 30),
    k=st.integers(1, 4),
    dilation=st.integers(1, 3),
    padding=st.sampled_from([0, 1, 2, "same"]),
    one_d=st.booleans(),
    dtype=st.sampled_from(["float32", "float64"]),
    seed=st.integers(0, 2**16),
)
def test_through_autograd(torch, n, c, size, k, dilation, padding, one_d, dtype, seed):
    """conv1d/conv2d depthwise (stride 1) with both gradients wanted, as torch's."""
    pad = (dilation * (k - 1)) // 2 if padding == "same" else padding
    assume(padding != "same" or dilation * (k - 1) % 2 == 0)
    assume(size + 2 * pad - dilation * (k - 1) - 1 >= 0)
    rng = np.random.default_rng(seed)
    shape = (n, c, size) if one_d else (n, c, size, size + 2)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal((c, 1, k) if one_d else (c, 1, k, k)).astype(dtype)
    fn = "conv1d" if one_d else "conv2d"
    kw = dict(padding=padding, dilation=dilation, groups=c)
    xt, wt = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
    out = getattr(F, fn)(xt, wt, **kw)
    txt, twt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    ref = getattr(torch.nn.functional, fn)(txt, twt, **kw)
    g = rng.standard_normal(tuple(ref.shape)).astype(dtype)
    ours = tl.autograd.grad(out, (xt, wt), tl.tensor(g))
    theirs = torch.autograd.grad(ref, (txt, twt), torch.tensor(g))
    for a, b in zip(ours, theirs):
        _close(a._np(), b.numpy())
