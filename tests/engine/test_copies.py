"""Ops that copy (flip, repeat, repeat_interleave, tile, cat, stack, clone, to) against torch,
including the strides PyTorch gives their results and that they never share storage."""

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
def layouts(draw, max_dims=3):
    """(shape, ops) describing a possibly non-contiguous tensor built from arange."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=1, max_size=max_dims)))
    ops = []
    if len(shape) >= 2 and draw(st.booleans()):
        ops.append(("permute", tuple(draw(st.permutations(range(len(shape)))))))
    if draw(st.booleans()):
        ops.append(("step", draw(st.integers(1, 2))))
    if draw(st.integers(0, 3)) == 0:
        ops.append(("unsqueeze_expand", draw(st.integers(1, 3))))
    return shape, ops


def build(lib, shape, ops, dtype="int64"):
    t = lib.from_numpy((np.arange(int(np.prod(shape))) % 11).astype(dtype).reshape(shape))
    for op, arg in ops:
        if op == "permute":
            t = t.permute(*arg)
        elif op == "step":
            t = t[..., ::arg]
        elif op == "unsqueeze_expand":
            t = t.unsqueeze(0).expand(arg, *t.shape)
    return t


@settings(max_examples=200)
@given(
    layout=layouts(), dtype=st.sampled_from(["int64", "float32", "bool", "float64"]), data=st.data()
)
def test_clone_flip_to_keep_memory_order(torch, layout, dtype, data):
    o, t = build(tl, *layout, dtype=dtype), build(torch, *layout, dtype=dtype)
    assert_same(o.clone(), t.clone())
    assert not shares(o.clone(), o) or o.numel() == 0
    dims = tuple(data.draw(st.lists(st.integers(-o.ndim, o.ndim - 1), max_size=2, unique=True)))
    raises_same(lambda: o.flip(dims), lambda: t.flip(dims))
    if len({d % o.ndim for d in dims}) == len(dims):
        assert_same(o.flip(dims), t.flip(dims))
    target = data.draw(st.sampled_from(["float64", "float32", "int32", "int64", "bool", "float16"]))
    assert_same(o.to(getattr(tl, target)), t.to(getattr(torch, target)))
    assert_same(o.contiguous(), t.contiguous())


@settings(max_examples=150)
@given(layout=layouts(), data=st.data())
def test_repeat_and_tile(torch, layout, data):
    o, t = build(tl, *layout), build(torch, *layout)
    reps = tuple(
        data.draw(st.lists(st.integers(0, 3), min_size=max(o.ndim - 1, 0), max_size=o.ndim + 1))
    )
    r_o, r_t = raises_same(lambda: o.repeat(*reps), lambda: t.repeat(*reps))
    if r_t is not None:
        assert_same(r_o, r_t)
    r_o, r_t = raises_same(lambda: o.tile(reps), lambda: t.tile(reps))
    if r_t is not None:
        assert_same(r_o, r_t)


@settings(max_examples=150)
@given(layout=layouts(), data=st.data())
def test_repeat_interleave(torch, layout, data):
    o, t = build(tl, *layout), build(torch, *layout)
    dim = data.draw(st.none() | st.integers(-o.ndim, o.ndim - 1))
    if data.draw(st.booleans()):
        reps_o = reps_t = data.draw(st.integers(0, 3))
    else:
        n = o.numel() if dim is None else o.shape[dim]
        vals = data.draw(
            st.lists(
                st.integers(0, 3),
                min_size=n,
                max_size=n + (1 if data.draw(st.integers(0, 5)) == 0 else 0),
            )
        )
        reps_o, reps_t = tl.tensor(vals, dtype=tl.int64), torch.tensor(vals, dtype=torch.int64)
    r_o, r_t = raises_same(
        lambda: o.repeat_interleave(reps_o, dim=dim), lambda: t.repeat_interleave(reps_t, dim=dim)
    )
    if r_t is not None:
        assert_same(r_o, r_t)


def test_repeat_trivia(torch):
    """Article 003: torch's repeat is numpy's tile; torch's repeat_interleave is numpy's repeat."""
    for lib in (tl, torch):
        x = lib.tensor([1, 2])
        assert x.repeat(2).tolist() == np.tile(np.array([1, 2]), 2).tolist() == [1, 2, 1, 2]
        assert (
            x.repeat_interleave(2).tolist()
            == np.repeat(np.array([1, 2]), 2).tolist()
            == [1, 1, 2, 2]
        )
    assert_same(
        tl.repeat_interleave(tl.tensor([2, 0, 1])), torch.repeat_interleave(torch.tensor([2, 0, 1]))
    )


@settings(max_examples=150)
@given(
    shape=st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple),
    n=st.integers(1, 3),
    dtypes=st.lists(
        st.sampled_from(["int64", "float32", "bool", "float64", "int32"]), min_size=3, max_size=3
    ),
    data=st.data(),
)
def test_cat_and_stack(torch, shape, n, dtypes, data):
    arrays = []
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    for i in range(n):
        s = list(shape)
        if data.draw(st.booleans()) and -len(shape) <= dim < len(shape):
            s[dim] = data.draw(st.integers(0, 3))
        if data.draw(st.integers(0, 9)) == 0:
            s = s[1:] or [2]  # wrong rank on purpose
        arrays.append((np.arange(int(np.prod(s))) % 5).astype(dtypes[i]).reshape(s))
    o = [tl.from_numpy(a.copy()) for a in arrays]
    t = [torch.from_numpy(a.copy()) for a in arrays]
    if data.draw(st.booleans()) and o[0].ndim >= 2:
        o[0], t[0] = o[0].transpose(0, 1), t[0].transpose(0, 1)
    for fn in ("cat", "stack"):
        r_o, r_t = raises_same(
            lambda fn=fn: getattr(tl, fn)(o, dim), lambda fn=fn: getattr(torch, fn)(t, dim)
        )
        if r_t is not None:
            assert_same(r_o, r_t)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.cat([])",
        "lib.stack([])",
        "lib.cat([lib.tensor(1), lib.tensor(2)])",
        "lib.cat([lib.zeros(2, 3), lib.zeros(3, 3)], 1)",
        "lib.stack([lib.zeros(2, 3), lib.zeros(3, 3)])",
        "lib.zeros(2, 3).repeat(2)",
        "lib.zeros(3).repeat_interleave(lib.tensor([1, 2]))",
        "lib.zeros(3).repeat_interleave(-1)",
        "lib.zeros(3).flip(0, 0)",
        "lib.zeros(3).flip(1)",
    ],
)
def test_copy_errors(torch, expr):
    r_o, r_t = raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    if r_t is not None:
        assert_same(r_o, r_t)
