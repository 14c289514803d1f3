"""The keyword forms PyTorch's Python argument parser accepts, given to the ops of
:mod:`.arithmetic`, :mod:`.comparison`, :mod:`.unary`, :mod:`.reduce`, :mod:`.copies`,
:mod:`.scatter_gather` and :mod:`.shape_ops` in one place (imported last by :mod:`tensorlab._ops`).

- numpy spellings (``python_arg_parser.cpp``'s ``numpy_compatibility_arg_names``): ``axis`` for
  ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for ``input``, ``x2`` for ``other``;
- ``dims=`` for the ops whose dims are also accepted as varargs (``flip``, ``tile``);
- ``out=`` for the functions whose Python binding has an ``out`` overload (:data:`OUT`): the
  result is checked against ``out`` (dtype cast, shape; resized with PyTorch's warning) and
  written into it, and ``out`` is returned.

Functions that already take ``out=`` themselves (the elementwise ones) keep their own handling.
"""

from __future__ import annotations

import functools
import inspect

from .._tensor import MODULE_FUNCTIONS, Tensor
from ..autograd.grad_mode import STATE
from ..autograd.graph import any_requires_grad
from ._elementwise import store_out

ALIASES = {"axis": "dim", "keepdims": "keepdim", "x2": "other"}
INPUT_ALIASES = ("x", "a", "x1")

# functions whose Python binding takes out= (asked of torch 2.13.0: the schemas with an out
# overload, minus those the Python binding does not expose)
OUT = set(
    """abs absolute acos acosh add all amax amin any arccos arccosh arcsin arcsinh arctan arctan2
    arctanh argmax argmin asin asinh atan atan2 atanh bitwise_and bitwise_not bitwise_or
    bitwise_xor ceil clamp clamp_max clamp_min clip column_stack cos cosh cross cumprod cumsum
    diag diff div divide dstack eq erf erfc exp exp2 expm1 fix floor floor_divide fmod gather ge
    greater greater_equal gt index_add index_copy index_select le lerp less
    less_equal log log10 log1p log2 logcumsumexp logical_and logical_not logical_or logical_xor
    logsumexp lt masked_select max maximum mean min minimum mul multiply ne neg negative nonzero
    norm not_equal pow prod reciprocal remainder round row_stack rsqrt scatter scatter_add
    scatter_reduce sigmoid sign sin sinh sqrt square std sub subtract sum take take_along_dim
    tan tanh tril triu true_divide trunc var where cat concat concatenate stack hstack vstack
    """.split()
)
# tuple results: out=(values, indices) is not supported here
_TUPLE_RESULTS = {"max", "min"}

_MINE = {
    "tensorlab._ops." + m
    for m in "arithmetic comparison unary reduce copies scatter_gather shape_ops math".split()
}
# ops whose dims are varargs in tensorlab and a ``dims`` sequence in PyTorch's signature
_DIMS_VARARGS = {"flip", "tile"}
# functions ``tensorlab/__init__`` imports from ``copies`` by name
_COPIES = ("cat", "concat", "concatenate", "stack", "hstack", "vstack")


def _params(fn) -> dict:
    try:
        return dict(inspect.signature(inspect.unwrap(fn)).parameters)
    except (TypeError, ValueError):
        return {}


def with_keywords(fn, name: str, *, method: bool):
    """``fn`` accepting PyTorch's keyword spellings (and ``out=`` for functions in :data:`OUT`).
    (``fn``'s signature is read on the first call with keywords: importing stays fast.)"""
    varargs = name in _DIMS_VARARGS
    cache = {}

    def params() -> dict:
        if "p" not in cache:
            cache["p"] = _params(fn)
        return cache["p"]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            params_ = params()
            give_out = not method and name in OUT and "out" not in params_
            for alias, canon in ALIASES.items():
                if alias in kwargs and alias not in params_:
                    if canon in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument '{canon}'")
                    kwargs[canon] = kwargs.pop(alias)
            if not method and "input" in params_ and "input" not in kwargs:
                for alias in INPUT_ALIASES:
                    if alias in kwargs and alias not in params_:
                        kwargs["input"] = kwargs.pop(alias)
                        break
            if varargs and "dims" in kwargs:
                dims = kwargs.pop("dims")
                if "input" in kwargs and not args:
                    args = (kwargs.pop("input"),)
                args = (*args, *(dims if isinstance(dims, (tuple, list)) else (dims,)))
            if not method and "out" in kwargs and name not in OUT:
                raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
            if give_out and "out" in kwargs:
                out = kwargs.pop("out")
                if out is None:
                    return fn(*args, **kwargs)
                if STATE.enabled and any_requires_grad(args, kwargs, Tensor):
                    raise RuntimeError(
                        f"{name}(): functions with out=... arguments don't support automatic "
                        "differentiation, but one of the arguments requires grad."
                    )
                result = fn(*args, **kwargs)
                if (
                    isinstance(result, tuple)
                    or name in _TUPLE_RESULTS
                    and not isinstance(result, Tensor)
                ):
                    raise TypeError(f"{name}(): out= with a tuple result is not supported")
                return store_out(result, out)
        return fn(*args, **kwargs)

    return wrapper


def install() -> None:
    """Wrap the public functions and methods of the ops modules listed in ``_MINE``."""
    for name, fn in list(MODULE_FUNCTIONS.items()):
        if getattr(inspect.unwrap(fn), "__module__", None) in _MINE:
            MODULE_FUNCTIONS[name] = with_keywords(fn, name, method=False)
    from . import copies

    for name in _COPIES:
        wrapped = with_keywords(getattr(copies, name), name, method=False)
        setattr(copies, name, wrapped)
        MODULE_FUNCTIONS.setdefault(name, wrapped)
    for name in dir(Tensor):
        if name.startswith("__"):
            continue
        fn = Tensor.__dict__.get(name)
        if callable(fn) and getattr(inspect.unwrap(fn), "__module__", None) in _MINE:
            setattr(Tensor, name, with_keywords(fn, name, method=True))


install()
