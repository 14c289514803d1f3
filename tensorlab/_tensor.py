"""``Tensor``: metadata (shape, stride, storage offset, dtype) over a shared ``UntypedStorage``.

Every view op below computes a new layout with a pure function of ``_layout`` and returns a new
``Tensor`` on the *same* storage. Ops that make new data (math, copies) live in ``_ops/``: rows of
the op table in ``_ops/native_functions.py``, which installs them on ``Tensor``.
"""

from __future__ import annotations

import builtins
import functools
import warnings
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from . import _device
from . import _dtype as D
from . import _layout as L
from ._dtype import SCALAR_NAME as _SCALAR_NAME
from ._dtype import TYPE_NAME as _META_NAME
from ._storage import UntypedStorage, new_storage
from .autograd import graph as _graph
from .autograd.grad_mode import STATE as _GRAD

# name -> function: the ``tensorlab.<name>`` functions (filled by the op table's build())
MODULE_FUNCTIONS: dict[str, Callable] = {}


def tensor_method(*names: str, function: bool | str = True):
    """A row of the op table (``_ops/native_functions.py``: ``@op`` is the full form)."""
    from ._ops import native_functions

    return native_functions.tensor_method(*names, function=function)


def module_function(name: str | None = None):
    """A ``tensorlab.<name>`` row of the op table (``_ops/native_functions.py``)."""
    from ._ops import native_functions

    return native_functions.module_function(name)


class memory_format:
    """``tensorlab.contiguous_format`` / ``preserve_format``: how a copy lays out its elements."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"tensorlab.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def _check_memory_format(fmt, fn: str = "contiguous") -> None:
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(
            f"{fn}(): argument 'memory_format' must be tensorlab.memory_format, not "
            f"{type(fmt).__name__}"
        )


def _format_strides(shape, fmt) -> tuple[int, ...]:
    """Strides of a fresh tensor in memory format ``fmt`` (not preserve), with PyTorch's rank
    checks: ``channels_last`` needs 4 dims, ``channels_last_3d`` 5."""
    if fmt is channels_last or fmt is channels_last_3d:
        rank = 4 if fmt is channels_last else 5
        if len(shape) != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
        return L.channels_last_strides(shape)
    return L.contiguous_strides(shape)


def _is_contiguous_as(t, fmt) -> bool:
    """``t.is_contiguous(memory_format=fmt)`` (preserve and None mean contiguous_format)."""
    if fmt is channels_last or fmt is channels_last_3d:
        rank = 4 if fmt is channels_last else 5
        return t.ndim == rank and L.is_channels_last_contiguous(t._shape, t._stride)
    return L.is_contiguous(t._shape, t._stride)


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``tensorlab.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"tensorlab.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return L.numel(self)

    def __getitem__(self, item):
        out = super().__getitem__(item)
        return Size(out) if isinstance(item, slice) else out

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


def _as_shape(args, what: str = "size", fn: str | None = None) -> tuple[int, ...]:
    """Accept ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(Size)`` like PyTorch.

    ``fn`` names the calling function in the ``TypeError`` PyTorch's argument parser would raise.
    """
    prefix = f"{fn}(): argument '{what}'" if fn else what
    single = len(args) == 1 and isinstance(args[0], (tuple, list, Size))
    if single:
        args = tuple(args[0])
    elif len(args) == 1 and not _is_index_like(args[0]):
        raise TypeError(
            f"{prefix} (position 1) must be tuple of ints, not {type(args[0]).__name__}"
        )
    out = []
    for a in args:
        if isinstance(a, Tensor) and _is_index_like(a):
            a = a.item()
        if not _is_index_like(a):
            kind = type(a).__name__
            if not out:
                raise TypeError(
                    f"{prefix} (position 1) must be tuple of ints, but found element of type "
                    f"{kind} at pos 0"
                )
            raise TypeError(
                f"{prefix} failed to unpack the object at pos {len(out) + 1} with error "
                f'"type must be tuple of ints,but got {kind}"'
            )
        out.append(int(a))
    return tuple(out)


def _is_index_like(a) -> bool:
    if isinstance(a, Tensor):
        return a.numel() == 1 and not a.dtype.is_floating_point and a.dtype.name != "bool"
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


def _records_view(name):
    """Record the decorated view op in the autograd graph: in grad mode, when ``self`` requires
    grad, the view gets a node called ``name`` (or ``name(*args, **kwargs)``) that routes its
    gradient back by replaying the op (see :mod:`tensorlab.autograd.views`)."""

    def deco(fn):
        @functools.wraps(fn)
        def method(self, *args, **kwargs):
            out = fn(self, *args, **kwargs)
            if _GRAD.enabled and out is not self and self.requires_grad:
                from .autograd.views import record_view

                label = name if isinstance(name, str) else name(*args, **kwargs)
                record_view(out, self, label, lambda t: fn(t, *args, **kwargs))
            return out

        return method

    return deco


def _record_copy(out: Tensor, x: Tensor, name: str) -> Tensor:
    """A fresh copy of ``x`` (clone, dtype cast) passes the gradient straight through."""
    if _GRAD.enabled and x.requires_grad and out.dtype.is_floating_point:
        from .autograd.formulas import PassThrough

        _graph.attach(out, PassThrough(name, x))
    return out


def _rename(views, name: str):
    """PyTorch records one node for ``unbind``/``split``: give each piece's node that name."""
    for v in views:
        if v._grad_fn is not None:
            v._grad_fn._name = name
    return views


def _squeeze_name(dim=None) -> str:
    if dim is None:
        return "SqueezeBackward0"
    return "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"


_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


class _TensorMeta(type):
    """``type(tensorlab.Tensor)``, as PyTorch's ``torch._C._TensorMeta``: it lets
    ``tensorlab.Tensor(2, 3)`` and ``tensorlab.Tensor([[1, 2]])`` be PyTorch's legacy constructor,
    while the engine builds tensors from a storage and a layout."""

    def __call__(cls, *args, **kwargs):
        if cls is Tensor and not (args and isinstance(args[0], UntypedStorage)):
            if args and type(args[0]).__name__ == "MetaStorage":  # a view of a meta tensor
                from ._meta import MetaTensor

                return MetaTensor(*args, **kwargs)
            from ._ops.tensor_new import legacy_new

            return legacy_new(D.get_default_dtype(), args, kwargs, "base")
        return super().__call__(*args, **kwargs)


class Tensor(metaclass=_TensorMeta):
    """A strided view of a storage. ``tensorlab.Tensor(2, 3)`` / ``tensorlab.Tensor(data)`` are
    PyTorch's legacy constructors; the engine itself calls ``Tensor(storage, shape, stride,
    offset, dtype)``."""

    __array_priority__ = 1000  # so ``ndarray + Tensor`` defers to Tensor.__radd__

    # autograd state (class defaults, so that plain tensors cost nothing to create)
    _requires_grad = False  # a leaf that requires grad
    _grad = None  # the accumulated gradient (a Tensor)
    _grad_fn = None  # the node that made this tensor (None for a leaf)
    _accumulator = None  # weakref to the leaf's AccumulateGrad node
    _retains_grad = False
    _view_version = 0  # version of the base when the view's grad_fn was last set
    _view_tracked = True  # the view was made in grad mode (PyTorch: a differentiable view)
    _view_no_grad = False  # the view was made under no_grad

    def __init__(
        self,
        storage: UntypedStorage,
        shape: Sequence[int],
        stride: Sequence[int],
        offset: int,
        dtype: D.dtype,
        base: Tensor | None = None,
    ):
        self._storage = storage
        self._shape = tuple(shape)
        self._stride = tuple(stride)
        self._offset = int(offset)
        self._dtype = dtype
        self._base = base  # the tensor this is a view of (the root, never a view itself)
        self._vc = [0]  # version counter, shared with views; in-place writes increment it

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def _from_array(cls, arr: np.ndarray, dtype: D.dtype | None = None) -> Tensor:
        """A fresh, contiguous tensor holding a *copy* of ``arr`` (cast to ``dtype``)."""
        dtype = dtype or D.from_numpy_dtype(arr.dtype)
        shape = arr.shape
        n = L.numel(shape)
        storage = new_storage(n, dtype.np)
        if n:
            storage._array.reshape(shape)[...] = arr
        return cls(storage, shape, L.contiguous_strides(shape), 0, dtype)

    @classmethod
    def _adopt(cls, arr: np.ndarray, dtype: D.dtype) -> Tensor:
        """A tensor over ``arr``'s own memory, no copy: ``arr`` must be a fresh C-contiguous
        array of ``dtype`` that nothing else holds (a copy the caller just made)."""
        shape = arr.shape
        return cls(UntypedStorage(arr.reshape(-1)), shape, L.contiguous_strides(shape), 0, dtype)

    @classmethod
    def _from_array_strided(cls, arr: np.ndarray, dtype: D.dtype, stride: Sequence[int]) -> Tensor:
        """A fresh tensor holding a copy of ``arr`` laid out with the given dense ``stride``."""
        shape = arr.shape
        lo, hi = L.storage_span(shape, stride, 0)
        out = cls(new_storage(hi - lo, dtype.np), shape, stride, 0, dtype)
        if L.numel(shape):
            out._np()[...] = arr
        return out

    @classmethod
    def _empty(cls, shape: Sequence[int], dtype: D.dtype) -> Tensor:
        shape = tuple(shape)
        return cls(
            new_storage(L.numel(shape), dtype.np), shape, L.contiguous_strides(shape), 0, dtype
        )

    def _view(self, shape, stride, offset=None) -> Tensor:
        """A new tensor on the same storage with another layout (the heart of every view op)."""
        out = _make(
            self._storage,
            tuple(shape),
            tuple(stride),
            self._offset if offset is None else int(offset),
            self._dtype,
        )
        out._base = self._base if self._base is not None else self
        vc = self._vc
        out._vc = vc
        out._view_version = vc[0]
        if not _GRAD.enabled:
            out._view_tracked = False
            out._view_no_grad = True
        return out

    def _resize_contiguous(self, shape: tuple[int, ...]) -> None:
        """``resize_``'s layout change: ``shape`` with contiguous strides over the same storage,
        grown (old values kept, zeros after) when it is too small. No checks, no version bump."""
        needed = self._offset + L.numel(shape)
        if needed > self._storage._array.size:
            grown = new_storage(needed, self._dtype.np)
            old = self._storage._array
            grown._array[: old.size] = old
            grown._array[old.size :] = 0
            self._storage = grown
        self._shape, self._stride = shape, L.contiguous_strides(shape)

    def _np_contiguous(self) -> np.ndarray | None:
        """:meth:`_np` for a non-empty tensor with C-contiguous strides (a reshape of its
        storage: no strided-array construction), else None."""
        shape = self._shape
        strides, n = _contig_info(shape)
        if not n or self._stride != strides:
            return None
        arr = self._storage._array
        if arr.dtype is not self._dtype.np:
            return None  # a view as another dtype (``view(dtype)``): the general path
        off = self._offset
        if off or arr.shape[0] != n:
            arr = arr[off : off + n]
        return arr.reshape(shape)

    def _np(self) -> np.ndarray:
        """The numpy array looking at exactly this tensor's elements (shares memory, writable)."""
        arr = self._np_contiguous()
        if arr is not None:
            return arr
        item = self._dtype.itemsize
        if L.numel(self._shape) == 0:
            return np.empty(self._shape, dtype=self._dtype.np)
        return np.ndarray(
            self._shape,
            dtype=self._dtype.np,
            buffer=self._storage._array,
            offset=self._offset * item,
            strides=tuple(s * item for s in self._stride),
        )

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> Size:
        return Size(self._shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._shape)
        return self._shape[L.wrap_dim(dim, self.ndim, scalar_ok=False)]

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._stride
        return self._stride[L.wrap_dim(dim, self.ndim, scalar_ok=False)]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> D.dtype:
        return self._dtype

    @property
    def device(self) -> _device.device:
        return _device.CPU

    def get_device(self) -> int:
        return -1

    @property
    def layout(self) -> _device.layout:
        return _device.strided

    @property
    def is_cpu(self) -> bool:
        return True

    is_meta = is_sparse = is_quantized = is_mps = is_xpu = False

    def is_pinned(self, device=None) -> bool:
        return False

    def pin_memory(self, device=None):
        raise RuntimeError(_device.NO_ACCELERATOR)

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        return L.numel(self._shape)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def is_contiguous(self, *args, memory_format=None) -> bool:
        """Row-major with no gaps (size-1 dims ignored); with ``memory_format=channels_last``
        (``channels_last_3d``): exactly the NHWC (NDHWC) strides."""
        if args:
            raise TypeError(
                f"is_contiguous() takes 0 positional arguments but {len(args)} was given"
            )
        if memory_format is None:
            return L.is_contiguous(self._shape, self._stride)
        _check_memory_format(memory_format, "is_contiguous")
        return _is_contiguous_as(self, memory_format)

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def untyped_storage(self) -> UntypedStorage:
        return UntypedStorage(self._storage._array, owner=self._storage)

    def data_ptr(self) -> int:
        """Address of this tensor's first element: the storage's address + offset * element size."""
        return self._storage.data_ptr() + self._offset * self._dtype.itemsize

    def _is_view(self) -> bool:
        return self._base is not None

    def type(self, dtype=None, non_blocking: bool = False, **kwargs):
        """With no argument: ``'tensorlab.FloatTensor'`` & co. With a dtype or name: a cast."""
        if dtype is None:
            return f"tensorlab.{self._dtype._legacy}"
        if isinstance(dtype, str):
            key = dtype.split(".")[-1]
            if key not in D._BY_LEGACY:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = D._BY_LEGACY[key]
        elif isinstance(getattr(dtype, "dtype", None), D.dtype) and isinstance(dtype, type):
            dtype = dtype.dtype  # a legacy class: x.type(tensorlab.FloatTensor)
        return self.to(dtype)

    # ------------------------------------------------------------------ data, conversions
    @property
    def data(self) -> Tensor:
        """A tensor on the same storage with the same layout that does not require grad."""
        return Tensor(self._storage, self._shape, self._stride, self._offset, self._dtype)

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        self._storage, self._shape, self._stride = other._storage, other._shape, other._stride
        self._offset, self._dtype, self._base = other._offset, other._dtype, other._base

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A numpy array sharing this tensor's memory (writes go both ways)."""
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._np()

    def __array__(self, dtype=None, copy=None):
        arr = self._np()
        return arr.astype(dtype) if dtype is not None else arr

    def tolist(self):
        return self._np().tolist()

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._np().reshape(()).item()

    def _one_value(self, kind):
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return kind(self._np().reshape(()).item())

    def __int__(self) -> int:
        return self._one_value(int)

    def __float__(self) -> float:
        return self._one_value(float)

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._np().reshape(()).item())

    def __index__(self) -> int:
        if self._dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._np().reshape(()).item())

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self):
        return (_rebuild, (np.array(self._np()), self._dtype.name, self.requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                "be because of a tensorlab.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        out = self.detach().clone()
        out.requires_grad = self.requires_grad
        return out

    def __repr__(self) -> str:
        from ._printing import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        return format(repr(self), spec)

    # ------------------------------------------------------------------ dtype casts (copies)
    def to(self, *args, **kwargs) -> Tensor:
        """``to(dtype)``, ``to('cpu')``, ``to(other_tensor)``; returns ``self`` when nothing changes."""
        copy = kwargs.pop("copy", False)
        fmt = kwargs.pop("memory_format", None)
        _check_memory_format(fmt, "to")
        dtype, kind = parse_to_args(args, kwargs, "to() got an unexpected keyword argument", True)
        dtype = self._dtype if dtype is None else D.to_dtype(dtype)
        if kind == "meta":
            from ._meta import to_meta

            return to_meta(self, dtype, fmt)
        same_format = fmt in (None, preserve_format) or (
            L.suggest_memory_format(self._shape, self._stride) == fmt.name
        )
        if dtype is self._dtype and not copy and same_format:
            return self
        out = _cast(self, dtype)
        if fmt not in (None, preserve_format):  # lay the copy out as asked
            stride = _format_strides(self._shape, fmt)
            out = Tensor._from_array_strided(out._np(), dtype, stride)
        return _record_copy(out, self, "ToCopyBackward0")

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def half(self):
        return self.to(D.float16)

    def long(self):
        return self.to(D.int64)

    def int(self):
        return self.to(D.int32)

    def short(self):
        return self.to(D.int16)

    def char(self):
        return self.to(D.int8)

    def byte(self):
        return self.to(D.uint8)

    def bool(self):
        return self.to(D.bool_)

    def cpu(self, memory_format=None):
        return self

    def cuda(self, device=None, non_blocking: bool = False, memory_format=None):
        """A CPU-only build has no GPU: PyTorch's ``AssertionError``."""
        raise AssertionError(_device.NO_CUDA)

    # ------------------------------------------------------------------ autograd
    @property
    def requires_grad(self) -> bool:
        """True for a leaf marked to require grad and for every result computed from one in
        grad mode (those have a ``grad_fn``)."""
        if self._requires_grad:
            return True
        if self._base is None:
            return self._grad_fn is not None
        return self.grad_fn is not None or (self._view_no_grad and self._base.requires_grad)

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._check_inference_requires_grad(value)
        if not self.is_leaf:
            extra = (
                ""
                if value
                else " If you want to use a computed variable in a subgraph that doesn't require "
                "differentiation use var_no_grad = var.detach()."
            )
            raise RuntimeError(f"you can only change requires_grad flags of leaf variables.{extra}")
        if value and not self._dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Mark this leaf as requiring grad (or not); returns ``self``."""
        self._check_inference_requires_grad(requires_grad)
        if not self.is_leaf:
            if requires_grad:
                return self
            self.requires_grad = False  # raises PyTorch's message
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self):
        """The node of the op that made this tensor (None for a leaf)."""
        if self._base is not None and self._view_tracked and self._vc[0] != self._view_version:
            from .autograd.views import regenerate

            regenerate(self)  # the base was written in place since this view's node was made
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True when no recorded op made this tensor (every tensor that does not require grad,
        and the ones the user marked with ``requires_grad``)."""
        return self.grad_fn is None

    @property
    def grad(self):
        """The gradient accumulated by ``backward()`` (None before), for leaves that require
        grad and for tensors that called ``retain_grad()``."""
        if self._grad is None and not self.is_leaf and not self._retains_grad:
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError(
                "assigned grad expected to be a Tensor or None but got grad of type "
                f"{type(value).__name__}"
            )
        if value.dtype is not self._dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_META_NAME[value.dtype.name]}' to "
                f"a tensor with grad_dtype '{_SCALAR_NAME[self._dtype.name]}'. The gradient must "
                "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                "may break downstream systems that assume they match."
            )
        if value._shape != self._shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{L._fmt(value._shape)}' to a tensor of "
                f"size '{L._fmt(self._shape)}'. Please ensure that the gradient and the tensor are "
                "the same size"
            )
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad and not self.is_leaf

    def retain_grad(self) -> None:
        """Ask ``backward()`` to fill ``.grad`` of this non-leaf tensor too."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.is_leaf:
            return
        fn = self.grad_fn
        nr = _output_index(self, fn)
        if nr is None:
            fn._retained = weakref.ref(self)
        else:  # one of several outputs (a custom Function's, a recurrent layer's)
            fn.__dict__.setdefault("_output_retained", {})[nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable):
        """Call ``hook(grad)`` each time the gradient of this tensor is computed by a backward
        pass; a returned tensor replaces the gradient. Returns a handle whose ``remove()``
        unregisters the hook."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .utils.hooks import RemovableHandle

        fn = self.grad_fn
        nr = None if fn is None else _output_index(self, fn)
        if nr is not None:  # one of several outputs: its hooks are kept under its index
            hooks = fn.__dict__.setdefault("_output_hooks", {}).setdefault(nr, {})
        else:
            owner = self if fn is None else fn
            key = "_backward_hooks" if fn is None else "_tensor_hooks"
            hooks = owner.__dict__.setdefault(key, {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor (or a view of the same base) has had."""
        if type(self._vc) is not list:
            from .autograd.grad_mode import VERSION_INFERENCE

            raise RuntimeError(VERSION_INFERENCE)
        return self._vc[0]

    def is_inference(self) -> bool:
        """True for a tensor made inside ``inference_mode`` (or a view or ``detach()`` of one)."""
        return type(self._vc) is not list

    def _check_inference_requires_grad(self, value) -> None:
        if value and type(self._vc) is not list and not _GRAD.inference:
            from .autograd.grad_mode import REQUIRES_GRAD_INFERENCE

            raise RuntimeError(REQUIRES_GRAD_INFERENCE)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Add d(self)/d(leaf), weighted by ``gradient`` (needed unless ``self`` is a scalar),
        into the ``.grad`` of every leaf ``self`` depends on."""
        from .autograd.api import backward

        backward(self, gradient, retain_graph, create_graph, inputs)

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad (not allowed for views)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._requires_grad = False
        return self

    # ------------------------------------------------------------------ copies of the whole tensor
    def clone(self, *, memory_format=None) -> Tensor:
        """A copy in fresh storage that keeps the memory order (PyTorch's ``preserve_format``):
        ``x.t().clone()`` has ``x.t()``'s strides. ``contiguous()`` is the row-major copy."""
        _check_memory_format(memory_format, "clone")
        if memory_format is contiguous_format:
            out = self._contiguous_copy()
        elif memory_format is channels_last or memory_format is channels_last_3d:
            stride = _format_strides(self._shape, memory_format)
            out = Tensor._from_array_strided(self._np(), self._dtype, stride)
        else:
            stride = L.preserve_strides(self._shape, self._stride)
            out = Tensor._from_array_strided(self._np(), self._dtype, stride)
        return _record_copy(out, self, "CloneBackward0")

    def _contiguous_copy(self) -> Tensor:
        return Tensor._from_array(self._np(), self._dtype)

    def contiguous(self, *args, memory_format=None) -> Tensor:
        """``self`` if already contiguous, otherwise a contiguous (row-major) copy;
        ``memory_format=channels_last`` asks for NHWC order in memory instead."""
        if args:
            raise TypeError(f"contiguous() takes 0 positional arguments but {len(args)} was given")
        _check_memory_format(memory_format)
        fmt = contiguous_format if memory_format is None else memory_format
        if _is_contiguous_as(self, fmt):
            return self
        if fmt is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        return self.clone(memory_format=fmt)

    def detach(self) -> Tensor:
        """Same storage and layout, cut from autograd: a leaf that does not require grad (it
        shares memory, and the version counter, with ``self``)."""
        out = Tensor(self._storage, self._shape, self._stride, self._offset, self._dtype)
        out._vc = self._vc
        return out

    def _unsafe_view(self, shape) -> Tensor:
        """``self`` (a fresh contiguous copy) seen with another shape, as a new tensor rather than
        a view (PyTorch's ``_unsafe_view``, used by ``reshape`` when it has to copy)."""
        out = Tensor(self._storage, shape, L.contiguous_strides(shape), self._offset, self._dtype)
        if _GRAD.enabled and self.requires_grad:
            from .autograd.formulas import UnsafeViewBackward0

            _graph.attach(out, UnsafeViewBackward0(self))
        return out


def parse_to_args(args, kwargs, unexpected: str, with_device: bool = False):
    """The dtype asked for by ``to(dtype)`` / ``to('cpu')`` / ``to(tensor)`` / ``to(dtype=...)``
    (None if none); with ``with_device``, also the device type asked for (``'cpu'``, ``'meta'``
    or None). Shared by ``Tensor.to`` and ``Module.to``."""
    dtype = kwargs.pop("dtype", None)
    kind = _device.check_to_device(kwargs.pop("device", None))
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"{unexpected} '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
            kind = a.device.type
        elif isinstance(a, (str, _device.device)) or (
            isinstance(a, builtins.int) and not isinstance(a, builtins.bool)
        ):
            kind = _device.check_to_device(a)
        elif a is not None:
            dtype = D.to_dtype(a)
    return (dtype, kind) if with_device else dtype


def check_inplace(t: Tensor) -> None:
    """Called by every in-place op before it writes: autograd's rules (a leaf that requires grad,
    or a view of one, refuses in grad mode) and the version counter, then any extra hooks."""
    _graph.inplace_rules(t)
    for hook in INPLACE_HOOKS:
        hook(t)


INPLACE_HOOKS: list[Callable[[Tensor], None]] = []


def _cast(t: Tensor, dtype: D.dtype) -> Tensor:
    arr = t._np()
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype is D.bool_:
            out = arr != 0
        elif not dtype.is_floating_point and t._dtype.is_floating_point:
            # float -> int truncates toward zero (C cast), as PyTorch does
            out = np.trunc(arr).astype(dtype.np)
        else:
            out = arr.astype(dtype.np)
    # ``out`` is a fresh array: it becomes the storage when its layout is the one wanted
    return from_array(out, dtype, stride=L.preserve_strides(t._shape, t._stride), fresh=True)


def _rebuild(arr, dtype_name, requires_grad):
    t = Tensor._from_array(arr, D._BY_NAME[dtype_name])
    t._requires_grad = bool(requires_grad)
    return t


_contig_info = L.contiguous_info


def _output_index(t: Tensor, fn) -> int | None:
    """Which output of ``fn`` (a node with several outputs) ``t`` is; None for a node with one."""
    if getattr(fn, "_n_outputs", 1) == 1:
        return None
    return _graph.gradient_edge(t)[1]


UntypedStorage._tensor_class = Tensor  # what ``_make`` builds over it (meta storages: meta tensors)
_new_object = object.__new__


def _make(storage: UntypedStorage, shape: tuple, stride: tuple, offset: int, dtype) -> Tensor:
    """``Tensor(storage, shape, stride, offset, dtype)`` for arguments already normalised (tuples,
    an int offset) without the metaclass and ``__init__``: the hot paths' constructor. (In
    inference mode ``__init__`` is swapped to mark the new tensors: it then runs.)"""
    if _GRAD.inference:
        return Tensor(storage, shape, stride, offset, dtype)
    t = _new_object(storage._tensor_class)  # (a meta storage makes meta tensors)
    t._storage = storage
    t._shape = shape
    t._stride = stride
    t._offset = offset
    t._dtype = dtype
    t._base = None
    t._vc = [0]
    return t


def _adopt(values: np.ndarray, dtype) -> Tensor:
    """A tensor over ``values``' memory: a fresh, non-empty, C-contiguous array of ``dtype.np``
    that owns its data and that nothing else holds (an op's own result)."""
    shape = values.shape
    return _make(
        UntypedStorage(values.reshape(-1), owner=values), shape, _contig_info(shape)[0], 0, dtype
    )


def from_array(
    values, dtype: D.dtype, *, shape=None, stride=None, memory_format=None, fresh: bool = False
) -> Tensor:
    """The one way to make a ``Tensor`` from a numpy result (or a number).

    - ``values`` is converted to ``dtype`` as PyTorch converts (float to int truncates, anything
      to bool tests ``!= 0``) and broadcast to ``shape`` (default: its own shape);
    - the layout is ``stride`` when given, else ``memory_format``'s (contiguous by default;
      ``channels_last``/``channels_last_3d``: c10's channels-last strides);
    - the storage is ``values``' own buffer, without a copy, when its dtype and layout already fit
      and it owns its memory (a private numpy result), or, with ``fresh=True``, whenever they fit
      (the caller made ``values`` and keeps no other reference to it, as the nn kernels do);
      otherwise a new storage holding a copy.
    """
    from ._ops._elementwise import cast_array  # (tensorlab._ops imports this module)

    values = cast_array(np.asarray(values), dtype)
    shape = values.shape if shape is None else tuple(shape)
    stride = _format_strides(shape, memory_format) if stride is None else tuple(stride)
    if values.shape == shape and values.size and (fresh or values.flags.owndata):
        item = values.itemsize
        if builtins.all(
            size == 1 or st * item == nst for size, st, nst in zip(shape, stride, values.strides)
        ) and L.storage_span(shape, stride, 0) == (0, values.size):
            if values.flags.c_contiguous:  # a view in ~0.3 us (as_strided takes ~6 us)
                flat = values.reshape(-1)
            else:
                flat = np.lib.stride_tricks.as_strided(values, (values.size,), (item,))
            return Tensor(UntypedStorage(flat, owner=values), shape, stride, 0, dtype)
    n = L.numel(shape)
    size = 0 if n == 0 else 1 + builtins.sum((s - 1) * st for s, st in zip(shape, stride))
    out = Tensor(new_storage(size, dtype.np), shape, stride, 0, dtype)
    if n:
        out._np()[...] = values
    return out


def is_tensor(obj) -> builtins.bool:
    return isinstance(obj, Tensor)
