"""as_strided / as_strided_ against the PyTorch oracle: layouts over the same storage (sharing
memory), torch's storage-bounds errors, and AsStridedBackward0 including overlapping windows and
expanded (self-overlapping) inputs."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st
from strided_chains import apply, make_bases, view_chains

import tensorlab as tl


def shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@st.composite
def strided_args(draw, max_dims=3):
    ndim = draw(st.integers(0, max_dims))
    size = tuple(draw(st.integers(0, 4)) for _ in range(ndim))
    stride = tuple(draw(st.integers(0, 5)) for _ in range(ndim))
    offset = draw(st.none() | st.integers(0, 8))
    return size, stride, offset


@settings(max_examples=60)
@given(chain=view_chains(), args=strided_args())
def test_as_strided_matches_torch(torch, chain, args):
    shape, ops = chain
    size, stride, offset = args
    ours, theirs = make_bases(torch, shape)
    x, tx = apply(ours, ops), apply(theirs, ops)
    r, tr = raises_same(
        lambda: x.as_strided(size, stride, offset), lambda: tx.as_strided(size, stride, offset)
    )
    if r is None:
        return
    assert_same(r, tr)
    assert shares(r, ours)
    assert r._base is ours and tr._base is theirs
    # the module function is the same op
    assert_same(tl.as_strided(x, size, stride, offset), torch.as_strided(tx, size, stride, offset))


@settings(max_examples=60)
@given(chain=view_chains(), args=strided_args(), data=st.data())
def test_as_strided_backward_matches_torch(torch, chain, args, data):
    """Overlapping windows add up; an expanded input's cells are split among their copies."""
    shape, ops = chain
    size, stride, offset = args
    ours, theirs = make_bases(torch, shape, requires_grad=True)
    x, tx = apply(ours, ops), apply(theirs, ops)
    try:
        tr = tx.as_strided(size, stride, offset)
    except RuntimeError:
        return
    r = x.as_strided(size, stride, offset)
    assert r.grad_fn.name() == tr.grad_fn.name() == "AsStridedBackward0"
    g = np.asarray(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(size))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    assert_same(ours.grad, theirs.grad, layout=False, exact=False, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    "args",
    [
        ((3, 3), (1, 1)),
        ((3, 3), (4, 4)),
        ((3, 3), (1,)),
        ((3, -3), (1, 1)),
        ((3, 3), (-1, 1)),
        ((3, 3), (1, 1), -1),
        ((3, 3), (1, 1), 20),
        ((0, 3), (1, 1), 20),
        ((), (), 11),
        ((), (), 12),
        (2, 1),
        ((2.0,), (1,)),
        ((2,), 1),
        ((2,), (1.5,)),
    ],
)
def test_as_strided_errors_match_torch(torch, args):
    x = tl.arange(12.0)
    tx = torch.arange(12.0)
    r, tr = raises_same(lambda: x.as_strided(*args), lambda: tx.as_strided(*args))
    if r is not None:
        assert_same(r, tr)


@pytest.mark.parametrize("dtype", ["float64", "int32", "uint8"])
def test_bounds_error_counts_bytes_of_the_dtype(torch, dtype):
    x, tx = make_bases(torch, (2, 3), dtype)
    raises_same(lambda: x.as_strided((3, 3), (2, 1)), lambda: tx.as_strided((3, 3), (2, 1)))


def test_as_strided_reads_the_whole_storage_not_just_the_view(torch):
    x = tl.arange(10.0)
    tx = torch.arange(10.0)
    v, tv = x[6:], tx[6:]
    # offset 0 reaches back before the view's first element, as in torch
    assert_same(v.as_strided((3,), (1,), 0), tv.as_strided((3,), (1,), 0))
    assert_same(v.as_strided((2, 2), (1, 1)), tv.as_strided((2, 2), (1, 1)))


def test_writes_through_overlapping_windows_reach_the_base(torch):
    x = tl.zeros(5)
    w = x.as_strided((3, 3), (1, 1))
    w[1, 1] = 7.0
    assert x.tolist() == [0.0, 0.0, 7.0, 0.0, 0.0]
    assert w[0, 2].item() == w[2, 0].item() == 7.0


def test_as_strided_in_place_matches_torch(torch):
    x = tl.arange(12.0)
    tx = torch.arange(12.0)
    r, tr = x.as_strided_((2, 2), (1, 3), 1), tx.as_strided_((2, 2), (1, 3), 1)
    assert r is x and tr is tx
    assert_same(x, tx)
    raises_same(lambda: x.as_strided_((99,), (1,)), lambda: tx.as_strided_((99,), (1,)))


def test_as_strided_in_place_backward(torch):
    a, ta = tl.arange(6.0, requires_grad=True), torch.arange(6.0, requires_grad=True)
    b, tb = a * 1, ta * 1
    b.as_strided_((2, 2), (1, 1), 1)
    tb.as_strided_((2, 2), (1, 1), 1)
    assert b.grad_fn.name() == tb.grad_fn.name() == "AsStridedBackward1"
    g = [[1.0, 2.0], [3.0, 4.0]]
    b.backward(tl.tensor(g))
    tb.backward(torch.tensor(g))
    assert_same(a.grad, ta.grad, layout=False)
    # a leaf that requires grad refuses, as any in-place op
    raises_same(lambda: a.as_strided_((2,), (1,)), lambda: ta.as_strided_((2,), (1,)))


def test_to_torch_roundtrip_keeps_layout(torch):
    x = tl.arange(12.0).as_strided((3, 2), (2, 3), 1)
    assert_same(x, to_torch(torch, x))


@settings(max_examples=60)
@given(
    args=strided_args(),
    dtype=st.sampled_from(["float64", "float32", "int64"]),
    op=st.sampled_from(
        [
            "add_(1)",
            "mul_(2)",
            "sub_(o)",
            "mul_(o)",
            "__iadd__(o)",
            "neg_()",
            "abs_()",
            "clamp_(-1, 3)",
            "exp_()",
            "pow_(2)",
            "add_(o, alpha=2)",
        ]
    ),
    seed=st.integers(0, 99),
)
def test_in_place_through_overlapping_windows_matches_torch(torch, args, dtype, op, seed):
    """An element read by k windows is updated k times (PyTorch's loop), not once."""
    size, stride, offset = args
    rng = np.random.default_rng(seed)
    arr = rng.integers(-3, 4, size=20).astype(dtype)
    other = rng.integers(-2, 3, size=size).astype(dtype)
    x, tx = tl.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    o, to = tl.from_numpy(other.copy()), torch.from_numpy(other.copy())
    try:
        tw = tx.as_strided(size, stride, offset)
    except RuntimeError:
        return
    w = x.as_strided(size, stride, offset)
    r, tr = raises_same(
        lambda: eval(f"w.{op}", {"w": w, "o": o}), lambda: eval(f"w.{op}", {"w": tw, "o": to})
    )
    assert_same(x, tx)  # the whole storage, after every window's update
    assert_same(w, tw)


def test_neg_through_overlapping_windows_negates_twice(torch):
    x, tx = tl.arange(4.0), torch.arange(4.0)
    x.as_strided((2, 2), (1, 1)).neg_()
    tx.as_strided((2, 2), (1, 1)).neg_()
    assert x.tolist() == tx.tolist() == [-0.0, 1.0, -2.0, 3.0]


def test_unfold_add_counts_the_windows(torch):
    x, tx = tl.zeros(5), torch.zeros(5)
    x.unfold(0, 3, 1).add_(1)
    tx.unfold(0, 3, 1).add_(1)
    assert x.tolist() == tx.tolist() == [1.0, 2.0, 3.0, 2.0, 1.0]
