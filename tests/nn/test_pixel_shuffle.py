"""F.pixel_shuffle / F.pixel_unshuffle / nn.PixelShuffle / nn.PixelUnshuffle / torch.pixel_shuffle
against torch 2.13: values, result layout (a new tensor, never a view), errors, autograd."""

from __future__ import annotations

import numpy as np
import pytest
from conv_layouts import LAYOUTS, strided
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F

DTYPES = ["float32", "float64", "float16", "int64", "bool"]


def _array(shape, dtype, seed):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a > 0) if dtype == "bool" else a.astype(dtype)


@st.composite
def cases(draw, valid=True):
    r = draw(st.integers(1, 3) if valid else st.integers(-1, 3))
    batch = draw(st.lists(st.integers(0 if not valid else 1, 2), min_size=0, max_size=2))
    if valid:
        c, h, w = draw(st.integers(1, 2)) * r * r, draw(st.integers(1, 3)), draw(st.integers(1, 3))
    else:
        c, h, w = draw(st.integers(0, 9)), draw(st.integers(0, 5)), draw(st.integers(0, 5))
    rank = draw(st.integers(1, 3)) if not valid and draw(st.booleans()) else 3
    shape = tuple(batch) + (c, h, w)[3 - rank :]
    return dict(
        shape=shape,
        r=r,
        layout=draw(st.sampled_from(LAYOUTS)),
        dtype=draw(st.sampled_from(DTYPES)),
        seed=draw(st.integers(0, 2**16)),
    )


def _same_new_tensor(ours, theirs):
    assert_same(ours, theirs)  # dtype, shape, values, strides, offset, is_contiguous
    assert ours._base is None and theirs._base is None


@settings(max_examples=80, deadline=None)
@given(cases(valid=False))
def test_pixel_shuffle_matches_torch(torch, case):
    x = strided(_array(case["shape"], case["dtype"], case["seed"]), case["layout"])
    r = case["r"]
    ours, theirs = raises_same(
        lambda: F.pixel_shuffle(x, r),
        lambda: torch.nn.functional.pixel_shuffle(to_torch(torch, x), r),
    )
    if theirs is not None:
        _same_new_tensor(ours, theirs)


@settings(max_examples=80, deadline=None)
@given(cases(valid=False))
def test_pixel_unshuffle_matches_torch(torch, case):
    x = strided(_array(case["shape"], case["dtype"], case["seed"]), case["layout"])
    r = case["r"]
    ours, theirs = raises_same(
        lambda: F.pixel_unshuffle(x, r),
        lambda: torch.nn.functional.pixel_unshuffle(to_torch(torch, x), r),
    )
    if theirs is not None:
        _same_new_tensor(ours, theirs)


@settings(max_examples=40, deadline=None)
@given(cases(valid=True))
def test_unshuffle_undoes_shuffle_and_layers_match(torch, case):
    x = strided(_array(case["shape"], case["dtype"], case["seed"]), case["layout"])
    r = case["r"]
    up = tl.nn.PixelShuffle(r)(x)
    assert_same(up, torch.nn.PixelShuffle(r)(to_torch(torch, x)))
    assert tl.equal(tl.nn.PixelUnshuffle(r)(up), x.contiguous())
    assert tl.equal(tl.pixel_shuffle(x, r), up)
    assert tl.equal(tl.pixel_unshuffle(up, r), F.pixel_unshuffle(up, r))


def test_the_index_rule():
    """out[c, h*r + i, w*r + j] = in[c*r*r + i*r + j, h, w], element by element."""
    r, c, h, w = 3, 2, 2, 4
    x = tl.arange(c * r * r * h * w).view(c * r * r, h, w)
    out = F.pixel_shuffle(x, r)
    for cc in range(c):
        for y in range(h * r):
            for z in range(w * r):
                src = x[cc * r * r + (y % r) * r + (z % r), y // r, z // r]
                assert out[cc, y, z].item() == src.item()


@settings(max_examples=30, deadline=None)
@given(cases(valid=True), st.booleans())
def test_gradients_match_torch(torch, case, unshuffle):
    r = case["r"]
    shape = case["shape"]
    if unshuffle:
        shape = shape[:-3] + (shape[-3] // (r * r), shape[-2] * r, shape[-1] * r)
    a = _array(shape, "float64", case["seed"])
    fn_ours = F.pixel_unshuffle if unshuffle else F.pixel_shuffle
    fn_theirs = (
        torch.nn.functional.pixel_unshuffle if unshuffle else torch.nn.functional.pixel_shuffle
    )
    x = tl.tensor(a, requires_grad=True)
    xt = torch.tensor(a, requires_grad=True)
    out, out_t = fn_ours(x, r), fn_theirs(xt, r)
    g = np.random.default_rng(case["seed"] + 1).standard_normal(tuple(out_t.shape))
    assert out.grad_fn.name() == out_t.grad_fn.name()
    out.backward(tl.tensor(g))
    out_t.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), xt.grad.numpy())


def test_gradcheck():
    x = tl.randn(2, 8, 3, 2, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: F.pixel_shuffle(t, 2), (x,))
    assert tl.autograd.gradcheck(lambda t: F.pixel_unshuffle(t, 1), (x,))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.pixel_shuffle(),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2)),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), 2, 3),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), 2, foo=1),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), upscale=2),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), 2, upscale_factor=2),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), 2.0),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), True),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), m.tensor(2.0)),
        lambda m: m.pixel_shuffle(m.zeros(1, 4, 2, 2), None),
        lambda m: m.pixel_shuffle([1.0], 2),
        lambda m: m.pixel_unshuffle(m.zeros(1, 4, 2, 2), "2"),
        lambda m: m.nn.functional.pixel_unshuffle(input=m.zeros(1, 1, 4, 4), downscale_factor=2),
        lambda m: m.nn.functional.pixel_shuffle(m.zeros(1, 4, 2, 2), upscale_factor=m.tensor(2)),
    ],
)
def test_argument_errors_match_torch(torch, call):
    ours, theirs = raises_same(lambda: call(tl), lambda: call(torch))
    if theirs is not None:
        assert_same(ours, theirs)


def test_module_reprs_match_torch(torch):
    assert repr(tl.nn.PixelShuffle(3)) == repr(torch.nn.PixelShuffle(3))
    assert repr(tl.nn.PixelUnshuffle(2)) == repr(torch.nn.PixelUnshuffle(2))
    assert tl.nn.PixelShuffle(3).upscale_factor == 3


@pytest.mark.parametrize("fn", ["pixel_shuffle", "pixel_unshuffle"])
def test_channels_last_input_gives_a_channels_last_result_as_torch(torch, fn):
    a = _array((2, 8, 4, 6), "float32", 0)
    x = strided(a, "channels_last")
    assert not x.is_contiguous()
    ours = getattr(F, fn)(x, 2)
    theirs = getattr(torch.nn.functional, fn)(to_torch(torch, x), 2)
    _same_new_tensor(ours, theirs)
    assert ours.is_contiguous(memory_format=tl.channels_last)
