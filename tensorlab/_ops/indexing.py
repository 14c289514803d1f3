"""``t[...]`` and ``t[...] = v``.

Basic indexing (ints, slices with step > 0, ``None``, ``...``) only changes the layout: the result
is a view. Advanced indexing (index tensors, lists, bool masks) gathers elements into new storage:
the result is a copy, and writing to it never changes the original. ``t[idx] = v`` with advanced
indices writes straight into the original storage (it is a scatter, not a read).
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace
from ..autograd import formulas as AG
from ..autograd.grad_mode import STATE as _GRAD
from ..autograd.graph import attach
from .native_functions import tensor_method

_INDEX_TYPES = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices"


def _is_int(x) -> bool:
    return isinstance(x, (builtins.int, np.integer)) and not isinstance(
        x, (builtins.bool, np.bool_)
    )


def _as_index_array(item, size_hint=None):
    """An advanced index as a numpy int/bool array, or raise PyTorch's ``IndexError``."""
    if isinstance(item, Tensor):
        d = item.dtype
        if d.is_floating_point or d not in (D.int64, D.int32, D.int16, D.int8, D.uint8, D.bool_):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        arr = item._np()
        return arr.astype(bool) if d is D.uint8 else arr
    arr = np.asarray(item)
    if arr.dtype == object or arr.dtype.kind not in "biu":
        if arr.size == 0:
            return arr.astype(np.int64)
        kind = "float" if arr.dtype.kind == "f" else type(item).__name__
        raise IndexError(f"{_INDEX_TYPES} (got {kind})")
    return arr


SEQUENCE_AS_TUPLE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)


def _is_sequence(x) -> bool:
    """Python's ``PySequence_Check``: a list, tuple, str or any class with ``__getitem__``
    (not a dict, not a numpy scalar)."""
    return (
        hasattr(type(x), "__getitem__")
        and not isinstance(x, (dict, np.generic))
        and not isinstance(x, type)
    )


def legacy_tuple(index):
    """torch's (and old numpy's) rule for a non-tuple sequence index (``treatSequenceAsTuple``):
    a list, or any other sequence but a tensor or an array, shorter than 32 that holds a tensor,
    a sequence, a slice, ``...`` or ``None`` is taken as a tuple of indices, with torch's
    deprecation warning (``x[[t0, t1]]`` is ``x[t0, t1]``; a ``Subset`` of 0-d tensors, too).
    Any other sequence (a ``range``, a ``Subset`` of ints) is one index, as a list is; anything
    else is returned as it is."""
    if isinstance(index, (tuple, Tensor, np.ndarray)) or not _is_sequence(index):
        return index
    try:
        n = len(index)
        if n >= 32:
            return index
        items = [index[i] for i in range(n)]
    except Exception:  # noqa: BLE001 - torch clears the error and indexes with the object
        return index
    for item in items:
        if (
            isinstance(item, (Tensor, slice))
            or item is None
            or item is Ellipsis
            or _is_sequence(item)
        ):
            import warnings

            warnings.warn(SEQUENCE_AS_TUPLE_WARNING, UserWarning, stacklevel=3)
            return tuple(items)
    return index if isinstance(index, (list, str, bytes)) else items


def _normalize(index) -> tuple:
    if isinstance(index, tuple):
        return index
    return (index,)


def _check_scalar_index(t: Tensor, index) -> None:
    """PyTorch's messages for a bare int or slice on a 0-dim tensor."""
    if t.ndim or isinstance(index, tuple):
        return
    if _is_int(index):
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    if isinstance(index, slice):
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")


def _parse(t: Tensor, index):
    """Apply the basic part of ``index``.

    Returns (view layout as (shape, stride, offset), advanced) where ``advanced`` is a list of
    (result_dim, numpy index array) for the advanced parts, placed at their dims in the view.
    """
    _check_scalar_index(t, index)
    items = _normalize(index)
    consumed = 0
    for it in items:
        if it is None or it is Ellipsis or isinstance(it, (builtins.bool, np.bool_)):
            continue
        if isinstance(it, Tensor) and it.dtype in (D.bool_, D.uint8):
            consumed += max(it.ndim, 1) if it.ndim else 0
        elif isinstance(it, np.ndarray) and it.dtype == np.bool_:
            consumed += it.ndim
        else:
            consumed += 1
    if consumed > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")

    shape, stride = list(t._shape), list(t._stride)
    offset = t._offset
    out_shape: list[int] = []
    out_stride: list[int] = []
    advanced: list[tuple[int, np.ndarray]] = []
    bad_masks: list[tuple[int, np.ndarray]] = []
    ellipsis_seen = False
    dim = 0  # position in the input
    for position, it in enumerate(items):
        if it is Ellipsis:
            # PyTorch: the first ``...`` takes the unspecified dims, any later one takes none
            n = 0 if ellipsis_seen else t.ndim - consumed
            ellipsis_seen = True
            for _ in range(n):
                out_shape.append(shape[dim])
                out_stride.append(stride[dim])
                dim += 1
        elif it is None:
            out_shape.append(1)
            # like ``unsqueeze`` here: the stride spans the next input dim (1 at the end)
            out_stride.append(shape[dim] * stride[dim] if dim < t.ndim else 1)
        elif isinstance(it, (builtins.bool, np.bool_)):
            # ``t[True]`` adds a dim of size 1, ``t[False]`` one of size 0 (advanced, copies)
            out_shape.append(1)
            out_stride.append(0)
            advanced.append((len(out_shape) - 1, np.array([0] if it else [], dtype=np.int64)))
        elif _is_int(it) or (
            isinstance(it, Tensor)
            and it.ndim == 0
            and it.dtype in (D.int64, D.int32, D.int16, D.int8)
        ):
            i = int(it.item() if isinstance(it, Tensor) else it)
            size = shape[dim]
            if not -size <= i < size:
                # PyTorch names the position of the item in the index tuple
                raise IndexError(
                    f"index {i} is out of bounds for dimension {position} with size {size}"
                )
            offset += (i + size if i < 0 else i) * stride[dim]
            dim += 1
        elif isinstance(it, slice):
            for v in (it.start, it.stop, it.step):
                if v is not None and not _is_int(v) and not isinstance(v, Tensor):
                    raise TypeError(
                        "slice indices must be integers or None or have an __index__ method"
                    )
            start, stop, step = (
                None if v is None else int(v) for v in (it.start, it.stop, it.step)
            )
            n, st, off = L.slice_layout(shape[dim], stride[dim], start, stop, step)
            out_shape.append(n)
            out_stride.append(st)
            offset += off
            dim += 1
        elif isinstance(it, (Tensor, list, tuple, np.ndarray, range)):
            arr = _as_index_array(it)
            if arr.dtype == np.bool_:
                covered = shape[dim : dim + arr.ndim]
                if arr.ndim == 0:
                    out_shape.append(1)
                    out_stride.append(0)
                    advanced.append((len(out_shape) - 1, np.array([0] if arr else [], np.int64)))
                    continue
                if tuple(arr.shape) != tuple(covered):
                    bad_masks.append((len(out_shape), arr))
                for _ in range(arr.ndim):
                    out_shape.append(shape[dim])
                    out_stride.append(stride[dim])
                    dim += 1
                advanced.append((len(out_shape) - arr.ndim, arr))
            else:
                out_shape.append(shape[dim])
                out_stride.append(stride[dim])
                advanced.append((len(out_shape) - 1, arr.astype(np.int64, copy=False)))
                dim += 1
        else:
            kind = "float" if isinstance(it, (builtins.float, np.floating)) else type(it).__name__
            raise IndexError(f"{_INDEX_TYPES} (got {kind})")
    while dim < t.ndim:
        out_shape.append(shape[dim])
        out_stride.append(stride[dim])
        dim += 1
    for pos, arr in bad_masks:
        # PyTorch checks masks against the tensor after all basic indexing (None dims included)
        for k, a in enumerate(arr.shape):
            if a != out_shape[pos + k]:
                raise IndexError(
                    f"The shape of the mask {L._fmt(arr.shape)} at index {k} does not match the "
                    f"shape of the indexed tensor {L._fmt(out_shape)} at index {pos + k}"
                )
    return (tuple(out_shape), tuple(out_stride), offset), advanced


def _numpy_index(view_shape, advanced) -> tuple:
    """Build the numpy index for the advanced part, checking bounds with PyTorch's message."""
    idx: list = [slice(None)] * len(view_shape)
    skip = set()
    bad: list[tuple[int, np.ndarray, int]] = []  # (k, index array, size) with a bad index
    for k, (pos, arr) in enumerate(advanced):
        if arr.dtype == np.bool_:
            idx[pos] = arr
            skip.update(range(pos + 1, pos + arr.ndim))
            continue
        size = view_shape[pos]
        if arr.size and size == 0:
            raise IndexError("index is out of bounds for dimension with size 0")
        if arr.size and (arr.max() >= size or arr.min() < -size):
            bad.append((k, arr, size))
        idx[pos] = arr
    if bad:
        # torch's kernel walks the broadcast positions in order and, at each, the indexed
        # dims in order: the first bad index it meets is the one it names
        arrays = np.broadcast_arrays(*[a for _, a, _ in bad])
        masks = [(a >= size) | (a < -size) for a, (_, _, size) in zip(arrays, bad)]
        first = min(int(np.flatnonzero(m)[0]) if m.any() else m.size for m in masks)
        for a, m, (k, _, size) in zip(arrays, masks, bad):
            if m.flat[first]:
                value = a.flat[first]
                raise IndexError(
                    f"index {value} is out of bounds for dimension {k} with size {size}"
                )
    return tuple(x for i, x in enumerate(idx) if i not in skip)


def _view_ops(t: Tensor, index, *, setitem: bool = False) -> list[str]:
    """The view ops PyTorch applies for the basic part of ``index``, by node name.

    Items are applied left to right: ``None`` (and ``True``/``False``) unsqueeze, an int
    selects, a slice slices - except a slice that keeps a whole dim inside a tuple index (and
    any such slice in an assignment), which PyTorch skips.
    """
    items = index if isinstance(index, tuple) else (index,)
    whole_ok = isinstance(index, tuple) or setitem
    names: list[str] = []
    consumed = sum(
        0
        if it is None or it is Ellipsis or isinstance(it, (builtins.bool, np.bool_))
        else (max(it.ndim, 1) if _is_mask(it) else 1)
        for it in items
    )
    dim, ellipsis_seen = 0, False
    for it in items:
        if it is Ellipsis:
            dim += 0 if ellipsis_seen else t.ndim - consumed
            ellipsis_seen = True
        elif it is None or isinstance(it, (builtins.bool, np.bool_)):
            names.append("UnsqueezeBackward0")
        elif _is_int(it) or (isinstance(it, Tensor) and it.ndim == 0 and not _is_mask(it)):
            names.append("SelectBackward0")
            dim += 1
        elif isinstance(it, slice):
            size = t._shape[dim]
            step = 1 if it.step is None else int(it.step)
            start = 0 if it.start is None else int(it.start)
            stop = size if it.stop is None else int(it.stop)
            whole = step == 1 and start in (0, -size if size else 0) and stop >= size
            if not (whole and whole_ok):
                names.append("SliceBackward0")
            dim += 1
        else:
            dim += max(it.ndim, 1) if _is_mask(it) else 1
    return names


def _is_mask(it) -> bool:
    if isinstance(it, Tensor):
        return it.dtype in (D.bool_, D.uint8)
    return isinstance(it, np.ndarray) and it.dtype == np.bool_


def _basic_replay(index):
    def replay(t: Tensor) -> Tensor:
        return t._view(*_parse(t, index)[0])

    return replay


@tensor_method("__getitem__", function=False)
def getitem(self: Tensor, index) -> Tensor:
    if type(index) is not int and type(index) is not tuple:
        index = legacy_tuple(index)
    (shape, stride, offset), advanced = _parse(self, index)
    view = self._view(shape, stride, offset)
    track = _GRAD.enabled and self.requires_grad
    source = view
    if track:
        from ..autograd.views import record_view

        names = _view_ops(self, index)
        if names or not advanced:
            record_view(view, self, names[-1] if names else "AliasBackward0", _basic_replay(index))
        else:
            source = self  # no view op: index the tensor itself
    if not advanced:
        return view
    _check_broadcast(advanced)
    np_index = _numpy_index(shape, advanced)
    result = view._np()[np_index]
    strides = _advanced_strides(shape, stride, advanced)
    if strides is None or len(strides) != result.ndim:
        out = Tensor._from_array(np.ascontiguousarray(result), self.dtype)
    else:
        out = Tensor._from_array_strided(result, self.dtype, strides)
    if track and out.dtype.is_floating_point:
        attach(out, AG.IndexBackward0(source, np_index))
    return out


def _check_broadcast(advanced) -> None:
    arrays = [a for _, a in _expand_masks(advanced)]
    try:
        np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ", ".join(L._fmt(a.shape) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None


def _expand_masks(advanced) -> list[tuple[int, np.ndarray]]:
    """One (dim, int index array) per indexed dim: a bool mask becomes its nonzero columns."""
    out = []
    for pos, arr in advanced:
        if arr.dtype == np.bool_:
            out.extend((pos + k, col) for k, col in enumerate(np.nonzero(arr)))
        else:
            out.append((pos, arr))
    return out


def _advanced_strides(shape, stride, advanced) -> tuple[int, ...] | None:
    """Strides PyTorch's ``index`` kernel gives its result (a TensorIterator output).

    The source is restrided so that the indexed dims are replaced by the broadcast index shape
    with stride 0 (moved to the front first when they are not adjacent); each index tensor is
    broadcast and reshaped to line up; the output takes the memory order these operands suggest.
    """
    expanded = _expand_masks(advanced)
    dims = [d for d, _ in expanded]
    arrays = [a for _, a in expanded]
    n = len(shape)
    if dims != list(range(dims[0], dims[0] + len(dims))):
        order = dims + [d for d in range(n) if d not in dims]
    else:
        order = list(range(n))
    sshape = [shape[d] for d in order]
    sstride = [stride[d] for d in order]
    first = next(i for i, d in enumerate(order) if d in dims)
    k = len(dims)
    try:
        bshape = tuple(np.broadcast_shapes(*(a.shape for a in arrays)))
    except ValueError:
        return None
    before, after = sshape[:first], sshape[first + k :]
    out_shape = tuple(before) + bshape + tuple(after)
    src_stride = tuple(sstride[:first]) + (0,) * len(bshape) + tuple(sstride[first + k :])
    operands = [(out_shape, src_stride)]
    for a in arrays:
        expanded = L.broadcast_strides(a.shape, L.contiguous_strides(a.shape), bshape)
        rshape = (1,) * len(before) + bshape + (1,) * len(after)
        rstride = L.view_strides(bshape, expanded, rshape) or L.contiguous_strides(rshape)
        operands.append((rshape, rstride))
    return L.iterator_strides(out_shape, operands)


def _value_array(self: Tensor, value, target_shape, advanced: bool) -> np.ndarray:
    if isinstance(value, Tensor):
        arr = value._np()
    elif isinstance(value, (builtins.bool, builtins.int, builtins.float, np.generic)):
        return (
            np.asarray(value).astype(self.dtype.np)
            if not (self.dtype.is_floating_point is False and isinstance(value, builtins.float))
            else np.trunc(np.asarray(value)).astype(self.dtype.np)
        )
    else:  # like PyTorch: lists, tuples and numpy arrays must be made tensors first
        kind = "numpy.ndarray" if isinstance(value, np.ndarray) else type(value).__name__
        raise TypeError(f"can't assign a {kind} to a {self.type()}")
    try:
        # PyTorch drops all leading size-1 dims of the value before broadcasting it
        while arr.ndim and arr.shape[0] == 1:
            arr = arr[0]
        np.broadcast_to(arr, target_shape)
    except ValueError:
        if advanced:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {L._fmt(arr.shape)} cannot be "
                f"broadcast to indexing result of shape {L._fmt(target_shape)}"
            ) from None
        if arr.ndim > len(target_shape):
            kind = value.type() if isinstance(value, Tensor) else self.type()
            raise RuntimeError(
                f"expand({kind}{{{L._fmt(arr.shape)}}}, size={L._fmt(target_shape)}): the number "
                f"of sizes provided ({len(target_shape)}) must be greater or equal to the number "
                f"of dimensions in the tensor ({arr.ndim})"
            ) from None
        L.expand_layout(arr.shape, (0,) * arr.ndim, target_shape)  # raises PyTorch's message
        raise
    if self.dtype.is_floating_point is False and arr.dtype.kind == "f":
        arr = np.trunc(arr)
    return arr.astype(self.dtype.np, copy=False)


@tensor_method("__setitem__", function=False)
def setitem(self: Tensor, index, value) -> None:
    """``self[index] = value``: writes into ``self``'s memory (a view's, for basic indices)."""
    if type(index) is not int and type(index) is not tuple:
        index = legacy_tuple(index)
    (shape, stride, offset), advanced = _parse(self, index)
    # PyTorch writes into the view the basic indices make (or into self when they make none)
    target = self
    if _view_ops(self, index, setitem=True):
        target = self._view(shape, stride, offset)
    tracked = isinstance(value, Tensor) and value.requires_grad
    if _GRAD.enabled and (self.requires_grad or tracked):
        from ..autograd.views import run_inplace

        make = _setitem_node(self, target, index, value, shape, advanced)
        run_inplace(
            target, lambda: _setitem(self, target, value, shape, stride, offset, advanced), make
        )
        return
    _setitem(self, target, value, shape, stride, offset, advanced)


def _setitem_node(self, target, index, value, shape, advanced):
    """What ``self[index] = value`` records on the target's old values: an ``index_put_``, a
    ``copy_`` of a tensor or a ``fill_`` with a number."""
    if advanced:
        np_index = _numpy_index(shape, advanced)
        return lambda old: AG.IndexPutBackward0(old, value, np_index)
    if isinstance(value, Tensor):
        return lambda old: AG.CopyBackwards(old, value)
    return lambda old: AG.FillBackward("FillBackward3", old, None)


def _setitem(self, target, value, shape, stride, offset, advanced) -> None:
    check_inplace(target)
    view = self._view(shape, stride, offset)
    if not advanced:
        if L.has_internal_overlap(shape, stride):
            raise RuntimeError(INTERNAL_OVERLAP)
        if isinstance(value, Tensor) and _partial_overlap(view, value):
            raise RuntimeError(PARTIAL_OVERLAP)
        arr = _value_array(self, value, shape, advanced=False)
        dst = view._np()
        if dst.size:
            _write(dst, np.broadcast_to(arr, shape))
        return
    _check_broadcast(advanced)
    np_index = _numpy_index(shape, advanced)
    dst = view._np()
    target_shape = (
        np.empty(shape, dtype=np.bool_)[np_index].shape if dst.size else dst[np_index].shape
    )
    arr = _value_array(self, value, target_shape, advanced=True)
    dst[np_index] = arr


INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def _partial_overlap(a: Tensor, b: Tensor) -> bool:
    """PyTorch's ``get_overlap_status(a, b) == Partial``: both dense, same storage, byte ranges
    overlap but are not the very same elements in the same order."""
    if a.numel() == 0 or b.numel() == 0:
        return False
    if not (
        L.is_non_overlapping_and_dense(a._shape, a._stride)
        and L.is_non_overlapping_and_dense(b._shape, b._stride)
    ):
        return False  # "too hard" for PyTorch: it does not refuse
    if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
        return False
    item = a.element_size()
    a0, b0 = a.data_ptr(), b.data_ptr()
    a1, b1 = a0 + a.numel() * item, b0 + b.numel() * item
    if (a0, a1) == (b0, b1):
        return a._stride != b._stride
    return a0 < b1 and b0 < a1


def _write(dst: np.ndarray, src: np.ndarray) -> None:
    """Copy ``src`` into ``dst``; when they overlap in memory, go through a temporary copy."""
    if np.shares_memory(dst, src):
        src = src.copy()
    dst[...] = src
