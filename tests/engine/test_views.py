"""Views against the PyTorch oracle: chains of view ops on non-contiguous layouts, then
view / reshape / flatten / contiguous, comparing values, dtype, shape, strides, storage offset,
contiguity, which results share storage with the base, and exceptions (type and message)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# ----------------------------------------------------------------------------- op generators
# Each generator draws parameters for the *current* shape and returns (name, fn) where fn works on
# either library's tensor. Parameters may be invalid on purpose: then both must raise the same.


def _dim(data, ndim, extra=0):
    lo = -(ndim + extra) if ndim + extra else -1
    hi = (ndim + extra - 1) if ndim + extra else 0
    return data.draw(st.integers(lo - 1, hi + 1))  # one beyond either end: error paths too


def op_transpose(data, shape):
    a, b = _dim(data, len(shape)), _dim(data, len(shape))
    return f"transpose({a},{b})", lambda t: t.transpose(a, b)


def op_permute(data, shape):
    perm = data.draw(st.permutations(range(len(shape))))
    return f"permute{tuple(perm)}", lambda t: t.permute(*perm)


def op_slice(data, shape):
    if not shape:
        return "[...]", lambda t: t[...]
    d = data.draw(st.integers(0, len(shape) - 1))
    n = shape[d]
    start = data.draw(st.none() | st.integers(-n - 1, n + 1))
    stop = data.draw(st.none() | st.integers(-n - 1, n + 1))
    step = data.draw(st.none() | st.integers(1, 3))
    idx = (slice(None),) * d + (slice(start, stop, step),)
    return f"slice{idx}", lambda t: t[idx]


def op_squeeze(data, shape):
    if data.draw(st.booleans()):
        return "squeeze()", lambda t: t.squeeze()
    d = _dim(data, len(shape))
    return f"squeeze({d})", lambda t: t.squeeze(d)


def op_unsqueeze(data, shape):
    d = _dim(data, len(shape), extra=1)
    return f"unsqueeze({d})", lambda t: t.unsqueeze(d)


def op_expand(data, shape):
    target = [
        data.draw(st.integers(1, 3)) if s == 1 else data.draw(st.sampled_from([s, -1]))
        for s in shape
    ]
    lead = data.draw(st.lists(st.integers(1, 2), max_size=1))
    new = tuple(lead + target)
    return f"expand{new}", lambda t: t.expand(*new)


def op_select(data, shape):
    d = _dim(data, len(shape))
    i = data.draw(st.integers(-4, 4))
    return f"select({d},{i})", lambda t: t.select(d, i)


def op_narrow(data, shape):
    d = _dim(data, len(shape))
    start = data.draw(st.integers(-3, 3))
    length = data.draw(st.integers(0, 3))
    return f"narrow({d},{start},{length})", lambda t: t.narrow(d, start, length)


def op_t(data, shape):
    return "t()", lambda t: t.t()


def op_movedim(data, shape):
    a, b = _dim(data, len(shape)), _dim(data, len(shape))
    return f"movedim({a},{b})", lambda t: t.movedim(a, b)


def op_flatten(data, shape):
    a, b = _dim(data, len(shape)), _dim(data, len(shape))
    return f"flatten({a},{b})", lambda t: t.flatten(a, b)


def op_unbind_piece(data, shape):
    d = _dim(data, len(shape))
    k = data.draw(st.integers(0, 3))
    return (
        f"unbind({d})[{k}]",
        lambda t: t.unbind(d)[min(k, len(t.unbind(d)) - 1)] if len(t.unbind(d)) else t,
    )


def op_chunk_piece(data, shape):
    d = _dim(data, len(shape))
    c = data.draw(st.integers(1, 3))
    k = data.draw(st.integers(0, 2))
    return f"chunk({c},{d})[{k}]", lambda t: t.chunk(c, d)[min(k, len(t.chunk(c, d)) - 1)]


def op_split_piece(data, shape):
    d = _dim(data, len(shape))
    s = data.draw(st.integers(1, 3))
    k = data.draw(st.integers(0, 2))
    return f"split({s},{d})[{k}]", lambda t: t.split(s, d)[min(k, len(t.split(s, d)) - 1)]


def op_view_ok(data, shape):
    """A view that keeps dims but splits/merges where it can: random factorisation of numel."""
    new = random_shape_for(data, int(np.prod(shape)) if shape else 1)
    return f"view{new}", lambda t: t.view(*new)


def op_reshape(data, shape):
    new = random_shape_for(data, int(np.prod(shape)) if shape else 1)
    return f"reshape{new}", lambda t: t.reshape(*new)


OPS = [
    op_transpose,
    op_permute,
    op_slice,
    op_squeeze,
    op_unsqueeze,
    op_expand,
    op_select,
    op_narrow,
    op_t,
    op_movedim,
    op_flatten,
    op_unbind_piece,
    op_chunk_piece,
    op_split_piece,
    op_view_ok,
    op_reshape,
]


def random_shape_for(data, n: int) -> tuple[int, ...]:
    """A shape with n elements (sometimes with a -1, sometimes wrong on purpose)."""
    factors = []
    m = n
    for p in (2, 3, 5, 7):
        while m % p == 0 and m > 1:
            factors.append(p)
            m //= p
    if m > 1:
        factors.append(m)
    factors = data.draw(st.permutations(factors)) if factors else []
    k = data.draw(st.integers(1, 4))
    dims = [1] * k
    for f in factors:
        dims[data.draw(st.integers(0, k - 1))] *= f
    if n == 0:
        dims = [data.draw(st.integers(0, 2)) for _ in range(k)]
        dims[data.draw(st.integers(0, k - 1))] = 0
    if data.draw(st.integers(0, 4)) == 0 and n > 0:
        dims[data.draw(st.integers(0, k - 1))] = -1
    if data.draw(st.integers(0, 9)) == 0:
        dims[0] += 1  # wrong on purpose
    return tuple(dims)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)
dtypes = st.sampled_from(["float32", "int64", "float64", "bool", "uint8"])


def make_pair(torch, shape, dtype):
    n = int(np.prod(shape)) if shape else 1
    arr = (np.arange(n) % 7).astype(dtype).reshape(shape)
    return tl.from_numpy(arr.copy()), torch.from_numpy(arr.copy())


@settings(max_examples=400)
@given(shape=shapes, dtype=dtypes, data=st.data())
def test_view_chains_match_torch(torch, shape, dtype, data):
    ours, theirs = make_pair(torch, shape, dtype)
    base_o, base_t = ours, theirs
    steps = data.draw(st.integers(1, 5))
    for _ in range(steps):
        name, fn = data.draw(st.sampled_from(OPS))(data, tuple(theirs.shape))
        r_o, r_t = raises_same(lambda fn=fn, o=ours: fn(o), lambda fn=fn, t=theirs: fn(t))
        if r_t is None:
            return  # both raised the same error
        assert_same(r_o, r_t)
        assert shares(r_o, base_o) == shares(r_t, base_t), name
        ours, theirs = r_o, r_t

    # finish with an op that may need a copy or may fail
    n = int(np.prod(theirs.shape)) if theirs.ndim else 1
    new = random_shape_for(data, n)
    final = data.draw(st.sampled_from(["view", "reshape", "flatten", "contiguous"]))
    fns = {
        "view": lambda t: t.view(*new),
        "reshape": lambda t: t.reshape(*new),
        "flatten": lambda t: t.flatten(),
        "contiguous": lambda t: t.contiguous(),
    }
    r_o, r_t = raises_same(lambda: fns[final](ours), lambda: fns[final](theirs))
    if r_t is None:
        return
    assert_same(r_o, r_t)
    assert shares(r_o, base_o) == shares(r_t, base_t), final
    assert (r_o is ours) == (r_t is theirs), f"{final} returned self in one library only"


@settings(max_examples=150)
@given(shape=shapes, data=st.data())
def test_writes_through_views_reach_the_base(torch, shape, data):
    """Writing to a (non-overlapping) view changes the base in both libraries identically."""
    ours, theirs = make_pair(torch, shape, "int64")
    base_o, base_t = ours, theirs
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(
            st.sampled_from(
                [
                    op_transpose,
                    op_permute,
                    op_slice,
                    op_squeeze,
                    op_unsqueeze,
                    op_select,
                    op_view_ok,
                ]
            )
        )
        name, fn = op(data, tuple(theirs.shape))
        r_o, r_t = raises_same(lambda fn=fn, o=ours: fn(o), lambda fn=fn, t=theirs: fn(t))
        if r_t is None:
            break
        ours, theirs = r_o, r_t
    values = np.arange(100, 100 + ours.numel()).reshape(tuple(theirs.shape))
    ours[...] = tl.from_numpy(values.copy())
    theirs[...] = torch.from_numpy(values.copy())
    assert_same(base_o, base_t)


def test_lecture_flatten_and_contiguity(torch):
    """flatten.py / reshaping2.py: strides (5, 1) and (1, 5), view(-1) fails on the transpose."""
    for lib in (tl, torch):
        x = lib.arange(10)
        x1 = x.view(-1, 5)
        assert x1.stride() == (5, 1) and x1.is_contiguous()
        y = x1.T
        assert y.stride() == (1, 5) and not y.is_contiguous()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            y.view(-1)
        y1 = y.reshape(-1)
        assert y1.tolist() == [0, 5, 1, 6, 2, 7, 3, 8, 4, 9]
        assert not shares(y1, x)  # reshape had to copy
        y2 = y.contiguous()
        assert y2.stride() == (2, 1) and y2.view(-1).stride() == (1,)
        assert x1.reshape(-1).untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_contiguous_returns_self_and_fresh_strides(torch):
    for lib in (tl, torch):
        a = lib.zeros(2, 3)
        assert a.contiguous() is a
        assert lib.zeros(4, 1, 5).stride() == (5, 5, 1)
        assert lib.zeros(2, 0, 3).stride() == (3, 3, 1)
        assert a.t().contiguous() is not a
        assert a.t().t().is_contiguous()


def test_data_ptr_moves_with_offset_but_storage_pointer_does_not(torch):
    for lib in (tl, torch):
        x = lib.arange(12, dtype=lib.float32).view(3, 4)
        v = x[1:, 1:]
        assert v.storage_offset() == 5
        assert v.data_ptr() == x.data_ptr() + 5 * 4
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        c = x.clone()
        assert c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert x.untyped_storage().nbytes() == 48


def test_data_attribute_shares_storage(torch):
    for lib in (tl, torch):
        x = lib.arange(6.0)
        d = x.data
        d[0] = 42
        assert x[0].item() == 42
        assert d.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


@pytest.mark.parametrize(
    "expr",
    [
        "x.view(3, -1)",
        "x.view(-1, -1)",
        "x.view(-2, 5)",
        "x.view(0, -1)",
        "lib.zeros(0).view(0, -1)",
        "x.unsqueeze(3)",
        "x.squeeze(5)",
        "x.permute(0)",
        "x.permute(0, 0)",
        "x.expand(3, 5)",
        "x.expand(5)",
        "x.expand(-1, -1, 5)",
        "x.expand(2, -1, 5)",
        "x.narrow(0, 1, 5)",
        "x.narrow(1, -1, 1)",
        "x.select(0, 3)",
        "x.chunk(0)",
        "x.split(0)",
        "x.split([1, 2], 1)",
        "x.unflatten(1, (2, 3))",
        "x.flatten(1, 0)",
        "x.movedim(0, 2)",
        "lib.zeros(2, 3, 4).t()",
        "lib.zeros(2).mT",
        "lib.tensor(1.0).size(0)",
        "lib.tensor(1.0).stride(0)",
        "lib.tensor(1.0).unsqueeze(1)",
        "lib.tensor(1.0).squeeze(1)",
        "lib.tensor(1.0).chunk(2)",
        "lib.tensor(1.0).unbind()",
        "x.t().view(10)",
        "x.item()",
        "lib.tensor(0).T",
        "lib.arange(3).T",
        "bool(x)",
        "int(x)",
    ],
)
def test_errors_match_torch(torch, expr):
    def run(lib):
        x = lib.arange(10).view(2, 5)
        return eval(expr, {"lib": lib, "x": x})

    r_o, r_t = raises_same(lambda: run(tl), lambda: run(torch))
    if r_t is not None and hasattr(r_t, "shape"):
        assert_same(r_o, r_t)


def test_T_warns_when_not_2d():
    """PyTorch 2.13 warns with these texts (only once per process, so not re-checked here)."""
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        assert tl.tensor(0).T.shape == ()
    with pytest.warns(UserWarning, match="dimension other than 2 to reverse their shape"):
        assert tl.zeros(2, 3, 4).T.shape == (4, 3, 2)
