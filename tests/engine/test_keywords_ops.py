"""Keyword forms (issue 12, item 1) for the ops in tensorlab/_ops/{arithmetic,comparison,unary,
reduce,copies,scatter_gather,shape_ops}.py, derived from torch's own signatures.

Each case is one positional call. The test asks torch for the op's schemas
(``torch._C._jit_get_schemas_for_operator``), names the positional arguments with the first
overload torch accepts them under, and then checks that tensorlab accepts, and agrees with torch
on, every keyword form torch accepts:

- the function with every argument as a keyword (``input=``, ``dim=``, ...);
- the method with every argument after ``self`` as a keyword;
- the numpy spellings torch's argument parser also takes (``axis=``, ``keepdims=``, ``x=``...);
- ``out=`` for the ops whose schema has an ``out`` overload.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same

import tensorlab as tl

# numpy-compatible names torch's python argument parser accepts (python_arg_parser.cpp)
NUMPY_ALIASES = {"dim": "axis", "keepdim": "keepdims", "input": "x", "other": "x2"}


def F(lib, shape=(3, 4), seed=0):
    arr = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return lib.from_numpy(np.round(arr, 2))


def I(lib, values):  # noqa: E743
    return lib.tensor(np.asarray(values, dtype=np.int64))


def B(lib, shape=(3, 4), seed=1):
    return lib.from_numpy(np.random.default_rng(seed).random(shape) < 0.5)


# name -> positional arguments (built in either library)
CASES = {
    # arithmetic
    "add": lambda lib: (F(lib), F(lib, seed=1), {"alpha": 2}),
    "sub": lambda lib: (F(lib), F(lib, seed=1), {"alpha": 2}),
    "subtract": lambda lib: (F(lib), F(lib, seed=1), {"alpha": -1.5}),
    "mul": lambda lib: (F(lib), F(lib, seed=1)),
    "multiply": lambda lib: (F(lib), 3.0),
    "div": lambda lib: (F(lib), F(lib, seed=1)),
    "divide": lambda lib: (F(lib), 2.0),
    "true_divide": lambda lib: (F(lib), F(lib, seed=1)),
    "floor_divide": lambda lib: (F(lib), F(lib, seed=1)),
    "remainder": lambda lib: (F(lib), F(lib, seed=1)),
    "fmod": lambda lib: (F(lib), F(lib, seed=1)),
    "pow": lambda lib: (F(lib).abs(), F(lib, seed=1)),
    "atan2": lambda lib: (F(lib), F(lib, seed=1)),
    "rsub": lambda lib: (F(lib), F(lib, seed=1)),
    # comparison
    "maximum": lambda lib: (F(lib), F(lib, seed=1)),
    "minimum": lambda lib: (F(lib), F(lib, seed=1)),
    "eq": lambda lib: (F(lib), F(lib, seed=1)),
    "ne": lambda lib: (F(lib), 0.5),
    "lt": lambda lib: (F(lib), F(lib, seed=1)),
    "le": lambda lib: (F(lib), F(lib, seed=1)),
    "gt": lambda lib: (F(lib), F(lib, seed=1)),
    "ge": lambda lib: (F(lib), F(lib, seed=1)),
    "logical_and": lambda lib: (B(lib), B(lib, seed=2)),
    "logical_or": lambda lib: (B(lib), B(lib, seed=2)),
    "logical_xor": lambda lib: (B(lib), B(lib, seed=2)),
    "bitwise_and": lambda lib: (B(lib), B(lib, seed=2)),
    "clamp": lambda lib: (F(lib), -0.5, 0.5),
    "clip": lambda lib: (F(lib), -0.5, 0.5),
    "clamp_min": lambda lib: (F(lib), 0.0),
    "clamp_max": lambda lib: (F(lib), 0.0),
    "where": lambda lib: (B(lib), F(lib), F(lib, seed=1)),
    "lerp": lambda lib: (F(lib), F(lib, seed=1), 0.25),
    "isclose": lambda lib: (F(lib), F(lib, seed=1), 0.1, 0.5),
    "nonzero": lambda lib: (B(lib),),
    # unary
    "abs": lambda lib: (F(lib),),
    "neg": lambda lib: (F(lib),),
    "exp": lambda lib: (F(lib),),
    "sin": lambda lib: (F(lib),),
    "asin": lambda lib: (F(lib),),
    "erf": lambda lib: (F(lib),),
    "log1p": lambda lib: (F(lib).abs(),),
    "sigmoid": lambda lib: (F(lib),),
    "round": lambda lib: (F(lib),),
    "floor": lambda lib: (F(lib),),
    "sqrt": lambda lib: (F(lib).abs(),),
    "square": lambda lib: (F(lib),),
    "logical_not": lambda lib: (B(lib),),
    # reductions and scans
    "sum": lambda lib: (F(lib), 1, True),
    "mean": lambda lib: (F(lib), 0, True),
    "prod": lambda lib: (F(lib), 1, True),
    "amax": lambda lib: (F(lib), 1, True),
    "amin": lambda lib: (F(lib), 0, True),
    "max": lambda lib: (F(lib), 1, True),
    "min": lambda lib: (F(lib), 0, True),
    "argmax": lambda lib: (F(lib), 1, True),
    "argmin": lambda lib: (F(lib), 0, True),
    "all": lambda lib: (B(lib), 1, True),
    "any": lambda lib: (B(lib), 0, True),
    "std": lambda lib: (F(lib), 1, True, True),
    "var": lambda lib: (F(lib), 0, False, True),
    "logsumexp": lambda lib: (F(lib), 1, True),
    "cumsum": lambda lib: (F(lib), 1),
    "cumprod": lambda lib: (F(lib), 0),
    "cummax": lambda lib: (F(lib), 1),
    "cummin": lambda lib: (F(lib), 0),
    "logcumsumexp": lambda lib: (F(lib), 1),
    "norm": lambda lib: (F(lib), 2, 1, True),
    # copies and shape ops
    "flip": lambda lib: (F(lib), (0, 1)),
    "fliplr": lambda lib: (F(lib),),
    "roll": lambda lib: (F(lib), 1, 0),
    "rot90": lambda lib: (F(lib), 1, (0, 1)),
    "diag": lambda lib: (F(lib), 1),
    "diag_embed": lambda lib: (F(lib), 1, 0, 2),
    "triu": lambda lib: (F(lib), 1),
    "tril": lambda lib: (F(lib), -1),
    "diff": lambda lib: (F(lib), 1, 0),
    "cross": lambda lib: (F(lib, (4, 3)), F(lib, (4, 3), 1), 1),
    "cat": lambda lib: ((F(lib), F(lib, seed=1)), 1),
    "concat": lambda lib: ((F(lib), F(lib, seed=1)), 1),
    "stack": lambda lib: ((F(lib), F(lib, seed=1)), 1),
    "hstack": lambda lib: ((F(lib), F(lib, seed=1)),),
    "vstack": lambda lib: ((F(lib), F(lib, seed=1)),),
    "dstack": lambda lib: ((F(lib), F(lib, seed=1)),),
    "repeat_interleave": lambda lib: (F(lib), 2, 0),
    "tile": lambda lib: (F(lib), (2, 1)),
    # indexing family
    "index_select": lambda lib: (F(lib), 0, I(lib, [2, 0])),
    "masked_select": lambda lib: (F(lib), B(lib)),
    "masked_fill": lambda lib: (F(lib), B(lib), 0.5),
    "gather": lambda lib: (F(lib), 1, I(lib, [[0, 1], [2, 3], [3, 3]]), {"sparse_grad": False}),
    "scatter": lambda lib: (F(lib), 1, I(lib, [[0, 1], [2, 3], [3, 2]]), F(lib, (3, 2))),
    "scatter_add": lambda lib: (F(lib), 1, I(lib, [[0, 1], [2, 3], [3, 3]]), F(lib, (3, 2))),
    "scatter_reduce": lambda lib: (
        F(lib),
        1,
        I(lib, [[0, 1], [2, 3], [3, 3]]),
        F(lib, (3, 2)),
        "amax",
        {"include_self": False},
    ),
    "index_add_alpha": lambda lib: (F(lib), 0, I(lib, [2, 0]), F(lib, (2, 4)), {"alpha": 3}),
    "cumsum_dtype": lambda lib: (F(lib), 1, {"dtype": lib.float64}),
    "sum_dtype": lambda lib: (F(lib), (0, 1), False, {"dtype": lib.float64}),
    "div_rounding": lambda lib: (F(lib), F(lib, seed=1), {"rounding_mode": "floor"}),
    "round_decimals": lambda lib: (F(lib), {"decimals": 1}),
    "index_add": lambda lib: (F(lib), 0, I(lib, [2, 0]), F(lib, (2, 4))),
    "index_copy": lambda lib: (F(lib), 0, I(lib, [2, 0]), F(lib, (2, 4))),
    "index_fill": lambda lib: (F(lib), 1, I(lib, [2, 0]), -1.0),
    "index_put": lambda lib: (F(lib), (I(lib, [2, 0]),), F(lib, (2, 4)), True),
    "take": lambda lib: (F(lib), I(lib, [0, 5, -1])),
    "take_along_dim": lambda lib: (F(lib), I(lib, [[0], [2], [1]]), 1),
    "argwhere": lambda lib: (B(lib),),
}
for _n in "isnan isinf isfinite reciprocal sign trunc ceil exp2 expm1 tan cosh sinh atanh acos atan asinh erfc log log2 log10 rsqrt tanh negative absolute positive fix".split():
    CASES[_n] = lambda lib: (F(lib),)
for _n in "bitwise_or bitwise_xor".split():
    CASES[_n] = lambda lib: (B(lib), B(lib, seed=2))
for _n in "greater less_equal not_equal greater_equal less arctan2".split():
    CASES[_n] = lambda lib: (F(lib), F(lib, seed=1))
CASES.update(
    {
        "var_mean": lambda lib: (F(lib), 1, True, True),
        "std_mean": lambda lib: (F(lib), 0, False, True),
        "column_stack": lambda lib: ((F(lib, (3,)), F(lib, (3,), 1)),),
        "row_stack": lambda lib: ((F(lib), F(lib, seed=1)),),
        "masked_scatter": lambda lib: (F(lib), B(lib), F(lib, (12,), 2)),
        "relu": lambda lib: (F(lib),),
        "bitwise_not": lambda lib: (B(lib),),
        "allclose": lambda lib: (F(lib), F(lib, seed=1), 0.1, 0.5, True),
        "equal": lambda lib: (F(lib), F(lib, seed=1)),
        "nonzero_static": lambda lib: (B(lib),),
    }
)
del CASES["nonzero_static"]
METHOD_ONLY = {"put"}
CASES["put"] = lambda lib: (F(lib), I(lib, [0, 5]), F(lib, (2,)), True)


def _op(name: str) -> str:
    """``index_add_alpha`` -> ``index_add`` (a second case for the same op)."""
    for suffix in ("_alpha", "_dtype", "_rounding", "_decimals"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _case(lib, name):
    """(positional args, extra keyword-only args) of a case."""
    args = CASES[name](lib)
    if args and isinstance(args[-1], dict):
        return args[:-1], args[-1]
    return args, {}


def _py_name(arg: str) -> str:
    return "input" if arg == "self" else arg


def _schemas(torch, name):
    return torch._C._jit_get_schemas_for_operator("aten::" + _op(name))


def _call(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    elif isinstance(theirs, bool):
        assert ours == theirs
    else:
        assert_same(ours, theirs, layout=False, exact=False, rtol=1e-5, atol=1e-6)


def _keyword_names(torch, name):
    """Names of the case's positional arguments, from the first overload torch takes them as
    keywords under."""
    args, extra = _case(torch, name)
    fn = getattr(torch, _op(name))
    for schema in _schemas(torch, name):
        names = [a.name for a in schema.arguments]
        if "out" in names or len(names) < len(args):
            continue
        kwargs = {_py_name(n): v for n, v in zip(names, args)}
        try:
            _call(fn, **kwargs, **extra)
        except (TypeError, RuntimeError):
            continue
        return list(kwargs)
    return None


def _rebuild(lib, name, keys):
    args, extra = _case(lib, name)
    return {**dict(zip(keys, args)), **extra}


def keyword_variants(torch, name):
    """Every keyword form torch accepts for this case: (label, argument names)."""
    keys = _keyword_names(torch, name)
    assert keys is not None, f"no overload of {name} takes the case as keywords"
    fn = getattr(torch, _op(name))
    variants = [("all keywords", keys)]
    candidates = [("numpy aliases", [NUMPY_ALIASES.get(k, k) for k in keys])]
    for k in keys:  # one alias at a time, the way code is written
        if k in NUMPY_ALIASES:
            one = [NUMPY_ALIASES[k] if x == k else x for x in keys]
            candidates.append((f"{NUMPY_ALIASES[k]}=", one))
    for label, renamed in candidates:
        if renamed == keys or any(renamed == v for _, v in variants):
            continue
        try:
            _call(fn, **_rebuild(torch, name, renamed))
        except (TypeError, RuntimeError):
            continue
        variants.append((label, renamed))
    return variants


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_keywords(torch, name):
    if name in METHOD_ONLY:
        pytest.skip("method only in torch")
    for label, keys in keyword_variants(torch, name):
        theirs = _call(getattr(torch, _op(name)), **_rebuild(torch, name, keys))
        ours = _call(getattr(tl, _op(name)), **_rebuild(tl, name, keys))
        try:
            _same(ours, theirs)
        except AssertionError as e:
            raise AssertionError(f"{name}({label})") from e


STACKS = ("cat", "concat", "stack", "hstack", "vstack", "dstack")


@pytest.mark.parametrize("name", sorted(CASES))
def test_method_keywords(torch, name):
    op = _op(name)
    if not hasattr(torch.Tensor, op) or op in STACKS:
        pytest.skip("not a method")
    keys = _keyword_names(torch, name) if name not in METHOD_ONLY else None
    if keys is None:  # method only: name the arguments from the method's own schema
        args, _ = _case(torch, name)
        keys = ["input"] + [a.name for a in _schemas(torch, name)[0].arguments][1 : len(args)]
    if keys[0] != "input":
        pytest.skip("self is not the first argument")
    for label, renamed in [("keywords", keys)] + [
        (f"{NUMPY_ALIASES[k]}=", [NUMPY_ALIASES[k] if x == k else x for x in keys])
        for k in keys[1:]
        if k in NUMPY_ALIASES
    ]:
        t_kwargs = _rebuild(torch, name, renamed)
        o_kwargs = _rebuild(tl, name, renamed)
        t_self, o_self = t_kwargs.pop(renamed[0]), o_kwargs.pop(renamed[0])
        try:
            theirs = _call(getattr(t_self, op), **t_kwargs)
        except (TypeError, RuntimeError):
            continue  # torch's method does not take this spelling
        ours = _call(getattr(o_self, op), **o_kwargs)
        try:
            _same(ours, theirs)
        except AssertionError as e:
            raise AssertionError(f"Tensor.{op}({label})") from e


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_keyword(torch, name):
    if name in METHOD_ONLY:
        pytest.skip("method only in torch")
    op = _op(name)
    t_args, t_extra = _case(torch, name)
    o_args, o_extra = _case(tl, name)
    theirs = _call(getattr(torch, op), *t_args, **t_extra)
    if not isinstance(theirs, torch.Tensor):
        pytest.skip("tuple result")
    t_out = torch.empty(0, dtype=theirs.dtype)
    o_out = tl.empty(0, dtype=getattr(tl, str(theirs.dtype).split(".")[-1]))
    try:
        r_t = _call(getattr(torch, op), *t_args, **t_extra, out=t_out)
    except TypeError:  # torch's Python binding has no out= for this op: neither has tensorlab
        with pytest.raises(TypeError):
            _call(getattr(tl, op), *o_args, **o_extra, out=o_out)
        return
    r_o = _call(getattr(tl, op), *o_args, **o_extra, out=o_out)
    assert r_t is t_out and r_o is o_out
    _same(o_out, t_out)
    # an out= tensor of another shape is resized, with torch's deprecation warning
    if tuple(theirs.shape) != (7,):
        t_out, o_out = torch.ones(7, dtype=theirs.dtype), tl.ones(7, dtype=o_out.dtype)
        with pytest.warns(UserWarning, match="was resized"):
            getattr(tl, op)(*o_args, **o_extra, out=o_out)
        _call(getattr(torch, op), *t_args, **t_extra, out=t_out)
        _same(o_out, t_out)


def test_aliases_with_both_spellings_raise(torch):
    x = tl.ones(2, 3)
    with pytest.raises(TypeError):
        tl.sum(x, dim=0, axis=1)
    with pytest.raises(TypeError):
        torch.sum(torch.ones(2, 3), dim=0, axis=1)


def test_flip_and_tile_dims_keyword(torch):
    for lib in (tl, torch):
        x = lib.arange(6).reshape(2, 3)
        assert lib.flip(x, dims=(0, 1)).tolist() == [[5, 4, 3], [2, 1, 0]]
        assert x.flip(dims=[1]).tolist() == [[2, 1, 0], [5, 4, 3]]
        assert lib.flip(input=x, dims=(0,)).tolist() == [[3, 4, 5], [0, 1, 2]]
        assert x.tile(dims=(1, 2)).shape == (2, 6)


INPLACE = sorted(
    n
    for n in CASES
    if _op(n) not in STACKS and n not in ("max", "min", "argmax", "argmin", "all", "any")
)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_method_keywords(torch, name):
    """``Tensor.<op>_`` takes the same keywords as the out-of-place method (on a fresh copy)."""
    op = _op(name) + "_"
    if not hasattr(torch.Tensor, op):
        pytest.skip("no in-place method in torch")
    schemas = torch._C._jit_get_schemas_for_operator("aten::" + op)
    args, extra = _case(torch, name)
    names = next(
        ([a.name for a in s.arguments] for s in schemas if len(s.arguments) >= len(args)), None
    )
    if names is None:
        pytest.skip("no matching in-place overload")
    keys = ["self"] + names[1 : len(args)]
    t_args, t_extra = _case(torch, name)
    o_args, o_extra = _case(tl, name)
    t_self, o_self = t_args[0].clone(), o_args[0].clone()
    t_kwargs = {**dict(zip(keys[1:], t_args[1:])), **t_extra}
    o_kwargs = {**dict(zip(keys[1:], o_args[1:])), **o_extra}
    try:
        r_t = _call(getattr(t_self, op), **t_kwargs)
    except (TypeError, RuntimeError):
        pytest.skip("torch's in-place method does not take this case")
    r_o = _call(getattr(o_self, op), **o_kwargs)
    assert r_t is t_self and r_o is o_self
    _same(o_self, t_self)


@pytest.mark.parametrize("name", ["sum", "cat", "gather", "cumprod", "logsumexp", "index_select"])
def test_out_with_requires_grad_raises(torch, name):
    from helpers import raises_same

    def go(lib):
        args, extra = _case(lib, name)
        args = list(args)
        if isinstance(args[0], tuple):
            args[0] = tuple(a.requires_grad_() for a in args[0])
        else:
            args[0] = args[0].requires_grad_()
        return lambda: getattr(lib, _op(name))(*args, **extra, out=lib.empty(0))

    raises_same(go(tl), go(torch))
