"""channels_last / channels_last_3d against torch 2.13: is_contiguous, contiguous, clone, to,
empty/empty_like/zeros_like/ones_like, and the layout results of elementwise ops, conv, conv3d,
conv_transpose and pad get from channels-last (or transposed, sliced) inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conv_layouts import strided
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]
LAYOUTS = ["contiguous", "channels_last", "transposed", "sliced", "expanded", "cl_sliced"]


def make(arr: np.ndarray, how: str) -> tl.Tensor:
    if how == "cl_sliced":  # a channels-last tensor, then every other column
        big = np.concatenate([arr, arr], axis=-1) if arr.ndim else arr
        return strided(big, "channels_last")[..., ::2] if arr.ndim else tl.from_numpy(arr)
    return strided(arr.copy(), how)


@st.composite
def tensors(draw, ranks=(3, 4, 5)):
    nd = draw(st.sampled_from(ranks))
    shape = tuple(
        draw(st.sampled_from([0, 1, 1, 2, 3])) if draw(st.booleans()) else draw(st.integers(1, 4))
        for _ in range(nd)
    )
    arr = np.random.default_rng(draw(st.integers(0, 99))).standard_normal(shape)
    return make(arr.astype(np.float32), draw(st.sampled_from(LAYOUTS)))


def _fmt(lib, name):
    return getattr(lib, name)


@settings(max_examples=60, deadline=None)
@given(tensors(), st.sampled_from(FORMATS))
def test_is_contiguous_contiguous_clone_to(torch, t, fmt):
    tt = to_torch(torch, t)
    ours_f, theirs_f = _fmt(tl, fmt), _fmt(torch, fmt)
    assert t.is_contiguous(memory_format=ours_f) == tt.is_contiguous(memory_format=theirs_f)
    for call in (
        lambda x, f: x.contiguous(memory_format=f),
        lambda x, f: x.clone(memory_format=f),
        lambda x, f: x.to(memory_format=f),
        lambda x, f: x.to(dtype=x.dtype if x.dtype.is_floating_point else None, memory_format=f),
        lambda x, f: x.double().to(memory_format=f),
    ):
        o, r = raises_same(lambda c=call: c(t, ours_f), lambda c=call: c(tt, theirs_f))
        if r is not None:
            assert_same(o, r)
            assert (o is t) == (r is tt)  # returns self exactly when torch does


@settings(max_examples=60, deadline=None)
@given(
    tensors(), st.sampled_from(FORMATS), st.sampled_from(["empty_like", "zeros_like", "ones_like"])
)
def test_like_functions_keep_or_set_the_layout(torch, t, fmt, fn):
    tt = to_torch(torch, t)
    o, r = raises_same(
        lambda: getattr(tl, fn)(t, memory_format=_fmt(tl, fmt)),
        lambda: getattr(torch, fn)(tt, memory_format=_fmt(torch, fmt)),
    )
    if r is not None:
        assert o.stride() == r.stride()
        if fn != "empty_like":
            assert_same(o, r)
    o2, r2 = getattr(tl, fn)(t), getattr(torch, fn)(tt)
    assert o2.stride() == r2.stride()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=6), st.sampled_from(FORMATS))
def test_empty_with_memory_format(torch, shape, fmt):
    o, r = raises_same(
        lambda: tl.empty(*shape, memory_format=_fmt(tl, fmt)),
        lambda: torch.empty(*shape, memory_format=_fmt(torch, fmt)),
    )
    if r is not None:
        assert o.stride() == r.stride() and tuple(o.shape) == tuple(r.shape)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, lib: x.is_contiguous(lib.channels_last),
        lambda x, lib: x.contiguous(lib.channels_last),
        lambda x, lib: x.is_contiguous(memory_format=3),
        lambda x, lib: x.contiguous(memory_format="channels_last"),
        lambda x, lib: x[0].contiguous(memory_format=lib.channels_last),
        lambda x, lib: x.contiguous(memory_format=lib.channels_last_3d),
        lambda x, lib: x.transpose(2, 3).contiguous(memory_format=lib.preserve_format),
        lambda x, lib: lib.empty(2, 3, memory_format=lib.preserve_format),
    ],
)
def test_memory_format_errors(torch, call):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    raises_same(lambda: call(tl.from_numpy(x), tl), lambda: call(torch.from_numpy(x), torch))


@settings(max_examples=60, deadline=None)
@given(
    tensors(ranks=(4, 5)),
    st.sampled_from(LAYOUTS),
    st.sampled_from(["add", "mul", "exp", "neg"]),
    st.booleans(),
)
def test_elementwise_results_follow_the_inputs_layout(torch, a, b_layout, op, broadcast):
    """Same-shape or broadcast operands (one a channels-last, transposed, sliced... layout)."""
    shape = tuple(a.shape)
    if broadcast:
        shape = (1,) + shape[1:2] + (1,) * (len(shape) - 2)
    b = make(np.random.default_rng(1).standard_normal(shape).astype(np.float32), b_layout)
    ta, tb = to_torch(torch, a), to_torch(torch, b)
    if op in ("exp", "neg"):
        o, r = getattr(a, op)(), getattr(ta, op)()
    else:
        o, r = raises_same(lambda: getattr(a, op)(b), lambda: getattr(ta, op)(tb))
        if r is None:
            return
    assert_same(o, r, exact=False, rtol=1e-6, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(LAYOUTS[:4] + ["cl_sliced"]),
    st.sampled_from(["contiguous", "channels_last"]),
    st.sampled_from(["float32", "float64"]),
    st.integers(1, 3),
    st.sampled_from(["conv2d", "conv_transpose2d", "conv3d", "conv_transpose3d"]),
    st.integers(0, 99),
)
def test_convolutions_give_torchs_layout(torch, xl, wl, dtype, n, fn, seed):
    rng = np.random.default_rng(seed)
    spatial = int(fn[-2])
    x = make(rng.standard_normal((n, 4) + (5,) * spatial).astype(dtype), xl)
    w = make(rng.standard_normal((4, 4) + (3,) * spatial).astype(dtype), wl)
    o = getattr(F, fn)(x, w, padding=1)
    r = getattr(torch.nn.functional, fn)(to_torch(torch, x), to_torch(torch, w), padding=1)
    assert_same(o, r, exact=False, rtol=1e-4, atol=1e-4)


@settings(max_examples=60, deadline=None)
@given(
    tensors(ranks=(4, 5)),
    st.sampled_from(["constant", "reflect", "replicate", "circular"]),
    st.lists(st.integers(0, 1), min_size=2, max_size=6).filter(lambda v: len(v) % 2 == 0),
)
def test_pad_gives_torchs_layout(torch, t, mode, pads):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o, r = raises_same(
            lambda: F.pad(t, pads, mode=mode),
            lambda: torch.nn.functional.pad(to_torch(torch, t), pads, mode=mode),
        )
    if r is not None:
        assert_same(o, r)


@pytest.mark.parametrize("fmt", ["channels_last", "contiguous_format"])
def test_module_to_memory_format_and_gradient_layouts(torch, fmt):
    """model.to(memory_format=channels_last): 4-d weights go NHWC, outputs and grads follow."""
    ours, theirs = tl.nn.Conv2d(3, 4, 3, padding=1), torch.nn.Conv2d(3, 4, 3, padding=1)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.weight._np().copy()))
        theirs.bias.copy_(torch.from_numpy(ours.bias._np().copy()))
    assert ours.to(memory_format=_fmt(tl, fmt)) is ours
    theirs.to(memory_format=_fmt(torch, fmt))
    assert ours.weight.stride() == theirs.weight.stride()
    assert ours.bias.stride() == theirs.bias.stride()
    x = np.random.default_rng(0).standard_normal((2, 3, 6, 7)).astype(np.float32)
    xo = tl.tensor(x).to(memory_format=_fmt(tl, fmt)).requires_grad_()
    xt = torch.tensor(x).to(memory_format=_fmt(torch, fmt)).requires_grad_()
    yo, yt = ours(xo), theirs(xt)
    assert_same(yo, yt, exact=False, rtol=1e-4, atol=1e-4)
    yo.sum().backward()
    yt.sum().backward()
    assert xo.grad.stride() == xt.grad.stride()
    assert ours.weight.grad.stride() == theirs.weight.grad.stride()
    np.testing.assert_allclose(
        ours.weight.grad._np(), theirs.weight.grad.numpy(), rtol=1e-4, atol=1e-3
    )
