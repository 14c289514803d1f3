"""The view methods of ``Tensor`` (PyTorch's ``TensorShape.cpp``): ``view``, ``reshape``,
``flatten``, ``unsqueeze``/``squeeze``, ``transpose``/``t``/``T``/``mT``, ``permute``, ``movedim``,
``expand``, ``narrow``, ``select``, ``unbind``/``split``/``chunk``, and the in-place layout changes
(``unsqueeze_``, ``transpose_``, ``resize_`` ...). Each returns a new ``Tensor`` on the *same*
storage with a layout computed by a pure function of :mod:`tensorlab._layout`; they are rows of the
op table (methods only: ``tensorlab.reshape`` & co. are made in ``tensorlab/__init__``)."""

from __future__ import annotations

import warnings

from .. import _dtype as D
from .. import _layout as L
from .._tensor import (
    Tensor,
    _as_shape,
    _check_memory_format,
    _records_view,
    _rename,
    _squeeze_name,
    check_inplace,
    contiguous_format,
)
from ..autograd import graph as _graph
from .native_functions import alias, tensor_method

# ---------------------------------------------------------------------------------------------
# views: reshaping
# ---------------------------------------------------------------------------------------------


@tensor_method("view", function=False)
def view(self, *shape, dtype=None) -> Tensor:
    """Same storage, new shape. Raises ``RuntimeError`` when the strides cannot express it.
    ``view(dtype)`` reads the same bytes as another dtype."""
    if dtype is not None and not shape:
        shape = (dtype,)
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        return self._view_dtype(shape[0])
    return self._view_shape(*shape)


@tensor_method("_view_shape", function=False)
@_records_view("ViewBackward0")
def _view_shape(self, *shape) -> Tensor:
    dims = shape[0] if len(shape) == 1 and shape[0].__class__ is tuple else shape
    n = 1
    for s in dims:  # the common case: sizes given as ints, a contiguous tensor
        if s.__class__ is not int or s < 0:
            break
        n *= s
    else:
        strides, total = L.contiguous_info(self._shape)
        if n == total and total and dims and self._stride == strides:
            dims = tuple(dims)
            return self._view(dims, L.contiguous_info(dims)[0])
    if not shape:
        raise TypeError(
            "view() received an invalid combination of arguments - got (), but expected one "
            "of:\n * (tensorlab.dtype dtype)\n * (tuple of ints size)\n"
        )
    shape = L.infer_size(_as_shape(shape), self.numel())
    stride = L.view_strides(self._shape, self._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return self._view(shape, stride)


@tensor_method("_view_dtype", function=False)
def _view_dtype(self, dtype: D.dtype) -> Tensor:
    """``view(dtype)``: the same bytes read as another dtype (ATen's ``view_dtype``). With a
    different element size the last dim (stride 1) grows or shrinks by the size ratio.
    Like PyTorch, the result shares the storage but is not an autograd view (no grad)."""
    old, new = self._dtype.itemsize, dtype.itemsize
    shape, stride, offset = list(self._shape), list(self._stride), self._offset
    if old != new:
        what = (
            f"to view {D.SCALAR_NAME[self._dtype.name]} as {D.SCALAR_NAME[dtype.name]} "
            "(different element sizes)"
        )
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if old > new:
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            ratio = old // new
            shape[-1] *= ratio
            stride = [st * ratio for st in stride[:-1]] + [1]
            offset *= ratio
        else:
            ratio = new // old
            if shape[-1] % ratio:
                raise RuntimeError(
                    f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}"
                )
            if offset % ratio:
                raise RuntimeError(
                    f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}"
                )
            if stride[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {stride[-1]}")
            for i, st in enumerate(stride[:-1]):
                if st % ratio:
                    raise RuntimeError(
                        f"self.stride({i}) must be divisible by {ratio} {what}, but got {st}"
                    )
            shape[-1] //= ratio
            stride = [st // ratio for st in stride[:-1]] + [1]
            offset //= ratio
    return Tensor(self._storage, tuple(shape), tuple(stride), offset, dtype)


@tensor_method("view_as", function=False)
def view_as(self, other: Tensor) -> Tensor:
    return self.view(other.shape)


@tensor_method("reshape", function=False)
def reshape(self, *shape) -> Tensor:
    """A view when ``view`` would work, otherwise a contiguous copy (never raises for strides)."""
    if not shape:
        raise TypeError('reshape() missing 1 required positional arguments: "shape"')
    shape = L.infer_size(_as_shape(shape), self.numel())
    stride = L.view_strides(self._shape, self._stride, shape)
    if stride is not None:
        return self.view(shape)
    return self.clone(memory_format=contiguous_format)._unsafe_view(shape)


@tensor_method("reshape_as", function=False)
def reshape_as(self, other: Tensor) -> Tensor:
    return self.reshape(other.shape)


@tensor_method("flatten", function=False)
def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    s = L.wrap_dim(start_dim, self.ndim)
    e = L.wrap_dim(end_dim, self.ndim)
    if self.ndim == 0:
        return self.reshape(1)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return self
    shape = self._shape[:s] + (L.numel(self._shape[s : e + 1]),) + self._shape[e + 1 :]
    return self.reshape(shape)


@tensor_method("unflatten", function=False)
def unflatten(self, dim: int, sizes) -> Tensor:
    d = L.wrap_dim(dim, self.ndim)
    sizes = _as_shape((sizes,), "sizes")
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        sizes = L.infer_size(sizes, self._shape[d])
    elif L.numel(sizes) != self._shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {L._fmt(sizes)} don't multiply up to the size of dim "
            f"{dim} ({self._shape[d]}) in the input tensor"
        )
    return self.view(self._shape[:d] + tuple(sizes) + self._shape[d + 1 :])


# ---------------------------------------------------------------------------------------------
# views: axes
# ---------------------------------------------------------------------------------------------


@tensor_method("unsqueeze", function=False)
@_records_view("UnsqueezeBackward0")
def unsqueeze(self, dim: int) -> Tensor:
    """Insert an axis of size 1 at ``dim`` (``-1`` means after the last axis)."""
    d = L.wrap_dim(dim, self.ndim + 1)
    return self._view(*L.unsqueeze_layout(self._shape, self._stride, d))


@tensor_method("squeeze", function=False)
@_records_view(_squeeze_name)
def squeeze(self, dim=None) -> Tensor:
    """Drop size-1 axes: all of them, one ``dim``, or a tuple of dims (others are left alone)."""
    if dim is None:
        keep = [i for i, s in enumerate(self._shape) if s != 1]
    else:
        dims = L.wrap_dims(dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim)
        keep = [i for i, s in enumerate(self._shape) if not (i in dims and s == 1)]
    return self._view(tuple(self._shape[i] for i in keep), tuple(self._stride[i] for i in keep))


@tensor_method("transpose", function=False)
@_records_view("TransposeBackward0")
def transpose(self, dim0: int, dim1: int) -> Tensor:
    a, b = L.wrap_dim(dim0, self.ndim), L.wrap_dim(dim1, self.ndim)
    if self.ndim == 0:
        return self._view((), ())
    order = list(range(self.ndim))
    order[a], order[b] = order[b], order[a]
    return self._view(*L.permute_layout(self._shape, self._stride, order))


@tensor_method("t", function=False)
@_records_view("TBackward0")
def t(self) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return self.transpose(0, 1) if self.ndim == 2 else self._view(self._shape, self._stride)


@tensor_method("T", function=False)
@property
def T(self) -> Tensor:
    """Reverse all dims (PyTorch warns when ndim != 2, as here)."""
    if self.ndim == 0:
        warnings.warn(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
        return self._permute(())
    if self.ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
            "to reverse the dimensions of a tensor.",
            UserWarning,
            stacklevel=2,
        )
    return self.permute(*range(self.ndim - 1, -1, -1))


@tensor_method("mT", function=False)
@property
def mT(self) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. "
            f"Got {self.ndim}-D tensor."
        )
    return self.transpose(-2, -1)


@tensor_method("permute", function=False)
def permute(self, *dims) -> Tensor:
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    dims = _as_shape(dims, "dims")
    if len(dims) != self.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{self.ndim} is not equal to len(dims) = {len(dims)}"
        )
    order = [L.wrap_dim(d, self.ndim) for d in dims]
    if len(set(order)) != len(order):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return self._permute(order)


@tensor_method("_permute", function=False)
@_records_view("PermuteBackward0")
def _permute(self, order) -> Tensor:
    return self._view(*L.permute_layout(self._shape, self._stride, order))


@tensor_method("movedim", function=False)
def movedim(self, source, destination) -> Tensor:
    src = source if isinstance(source, (tuple, list)) else (source,)
    dst = destination if isinstance(destination, (tuple, list)) else (destination,)
    if len(src) != len(dst):
        raise RuntimeError(
            "movedim: Invalid source or destination dims: source "
            f"({L._fmt(src)} dims) should contain the same number of dims as destination "
            f"({L._fmt(dst)} dims)"
        )
    src = tuple(L.wrap_dim(d, self.ndim) for d in src)
    dst = tuple(L.wrap_dim(d, self.ndim) for d in dst)
    for what, given, dims in (("source", source, src), ("destination", destination, dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({L._fmt(given)})")
    if self.ndim == 0:
        return self._permute(())
    order = [-1] * self.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(self.ndim) if d not in src)
    order = [o if o != -1 else next(rest) for o in order]
    return self._permute(order)


@tensor_method("expand", function=False)
@_records_view("ExpandBackward0")
def expand(self, *sizes) -> Tensor:
    """Broadcast size-1 axes to ``sizes`` with stride 0: no memory is copied."""
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = _as_shape(sizes)
    if len(sizes) < self.ndim:
        raise RuntimeError(
            f"expand({self.type()}{{{L._fmt(self._shape)}}}, "
            f"size={L._fmt(sizes)}): the number of sizes provided ({len(sizes)}) must be "
            f"greater or equal to the number of dimensions in the tensor ({self.ndim})"
        )
    return self._view(*L.expand_layout(self._shape, self._stride, sizes))


@tensor_method("expand_as", function=False)
def expand_as(self, other: Tensor) -> Tensor:
    return self.expand(other.shape)


@tensor_method("broadcast_to", function=False)
def broadcast_to(self, shape) -> Tensor:
    return self.expand(shape)


# ---------------------------------------------------------------------------------------------
# views: pieces
# ---------------------------------------------------------------------------------------------


@tensor_method("narrow", function=False)
@_records_view("SliceBackward0")
def narrow(self, dim: int, start: int, length: int) -> Tensor:
    if self.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = L.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if isinstance(start, Tensor):
        start = int(start.item())
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    shape = list(self._shape)
    shape[d] = length
    return self._view(shape, self._stride, self._offset + start * self._stride[d])


@tensor_method("select", function=False)
@_records_view("SelectBackward0")
def select(self, dim: int, index: int) -> Tensor:
    if self.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = L.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size "
            f"{L._fmt(self._shape)} at dimension {d}"
        )
    if index < 0:
        index += size
    return self._view(
        self._shape[:d] + self._shape[d + 1 :],
        self._stride[:d] + self._stride[d + 1 :],
        self._offset + index * self._stride[d],
    )


@tensor_method("unbind", function=False)
def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
    d = L.wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return _rename(tuple(self.select(d, i) for i in range(self._shape[d])), "UnbindBackward0")


@tensor_method("split", function=False)
def split(self, split_size, dim: int = 0) -> tuple[Tensor, ...]:
    split_size_or_sections = split_size
    if self.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if not isinstance(split_size, (list, tuple)) and int(split_size) < 0:
        raise RuntimeError(
            f"split expects split_size be non-negative, but got split_size={int(split_size)}"
        )
    d = L.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sections = [int(s) for s in split_size_or_sections]
        name = "SplitWithSizesBackward0"
        if any(s < 0 for s in sections):
            raise RuntimeError(
                "split_with_sizes expects split_sizes have only non-negative entries, but got "
                f"split_sizes={L._fmt(sections)}"
            )
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={L._fmt(sections)}"
            )
    else:
        step = int(split_size_or_sections)
        name = "SplitBackward0"
        if step < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={step}"
            )
        if step == 0:
            if size != 0:
                raise RuntimeError(
                    "split_size can only be 0 if dimension size is 0, but got dimension size "
                    f"of {size}"
                )
            return _rename((self.narrow(d, 0, 0),), name)
        sections = [min(step, size - i) for i in range(0, size, step)] or [0]
    out, start = [], 0
    for n in sections:
        out.append(self.narrow(d, start, n))
        start += n
    return _rename(tuple(out), name)


@tensor_method("chunk", function=False)
def chunk(self, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if self.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = L.wrap_dim(dim, self.ndim)
    size = self._shape[d]
    step = -(-size // chunks) if size else 0
    if step == 0:
        return tuple(self.narrow(d, 0, 0) for _ in range(chunks)) if size == 0 else ()
    return self.split(step, d)


# ---------------------------------------------------------------------------------------------
# in-place layout changes
# ---------------------------------------------------------------------------------------------


@tensor_method("_take_layout_", function=False)
def _take_layout_(self, view: Tensor, name: str) -> Tensor:
    """Make ``view`` (a view op just applied to ``self``) ``self``'s own layout, in place; in
    grad mode the view's node becomes ``self``'s ``grad_fn``, under PyTorch's ``name``."""
    self._shape, self._stride, self._offset = view._shape, view._stride, view._offset
    node = view._grad_fn
    if node is not None:
        node._name = name
        _graph.attach(self, node)
    return self


@tensor_method("unsqueeze_", function=False)
def unsqueeze_(self, dim: int) -> Tensor:
    L.wrap_dim(dim, self.ndim + 1)
    check_inplace(self)
    return self._take_layout_(self.unsqueeze(dim), "UnsqueezeBackward1")


@tensor_method("squeeze_", function=False)
def squeeze_(self, dim=None) -> Tensor:
    if dim is not None:
        L.wrap_dims(dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim)
    check_inplace(self)
    if dim is None:
        name = "SqueezeBackward3"
    else:
        name = "SqueezeBackward5" if isinstance(dim, (tuple, list)) else "SqueezeBackward4"
    return self._take_layout_(self.squeeze(dim), name)


@tensor_method("transpose_", function=False)
def transpose_(self, dim0: int, dim1: int) -> Tensor:
    L.wrap_dim(dim0, self.ndim)
    L.wrap_dim(dim1, self.ndim)
    check_inplace(self)
    return self._take_layout_(self.transpose(dim0, dim1), "TransposeBackward1")


@tensor_method("t_", function=False)
def t_(self) -> Tensor:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    check_inplace(self)
    return self._take_layout_(self.t(), "TBackward1")


@tensor_method("resize_", function=False)
def resize_(self, *sizes, memory_format=None) -> Tensor:
    """New shape, contiguous strides, same storage (grown when too small: new elements are
    uninitialised in PyTorch, zeros here). Refused for tensors that require grad."""
    _check_memory_format(memory_format)
    shape = _as_shape(sizes, "size", "resize_")
    if any(s < 0 for s in shape):
        raise RuntimeError("numel: integer multiplication overflow")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if shape == self._shape:
        return self
    self._resize_contiguous(shape)
    self._vc[0] += 1
    return self


@tensor_method("resize_as_", function=False)
def resize_as_(self, other: Tensor, memory_format=None) -> Tensor:
    return self.resize_(other.shape, memory_format=memory_format)


alias("swapaxes", "transpose", function=False)
alias("swapdims", "transpose", function=False)
alias("moveaxis", "movedim", function=False)
alias("swapaxes_", "transpose_", function=False)
alias("swapdims_", "transpose_", function=False)
