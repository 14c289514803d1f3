"""Strided views PyTorch keeps next to its shape ops (``TensorShape.cpp``): ``as_strided``,
``as_strided_``, ``Tensor.unfold`` (sliding windows, no copy), ``diagonal``, and the legacy
``Tensor.storage()``.

Each one computes a layout (shape, stride, storage offset) with a small pure function below and
returns a tensor on the *same* storage. Their gradients live in
:mod:`tensorlab.autograd.views_extra` (``AsStridedBackward0``, ``UnfoldBackward0``); ``diagonal``
replays itself through the shared view node (``DiagonalBackward0``).
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import _layout as L
from .._tensor import Size, Tensor, _as_shape, _records_view, check_inplace
from ..autograd import graph as _graph
from ..autograd.grad_mode import STATE as _GRAD
from .native_functions import tensor_method

# ---------------------------------------------------------------------------------------------
# pure layout arithmetic
# ---------------------------------------------------------------------------------------------


def check_as_strided(
    shape: Sequence[int], stride: Sequence[int], offset: int, item: int, storage_nbytes: int
) -> None:
    """PyTorch's checks (``setStrided`` / ``checkInBoundsForStorage``), in its order and words."""
    if len(shape) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if stride and min(stride) < 0:
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, got strides: "
            f"{L._fmt(stride)}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if shape and min(shape) < 0:
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={L._fmt(shape)} and "
            f"strides={L._fmt(stride)}"
        )
    last = offset  # the highest storage index the layout reads
    for n, st in zip(shape, stride):
        if n == 0:
            return  # an empty tensor needs no storage
        last += (n - 1) * st
    need = (last + 1) * item
    if need > storage_nbytes:
        raise RuntimeError(
            f"setStorage: sizes {L._fmt(shape)}, strides {L._fmt(stride)}, storage offset "
            f"{offset}, and itemsize {item} requiring a storage size of {need} are out of bounds "
            f"for storage of size {storage_nbytes}"
        )


def unfold_layout(
    shape: Sequence[int], stride: Sequence[int], dim: int, size: int, step: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Windows of ``size`` elements every ``step`` along ``dim`` (already wrapped): dim ``dim``
    counts the windows (stride ``step * stride[dim]``), a new last dim walks inside a window
    (stride ``stride[dim]``). A 0-dim tensor gives ``size`` (0 or 1) elements, stride 1."""
    if not shape:
        return (size,), (1,)
    n = (shape[dim] - size) // step + 1
    new_shape = list(shape)
    new_stride = list(stride)
    new_shape[dim] = n
    new_stride[dim] = step * stride[dim]
    return tuple(new_shape) + (size,), tuple(new_stride) + (stride[dim],)


def diagonal_layout(
    shape: Sequence[int], stride: Sequence[int], offset: int, diag: int, d1: int, d2: int
) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """Elements ``[i, i + diag]`` of dims ``d1, d2`` (wrapped, distinct) as a new last dim with
    stride ``stride[d1] + stride[d2]``; the storage offset moves only if the diagonal is not empty."""
    if diag >= 0:
        n = max(min(shape[d1], shape[d2] - diag), 0)
    else:
        n = max(min(shape[d1] + diag, shape[d2]), 0)
    if n > 0:
        offset += diag * stride[d2] if diag >= 0 else -diag * stride[d1]
    keep = [d for d in range(len(shape)) if d not in (d1, d2)]
    return (
        tuple(shape[d] for d in keep) + (n,),
        tuple(stride[d] for d in keep) + (stride[d1] + stride[d2],),
        offset,
    )


# ---------------------------------------------------------------------------------------------
# as_strided
# ---------------------------------------------------------------------------------------------


def _size_arg(value, what: str, fn: str, pos: int) -> tuple[int, ...]:
    if isinstance(value, (tuple, list)) and all(type(v) is int for v in value):
        return tuple(value)  # the common case, fast
    if not isinstance(value, (tuple, list, Size)):
        raise TypeError(
            f"{fn}(): argument '{what}' (position {pos}) must be tuple of ints, not "
            f"{type(value).__name__}"
        )
    try:
        return _as_shape((value,), what, fn)
    except TypeError as e:
        raise TypeError(str(e).replace("(position 1)", f"(position {pos})")) from None


def _offset_arg(self: Tensor, storage_offset) -> int:
    if storage_offset is None:
        return self._offset
    if isinstance(storage_offset, Tensor):
        storage_offset = storage_offset.item()
    if isinstance(storage_offset, bool) or not isinstance(storage_offset, int):
        raise TypeError(
            "as_strided(): argument 'storage_offset' must be int, not "
            f"{type(storage_offset).__name__}"
        )
    return int(storage_offset)


def _as_strided_layout(self: Tensor, size, stride, storage_offset):
    shape = _size_arg(size, "size", "as_strided", 1)
    strides = _size_arg(stride, "stride", "as_strided", 2)
    offset = _offset_arg(self, storage_offset)
    check_as_strided(shape, strides, offset, self.itemsize, self._storage.nbytes())
    return shape, strides, offset


@tensor_method("as_strided")
def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """A view of ``input``'s *storage* with any sizes, strides and offset (default: ``input``'s
    offset). Elements may repeat (overlapping windows); nothing is copied. The layout must stay
    inside the storage, else PyTorch's ``setStorage: ... out of bounds`` error."""
    if not isinstance(input, Tensor):
        raise TypeError(
            "as_strided(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    shape, strides, offset = _as_strided_layout(input, size, stride, storage_offset)
    out = input._view(shape, strides, offset)
    if _GRAD.enabled and input.requires_grad:
        from ..autograd.views_extra import AsStridedBackward0

        _graph.attach(out, AsStridedBackward0(input, out))
    return out


@tensor_method("as_strided_")
def as_strided_(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    """``as_strided`` in place: ``input`` itself takes the new layout (same storage)."""
    shape, strides, offset = _as_strided_layout(input, size, stride, storage_offset)
    record = _GRAD.enabled and input.requires_grad
    if record:
        check_inplace(input)  # a leaf that requires grad refuses, as for any in-place op
        from ..autograd.views_extra import AsStridedBackward0

        node = AsStridedBackward0(input, None, layout=(shape, strides, offset))
        node._name = "AsStridedBackward1"
    input._shape, input._stride, input._offset = shape, strides, offset
    if record:
        _graph.attach(input, node)
    return input


# ---------------------------------------------------------------------------------------------
# unfold and diagonal
# ---------------------------------------------------------------------------------------------


@tensor_method("unfold", function=False)
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` elements taken every ``step`` along ``dimension``, as a view: the
    windows become dim ``dimension`` and the elements of a window a new last dim. Windows overlap
    when ``step < size`` (they share memory: nothing is copied)."""
    d = L.wrap_dim(dimension, self.ndim)
    n = self._shape[d] if self.ndim else 1
    size, step = int(size), int(step)
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    out = self._view(*unfold_layout(self._shape, self._stride, d, size, step))
    if _GRAD.enabled and self.requires_grad:
        from ..autograd.views_extra import UnfoldBackward0

        _graph.attach(out, UnfoldBackward0(self, d, size, step))
    return out


@tensor_method("diagonal")
@_records_view("DiagonalBackward0")
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal ``[i, i + offset]`` of dims ``dim1``/``dim2``, as a view (a new last dim)."""
    d1 = L.wrap_dim(dim1, input.ndim, scalar_ok=False)
    d2 = L.wrap_dim(dim2, input.ndim, scalar_ok=False)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return input._view(
        *diagonal_layout(input._shape, input._stride, input._offset, int(offset), d1, d2)
    )


# ---------------------------------------------------------------------------------------------
# the legacy typed storage
# ---------------------------------------------------------------------------------------------


@tensor_method("storage", function=False)
def storage(self: Tensor):
    """The deprecated ``TypedStorage`` over this tensor's whole storage (warns once, as PyTorch)."""
    from ..storage import TypedStorage, _warn_typed_storage_removal

    _warn_typed_storage_removal()
    return TypedStorage._over(self._storage, self._dtype)


# ---------------------------------------------------------------------------------------------
# tensor_split and torch.split (the pieces are narrow views)
# ---------------------------------------------------------------------------------------------

_TENSOR_SPLIT_SIGNATURES = (
    " * (tuple of ints indices, int dim = 0)\n"
    " * (Tensor tensor_indices_or_sections, int dim = 0)\n"
    " * (int sections, int dim = 0)\n"
)


def _slice_piece(t: Tensor, d: int, start: int, end: int | None) -> Tensor:
    """``t`` sliced ``start:end`` along ``d`` with ``at::slice``'s clamping (never an error)."""
    n = t._shape[d]
    start = start + n if start < 0 else start
    start = min(max(start, 0), n)
    end = n if end is None else (end + n if end < 0 else end)
    end = min(max(end, start), n)
    return t.narrow(d, start, end - start)


def tensor_split(input: Tensor, *args, **kwargs) -> tuple[Tensor, ...]:
    """``tensor_split(sections | indices | tensor_indices_or_sections, dim=0)``: ``sections``
    nearly equal pieces (the first ``size % sections`` one longer), or the pieces between the
    given indices (Python slice rules: negative indices count from the end, never an error)."""
    names = ("indices", "sections", "tensor_indices_or_sections", "indices_or_sections")
    given = [k for k in names if k in kwargs]
    if args:
        spec, rest = args[0], args[1:]
    elif given:
        spec, rest = kwargs.pop(given[0]), ()
    else:
        raise TypeError(
            "tensor_split() received an invalid combination of arguments - got (), but expected "
            f"one of:\n{_TENSOR_SPLIT_SIGNATURES}"
        )
    dim = rest[0] if rest else kwargs.pop("dim", 0)
    if kwargs:
        raise TypeError(f"tensor_split() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if isinstance(spec, Tensor):
        if spec.dtype.name != "int64":
            from .._dtype import SCALAR_NAME

            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{SCALAR_NAME[spec.dtype.name]}"
            )
        if spec.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {spec.ndim} dims"
            )
        spec = spec.item() if spec.ndim == 0 else [int(i) for i in spec.tolist()]
    bad = isinstance(spec, bool) or not isinstance(spec, (int, list, tuple))
    if not bad and isinstance(spec, (list, tuple)):
        bad = any(isinstance(i, bool) or not isinstance(i, int) for i in spec)
    if bad:
        raise TypeError(
            "tensor_split() received an invalid combination of arguments - got "
            f"({type(spec).__name__}), but expected one of:\n{_TENSOR_SPLIT_SIGNATURES}"
        )
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    d = L.wrap_dim(dim, input.ndim)
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        q, r = divmod(input._shape[d], spec)
        bounds = [i * q + min(i, r) for i in range(spec + 1)]
        return tuple(input.narrow(d, a, b - a) for a, b in zip(bounds[:-1], bounds[1:]))
    starts = [0, *spec]
    ends = [*spec, None]
    return tuple(_slice_piece(input, d, a, b) for a, b in zip(starts, ends))


tensor_method("tensor_split", function=False)(tensor_split)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple[Tensor, ...]:
    """``torch.split``: pieces of ``split_size`` along ``dim`` (the last may be shorter), or
    pieces of the listed sizes; views of ``tensor``."""
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"split(): argument 'input' (position 1) must be Tensor, not {type(tensor).__name__}"
        )
    return tensor.split(split_size_or_sections, dim)
