"""The indexing family (PyTorch's ``TensorAdvancedIndexing`` and ``ScatterGatherChecks``):
``index_select``, ``masked_select``/``masked_fill``/``masked_scatter``, ``gather``/``scatter``/
``scatter_add``/``scatter_reduce``, ``index_add``/``index_copy``/``index_fill``, ``index_put``,
``put``/``take``/``take_along_dim`` and ``argwhere``.

Each out-of-place op copies its input (keeping its memory order, as ``clone`` does) and runs the
in-place kernel on the copy; the in-place methods run the same kernel on ``self``'s memory. Kernels
work on numpy arrays; index arguments are checked (dtype, shape, bounds) before anything is
written, with PyTorch's messages. Derivatives are in :mod:`tensorlab.autograd.indexing_ops`.
"""

from __future__ import annotations

import builtins
import re

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace
from ..autograd import formulas as AG
from ..autograd import indexing_ops as IG
from ..autograd.graph import NotImplementedNode, differentiable
from ..autograd.views import inplace_differentiable, same_as
from ._elementwise import (
    _py_scalar,
    _type_error,
    check_no_internal_overlap,
    checked_scalar,
    scalar_name,
)
from .native_functions import count_from_self, module_function, tensor_method

# ---------------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------------


def _tensor(x, fname: str, name: str, pos: int) -> Tensor:
    if not isinstance(x, Tensor):
        raise _type_error(fname, name, pos, x)
    return x


def _dim(dim, ndim: int) -> int:
    return L.wrap_dim(dim, ndim)


def _long_index(index: Tensor) -> np.ndarray:
    return index._np().astype(np.int64, copy=False)


def _fresh(t: Tensor) -> Tensor:
    """A copy of ``t`` in fresh storage with ``t``'s memory order (``clone``'s layout: the
    result of ``index_fill``, ``index_put``, ``put``)."""
    return Tensor._from_array_strided(t._np(), t.dtype, L.preserve_strides(t._shape, t._stride))


def _fresh_contiguous(t: Tensor, shape=None) -> Tensor:
    """``t`` (broadcast to ``shape``) copied to a fresh row-major tensor: the result of the ops
    PyTorch writes as structured kernels (``scatter``, ``index_add``, ``masked_fill``...)."""
    arr = t._np() if shape is None else np.broadcast_to(t._np(), tuple(shape))
    return Tensor._from_array(arr, t.dtype)


def _value(value, self: Tensor, fname: str):
    """A fill value: a Python number or a 0-d tensor (its item), converted to ``self``'s dtype."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"{fname} only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        value = value.item()
    return checked_scalar(_py_scalar(value), self.dtype)


def _writable(self: Tensor) -> np.ndarray:
    check_inplace(self)
    check_no_internal_overlap(self)
    return self._np()


def _as_1d(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(1) if arr.ndim == 0 else arr


_ELEMENT = re.compile(r"^(expected Tensor as element \d+ in argument )(\d+)(, .*)$", re.S)


def _method(name: str, fn, *, function: bool = True):
    """Attach ``fn`` as ``Tensor.<name>`` (argument positions counted after self) and, when
    ``function``, as ``tensorlab.<name>``."""
    if function:
        module_function(name)(fn)
    counted = count_from_self(fn)

    def method(self, *args, **kwargs):
        try:
            return counted(self, *args, **kwargs)
        except TypeError as e:
            m = _ELEMENT.match(str(e))
            if not m:
                raise
            raise TypeError(f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}") from None

    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    tensor_method(name, function=False)(method)
    return fn


# ---------------------------------------------------------------------------------------------
# index_select
# ---------------------------------------------------------------------------------------------


def _check_vector_index(fname: str, index: Tensor) -> np.ndarray:
    if index.dtype not in (D.int32, D.int64):
        raise RuntimeError(f"{fname}(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError(f"{fname}(): Index is supposed to be a vector")
    return _as_1d(_long_index(index))


def _make_index_select(out, input, dim, index):
    d = _dim(dim, input.ndim)
    idx = _as_1d(_long_index(index))
    return AG.IndexSelectBackward0(input, idx, d, False)


@differentiable(_make_index_select, "index_select")
def index_select(input, dim, index) -> Tensor:
    """The slices ``index`` picks along ``dim`` (a copy; ``index`` is 0-d or 1-d int)."""
    input = _tensor(input, "index_select", "input", 1)
    index = _tensor(index, "index_select", "index", 3)
    d = _dim(dim, input.ndim)
    idx = _check_vector_index("index_select", index)
    if input.ndim == 0:
        if idx.size != 1:
            raise RuntimeError(
                f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)"
            )
        if idx[0] != 0:
            raise IndexError("index out of range in self")
        return Tensor._from_array(input._np().copy(), input.dtype)
    size = input._shape[d]
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise IndexError("index out of range in self")
    return Tensor._from_array(np.take(input._np(), idx, axis=d), input.dtype)


_method("index_select", index_select)


# ---------------------------------------------------------------------------------------------
# masked_select / masked_fill / masked_scatter
# ---------------------------------------------------------------------------------------------


def _make_masked_select(out, input, mask):
    shape = L.broadcast_shapes(input._shape, mask._shape)
    return IG.MaskedSelectBackward0(input, mask._np().copy(), shape)


@differentiable(_make_masked_select, "masked_select")
def masked_select(input, mask) -> Tensor:
    """The elements where ``mask`` (broadcast with ``input``) is True, as a 1-d copy."""
    input = _tensor(input, "masked_select", "input", 1)
    mask = _tensor(mask, "masked_select", "mask", 2)
    if mask.dtype is not D.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = L.broadcast_shapes(mask._shape, input._shape)
    values = np.broadcast_to(input._np(), shape)[np.broadcast_to(mask._np(), shape)]
    return Tensor._from_array(values, input.dtype)


_method("masked_select", masked_select)


def _check_mask(fname: str, mask) -> Tensor:
    mask = _tensor(mask, fname, "mask", 1)
    if mask.dtype is not D.bool_:
        raise RuntimeError(
            f"{fname} only supports boolean masks, but got mask with dtype "
            f"{D.TYPE_NAME[mask.dtype.name]}"
        )
    return mask


def _masked_fill_into(self: Tensor, arr: np.ndarray, mask: Tensor, value) -> None:
    v = _value(value, self, "masked_fill_")
    m = mask._np()
    try:
        m = np.broadcast_to(m, arr.shape)
    except ValueError:
        raise RuntimeError(
            f"output with shape {L._fmt(arr.shape)} doesn't match the broadcast shape "
            f"{L._fmt(L.broadcast_shapes(arr.shape, mask._shape))}"
        ) from None
    if arr.size:
        arr[m] = v


def _make_masked_fill(out, input, mask, value):
    return IG.MaskedFillBackward(input, value, mask._np().copy())


@differentiable(_make_masked_fill, "masked_fill")
def masked_fill(input, mask, value) -> Tensor:
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) where ``mask`` is True."""
    input = _tensor(input, "masked_fill", "input", 1)
    mask = _check_mask("masked_fill_", mask)
    shape = L.broadcast_shapes(input._shape, mask._shape)
    out = _fresh_contiguous(input, shape)
    _masked_fill_into(out, out._np(), mask, value)
    return out


@inplace_differentiable(same_as(masked_fill))
def masked_fill_(self, mask, value) -> Tensor:
    mask = _check_mask("masked_fill_", mask)
    _masked_fill_into(self, _writable(self), mask, value)
    return self


_method("masked_fill", masked_fill)
_method("masked_fill_", masked_fill_, function=False)


def _masked_scatter_into(self: Tensor, arr: np.ndarray, mask: Tensor, source) -> None:
    source = _tensor(source, "masked_scatter_", "source", 2)
    if mask.dtype is not D.bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{scalar_name(mask.dtype)}"
        )
    if source.dtype is not self.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_name(self.dtype)} and {scalar_name(source.dtype)}"
        )
    try:
        m = np.broadcast_to(mask._np(), arr.shape)
    except ValueError:
        raise RuntimeError(
            f"output with shape {L._fmt(arr.shape)} doesn't match the broadcast shape "
            f"{L._fmt(L.broadcast_shapes(arr.shape, mask._shape))}"
        ) from None
    count = int(np.count_nonzero(m))
    if source.numel() < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        arr[m] = np.array(source._np()).reshape(-1)[:count]


def _make_masked_scatter(out, input, mask, source):
    return IG.MaskedScatterBackward0(input, source, mask._np().copy())


@differentiable(_make_masked_scatter, "masked_scatter")
def masked_scatter(input, mask, source) -> Tensor:
    """A copy of ``input`` whose masked positions take ``source``'s elements in order."""
    input = _tensor(input, "masked_scatter", "input", 1)
    mask = _tensor(mask, "masked_scatter", "mask", 2)
    shape = L.broadcast_shapes(input._shape, mask._shape)
    out = _fresh_contiguous(input, shape)
    _masked_scatter_into(out, out._np(), mask, source)
    return out


@inplace_differentiable(same_as(masked_scatter))
def masked_scatter_(self, mask, source) -> Tensor:
    mask = _tensor(mask, "masked_scatter_", "mask", 1)
    _masked_scatter_into(self, _writable(self), mask, source)
    return self


_method("masked_scatter", masked_scatter)
_method("masked_scatter_", masked_scatter_, function=False)


# ---------------------------------------------------------------------------------------------
# gather / scatter / scatter_add / scatter_reduce
# ---------------------------------------------------------------------------------------------


def _check_gather_index(fname: str, index: Tensor) -> None:
    if index.dtype not in (D.int32, D.int64):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")


def _check_bounds(idx: np.ndarray, size: int, dim: int) -> None:
    if idx.size:
        bad = (idx < 0) | (idx >= size)
        if bad.any():
            v = idx[bad].reshape(-1)[0]
            raise RuntimeError(f"index {v} is out of bounds for dimension {dim} with size {size}")


def _gather_args(input: Tensor, dim, index: Tensor):
    d = _dim(dim, input.ndim)
    _check_gather_index("gather", index)
    idx = _long_index(index)
    ndim = builtins.max(input.ndim, 1)
    if builtins.max(index.ndim, 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ishape, xshape = _as_1d(idx).shape, input._shape or (1,)
    for k in range(ndim):
        if k != d and ishape[k] > xshape[k]:
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {L._fmt(index._shape)} to "
                f"be no larger than self {L._fmt(input._shape)} apart from dimension {d}"
            )
    return d, idx


def _make_gather(out, input, dim, index, *, sparse_grad=False, **kwargs):
    d, idx = _gather_args(input, dim, index)
    return IG.GatherBackward0(input, d, idx)


@differentiable(_make_gather, "gather")
def gather(input, dim, index, *, sparse_grad: bool = False) -> Tensor:
    """``out[i][j] = input[index[i][j]][j]`` (for ``dim=0``): the shape of ``index``."""
    input = _tensor(input, "gather", "input", 1)
    index = _tensor(index, "gather", "index", 3)
    d, idx = _gather_args(input, dim, index)
    x = _as_1d(input._np())
    i1 = _as_1d(idx)
    if i1.size:
        _check_bounds(i1, x.shape[d], d)
    values = x[IG.scatter_coords(i1, d)] if i1.size else np.empty(i1.shape, x.dtype)
    return Tensor._from_array(values.reshape(idx.shape), input.dtype)


_method("gather", gather)


def _scatter_args(fname: str, self: Tensor, dim, index, src) -> tuple[int, np.ndarray]:
    index = _tensor(index, fname, "index", 3)
    d = _dim(dim, self.ndim)
    _check_gather_index(fname, index)
    idx = _long_index(index)
    ndim = builtins.max(self.ndim, 1)
    if builtins.max(index.ndim, 1) != ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, Tensor):
        if src.dtype is not self.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if builtins.max(src.ndim, 1) != ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ishape, xshape = _as_1d(idx).shape, self._shape or (1,)
    sshape = (src._shape or (1,)) if isinstance(src, Tensor) else None
    too_big_self = builtins.any(k != d and ishape[k] > xshape[k] for k in range(ndim))
    too_big_src = sshape is not None and builtins.any(ishape[k] > sshape[k] for k in range(ndim))
    if too_big_self or too_big_src:
        msg = (
            f"Expected index {L._fmt(index._shape)} to be no larger than self "
            f"{L._fmt(self._shape)} apart from dimension {d}"
        )
        if sshape is not None:
            msg += f" and to be no larger size than src {L._fmt(src._shape)}"
        raise RuntimeError(msg)
    if idx.size:
        _check_bounds(_as_1d(idx), xshape[d], d)
    return d, idx


_UFUNC = {"add": np.add, "multiply": np.multiply, "sum": np.add, "prod": np.multiply}


def _scatter_into(arr, self: Tensor, dim, index, src, value, reduce, fname="scatter") -> None:
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    d, idx = _scatter_args(fname, self, dim, index, src)
    if not idx.size:
        return
    a, i1 = _as_1d(arr), _as_1d(idx)
    coords = IG.scatter_coords(i1, d)
    if src is not None:
        vals = IG.leading(_as_1d(np.array(src._np())), i1.shape)
    else:
        vals = _value(value, self, fname)
    if reduce is None:
        a[coords] = vals
    else:
        _UFUNC[reduce].at(a, coords, np.broadcast_to(vals, i1.shape))


def _split_src(src, value):
    """``scatter(dim, index, src)`` and ``scatter(dim, index, value)``: one positional slot."""
    if value is not None:
        return None, value
    if isinstance(src, Tensor):
        return src, None
    return None, src


def _make_scatter(out, input, dim, index, src=None, value=None, *, reduce=None, **kwargs):
    src, value = _split_src(src, value)
    if reduce is not None:
        return NotImplementedNode(
            "torch::autograd::NotImplemented",
            "derivative for aten::scatter is not implemented",
            input,
        )
    d, idx = _scatter_args("scatter", input, dim, index, src)
    name = "ScatterBackward0" if src is not None else "ScatterBackward1"
    return IG.ScatterBackward(name, input, src, d, idx)


@differentiable(_make_scatter, "scatter")
def scatter(input, dim, index, src=None, value=None, *, reduce=None) -> Tensor:
    """A copy of ``input`` with ``src``'s elements (or ``value``) written at ``index`` along
    ``dim``; ``reduce='add'``/``'multiply'`` combines instead of overwriting."""
    input = _tensor(input, "scatter", "input", 1)
    src, value = _split_src(src, value)
    if src is None and value is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    out = _fresh_contiguous(input)
    _scatter_into(out._np(), out, dim, index, src, value, reduce)
    return out


@inplace_differentiable(same_as(scatter))
def scatter_(self, dim, index, src=None, value=None, *, reduce=None) -> Tensor:
    src, value = _split_src(src, value)
    if src is None and value is None:
        raise TypeError("scatter_() missing required argument 'src' or 'value'")
    arr = _writable(self)
    _scatter_into(arr, self, dim, index, src, value, reduce)
    return self


_method("scatter", scatter)
_method("scatter_", scatter_, function=False)


def _make_scatter_add(out, input, dim, index, src):
    d, idx = _scatter_args("scatter_add", input, dim, index, src)
    return IG.ScatterBackward("ScatterAddBackward0", input, src, d, idx)


@differentiable(_make_scatter_add, "scatter_add")
def scatter_add(input, dim, index, src) -> Tensor:
    """A copy of ``input`` with ``src``'s elements added at ``index`` along ``dim``."""
    input = _tensor(input, "scatter_add", "input", 1)
    src = _tensor(src, "scatter_add", "src", 4)
    out = _fresh_contiguous(input)
    _scatter_into(out._np(), out, dim, index, src, None, "add", "scatter_add")
    return out


@inplace_differentiable(same_as(scatter_add))
def scatter_add_(self, dim, index, src) -> Tensor:
    src = _tensor(src, "scatter_add_", "src", 3)
    _scatter_into(_writable(self), self, dim, index, src, None, "add", "scatter_add")
    return self


_method("scatter_add", scatter_add)
_method("scatter_add_", scatter_add_, function=False)

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_into(arr, self: Tensor, dim, index, src, reduce, include_self) -> None:
    src = _tensor(src, "scatter_reduce", "src", 4)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(
            "reduce argument must be either sum, prod, mean, amax or amin, got " + str(reduce)
        )
    d, idx = _scatter_args("scatter_reduce", self, dim, index, src)
    if not idx.size:
        return
    a, i1 = _as_1d(arr), _as_1d(idx)
    coords = IG.scatter_coords(i1, d)
    vals = IG.leading(_as_1d(np.array(src._np())), i1.shape)
    floating = self.dtype.is_floating_point
    if not include_self:
        ident = {
            "sum": 0,
            "mean": 0,
            "prod": 1,
            "amax": -np.inf if floating else np.iinfo(a.dtype).min,
            "amin": np.inf if floating else np.iinfo(a.dtype).max,
        }[reduce]
        if self.dtype is D.bool_:
            ident = reduce == "amin" or reduce == "prod"
        a[coords] = ident
    if reduce in ("sum", "prod"):
        _UFUNC[reduce].at(a, coords, vals)
    elif reduce == "amax":
        np.maximum.at(a, coords, vals)
    elif reduce == "amin":
        np.minimum.at(a, coords, vals)
    else:  # mean
        count = np.full(a.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, coords, 1)
        total = a.astype(np.float64) if floating else a.astype(np.int64)
        if floating:
            acc = np.array(a)
            np.add.at(acc, coords, vals)
            count = np.where(count == 0, 1, count)
            a[...] = (acc / count.astype(acc.dtype)).astype(a.dtype)
        else:
            np.add.at(total, coords, vals.astype(np.int64))
            count = np.where(count == 0, 1, count)
            a[...] = np.floor_divide(total, count).astype(a.dtype)


def _make_scatter_reduce(out, input, dim, index, src, reduce, *, include_self=True):
    d, idx = _scatter_args("scatter_reduce", input, dim, index, src)
    return IG.ScatterReduceBackward0(
        input,
        src,
        d,
        idx,
        reduce,
        include_self,
        np.array(input._np()),
        np.array(src._np()),
        np.array(out._np()),
    )


@differentiable(_make_scatter_reduce, "scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self: bool = True) -> Tensor:
    """A copy of ``input`` where each indexed position is reduced (``sum``, ``prod``, ``mean``,
    ``amax``, ``amin``) with the ``src`` elements sent to it (and itself if ``include_self``)."""
    input = _tensor(input, "scatter_reduce", "input", 1)
    out = _fresh_contiguous(input)
    _scatter_reduce_into(out._np(), out, dim, index, src, reduce, include_self)
    return out


@inplace_differentiable(same_as(scatter_reduce))
def scatter_reduce_(self, dim, index, src, reduce, *, include_self: bool = True) -> Tensor:
    _scatter_reduce_into(_writable(self), self, dim, index, src, reduce, include_self)
    return self


_method("scatter_reduce", scatter_reduce)
_method("scatter_reduce_", scatter_reduce_, function=False)


# ---------------------------------------------------------------------------------------------
# index_add / index_copy / index_fill
# ---------------------------------------------------------------------------------------------


def _check_source_shape(self: Tensor, source: Tensor, d: int, fname: str) -> None:
    xs, ss = list(self._shape or (1,)), list(source._shape or (1,))
    ok = len(xs) == len(ss) and builtins.all(
        a == b for k, (a, b) in enumerate(zip(xs, ss)) if k != d
    )
    if fname == "index_add_" and (not ok or self.ndim != source.ndim):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {L._fmt(self._shape)} source.shape = "
            f"{L._fmt(source._shape)}"
        )
    if fname == "index_copy_" and not ok:
        xslice, sslice = xs[:d] + xs[d + 1 :], ss[:d] + ss[d + 1 :]
        for k in range(builtins.min(len(xslice), len(sslice))):
            if xslice[k] != sslice[k]:
                raise RuntimeError(
                    "index_copy_(): Source/destination tensor must have same slice shapes. "
                    f"Destination slice shape: {xslice[k]} at dimension {k} and source slice "
                    f"shape: {sslice[k]} at dimension {k}."
                )


def _index_add_args(self: Tensor, dim, index, source):
    index = _tensor(index, "index_add", "index", 3)
    source = _tensor(source, "index_add", "source", 4)
    d = _dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with "
            f"type: {scalar_name(index.dtype)} and size: {L._fmt(index._shape)}"
        )
    if index.dtype not in (D.int32, D.int64):
        raise RuntimeError(
            "index_add_(): Expected dtype int32/int64 for index but got: "
            f"{scalar_name(index.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_name(self.dtype)}) and source "
            f"({scalar_name(source.dtype)}) must have the same scalar type"
        )
    idx = _as_1d(_long_index(index))
    src_size = source._shape[d] if source.ndim else 1
    if idx.size != src_size:
        raise RuntimeError(
            f"index_add_(): Number of indices ({idx.size}) should be equal to "
            f"source.size(dim): ({src_size}), for dim: {d}"
        )
    _check_source_shape(self, source, d, "index_add_")
    _check_bounds(idx, (self._shape or (1,))[d], d)
    return d, idx, source


def _index_add_into(arr, self, dim, index, source, alpha) -> None:
    d, idx, source = _index_add_args(self, dim, index, source)
    a = _as_1d(arr)
    vals = np.array(_as_1d(source._np()).reshape(a.shape[:d] + (idx.size,) + a.shape[d + 1 :]))
    if alpha != 1:
        vals = vals * checked_scalar(alpha, self.dtype)
    np.add.at(np.moveaxis(a, d, 0), idx, np.moveaxis(vals.astype(a.dtype), d, 0))


def _make_index_add(out, input, dim, index, source, *, alpha=1):
    d, idx, source = _index_add_args(input, dim, index, source)
    return IG.IndexAlongDim("IndexAddBackward0", input, source, d, idx, alpha)


@differentiable(_make_index_add, "index_add")
def index_add(input, dim, index, source, *, alpha=1) -> Tensor:
    """A copy of ``input`` with ``alpha * source``'s slices added at the positions ``index``
    names along ``dim`` (repeated positions add up)."""
    input = _tensor(input, "index_add", "input", 1)
    out = _fresh_contiguous(input)
    _index_add_into(out._np(), out, dim, index, source, alpha)
    return out


@inplace_differentiable(same_as(index_add))
def index_add_(self, dim, index, source, *, alpha=1) -> Tensor:
    _index_add_into(_writable(self), self, dim, index, source, alpha)
    return self


_method("index_add", index_add)
_method("index_add_", index_add_, function=False)


def _index_copy_args(self: Tensor, dim, index, source):
    index = _tensor(index, "index_copy", "index", 3)
    source = _tensor(source, "index_copy", "source", 4)
    d = _dim(dim, self.ndim)
    if index.ndim > 1:
        raise IndexError("index_copy_(): Index should have dimension 1 or 0 (got 2)")
    if index.dtype is not D.int64:
        raise RuntimeError(
            f"index_copy_(): Expected a long tensor for index, but got {scalar_name(index.dtype)}"
        )
    if self.dtype is not source.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_name(self.dtype)} and (source) {scalar_name(source.dtype)}"
        )
    _check_source_shape(self, source, d, "index_copy_")
    idx = _as_1d(_long_index(index))
    src_size = source._shape[d] if source.ndim else 1
    if idx.size != src_size:
        raise IndexError(
            f"index_copy_(): Number of indices ({idx.size}) should be equal to "
            f"source.size(dim) ({src_size})"
        )
    size = (self._shape or (1,))[d]
    bad = (idx < 0) | (idx >= size)
    if bad.any():
        raise IndexError(
            f"index_copy_(): index {idx[bad][0]} is out of bounds for dimension {d} with size "
            f"{size}"
        )
    return d, idx, source


def _index_copy_into(arr, self, dim, index, source) -> None:
    d, idx, source = _index_copy_args(self, dim, index, source)
    a = _as_1d(arr)
    vals = np.array(_as_1d(source._np()).reshape(a.shape[:d] + (idx.size,) + a.shape[d + 1 :]))
    np.moveaxis(a, d, 0)[idx] = np.moveaxis(vals, d, 0)


def _make_index_copy(out, input, dim, index, source):
    d, idx, source = _index_copy_args(input, dim, index, source)
    return IG.IndexAlongDim("IndexCopyBackward0", input, source, d, idx)


@differentiable(_make_index_copy, "index_copy")
def index_copy(input, dim, index, source) -> Tensor:
    """A copy of ``input`` whose slices ``index`` along ``dim`` are ``source``'s slices."""
    input = _tensor(input, "index_copy", "input", 1)
    out = _fresh_contiguous(input)
    _index_copy_into(out._np(), out, dim, index, source)
    return out


@inplace_differentiable(same_as(index_copy))
def index_copy_(self, dim, index, source) -> Tensor:
    _index_copy_into(_writable(self), self, dim, index, source)
    return self


_method("index_copy", index_copy)
_method("index_copy_", index_copy_, function=False)


def _index_fill_args(self: Tensor, dim, index):
    index = _tensor(index, "index_fill", "index", 3)
    d = _dim(dim, self.ndim)
    if index.dtype is not D.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    idx = _as_1d(_long_index(index))
    size = (self._shape or (1,))[d]
    bad = (idx < -size) | (idx >= size)
    if bad.any():
        raise IndexError(f"index {idx[bad][0]} is out of bounds for dimension {d} with size {size}")
    return d, np.where(idx < 0, idx + size, idx)


def _index_fill_into(arr, self, dim, index, value) -> None:
    d, idx = _index_fill_args(self, dim, index)
    v = _value(value, self, "index_fill_")
    np.moveaxis(_as_1d(arr), d, 0)[idx] = v


def _make_index_fill(out, input, dim, index, value):
    d, idx = _index_fill_args(input, dim, index)
    name = "IndexFillBackward1" if isinstance(value, Tensor) else "IndexFillBackward0"
    return IG.IndexAlongDim(name, input, value if isinstance(value, Tensor) else None, d, idx)


@differentiable(_make_index_fill, "index_fill")
def index_fill(input, dim, index, value) -> Tensor:
    """A copy of ``input`` with ``value`` in the slices ``index`` names along ``dim``."""
    input = _tensor(input, "index_fill", "input", 1)
    out = _fresh(input)
    _index_fill_into(out._np(), out, dim, index, value)
    return out


@inplace_differentiable(same_as(index_fill))
def index_fill_(self, dim, index, value) -> Tensor:
    _index_fill_into(_writable(self), self, dim, index, value)
    return self


_method("index_fill", index_fill)
_method("index_fill_", index_fill_, function=False)


# ---------------------------------------------------------------------------------------------
# index_put / put / take / take_along_dim
# ---------------------------------------------------------------------------------------------


def _index_put_args(self: Tensor, indices, values):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): argument 'indices' (position 2) must be tuple of Tensors, not "
            f"{type(indices).__name__}"
        )
    values = _tensor(values, "index_put", "values", 3)
    if values.dtype is not self.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_name(self.dtype)} for the destination and {scalar_name(values.dtype)} for "
            "the source."
        )
    parts = []
    used = 0
    for i, it in enumerate(indices):
        if not isinstance(it, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(it).__name__}"
            )
        if it.dtype not in (D.int64, D.int32, D.uint8, D.bool_, D.int16, D.int8):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        arr = it._np()
        if it.dtype in (D.bool_, D.uint8):
            arr = arr.astype(bool)
            used += builtins.max(arr.ndim, 1)
        else:
            arr = arr.astype(np.int64)
            used += 1
        parts.append(arr)
    if used > self.ndim:
        raise IndexError(
            f"too many indices for tensor of dimension {self.ndim} (got {len(indices)})"
        )
    shape = self._shape
    dim = 0
    np_index = []
    for p in parts:
        if isinstance(p, np.ndarray) and p.dtype != np.bool_:
            size = shape[dim]
            bad = (p < -size) | (p >= size)
            if bad.any():
                raise IndexError(
                    f"index {p[bad].reshape(-1)[0]} is out of bounds for dimension {dim} with "
                    f"size {size}"
                )
            p = np.where(p < 0, p + size, p)
            dim += 1
        elif isinstance(p, np.ndarray):
            for k in range(p.ndim):
                if p.shape[k] != shape[dim + k]:
                    raise IndexError(
                        f"The shape of the mask {L._fmt(p.shape)} at index {k} does not match "
                        f"the shape of the indexed tensor {L._fmt(shape)} at index {dim + k}"
                    )
            dim += p.ndim
        else:
            dim += 1
        np_index.append(p)
    np_index = tuple(np_index)
    target = np.empty(shape, dtype=np.bool_)[np_index].shape
    try:
        np.broadcast_to(np.empty(values._shape), target)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {L._fmt(values._shape)} cannot be broadcast "
            f"to indexing result of shape {L._fmt(target)}"
        ) from None
    return np_index, values, target


def _index_put_into(arr, self, indices, values, accumulate) -> None:
    np_index, values, target = _index_put_args(self, indices, values)
    vals = np.broadcast_to(np.array(values._np()), target)
    if accumulate:
        np.add.at(arr, np_index, vals)
    else:
        arr[np_index] = vals


def _make_index_put(out, input, indices, values, accumulate=False):
    np_index, values, _ = _index_put_args(input, indices, values)
    return IG.IndexPutBackward(input, values, np_index, accumulate)


@differentiable(_make_index_put, "index_put")
def index_put(input, indices, values, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``values`` at ``input[indices]`` (added there if
    ``accumulate``); ``indices`` is a tuple of index tensors, as in ``input[indices] = values``."""
    input = _tensor(input, "index_put", "input", 1)
    out = _fresh(input)
    _index_put_into(out._np(), out, indices, values, accumulate)
    return out


@inplace_differentiable(same_as(index_put))
def index_put_(self, indices, values, accumulate: bool = False) -> Tensor:
    _index_put_into(_writable(self), self, indices, values, accumulate)
    return self


_method("index_put", index_put)
_method("index_put_", index_put_, function=False)


def _flat_index(fname: str, index: Tensor, numel: int) -> np.ndarray:
    if index.dtype is not D.int64:
        raise RuntimeError(
            f"{fname}(): Expected a long tensor for index, but got {scalar_name(index.dtype)}"
        )
    idx = _long_index(index)
    bad = (idx < -numel) | (idx >= numel)
    if bad.any():
        raise IndexError(
            f"out of range: tried to access index {idx[bad].reshape(-1)[0]} on a tensor of "
            f"{numel} elements."
        )
    return np.where(idx < 0, idx + numel, idx)


def _make_take(out, input, index):
    return IG.TakeBackward0(input, _flat_index("take", index, input.numel()))


@differentiable(_make_take, "take")
def take(input, index) -> Tensor:
    """``input`` read as a flat (row-major) sequence at the positions ``index``: its shape."""
    input = _tensor(input, "take", "input", 1)
    index = _tensor(index, "take", "index", 2)
    idx = _flat_index("take", index, input.numel())
    values = np.reshape(input._np(), -1)[idx] if idx.size else np.empty(idx.shape, input.dtype.np)
    return Tensor._from_array(values, input.dtype)


_method("take", take)


def _put_args(self: Tensor, index, source):
    index = _tensor(index, "put", "index", 2)
    source = _tensor(source, "put", "source", 3)
    if index.dtype is not D.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {scalar_name(index.dtype)}"
        )
    if source.dtype is not self.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{scalar_name(self.dtype)} and source.dtype = {scalar_name(source.dtype)}"
        )
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.numel()}, index.numel() = {index.numel()}"
        )
    return _flat_index("put_", index, self.numel()), source


def _put_into(arr, self, index, source, accumulate) -> None:
    idx, source = _put_args(self, index, source)
    if not idx.size:
        return
    arr = _as_1d(arr)
    coords = np.unravel_index(idx.reshape(-1), arr.shape)
    vals = np.array(source._np()).reshape(-1)
    if accumulate:
        np.add.at(arr, coords, vals)
    else:
        arr[coords] = vals


def _make_put(out, input, index, source, accumulate=False):
    idx, source = _put_args(input, index, source)
    return IG.PutBackward0(input, idx, source, accumulate)


@differentiable(_make_put, "put")
def put(input, index, source, accumulate: bool = False) -> Tensor:
    """A copy of ``input`` with ``source``'s elements at the flat (row-major) positions
    ``index`` (added there if ``accumulate``)."""
    input = _tensor(input, "put", "input", 1)
    out = _fresh(input)
    _put_into(out._np(), out, index, source, accumulate)
    return out


@inplace_differentiable(same_as(put))
def put_(self, index, source, accumulate: bool = False) -> Tensor:
    _put_into(_writable(self), self, index, source, accumulate)
    return self


_method("put", put)
_method("put_", put_, function=False)


def take_along_dim(input, indices, dim=None) -> Tensor:
    """``gather`` with ``indices`` broadcast against ``input`` (apart from ``dim``); without
    ``dim``, ``input`` is read flat (``numpy.take_along_axis``)."""
    input = _tensor(input, "take_along_dim", "input", 1)
    indices = _tensor(indices, "take_along_dim", "indices", 2)
    if indices.dtype is not D.int64:
        raise RuntimeError(
            "tensorlab.take_along_dim(): dtype of indices should be Long but got "
            f"{scalar_name(indices.dtype)}"
        )
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "tensorlab.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = _dim(dim, input.ndim)
    s1, s2 = list(input._shape), list(indices._shape)
    s1[d] = s2[d] = 1
    common = L.broadcast_shapes(tuple(s1), tuple(s2))
    x_shape, i_shape = list(common), list(common)
    x_shape[d], i_shape[d] = input._shape[d], indices._shape[d]
    size = input._shape[d]
    idx = indices._np()
    if idx.size and (idx < 0).any():  # the dim form wraps negative indices, as numpy does
        indices = Tensor._from_array(np.where((idx < 0) & (idx >= -size), idx + size, idx))
    return gather(input.expand(*x_shape), d, indices.expand(*i_shape))


_method("take_along_dim", take_along_dim)


def argwhere(input) -> Tensor:
    """The (n, ndim) indices of the nonzero elements: ``nonzero(input)``."""
    input = _tensor(input, "argwhere", "input", 1)
    from .comparison import nonzero

    return nonzero(input)


_method("argwhere", argwhere)
