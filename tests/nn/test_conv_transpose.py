"""conv_transpose1d/2d/3d, conv3d and their layers against torch 2.13: values, dtypes, shapes,
strides (memory formats), errors, grad_fn names and gradients."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from conv_layouts import strided
from helpers import raises_same, to_torch, torch_conv_path
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F


def assert_close(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride(), (ours.stride(), theirs.stride())
    a, b = ours._np(), theirs.detach().numpy()
    tol = {"float64": 1e-10, "float32": 2e-4, "float16": 2e-2}.get(str(a.dtype), 0)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol)


@st.composite
def transpose_cases(draw, spatial=2, valid=True):
    groups = draw(st.integers(1, 3))
    cg_in, og = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    ks = [draw(st.integers(1, 3)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dil = [draw(st.integers(1, 2)) for _ in range(spatial)]
    pad = [draw(st.integers(0, 2)) for _ in range(spatial)]
    out_pad = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dil)]
    if not valid:  # sometimes a bad value, to compare the errors
        which = draw(st.sampled_from(["none", "pad", "opad", "stride", "dil", "ch", "bias", "k"]))
        if which == "pad":
            pad[0] = draw(st.sampled_from([-1, 5]))
        elif which == "opad":
            out_pad[0] = draw(st.sampled_from([-1, max(stride[0], dil[0])]))
        elif which == "stride":
            stride[0] = 0
        elif which == "dil":
            dil[0] = draw(st.sampled_from([0, -1]))
        elif which == "k":
            ks[0] = 0
    else:
        which = "none"
    sizes = [draw(st.integers(1, 5)) for _ in range(spatial)]
    unbatched = draw(st.booleans())
    batch = draw(st.integers(1, 3))
    c_in = groups * cg_in + (1 if which == "ch" else 0)
    return dict(
        shape_x=tuple(([] if unbatched else [batch]) + [c_in] + sizes),
        shape_w=(groups * cg_in, og, *ks),
        bias=draw(st.booleans()) or which == "bias",
        bias_len=groups * og + (1 if which == "bias" else 0),
        kw=dict(
            stride=tuple(stride) if draw(st.booleans()) else stride[0],
            padding=tuple(pad) if draw(st.booleans()) or len(set(pad)) > 1 else pad[0],
            output_padding=tuple(out_pad),
            groups=groups,
            dilation=tuple(dil) if draw(st.booleans()) or len(set(dil)) > 1 else dil[0],
        ),
        dtype=draw(st.sampled_from(["float32", "float64"])),
        layout=draw(st.sampled_from(["contiguous", "channels_last", "transposed", "sliced"])),
        wlayout=draw(st.sampled_from(["contiguous", "channels_last"])),
        seed=draw(st.integers(0, 2**16)),
    )


def _tensors(case):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["shape_x"]).astype(case["dtype"])
    w = rng.standard_normal(case["shape_w"]).astype(case["dtype"])
    b = rng.standard_normal(case["bias_len"]).astype(case["dtype"]) if case["bias"] else None
    return (
        strided(x, case["layout"]),
        strided(w, case["wlayout"]),
        None if b is None else tl.tensor(b),
    )


def _run(torch, case, fn):
    xt, wt, bt = _tensors(case)
    ours, theirs = raises_same(
        lambda: getattr(F, fn)(xt, wt, bt, **case["kw"]),
        lambda: getattr(torch.nn.functional, fn)(
            to_torch(torch, xt),
            to_torch(torch, wt),
            None if bt is None else to_torch(torch, bt),
            **case["kw"],
        ),
    )
    if theirs is not None:
        assert_close(ours, theirs)


@pytest.mark.parametrize("spatial", [1, 2, 3])
@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_conv_transpose_matches_torch(torch, spatial, data):
    case = data.draw(transpose_cases(spatial, valid=data.draw(st.booleans())))
    _run(torch, case, f"conv_transpose{spatial}d")


@settings(max_examples=50, deadline=None)
@given(case=st.booleans().flatmap(lambda ok: transpose_cases(3, valid=ok)))
def test_conv3d_matches_torch(torch, case):
    """conv3d: the transposed cases' weights read as (C_out, C_in/groups, k) with C_in = og*groups."""
    g = case["kw"]["groups"]
    case["shape_x"] = (
        case["shape_x"][:-4]
        + (case["shape_w"][1] * g,)
        + tuple(s + 4 for s in case["shape_x"][-3:])
    )
    case["bias_len"] = case["shape_w"][0]
    kw = dict(case["kw"])
    kw.pop("output_padding")
    case["kw"] = kw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _run(torch, case, "conv3d")


@pytest.mark.parametrize("dtype", ["float16", "int64", "int32", "int16", "bool", "uint8"])
@pytest.mark.parametrize(
    "fn", ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "conv3d"]
)
def test_dtypes(torch, dtype, fn):
    spatial = int(fn[-2])
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 4) + (5,) * spatial) * 3).astype(dtype)
    w = (rng.standard_normal((4, 4) + (2,) * spatial) * 3).astype(dtype)
    a, b = tl.from_numpy(x), tl.from_numpy(w)

    def theirs():
        # float16 takes oneDNN only on CPUs with it in hardware: ask for the path tensorlab models
        with torch_conv_path(torch, dtype):
            return getattr(torch.nn.functional, fn)(torch.from_numpy(x), torch.from_numpy(w))

    ours, theirs = raises_same(lambda: getattr(F, fn)(a, b), theirs)
    if theirs is not None:
        assert_close(ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, w: F.conv_transpose2d(x, w, None, 1, "same"),
        lambda F, x, w: F.conv_transpose2d(x, w, padding="same"),
        lambda F, x, w: F.conv_transpose2d(x, w, stride=1.5),
        lambda F, x, w: F.conv_transpose2d(x, w, None, 1.5),
        lambda F, x, w: F.conv_transpose2d(x, w, stride=(1, 1.5)),
        lambda F, x, w: F.conv_transpose2d(x, w, groups=1.5),
        lambda F, x, w: F.conv_transpose2d(x, w, foo=1),
        lambda F, x, w: F.conv_transpose2d(x),
        lambda F, x, w: F.conv_transpose2d(x, [1]),
        lambda F, x, w: F.conv_transpose2d([1], w),
        lambda F, x, w: F.conv_transpose2d(x, w, 1),
        lambda F, x, w: F.conv_transpose2d(x, w, None, 1, 0, 0, 1, 1, 1),
        lambda F, x, w: F.conv_transpose2d(x, w, stride=(1, 2, 3)),
        lambda F, x, w: F.conv_transpose2d(x[0, 0], w),
        lambda F, x, w: F.conv_transpose2d(x, w[0]),
        lambda F, x, w: F.conv_transpose2d(x, w.double()),
        lambda F, x, w: F.conv_transpose2d(x.double(), w),
        lambda F, x, w: F.conv_transpose2d(x, w, w[0, 0, 0].double()),
        lambda F, x, w: F.conv_transpose2d(x.double(), w.double(), w[0, 0, 0]),
        lambda F, x, w: F.conv_transpose2d(x.double(), w.double(), w[0, 0, 0].long()),
        lambda F, x, w: F.conv_transpose1d(x[0].double(), w[:, :, 0].double(), w[0, 0, 0]),
        pytest.param(
            lambda F, x, w: F.conv_transpose3d(
                x[:, :, None].half(), w[:, :, None].half(), w[0, 0, 0]
            ),
            id="half-input-float-bias",
        ),
        lambda F, x, w: F.conv_transpose3d(
            x[:1, :, None].double(), w[:, :, None].double(), w[0, 0, 0]
        ),
        lambda F, x, w: F.conv_transpose2d(x[:0], w),
        lambda F, x, w: F.conv_transpose2d(x[:, :, :0], w),
        lambda F, x, w: F.conv_transpose2d(x, w, groups=0),
        lambda F, x, w: F.conv_transpose2d(x, w, groups=3),
        lambda F, x, w: F.conv_transpose2d(x, w, groups=8),
        lambda F, x, w: F.conv_transpose2d(x, w[..., :0]),
        lambda F, x, w: F.conv_transpose2d(x, w, padding=9),
        lambda F, x, w: F.conv_transpose2d(x.double(), w.double(), padding=9),
        lambda F, x, w: F.conv_transpose2d(x.double(), w.double(), dilation=0),
        lambda F, x, w: F.conv_transpose2d(x.double(), w.double()[..., :0]),
        lambda F, x, w: F.conv_transpose3d(x[None], w[..., None], dilation=0),
        lambda F, x, w: F.conv_transpose3d(x[:, :, None], w[:, :, None], dilation=0),
        lambda F, x, w: F.conv_transpose3d(x[:, :, None], w[:, :, None], padding=9),
        lambda F, x, w: F.conv3d(x[None], w[None]),
        lambda F, x, w: F.conv3d(x, w, None, 1.5),
        lambda F, x, w: F.conv3d(x[:, :, None], w[:, :, None], padding=(1, 2)),
        lambda F, x, w: F.conv3d(x[:, :, None], w[:, :, None], dilation=0),
        lambda F, x, w: F.conv3d(x[:1, :, None], w[:, :, None], dilation=0),
        lambda F, x, w: F.conv3d(x[:1, :, None], w[:, :, None], padding="same", stride=2),
        lambda F, x, w: F.conv3d(x[:1, :, None], w[:, :, None], padding="same"),
        lambda F, x, w: F.conv3d(x[:, :, None], w[:, :, None], padding="valid"),
    ],
)
def test_errors(torch, call):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((4, 4, 3, 3)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a half-precision call takes oneDNN only on CPUs with float16 in hardware: ask torch
        # for the native path there, which tensorlab models (tests/helpers.torch_conv_path)
        half = "half()" in inspect.getsource(call)
        with torch_conv_path(torch, "float16" if half else "float32"):
            ours, theirs = raises_same(
                lambda: call(F, tl.from_numpy(x), tl.from_numpy(w)),
                lambda: call(torch.nn.functional, torch.from_numpy(x), torch.from_numpy(w)),
            )
    if theirs is not None:
        assert_close(ours, theirs)


# ---------------------------------------------------------------------------- autograd


@pytest.mark.parametrize("spatial", [1, 2, 3])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_conv_transpose_gradients_match_torch(torch, spatial, data):
    case = data.draw(transpose_cases(spatial))
    flags = data.draw(st.tuples(st.booleans(), st.booleans(), st.booleans()))
    rng = np.random.default_rng(case["seed"])
    arrays = [
        rng.standard_normal(case["shape_x"]),
        rng.standard_normal(case["shape_w"]),
        rng.standard_normal(case["bias_len"]) if case["bias"] else None,
    ]
    ours = [None if a is None else tl.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    theirs = [
        None if a is None else torch.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)
    ]
    fn = f"conv_transpose{spatial}d"
    try:
        t = getattr(torch.nn.functional, fn)(*theirs, **case["kw"])
    except RuntimeError:
        assume(False)  # the output would be empty: errors are compared above
    o = getattr(F, fn)(*ours, **case["kw"])
    assert (o.grad_fn is None) == (t.grad_fn is None)
    if t.grad_fn is None:
        return
    assert o.grad_fn.name() == t.grad_fn.name()  # ConvolutionBackward0 (SqueezeBackward1 unbatched)
    g = rng.standard_normal(tuple(t.shape))
    o.backward(tl.tensor(g))
    t.backward(torch.tensor(g))
    for a, b in zip(ours, theirs):
        if a is not None and b.grad is not None:
            np.testing.assert_allclose(a.grad._np(), b.grad.numpy(), rtol=1e-9, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(case=transpose_cases(3), flags=st.tuples(st.booleans(), st.booleans(), st.booleans()))
def test_conv3d_gradients_match_torch(torch, case, flags):
    g_ = case["kw"]["groups"]
    shape_x = (
        case["shape_x"][:-4]
        + (case["shape_w"][1] * g_,)
        + tuple(s + 4 for s in case["shape_x"][-3:])
    )
    kw = {k: v for k, v in case["kw"].items() if k != "output_padding"}
    rng = np.random.default_rng(case["seed"])
    arrays = [
        rng.standard_normal(shape_x),
        rng.standard_normal(case["shape_w"]),
        rng.standard_normal(case["shape_w"][0]) if case["bias"] else None,
    ]
    ours = [None if a is None else tl.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)]
    theirs = [
        None if a is None else torch.tensor(a, requires_grad=f) for a, f in zip(arrays, flags)
    ]
    o, t = F.conv3d(*ours, **kw), torch.nn.functional.conv3d(*theirs, **kw)
    np.testing.assert_allclose(o._np(), t.detach().numpy(), rtol=1e-9, atol=1e-10)
    if t.grad_fn is None:
        assert o.grad_fn is None
        return
    assert o.grad_fn.name() == t.grad_fn.name()
    g = rng.standard_normal(tuple(t.shape))
    o.backward(tl.tensor(g))
    t.backward(torch.tensor(g))
    for a, b in zip(ours, theirs):
        if a is not None and b.grad is not None:
            np.testing.assert_allclose(a.grad._np(), b.grad.numpy(), rtol=1e-9, atol=1e-10)


# ---------------------------------------------------------------------------- layers


@pytest.mark.parametrize(
    "make",
    [
        lambda nn: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2),
        lambda nn: nn.ConvTranspose1d(4, 2, 3, stride=3, output_padding=1, bias=False),
        lambda nn: nn.ConvTranspose3d(2, 2, (1, 2, 3), dilation=2, output_padding=(0, 1, 1)),
        lambda nn: nn.Conv3d(2, 4, 3, padding=1, padding_mode="circular"),
        lambda nn: nn.Conv3d(2, 4, (1, 2, 3), stride=(1, 2, 1), padding="valid", groups=2),
    ],
)
def test_layers_match_torch(torch, make):
    ours, theirs = make(tl.nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    assert (ours.bias is None) == (theirs.bias is None)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight._np().copy()))
        if theirs.bias is not None:
            theirs.bias.copy_(torch.from_numpy(ours.bias._np().copy()))
    spatial = ours.weight.ndim - 2
    x = np.random.default_rng(0).standard_normal((2, ours.in_channels) + (5,) * spatial)
    x = x.astype(np.float32)
    assert_close(ours(tl.from_numpy(x)), theirs(torch.from_numpy(x)))
    # PyTorch's default init: U(-b, b) with b = 1/sqrt(fan_in), fan_in = weight.size(1) * k
    fan_in = ours.weight.shape[1] * int(np.prod(ours.weight.shape[2:]))
    assert np.abs(ours.weight._np()).max() <= 1 / np.sqrt(fan_in)


@pytest.mark.parametrize(
    "output_size", [[9, 9], [10, 10], [9, 10], [1, 6, 10, 9], [8, 9], [11, 9], [9], [2, 1, 6, 9, 9]]
)
@pytest.mark.parametrize("batched", [True, False])
def test_conv_transpose_output_size(torch, output_size, batched):
    ours = tl.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
    theirs = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight._np().copy()))
        theirs.bias.copy_(torch.from_numpy(ours.bias._np().copy()))
    x = np.random.default_rng(0).standard_normal((1, 4, 5, 5) if batched else (4, 5, 5))
    x = x.astype(np.float32)
    o, t = raises_same(
        lambda: ours(tl.from_numpy(x), output_size=output_size),
        lambda: theirs(torch.from_numpy(x), output_size=output_size),
    )
    if t is not None:
        assert_close(o, t)


def test_transposed_layer_refuses_other_padding_modes(torch):
    raises_same(
        lambda: tl.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
        lambda: torch.nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"),
    )


@pytest.mark.parametrize("spatial", [1, 2, 3])
def test_lazy_conv_infers_in_channels(torch, spatial):
    name = f"LazyConv{spatial}d"
    ours, theirs = getattr(tl.nn, name)(6, 3, padding=1), getattr(torch.nn, name)(6, 3, padding=1)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(0).standard_normal((2, 4) + (5,) * spatial).astype(np.float32)
    y = ours(tl.from_numpy(x))
    theirs(torch.from_numpy(x))
    assert type(ours).__name__ == type(theirs).__name__ == f"Conv{spatial}d"
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight._np().copy()))
        theirs.bias.copy_(torch.from_numpy(ours.bias._np().copy()))
    assert_close(y, theirs(torch.from_numpy(x)))
    raises_same(
        lambda: getattr(tl.nn, name)(6, 3, groups=4)(tl.from_numpy(x[:, :3])),
        lambda: getattr(torch.nn, name)(6, 3, groups=4)(torch.from_numpy(x[:, :3])),
    )


@pytest.mark.parametrize("spatial", [1, 2, 3])
@pytest.mark.parametrize("bias", [True, False])
def test_lazy_conv_transpose_infers_in_channels(torch, spatial, bias):
    name = f"LazyConvTranspose{spatial}d"
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, bias=bias)
    ours, theirs = getattr(tl.nn, name)(6, 3, **kw), getattr(torch.nn, name)(6, 3, **kw)
    assert repr(ours) == repr(theirs)
    x = np.random.default_rng(0).standard_normal((2, 4) + (4,) * spatial).astype(np.float32)
    y = ours(tl.from_numpy(x))
    theirs(torch.from_numpy(x))
    assert type(ours).__name__ == type(theirs).__name__ == f"ConvTranspose{spatial}d"
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    assert (ours.bias is None) == (theirs.bias is None)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight._np().copy()))
        if bias:
            theirs.bias.copy_(torch.from_numpy(ours.bias._np().copy()))
    assert_close(y, theirs(torch.from_numpy(x)))


# ---------------------------------------------------------------------------- kernel strategies


@st.composite
def scatter_cases(draw, spatial=2):
    """Transposed convolutions for the numeric kernels: wide enough for several Toeplitz blocks,
    one or more input channels per group (the direct/Toeplitz paths need one)."""
    groups = draw(st.integers(1, 3))
    cg_in = draw(st.sampled_from([1, 1, 2]))
    mult = draw(st.integers(1, 3))
    ks = [draw(st.integers(1, 5)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 4)) for _ in range(spatial)]
    dil = [draw(st.sampled_from([1, 1, 2])) for _ in range(spatial)]
    pad = [draw(st.integers(0, 2)) for _ in range(spatial)]
    out_pad = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dil)]
    sizes = [draw(st.integers(1, 4))] * (spatial - 1) + [draw(st.integers(1, 40))]
    return dict(
        x=(draw(st.integers(1, 3)), groups * cg_in, *sizes),
        w=(groups * cg_in, mult, *ks),
        groups=groups,
        stride=stride,
        padding=pad,
        output_padding=out_pad,
        dilation=dil,
        seed=draw(st.integers(0, 2**16)),
    )


def _kernel_vs_torch(torch, case, strategy):
    from conv_layouts import transposed_reference

    from tensorlab.nn import _conv_kernels as K

    x, w, out, ref = transposed_reference(torch, case)
    args = (out, case["stride"], case["padding"], case["dilation"], case["groups"])
    ours = K.conv_input_grad_nd(x, w, *args, strategy=strategy)
    np.testing.assert_allclose(ours, ref, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("strategy", ["gemm", "direct", "toeplitz", "conv"])
@settings(max_examples=40, deadline=None)
@given(case=scatter_cases())
def test_every_transposed_kernel_strategy_matches_torch(torch, strategy, case):
    """Each transposed-convolution kernel forced (direct/Toeplitz fall back to gemm when a group
    reads several channels; Toeplitz to direct with dilation; conv to gemm with both dilation and
    stride), in float64, against torch."""
    _kernel_vs_torch(torch, case, strategy)


@pytest.mark.parametrize("spatial", [1, 3])
@pytest.mark.parametrize("strategy", ["gemm", "direct", "conv"])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_transposed_kernel_strategies_1d_3d(torch, spatial, strategy, data):
    _kernel_vs_torch(torch, data.draw(scatter_cases(spatial)), strategy)


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((8, 64, 28, 28), (64, 64, 3, 3), dict(stride=2, padding=1, output_padding=1)),
        ((4, 16, 16, 16), (16, 8, 4, 4), dict(stride=2, padding=1)),
        ((16, 32, 28, 28), (32, 1, 4, 4), dict(stride=2, padding=1, groups=32)),
        ((1, 1, 128, 128), (1, 1, 3, 3), dict(stride=2, padding=1, output_padding=1)),
        ((1, 21, 10, 15), (21, 21, 64, 64), dict(stride=32, padding=16)),
        ((2, 6, 9, 37), (6, 2, 5, 3), dict(stride=(3, 2), padding=(2, 1), groups=6)),
    ],
)
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
def test_transposed_benchmark_suite_values(torch, xs, ws, kw, layout):
    """The benchmark's transposed cases (and d2l's FCN upsampler), float32, both memory formats."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32)
    xt = strided(x, layout)
    assert_close(
        F.conv_transpose2d(xt, tl.from_numpy(w), **kw),
        torch.nn.functional.conv_transpose2d(to_torch(torch, xt), torch.from_numpy(w), **kw),
    )


@pytest.mark.parametrize(
    "fn, xs, ws, kw",
    [
        ("conv2d", (2, 8, 20, 21), (8, 8, 3, 3), dict(padding=1)),
        ("conv2d", (3, 3, 18, 17), (5, 3, 5, 5), dict(padding=2)),
        ("conv2d", (2, 6, 19, 40), (12, 1, 3, 3), dict(groups=6, padding=1)),
        ("conv2d", (2, 8, 17, 16), (8, 2, 3, 3), dict(groups=4, stride=2, padding=1)),
        ("conv2d", (1, 4, 24, 23), (4, 4, 3, 3), dict(dilation=2, padding="same")),
        ("conv_transpose2d", (2, 8, 9, 10), (8, 4, 3, 3), dict(stride=2, padding=1, output_padding=1)),
        ("conv_transpose2d", (2, 6, 8, 35), (6, 2, 4, 4), dict(stride=2, padding=1, groups=6)),
        ("conv_transpose2d", (1, 4, 7, 6), (4, 4, 3, 3), dict(stride=3, dilation=2, output_padding=1)),
        ("conv_transpose2d", (2, 4, 7, 9), (4, 3, 5, 3), dict(stride=1, dilation=(2, 1), padding=2)),
    ],
)  # fmt: skip
@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
def test_conv_gradients_at_benchmark_shapes(torch, fn, xs, ws, kw, layout):
    """Input and weight gradients through every backward kernel (wide images: several Toeplitz
    blocks; depthwise, grouped, strided, dilated), float64, against torch."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    xt = strided(x, layout).requires_grad_()
    wt = tl.tensor(w, requires_grad=True)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = getattr(F, fn)(xt, wt, **kw)
    ref = getattr(torch.nn.functional, fn)(tx, tw, **kw)
    g = rng.standard_normal(tuple(ref.shape))
    out.backward(tl.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(xt.grad._np(), tx.grad.numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(wt.grad._np(), tw.grad.numpy(), rtol=1e-10, atol=1e-10)
