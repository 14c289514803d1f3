"""Sorting and counting (PyTorch's ``Sorting.cpp``, ``Unique.cpp``, ``Bucketization.cpp``,
``SummaryOps.cpp``): ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``, ``unique``,
``unique_consecutive``, ``searchsorted``, ``bucketize``, ``bincount``, ``histc``.

Order is PyTorch's: NaN is larger than everything (last ascending, first descending) and the
sort is stable (equal elements keep their order, in both directions). ``topk``/``kthvalue`` are
not stable in PyTorch: among equal values they return whatever its selection algorithm leaves,
which :mod:`._select` replays for rows with ties (and for ``topk(sorted=False)``) up to
``EMULATE_LIMIT`` elements; beyond it the values are still PyTorch's but equal values may come
with other indices.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor
from ..autograd import sorting as AG
from ._elementwise import not_implemented
from .native_functions import module_function, op, tensor_method
from .reduce import _return_type, return_types

for _op in ("sort", "topk", "kthvalue", "sort_out", "topk_out", "kthvalue_out"):
    setattr(return_types, _op, _return_type(_op))

_EXPECTED_OUT = "Expected out tensor to have dtype {result}, but got {out} instead"


def _write_out(result: Tensor, out, message: str = _EXPECTED_OUT) -> Tensor:
    """``out=`` for these ops: ``out`` must have the result's dtype exactly (``message``, with
    C++ type names), is resized like PyTorch's ``resize_output`` (warning when it had elements),
    then written (keeping its strides when its shape already fits)."""
    from .._tensor import check_inplace
    from ._elementwise import check_no_internal_overlap, cpp_name, resize_out, write_into

    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if out.dtype is not result.dtype:
        raise RuntimeError(
            message.format(
                out=cpp_name(out.dtype),
                result=cpp_name(result.dtype),
                out_scalar=D.SCALAR_NAME[out.dtype.name],
            )
        )
    check_inplace(out)
    check_no_internal_overlap(out)
    resize_out(out, result._shape)
    return write_into(out, result._np())


def _pair_out(name: str, result, out):
    if out is None:
        return result
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
    values = _write_out(result[0], out[0])
    indices = _write_out(result[1], out[1])
    return getattr(return_types, f"{name}_out")(values, indices)


def _new(arr: np.ndarray, dtype: D.dtype, stride=None) -> Tensor:
    arr = np.asarray(arr)
    if stride is None:
        return Tensor._from_array(arr, dtype)
    return Tensor._from_array_strided(arr, dtype, stride)


def _check_tensor(x, fname: str, arg: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}"
        )
    return x


# ---------------------------------------------------------------------------------------------
# order
# ---------------------------------------------------------------------------------------------


def sort_order(arr: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Indices that sort ``arr`` along ``axis`` stably, NaN counted as the largest value."""
    if not descending:
        return np.argsort(arr, axis=axis, kind="stable")
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        # lexsort sorts by the last key first: non-NaN after NaN, then by -value; stable
        return np.lexsort((np.where(nan, 0, -arr), ~nan), axis=axis)
    return np.argsort(~arr, axis=axis, kind="stable")  # ~ reverses the order of ints and bools


EMULATE_LIMIT = 100_000  # elements of the rows replayed with PyTorch's selection algorithm


def _as_rows(arr: np.ndarray, d: int) -> np.ndarray:
    return np.moveaxis(arr, d, -1).reshape(-1, arr.shape[d])


def _from_rows(rows: np.ndarray, shape, d: int) -> np.ndarray:
    moved = list(shape)
    moved.append(moved.pop(d))
    return np.moveaxis(rows.reshape(moved), -1, d)


def _replay_topk(arr, values, idx, d, k, largest, sorted_):
    """Redo the rows where PyTorch's order among equal values (or its unsorted order) shows."""
    from . import _select

    rows = _as_rows(arr, d)
    todo = (
        np.ones(rows.shape[0], dtype=bool) if not sorted_ else _select.rows_needing_emulation(rows)
    )
    if not todo.any() or todo.sum() * rows.shape[1] > EMULATE_LIMIT:
        return values, idx
    v_rows, i_rows = _as_rows(values, d).copy(), _as_rows(idx, d).copy()
    for r in np.nonzero(todo)[0]:
        vals, ids = _select.topk_row(rows[r].tolist(), k, largest, sorted_)
        v_rows[r] = vals
        i_rows[r] = ids
    return _from_rows(v_rows, values.shape, d), _from_rows(i_rows, idx.shape, d)


def _replay_kthvalue(arr, idx, d, k):
    """The index PyTorch's ``quick_select_template`` picks, for rows with equal values."""
    from . import _select

    rows = _as_rows(arr, d)
    todo = _select.rows_needing_emulation(rows)
    if not todo.any() or todo.sum() * rows.shape[1] > EMULATE_LIMIT:
        return idx
    i_rows = _as_rows(idx, d).copy()
    for r in np.nonzero(todo)[0]:
        i_rows[r] = _select.kthvalue_row(rows[r].tolist(), k)[1]
    return _from_rows(i_rows, idx.shape, d)


def _sort_impl(x: Tensor, dim: int, descending: bool):
    if x.ndim == 0:
        return x._np().copy(), np.zeros((), np.int64)
    arr = x._np()
    d = L.wrap_dim(dim, x.ndim)
    idx = sort_order(arr, d, descending)
    return np.take_along_axis(arr, idx, d), idx


@op("sort", formula=AG.make_sort)
def sort(input, dim: int = -1, descending: bool = False, stable: bool = False, *, out=None):
    """``(values, indices)`` sorted along ``dim``; stable, NaN last (first when descending).
    Both results keep ``input``'s memory order (``empty_like``)."""
    x = _check_tensor(input, "sort")
    L.wrap_dim(dim, x.ndim)
    values, idx = _sort_impl(x, dim, bool(descending))
    stride = L.preserve_strides(x._shape, x._stride)
    result = return_types.sort(_new(values, x.dtype, stride), _new(idx, D.int64, stride))
    return _pair_out("sort", result, out)


@tensor_method("argsort")
def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The ``indices`` of :func:`sort`."""
    return sort(input, dim, descending, stable).indices


@tensor_method("msort")
def msort(input, *, out=None) -> Tensor:
    """``sort(input, dim=0).values`` (its node is ``SortBackward0``)."""
    if out is not None:
        return _write_out(sort(_check_tensor(input, "msort"), 0).values, out)
    return sort(_check_tensor(input, "msort"), 0).values


@op("topk", formula=AG.make_topk)
def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices, largest first
    (smallest first with ``largest=False``). NaN counts as the largest value."""
    x = _check_tensor(input, "topk")
    d = L.wrap_dim(dim, x.ndim)
    n = x._shape[d] if x.ndim else 1
    k = int(k)
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.dtype is D.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    values, idx = _sort_impl(x, d, bool(largest))
    if x.ndim == 0:
        result = return_types.topk(_new(values, x.dtype), _new(idx, D.int64))
    else:
        sl = (slice(None),) * d + (slice(0, k),)
        v, i = values[sl], idx[sl]
        if k and x.numel():
            v, i = _replay_topk(x._np(), v, i, d, k, bool(largest), bool(sorted))
        result = return_types.topk(_new(v, x.dtype), _new(i, D.int64))
    return _pair_out("topk", result, out)


@op("kthvalue", formula=AG.make_kthvalue)
def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim`` and its index."""
    x = _check_tensor(input, "kthvalue")
    d = L.wrap_dim(dim, x.ndim)
    n = x._shape[d] if x.ndim else 1
    k = int(k)
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.dtype is D.bool_ and x.ndim:  # a 0-dim tensor never reaches the kernel
        raise not_implemented("kthvalue_cpu", x.dtype)
    values, idx = _sort_impl(x, d, False)
    if x.ndim == 0:
        result = return_types.kthvalue(_new(values, x.dtype), _new(idx, D.int64))
    else:
        sl = (slice(None),) * d + (slice(k - 1, k),)
        v, i = values[sl], idx[sl]
        if x.numel():
            i = _replay_kthvalue(x._np(), i, d, k)
        if not keepdim:
            v, i = v.squeeze(d), i.squeeze(d)
        result = return_types.kthvalue(_new(v, x.dtype), _new(i, D.int64))
    return _pair_out("kthvalue", result, out)


# ---------------------------------------------------------------------------------------------
# unique
# ---------------------------------------------------------------------------------------------


def _moved_layout(values: np.ndarray, d: int, dtype: D.dtype) -> Tensor:
    """PyTorch computes ``unique(dim=d)`` on ``x.moveaxis(d, 0)`` and moves the axis back: the
    result is contiguous in that moved order (``values`` has dim ``d`` at position ``d``)."""
    moved_shape = (values.shape[d],) + values.shape[:d] + values.shape[d + 1 :]
    cs = L.contiguous_strides(moved_shape)
    stride = cs[1 : d + 1] + (cs[0],) + cs[d + 1 :]
    return Tensor._from_array_strided(np.ascontiguousarray(values), dtype, stride)


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def _record_not_differentiable(out, x: Tensor, name: str, op: str):
    from ..autograd.grad_mode import STATE

    if STATE.enabled and x.requires_grad and out.dtype.is_floating_point:
        from ..autograd.graph import attach
        from ..autograd.sorting import NotDifferentiable

        attach(out, NotDifferentiable(name, f"the derivative for '{op}' is not implemented.", x))
    return out


def _empty_unique_dim(x: Tensor, d: int):
    """``unique(dim=d)`` of an empty tensor: itself when dim ``d`` is the empty one, else
    PyTorch's error. Returns (values, inverse, counts) or None when ``x`` is not empty."""
    if x.numel():
        return None
    if x._shape[d] != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    empty = np.zeros(0, np.int64)
    return np.zeros(x._shape, x.dtype.np), empty, empty


def _unique_slices(arr: np.ndarray, d: int):
    """Sorted distinct slices of ``arr`` along ``d`` (lexicographic), inverse and counts."""
    moved = np.moveaxis(arr, d, 0).reshape(arr.shape[d], -1)
    order = np.lexsort(moved.T[::-1]) if moved.shape[1] else np.arange(moved.shape[0])
    srt = moved[order]
    new = np.ones(len(srt), dtype=bool)
    if len(srt) > 1:
        new[1:] = (srt[1:] != srt[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(srt), dtype=np.int64)
    inverse[order] = group
    counts = np.bincount(group, minlength=int(new.sum())) if len(srt) else np.zeros(0, np.int64)
    picked = np.moveaxis(arr, d, 0)[order[new]]
    return np.moveaxis(picked, 0, d), inverse, counts.astype(np.int64)


@tensor_method("unique")
def unique(
    input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """The distinct elements (sorted; NaNs are all distinct), and optionally for each input
    element the index of its value (``return_inverse``) and how often each value occurs
    (``return_counts``). With ``dim``: the distinct slices along ``dim``."""
    x = _check_tensor(input, "unique")
    if dim is not None and x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    arr = x._np()
    if dim is None:
        flat = arr.reshape(-1)
        order = np.argsort(flat, kind="stable")
        srt = flat[order]
        new = np.ones(srt.size, dtype=bool)
        if srt.size > 1:
            new[1:] = srt[1:] != srt[:-1]  # NaN != NaN: every NaN stays
        group = np.cumsum(new) - 1
        inverse = np.empty(srt.size, dtype=np.int64)
        inverse[order] = group
        values = srt[new]
        counts = np.bincount(group, minlength=values.size).astype(np.int64)
        inverse = inverse.reshape(x._shape)
        name, op = "Unique2Backward0", "_unique2"
    else:
        d = L.wrap_dim(dim, x.ndim)
        values, inverse, counts = _empty_unique_dim(x, d) or _unique_slices(arr, d)
        name, op = "UniqueDimBackward0", "unique_dim"
    if dim is None or x.numel() == 0:  # an empty input comes back contiguous
        out = _new(values, x.dtype)
    else:
        out = _moved_layout(values, d, x.dtype)
    out = _record_not_differentiable(out, x, name, op)
    return _unique_result(
        out, _new(inverse, D.int64), _new(counts, D.int64), return_inverse, return_counts
    )


@tensor_method("unique_consecutive")
def unique_consecutive(input, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse each run of equal consecutive elements (or slices along ``dim``) to one."""
    x = _check_tensor(input, "unique_consecutive")
    if dim is not None and x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    arr = x._np()
    if dim is None:
        flat = arr.reshape(-1)
        new = np.ones(flat.size, dtype=bool)
        if flat.size > 1:
            new[1:] = flat[1:] != flat[:-1]
        values = flat[new]
        inv_shape = x._shape
    elif x.numel() == 0:
        d = L.wrap_dim(dim, x.ndim)
        empty = _empty_unique_dim(x, d)
        out = _record_not_differentiable(
            _new(empty[0], x.dtype), x, "UniqueConsecutiveBackward0", "unique_consecutive"
        )
        return _unique_result(
            out, _new(empty[1], D.int64), _new(empty[2], D.int64), return_inverse, return_counts
        )
    else:
        d = L.wrap_dim(dim, x.ndim)
        moved = np.moveaxis(arr, d, 0).reshape(arr.shape[d] if x.ndim else 1, -1)
        new = np.ones(moved.shape[0], dtype=bool)
        if moved.shape[0] > 1:
            new[1:] = (moved[1:] != moved[:-1]).any(axis=1)
        values = np.moveaxis(np.moveaxis(arr, d, 0)[new], 0, d)
        inv_shape = (moved.shape[0],)
    group = np.cumsum(new) - 1
    counts = np.bincount(group, minlength=int(new.sum())).astype(np.int64)
    out = _new(values, x.dtype) if dim is None else _moved_layout(values, d, x.dtype)
    out = _record_not_differentiable(out, x, "UniqueConsecutiveBackward0", "unique_consecutive")
    inverse = group.astype(np.int64).reshape(inv_shape)
    return _unique_result(
        out, _new(inverse, D.int64), _new(counts, D.int64), return_inverse, return_counts
    )


# ---------------------------------------------------------------------------------------------
# searchsorted / bucketize
# ---------------------------------------------------------------------------------------------


def _as_values(v):
    if isinstance(v, Tensor):
        return v, False
    if isinstance(v, (bool, int, float)):
        from .creation import tensor

        return tensor(v), True
    raise TypeError(
        "searchsorted(): argument 'input' (position 2) must be Tensor, not " + type(v).__name__
    )


def _search(seq: np.ndarray, values: np.ndarray, right: bool) -> np.ndarray:
    """Row-wise ``np.searchsorted`` of ``values`` (..., m) into ``seq`` (..., n)."""
    side = "right" if right else "left"
    common = np.result_type(seq, values)
    seq, values = seq.astype(common, copy=False), values.astype(common, copy=False)
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side)
    rows_s = seq.reshape(-1, seq.shape[-1])
    rows_v = values.reshape(-1, values.shape[-1])
    out = np.empty(rows_v.shape, dtype=np.int64)
    for i in range(rows_s.shape[0]):
        out[i] = np.searchsorted(rows_s[i], rows_v[i], side=side)
    return out.reshape(values.shape)


_WARNED: set[str] = set()


def _warn_non_contiguous(t: Tensor, what: str) -> None:
    """PyTorch's ``TORCH_WARN_ONCE`` (once per program) for a non-contiguous argument."""
    if what in _WARNED or t.is_contiguous():
        return
    import warnings

    _WARNED.add(what)
    warnings.warn(
        f"tensorlab.searchsorted(): {what} tensor is non-contiguous, this will lower the "
        "performance due to extra data copy when converting non-contiguous tensor to "
        f"contiguous, please use contiguous {what} tensor if possible. This message will only "
        "appear once per program.",
        UserWarning,
        stacklevel=4,
    )


def _check_side(side, right: bool) -> bool:
    if side is None:
        return bool(right)
    if side not in ("left", "right"):
        raise RuntimeError(
            f"tensorlab.searchsorted(): side can only be 'left' or 'right' but got {side}"
        )
    if right and side == "left":
        raise RuntimeError(
            "tensorlab.searchsorted(): side and right can't be set to opposites, got side of left "
            "while right was True"
        )
    return side == "right"


def searchsorted(
    sorted_sequence,
    input,
    *,
    out_int32: bool = False,
    right: bool = False,
    side=None,
    sorter=None,
    out=None,
) -> Tensor:
    """For each value of ``input``, the index where inserting it into ``sorted_sequence`` (its
    last dim) keeps it sorted: before equal elements (``side='left'``) or after them."""
    seq = _check_tensor(sorted_sequence, "searchsorted", "sorted_sequence")
    values, scalar = _as_values(input)
    right = _check_side(side, right)
    if seq.ndim == 0:
        raise RuntimeError(
            "tensorlab.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
            "dimension"
        )
    if seq.ndim != 1 and (scalar or seq._shape[:-1] != values._shape[:-1]):
        raise RuntimeError(
            "tensorlab.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {L._fmt(seq._shape)} and input value tensor "
            f"{L._fmt(values._shape)}"
        )
    _warn_non_contiguous(seq, "boundary")
    _warn_non_contiguous(values, "input value")
    seq_np = seq._np()
    if sorter is not None:
        if not isinstance(sorter, Tensor) or sorter.dtype is not D.int64:
            got = (
                "dtype " + D.SCALAR_NAME[sorter.dtype.name]
                if isinstance(sorter, Tensor)
                else type(sorter)
            )
            raise RuntimeError(
                f"tensorlab.searchsorted(): sorter must be a tensor of long dtype but got {got}"
            )
        if sorter._shape != seq._shape:
            raise RuntimeError(
                "tensorlab.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {L._fmt(seq._shape)}and got sorter tensor "
                f"{L._fmt(sorter._shape)}"
            )
        seq_np = np.take_along_axis(seq_np, sorter._np(), -1)
    if values.dtype is D.bool_ or seq.dtype is D.bool_:
        raise not_implemented("searchsorted_out_cpu", D.bool_)
    vals = values._np()
    res = _search(seq_np, vals.reshape(1) if vals.ndim == 0 else vals, right).reshape(vals.shape)
    result = _new(
        res.astype(np.int32 if out_int32 else np.int64), D.int32 if out_int32 else D.int64
    )
    if out is None:
        return result
    return _write_out(
        result,
        out,
        "tensorlab.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or "
        "Long(int64) depending on whether out_int32 flag is True, but we got output tensor's "
        f"dtype {{out_scalar}} and out_int32 flag is {bool(out_int32)}",
    )


def bucketize(
    input, boundaries, *, out_int32: bool = False, right: bool = False, out=None
) -> Tensor:
    """The bucket of each element: ``boundaries[i-1] < x <= boundaries[i]`` (``right=False``) or
    ``boundaries[i-1] <= x < boundaries[i]`` (``right=True``); ``boundaries`` is 1-D, sorted."""
    b = _check_tensor(boundaries, "bucketize", "boundaries", 2)
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    return searchsorted(b, input, out_int32=out_int32, right=right, out=out)


# ---------------------------------------------------------------------------------------------
# bincount / histc
# ---------------------------------------------------------------------------------------------


@tensor_method("bincount")
def bincount(input, weights=None, minlength: int = 0) -> Tensor:
    """How often each value 0..max occurs in a 1-D tensor of non-negative integers (at least
    ``minlength`` bins); with ``weights``, the sum of the weights instead."""
    x = _check_tensor(input, "bincount")
    if x.dtype.is_floating_point or x.dtype is D.bool_:
        raise not_implemented("bincount_cpu", x.dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    arr = x._np()
    if x.ndim != 1 or (arr.size and arr.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights._shape[0] != x._shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None or arr.size == 0:  # an empty input gives int64 zeros, weights or not
        return _new(np.bincount(arr, minlength=minlength).astype(np.int64), D.int64)
    dt = D.float32 if weights.dtype is D.float32 else D.float64
    w = weights._np().astype(dt.np)
    n = max(int(arr.max()) + 1 if arr.size else 0, int(minlength))
    acc = np.zeros(n, dtype=dt.np)
    np.add.at(acc, arr, w)
    out = _new(acc, dt)
    from ..autograd.grad_mode import STATE

    if STATE.enabled and weights.requires_grad:
        from ..autograd.graph import NotImplementedNode, attach

        attach(out, NotImplementedNode("NotImplemented", _BINCOUNT_GRAD, weights))
    return out


_BINCOUNT_GRAD = "derivative for aten::bincount is not implemented"


def _linspace(lo, hi, steps: int, np_dtype) -> np.ndarray:
    """``torch.linspace`` on CPU: the first half from ``lo``, the second half back from ``hi``."""
    lo, hi = np_dtype.type(lo), np_dtype.type(hi)
    if steps == 1:
        return np.array([lo], dtype=np_dtype)
    step = (hi - lo) / np_dtype.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    out = np.where(
        i < half,
        lo + step * i.astype(np_dtype),
        hi - step * (steps - i - 1).astype(np_dtype),
    )
    return out.astype(np_dtype)


def _c_float(v: float) -> str:
    if v != v:
        return "nan"  # torch prints "-nan" or "nan" depending on the CPU's min/max kernels
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    return f"{v:g}"


@tensor_method("histc")
def histc(input, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:
    """Counts of the elements in ``bins`` equal-width bins over ``[min, max]`` (the data's range
    when both are 0); elements outside are ignored, ``max`` itself falls in the last bin."""
    x = _check_tensor(input, "histc")
    if not x.dtype.is_floating_point:
        raise not_implemented("histogram_cpu", x.dtype)
    if bins <= 0:
        raise RuntimeError(
            f"tensorlab.histogram(): bins must be > 0, but got {bins} for dimension 0"
        )
    npd = np.dtype(np.float32) if x.dtype is D.float16 else x.dtype.np
    arr = x._np().reshape(-1).astype(npd)
    lo, hi = npd.type(min), npd.type(max)
    if lo == hi and arr.size:
        lo, hi = arr.min(), arr.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(
            f"tensorlab.histc: range of [{_c_float(float(lo))}, {_c_float(float(hi))}] is not finite"
        )
    if lo > hi:
        raise RuntimeError("tensorlab.histc: max must be larger than min")
    edges = _linspace(lo, hi, bins + 1, npd)
    inside = arr[(arr >= lo) & (arr <= hi)]
    pos = np.searchsorted(edges, inside, side="right") - 1
    pos = np.clip(pos, 0, bins - 1)
    counts = np.bincount(pos, minlength=bins).astype(x.dtype.np)
    if out is None:
        return _new(counts, x.dtype)
    return _write_out(
        _new(counts, x.dtype),
        out,
        "tensorlab.histogram: input tensor and hist tensor should have the same dtype, but got "
        "input {result} and hist {out}",
    )


# torch has no Tensor.searchsorted/bucketize
module_function("searchsorted")(searchsorted)
module_function("bucketize")(bucketize)


# ---------------------------------------------------------------------------------------------
# histogram
# ---------------------------------------------------------------------------------------------


def _histogram_type():
    from ..linalg import _named

    cls = _named("histogram", ("hist", "bin_edges"))
    return_types.histogram = cls
    return cls


def _fmt_double(v: float) -> str:
    return _c_float(float(v))


@tensor_method("histogram")
def histogram(input, bins=100, *, range=None, weight=None, density: bool = False, out=None):
    """``(hist, bin_edges)``: counts (or summed ``weight``s; a density with ``density=True``) of
    the elements in ``bins`` equal-width bins over ``range`` (the data's min and max), or in the
    bins whose edges the tensor ``bins`` lists; ``max`` falls in the last bin (ATen's
    ``histogramdd`` kernel)."""
    bins_tensor = isinstance(bins, Tensor)
    if not isinstance(input, Tensor) or (bins_tensor and range is not None):
        got = ", ".join(
            [type(input).__name__, type(bins).__name__]
            + ([f"range={type(range).__name__}"] if range is not None else [])
        )
        raise TypeError(
            f"histogram() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n"
            " * (Tensor input, Tensor bins, *, Tensor weight = None, bool density = False, tuple "
            "of Tensors out = None)\n"
            " * (Tensor input, int bins = 100, *, tuple of floats range = None, Tensor weight = "
            "None, bool density = False, tuple of Tensors out = None)\n"
        )
    x = input
    if not x.dtype.is_floating_point:
        raise not_implemented("histogramdd", x.dtype)
    npd = x.dtype.np
    arr = x._np().reshape(-1)
    if weight is not None and tuple(weight.shape) != (arr.size,):
        raise RuntimeError(
            "tensorlab.histogramdd: if weight tensor is provided it should have the same shape as "
            "the input tensor excluding its innermost dimension, but got input with shape "
            f"[{arr.size}, 1] and weight with shape {_shape_list(weight.shape)}"
        )
    if bins_tensor:
        edges = bins.detach()._np().reshape(-1).astype(npd)
        nbins = edges.size - 1
    else:
        if bins <= 0:
            raise RuntimeError(
                f"tensorlab.histogram(): bins must be > 0, but got {bins} for dimension 0"
            )
        if range is not None:
            lo, hi = float(range[0]), float(range[1])
        elif arr.size:
            lo, hi = float(arr.min()), float(arr.max())
        else:
            lo, hi = 0.0, 0.0
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise RuntimeError(
                f"tensorlab.histogramdd: dimension 0's range [{_fmt_double(lo)}, "
                f"{_fmt_double(hi)}] is not finite"
            )
        if lo > hi:
            raise RuntimeError(
                "tensorlab.histogramdd: min should not exceed max, but got min "
                f"{_fmt_double(lo)} max {_fmt_double(hi)} for dimension 0"
            )
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        from .creation import linspace

        nbins = bins
        edges = linspace(lo, hi, bins + 1, dtype=x.dtype)._np()
    hist = np.zeros(max(nbins, 0), dtype=npd)
    if nbins > 0 and arr.size:
        left, right = edges[0], edges[-1]
        keep = (arr >= left) & (arr <= right)
        pos = np.searchsorted(edges, arr[keep], side="right") - 1
        pos = np.minimum(pos, nbins - 1)
        w = np.ones(pos.size, npd) if weight is None else weight._np().reshape(-1)[keep]
        np.add.at(hist, pos, w.astype(npd))
    if density:
        total = _cascade_total(hist)
        with np.errstate(all="ignore"):
            hist = (hist / total).astype(npd)
            hist = (hist / np.diff(edges)).astype(npd)
    cls = getattr(return_types, "histogram", None) or _histogram_type()
    return cls(_new(hist, x.dtype), _new(edges.copy(), x.dtype))


def _cascade_total(a: np.ndarray):
    from ._cascade import total

    return total(a).astype(a.dtype).item()


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"
