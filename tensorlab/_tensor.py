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
        out = Tensor(
            self._storage,
            shape,
            stride,
            self._offset if offset is None else offset,
            self._dtype,
            base=self._base if self._base is not None else self,
        )
        vc = self._vc
        out._vc = vc
        out._view_version = vc[0]
        if not _GRAD.enabled:
            out._view_tracked = False
            out._view_no_grad = True
        return out

    def _np(self) -> np.ndarray:
        """The numpy array looking at exactly this tensor's elements (shares memory, writable)."""
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
        dtype = parse_to_args(args, kwargs, "to() got an unexpected keyword argument")
        dtype = self._dtype if dtype is None else D.to_dtype(dtype)
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
        self.grad_fn._retained = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable):
        """Call ``hook(grad)`` each time the gradient of this tensor is computed by a backward
        pass; a returned tensor replaces the gradient. Returns a handle whose ``remove()``
        unregisters the hook."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        from .utils.hooks import RemovableHandle

        fn = self.grad_fn
        owner = self if fn is None else fn
        hooks = owner.__dict__.setdefault("_backward_hooks" if fn is None else "_tensor_hooks", {})
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    @property
    def _version(self) -> int:
        """How many in-place writes this tensor (or a view of the same base) has had."""
        return self._vc[0]

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

    # ------------------------------------------------------------------ views: reshaping
    def view(self, *shape, dtype=None) -> Tensor:
        """Same storage, new shape. Raises ``RuntimeError`` when the strides cannot express it.
        ``view(dtype)`` reads the same bytes as another dtype."""
        if dtype is not None and not shape:
            shape = (dtype,)
        if len(shape) == 1 and isinstance(shape[0], D.dtype):
            return self._view_dtype(shape[0])
        return self._view_shape(*shape)

    @_records_view("ViewBackward0")
    def _view_shape(self, *shape) -> Tensor:
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
                        f"self.storage_offset() must be divisible by {ratio} {what}, but got "
                        f"{offset}"
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

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape(self, *shape) -> Tensor:
        """A view when ``view`` would work, otherwise a contiguous copy (never raises for strides)."""
        if not shape:
            raise TypeError('reshape() missing 1 required positional arguments: "shape"')
        shape = L.infer_size(_as_shape(shape), self.numel())
        stride = L.view_strides(self._shape, self._stride, shape)
        if stride is not None:
            return self.view(shape)
        return self.clone(memory_format=contiguous_format)._unsafe_view(shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

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

    # ------------------------------------------------------------------ views: axes
    @_records_view("UnsqueezeBackward0")
    def unsqueeze(self, dim: int) -> Tensor:
        """Insert an axis of size 1 at ``dim`` (``-1`` means after the last axis)."""
        d = L.wrap_dim(dim, self.ndim + 1)
        return self._view(*L.unsqueeze_layout(self._shape, self._stride, d))

    @_records_view(_squeeze_name)
    def squeeze(self, dim=None) -> Tensor:
        """Drop size-1 axes: all of them, one ``dim``, or a tuple of dims (others are left alone)."""
        if dim is None:
            keep = [i for i, s in enumerate(self._shape) if s != 1]
        else:
            dims = L.wrap_dims(dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim)
            keep = [i for i, s in enumerate(self._shape) if not (i in dims and s == 1)]
        return self._view(tuple(self._shape[i] for i in keep), tuple(self._stride[i] for i in keep))

    @_records_view("TransposeBackward0")
    def transpose(self, dim0: int, dim1: int) -> Tensor:
        a, b = L.wrap_dim(dim0, self.ndim), L.wrap_dim(dim1, self.ndim)
        if self.ndim == 0:
            return self._view((), ())
        order = list(range(self.ndim))
        order[a], order[b] = order[b], order[a]
        return self._view(*L.permute_layout(self._shape, self._stride, order))

    swapaxes = swapdims = transpose

    @_records_view("TBackward0")
    def t(self) -> Tensor:
        if self.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        return self.transpose(0, 1) if self.ndim == 2 else self._view(self._shape, self._stride)

    @property
    def T(self) -> Tensor:
        """Reverse all dims (PyTorch warns when ndim != 2, as here)."""
        if self.ndim == 0:
            warnings.warn(
                "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
                "cases.",
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

    @property
    def mT(self) -> Tensor:
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return self.transpose(-2, -1)

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

    @_records_view("PermuteBackward0")
    def _permute(self, order) -> Tensor:
        return self._view(*L.permute_layout(self._shape, self._stride, order))

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

    moveaxis = movedim

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

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other.shape)

    def broadcast_to(self, shape) -> Tensor:
        return self.expand(shape)

    # ------------------------------------------------------------------ views: pieces
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
            raise RuntimeError(
                f"start ({start}) + length ({length}) exceeds dimension size ({size})."
            )
        shape = list(self._shape)
        shape[d] = length
        return self._view(shape, self._stride, self._offset + start * self._stride[d])

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

    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        d = L.wrap_dim(dim, self.ndim)
        if self.ndim == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        return _rename(tuple(self.select(d, i) for i in range(self._shape[d])), "UnbindBackward0")

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

    # ------------------------------------------------------------------ in-place layout changes
    def _take_layout_(self, view: Tensor, name: str) -> Tensor:
        """Make ``view`` (a view op just applied to ``self``) ``self``'s own layout, in place; in
        grad mode the view's node becomes ``self``'s ``grad_fn``, under PyTorch's ``name``."""
        self._shape, self._stride, self._offset = view._shape, view._stride, view._offset
        node = view._grad_fn
        if node is not None:
            node._name = name
            _graph.attach(self, node)
        return self

    def unsqueeze_(self, dim: int) -> Tensor:
        L.wrap_dim(dim, self.ndim + 1)
        check_inplace(self)
        return self._take_layout_(self.unsqueeze(dim), "UnsqueezeBackward1")

    def squeeze_(self, dim=None) -> Tensor:
        if dim is not None:
            L.wrap_dims(dim if isinstance(dim, (tuple, list)) else (dim,), self.ndim)
        check_inplace(self)
        if dim is None:
            name = "SqueezeBackward3"
        else:
            name = "SqueezeBackward5" if isinstance(dim, (tuple, list)) else "SqueezeBackward4"
        return self._take_layout_(self.squeeze(dim), name)

    def transpose_(self, dim0: int, dim1: int) -> Tensor:
        L.wrap_dim(dim0, self.ndim)
        L.wrap_dim(dim1, self.ndim)
        check_inplace(self)
        return self._take_layout_(self.transpose(dim0, dim1), "TransposeBackward1")

    swapaxes_ = swapdims_ = transpose_

    def t_(self) -> Tensor:
        if self.ndim > 2:
            raise RuntimeError(
                f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D"
            )
        check_inplace(self)
        return self._take_layout_(self.t(), "TBackward1")

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
        needed = self._offset + L.numel(shape)
        if needed > self._storage._array.size:
            grown = new_storage(needed, self._dtype.np)
            old = self._storage._array
            grown._array[: old.size] = old
            grown._array[old.size :] = 0
            self._storage = grown
        self._shape, self._stride = shape, L.contiguous_strides(shape)
        self._vc[0] += 1
        return self

    def resize_as_(self, other: Tensor, memory_format=None) -> Tensor:
        return self.resize_(other.shape, memory_format=memory_format)


def parse_to_args(args, kwargs, unexpected: str):
    """The dtype asked for by ``to(dtype)`` / ``to('cpu')`` / ``to(tensor)`` / ``to(dtype=...)``
    (None if none); tensorlab has only the cpu device. Shared by ``Tensor.to`` and ``Module.to``."""
    dtype = kwargs.pop("dtype", None)
    _device.check_to_device(kwargs.pop("device", None))
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"{unexpected} '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.dtype
        elif isinstance(a, (str, _device.device)) or (
            isinstance(a, builtins.int) and not isinstance(a, builtins.bool)
        ):
            _device.check_to_device(a)
        elif a is not None:
            dtype = D.to_dtype(a)
    return dtype


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
    return Tensor._from_array_strided(out, dtype, L.preserve_strides(t._shape, t._stride))


def _rebuild(arr, dtype_name, requires_grad):
    t = Tensor._from_array(arr, D._BY_NAME[dtype_name])
    t._requires_grad = bool(requires_grad)
    return t


def is_tensor(obj) -> builtins.bool:
    return isinstance(obj, Tensor)
