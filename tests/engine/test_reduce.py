"""Reductions against real PyTorch: dtypes, shapes (dim None/int/tuple, keepdim, 0-dim and empty
inputs), values (exact for integers, bools, max/min/arg*, cumsum; close for float sums), indices,
``return_types`` and error messages."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from test_math import DTYPES, TensorSpec, base_array, build, shapes, tensor_specs

import tensorlab as tl


@st.composite
def reduce_case(draw, max_dims=3):
    """A tensor spec and a ``dim`` argument: None, an int, or a tuple/list (maybe invalid)."""
    shape = draw(shapes(max_dims))
    spec = draw(tensor_specs(shape))
    n = len(shape)
    ints = st.integers(-n - 1, n) if n else st.integers(-2, 1)
    dim = draw(
        st.none()
        | ints
        | st.lists(ints, max_size=n + 1).map(tuple)
        | st.lists(ints, max_size=n).map(list)
    )
    return spec, dim, draw(st.booleans())


def _tolerance(spec: TensorSpec):
    """(rtol, atol) for float sums: the order of additions differs from PyTorch's."""
    vals = base_array(spec).astype(np.float64)
    finite = np.abs(vals[np.isfinite(vals)])
    scale = float(finite.sum()) + 1.0
    rtol = {"float16": 2e-3, "float32": 2e-6}.get(spec.dtype, 1e-12)
    return rtol, rtol * scale * 4


def check(fn, spec, *, exact=True):
    import torch

    ours, theirs = raises_same(
        lambda: fn(tl, build(tl, spec)[0]), lambda: fn(torch, build(torch, spec)[0])
    )
    if theirs is None:
        return
    rtol, atol = _tolerance(spec)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        assert type(ours).__name__ == type(theirs).__name__
        pairs = list(zip(ours, theirs))
    else:
        pairs = [(ours, theirs)]
    for o, t in pairs:
        assert_same(o, t, exact=exact, rtol=rtol, atol=atol)


SUMS = {
    "sum": lambda lib, x, d, k: x.sum(d, k) if d is not None else lib.sum(x),
    "sum_kw": lambda lib, x, d, k: lib.sum(x, dim=d, keepdim=k),
    "mean": lambda lib, x, d, k: lib.mean(x, d, k) if d is not None else x.mean(),
    "mean_dtype": lambda lib, x, d, k: x.mean(dim=d, keepdim=k, dtype=lib.float64),
    "sum_dtype": lambda lib, x, d, k: x.sum(dim=d, keepdim=k, dtype=lib.int32),
    "nansafe_var": lambda lib, x, d, k: lib.var(x, d, keepdim=k),
    "std": lambda lib, x, d, k: x.std(dim=d, keepdim=k),
    "std_unbiased_false": lambda lib, x, d, k: (
        x.std(d, False, k) if d is not None else x.std(False)
    ),
    "var_correction0": lambda lib, x, d, k: x.var(dim=d, correction=0, keepdim=k),
    "var_correction2": lambda lib, x, d, k: lib.var(x, dim=d, correction=2, keepdim=k),
    "norm": lambda lib, x, d, k: x.norm(dim=d, keepdim=k),
    "norm1": lambda lib, x, d, k: lib.norm(x, 1, d, k),
    "norm_inf": lambda lib, x, d, k: x.norm(p=float("inf"), dim=d, keepdim=k),
    "norm0": lambda lib, x, d, k: x.norm(p=0, dim=d, keepdim=k),
    "norm3": lambda lib, x, d, k: x.norm(p=3, dim=d, keepdim=k),
}

EXACT = {
    "amax": lambda lib, x, d, k: x.amax(d, k) if d is not None else lib.amax(x),
    "amin": lambda lib, x, d, k: lib.amin(x, dim=d if d is not None else (), keepdim=k),
    "all": lambda lib, x, d, k: x.all(d, k) if d is not None else lib.all(x),
    "any": lambda lib, x, d, k: lib.any(x, dim=d, keepdim=k),
    "int_sum": lambda lib, x, d, k: x.to(lib.int64).sum(dim=d, keepdim=k),
}


# var/std reproduce PyTorch's accumulation order (Welford in double, or the single-output
# two-pass kernel), so they must agree exactly
EXACT_VAR = {"nansafe_var", "std", "std_unbiased_false", "var_correction0", "var_correction2"}


@pytest.mark.parametrize("name", sorted(SUMS))
@settings(max_examples=50)
@given(case=reduce_case())
def test_float_reductions(torch, name, case):
    spec, dim, keepdim = case
    check(lambda lib, x: SUMS[name](lib, x, dim, keepdim), spec, exact=name in EXACT_VAR)


@pytest.mark.parametrize("name", sorted(EXACT))
@settings(max_examples=50)
@given(case=reduce_case())
def test_exact_reductions(torch, name, case):
    spec, dim, keepdim = case
    check(lambda lib, x: EXACT[name](lib, x, dim, keepdim), spec)


@st.composite
def one_dim_case(draw):
    shape = draw(shapes())
    spec = draw(tensor_specs(shape))
    n = len(shape)
    dim = draw(st.none() | (st.integers(-n - 1, n) if n else st.integers(-2, 1)))
    return spec, dim, draw(st.booleans())


ONE_DIM = {
    "max": lambda lib, x, d, k: x.max(d, k) if d is not None else x.max(),
    "min": lambda lib, x, d, k: lib.min(x, d, keepdim=k) if d is not None else lib.min(x),
    "argmax": lambda lib, x, d, k: x.argmax(d, k),
    "argmin": lambda lib, x, d, k: lib.argmin(x, dim=d, keepdim=k),
    "prod": lambda lib, x, d, k: x.prod(d, k) if d is not None else lib.prod(x),
    "cumsum": lambda lib, x, d, k: x.cumsum(d if d is not None else 0),
    "cumsum_fn": lambda lib, x, d, k: lib.cumsum(x, dim=d if d is not None else -1),
}


@pytest.mark.parametrize("name", sorted(ONE_DIM))
@settings(max_examples=60)
@given(case=one_dim_case())
def test_one_dim_reductions(torch, name, case):
    spec, dim, keepdim = case
    check(lambda lib, x: ONE_DIM[name](lib, x, dim, keepdim), spec, exact=name != "prod")


@settings(max_examples=40)
@given(spec=tensor_specs((3, 4), dtype=st.sampled_from(DTYPES)), dt=st.sampled_from(DTYPES))
def test_reduction_dtype_argument(torch, spec, dt):
    for fn in (
        lambda lib, x: x.sum(dtype=getattr(lib, dt)),
        lambda lib, x: x.sum(1, dtype=getattr(lib, dt)),
        lambda lib, x: x.mean(0, dtype=getattr(lib, dt)),
        lambda lib, x: x.prod(1, dtype=getattr(lib, dt)),
        lambda lib, x: x.cumsum(1, dtype=getattr(lib, dt)),
    ):
        check(fn, spec, exact=False)


def test_return_types(torch):
    for fname in ("max", "min"):
        x_t = tl.tensor([[1, 5, 2], [7, 0, 7]])
        x_r = torch.tensor([[1, 5, 2], [7, 0, 7]])
        ours, theirs = getattr(x_t, fname)(1), getattr(x_r, fname)(1)
        values, indices = ours
        assert isinstance(ours, tuple) and len(ours) == 2
        assert values is ours.values and indices is ours.indices and ours[0] is ours.values
        assert_same(ours.values, theirs.values)
        assert_same(ours.indices, theirs.indices)
        assert type(ours).__name__ == fname
        assert isinstance(ours, getattr(tl.return_types, fname))
        assert repr(ours) == repr(theirs).replace("torch.", "tensorlab.")


def test_binary_max_min(torch):
    for lib in (tl, torch):
        a = lib.tensor([1.0, 5.0, float("nan")])
        b = lib.tensor([2.0, 3.0, 1.0])
        assert lib.max(a, b)[:2].tolist() == [2.0, 5.0]
        assert lib.min(a, other=b)[:2].tolist() == [1.0, 3.0]
    raises_same(lambda: tl.ones(2, 3).max(tl.ones(2)), lambda: torch.ones(2, 3).max(torch.ones(2)))


def _lapack(case):
    """Mark a case whose value comes from LAPACK (an SVD): its last bits depend on the CPU and on
    MKL's code path (2.0 on one machine, 2.000000238 on another), so it is compared to 1 ulp-ish."""
    case.lapack = True
    return case


FIXED = [
    lambda lib: lib.tensor([1, 2]).mean(),
    lambda lib: lib.tensor([True]).mean(),
    lambda lib: lib.tensor([1.5, 2.5]).mean(dtype=lib.int64),
    lambda lib: lib.zeros(0).max(),
    lambda lib: lib.zeros(0, 3).max(0),
    lambda lib: lib.zeros(0, 3).max(1),
    lambda lib: lib.zeros(0).argmax(),
    lambda lib: lib.zeros(0, 3).argmin(0),
    lambda lib: lib.zeros(0, 3).amax(),
    lambda lib: lib.zeros(0, 3).amax(0),
    lambda lib: lib.zeros(0, 3).amin(1),
    lambda lib: lib.tensor([True, False]).argmax(),
    lambda lib: lib.ones(2, 3).max(1, 2),
    lambda lib: lib.ones(2, 3).argmax(dim=(0, 1)),
    lambda lib: lib.ones(2, 3).sum((0, 0)),
    lambda lib: lib.ones(2, 3).sum(1.5),
    lambda lib: lib.ones(2, 3).prod((0,)),
    lambda lib: lib.ones(2, 3).prod(keepdim=True),
    lambda lib: lib.ones(2, 3).all(()),
    lambda lib: lib.ones(2, 3).any([]),
    lambda lib: lib.ones(2, 3).sum([]),
    lambda lib: lib.ones(2, 3).amax([]),
    lambda lib: lib.ones(2, 3).std(()),
    lambda lib: lib.ones(2, 3).std(True),
    lambda lib: lib.ones(2, 3).var(correction=6),
    lambda lib: lib.ones(2, 3).var(correction=7),
    lambda lib: lib.tensor([1, 2]).std(),
    lambda lib: lib.tensor([1, 2]).norm(),
    lambda lib: lib.ones(2, 3).norm(p="fro", dim=(0, 1)),
    lambda lib: lib.ones(2, 3, 4).norm(p="fro", dim=(0, 1, 2)),
    lambda lib: lib.zeros(2, 0).norm(p=float("inf"), dim=1),
    lambda lib: lib.zeros(2, 0).norm(p=float("inf")),
    lambda lib: lib.zeros(2, 0).norm(p=float("-inf"), dim=0),
    lambda lib: lib.tensor([1.0, 2], dtype=lib.float16).norm(),
    lambda lib: lib.tensor([60000.0, 60000.0], dtype=lib.float16).mean(),
    lambda lib: lib.tensor([60000.0, 60000.0], dtype=lib.float16).sum(),
    lambda lib: lib.tensor([200, 100], dtype=lib.uint8).sum(dtype=lib.uint8),
    lambda lib: lib.tensor([1, 0], dtype=lib.uint8).all(),
    lambda lib: lib.tensor([1, 0], dtype=lib.uint8).any(0, keepdim=True),
    lambda lib: lib.ones(2, 3).cumsum(),
    lambda lib: lib.ones(2, 3).cumsum(1.5),
    lambda lib: lib.ones(2, 3).cumsum(2),
    lambda lib: lib.tensor(3.0).cumsum(0),
    lambda lib: lib.tensor(3.0).std(0),
    lambda lib: lib.tensor(3.0).max(-1),
    lambda lib: lib.tensor(3.0).argmax(0),
    lambda lib: lib.tensor(3.0).sum(1),
    lambda lib: lib.arange(24.0).view(2, 3, 4).argmax(keepdim=True),
    lambda lib: lib.arange(24.0).view(2, 3, 4).sum(dim=None, keepdim=True),
    lambda lib: lib.arange(24.0).view(2, 3, 4).std_mean(1),
    lambda lib: lib.var_mean(lib.arange(24.0).view(2, 3, 4), (0, 2), keepdim=True),
    lambda lib: lib.sum("a"),
    _lapack(lambda lib: lib.ones(2, 3).norm(p="nuc")),
    _lapack(lambda lib: lib.ones(2, 3).norm(p="nuc", keepdim=True)),
    _lapack(lambda lib: lib.ones(2, 3, 2).norm(p="nuc", dim=(0, 2))),
    lambda lib: lib.ones(3).norm(p="nuc"),
    lambda lib: lib.ones(2, 3).norm(p="abc"),
    lambda lib: lib.ones(2, 3).norm(p="nuc", dim=(1, -1)),
    lambda lib: lib.zeros(0).norm(p=-1),
]

# PyTorch's "invalid combination of arguments" messages list every overload with reasons that
# depend on its argument parser; we match the exception type and the message's start.
INVALID_COMBINATION = [
    lambda lib: lib.ones(2, 3).max([1]),
    lambda lib: lib.ones(2, 3).max(keepdim=True),
    lambda lib: lib.ones(2, 3).max(dim=1.5),
    lambda lib: lib.ones(2, 3).all(1.5),
    lambda lib: lib.ones(2, 3).var(1, 1),
    lambda lib: lib.ones(2, 3).std(unbiased=False, correction=1),
]


@pytest.mark.parametrize("i", range(len(INVALID_COMBINATION)))
def test_invalid_combinations(torch, i):
    errors = []
    for lib in (tl, torch):
        with pytest.raises(TypeError) as info:
            INVALID_COMBINATION[i](lib)
        errors.append(str(info.value).split(" - got")[0])
    assert errors[0] == errors[1]


@pytest.mark.parametrize("i", range(len(FIXED)))
def test_fixed_cases(torch, i):
    import torch as T

    ours, theirs = raises_same(lambda: FIXED[i](tl), lambda: FIXED[i](T))
    if isinstance(theirs, T.Tensor):
        if getattr(FIXED[i], "lapack", False):
            assert_same(ours, theirs, exact=False, rtol=4e-7, atol=0)
        else:
            assert_same(ours, theirs)
    elif isinstance(theirs, tuple):
        for o, t in zip(ours, theirs):
            assert_same(o, t, exact=False, rtol=1e-6, atol=1e-6)


def test_reductions_on_views_do_not_touch_the_base(torch):
    for lib in (tl, torch):
        base = lib.arange(12.0).view(3, 4)
        view = base.t()[1:]
        s = view.sum(0)
        s += 1
        assert base.tolist() == lib.arange(12.0).view(3, 4).tolist()


_EMPTY_CASES = [((0,), -1), ((0,), 0), ((2, 0), -1), ((3, 0), (0, -1)), ((0, 3), (-1, -2))]


@pytest.mark.parametrize(
    "name, shape, dim",
    [
        (name, shape, dim)
        for name in ("amax", "amin", "max", "min", "argmax", "argmin")
        for shape, dim in _EMPTY_CASES
        if isinstance(dim, int) or name in ("amax", "amin")  # only amax/amin take several dims
    ],
)
def test_empty_reduction_dim_named_as_torch_names_it(torch, name, shape, dim):
    """amax/amin name the dim as written (-1), max/min/argmax the wrapped one (0)."""
    raises_same(
        lambda: getattr(tl, name)(tl.zeros(*shape), dim=dim),
        lambda: getattr(torch, name)(torch.zeros(*shape), dim=dim),
    )
