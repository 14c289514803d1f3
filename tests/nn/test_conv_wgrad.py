"""The weight gradient of convolutions (:mod:`tensorlab.nn._conv_wgrad`) against PyTorch 2.13.

Every strategy (``1x1``, ``depthwise``, ``flat``, and the exact ``windows`` product it falls back
to) on random 1-d/2-d/3-d convolutions (groups incl. depthwise, strides, dilations, paddings,
batch sizes), in float64 and float32, compared with ``torch.ops.aten.convolution_backward``;
the transposed convolutions' weight gradients through autograd; tiny chunk budgets (rows of one
image, several images side by side, the split inner dimension); non-finite inputs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn import _conv_kernels as K
from tensorlab.nn import _conv_wgrad as W


def _tol(dtype):
    return (1e-9, 1e-10) if dtype == np.float64 else (2e-4, 2e-4)


def _torch_wgrad(torch, g, x, w_shape, stride, padding, dilation, groups):
    w = torch.zeros(w_shape, dtype=torch.from_numpy(x).dtype)
    nd = len(w_shape) - 2
    res = torch.ops.aten.convolution_backward(
        torch.from_numpy(g),
        torch.from_numpy(x),
        w,
        None,
        list(stride),
        list(padding),
        list(dilation),
        False,
        [0] * nd,
        groups,
        [False, True, False],
    )
    return res[1].numpy()


def _strategies(w_shape, stride, groups):
    """The strategies that may run this convolution (``depthwise`` only where it applies)."""
    out = ["windows", "flat", "rows", None]
    kernel = w_shape[2:]
    if all(k == 1 for k in kernel):
        out.append("1x1")
    if W.wgrad_strategy(w_shape, stride, groups) == "depthwise":
        out.append("depthwise")
    if len(kernel) == 2:
        out.append("phase")
    return out


@st.composite
def conv_cases(draw, nd=None, depthwise=None):
    nd = draw(st.sampled_from([1, 2, 2, 2, 3])) if nd is None else nd
    dw = draw(st.booleans()) if depthwise is None else depthwise
    if dw:
        groups = draw(st.integers(1, 5))
        cin, cout = groups, groups
    else:
        groups = draw(st.sampled_from([1, 1, 2, 3]))
        cin = groups * draw(st.integers(1, 3))
        cout = groups * draw(st.integers(1, 4))
    small = nd == 3
    kernel = [draw(st.integers(1, 2 if small else 4)) for _ in range(nd)]
    stride = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilation = [draw(st.integers(1, 2)) for _ in range(nd)]
    padding = [draw(st.integers(0, 2)) for _ in range(nd)]
    sizes = []
    for k, d, p in zip(kernel, dilation, padding):
        reach = d * (k - 1) + 1
        lo = max(1, reach - 2 * p)
        sizes.append(draw(st.integers(lo, lo + (3 if small else 8))))
    n = draw(st.integers(1, 3))
    return {
        "x": (n, cin, *sizes),
        "w": (cout, cin // groups, *kernel),
        "stride": stride,
        "padding": padding,
        "dilation": dilation,
        "groups": groups,
    }


def _arrays(case, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(case["x"]).astype(dtype)
    blocks = [
        (s + 2 * p - d * (k - 1) - 1) // st + 1
        for s, k, st, p, d in zip(
            case["x"][2:], case["w"][2:], case["stride"], case["padding"], case["dilation"]
        )
    ]
    g = rng.standard_normal((case["x"][0], case["w"][0], *blocks)).astype(dtype)
    return g, x


def _check(torch, case, dtype, seed=0):
    g, x = _arrays(case, dtype, seed)
    args = (case["stride"], case["padding"], case["dilation"], case["groups"])
    ref = _torch_wgrad(torch, g, x, case["w"], *args)
    rtol, atol = _tol(dtype)
    for strategy in _strategies(case["w"], case["stride"], case["groups"]):
        ours = K.conv_weight_grad_nd(g, x, case["w"], *args, strategy=strategy)
        assert ours.shape == tuple(case["w"]) and ours.dtype == dtype, strategy
        np.testing.assert_allclose(ours, ref, rtol=rtol, atol=atol, err_msg=str(strategy))


@settings(max_examples=60, deadline=None)
@given(case=conv_cases(), dtype=st.sampled_from([np.float64, np.float32]))
def test_every_strategy_matches_torch(torch, case, dtype):
    _check(torch, case, dtype)


@settings(max_examples=40, deadline=None)
@given(case=conv_cases(nd=2, depthwise=True), dtype=st.sampled_from([np.float64, np.float32]))
def test_depthwise_matches_torch(torch, case, dtype):
    case["stride"] = [1, 1]  # the depthwise kernel's case (strides go the flat way)
    _check(torch, case, dtype)


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(1, 3),
    cin=st.integers(1, 4),
    cout=st.integers(1, 4),
    size=st.integers(1, 9),
    stride=st.integers(1, 3),
    padding=st.integers(0, 2),
    nd=st.sampled_from([1, 2, 3]),
)
def test_1x1_kernels_match_torch(torch, n, cin, cout, size, stride, padding, nd):
    case = {
        "x": (n, cin, *[size] * nd),
        "w": (cout, cin, *[1] * nd),
        "stride": [stride] * nd,
        "padding": [padding] * nd,
        "dilation": [1] * nd,
        "groups": 1,
    }
    _check(torch, case, np.float64)


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((2, 6, 13, 11), (4, 3, 3, 2), dict(stride=(1, 1), padding=(1, 2), dilation=(2, 1))),
        ((3, 4, 9, 17), (6, 2, 3, 3), dict(stride=(2, 3), padding=(1, 0), dilation=(1, 2))),
        ((2, 5, 12, 12), (5, 1, 3, 3), dict(stride=(1, 1), padding=(1, 1), dilation=(1, 1))),
        ((2, 5, 12, 12), (5, 1, 3, 5), dict(stride=(1, 1), padding=(0, 3), dilation=(3, 1))),
        ((2, 3, 6, 7, 8), (4, 3, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1), dilation=(1, 1, 2))),
    ],
)  # fmt: skip
@pytest.mark.parametrize("budget", [1, 700, 5000, 2**20])
def test_chunks(torch, monkeypatch, xs, ws, kw, budget):
    """Tiny budgets: rows of one image per chunk, several images side by side, uneven chunks."""
    monkeypatch.setattr(W, "WGRAD_CHUNK_BYTES", budget)
    groups = xs[1] // ws[1]
    case = {"x": xs, "w": ws, "groups": groups, **{k: list(v) for k, v in kw.items()}}
    _check(torch, case, np.float64, seed=budget)


@pytest.mark.parametrize("ksplit", [4, 7, 256])
def test_split_inner_dimension(torch, monkeypatch, ksplit):
    """Thin gradients (2..31 output channels per group) are split into K slices: any slice
    length, with a remainder, gives the same sums."""
    monkeypatch.setattr(W, "KSPLIT", ksplit)
    case = {
        "x": (3, 4, 23, 19),
        "w": (6, 2, 3, 3),
        "stride": [1, 1],
        "padding": [1, 1],
        "dilation": [1, 2],
        "groups": 2,
    }
    _check(torch, case, np.float64)
    _check(torch, case, np.float32)


def test_benchmark_shapes(torch):
    """The conv2d benchmark's backward cases (bench_conv.py), float32."""
    cases = [
        ((4, 3, 32, 32), (16, 3, 5, 5), [1, 1], [2, 2], [1, 1], 1),
        ((4, 32, 28, 28), (32, 1, 3, 3), [1, 1], [1, 1], [1, 1], 32),
        ((2, 64, 32, 32), (64, 16, 3, 3), [2, 2], [1, 1], [1, 1], 4),
        ((2, 16, 64, 64), (16, 16, 3, 3), [1, 1], [2, 2], [2, 2], 1),
        ((2, 128, 14, 14), (256, 128, 1, 1), [1, 1], [0, 0], [1, 1], 1),
    ]
    for xs, ws, stride, padding, dilation, groups in cases:
        case = {"x": xs, "w": ws, "stride": stride, "padding": padding}
        case.update(dilation=dilation, groups=groups)
        _check(torch, case, np.float32)


@pytest.mark.parametrize(
    "bad, where",
    [(np.inf, (0, 0, 0, 6)), (np.nan, (1, 1, 5, 6)), (-np.inf, (0, 1, 2, 3))],
)
@pytest.mark.parametrize("strategy", [None, "flat", "depthwise"])
def test_non_finite_inputs(torch, bad, where, strategy):
    """An inf/nan in a pixel some tap never reads (here column 6: a 3-wide kernel with stride 1
    and no padding on 7 columns reads it only with its last tap) must not spread to the other
    taps through the zero-padded grid: the result is recomputed the exact way."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 7, 7))
    x[where] = bad
    g = rng.standard_normal((2, 2, 5, 5))
    w_shape = (2, 1, 3, 3)
    args = ([1, 1], [0, 0], [1, 1], 2)
    ref = _torch_wgrad(torch, g, x, w_shape, *args)
    ours = K.conv_weight_grad_nd(g, x, w_shape, *args, strategy=strategy)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-10)  # nan where torch has nan


def test_non_finite_gradient(torch):
    rng = np.random.default_rng(4)
    x, g = rng.standard_normal((2, 3, 8, 8)), rng.standard_normal((2, 4, 8, 8))
    g[1, 2, 3, 4] = np.inf
    args = ([1, 1], [1, 1], [1, 1], 1)
    ref = _torch_wgrad(torch, g, x, (4, 3, 3, 3), *args)
    ours = K.conv_weight_grad_nd(g, x, (4, 3, 3, 3), *args)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-10)


# ---------------------------------------------------------------------------- transposed


@st.composite
def tconv_cases(draw):
    nd = draw(st.sampled_from([1, 2, 2, 3]))
    groups = draw(st.sampled_from([1, 1, 2]))
    cin = groups * draw(st.integers(1, 3))
    cout_g = draw(st.integers(1, 3))
    small = nd == 3
    kernel = [draw(st.integers(1, 2 if small else 4)) for _ in range(nd)]
    stride = [draw(st.integers(1, 3)) for _ in range(nd)]
    dilation = [draw(st.integers(1, 2)) for _ in range(nd)]
    padding = [draw(st.integers(0, 1)) for _ in range(nd)]
    out_pad = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation)]
    sizes = [draw(st.integers(1, 3 if small else 6)) for _ in range(nd)]
    return {
        "x": (draw(st.integers(1, 2)), cin, *sizes),
        "w": (cin, cout_g, *kernel),
        "kwargs": dict(
            stride=stride,
            padding=padding,
            output_padding=out_pad,
            groups=groups,
            dilation=dilation,
        ),
    }


@settings(max_examples=40, deadline=None)
@given(case=tconv_cases(), dtype=st.sampled_from(["float64", "float32"]))
def test_transposed_weight_gradient_matches_torch(torch, case, dtype):
    """conv_transpose{1,2,3}d: the weight gradient is the weight gradient of the convolution
    whose input is the output gradient (output_padding crops nothing it reads)."""
    nd = len(case["x"]) - 2
    name = f"conv_transpose{nd}d"
    kw = case["kwargs"]
    # the output must not be empty; PyTorch also rejects an output_padding >= stride and dilation
    sizes = [
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, s, p, d, k, op in zip(
            case["x"][2:], kw["stride"], kw["padding"], kw["dilation"], case["w"][2:],
            kw["output_padding"],
        )
    ]  # fmt: skip
    if min(sizes) < 1:
        return
    rng = np.random.default_rng(1)
    x = rng.standard_normal(case["x"])
    w = rng.standard_normal(case["w"])
    outs = []
    for lib, fn in ((tl, getattr(F, name)), (torch, getattr(torch.nn.functional, name))):
        dt = getattr(lib, dtype)
        xt = lib.tensor(x, dtype=dt, requires_grad=True)
        wt = lib.tensor(w, dtype=dt, requires_grad=True)
        out = fn(xt, wt, **kw)
        g = np.random.default_rng(2).standard_normal(tuple(out.shape))
        (gw,) = lib.autograd.grad(out, (wt,), lib.tensor(g, dtype=dt))
        outs.append(gw.detach().numpy() if lib is torch else gw.numpy())
    rtol, atol = _tol(np.dtype(dtype))
    np.testing.assert_allclose(outs[0], outs[1], rtol=rtol, atol=atol)


def test_strided_kernels_of_many_taps_take_the_window_product(torch):
    """A stride with more than MAX_STRIDED_TAPS taps (d2l's FCN upsampler: 64x64, stride 32)
    goes the window way; small kernels with a stride and any kernel without one do not."""
    assert W.wgrad_strategy((2, 2, 17, 17), (2, 2), 1) == "windows"
    assert W.wgrad_strategy((2, 2, 17, 17), (1, 1), 1) == "rows"
    assert W.wgrad_strategy((2, 2, 3, 3), (2, 2), 1) == "flat"
    case = {
        "x": (1, 2, 40, 37),
        "w": (3, 2, 17, 17),
        "stride": [2, 3],
        "padding": [4, 1],
        "dilation": [1, 1],
        "groups": 1,
    }
    _check(torch, case, np.float64)


def test_strategy_choice():
    """The benchmark cases' kernels (see the module notes of _conv_wgrad)."""
    assert W.wgrad_strategy((64, 64, 3, 3), (1, 1), 1) == "rows"  # resnet
    assert W.wgrad_strategy((16, 16, 3, 3), (1, 1), 1) == "rows"  # dilated
    assert W.wgrad_strategy((16, 3, 5, 5), (1, 1), 1) == "flat"  # cifar: 15 rows only
    assert W.wgrad_strategy((64, 16, 3, 3), (2, 2), 4) == "phase"  # grouped, stride 2
    assert W.wgrad_strategy((32, 1, 3, 3), (1, 1), 32) == "depthwise"
    assert W.wgrad_strategy((32, 1, 3, 3), (2, 2), 32) == "flat"
    assert W.wgrad_strategy((256, 128, 1, 1), (1, 1), 1) == "1x1"
