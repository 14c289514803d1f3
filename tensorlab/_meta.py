"""The ``meta`` device: tensors with a shape, a dtype and strides, and no data.

A meta tensor is a :class:`MetaTensor` over a :class:`MetaStorage`, which records how many bytes
the storage would have and holds none. Nothing on the cpu path looks at this module:

- ``Tensor(storage, ...)`` with a ``MetaStorage`` goes through ``_TensorMeta.__call__``'s slow
  branch (the one of the legacy constructor), which makes a ``MetaTensor``: every view of a meta
  tensor (they all build ``Tensor(self._storage, ...)``) is therefore a meta tensor too;
- ``MetaTensor`` overrides what must not read data: ``_np`` (the door every numpy kernel goes
  through) raises PyTorch's ``NotImplementedError`` for an op with no meta support; the ops that
  have it (elementwise, reductions, matmul, copies, in-place fills: :mod:`tensorlab._ops.meta`)
  are methods of ``MetaTensor``; the layers' entry points (conv, pooling, linear, batch norm...)
  ask :func:`any_meta` once, outside their kernels.
"""

from __future__ import annotations

import sys

import numpy as np

from . import _device
from . import _dtype as D
from . import _layout as L
from ._tensor import Size, Tensor

META = _device.device("meta")

NO_DATA = "Cannot copy out of meta tensor; no data!"
MODULE_TO = (
    "Cannot copy out of meta tensor; no data! Please use tensorlab.nn.Module.to_empty() instead "
    "of tensorlab.nn.Module.to() when moving module from meta to a different device."
)


class NoMetaKernel(NotImplementedError):
    """An op without meta support reached the data of a meta tensor (PyTorch's
    ``NotImplementedError``)."""


# what users see: PyTorch's exception type
NoMetaKernel.__name__ = NoMetaKernel.__qualname__ = "NotImplementedError"
NoMetaKernel.__module__ = "builtins"


def meta_function(name: str, fn, args, kwargs, method: bool):
    """``tensorlab.<name>(...)`` whose cpu kernel ``fn`` met a meta tensor: run through
    stand-ins when ``MetaTensor`` supports the op (``tensorlab.sum(t)`` as ``t.sum()``), else
    PyTorch's error."""
    if method or name not in MetaTensor.__dict__:
        raise NoMetaKernel(_no_kernel_message(name))
    from ._ops.meta import function_call

    return function_call(name, fn, args, kwargs)


class MetaStorage:
    """The storage of a meta tensor: a size in bytes, no memory (``data_ptr()`` is 0)."""

    __slots__ = ("_nbytes",)

    def __init__(self, nbytes: int):
        self._nbytes = int(nbytes)

    @property
    def _array(self):
        raise NoMetaKernel(_no_kernel_message())

    def nbytes(self) -> int:
        return self._nbytes

    size = nbytes
    __len__ = nbytes

    def data_ptr(self) -> int:
        return 0

    def element_size(self) -> int:
        return 1

    @property
    def device(self):
        return META

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def __repr__(self) -> str:
        return f" ...\n[tensorlab.storage.UntypedStorage(device=meta) of size {self._nbytes}]"


# ---------------------------------------------------------------------------------------------
# the error of an op that has no meta kernel
# ---------------------------------------------------------------------------------------------

_HELPERS = {"wrapper", "method", "fn", "deco", "inner", "call", "__call__", "_call_impl", "forward"}


def _no_kernel_message(name: str | None = None) -> str:
    """PyTorch's message for an operator without a Meta kernel, naming the public tensorlab
    function the user called (the outermost tensorlab frame on the stack)."""
    f = sys._getframe(2) if name is None else None
    while f is not None:
        module = f.f_globals.get("__name__", "")
        if module.startswith("tensorlab.") and not module.startswith("tensorlab._meta"):
            code = f.f_code.co_name
            if code not in _HELPERS and not code.startswith("<"):
                name = code
        elif name is not None:
            break
        f = f.f_back
    op = (name or "unknown").strip("_") or "unknown"
    return (
        f"Could not run 'aten::{op}' with arguments from the 'Meta' backend. This could be "
        "because the operator doesn't exist for this backend, or was omitted during the "
        "selective/custom build process (if using custom build)."
    )


# ---------------------------------------------------------------------------------------------
# the tensor
# ---------------------------------------------------------------------------------------------


class MetaTensor(Tensor):
    """A ``Tensor`` on the meta device (``isinstance(t, tensorlab.Tensor)`` holds; ``type(t)``
    is an implementation detail, as it is for a ``Parameter``)."""

    is_meta = True

    @property
    def device(self):
        return META

    @property
    def is_cpu(self) -> bool:
        return False

    def _np_contiguous(self):
        return None  # (the fast paths step aside: the general path knows meta)

    def _np(self):
        if L.numel(self._shape) == 0:
            return np.empty(self._shape, dtype=self._dtype.np)
        raise NoMetaKernel(_no_kernel_message())

    def untyped_storage(self):
        return self._storage

    def data_ptr(self) -> int:
        return 0

    # ------------------------------------------------------------ what needs data
    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def _one_value(self, kind):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self):
        raise NotImplementedError(NO_DATA)

    def numpy(self, *, force: bool = False):
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        raise TypeError(
            "can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
            "to host memory first."
        )

    def __array__(self, dtype=None, copy=None):
        return self.numpy()

    def __reduce__(self):
        return (_rebuild_meta, (self._shape, self._stride, self._dtype.name, self.requires_grad))

    def __repr__(self) -> str:
        from ._printing import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__
    __hash__ = Tensor.__hash__

    # ------------------------------------------------------------ copies and moves
    def cpu(self, memory_format=None):
        raise NotImplementedError(NO_DATA)

    def to(self, *args, **kwargs):
        from ._tensor import _check_memory_format, parse_to_args, preserve_format

        copy = kwargs.pop("copy", False)
        fmt = kwargs.pop("memory_format", None)
        _check_memory_format(fmt, "to")
        dtype, kind = parse_to_args(args, kwargs, "to() got an unexpected keyword argument", True)
        if kind == "cpu":
            raise NotImplementedError(NO_DATA)
        dtype = self._dtype if dtype is None else D.to_dtype(dtype)
        if dtype is self._dtype and not copy and fmt in (None, preserve_format):
            return self
        return self._copy_as(dtype, fmt, "ToCopyBackward0")

    def _copy_as(self, dtype, fmt, node: str):
        return _meta_copy(self, dtype, fmt, node)

    def clone(self, *, memory_format=None):
        from ._tensor import _check_memory_format

        _check_memory_format(memory_format, "clone")
        return self._copy_as(self._dtype, memory_format, "CloneBackward0")

    def _contiguous_copy(self):
        return empty(self._shape, self._dtype)


# ``type(t)`` prints as torch's does (``<class 'tensorlab.Tensor'>``), as for a ``Parameter``
MetaTensor.__name__ = MetaTensor.__qualname__ = "Tensor"
MetaTensor.__module__ = "tensorlab"
MetaStorage._tensor_class = MetaTensor  # (``_tensor._make`` builds views of meta tensors)


def _rebuild_meta(shape, stride, dtype_name, requires_grad):
    out = empty(shape, D._BY_NAME[dtype_name], stride)
    out._requires_grad = bool(requires_grad)
    return out


def empty(shape, dtype: D.dtype, stride=None) -> MetaTensor:
    """A fresh meta tensor (contiguous unless ``stride`` is given)."""
    if not _INSTALLED:
        _install()
    shape = tuple(int(s) for s in shape)
    stride = L.contiguous_strides(shape) if stride is None else tuple(stride)
    lo, hi = L.storage_span(shape, stride, 0)
    return MetaTensor(MetaStorage((hi - lo) * dtype.itemsize), shape, stride, 0, dtype)


_INSTALLED: list = []


def _install() -> None:
    from ._ops.meta import install

    _INSTALLED.append(True)
    install()


def like(t: Tensor, dtype: D.dtype | None = None) -> MetaTensor:
    """``empty_like(t, device='meta')``: ``t``'s shape and memory order."""
    return empty(t._shape, dtype or t._dtype, L.preserve_strides(t._shape, t._stride))


def _meta_copy(t: Tensor, dtype: D.dtype, fmt, node: str) -> Tensor:
    """A meta copy of ``t`` (cpu or meta) as ``dtype`` in memory format ``fmt`` (None or
    ``preserve_format``: ``t``'s own order), recorded as ``node``."""
    from ._tensor import _format_strides, preserve_format

    if fmt is None or fmt is preserve_format:
        stride = L.preserve_strides(t._shape, t._stride)
    else:
        stride = _format_strides(t._shape, fmt)
    out = empty(t._shape, dtype, stride)
    if dtype.is_floating_point:
        record(out, node, t)
    return out


def to_meta(t: Tensor, dtype: D.dtype | None = None, fmt=None) -> Tensor:
    """``t.to('meta')`` for a cpu tensor: same shape, dtype (or ``dtype``) and memory order."""
    return _meta_copy(t, t._dtype if dtype is None else dtype, fmt, "ToCopyBackward0")


# ---------------------------------------------------------------------------------------------
# parameters, devices, autograd
# ---------------------------------------------------------------------------------------------

_PARAMETER_CLASSES: dict = {}


def meta_class(cls: type) -> type:
    """The meta variant of a ``Tensor`` subclass (``Parameter``): ``cls`` first in the MRO, so
    its own methods (``repr``, ``deepcopy``) stay, then ``MetaTensor``'s over ``Tensor``'s."""
    if issubclass(cls, MetaTensor):
        return cls
    out = _PARAMETER_CLASSES.get(cls)
    if out is None:
        out = type(cls.__name__, (cls, MetaTensor), {"__module__": cls.__module__})
        out.__qualname__ = cls.__qualname__
        _PARAMETER_CLASSES[cls] = out
    return out


def any_meta(*tensors) -> bool:
    """Whether any argument is a meta tensor; raises PyTorch's error when meta and cpu tensors
    (other than cpu scalars) are mixed. ``None`` arguments are skipped."""
    meta = cpu = None
    for t in tensors:
        if isinstance(t, Tensor):
            if t.is_meta:
                meta = t if meta is None else meta
            elif t.ndim and cpu is None:
                cpu = t
    if meta is None:
        return False
    if cpu is not None:
        first = next(t for t in tensors if isinstance(t, Tensor) and (t.is_meta or t.ndim))
        want, got = ("meta", "cpu") if first.is_meta else ("cpu", "meta")
        raise RuntimeError(f"Tensor on device {got} is not on the expected device {want}!")
    return True


class MetaBackward:
    """Stand-in for the node PyTorch records on a meta result (its name, its edges); running
    backward through it raises, as meta tensors have no data to differentiate."""


def record(out: Tensor, name: str, *inputs) -> Tensor:
    """In grad mode, give ``out`` a node named ``name`` whose edges go to ``inputs``."""
    from .autograd import graph
    from .autograd.grad_mode import STATE

    if not STATE.enabled or not out._dtype.is_floating_point:
        return out
    if not any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        return out
    node = _node_class()(*(t if isinstance(t, Tensor) else None for t in inputs))
    node._name = name
    graph.attach(out, node)
    return out


_NODE = []


def _node_class():
    if not _NODE:
        from .autograd.graph import Node

        class MetaNode(Node):
            def backward(self, g):
                raise NotImplementedError(NO_DATA)

        _NODE.append(MetaNode)
    return _NODE[0]


# ---------------------------------------------------------------------------------------------
# factories
# ---------------------------------------------------------------------------------------------


def factory(shape, dtype: D.dtype, requires_grad: bool = False, stride=None) -> MetaTensor:
    out = empty(shape, dtype, stride)
    if requires_grad:
        if not dtype.is_floating_point:
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        out._requires_grad = True
    return out


def from_cpu(t: Tensor) -> MetaTensor:
    """A factory computed on the cpu (small ones: ``tensor``, ``arange``...) moved to meta."""
    out = empty(t._shape, t._dtype)
    out._requires_grad = t._requires_grad
    return out


def meta_repr(t) -> str:
    """``tensor(..., device='meta', size=(2, 3))`` and PyTorch's suffixes."""
    from ._printing import _add_suffixes, _dtype_str, _grad_fn_name

    suffixes = ["device='meta'", f"size={tuple(int(s) for s in t._shape)}"]
    if t.dtype is not D.get_default_dtype():
        suffixes.append("dtype=" + _dtype_str(t.dtype))
    grad_fn = t.grad_fn
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(...", suffixes, len("tensor("), force_newline=False)


__all__ = ["META", "MetaStorage", "MetaTensor", "Size", "any_meta", "empty", "like", "record"]
