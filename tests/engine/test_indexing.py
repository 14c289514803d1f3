"""Indexing against the PyTorch oracle: basic indexing gives views (same storage, offset, strides),
advanced indexing gives copies; ``t[idx] = v`` writes through to the base in both cases."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@st.composite
def index_items(draw, shape):
    """A random index for ``shape``: ints, slices, None, ..., int lists/tensors, bool masks.

    ``kind`` tags each item so the same index can be rebuilt with either library's tensors.
    """
    items = []
    dim = 0
    used_ellipsis = False
    n_items = draw(st.integers(0, len(shape) + 1))
    for _ in range(n_items):
        choice = draw(
            st.sampled_from(
                ["int", "slice", "slice", "none", "ellipsis", "list", "tensor", "mask", "neg"]
            )
        )
        size = shape[dim] if dim < len(shape) else 3
        if choice == "int":
            items.append(("int", draw(st.integers(-size - 1, size))))
            dim += 1
        elif choice == "neg":
            items.append(("int", -1))
            dim += 1
        elif choice == "slice":
            items.append(
                (
                    "slice",
                    slice(
                        draw(st.none() | st.integers(-size - 1, size + 1)),
                        draw(st.none() | st.integers(-size - 1, size + 1)),
                        draw(st.none() | st.integers(1, 3)),
                    ),
                )
            )
            dim += 1
        elif choice == "none":
            items.append(("none", None))
        elif choice == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            items.append(("ellipsis", Ellipsis))
        elif choice in ("list", "tensor"):
            n = draw(st.integers(0, 3))
            vals = [draw(st.integers(-size, max(size - 1, 0) if size else 0)) for _ in range(n)]
            if size == 0:
                vals = []
            items.append((choice, vals))
            dim += 1
        elif choice == "mask":
            msize = size if draw(st.integers(0, 9)) else size + 1  # sometimes wrong on purpose
            items.append(("mask", [draw(st.booleans()) for _ in range(msize)]))
            dim += 1
    return items


def build(lib, items):
    out = []
    for kind, v in items:
        if kind == "tensor":
            out.append(lib.tensor(v, dtype=lib.int64))
        elif kind == "mask":
            out.append(lib.tensor(v, dtype=lib.bool))
        else:
            out.append(v)
    return tuple(out)


shapes = st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple)


def make_pair(torch, shape, transpose=False):
    n = int(np.prod(shape))
    arr = np.arange(n, dtype=np.int64).reshape(shape)
    o, t = tl.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    if transpose and len(shape) >= 2:
        o, t = o.transpose(0, 1), t.transpose(0, 1)
    return o, t


@settings(max_examples=400)
@given(shape=shapes, transpose=st.booleans(), data=st.data())
def test_getitem_matches_torch(torch, shape, transpose, data):
    ours, theirs = make_pair(torch, shape, transpose)
    items = data.draw(index_items(tuple(theirs.shape)))
    idx_o, idx_t = build(tl, items), build(torch, items)
    r_o, r_t = raises_same(lambda: ours[idx_o], lambda: theirs[idx_t])
    if r_t is None:
        return
    assert_same(r_o, r_t)  # values, dtype, shape, strides, storage offset
    assert shares(r_o, ours) == shares(r_t, theirs)
    if r_t.numel() and not shares(r_t, theirs):
        # a copy: writing to it must not change the base
        before = ours.clone()
        r_o[...] = -5
        assert ours.tolist() == before.tolist()


@settings(max_examples=300)
@given(shape=shapes, transpose=st.booleans(), data=st.data(), as_tensor=st.booleans())
def test_setitem_matches_torch(torch, shape, transpose, data, as_tensor):
    ours, theirs = make_pair(torch, shape, transpose)
    items = data.draw(index_items(tuple(theirs.shape)))
    idx_o, idx_t = build(tl, items), build(torch, items)
    try:
        target_shape = tuple(theirs[idx_t].shape)
    except (IndexError, RuntimeError, ValueError, TypeError):
        target_shape = (1,)
    # value: scalar, or a tensor broadcastable to the target (sometimes not, on purpose)
    vshape = tuple(
        data.draw(st.sampled_from([s, 1]))
        for s in target_shape[data.draw(st.integers(0, len(target_shape))) :]
    )
    if data.draw(st.integers(0, 9)) == 0:
        vshape = vshape + (5,)
    if as_tensor:
        vals = np.arange(100, 100 + int(np.prod(vshape)), dtype=np.int64).reshape(vshape)
        v_o, v_t = tl.from_numpy(vals.copy()), torch.from_numpy(vals.copy())
    else:
        v_o = v_t = data.draw(st.integers(-9, 9))

    def set_o():
        ours[idx_o] = v_o
        return ours

    def set_t():
        theirs[idx_t] = v_t
        return theirs

    r_o, r_t = raises_same(set_o, set_t)
    if r_t is not None:
        assert_same(ours, theirs)


def test_article_index_tensor_copies(torch):
    """Article 002 claims base[:, index_tensor, :] may be a view. It is always a copy."""
    for lib in (tl, torch):
        base = lib.arange(24).reshape(2, 3, 4)
        indexed = base[:, lib.tensor([0, 2]), :]
        indexed[0, 0, 0] = 200
        assert base[0, 0, 0].item() == 0
        assert indexed.untyped_storage().data_ptr() != base.untyped_storage().data_ptr()
        view = base[1:3, 1:3]
        view[0, 0] = 99
        assert base[1, 1, 0].item() == 99 if view.ndim == 3 else True


def test_masks_and_none(torch):
    for lib in (tl, torch):
        x = lib.arange(12).view(3, 4)
        m = lib.tensor([[v > 5 for v in row] for row in x.tolist()])
        assert x[m].tolist() == list(range(6, 12))
        x[m] = 0
        assert x.tolist() == [[0, 1, 2, 3], [4, 5, 0, 0], [0, 0, 0, 0]]
        assert x[None, :, None].shape == (1, 3, 1, 4)


@pytest.mark.parametrize(
    "expr",
    [
        "x[5]",
        "x[:, 7]",
        "x[0, 0, 0]",
        "x[::-1]",
        "x[lib.tensor([5])]",
        "x[[0, 7]]",
        "x[:, [0, 7]]",
        "x[lib.tensor([True, False, True])]",
        "x[1.5]",
        "x[lib.tensor([1.0])]",
        "x[..., ...]",
        "x[lib.tensor(1)]",
        "x[True]",
        "x[None, ..., None]",
        "lib.tensor(0)[0]",
        "lib.tensor(0)[:]",
        "lib.tensor(0)[(0,)]",
        "lib.tensor(0)[None]",
        "lib.tensor(0)[...]",
    ],
)
def test_index_errors_and_edge_cases(torch, expr):
    def run(lib):
        x = lib.arange(10).view(2, 5)
        return eval(expr, {"lib": lib, "x": x})

    r_o, r_t = raises_same(lambda: run(tl), lambda: run(torch))
    if r_t is not None:
        assert_same(r_o, r_t)


def test_setitem_errors(torch):
    cases = [
        lambda lib: lib.zeros(1).expand(3).__setitem__(Ellipsis, 1),
        lambda lib: lib.zeros(2, 3, 4).__setitem__(0, lib.ones(5)),
        lambda lib: lib.zeros(2, 3, 4).__setitem__(([0, 1],), lib.ones(5)),
        lambda lib: lib.zeros(2, 3, 4).__setitem__(0, "a"),
        lambda lib: lib.zeros(3, dtype=lib.float64).__setitem__(slice(None), [1, 2, 3]),
        lambda lib: lib.zeros(3).__setitem__(slice(None), (1, 2, 3)),
        lambda lib: lib.zeros(3).__setitem__(slice(None), np.ones(3)),
    ]
    for case in cases:
        raises_same(lambda c=case: c(tl), lambda c=case: c(torch))
    for lib in (tl, torch):
        x = lib.arange(6.0)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            x[1:] = x[:-1]


@pytest.mark.parametrize(
    "expr",
    [
        "x[range(2)]",
        "x[range(3), [0, 1, 2]]",
        "x[range(0)]",
        "x[:, range(1, 3)]",
        "x[range(5)]",
    ],
)
def test_range_is_a_sequence_index(torch, expr):
    """``input[range(n), target]`` (the nn tutorial's nll) indexes like a list, as in torch."""
    ours, theirs = raises_same(
        lambda: eval(expr, {"x": tl.arange(12).view(3, 4)}),
        lambda: eval(expr, {"x": torch.arange(12).view(3, 4)}),
    )
    if theirs is not None:
        assert ours.tolist() == theirs.tolist() and ours.stride() == theirs.stride()
