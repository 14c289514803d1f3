"""Reductions with PyTorch's rules: sum, mean, prod, max/min (with indices), argmax/argmin,
amax/amin, all/any, std/var (+ ``_mean``), cumsum, norm.

Dims are ``None`` (all), an int, or a tuple/list of ints; ``keepdim`` keeps reduced dims as size 1.
Integer and bool sums give int64; ``mean``/``std``/``var``/``norm`` need floating point. Results are
fresh contiguous tensors. Float sums may differ from PyTorch's in the last bits: PyTorch adds in a
different order (its cascade summation), numpy adds pairwise. ``var``/``std`` reproduce PyTorch's
accumulation order (Welford in double; the single-output two-pass kernel) and agree exactly.
"""

from __future__ import annotations

import builtins
import types
import warnings
from collections.abc import Sequence

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace, from_array
from ..autograd import formulas as AG
from ..autograd.graph import differentiable
from ..autograd.views import inplace_differentiable, same_as
from . import _cascade as _cascade_mod
from ._elementwise import cast_array, not_implemented, scalar_name
from .comparison import maximum, minimum
from .native_functions import module_function, op, tensor_method

# ---------------------------------------------------------------------------------------------
# max / min results: a named pair, printed like ``torch.return_types.max(values=..., indices=...)``
# ---------------------------------------------------------------------------------------------


class _ValuesIndices(tuple):
    """A ``(values, indices)`` pair with attribute access, like PyTorch's ``return_types``."""

    _op = ""
    __slots__ = ()

    def __new__(cls, values: Tensor, indices: Tensor):
        return tuple.__new__(cls, (values, indices))

    @property
    def values(self) -> Tensor:
        return self[0]

    @property
    def indices(self) -> Tensor:
        return self[1]

    def __repr__(self) -> str:
        return f"tensorlab.return_types.{self._op}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


def _return_type(op: str) -> type:
    cls = type(op, (_ValuesIndices,), {"_op": op, "__slots__": ()})
    cls.__module__ = "tensorlab.return_types"
    cls.__qualname__ = op
    return cls


return_types = types.SimpleNamespace(max=_return_type("max"), min=_return_type("min"))
module_function("return_types")(return_types)


# ---------------------------------------------------------------------------------------------
# argument handling
# ---------------------------------------------------------------------------------------------


def _invalid(fname: str, got: str, signatures: Sequence[str]) -> TypeError:
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(
        f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{lines}"
    )


_SUM_SIGS = (
    "*, tensorlab.dtype dtype = None",
    "tuple of ints dim, bool keepdim = False, *, tensorlab.dtype dtype = None",
)


def _is_int(x) -> bool:
    return isinstance(x, (builtins.int, np.integer)) and not isinstance(
        x, (builtins.bool, np.bool_)
    )


def _reduce_dims(
    fname: str, t: Tensor, dim, *, empty_means_all: bool = True, sigs=_SUM_SIGS, sequential=False
) -> tuple[int, ...]:
    """Wrapped dims to reduce. ``None`` (and, for most ops, ``()``) means every dim."""
    if dim is None:
        return tuple(range(t.ndim))
    if _is_int(dim):
        dims = (builtins.int(dim),)
    elif isinstance(dim, (tuple, list)) and builtins.all(_is_int(d) for d in dim):
        dims = tuple(builtins.int(d) for d in dim)
        if not dims:
            return tuple(range(t.ndim)) if empty_means_all else ()
    else:
        raise _invalid(fname, type(dim).__name__, sigs)
    wrapped = L.wrap_dims(dims, t.ndim) if sequential else _wrap_all(dims, t.ndim)
    return tuple(d for d in wrapped if d < t.ndim)  # a 0-dim tensor accepts dim 0 / -1


def _wrap_all(dims: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Wrap every dim (IndexError first), then reject repeats, in PyTorch's order."""
    wrapped = tuple(L.wrap_dim(d, ndim) for d in dims)
    seen = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


def _int_dim(fname: str, dim, pos: int = 1) -> builtins.int:
    if not _is_int(dim):
        raise TypeError(
            f"{fname}(): argument 'dim' (position {pos}) must be int, not {type(dim).__name__}"
        )
    return builtins.int(dim)


def _result(values, dtype: D.dtype) -> Tensor:
    """A fresh contiguous tensor (reductions always return contiguous results)."""
    return from_array(values, dtype)


def _shape_after(t: Tensor, dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(t._shape))
    return tuple(s for d, s in enumerate(t._shape) if d not in dims)


def _np_reduce(fn, t: Tensor, arr: np.ndarray, dims: tuple[int, ...], keepdim: bool, **kw):
    """``fn(arr, axis=dims, keepdims=keepdim)`` reshaped to PyTorch's result shape."""
    if t.ndim == 0:
        return np.asarray(fn(arr, axis=None, **kw)).reshape(())
    full = len(dims) == t.ndim
    out = np.asarray(fn(arr, axis=None if full else dims, keepdims=keepdim, **kw))
    shape = _shape_after(t, dims, keepdim)
    return out if out.shape == shape else out.reshape(shape)


def _check_tensor(fname: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}"
        )
    return x


def _acc_np(dt: D.dtype) -> np.dtype:
    """numpy dtype the sum accumulates in: int64 for integers and bool, float32 for float16."""
    if not dt.is_floating_point:
        return np.dtype(np.int64)
    return np.dtype(np.float32) if dt is D.float16 else dt.np


# ---------------------------------------------------------------------------------------------
# derivatives: make_node functions (they re-read the op's arguments as the op did)
# ---------------------------------------------------------------------------------------------


def _grad_sum(out, input, dim=None, keepdim=False, **kwargs):
    dims = _reduce_dims("sum", input, dim)
    name = "SumBackward0" if dim is None else "SumBackward1"
    node = AG.SumMeanBackward(name, input, dims, keepdim, 1)
    node._dim_arg = dim  # as given (``grad_fn._saved_dim``)
    return node


def _grad_mean(out, input, dim=None, keepdim=False, **kwargs):
    dims = _reduce_dims("mean", input, dim)
    count = L.numel([input._shape[d] for d in dims])
    name = "MeanBackward0" if dim is None else "MeanBackward1"
    node = AG.SumMeanBackward(name, input, dims, keepdim, count)
    node._dim_arg = dim  # as given (``grad_fn._saved_dim``)
    return node


def _grad_prod(out, input, dim=None, keepdim=False, **kwargs):
    if dim is None:
        return AG.ProdBackward("ProdBackward0", input, None, False)
    d = L.wrap_dim(builtins.int(dim), input.ndim) if input.ndim else 0
    return AG.ProdBackward("ProdBackward1", input, d, keepdim)


def _grad_cumsum(out, input, dim, **kwargs):
    return AG.CumsumBackward0(input, L.wrap_dim(builtins.int(dim), input.ndim))


def _grad_max_min(fname: str):
    def make(out, input, dim=None, keepdim=None, *, other=None, **kwargs):
        if isinstance(dim, Tensor) or other is not None:
            b = dim if other is None else other
            if fname == "max":
                return AG.MaxMinimumBackward("MaximumBackward0", input, b, larger=True)
            return AG.MaxMinimumBackward("MinimumBackward0", input, b, larger=False)
        title = fname.capitalize()
        if dim is None:
            return AG.EvenlyDistributed(
                f"{title}Backward1", input, out, tuple(range(input.ndim)), False
            )
        d = L.wrap_dim(builtins.int(dim), input.ndim) if input.ndim else 0
        node = AG.IndexedReduction(f"{title}Backward0", input, out[1], d, builtins.bool(keepdim))
        node._dim_arg = dim  # as given (``grad_fn._saved_dim``)
        return node

    return make


def _grad_amax_amin(fname: str):
    def make(out, input, dim=(), keepdim=False):
        dims = _reduce_dims(fname, input, dim)
        return AG.EvenlyDistributed(f"{fname.capitalize()}Backward0", input, out, dims, keepdim)

    return make


def _grad_var_std(fname: str):
    def make(out, input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        dims, keepdim, correction = _var_args(fname, input, dim, unbiased, keepdim, correction)
        name = "VarBackward0" if fname == "var" else "StdBackward0"
        return AG.VarStdBackward(name, input, out, dims, keepdim, correction)

    return make


def _grad_vector_norm(out, input, p, dims, keepdim, dtype):
    dims = _reduce_dims("norm", input, None if dims is None else tuple(dims))
    return AG.NormBackward(input, out, builtins.float(p), dims, keepdim)


def _grad_matrix_norm(out, input, p, dims, keepdim, dtype):
    if p == "fro":
        dims = tuple(L.wrap_dim(d, input.ndim) for d in dims)
        return AG.NormBackward(input, out, 2.0, dims, keepdim)
    return AG.NotImplementedNode(
        "LinalgSvdBackward0",
        "tensorlab: the derivative of the nuclear norm is not implemented",
        input,
    )


# ---------------------------------------------------------------------------------------------
# sum, mean, prod
# ---------------------------------------------------------------------------------------------


def _sum_dtype(t: Tensor, dtype) -> D.dtype:
    if dtype is not None:
        return D.to_dtype(dtype)
    return t.dtype if t.dtype.is_floating_point else D.int64


@op("sum", formula=_grad_sum)
def sum(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum over ``dim`` (all dims by default). Integers and bools sum to int64."""
    input = _check_tensor("sum", input)
    dims = _reduce_dims("sum", input, dim)
    out = _sum_dtype(input, dtype)
    arr = cast_array(input._np(), out) if dtype is not None else input._np()
    if out in _CASCADE:
        return _result(_cascade(input, arr, dims, keepdim), out)
    with np.errstate(all="ignore"):
        values = _np_reduce(np.sum, input, arr, dims, keepdim, dtype=_acc_np(out))
    return _result(values, out)


_CASCADE = (D.float16, D.float32, D.float64)


def _cascade(input: Tensor, arr: np.ndarray, dims: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """ATen's cascade sum of ``arr`` (``input``'s values in the sum's dtype) over ``dims``."""
    strides = input._stride
    if arr.dtype != input.dtype.np:
        strides = _cascade_mod.cast_strides(input._shape, strides)
    values = _cascade_mod.cascade_sum(arr, strides, dims)
    return values.reshape(_shape_after(input, dims, keepdim))


@op("mean", formula=_grad_mean)
def mean(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Arithmetic mean; needs a floating point input (or ``dtype``), as in PyTorch."""
    input = _check_tensor("mean", input)
    out = D.to_dtype(dtype) if dtype is not None else input.dtype
    if not out.is_floating_point:
        what = "Optional dtype" if dtype is not None else "Input dtype"
        raise RuntimeError(
            "mean(): could not infer output dtype. "
            f"{what} must be either a floating point or complex dtype. Got: {scalar_name(out)}"
        )
    dims = _reduce_dims("mean", input, dim)
    acc = _acc_np(out)
    arr = cast_array(input._np(), out)
    count = L.numel([input._shape[d] for d in dims])
    with np.errstate(all="ignore"):
        if out in _CASCADE:  # torch: sum in float32 for float16, then div_(count)
            total = _cascade(
                input,
                cast_array(input._np(), D.float32 if out is D.float16 else out),
                dims,
                keepdim,
            )
        else:
            total = _np_reduce(np.sum, input, arr, dims, keepdim, dtype=acc)
        if out is not D.float16:
            total = total.astype(out.np)
        values = total / np.asarray(count, dtype=acc)
    return _result(values, out)


@op("prod", formula=_grad_prod)
def prod(input, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product over one ``dim`` (or all elements). Integers and bools give int64."""
    input = _check_tensor("prod", input)
    sigs = (
        "*, tensorlab.dtype dtype = None",
        "int dim, bool keepdim = False, *, tensorlab.dtype dtype = None",
    )
    if dim is None:
        dims = tuple(range(input.ndim))
        if keepdim:
            raise _invalid("prod", "keepdim=bool, ", sigs)
    elif _is_int(dim):
        dims = _reduce_dims("prod", input, builtins.int(dim), sigs=sigs)
    else:
        raise _invalid("prod", type(dim).__name__, sigs)
    out = _sum_dtype(input, dtype)
    arr = cast_array(input._np(), out) if dtype is not None else input._np()
    with np.errstate(all="ignore"):
        values = _np_reduce(np.prod, input, arr, dims, keepdim, dtype=_acc_np(out))
    return _result(values, out)


_MISSING = object()


@op("cumsum", formula=_grad_cumsum)
def cumsum(input, dim=_MISSING, *, dtype=None) -> Tensor:
    """Running sum along ``dim`` (float32 accumulates in float64, as PyTorch's CPU kernel does)."""
    input = _check_tensor("cumsum", input)
    if dim is _MISSING:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    d = L.wrap_dim(_int_dim("cumsum", dim), input.ndim)
    out = _sum_dtype(input, dtype)
    if out is D.bool_:
        raise not_implemented("cumsum_out_cpu", out)
    arr = cast_array(input._np(), out)
    acc = np.float64 if out.is_floating_point and out is not D.float16 else _acc_np(out)
    with np.errstate(all="ignore"):
        values = arr.astype(acc) if input.ndim == 0 else np.cumsum(arr, axis=d, dtype=acc)
    return _result(values, out)


# ---------------------------------------------------------------------------------------------
# max, min, argmax, argmin, amax, amin
# ---------------------------------------------------------------------------------------------

_MAX_SIGS = ("", "Tensor other", "int dim, bool keepdim = False")


def _empty_dim_error(fname: str, t: Tensor, dims: tuple[int, ...], *, full: bool) -> None:
    if t.numel() != 0:
        return
    if full:
        raise RuntimeError(
            f"{fname}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    for d in dims:
        if t._shape[d] == 0:
            raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")


def _max_min(fname: str, input, dim, keepdim, other, kwargs) -> Tensor | _ValuesIndices:
    input = _check_tensor(fname, input)
    if kwargs:
        got = ", ".join(f"{k}={type(v).__name__}" for k, v in kwargs.items())
        raise _invalid(fname, got + ", ", _MAX_SIGS)
    if isinstance(dim, Tensor) or other is not None:
        return (maximum if fname == "max" else minimum)(input, dim if other is None else other)
    if dim is None:
        if keepdim is not None:
            raise _invalid(fname, "keepdim=bool, ", _MAX_SIGS)
        _empty_dim_error(fname, input, (), full=True)
        arr = input._np()
        with np.errstate(all="ignore"):
            values = np.max(arr) if fname == "max" else np.min(arr)
        return _result(values, input.dtype)
    if not _is_int(dim):
        raise _invalid(fname, type(dim).__name__, _MAX_SIGS)
    if keepdim is not None and not isinstance(keepdim, (builtins.bool, np.bool_)):
        raise TypeError(
            f"{fname}(): argument 'keepdim' (position 2) must be bool, not {type(keepdim).__name__}"
        )
    keepdim = builtins.bool(keepdim)
    d = L.wrap_dim(builtins.int(dim), input.ndim)
    dims = (d,) if input.ndim else ()
    _empty_dim_error(fname, input, dims, full=False)
    arr = input._np()
    if input.ndim == 0:
        values, idx = arr.copy(), np.zeros((), np.int64)
    elif input.numel() == 0:
        shape = _shape_after(input, dims, keepdim)
        values, idx = np.empty(shape, arr.dtype), np.empty(shape, np.int64)
    else:
        arg = np.argmax if fname == "max" else np.argmin
        idx = np.expand_dims(arg(arr, axis=d), d)
        values = np.take_along_axis(arr, idx, axis=d)
        if not keepdim:
            idx, values = np.squeeze(idx, d), np.squeeze(values, d)
    cls = getattr(return_types, fname)
    return cls(_result(values, input.dtype), _result(idx, D.int64))


@op("max", formula=_grad_max_min("max"))
def max(input, dim=None, keepdim=None, *, other=None, **kwargs):
    """Largest element; with ``dim``: ``(values, indices)``; with a tensor: ``maximum``.

    NaN wins; ties give the first index, as in PyTorch.
    """
    return _max_min("max", input, dim, keepdim, other, kwargs)


@op("min", formula=_grad_max_min("min"))
def min(input, dim=None, keepdim=None, *, other=None, **kwargs):
    """Smallest element; with ``dim``: ``(values, indices)``; with a tensor: ``minimum``."""
    return _max_min("min", input, dim, keepdim, other, kwargs)


def _arg_reduce(fname: str, input, dim, keepdim: bool) -> Tensor:
    input = _check_tensor(fname, input)
    if dim is not None and not _is_int(dim):
        raise TypeError(f"{fname}(): argument 'dim' must be int, not {type(dim).__name__}")
    if input.dtype is D.bool_:
        raise RuntimeError(f"{fname}(): does not support bool input")
    arg = np.argmax if fname == "argmax" else np.argmin
    arr = input._np()
    if dim is None:
        if input.numel() == 0:
            raise IndexError(
                f"{fname}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        idx = np.asarray(arg(arr.reshape(-1)))
        shape = (1,) * input.ndim if keepdim else ()
        return _result(idx.reshape(shape), D.int64)
    d = L.wrap_dim(builtins.int(dim), input.ndim)
    dims = (d,) if input.ndim else ()
    _empty_dim_error(fname, input, dims, full=False)
    shape = _shape_after(input, dims, keepdim)
    if input.ndim == 0 or input.numel() == 0:
        return _result(np.zeros(shape, np.int64), D.int64)
    return _result(np.asarray(arg(arr, axis=d)).reshape(shape), D.int64)


@tensor_method("argmax")
def argmax(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None); first one on ties."""
    return _arg_reduce("argmax", input, dim, keepdim)


@tensor_method("argmin")
def argmin(input, dim=None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None); first one on ties."""
    return _arg_reduce("argmin", input, dim, keepdim)


def _amax_amin(fname: str, input, dim, keepdim: bool) -> Tensor:
    input = _check_tensor(fname, input)
    dims = _reduce_dims(fname, input, dim)
    all_dims = dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)
    if input.numel() == 0 and not all_dims:
        # ATen's zero_numel_check_dims names the dim as the caller wrote it (amax(dim=-1) says
        # -1), where max/min/argmax name the wrapped dim.
        for written, d in zip((dim,) if _is_int(dim) else tuple(dim), dims):
            if input._shape[d] == 0:
                raise IndexError(
                    f"{fname}(): Expected reduction dim {written} to have non-zero size."
                )
    _empty_dim_error(fname, input, dims, full=all_dims)
    if input.numel() == 0:
        values = np.empty(_shape_after(input, dims, keepdim), input.dtype.np)
    else:
        fn = np.max if fname == "amax" else np.min
        values = _np_reduce(fn, input, input._np(), dims, keepdim)
    return _result(values, input.dtype)


@op("amax", formula=_grad_amax_amin("amax"))
def amax(input, dim=(), keepdim: bool = False) -> Tensor:
    """Largest values over ``dim`` (several dims allowed; all dims by default). NaN wins."""
    return _amax_amin("amax", input, dim, keepdim)


@op("amin", formula=_grad_amax_amin("amin"))
def amin(input, dim=(), keepdim: bool = False) -> Tensor:
    """Smallest values over ``dim`` (several dims allowed; all dims by default). NaN wins."""
    return _amax_amin("amin", input, dim, keepdim)


# ---------------------------------------------------------------------------------------------
# all, any
# ---------------------------------------------------------------------------------------------

_ALL_SIGS = ("", "tuple of ints dim = None, bool keepdim = False", "int dim, bool keepdim = False")


def _all_any(fname: str, input, dim, keepdim: bool) -> Tensor:
    input = _check_tensor(fname, input)
    if dim is not None and not (
        _is_int(dim) or (isinstance(dim, (tuple, list)) and builtins.all(_is_int(d) for d in dim))
    ):
        raise _invalid(fname, type(dim).__name__, _ALL_SIGS)
    dims = _reduce_dims(fname, input, dim, empty_means_all=False, sigs=_ALL_SIGS)
    out = D.uint8 if input.dtype is D.uint8 else D.bool_
    truth = input._np() != 0
    fn = np.all if fname == "all" else np.any
    values = _np_reduce(fn, input, truth, dims, keepdim) if dims else truth
    return _result(values, out)


@tensor_method("all")
def all(input, dim=None, keepdim: bool = False) -> Tensor:
    """True when every element (over ``dim``) is nonzero. uint8 inputs give uint8, like PyTorch."""
    return _all_any("all", input, dim, keepdim)


@tensor_method("any")
def any(input, dim=None, keepdim: bool = False) -> Tensor:
    """True when some element (over ``dim``) is nonzero. uint8 inputs give uint8, like PyTorch."""
    return _all_any("any", input, dim, keepdim)


# ---------------------------------------------------------------------------------------------
# std, var
# ---------------------------------------------------------------------------------------------

_VAR_SIGS = (
    "tuple of ints dim, bool unbiased = True, bool keepdim = False",
    "tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
    "bool unbiased = True",
)


def _var_args(fname, input, dim, unbiased, keepdim, correction):
    """Sort out PyTorch's three signatures: (unbiased), (dim, unbiased, keepdim), (dim, *, correction)."""
    if isinstance(dim, (builtins.bool, np.bool_)):
        if unbiased is not None:
            raise _invalid(fname, "bool, bool", _VAR_SIGS)
        dim, unbiased = None, builtins.bool(dim)
    if unbiased is not None and correction is not None:
        raise _invalid(fname, "correction=int, unbiased=bool, ", _VAR_SIGS)
    if unbiased is not None and not isinstance(unbiased, (builtins.bool, np.bool_)):
        got = ", ".join(type(a).__name__ for a in (dim, unbiased))
        raise _invalid(fname, got, _VAR_SIGS)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if input.dtype.is_floating_point is False:
        raise RuntimeError("std and var only support floating point and complex dtypes")
    dims = _reduce_dims(fname, input, dim, sigs=_VAR_SIGS, sequential=True)
    return dims, builtins.bool(keepdim), correction


_WELFORD_LIMIT = 32768  # PyTorch's GRAIN_SIZE: bigger reductions may be split across threads


def _welford(input: Tensor, dims: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int]:
    """(mean, sum of squared deviations, count) over ``dims`` with keepdim, in float64.

    PyTorch's CPU kernel runs Welford's update sequentially over each output's elements, in
    memory order (the reduced dim with the largest stride outermost). Reproducing that order
    gives bit-identical results; very large reductions fall back to the two-pass formula.
    """
    arr = input._np().astype(np.float64)
    kept_shape = _shape_after(input, dims, True)
    count = L.numel([input._shape[d] for d in dims])
    if input.ndim == 0:
        return arr.copy(), np.zeros(()), count
    if count == 0:
        return np.full(kept_shape, np.nan), np.zeros(kept_shape), 0
    if count > _WELFORD_LIMIT:
        m = np.mean(arr, axis=dims, keepdims=True)
        return m, np.sum((arr - m) ** 2, axis=dims, keepdims=True), count
    order = sorted(dims, key=lambda d: -input._stride[d])  # stable: ties keep dim order
    rest = [d for d in range(input.ndim) if d not in dims]
    seq = np.transpose(arr, order + rest).reshape((count, *[input._shape[d] for d in rest]))
    mean = np.zeros(seq.shape[1:])
    m2 = np.zeros(seq.shape[1:])
    for i, x in enumerate(seq, start=1):
        delta = x - mean
        mean = mean + delta / i
        m2 = m2 + delta * (x - mean)
    return mean.reshape(kept_shape), m2.reshape(kept_shape), count


def _single_output_m2(input: Tensor) -> np.ndarray:
    """PyTorch's ``std_var_all_cpu`` (float32/float64, one output): the mean in the input's dtype,
    then the squared deviations added one by one in double, in memory order."""
    m = np.float64(mean(input)._np())
    order = sorted(range(input.ndim), key=lambda d: -input._stride[d])
    dx = np.transpose(input._np(), order).reshape(-1).astype(np.float64) - m
    return np.cumsum(dx * dx)[-1:].reshape(()) if dx.size else np.zeros(())


def _var_np(fname: str, input: Tensor, dims, keepdim: bool, correction) -> np.ndarray:
    """Variance in float64 (PyTorch accumulates in double for every float dtype); the caller
    rounds it to the input's dtype."""
    n_out = L.numel(_shape_after(input, dims, False))
    if n_out == 1 and input.numel() and input.dtype in (D.float32, D.float64):
        count = input.numel()
        m2 = _single_output_m2(input).reshape(_shape_after(input, dims, True))
    else:
        _, m2, count = _welford(input, dims)
    if count - correction <= 0:
        warnings.warn(
            f"{fname}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    with np.errstate(all="ignore"):
        values = m2 / np.float64(builtins.max(count - correction, 0))
    return values if keepdim else values.reshape(_shape_after(input, dims, False))


@op("var", formula=_grad_var_std("var"))
def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Variance with Bessel's correction by default (``correction=1``; ``unbiased=False`` is 0)."""
    input = _check_tensor("var", input)
    dims, keepdim, correction = _var_args("var", input, dim, unbiased, keepdim, correction)
    return _result(_var_np("var", input, dims, keepdim, correction), input.dtype)


@op("std", formula=_grad_var_std("std"))
def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> Tensor:
    """Standard deviation: the square root of :func:`var`."""
    input = _check_tensor("std", input)
    dims, keepdim, correction = _var_args("std", input, dim, unbiased, keepdim, correction)
    with np.errstate(all="ignore"):
        return _result(np.sqrt(_var_np("std", input, dims, keepdim, correction)), input.dtype)


@module_function("var_mean")
def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over the same dims."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, (builtins.bool, np.bool_)) else dim
    return _one_node((v, mean(input, d, keepdim)), "VarMeanBackward0")


@module_function("std_mean")
def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over the same dims."""
    s = std(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, (builtins.bool, np.bool_)) else dim
    return _one_node((s, mean(input, d, keepdim)), "StdMeanBackward0")


def _one_node(outputs: tuple, name: str) -> tuple:
    """PyTorch records var_mean/std_mean as one node; tensorlab records var (std) and mean, and
    gives both nodes that name."""
    for t in outputs:
        if t._grad_fn is not None:
            t._grad_fn._name = name
    return outputs


# ---------------------------------------------------------------------------------------------
# norm
# ---------------------------------------------------------------------------------------------


@differentiable(_grad_vector_norm, "linalg_vector_norm")
def _vector_norm(input: Tensor, p, dims, keepdim: bool, dtype) -> Tensor:
    """``linalg.vector_norm``: p = 2, 1, inf, -inf, 0 or any other number."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(input.dtype)}"
        )
    out = D.to_dtype(dtype) if dtype is not None else input.dtype
    p = builtins.float(p)
    if input.numel() == 0 and (p < 0 or p == np.inf):
        if dims is None or len(dims) == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor "
                "because the operation does not have an identity"
            )
        for d in dims:
            if input._shape[L.wrap_dim(d, input.ndim)] == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {d}"
                    "because this dimension is empty and the operation does not have an identity"
                )
    dims = _reduce_dims("norm", input, None if dims is None else tuple(dims))
    acc = np.float64 if out is D.float64 else np.float32
    a = np.abs(cast_array(input._np(), out).astype(acc))
    with np.errstate(all="ignore"):
        if p == np.inf:
            values = _np_reduce(np.max, input, a, dims, keepdim)
        elif p == -np.inf:
            values = _np_reduce(np.min, input, a, dims, keepdim)
        elif p == 0:
            values = _np_reduce(np.sum, input, (a != 0).astype(acc), dims, keepdim)
        elif p == 1:
            values = _np_reduce(np.sum, input, a, dims, keepdim)
        elif p == 2:
            values = np.sqrt(_np_reduce(np.sum, input, a * a, dims, keepdim))
        else:
            s = _np_reduce(np.sum, input, a ** np.asarray(p, acc), dims, keepdim)
            values = s ** np.asarray(1.0 / p, acc)
    return _result(values, out)


@differentiable(_grad_matrix_norm, "linalg_matrix_norm")
def _matrix_norm(input: Tensor, p: str, dims, keepdim: bool, dtype) -> Tensor:
    """``linalg.matrix_norm`` for ``'fro'`` and ``'nuc'`` (sum of singular values)."""
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    if input.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(input.dtype)}"
        )
    if len(dims) != 2:
        raise RuntimeError(
            "linalg.matrix_norm: dim must be a 2-tuple. Got " + " ".join(map(str, dims))
        )
    d0, d1 = (L.wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if p == "fro":
        return _vector_norm(input, 2, (d0, d1), keepdim, dtype)
    if input.dtype is D.float16:
        raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
    out = D.to_dtype(dtype) if dtype is not None else input.dtype
    arr = np.moveaxis(input._np().astype(out.np), (d0, d1), (-2, -1))
    values = np.linalg.svd(arr, compute_uv=False).sum(-1) if arr.size else np.zeros(arr.shape[:-2])
    if keepdim:
        values = np.expand_dims(values, tuple(sorted((d0, d1))))
    return _result(values, out)


@tensor_method("norm")
def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """Vector p-norm over ``dim`` (all elements by default): p = 2 ('fro'), 1, inf, -inf, 0, any;
    ``p='nuc'`` is the nuclear norm of matrices. Follows ``torch.norm``'s dispatch."""
    input = _check_tensor("norm", input)
    dims = [dim] if _is_int(dim) else (None if dim is None else list(dim))
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return _vector_norm(input, 2, dims, keepdim, dtype)
        return _matrix_norm(
            input, p, list(range(input.ndim)) if dims is None else dims, keepdim, dtype
        )
    return _vector_norm(input, 2.0 if p is None else p, dims, keepdim, dtype)


# ---------------------------------------------------------------------------------------------
# cumulative ops: cumprod, cummax, cummin, logcumsumexp; logsumexp
# ---------------------------------------------------------------------------------------------

return_types.cummax = _return_type("cummax")
return_types.cummin = _return_type("cummin")


def _cum_dim(fname: str, input, dim) -> builtins.int:
    if dim is _MISSING:
        raise TypeError(f'{fname}() missing 1 required positional arguments: "dim"')
    return L.wrap_dim(_int_dim(fname, dim), input.ndim)


def _grad_cumprod(out, input, dim, **kwargs):
    from ..autograd.math_ops import CumprodBackward0

    return CumprodBackward0(input, L.wrap_dim(builtins.int(dim), builtins.max(input.ndim, 1)))


@op("cumprod", formula=_grad_cumprod)
def cumprod(input, dim=_MISSING, *, dtype=None) -> Tensor:
    """Running product along ``dim`` (integers and bools give int64, as ``cumsum``)."""
    input = _check_tensor("cumprod", input)
    d = _cum_dim("cumprod", input, dim)
    out = _sum_dtype(input, dtype)
    arr = cast_array(input._np(), out)
    acc = np.float64 if out.is_floating_point and out is not D.float16 else _acc_np(out)
    with np.errstate(all="ignore"):
        values = arr.astype(acc) if input.ndim == 0 else np.cumprod(arr, axis=d, dtype=acc)
    return _result(values, out)


def _cum_inplace(op):
    """``cumsum_``/``cumprod_``: the op's result written into self (recorded as the op)."""

    @inplace_differentiable(same_as(op))
    def method(self: Tensor, dim=_MISSING, *, dtype=None) -> Tensor:
        from ._elementwise import check_cast, check_no_internal_overlap, write_into

        result = op(self, dim, dtype=dtype)
        check_inplace(self)
        check_no_internal_overlap(self)
        check_cast(result.dtype, self)
        return write_into(self, result._np())

    method.__name__ = method.__qualname__ = op.__name__ + "_"
    return method


tensor_method("cumprod_", function=False)(_cum_inplace(cumprod))
tensor_method("cumsum_", function=False)(_cum_inplace(cumsum))


def _cum_extreme(fname: str, input, dim):
    input = _check_tensor(fname, input)
    d = _cum_dim(fname, input, dim)
    x = input._np()
    if input.ndim == 0:
        return (
            _result(x.copy(), input.dtype),
            _result(np.zeros((), np.int64), D.int64),
        )
    xm = np.moveaxis(x, d, -1)
    acc = np.maximum if fname == "cummax" else np.minimum  # both propagate nan
    values = acc.accumulate(xm, axis=-1) if xm.size else xm.copy()
    # an element updates the running extreme when it equals it (ties: the latest wins) or is
    # nan; each position's index is the latest update at or before it
    update = xm == values
    if xm.dtype.kind == "f":
        update |= np.isnan(xm)
    positions = np.where(update, np.arange(xm.shape[-1]), 0)
    indices = np.maximum.accumulate(positions, axis=-1) if xm.size else positions
    return (
        _result(np.moveaxis(values, -1, d), input.dtype),
        _result(np.moveaxis(indices, -1, d), D.int64),
    )


def _grad_cum_extreme(name: str):
    def make(out, input, dim, **kwargs):
        from ..autograd.math_ops import CumExtremeBackward

        d = L.wrap_dim(builtins.int(dim), builtins.max(input.ndim, 1))
        return CumExtremeBackward(name, input, out[1]._np().copy(), d)

    return make


@op("cummax", formula=_grad_cum_extreme("CummaxBackward0"))
def cummax(input, dim=_MISSING):
    """Running maximum along ``dim`` and where it was found (ties: the latest; nan propagates)."""
    return return_types.cummax(*_cum_extreme("cummax", input, dim))


@op("cummin", formula=_grad_cum_extreme("CumminBackward0"))
def cummin(input, dim=_MISSING):
    """Running minimum along ``dim`` and where it was found (ties: the latest; nan propagates)."""
    return return_types.cummin(*_cum_extreme("cummin", input, dim))


def _grad_logcumsumexp(out, input, dim, **kwargs):
    from ..autograd.math_ops import LogcumsumexpBackward0

    return LogcumsumexpBackward0(
        input, out, L.wrap_dim(builtins.int(dim), builtins.max(input.ndim, 1))
    )


@op("logcumsumexp", formula=_grad_logcumsumexp)
def logcumsumexp(input, dim=_MISSING) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (floating point only)."""
    input = _check_tensor("logcumsumexp", input)
    d = _cum_dim("logcumsumexp", input, dim)
    if not input.dtype.is_floating_point:
        raise not_implemented("logcumsumexp_out_cpu", input.dtype)
    x = input._np().astype(np.float64)
    with np.errstate(all="ignore"):
        values = x if input.ndim == 0 else np.logaddexp.accumulate(x, axis=d)
    return _result(values, input.dtype)


def _grad_logsumexp(out, input, dim, keepdim=False, **kwargs):
    from ..autograd.math_ops import LogsumexpBackward0

    return LogsumexpBackward0(input, out, _reduce_dims("logsumexp", input, dim), keepdim)


@op("logsumexp", formula=_grad_logsumexp)
def logsumexp(input, dim=_MISSING, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))`` computed stably; integers give the default float dtype."""
    input = _check_tensor("logsumexp", input)
    if dim is _MISSING:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    dims = _reduce_dims("logsumexp", input, dim)
    out = input.dtype if input.dtype.is_floating_point else D.get_default_dtype()
    x = cast_array(input._np(), out).astype(np.float64)
    if not dims and input.ndim:
        return _result(x, out)
    with np.errstate(all="ignore"):
        if x.size:
            m = _np_reduce(np.max, input, x, dims, True)
            m = np.where(np.isfinite(m), m, 0)
        else:
            m = np.zeros(_shape_after(input, dims, True))
        s = _np_reduce(np.sum, input, np.exp(x - m), dims, True)
        values = (np.log(s) + m).reshape(_shape_after(input, dims, keepdim))
    return _result(values, out)
