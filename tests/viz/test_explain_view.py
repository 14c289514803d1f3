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


# ----------------------------------------------------------------------------- windows
def _torch_positions(t):
    """Storage index of every element of a torch tensor, from torch's own layout."""
    pos = np.full(tuple(t.shape), t.storage_offset(), dtype=np.int64)
    for d, (n, s) in enumerate(zip(t.shape, t.stride())):
        pos += (np.arange(n) * s).reshape((n,) + (1,) * (t.ndim - d - 1))
    return pos


@settings(max_examples=60)
@given(
    shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
    transpose=st.booleans(),
    data=st.data(),
)
def test_explain_unfold_windows_match_torch(torch, shape, transpose, data):
    n = int(np.prod(shape))
    x, tx = tl.arange(float(n)).view(*shape), torch.arange(float(n)).view(*shape)
    if transpose and len(shape) > 1:
        x, tx = x.transpose(0, -1), tx.transpose(0, -1)
    dim = data.draw(st.integers(0, x.ndim - 1))
    size = data.draw(st.integers(1, x.shape[dim]))
    step = data.draw(st.integers(1, 4))
    ex = tl.explain_unfold(x, dim, size, step)
    w = tx.unfold(dim, size, step)
    pos = _torch_positions(w)
    assert ex.shape == tuple(w.shape) and ex.stride == w.stride()
    np.testing.assert_array_equal(ex.positions, pos)
    values, counts = np.unique(pos, return_counts=True)
    assert ex.overlap == bool((counts > 1).any()) == (step < size and w.shape[dim] > 1)
    assert ex.reads == {int(v): int(c) for v, c in zip(values, counts) if c > 1}
    text = str(ex)
    for idx, p in ex.windows:  # each window reads exactly what torch's window holds
        assert w[idx].flatten().tolist() == [float(q) for q in p]  # arange: value == position
    if ex.overlap:
        # the claim "same memory": a write through one reading shows in every other one
        p0, c0 = max(ex.reads.items(), key=lambda kv: (kv[1], -kv[0]))
        assert f"position {p0} is read {c0} times" in text
        where = np.argwhere(pos == p0)
        w[tuple(where[0])] = -1.0
        assert all(w[tuple(i)].item() == -1.0 for i in where)
        assert "UnfoldBackward0" in text
        # "w.add_(1) adds c0 to position p0": what torch's loop really does
        base = tx._base if tx._base is not None else tx
        before = base.clone()
        w.add_(1)
        assert (base - before).flatten()[p0].item() == c0
        assert f"adds {c0} to storage position {p0}" in text
    else:
        assert "do not overlap" in text


@settings(max_examples=40)
@given(
    size=st.lists(st.integers(1, 4), min_size=0, max_size=3),
    data=st.data(),
)
def test_explain_as_strided_matches_torch(torch, size, data):
    stride = [data.draw(st.integers(0, 3)) for _ in size]
    offset = data.draw(st.integers(0, 3))
    x, tx = tl.arange(40.0)[5:], torch.arange(40.0)[5:]
    ex = tl.explain_as_strided(x, size, stride, offset)
    w = tx.as_strided(size, stride, offset)
    np.testing.assert_array_equal(ex.positions, _torch_positions(w))
    assert ex.overlap == (len(np.unique(_torch_positions(w))) < w.numel())
    text = str(ex)
    outside = sorted({int(p) for p in _torch_positions(w).reshape(-1)} - set(range(5, 40)))
    assert ("not elements of x" in text) == bool(outside)


@settings(max_examples=40)
@given(
    c=st.integers(1, 3),
    h=st.integers(1, 6),
    w=st.integers(1, 6),
    k=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    stride=st.tuples(st.integers(1, 3), st.integers(1, 3)),
    dilation=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    padding=st.sampled_from([(0, 0), (0, 0), (1, 0), (1, 1)]),
    batched=st.booleans(),
)
def test_explain_im2col_matches_torch(torch, c, h, w, k, stride, dilation, padding, batched):
    import torch.nn.functional as F

    eh, ew = dilation[0] * (k[0] - 1) + 1, dilation[1] * (k[1] - 1) + 1
    if h + 2 * padding[0] < eh or w + 2 * padding[1] < ew:
        return
    shape = (2, c, h, w) if batched else (c, h, w)
    n = int(np.prod(shape))
    x, tx = tl.arange(float(n)).view(shape), torch.arange(float(n)).view(shape)
    kw = {"kernel_size": k, "dilation": dilation, "padding": padding, "stride": stride}
    ex = tl.explain_im2col(x, **kw)
    cols = F.unfold(tx, **kw)
    # torch's facts the explanation states: shape, contiguous, fresh memory
    assert ex.shape == tuple(cols.shape) and ex.stride == cols.stride() and cols.is_contiguous()
    assert cols.untyped_storage().data_ptr() != tx.untyped_storage().data_ptr()
    assert not ex.is_view and "never shares memory" in str(ex)
    if padding != (0, 0):
        assert ex.view_possible is False and "padding" in str(ex)
        return
    # the windows really are a view, and a single strided (N, C*kH*kW, L) layout exists exactly
    # when the explanation says so
    tb = tx if batched else tx.unsqueeze(0)
    win = tb.unfold(2, eh, stride[0]).unfold(3, ew, stride[1])[..., :: dilation[0], :: dilation[1]]
    assert win.untyped_storage().data_ptr() == tx.untyped_storage().data_ptr()
    rows = win.permute(0, 1, 4, 5, 2, 3)
    np.testing.assert_array_equal(ex.positions, _torch_positions(win))
    try:
        flat = rows.view(rows.shape[0], -1, rows.shape[-2] * rows.shape[-1])
    except RuntimeError:
        flat = None
    assert ex.view_possible == (flat is not None), str(ex)
    if flat is not None:
        assert torch.equal(flat, cols if batched else cols.unsqueeze(0))
    else:
        assert "must copy" in str(ex)
        copied = rows.reshape(rows.shape[0], -1, cols.shape[-1])  # what im2col computes
        assert torch.equal(copied, cols if batched else cols.unsqueeze(0))
