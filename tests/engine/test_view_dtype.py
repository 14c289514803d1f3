"""``Tensor.view(dtype)``: the same bytes read as another dtype, as ATen's ``view_dtype``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@st.composite
def strided(draw):
    """A base shape, a dtype and an index that makes a (possibly non-contiguous) view of it."""
    ndim = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(1, 6)) for _ in range(ndim))
    index = tuple(
        slice(draw(st.integers(0, max(n - 1, 0))), None, draw(st.integers(1, 2))) for n in shape
    )
    transpose = ndim >= 2 and draw(st.booleans())
    return shape, draw(st.sampled_from(DTYPES)), index, transpose, draw(st.sampled_from(DTYPES))


@pytest.mark.oracle
@settings(max_examples=150)
@given(case=strided())
def test_view_dtype_matches_torch(torch, case):
    shape, src, index, transpose, dst = case
    rng = np.random.default_rng(0)
    arr = (rng.integers(0, 2, shape) if src == "bool" else rng.integers(0, 100, shape)).astype(src)

    def make(lib):
        t = lib.from_numpy(arr.copy())[index]
        return t.t() if transpose else t

    ours, theirs = raises_same(
        lambda: make(tl).view(getattr(tl, dst)), lambda: make(torch).view(getattr(torch, dst))
    )
    if theirs is None:
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride() and ours.storage_offset() == theirs.storage_offset()
    if dst.startswith("float"):  # NaN bit patterns compare by bytes
        assert ours.numpy().tobytes() == theirs.numpy().tobytes()
    else:
        assert ours.tolist() == theirs.tolist()


@pytest.mark.oracle
def test_view_dtype_shares_memory_and_is_no_autograd_view(torch):
    for lib in (tl, torch):
        x = lib.ones(4, requires_grad=True)
        y = x.view(lib.int32)
        assert not y.requires_grad and y.grad_fn is None
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        z = lib.zeros(2)
        z.view(lib.int32)[0] = 1065353216  # the bits of 1.0
        assert z.tolist() == [1.0, 0.0]
