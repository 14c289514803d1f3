"""Pooling against torch 2.13: max/avg 1d/2d with every option, adaptive pools, unpooling.

Values, dtypes, shapes, strides, indices, grad_fn names, gradients and the errors of bad
arguments (type and message) are compared over hypothesis-drawn shapes, options and layouts
(contiguous, transposed, sliced, channels last, expanded)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_strategies import layouts, make_pair, seeds

import tensorlab as tl
import tensorlab.nn.functional as F


def _grad_fn(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def _compare(ours, theirs, *, exact=True):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _compare(a, b, exact=exact)
        return
    assert_same(ours, theirs, exact=exact, rtol=1e-5, atol=1e-6)
    assert _grad_fn(ours) == _grad_fn(theirs)


def _backward_same(torch, a, b, out_a, out_b, *, rtol=1e-5, atol=1e-6):
    """Backpropagate the same random output gradient and compare the input gradients."""
    if isinstance(out_a, tuple):
        out_a, out_b = out_a[0], out_b[0]
    if not out_b.requires_grad:
        return
    g = np.random.default_rng(1).standard_normal(tuple(out_b.shape)).astype(np.float32)
    out_a.backward(tl.from_numpy(g.astype(out_a.dtype.np)))
    out_b.backward(torch.from_numpy(g).to(out_b.dtype))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


def _both(torch, fname, a, b, *args, **kwargs):
    return raises_same(
        lambda: getattr(F, fname)(a, *args, **kwargs),
        lambda: getattr(torch.nn.functional, fname)(b, *args, **kwargs),
    )


# ---------------------------------------------------------------------------- max pooling

pool_shapes = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 9), st.integers(1, 9))
max_pool_args = dict(  # shape, kernel, stride, padding, dilation, ceil_mode
    shape=pool_shapes,
    k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    s=st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))),
    p=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    d=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    ceil=st.booleans(),
)


@settings(max_examples=60)
@given(
    **max_pool_args,
    unbatched=st.booleans(),
    layout=layouts,
    seed=seeds,
)
def test_max_pool2d_matches_torch(torch, shape, k, s, p, d, ceil, unbatched, layout, seed):
    a, b = make_pair(torch, shape[1:] if unbatched else shape, layout, seed)
    ours, theirs = _both(torch, "max_pool2d", a, b, k, s, p, d, ceil_mode=ceil, return_indices=True)
    if theirs is None:
        return  # both raised the same error
    _compare(ours, theirs)
    _backward_same(torch, a, b, ours, theirs)


@settings(max_examples=30)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 12)),
    k=st.integers(1, 4),
    s=st.one_of(st.none(), st.integers(1, 3)),
    p=st.integers(0, 2),
    d=st.integers(1, 2),
    ceil=st.booleans(),
    layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
    seed=seeds,
)
def test_max_pool1d_matches_torch(torch, shape, k, s, p, d, ceil, layout, seed):
    a, b = make_pair(torch, shape, layout, seed)
    ours, theirs = _both(torch, "max_pool1d", a, b, k, s, p, d, ceil, True)
    if theirs is None:
        return
    _compare(ours, theirs)
    _backward_same(torch, a, b, ours, theirs)


def test_max_pool_ties_nan_and_padding_indices(torch):
    x = np.array(
        [[[[1.0, 1.0, 0.0], [1.0, np.nan, 2.0], [-np.inf, -np.inf, np.nan]]]], dtype=np.float32
    )
    for args in [(2, 1), (2, 1, 1), (3, 1, 1), (2, 2, 1, 1, True)]:
        _compare(
            F.max_pool2d(tl.from_numpy(x), *args, return_indices=True),
            torch.nn.functional.max_pool2d(torch.from_numpy(x), *args, return_indices=True),
        )
    ninf = np.full((1, 1, 3, 3), -np.inf, dtype=np.float32)
    _compare(
        F.max_pool2d(tl.from_numpy(ninf), 3, 1, 1, return_indices=True),
        torch.nn.functional.max_pool2d(torch.from_numpy(ninf), 3, 1, 1, return_indices=True),
    )


@settings(max_examples=60)
@given(
    **max_pool_args,
    dtype=st.sampled_from(["float32", "float64", "float16"]),
    seed=seeds,
)
def test_max_pool2d_ties_and_infinities_match_torch(torch, shape, k, s, p, d, ceil, dtype, seed):
    """No NaN (the branch-free kernel): few distinct values, so windows tie, and -inf/inf;
    torch's index is the first maximum in row-major order; gradients go there."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-2, 3, size=shape).astype(dtype)
    x[rng.random(shape) < 0.15] = -np.inf
    x[rng.random(shape) < 0.05] = np.inf
    a = tl.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ours, theirs = _both(torch, "max_pool2d", a, b, k, s, p, d, ceil_mode=ceil, return_indices=True)
    if theirs is None:
        return
    _compare(ours, theirs)
    _backward_same(torch, a, b, ours, theirs)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float64"])
def test_max_pool2d_dtypes(torch, dtype):
    a, b = make_pair(torch, (2, 3, 6, 5), "contiguous", 0, dtype=dtype, requires_grad=False)
    _compare(
        F.max_pool2d(a, 2, return_indices=True),
        torch.nn.functional.max_pool2d(b, 2, return_indices=True),
    )


@pytest.mark.parametrize(
    "call",
    [
        "max_pool2d(x, 0)",
        "max_pool2d(x, 2.5)",
        "max_pool2d(x, (2, 2.0))",
        "max_pool2d(x, True)",
        "max_pool2d(x, 2.5, return_indices=True)",
        "max_pool2d(x, 2, 1.5)",
        "max_pool2d(x, 2, padding=0.5)",
        "max_pool2d(x, 2, dilation=1.0)",
        "max_pool2d(x, 2, None, (0, 1.5))",
        "max_pool1d(x[0], 2.5)",
        "max_pool1d(x[0], 2.5, return_indices=True)",
        "avg_pool2d(x, 2.5)",
        "avg_pool1d(x[0], 2.5)",
        "max_pool2d(x, -1)",
        "max_pool2d(x, (2, 2, 2))",
        "max_pool2d(x, 2, (2, 2, 2))",
        "max_pool2d(x, 2, 2, (0, 0, 0))",
        "max_pool2d(x, 2, 2, 0, (1, 1, 1))",
        "max_pool2d(x, 2, -1)",
        "max_pool2d(x, 2, 2, -1)",
        "max_pool2d(x, 2, 2, 0, -1)",
        "max_pool2d(x, 2, 2, 0, 0)",
        "max_pool2d(x, 3, 1, 2)",
        "max_pool2d(x, 3, 1, 2, 2)",
        "max_pool2d(x[None], 2)",
        "max_pool2d(x[0, 0], 2)",
        "max_pool2d(x[:, :0], 2)",
        "max_pool2d(x[:, :, :0], 2)",
        "max_pool2d(x[:0], 2)",
        "max_pool2d(x, 9)",
        "max_pool2d(x > 0, 2)",
        "max_pool1d(x[0], 0)",
        "max_pool1d(x[0], 2, 0)",
        "max_pool1d(x[0], 2, 1, 0, 0)",
        "max_pool1d(x[0], 2, 1, -1)",
        "max_pool1d(x, 2)",
        "max_pool1d(x[0, 0, 0], 2)",
        "max_pool1d(x[0], 9)",
        "max_pool1d(x[0], (2, 2))",
        "max_pool1d(x[0], 2, padding=2)",
        "avg_pool2d(x, 0)",
        "avg_pool2d(x, 2, 0)",
        "avg_pool2d(x, 2, -1)",
        "avg_pool2d(x, 2, 2, -1)",
        "avg_pool2d(x, 3, 1, 2)",
        "avg_pool2d(x[0, 0], 2)",
        "avg_pool2d(x[None], 2)",
        "avg_pool2d(x, (2, 2, 2))",
        "avg_pool2d(x, 9)",
        "avg_pool2d(x > 0, 2)",
        "avg_pool2d(x[:0], 2)",
        "avg_pool2d(x, 2, divisor_override=0)",
        "avg_pool1d(x[0], 0)",
        "avg_pool1d(x, 2)",
        "avg_pool1d(x[0, 0, 0], 2)",
        "avg_pool1d(x[0], 2, 1, 2)",
        "avg_pool1d(x[0], 9)",
        "adaptive_avg_pool2d(x[None], 2)",
        "adaptive_avg_pool2d(x, -1)",
        "adaptive_avg_pool2d(x, (None, 3))",
        "adaptive_avg_pool2d(x, (1, 2, 3))",
        "adaptive_avg_pool2d(x[:, :, :0], 2)",
        "adaptive_avg_pool2d(x[0, 0], 2)",
        "adaptive_avg_pool2d(x.long(), 2)",
        "adaptive_max_pool2d(x[None], 2)",
        "adaptive_max_pool2d(x[0, 0], 2)",
        "adaptive_max_pool2d(x, 0)",
        "adaptive_max_pool2d(x.long(), 2)",
    ],
)
def test_pooling_errors_match_torch(torch, call):
    x_np = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    raises_same(
        lambda: eval(call, {"x": tl.from_numpy(x_np.copy())}, vars(F)),
        lambda: eval(call, {"x": torch.from_numpy(x_np.copy())}, vars(torch.nn.functional)),
    )


# ---------------------------------------------------------------------------- average pooling


@settings(max_examples=60)
@given(
    shape=pool_shapes,
    k=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    s=st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))),
    p=st.tuples(st.integers(0, 2), st.integers(0, 2)),
    ceil=st.booleans(),
    include_pad=st.booleans(),
    divisor=st.one_of(st.none(), st.integers(1, 5)),
    unbatched=st.booleans(),
    layout=layouts,
    seed=seeds,
)
def test_avg_pool2d_matches_torch(
    torch, shape, k, s, p, ceil, include_pad, divisor, unbatched, layout, seed
):
    a, b = make_pair(torch, shape[1:] if unbatched else shape, layout, seed)
    ours, theirs = _both(torch, "avg_pool2d", a, b, k, s, p, ceil, include_pad, divisor)
    if theirs is None:
        return
    _compare(ours, theirs, exact=False)
    _backward_same(torch, a, b, ours, theirs)


@settings(max_examples=30)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 12)),
    k=st.integers(1, 4),
    s=st.one_of(st.none(), st.integers(1, 3)),
    p=st.integers(0, 2),
    ceil=st.booleans(),
    include_pad=st.booleans(),
    seed=seeds,
)
def test_avg_pool1d_matches_torch(torch, shape, k, s, p, ceil, include_pad, seed):
    a, b = make_pair(torch, shape, "sliced", seed)
    ours, theirs = _both(torch, "avg_pool1d", a, b, k, s, p, ceil, include_pad)
    if theirs is None:
        return
    _compare(ours, theirs, exact=False)
    _backward_same(torch, a, b, ours, theirs)


def test_avg_pool2d_integer_input_truncates_like_torch(torch):
    a, b = make_pair(torch, (2, 2, 5, 5), "contiguous", 3, dtype="int64", requires_grad=False)
    _compare(F.avg_pool2d(a, 3, 2, 1), torch.nn.functional.avg_pool2d(b, 3, 2, 1))


# ---------------------------------------------------------------------------- adaptive pooling


@settings(max_examples=50)
@given(
    shape=pool_shapes,
    out=st.one_of(
        st.integers(1, 5),
        st.tuples(st.integers(1, 5), st.one_of(st.none(), st.integers(1, 5))),
    ),
    unbatched=st.booleans(),
    layout=layouts,
    seed=seeds,
)
def test_adaptive_pools_match_torch(torch, shape, out, unbatched, layout, seed):
    a, b = make_pair(torch, shape[1:] if unbatched else shape, layout, seed)
    ours, theirs = _both(torch, "adaptive_avg_pool2d", a, b, out)
    if theirs is not None:
        _compare(ours, theirs, exact=False)
        _backward_same(torch, a, b, ours, theirs)
    a, b = make_pair(torch, shape[1:] if unbatched else shape, layout, seed)
    ours, theirs = _both(torch, "adaptive_max_pool2d", a, b, out, True)
    if theirs is not None:
        _compare(ours, theirs)
        _backward_same(torch, a, b, ours, theirs)


# ---------------------------------------------------------------------------- unpooling


@settings(max_examples=30)
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(2, 9), st.integers(2, 9)),
    k=st.integers(1, 3),
    s=st.one_of(st.none(), st.integers(1, 3)),
    grow=st.booleans(),
    seed=seeds,
)
def test_max_unpool2d_inverts_max_pool2d_like_torch(torch, shape, k, s, grow, seed):
    a, b = make_pair(torch, shape, "contiguous", seed)
    pa = F.max_pool2d(a, k, s, return_indices=True)
    pb = torch.nn.functional.max_pool2d(b, k, s, return_indices=True)
    size = None
    if grow:
        stride = s or k
        size = [(pb[0].shape[-2] - 1) * stride + k + stride - 1, None]
        size[1] = (pb[0].shape[-1] - 1) * stride + k
    ours, theirs = raises_same(
        lambda: F.max_unpool2d(pa[0], pa[1], k, s, output_size=size),
        lambda: torch.nn.functional.max_unpool2d(pb[0], pb[1], k, s, output_size=size),
    )
    if theirs is None:
        return
    _compare(ours, theirs)
    _backward_same(torch, a, b, ours, theirs)


@pytest.mark.parametrize(
    "call",
    [
        "max_unpool2d(x, i, 2, output_size=(20, 20))",
        "max_unpool2d(x, i.float(), 2)",
        "max_unpool2d(x, i + 64, 2)",
        "max_unpool2d(x, i[..., :3], 2)",
        "max_unpool2d(x, i, 2, output_size=(1, 2, 3))",
    ],
)
def test_max_unpool2d_errors_match_torch(torch, call):
    x_np = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    i_np = np.zeros((2, 3, 4, 4), dtype=np.int64)
    raises_same(
        lambda: eval(call, {"x": tl.from_numpy(x_np), "i": tl.from_numpy(i_np)}, vars(F)),
        lambda: eval(
            call,
            {"x": torch.from_numpy(x_np), "i": torch.from_numpy(i_np)},
            vars(torch.nn.functional),
        ),
    )


# ---------------------------------------------------------------------------- modules


def test_pooling_modules_match_torch(torch):
    a, b = make_pair(torch, (2, 3, 9, 8), "contiguous", 0)
    for name, args, kwargs in [
        ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True)),
        ("MaxPool2d", (2,), dict(return_indices=True)),
        ("AvgPool2d", ((3, 2),), dict(stride=1, padding=(1, 0), count_include_pad=False)),
        ("AdaptiveAvgPool2d", ((4, 3),), {}),
        ("AdaptiveMaxPool2d", (2,), dict(return_indices=True)),
    ]:
        m_ours = getattr(tl.nn, name)(*args, **kwargs)
        m_theirs = getattr(torch.nn, name)(*args, **kwargs)
        assert repr(m_ours) == repr(m_theirs)
        _compare(m_ours(a), m_theirs(b), exact=name != "AvgPool2d" and "Avg" not in name)
    for name, args in [("MaxPool1d", (3, 2, 1)), ("AvgPool1d", (3, 2, 1))]:
        m_ours, m_theirs = getattr(tl.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m_ours) == repr(m_theirs)
        _compare(m_ours(a[0]), m_theirs(b[0]), exact=False)
    unpool_ours, unpool_theirs = tl.nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(unpool_ours) == repr(unpool_theirs)
    _compare(
        unpool_ours(*F.max_pool2d(a, 2, return_indices=True)),
        unpool_theirs(*torch.nn.functional.max_pool2d(b, 2, return_indices=True)),
    )


@settings(max_examples=30)
@given(
    shape=st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 10)),
    out=st.integers(1, 6),
    unbatched=st.booleans(),
    layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
    seed=seeds,
)
def test_adaptive_pools_1d_match_torch(torch, shape, out, unbatched, layout, seed):
    shape = shape[1:] if unbatched else shape
    a, b = make_pair(torch, shape, layout, seed)
    ours, theirs = _both(torch, "adaptive_avg_pool1d", a, b, out)
    _compare(ours, theirs, exact=False)
    _backward_same(torch, a, b, ours, theirs)
    a, b = make_pair(torch, shape, layout, seed)
    ours, theirs = _both(torch, "adaptive_max_pool1d", a, b, out, True)
    _compare(ours, theirs)
    _backward_same(torch, a, b, ours, theirs)
    for name in ("AdaptiveAvgPool1d", "AdaptiveMaxPool1d"):
        assert repr(getattr(tl.nn, name)(out)) == repr(getattr(torch.nn, name)(out))


@pytest.mark.parametrize(
    "call",
    [
        "adaptive_avg_pool1d(x[0, 0, 0], 3)",
        "adaptive_max_pool1d(x[0, 0, 0], 3)",
        "adaptive_avg_pool1d(x[0], (2, 2))",
        "adaptive_max_pool1d(x, 2)",
    ],
)
def test_adaptive_pool_1d_errors_match_torch(torch, call):
    x_np = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    raises_same(
        lambda: eval(call, {"x": tl.from_numpy(x_np.copy())}, vars(F)),
        lambda: eval(call, {"x": torch.from_numpy(x_np.copy())}, vars(torch.nn.functional)),
    )
