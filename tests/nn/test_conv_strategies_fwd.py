"""The forward conv2d kernels of ``_conv_direct`` (``flat-clip``) against torch 2.13.

``tests/nn/test_conv.py`` runs every strategy of ``K.STRATEGIES`` on its hypothesis cases with one
fixed padding; here the new kernel gets its own cases: every padding up to the kernel's reach
(``'same'`` included, asymmetric), strides with and without dilation, groups, tiny chunk budgets,
odd input layouts and dtypes, and non-finite values at the image edges (a column that wrapped
into the neighbouring row must read zero, never the value there).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlab.nn import _conv_direct as D
from tensorlab.nn import _conv_kernels as K


def _ref(torch, x, w, stride, padding, dilation, groups):
    """torch on the explicitly zero-padded input (padding is (top, bottom, left, right))."""
    pt, pb, pl, pr = padding
    xt = torch.nn.functional.pad(torch.from_numpy(x), (pl, pr, pt, pb))
    return torch.nn.functional.conv2d(
        xt, torch.from_numpy(w), None, stride, 0, dilation, groups
    ).numpy()


@st.composite
def clip_cases(draw):
    """A convolution that ``flat-clip`` can run (output no wider than the grid)."""
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    reach_h, reach_w = dh * (kh - 1), dw * (kw - 1)
    pt = draw(st.integers(0, reach_h + 3))  # rows of padding only: beyond the kernel's reach
    pb = draw(st.integers(0, reach_h + 3))
    pl = draw(st.integers(0, reach_w))
    pr = draw(st.integers(0, reach_w - pl))
    h = draw(st.integers(max(1, reach_h + 1 - pt - pb), 12))
    w = draw(st.integers(max(1, reach_w + 1 - pl - pr), 12))
    n = draw(st.integers(1, 3))
    return dict(
        x=(n, groups * cg, h, w),
        w=(groups * og, cg, kh, kw),
        stride=(sh, sw),
        padding=(pt, pb, pl, pr),
        dilation=(dh, dw),
        groups=groups,
        seed=draw(st.integers(0, 2**31 - 1)),
        chunk=draw(st.sampled_from([None, 1, 2000])),
    )


def _out_hw(case):
    (_, _, h, w), (_, _, kh, kw) = case["x"], case["w"]
    pt, pb, pl, pr = case["padding"]
    ho = K.conv_out_size(h, kh, case["stride"][0], pt + pb, case["dilation"][0])
    wo = K.conv_out_size(w, kw, case["stride"][1], pl + pr, case["dilation"][1])
    return ho, wo


@settings(max_examples=300, deadline=None)
@given(case=clip_cases())
def test_flat_clip_matches_torch(torch, case):
    rng = np.random.default_rng(case["seed"])
    x, w = rng.standard_normal(case["x"]), rng.standard_normal(case["w"])
    ho, wo = _out_hw(case)
    assert D.flat_clip_fits(case["x"][3], wo, case["stride"][1])
    out = np.full((case["x"][0], case["w"][0], ho, wo), np.nan)
    args = (case["stride"], case["padding"], case["dilation"], case["groups"])
    D.conv_flat_clip(x, w, *args, out, case["chunk"])
    ref = _ref(torch, x, w, *args)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=150, deadline=None)
@given(case=clip_cases(), channels=st.integers(1, 5))
def test_flat_clip_depthwise_matches_torch(torch, case, channels):
    """One input and one output channel per group, stride 1: the kernel-rows-as-shifts kernel
    (``_rowfold``), by whole images and by blocks of rows."""
    n, _, h, w = case["x"]
    kh, kw = case["w"][2:]
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal((n, channels, h, w))
    wt = rng.standard_normal((channels, 1, kh, kw))
    args = ((1, 1), case["padding"], case["dilation"], channels)
    case = dict(case, x=x.shape, w=wt.shape, stride=(1, 1))
    ho, wo = _out_hw(case)
    ref = _ref(torch, x, wt, *args)
    for budget in (None, 1):
        out = np.full((n, channels, ho, wo), np.nan)
        D.conv_flat_clip(x, wt, *args, out, budget)
        np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rowfold", [False, True])
@settings(max_examples=100, deadline=None)
@given(case=clip_cases())
def test_flat_clip_one_group_both_kernels(torch, rowfold, case):
    """One group, stride 1: the general kernel and the kernel-rows-as-shifts one (``_rowfold``),
    whatever the rule would pick, by whole images and by blocks of rows."""
    rule = D.use_rowfold
    D.use_rowfold = lambda *shape: rowfold
    try:
        _one_group(torch, case)
    finally:
        D.use_rowfold = rule


def _one_group(torch, case):
    rng = np.random.default_rng(case["seed"])
    c, o = case["x"][1] // case["groups"], case["w"][0] // case["groups"]
    x = rng.standard_normal((case["x"][0], c, *case["x"][2:]))
    wt = rng.standard_normal((o, c, *case["w"][2:]))
    args = ((1, 1), case["padding"], case["dilation"], 1)
    ho, wo = _out_hw(dict(case, x=x.shape, w=wt.shape, stride=(1, 1)))
    ref = _ref(torch, x, wt, *args)
    for budget in (None, 1):
        out = np.full((x.shape[0], o, ho, wo), np.nan)
        D.conv_flat_clip(x, wt, *args, out, budget)
        np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


@settings(max_examples=60, deadline=None)
@given(case=clip_cases())
def test_conv2d_dispatch_with_flat_clip_matches_torch(torch, case):
    """Through ``K.conv2d`` (bias, forced and default strategy, float32)."""
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["x"]).astype(np.float32)
    w = rng.standard_normal(case["w"]).astype(np.float32)
    b = rng.standard_normal(case["w"][0]).astype(np.float32)
    args = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ref = _ref(torch, x, w, *args) + b.reshape(1, -1, 1, 1)
    for strategy in ("flat-clip", None):
        out = K.conv2d(x, w, b, *args, strategy=strategy)
        assert out.flags.c_contiguous and out.dtype == np.float32
        np.testing.assert_allclose(out, ref, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize(
    "xs, ws, stride, padding, dilation, groups",
    [
        ((2, 4, 7, 9), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),  # depthwise 'same'
        ((2, 4, 7, 9), (8, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),  # depth multiplier 2
        ((1, 3, 9, 8), (6, 3, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),  # CIFAR-like 5x5
        ((2, 4, 11, 10), (4, 2, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 2),  # dilated 'same'
        ((2, 8, 10, 10), (8, 2, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),  # grouped stride 2
        ((1, 2, 11, 13), (3, 2, 4, 3), (3, 2), (0, 2, 1, 1), (2, 1), 1),  # odd sizes, phases
        ((1, 1, 6, 6), (1, 1, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),  # valid: cropped grid
        ((2, 2, 5, 4), (2, 2, 1, 3), (1, 2), (3, 0, 1, 1), (1, 1), 1),  # 1xk, pads > kernel rows
    ],
)
@pytest.mark.parametrize("fill", [np.inf, -np.inf, np.nan])
def test_flat_clip_edges_never_leak(torch, xs, ws, stride, padding, dilation, groups, fill):
    """Non-finite values in the first/last rows and columns: a wrapped read would spread them."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    x[..., 0] = fill
    x[..., -1] = -fill if fill == fill else fill
    x[..., 0, :] = fill
    ho, wo = _out_hw(dict(x=xs, w=ws, stride=stride, padding=padding, dilation=dilation))
    out = np.empty((xs[0], ws[0], ho, wo))
    with np.errstate(invalid="ignore"):  # inf - inf in the product, as in torch
        D.conv_flat_clip(x, w, stride, padding, dilation, groups, out, 1)
    ref = _ref(torch, x, w, stride, padding, dilation, groups)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced", "read-only"])
def test_flat_clip_dtypes_and_layouts(torch, dtype, layout):
    """Integer inputs (exact), and inputs that are not C-contiguous views."""
    rng = np.random.default_rng(4)
    base = rng.integers(-5, 6, size=(3, 4, 12, 10))
    if layout == "transposed":
        base = np.ascontiguousarray(base.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    elif layout == "sliced":
        base = rng.integers(-5, 6, size=(3, 4, 14, 21))[:, :, 1:13, ::2]
    x = base.astype(dtype)
    if layout == "read-only":  # the input is read through views of its buffer, never written
        x.flags.writeable = False
    w = rng.integers(-3, 4, size=(6, 2, 3, 3)).astype(dtype)
    for stride in ((1, 1), (2, 2)):
        args = (stride, (1, 1, 1, 1), (1, 1), 2)
        ours = K.conv2d(x, w, None, *args, strategy="flat-clip")
        ref = _ref(torch, x.astype(np.float64), w.astype(np.float64), *args)
        assert ours.dtype == dtype
        np.testing.assert_allclose(ours.astype(np.float64), ref, rtol=1e-5, atol=1e-4)


def test_flat_clip_falls_back_when_the_output_is_wider(torch):
    """Padding beyond the kernel's reach (as the transposed convolutions ask): another kernel."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 3, 5, 6)), rng.standard_normal((4, 3, 3, 3))
    for stride in ((1, 1), (2, 2)):
        args = (stride, (2, 2, 3, 2), (1, 1), 1)
        wo = K.conv_out_size(6, 3, stride[1], 5, 1)
        assert not D.flat_clip_fits(6, wo, stride[1])
        ours = K.conv2d(x, w, None, *args, strategy="flat-clip")
        np.testing.assert_allclose(ours, _ref(torch, x, w, *args), rtol=1e-10, atol=1e-10)


def test_flat_clip_threaded_split(torch, monkeypatch):
    """TENSORLAB_THREADS=2: images split between threads, each with half the chunk budget."""
    monkeypatch.setattr(K, "THREADS", 2)
    for name in ("CLIP_IMAGE_BYTES", "CLIP_BLOCK_BYTES", "CLIP_BATCH_BYTES"):
        monkeypatch.setattr(D, name, 4000)
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((5, 4, 9, 8)), rng.standard_normal((6, 2, 3, 3))
    for stride in ((1, 1), (2, 1)):
        args = (stride, (1, 1, 1, 1), (2, 1), 2)
        ours = K.conv2d(x, w, None, *args, strategy="flat-clip")
        np.testing.assert_allclose(ours, _ref(torch, x, w, *args), rtol=1e-10, atol=1e-10)
