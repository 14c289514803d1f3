"""explain_view agrees with what torch's view actually does, and its reason names real dims."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab import _layout as L


@st.composite
def layout_and_shape(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    order = draw(st.permutations(range(len(shape))))
    n = int(np.prod(shape))
    # a new shape with the same number of elements
    factors = [f for p in (2, 3) for f in [p] * 4 if n % p == 0]
    new = [1] * draw(st.integers(1, 4))
    m = n
    for f in factors:
        if m % f == 0:
            new[draw(st.integers(0, len(new) - 1))] *= f
            m //= f
    new[0] *= m
    return shape, tuple(order), tuple(new)


@settings(max_examples=300)
@given(case=layout_and_shape())
def test_explain_view_matches_torch(torch, case):
    shape, order, new = case
    ours = tl.arange(int(np.prod(shape))).view(shape).permute(*order)
    theirs = torch.arange(int(np.prod(shape))).view(shape).permute(*order)
    ex = tl.explain_view(ours, *new)
    try:
        expected = theirs.view(*new)
    except RuntimeError:
        expected = None
    assert ex.ok == (expected is not None), str(ex)
    if expected is not None:
        assert ex.new_stride == expected.stride()
        assert "works" in str(ex)
    else:
        assert "fails" in str(ex) and "reshape" in str(ex)
        d, e = ex.blocking
        # the named pair really cannot be merged into one stride
        assert ours.stride(d) != ours.shape[e] * ours.stride(e)
        assert ex.split_dim is not None and new[ex.split_dim] > 1
        assert f"dims {d} and {e}" in str(ex)


def test_explain_view_plain_words():
    y = tl.arange(10).view(2, 5).T
    ex = tl.explain_view(y, -1)
    assert not ex.ok
    assert ex.blocking == (0, 1) and ex.split_dim == 0
    text = str(ex)
    assert "stride 1" in text and "2 x 5 = 10" in text and "copy" in text
    assert "<b" in ex._repr_html_()
    bad = tl.explain_view(tl.arange(10), 3, -1)
    assert not bad.ok and "invalid for input of size 10" in str(bad)
    ok = tl.explain_view(tl.arange(10).view(2, 5), 5, 2)
    assert ok.ok and ok.new_stride == (2, 1)


def test_chunks_group_mergeable_dims():
    assert L.contiguous_chunks((2, 3, 4), (12, 4, 1)) == [[0, 1, 2]]
    assert L.contiguous_chunks((5, 2), (1, 5)) == [[0], [1]]
    assert L.contiguous_chunks((2, 1, 3), (3, 7, 1)) == [[0, 1, 2]]
