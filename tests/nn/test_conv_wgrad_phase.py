"""The ``"phase"`` weight gradient (:mod:`tensorlab.nn._conv_wgrad_phase`: one product per tap
straight on the phase images of the input) against PyTorch 2.13's ``convolution_backward``:
strides 1-4 (odd and even sizes, kernels smaller and larger than the stride), dilations,
paddings up to beyond the kernel's reach, groups, inputs larger than the windows reach, float64
and float32; where the strategy is chosen; non-finite inputs; through autograd."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn import _conv_kernels as K
from tensorlab.nn import _conv_wgrad as W
from tensorlab.nn import _conv_wgrad_phase as P

TOL = {np.float64: (1e-9, 1e-10), np.float32: (2e-4, 2e-4)}


def _torch_wgrad(torch, g, x, w_shape, stride, padding, dilation, groups):
    res = torch.ops.aten.convolution_backward(
        torch.from_numpy(g),
        torch.from_numpy(x),
        torch.zeros(w_shape, dtype=torch.from_numpy(x).dtype),
        None,
        list(stride),
        list(padding),
        list(dilation),
        False,
        [0, 0],
        groups,
        [False, True, False],
    )
    return res[1].numpy()


@st.composite
def cases(draw):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cg = draw(st.integers(1, 4))
    og = draw(st.integers(1, 4))
    kernel = [draw(st.integers(1, 5)) for _ in range(2)]
    stride = [draw(st.integers(1, 4)) for _ in range(2)]
    dilation = [draw(st.integers(1, 3)) for _ in range(2)]
    padding = [draw(st.integers(0, 4)) for _ in range(2)]
    sizes = []
    for k, d, p in zip(kernel, dilation, padding):
        lo = max(1, d * (k - 1) + 1 - 2 * p)
        sizes.append(draw(st.integers(lo, lo + 12)))
    return dict(
        x=(draw(st.integers(1, 3)), groups * cg, *sizes),
        w=(groups * og, cg, *kernel),
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
        extra=[draw(st.integers(0, 2)) for _ in range(2)],  # pixels past the last window
        dtype=draw(st.sampled_from([np.float64, np.float32])),
        seed=draw(st.integers(0, 2**16)),
    )


def _arrays(case):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["x"]).astype(case["dtype"])
    blocks = [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, st, p, d in zip(
            case["x"][2:], case["w"][2:], case["stride"], case["padding"], case["dilation"]
        )
    ]
    g = rng.standard_normal((case["x"][0], case["w"][0], *blocks)).astype(case["dtype"])
    return g, x


@settings(max_examples=80, deadline=None)
@given(case=cases())
def test_phase_weight_grad_matches_torch(torch, case):
    g, x = _arrays(case)
    args = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ref = _torch_wgrad(torch, g, x, case["w"], *args)
    ours = P.weight_grad_phase(g, x, tuple(case["w"]), *args)
    assert ours.shape == tuple(case["w"]) and ours.dtype == case["dtype"]
    assert ours.flags.c_contiguous
    rtol, atol = TOL[case["dtype"]]
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=atol)


def _loop_wgrad(g, x, w_shape, stride, padding, dilation, groups):
    """Tap by tap: ``gw[o, c, a, b] = sum g[n, o, i, j] * xp[n, c, i*s + a*d, j*s + b*d]`` on
    the input zero-padded by ``padding`` before and as much as needed after."""
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    o, cg, kh, kw = w_shape
    n, c, h, wd = x.shape
    ho, wo = g.shape[2:]
    xp = np.zeros(
        (n, c, ph + max(h, (ho - 1) * sh + kh * dh) + 1, pw + max(wd, (wo - 1) * sw + kw * dw) + 1)
    )
    xp[:, :, ph : ph + h, pw : pw + wd] = x
    og = o // groups
    gw = np.zeros(w_shape)
    for a in range(kh):
        for b in range(kw):
            win = xp[
                :,
                :,
                a * dh : a * dh + (ho - 1) * sh + 1 : sh,
                b * dw : b * dw + (wo - 1) * sw + 1 : sw,
            ]
            for gi in range(groups):
                gg = g[:, gi * og : (gi + 1) * og].astype(np.float64)
                xx = win[:, gi * cg : (gi + 1) * cg]
                gw[gi * og : (gi + 1) * og, :, a, b] = np.einsum("noij,ncij->oc", gg, xx)
    return gw


@settings(max_examples=40, deadline=None)
@given(case=cases())
def test_input_larger_than_the_windows_reach(case):
    """A transposed convolution's output_padding hands over an input larger than the
    convolution of ``g``'s size needs: its pixels count where a window reaches them (also
    where the symmetric padding would be), against a tap-by-tap loop."""
    g, x = _arrays(case)
    ex, ey = case["extra"]
    rng = np.random.default_rng(case["seed"] + 1)
    big = rng.standard_normal((*x.shape[:2], x.shape[2] + ex, x.shape[3] + ey))
    big = big.astype(case["dtype"])
    args = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ref = _loop_wgrad(g, big.astype(np.float64), tuple(case["w"]), *args)
    ours = P.weight_grad_phase(g, big, tuple(case["w"]), *args)
    rtol, atol = TOL[case["dtype"]]
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=atol)


def test_strategy_choice():
    """Strided 2-d with thin groups (fewer than THIN output channels) of at least PHASE_MIN_CG
    input channels; not stride 1, not few input channels, not wide groups, not 1-d/3-d."""
    assert W.wgrad_strategy((64, 16, 3, 3), (2, 2), 4) == "phase"  # the benchmark's grouped s2
    assert W.wgrad_strategy((16, 16, 3, 3), (2, 1), 1) == "phase"
    assert W.wgrad_strategy((16, 8, 4, 4), (2, 2), 1) == "flat"  # DCGAN's transposed conv
    assert W.wgrad_strategy((16, 16, 3, 3), (1, 1), 1) == "rows"
    assert W.wgrad_strategy((16, 3, 7, 7), (2, 2), 1) == "flat"  # 3 input channels
    assert W.wgrad_strategy((128, 64, 3, 3), (2, 2), 1) == "flat"  # wide: flat's product
    assert W.wgrad_strategy((16, 16, 3), (2,), 1) == "flat"
    assert W.wgrad_strategy((16, 16, 3, 3, 3), (2, 2, 2), 1) == "flat"


@pytest.mark.parametrize(
    "bad, where",
    [(np.inf, (0, 3, 0, 8)), (np.nan, (1, 9, 5, 8)), (-np.inf, (0, 1, 2, 3))],
)
def test_non_finite_inputs(torch, bad, where):
    """An inf/nan where a tap reads it and where none does (column 8 of 9 with stride 2 and a
    3-wide kernel without padding: only the last tap of the last window): the grid's extra
    positions would spread it; the caller recomputes a non-finite result the exact way."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 32, 9, 9))
    x[where] = bad
    g = rng.standard_normal((2, 8, 4, 4))
    w_shape = (8, 16, 3, 3)
    args = ([2, 2], [0, 0], [1, 1], 2)
    assert W.wgrad_strategy(w_shape, (2, 2), 2) == "phase"
    ref = _torch_wgrad(torch, g, x, w_shape, *args)
    ours = K.conv_weight_grad_nd(g, x, w_shape, *args)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-10)  # nan where torch has nan


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(1, 3),
    size=st.integers(5, 20),
    stride=st.integers(2, 3),
    padding=st.integers(0, 2),
    groups=st.sampled_from([1, 2, 4]),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_through_autograd(torch, n, size, stride, padding, groups, dtype):
    """conv2d's weight gradient through autograd where "phase" is chosen (16 input channels
    per group, 4 output channels per group)."""
    assume(size + 2 * padding >= 3)
    rng = np.random.default_rng(size * 7 + stride)
    x = rng.standard_normal((n, 16 * groups, size, size + 1)).astype(dtype)
    w = rng.standard_normal((4 * groups, 16, 3, 3)).astype(dtype)
    kw = dict(stride=stride, padding=padding, groups=groups)
    assert W.wgrad_strategy(w.shape, (stride, stride), groups) == "phase"
    wt = tl.tensor(w, requires_grad=True)
    out = F.conv2d(tl.tensor(x), wt, **kw)
    tw = torch.tensor(w, requires_grad=True)
    ref = torch.nn.functional.conv2d(torch.tensor(x), tw, **kw)
    g = rng.standard_normal(tuple(ref.shape)).astype(dtype)
    (ours,) = tl.autograd.grad(out, (wt,), tl.tensor(g))
    (theirs,) = torch.autograd.grad(ref, (tw,), torch.tensor(g))
    tol = 2e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(ours._np(), theirs.numpy(), rtol=tol, atol=tol)
