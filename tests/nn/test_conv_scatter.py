"""The forward kernel ``scatter`` of ``_conv_direct`` (stride 1, every pixel times every tap, the
taps' contributions added as shifted runs) against torch 2.13: every padding (beyond the
kernel's reach, asymmetric, none), dilations, groups, tiny chunk budgets, non-finite pixels at
the image edges, integer inputs, and the dispatch that picks it (an output wider than the input
with few output channels, as the stride-1 input gradients ask)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlab.nn import _conv_direct as D
from tensorlab.nn import _conv_kernels as K


def _ref(torch, x, w, padding, dilation, groups):
    """torch on the explicitly zero-padded input (padding is (top, bottom, left, right))."""
    pt, pb, pl, pr = padding
    xt = torch.nn.functional.pad(torch.from_numpy(x), (pl, pr, pt, pb))
    return torch.nn.functional.conv2d(xt, torch.from_numpy(w), None, 1, 0, dilation, groups)


def _out(x, w, padding, dilation):
    ho = K.conv_out_size(x.shape[2], w.shape[2], 1, padding[0] + padding[1], dilation[0])
    wo = K.conv_out_size(x.shape[3], w.shape[3], 1, padding[2] + padding[3], dilation[1])
    return np.full((x.shape[0], w.shape[0], ho, wo), np.nan, dtype=x.dtype)


@st.composite
def scatter_cases(draw):
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    dh, dw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    reach_h, reach_w = dh * (kh - 1), dw * (kw - 1)
    padding = tuple(draw(st.integers(0, r + 3)) for r in (reach_h, reach_h, reach_w, reach_w))
    h = draw(st.integers(max(1, reach_h + 1 - padding[0] - padding[1]), 10))
    w = draw(st.integers(max(1, reach_w + 1 - padding[2] - padding[3]), 10))
    return dict(
        x=(draw(st.integers(1, 3)), groups * cg, h, w),
        w=(groups * og, cg, kh, kw),
        padding=padding,
        dilation=(dh, dw),
        groups=groups,
        seed=draw(st.integers(0, 2**31 - 1)),
        budget=draw(st.sampled_from([None, 1, 3000])),
    )


@settings(max_examples=300, deadline=None)
@given(case=scatter_cases())
def test_scatter_matches_torch(torch, case):
    rng = np.random.default_rng(case["seed"])
    x, w = rng.standard_normal(case["x"]), rng.standard_normal(case["w"])
    args = (case["padding"], case["dilation"], case["groups"])
    out = _out(x, w, case["padding"], case["dilation"])
    D.conv_scatter(x, w, *args, out, case["budget"])
    np.testing.assert_allclose(out, _ref(torch, x, w, *args).numpy(), rtol=1e-10, atol=1e-10)


@settings(max_examples=60, deadline=None)
@given(case=scatter_cases())
def test_conv2d_forced_scatter_float32_with_bias(torch, case):
    """Through ``K.conv2d`` (bias, float32, forced strategy; strides take another kernel)."""
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["x"]).astype(np.float32)
    w = rng.standard_normal(case["w"]).astype(np.float32)
    b = rng.standard_normal(case["w"][0]).astype(np.float32)
    args = (case["padding"], case["dilation"], case["groups"])
    ours = K.conv2d(x, w, b, (1, 1), *args, strategy="scatter")
    ref = _ref(torch, x, w, *args).numpy() + b.reshape(1, -1, 1, 1)
    assert ours.flags.c_contiguous and ours.dtype == np.float32
    np.testing.assert_allclose(ours, ref, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize(
    "xs, ws, padding, dilation, groups",
    [
        ((2, 16, 8, 8), (6, 16, 5, 5), (4, 4, 4, 4), (1, 1), 1),  # LeNet's input gradient
        ((2, 4, 7, 9), (2, 2, 3, 3), (3, 1, 2, 4), (2, 1), 2),  # groups, dilation, uneven
        ((1, 3, 5, 4), (1, 3, 2, 3), (0, 0, 0, 0), (1, 1), 1),  # valid: cropped
        ((1, 2, 3, 3), (1, 2, 2, 2), (5, 5, 5, 5), (1, 1), 1),  # beyond the full correlation
    ],
)
@pytest.mark.parametrize("fill", [np.inf, -np.inf, np.nan])
def test_scatter_edges_never_leak(torch, xs, ws, padding, dilation, groups, fill):
    """Non-finite pixels in the first/last rows and columns: a wrapped run would spread them."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    x[..., 0] = fill
    x[..., -1] = -fill if fill == fill else fill
    x[..., 0, :] = fill
    x[..., -1, :] = fill
    out = _out(x, w, padding, dilation)
    with np.errstate(invalid="ignore"):  # inf - inf in the sums, as in torch
        D.conv_scatter(x, w, padding, dilation, groups, out, 1)
        ref = _ref(torch, x, w, padding, dilation, groups).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("kw", [1, 3])
def test_scatter_integers_and_layouts(torch, layout, kw):
    """Integer inputs (exact), inputs that are not C-contiguous, and a 1-wide kernel (no grid)."""
    rng = np.random.default_rng(4)
    base = rng.integers(-5, 6, size=(3, 4, 6, 7))
    if layout == "transposed":
        base = np.ascontiguousarray(base.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    elif layout == "sliced":
        base = rng.integers(-5, 6, size=(3, 4, 8, 15))[:, :, 1:7, ::2]
    x = base.astype(np.int64)
    w = rng.integers(-3, 4, size=(2, 4, 3, kw)).astype(np.int64)
    ours = K.conv2d(x, w, None, (1, 1), (2, 2, kw - 1, kw - 1), (1, 1), 1, strategy="scatter")
    ref = _ref(torch, x.astype(np.float64), w.astype(np.float64), (2, 2, kw - 1, kw - 1), 1, 1)
    assert ours.dtype == np.int64
    np.testing.assert_array_equal(ours, ref.numpy().astype(np.int64))


def test_dispatch_picks_scatter_for_wide_outputs_with_few_channels(monkeypatch):
    calls = []
    real = D.conv_scatter
    monkeypatch.setattr(D, "conv_scatter", lambda *a, **k: calls.append(1) or real(*a, **k))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 16, 8, 8)).astype(np.float32)
    for o, expected in ((6, 1), (16, 1), (64, 0)):
        w = rng.standard_normal((o, 16, 5, 5)).astype(np.float32)
        calls.clear()
        K.conv2d(x, w, None, (1, 1), (4, 4, 4, 4), (1, 1), 1)
        assert len(calls) == expected
    # same width: flat-clip; non-finite weights or a stride: never scatter
    w = rng.standard_normal((6, 16, 5, 5)).astype(np.float32)
    calls.clear()
    K.conv2d(x, w, None, (1, 1), (2, 2, 2, 2), (1, 1), 1)
    K.conv2d(x, w, None, (2, 2), (4, 4, 4, 4), (1, 1), 1, strategy="scatter")
    w[0, 0, 0, 0] = np.inf
    with np.errstate(invalid="ignore"):  # inf * 0 in the other kernel's padding
        K.conv2d(x, w, None, (1, 1), (4, 4, 4, 4), (1, 1), 1)
    assert not calls


def test_input_gradient_through_scatter_matches_torch(torch):
    """LeNet's second convolution: its input gradient is a stride-1 transposed convolution that
    runs as a forward convolution with padding 4 and 6 of 16 channels (``scatter``)."""
    import tensorlab as tl

    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 6, 12, 12)).astype(np.float32)
    w = rng.standard_normal((16, 6, 5, 5)).astype(np.float32)
    g = rng.standard_normal((4, 16, 8, 8)).astype(np.float32)
    grads = []
    for lib in (tl, torch):
        xt = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.conv2d(xt, lib.tensor(w))
        out.backward(lib.tensor(g))
        grads.append(xt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-4)
