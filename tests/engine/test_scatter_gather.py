"""The indexing family against the PyTorch oracle: index_select, masked_*, gather/scatter*,
index_add/copy/fill/put, put/take/take_along_dim, nonzero/argwhere/where — values, dtypes, layouts,
grad_fn names, gradients (through strided views to the leaves), in-place forms and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from strided_inputs import grad_like, run_both, tensors

import tensorlab as tl

SETTINGS = settings(max_examples=40)


def idx(lib, arr, dtype="int64"):
    return lib.tensor(np.asarray(arr, dtype=dtype))


# ---------------------------------------------------------------------------------------------
# index_select / take / take_along_dim
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(tensors(min_side=1), st.data())
def test_index_select(torch, spec, data):
    d = data.draw(st.integers(-len(spec.shape), len(spec.shape) - 1))
    n = data.draw(st.integers(0, 5))
    index = data.draw(st.lists(st.integers(0, spec.shape[d] - 1), min_size=n, max_size=n))
    dt = data.draw(st.sampled_from(["int64", "int32"]))
    run_both(torch, lambda lib, x: lib.index_select(x, d, idx(lib, index, dt)), [spec])
    run_both(torch, lambda lib, x: x.index_select(d, idx(lib, index, dt)), [spec], grad=False)


@SETTINGS
@given(tensors(min_side=1), st.data())
def test_take_and_take_along_dim(torch, spec, data):
    n = int(np.prod(spec.shape))
    index = data.draw(st.lists(st.integers(-n, n - 1), min_size=0, max_size=6))
    run_both(torch, lambda lib, x: lib.take(x, idx(lib, index)), [spec])
    d = data.draw(st.integers(0, len(spec.shape) - 1))
    shape = list(spec.shape)
    shape[d] = data.draw(st.integers(0, 4))
    if data.draw(st.booleans()):  # broadcast the other dims
        other = [k for k in range(len(shape)) if k != d]
        if other:
            shape[data.draw(st.sampled_from(other))] = 1
    rng = np.random.default_rng(spec.seed)
    along = rng.integers(0, spec.shape[d], size=shape)
    run_both(torch, lambda lib, x: lib.take_along_dim(x, idx(lib, along), d), [spec])
    flat = rng.integers(0, n, size=shape)
    # without dim, PyTorch reads the input with view(-1): non-viewable layouts raise
    ours, theirs = spec.build(tl)[0], spec.build(torch)[0]
    got = raises_same(
        lambda: ours.take_along_dim(idx(tl, flat)), lambda: theirs.take_along_dim(idx(torch, flat))
    )
    if got[0] is not None:
        assert_same(*got)


# ---------------------------------------------------------------------------------------------
# gather / scatter / scatter_add / scatter_reduce
# ---------------------------------------------------------------------------------------------


@st.composite
def gather_case(draw):
    spec = draw(tensors(min_side=1))
    d = draw(st.integers(0, len(spec.shape) - 1))
    ishape = tuple(draw(st.integers(0, s)) for s in spec.shape)
    ishape = ishape[:d] + (draw(st.integers(0, 5)),) + ishape[d + 1 :]
    return spec, d, ishape


@SETTINGS
@given(gather_case())
def test_gather(torch, case):
    spec, d, ishape = case
    index = np.random.default_rng(spec.seed).integers(0, spec.shape[d], size=ishape)
    run_both(torch, lambda lib, x: lib.gather(x, d, idx(lib, index)), [spec])
    run_both(torch, lambda lib, x: x.gather(d - len(spec.shape), idx(lib, index, "int32")), [spec])


def unique_index(rng, self_shape, ishape, d):
    """A scatter index with no repeated target along ``d`` (so overwriting is deterministic)."""
    cols = [rng.permutation(self_shape[d])[: ishape[d]] for _ in range(int(np.prod(ishape)) or 1)]
    moved = np.stack(cols, axis=-1)[..., : int(np.prod(ishape[:d] + ishape[d + 1 :]))]
    rest = ishape[:d] + ishape[d + 1 :]
    return np.moveaxis(moved.reshape((ishape[d],) + rest), 0, d)


@st.composite
def scatter_case(draw):
    spec = draw(tensors(min_side=1))
    d = draw(st.integers(0, len(spec.shape) - 1))
    ishape = tuple(draw(st.integers(0, s)) for s in spec.shape)
    src_shape = tuple(s + draw(st.integers(0, 1)) for s in ishape)
    src = draw(tensors(shape=src_shape))
    return spec, d, ishape, src


@SETTINGS
@given(scatter_case())
def test_scatter_src_and_value(torch, case):
    spec, d, ishape, src = case
    rng = np.random.default_rng(spec.seed)
    index = unique_index(rng, spec.shape, ishape, d)
    run_both(torch, lambda lib, x, s: lib.scatter(x, d, idx(lib, index), s), [spec, src])
    run_both(torch, lambda lib, x: x.scatter(d, idx(lib, index), 2.5), [spec])
    run_both(torch, lambda lib, x: lib.scatter(x, d, idx(lib, index), value=-1), [spec])
    run_both(torch, lambda lib, x, s: x.scatter(d, idx(lib, index), src=s), [spec, src])


@SETTINGS
@given(scatter_case(), st.sampled_from(["add", "multiply"]))
def test_scatter_reduce_argument_and_scatter_add(torch, case, reduce):
    spec, d, ishape, src = case
    index = np.random.default_rng(spec.seed).integers(0, spec.shape[d], size=ishape)
    run_both(torch, lambda lib, x, s: lib.scatter_add(x, d, idx(lib, index), s), [spec, src])
    # reduce= has no derivative in PyTorch
    run_both(
        torch,
        lambda lib, x, s: x.scatter(d, idx(lib, index), s, reduce=reduce),
        [spec, src],
        grad=False,
    )
    run_both(
        torch,
        lambda lib, x: x.scatter(d, idx(lib, index), 1.5, reduce=reduce),
        [spec],
        grad=False,
    )


@SETTINGS
@given(
    scatter_case(),
    st.sampled_from(["sum", "prod", "mean", "amax", "amin"]),
    st.booleans(),
    st.sampled_from(["float32", "int64"]),
)
def test_scatter_reduce(torch, case, reduce, include_self, dtype):
    spec, d, ishape, src = case
    spec = type(spec)(spec.shape, dtype, spec.layout, spec.seed)
    # (src as large as index: torch 2.13's own backward fails on a larger src)
    src = type(src)(ishape, dtype, src.layout if src.layout[0] != "perm" else ("contig",), 1)
    index = np.random.default_rng(spec.seed).integers(0, spec.shape[d], size=ishape)
    run_both(
        torch,
        lambda lib, x, s: x.scatter_reduce(
            d, idx(lib, index), s, reduce, include_self=include_self
        ),
        [spec, src],
        grad=dtype == "float32",
    )


# ---------------------------------------------------------------------------------------------
# index_add / index_copy / index_fill / index_put / put
# ---------------------------------------------------------------------------------------------


@st.composite
def index_case(draw, unique=False):
    spec = draw(tensors(min_side=1))
    d = draw(st.integers(0, len(spec.shape) - 1))
    n = draw(st.integers(0, spec.shape[d] if unique else 5))
    if unique:
        index = list(draw(st.permutations(range(spec.shape[d]))))[:n]
    else:
        index = draw(st.lists(st.integers(0, spec.shape[d] - 1), min_size=n, max_size=n))
    src_shape = spec.shape[:d] + (n,) + spec.shape[d + 1 :]
    return spec, d, index, draw(tensors(shape=src_shape))


@SETTINGS
@given(index_case(), st.sampled_from([1, 2, -0.5]))
def test_index_add(torch, case, alpha):
    spec, d, index, src = case
    run_both(torch, lambda lib, x, s: lib.index_add(x, d, idx(lib, index), s), [spec, src])
    run_both(torch, lambda lib, x, s: x.index_add(d, idx(lib, index), s, alpha=alpha), [spec, src])


@SETTINGS
@given(index_case(unique=True))
def test_index_copy(torch, case):
    spec, d, index, src = case
    run_both(torch, lambda lib, x, s: lib.index_copy(x, d, idx(lib, index), s), [spec, src])


@SETTINGS
@given(index_case())
def test_index_fill(torch, case):
    spec, d, index, _ = case
    run_both(torch, lambda lib, x: x.index_fill(d, idx(lib, index), -2.0), [spec])

    def with_tensor_value(lib, x):
        v = lib.tensor(3.0, requires_grad=True)
        return x.index_fill(d, idx(lib, index), v)

    run_both(torch, with_tensor_value, [spec])


@SETTINGS
@given(tensors(min_side=1, max_dims=2), st.data(), st.booleans())
def test_index_put(torch, spec, data, accumulate):
    rng = np.random.default_rng(spec.seed)
    n = data.draw(st.integers(0, 4))
    rows = rng.integers(-spec.shape[0], spec.shape[0], size=n)
    if not accumulate:
        rows = rng.permutation(spec.shape[0])[: min(n, spec.shape[0])]
    vals = tensors(shape=(len(rows),) + spec.shape[1:])
    vspec = data.draw(vals)
    run_both(
        torch,
        lambda lib, x, v: x.index_put((idx(lib, rows),), v, accumulate=accumulate),
        [spec, vspec],
    )
    mask = rng.random(spec.shape[:1]) < 0.5
    vspec = data.draw(tensors(shape=spec.shape[1:]))
    run_both(
        torch,
        lambda lib, x, v: lib.index_put(x, (lib.tensor(mask),), v, accumulate),
        [spec, vspec],
    )


@SETTINGS
@given(tensors(min_side=1), st.data(), st.booleans())
def test_put(torch, spec, data, accumulate):
    n = int(np.prod(spec.shape))
    rng = np.random.default_rng(spec.seed)
    k = data.draw(st.integers(0, 5))
    index = rng.integers(-n, n, size=k) if accumulate else rng.permutation(n)[: min(k, n)] - n // 2
    src = data.draw(tensors(shape=(len(index),)))
    run_both(torch, lambda lib, x, s: x.put(idx(lib, index), s, accumulate), [spec, src])


# ---------------------------------------------------------------------------------------------
# masked ops
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(tensors(), st.data())
def test_masked_ops(torch, spec, data):
    rng = np.random.default_rng(spec.seed)
    # the mask broadcasts with the input (sometimes it is the larger one)
    mshape = list(spec.shape)
    for k in range(len(mshape)):
        if data.draw(st.booleans()):
            mshape[k] = 1
    if data.draw(st.booleans()):
        mshape = [2] + mshape if all(s != 0 for s in mshape) else mshape
    mask = rng.random(mshape) < 0.5

    def m(lib):
        return lib.tensor(mask)

    run_both(torch, lambda lib, x: lib.masked_select(x, m(lib)), [spec])
    run_both(torch, lambda lib, x: x.masked_fill(m(lib), 0.5), [spec])

    def fill_tensor(lib, x):
        return x.masked_fill(m(lib), lib.tensor(7.0, requires_grad=True))

    run_both(torch, fill_tensor, [spec])
    n = int(np.prod(np.broadcast_shapes(tuple(mshape), spec.shape)))
    src = data.draw(tensors(shape=(n + 1,)))
    run_both(torch, lambda lib, x, s: x.masked_scatter(m(lib), s), [spec, src])


# ---------------------------------------------------------------------------------------------
# in-place forms: written into self's memory, recorded on the graph
# ---------------------------------------------------------------------------------------------

INPLACE = {
    "index_add_": lambda lib, x: x.index_add_(0, idx(lib, [1, 0, 1]), lib.ones(3, 4), alpha=2),
    "index_copy_": lambda lib, x: x.index_copy_(0, idx(lib, [2, 0]), lib.ones(2, 4) * 3),
    "index_fill_": lambda lib, x: x.index_fill_(1, idx(lib, [3, 0]), 9),
    "scatter_": lambda lib, x: x.scatter_(1, idx(lib, [[3, 0], [1, 2]]), lib.ones(2, 2) * 5),
    "scatter_value": lambda lib, x: x.scatter_(0, idx(lib, [[2, 0, 1, 0]]), 7.0),
    "scatter_add_": lambda lib, x: x.scatter_add_(0, idx(lib, [[2, 2, 1, 0]]), lib.ones(1, 4)),
    "scatter_reduce_": lambda lib, x: x.scatter_reduce_(
        0, idx(lib, [[2, 2, 1, 0]]), lib.ones(1, 4), "amax", include_self=False
    ),
    "masked_fill_": lambda lib, x: x.masked_fill_(x > 0.5, -1.0),
    "masked_scatter_": lambda lib, x: x.masked_scatter_(x > 0.5, lib.arange(12.0)),
    "index_put_": lambda lib, x: x.index_put_((idx(lib, [0, 2]), idx(lib, [1, 3])), lib.ones(2)),
    "index_put_acc": lambda lib, x: x.index_put_((idx(lib, [0, 0]),), lib.ones(2, 4), True),
    "put_": lambda lib, x: x.put_(idx(lib, [0, 11, -1]), lib.ones(3), accumulate=True),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
@pytest.mark.parametrize("transposed", [False, True])
def test_inplace_forms(torch, name, transposed):
    base = np.random.default_rng(1).standard_normal((4, 3) if transposed else (3, 4))
    base = base.astype(np.float32)

    def go(lib):
        leaf = lib.tensor(base, requires_grad=True)
        y = leaf * 1
        x = y.t() if transposed else y
        storage = x.data_ptr()
        out = INPLACE[name](lib, x)
        assert out is x and x.data_ptr() == storage
        return leaf, x

    (lo, xo), (lt, xt) = go(tl), go(torch)
    assert_same(xo, xt)
    assert xo.grad_fn.name() == xt.grad_fn.name()
    g = grad_like((3, 4))
    xt.backward(torch.from_numpy(g))
    xo.backward(tl.tensor(g))
    np.testing.assert_allclose(lo.grad._np(), lt.grad.numpy(), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# nonzero / argwhere / where
# ---------------------------------------------------------------------------------------------


@SETTINGS
@given(tensors(dtype="int64", min_dims=0))
def test_nonzero_argwhere(torch, spec):
    run_both(torch, lambda lib, x: lib.nonzero(x), [spec], grad=False)
    run_both(torch, lambda lib, x: lib.argwhere(x), [spec], grad=False)
    run_both(torch, lambda lib, x: x.argwhere(), [spec], grad=False)
    ours, theirs = spec.build(tl)[0], spec.build(torch)[0]
    for a, b in zip(ours.nonzero(as_tuple=True), theirs.nonzero(as_tuple=True)):
        assert_same(a, b)
    for a, b in zip(tl.where(ours), torch.where(theirs)):
        assert_same(a, b)


@SETTINGS
@given(tensors(min_side=1), st.data())
def test_where_forms(torch, spec, data):
    other = data.draw(tensors(shape=spec.shape[data.draw(st.integers(0, len(spec.shape))) :]))
    cond = np.random.default_rng(spec.seed).random(spec.shape) < 0.5
    run_both(torch, lambda lib, x, y: lib.where(lib.tensor(cond), x, y), [spec, other])
    run_both(torch, lambda lib, x: lib.where(lib.tensor(cond), x, 0.0), [spec])
    run_both(torch, lambda lib, x: lib.where(lib.tensor(cond), 2, x), [spec])
    run_both(torch, lambda lib, x: x.where(lib.tensor(cond), -1.5), [spec])
    for a, b in ((1.0, 0), (1, 0), (True, False), (2.5, 1.5)):
        assert_same(tl.where(tl.tensor(cond), a, b), torch.where(torch.tensor(cond), a, b))


# ---------------------------------------------------------------------------------------------
# errors: PyTorch's exception types and messages
# ---------------------------------------------------------------------------------------------

X = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def _L(lib, v, dt="int64"):
    return lib.tensor(np.asarray(v, dtype=dt))


BAD = {
    "isel float idx": lambda lib, x: x.index_select(0, _L(lib, [0.0], "float32")),
    "isel 2d idx": lambda lib, x: x.index_select(0, _L(lib, [[0]])),
    "isel oob": lambda lib, x: x.index_select(0, _L(lib, [3])),
    "isel neg": lambda lib, x: x.index_select(0, _L(lib, [-1])),
    "isel dim": lambda lib, x: x.index_select(2, _L(lib, [0])),
    "isel list": lambda lib, x: lib.index_select(x, 0, [0]),
    "isel list method": lambda lib, x: x.index_select(0, [0]),
    "isel scalar": lambda lib, x: lib.tensor(5.0).index_select(0, _L(lib, [0, 0])),
    "msel long": lambda lib, x: x.masked_select((x > 0).long()),
    "msel badshape": lambda lib, x: x.masked_select(_L(lib, [True, False, True], "bool")),
    "mfill long": lambda lib, x: x.masked_fill((x > 0).long(), 1.0),
    "mfill 1d val": lambda lib, x: x.masked_fill(x > 0, lib.tensor([1.0])),
    "mfill_ bcast": lambda lib, x: lib.zeros(4).masked_fill_(lib.ones(3, 4, dtype=lib.bool), 1.0),
    "mscatter few": lambda lib, x: x.masked_scatter(x > -1, lib.zeros(5)),
    "mscatter dtype": lambda lib, x: x.masked_scatter(x > -1, lib.zeros(12, dtype=lib.float64)),
    "mscatter long": lambda lib, x: x.masked_scatter((x > -1).long(), lib.zeros(12)),
    "gather float": lambda lib, x: x.gather(0, _L(lib, [[0.0]], "float32")),
    "gather ndim": lambda lib, x: x.gather(0, _L(lib, [0])),
    "gather size": lambda lib, x: x.gather(0, lib.zeros(2, 5, dtype=lib.long)),
    "gather oob": lambda lib, x: x.gather(0, _L(lib, [[3]])),
    "gather neg": lambda lib, x: x.gather(0, _L(lib, [[-1]])),
    "scatter dtype": lambda lib, x: x.scatter(0, _L(lib, [[0]]), lib.ones(1, 1).double()),
    "scatter oob": lambda lib, x: x.scatter(0, _L(lib, [[3]]), lib.ones(1, 1)),
    "scatter size src": lambda lib, x: x.scatter(0, lib.zeros(2, 2).long(), lib.ones(1, 1)),
    "scatter size self": lambda lib, x: x.scatter(0, lib.zeros(2, 5).long(), lib.ones(2, 5)),
    "scatter ndim": lambda lib, x: x.scatter(0, lib.zeros(2).long(), lib.ones(2)),
    "scatter reduce": lambda lib, x: x.scatter(0, _L(lib, [[0]]), lib.ones(1, 1), reduce="max"),
    "scatter_add dtype": lambda lib, x: x.scatter_add(0, _L(lib, [[0]]), lib.ones(1, 1).double()),
    "iadd shape": lambda lib, x: x.index_add(0, _L(lib, [0]), lib.ones(1, 5)),
    "iadd dtype": lambda lib, x: x.index_add(0, _L(lib, [0]), lib.ones(1, 4).double()),
    "iadd idx dtype": lambda lib, x: x.index_add(0, _L(lib, [0.0], "float32"), lib.ones(1, 4)),
    "iadd idx 2d": lambda lib, x: x.index_add(0, _L(lib, [[0]]), lib.ones(1, 4)),
    "iadd oob": lambda lib, x: x.index_add(0, _L(lib, [5]), lib.ones(1, 4)),
    "iadd count": lambda lib, x: x.index_add(0, _L(lib, [0, 1]), lib.ones(1, 4)),
    "icopy shape": lambda lib, x: x.index_copy(0, _L(lib, [0]), lib.ones(1, 5)),
    "icopy dtype": lambda lib, x: x.index_copy(0, _L(lib, [0]), lib.ones(1, 4).double()),
    "icopy idx dtype": lambda lib, x: x.index_copy(0, _L(lib, [0], "int32"), lib.ones(1, 4)),
    "icopy oob": lambda lib, x: x.index_copy(0, _L(lib, [5]), lib.ones(1, 4)),
    "icopy count": lambda lib, x: x.index_copy(0, _L(lib, [0, 1]), lib.ones(1, 4)),
    "ifill idx dtype": lambda lib, x: x.index_fill(0, _L(lib, [0.0], "float32"), 1.0),
    "ifill oob": lambda lib, x: x.index_fill(0, _L(lib, [5]), 1.0),
    "ifill 1d val": lambda lib, x: x.index_fill(0, _L(lib, [0]), lib.tensor([1.0])),
    "ifill 2d idx": lambda lib, x: x.index_fill(0, _L(lib, [[0]]), 1.0),
    "put count": lambda lib, x: x.put(_L(lib, [0, 1]), lib.ones(3)),
    "put oob": lambda lib, x: x.put(_L(lib, [12]), lib.ones(1)),
    "put dtype": lambda lib, x: x.put(_L(lib, [1]), lib.ones(1).double()),
    "put idx dtype": lambda lib, x: x.put(_L(lib, [1], "int32"), lib.ones(1)),
    "take oob": lambda lib, x: x.take(_L(lib, [12])),
    "take neg oob": lambda lib, x: x.take(_L(lib, [-13])),
    "take idx dtype": lambda lib, x: x.take(_L(lib, [1], "int32")),
    "tad ndim": lambda lib, x: x.take_along_dim(_L(lib, [0]), 0),
    "tad dtype": lambda lib, x: x.take_along_dim(_L(lib, [[0]], "int32"), 0),
    "tad bcast": lambda lib, x: x.take_along_dim(_L(lib, [[0], [1]]), 1),
    "iput dtype": lambda lib, x: x.index_put((_L(lib, [0]),), lib.ones(1).double()),
    "iput oob": lambda lib, x: x.index_put((_L(lib, [5]),), lib.ones(1)),
    "iput float idx": lambda lib, x: x.index_put((_L(lib, [0.0], "float32"),), lib.ones(1)),
    "iput too many": lambda lib, x: x.index_put((_L(lib, [0]),) * 3, lib.ones(1)),
    "iput shape": lambda lib, x: x.index_put((_L(lib, [0, 1]),), lib.ones(3)),
    "where nonbool": lambda lib, x: lib.where(x, x, x),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_errors(torch, name):
    raises_same(lambda: BAD[name](tl, tl.tensor(X)), lambda: BAD[name](torch, torch.tensor(X)))


# ---------------------------------------------------------------------------------------------
# edge cases: 0-d tensors, other dtypes, negative and repeated indices, None in index_put
# ---------------------------------------------------------------------------------------------


def L(lib, v):
    return lib.tensor(np.asarray(v, dtype=np.int64))


EDGE = {
    "gather 0d": lambda lib: lib.tensor(5.0).gather(0, L(lib, 0)),
    "gather 0d idx1": lambda lib: lib.tensor(5.0).gather(0, L(lib, [0, 0])),
    "scatter 0d": lambda lib: lib.tensor(5.0).scatter(0, L(lib, 0), lib.tensor(2.0)),
    "scatter_add 0d": lambda lib: lib.tensor(5.0).scatter_add(0, L(lib, 0), lib.tensor(2.0)),
    "index_add 0d": lambda lib: lib.tensor(5.0).index_add(0, L(lib, [0]), lib.tensor(2.0)),
    "index_add 0d src1": lambda lib: lib.tensor(5.0).index_add(0, L(lib, [0]), lib.tensor([2.0])),
    "index_copy 0d": lambda lib: lib.tensor(5.0).index_copy(0, L(lib, [0]), lib.tensor(2.0)),
    "index_fill 0d": lambda lib: lib.tensor(5.0).index_fill(0, L(lib, [0]), 2.0),
    "index_fill neg": lambda lib: lib.zeros(3).index_fill(0, L(lib, [-1]), 2.0),
    "take 0d": lambda lib: lib.tensor(5.0).take(L(lib, [0, 0])),
    "put 0d": lambda lib: lib.tensor(5.0).put(L(lib, [0]), lib.tensor([1.0])),
    "masked_fill 0d": lambda lib: lib.tensor(5.0).masked_fill(lib.tensor(True), 1.0),
    "masked_select 0d": lambda lib: lib.tensor(5.0).masked_select(lib.tensor(True)),
    "half gather": lambda lib: lib.arange(6.0).half().view(2, 3).gather(1, L(lib, [[0], [2]])),
    "half index_add": lambda lib: (
        lib.zeros(3).half().index_add(0, L(lib, [0, 0]), lib.ones(2).half())
    ),
    "int index_add alpha": lambda lib: lib.zeros(3, dtype=lib.long).index_add(
        0, L(lib, [0, 0]), lib.ones(2, dtype=lib.long), alpha=3
    ),
    "int index_add float alpha": lambda lib: lib.zeros(3, dtype=lib.long).index_add(
        0, L(lib, [0, 0]), lib.ones(2, dtype=lib.long), alpha=1.5
    ),
    "bool masked_fill": lambda lib: lib.zeros(3, dtype=lib.bool).masked_fill(
        lib.tensor([True, False, True]), True
    ),
    "int masked_fill float": lambda lib: lib.zeros(3, dtype=lib.long).masked_fill(
        lib.tensor([True, False, True]), 2.7
    ),
    "uint8 mask": lambda lib: lib.zeros(3).masked_fill(lib.tensor([1, 0, 1], dtype=lib.uint8), 2.7),
    "int scatter value float": lambda lib: lib.zeros(3, dtype=lib.long).scatter(
        0, L(lib, [1]), 2.7
    ),
    "scatter mult int": lambda lib: lib.ones(3, dtype=lib.long).scatter(
        0, L(lib, [1, 1]), lib.tensor([2, 3]), reduce="multiply"
    ),
    "index_put bool int": lambda lib: lib.zeros(2, 3).index_put(
        (lib.tensor([True, False]),), lib.tensor(1.0)
    ),
    "index_put None": lambda lib: lib.zeros(2, 3).index_put((None, L(lib, [1])), lib.tensor(1.0)),
    "index_put None fn": lambda lib: lib.index_put(
        lib.zeros(2, 3), (None, L(lib, [1])), lib.tensor(1.0)
    ),
    "index_put_ None": lambda lib: lib.zeros(2, 3).index_put_((None, L(lib, [1])), lib.tensor(1.0)),
    "index_put acc dup": lambda lib: lib.zeros(3).index_put_(
        (L(lib, [1, 1, 1]),), lib.tensor(1.0), accumulate=True
    ),
    "nonzero bool": lambda lib: lib.tensor([[True, False], [True, True]]).nonzero(),
    "scatter_reduce mean int": lambda lib: lib.tensor([1, 2, 3]).scatter_reduce(
        0, L(lib, [0, 0, 2]), lib.tensor([4, 5, -7]), "mean"
    ),
    "scatter_reduce mean int excl": lambda lib: lib.tensor([1, 2, 3]).scatter_reduce(
        0, L(lib, [0, 0, 2]), lib.tensor([4, 5, -7]), "mean", include_self=False
    ),
    "take_along_dim neg": lambda lib: lib.arange(6.0).view(2, 3).take_along_dim(L(lib, [[-1]]), 1),
    "diag_embed 0d": lambda lib: lib.diag_embed(lib.tensor(3.0)),
    "roll neg dims": lambda lib: lib.arange(6).view(2, 3).roll(-1, -1),
    "cross bcast": lambda lib: lib.cross(lib.ones(2, 3), lib.arange(3.0), dim=1),
    "logsumexp -inf": lambda lib: lib.tensor([float("-inf"), float("-inf")]).logsumexp(0),
    "logsumexp inf": lambda lib: lib.tensor([float("inf"), 1.0]).logsumexp(0),
    "cumprod int dtype": lambda lib: lib.tensor([1, 2, 3]).cumprod(0, dtype=lib.float32),
    "atan2 scalar other": lambda lib: lib.atan2(lib.ones(2), 1.0),
}


@pytest.mark.parametrize("name", sorted(EDGE))
def test_edge_cases(torch, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = raises_same(lambda: EDGE[name](tl), lambda: EDGE[name](torch))
    if theirs is not None:
        assert_same(ours, theirs)


def test_scatter_reduce_argument_has_no_derivative(torch):
    def go(lib):
        x = lib.ones(3, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.scatter(0, L(lib, [0]), lib.ones(1), reduce="add")
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        return lambda: y.sum().backward()

    raises_same(go(tl), go(torch))
