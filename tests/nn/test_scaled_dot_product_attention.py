"""F.scaled_dot_product_attention against the PyTorch oracle: shapes (batched, unbatched, heads,
L != S, Ev != E), scales, bool and float masks, is_causal, fully masked rows (zeros, not NaN),
grouped-query heads, dropout from the seeded generator, gradients, and torch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F


def _pair(torch, shape, seed, dtype="float32", requires_grad=False):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    ours = tl.tensor(arr, requires_grad=requires_grad)
    theirs = torch.tensor(arr, requires_grad=requires_grad)
    return ours, theirs


def _close(ours, theirs, rtol=1e-5, atol=1e-6):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


@st.composite
def attention_shapes(draw):
    batch = tuple(draw(st.lists(st.integers(1, 3), min_size=0, max_size=2)))
    L, S = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    E, Ev = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return (*batch, L, E), (*batch, S, E), (*batch, S, Ev)


@settings(max_examples=40, deadline=None)
@given(
    shapes=attention_shapes(),
    seed=st.integers(0, 1000),
    causal=st.booleans(),
    scale=st.none() | st.sampled_from([0.1, 1.0, 2.5, -0.5]),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_values_and_gradients_match_torch(torch, shapes, seed, causal, scale, dtype):
    (q, tq), (k, tk), (v, tv) = (
        _pair(torch, s, seed + i, dtype, requires_grad=True) for i, s in enumerate(shapes)
    )
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    tout = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, is_causal=causal, scale=scale
    )
    _close(out, tout)
    assert np.isnan(out.detach().numpy()).sum() == 0
    g = np.random.default_rng(seed + 9).standard_normal(tuple(out.shape)).astype(dtype)
    out.backward(tl.tensor(g))
    tout.backward(torch.tensor(g))
    for ours, theirs in ((q, tq), (k, tk), (v, tv)):
        _close(ours.grad, theirs.grad, rtol=1e-4, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 1000), kind=st.sampled_from(["bool", "float"]))
def test_masks_match_torch(torch, seed, kind):
    (q, tq), (k, tk), (v, tv) = (_pair(torch, (2, 2, 4, 3), seed + i) for i in range(3))
    keep = np.random.default_rng(seed).random((4, 4)) > 0.4
    keep[seed % 4] = False  # one query row sees nothing: zeros, as torch's safe softmax gives
    if kind == "bool":
        mask, tmask = tl.tensor(keep), torch.tensor(keep)
    else:
        add = np.where(keep, np.random.default_rng(seed).standard_normal((4, 4)), -np.inf)
        mask, tmask = tl.tensor(add.astype("float32")), torch.tensor(add.astype("float32"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    tout = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask)
    _close(out, tout)
    assert np.all(out.numpy()[:, :, seed % 4] == 0)


def test_the_default_scale_is_one_over_sqrt_of_the_embedding_size(torch):
    q = tl.ones(1, 2, 4)
    k = tl.tensor([[[1.0, 0, 0, 0], [0, 0, 0, 0]]])
    v = tl.tensor([[[1.0], [0.0]]])
    weight = 1 / (1 + math.exp(-1 / 2))  # softmax([1/sqrt(4), 0])[0]
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v).numpy(), weight, rtol=1e-6)


def test_grouped_query_heads_match_torch(torch):
    (q, tq), (k, tk), (v, tv) = (
        _pair(torch, s, i) for i, s in enumerate([(2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 7)])
    )
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    tout = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True)
    _close(out, tout)


def test_dropout_draws_what_torch_draws(torch):
    (q, tq), (k, tk), (v, tv) = (_pair(torch, (2, 5, 4), i) for i in range(3))
    tl.manual_seed(7)
    torch.manual_seed(7)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    tout = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, dropout_p=0.4)
    _close(out, tout)


def test_the_autograd_graph_ends_as_torchs_does(torch):
    (q, tq), (k, tk), (v, tv) = (
        _pair(torch, s, i, requires_grad=True)
        for i, s in enumerate([(2, 3, 4), (2, 5, 4), (2, 5, 6)])
    )
    out = F.scaled_dot_product_attention(q, k, v)
    tout = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv)
    assert out.requires_grad and tout.requires_grad
    assert (out.grad_fn is None) == (tout.grad_fn is None)


@pytest.mark.parametrize(
    "case",
    [
        "causal_and_mask",
        "dtypes",
        "one_dim",
        "inner_sizes",
        "mask_dtype",
        "dropout_p",
        "not_tensor",
    ],
)
def test_errors_match_torch(torch, case):
    def call(lib, F_):
        q, k, v = lib.ones(2, 3, 4), lib.ones(2, 5, 4), lib.ones(2, 5, 6)
        if case == "causal_and_mask":
            return F_.scaled_dot_product_attention(
                q, k, v, attn_mask=lib.ones(3, 5), is_causal=True
            )
        if case == "dtypes":
            return F_.scaled_dot_product_attention(q, k, v.double())
        if case == "one_dim":
            return F_.scaled_dot_product_attention(q[0, 0], k[0, 0], v[0, 0])
        if case == "inner_sizes":
            return F_.scaled_dot_product_attention(q, k[..., :3], v)
        if case == "mask_dtype":
            return F_.scaled_dot_product_attention(
                q, k, v, attn_mask=lib.ones(3, 5, dtype=lib.int64)
            )
        if case == "dropout_p":
            return F_.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
        return F_.scaled_dot_product_attention([1.0], k, v)

    ours = theirs = None
    try:
        call(tl, F)
    except Exception as e:  # noqa: BLE001
        ours = e
    try:
        call(torch, torch.nn.functional)
    except Exception as e:  # noqa: BLE001
        theirs = e
    assert (ours is None) == (theirs is None), (ours, theirs)
    if ours is not None:
        assert type(ours).__name__ == type(theirs).__name__, (ours, theirs)
        if case in (
            "causal_and_mask",
            "dtypes",
            "one_dim",
            "mask_dtype",
            "dropout_p",
            "not_tensor",
        ):
            raises_same(lambda: call(tl, F), lambda: call(torch, torch.nn.functional))


@pytest.mark.parametrize("kind", ["plain", "causal", "bool_mask", "float_mask"])
def test_meta_tensors_give_the_shape_torch_gives(torch, kind):
    def call(lib, F_):
        q = lib.ones(2, 2, 3, 4, device="meta")
        k, v = lib.ones(2, 2, 5, 4, device="meta"), lib.ones(2, 2, 5, 6, device="meta")
        mask = {
            "bool_mask": lib.ones(3, 5, dtype=lib.bool, device="meta"),
            "float_mask": lib.ones(3, 5, device="meta"),
        }.get(kind)
        return F_.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=kind == "causal")

    ours, theirs = call(tl, F), call(torch, torch.nn.functional)
    assert ours.device.type == theirs.device.type == "meta"
    assert (
        tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype)[-7:] == str(theirs.dtype)[-7:]
    )
