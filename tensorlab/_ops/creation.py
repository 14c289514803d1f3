"""Making tensors: from data (``tensor``, ``from_numpy``), by shape (``zeros`` ...), ranges, random,
``Tensor.new_*``, and the legacy constructors (``Tensor(2, 3)``, ``FloatTensor([...])``).

Every factory takes PyTorch's keywords: ``dtype``, ``device`` (the cpu; ``'cuda'`` raises what a
CPU-only PyTorch raises), ``layout`` (``strided``), ``pin_memory`` (False), ``requires_grad``,
``out`` where PyTorch has it, ``generator`` on the random ones, ``memory_format`` on ``empty`` and
``*_like``, and ``size=`` for the shape. Bad arguments raise PyTorch's argument-parser errors.
The seeding API (``Generator``, ``manual_seed`` ...) lives in :mod:`tensorlab.random`.
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._device import check_factory_device, strided
from .._storage import storage_over
from .._tensor import Tensor, _as_shape, check_inplace, tensor_method
from ..random import (  # noqa: F401  (re-exported: tensorlab's seeding API lives in random/)
    Generator,
    _gen,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)

# ---------------------------------------------------------------------------- options and out=

_PIN = (
    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
    "available on this system."
)


def _options(device=None, layout=None, pin_memory=False, use_default=True) -> None:
    """The keywords every factory accepts: only what a CPU-only PyTorch build can do passes."""
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"tensorlab has only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError(_PIN)
    check_factory_device(device, use_default)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not t.dtype.is_floating_point:  # the factory functions' own wording
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


def _out_dtype(name: str, dtype, out, default: D.dtype) -> D.dtype:
    """The result dtype: ``dtype=``, else ``out``'s dtype, else ``default``."""
    dtype = _check_dtype_arg(name, dtype)
    if out is None:
        return default if dtype is None else D.to_dtype(dtype)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and D.to_dtype(dtype) is not out.dtype:
        raise RuntimeError(
            f"dtype {D.SCALAR_NAME[D.to_dtype(dtype).name]} does not match dtype of out "
            f"parameter ({D.SCALAR_NAME[out.dtype.name]})"
        )
    return out.dtype


def _into_out(name: str, result: Tensor, out) -> Tensor:
    """Write a factory's ``result`` into ``out`` (resized like PyTorch's ``resize_output``)."""
    if out is None:
        return result
    from ..autograd.grad_mode import STATE

    if STATE.enabled and out.requires_grad:
        raise RuntimeError(
            f"aten::{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    check_inplace(out)
    shape = result._shape
    if out._shape != shape:
        # factories resize ``out`` silently (at::resize_, not resize_output); arange warns
        if name == "arange" and out.numel() and out.numel() != result.numel():
            warnings.warn(
                f"The number of elements in the out tensor of shape {L._fmt(out._shape)} is "
                f"{out.numel()} which does not match the computed number of elements "
                f"{result.numel()}. Note that this may occur as a result of rounding error. The "
                f"out tensor will be resized to a tensor of shape ({result.numel()},).",
                UserWarning,
                stacklevel=3,
            )
        _resize(out, shape)
    if out.numel():
        out._np()[...] = result._np()
    return out


def _resize(t: Tensor, shape) -> None:
    """``t.resize_(shape)``'s effect on the layout: contiguous strides, storage grown if needed."""
    from .._storage import new_storage

    shape = tuple(shape)
    needed = t._offset + L.numel(shape)
    if needed > t._storage._array.size:
        storage = new_storage(needed, t.dtype.np)
        old = t._storage._array
        storage._array[: old.size] = old
        t._storage = storage
    t._shape, t._stride = shape, L.contiguous_strides(shape)


def _size_arg(args: tuple, size, name: str) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))`` -> the positional form for _shape_arg."""
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        return (size,)
    return args


def _shape_arg(size, name: str) -> tuple[int, ...]:
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    shape = _as_shape(size, "size", name)
    for s in shape:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {L._fmt(shape)}"
            )
    return shape


_OPTS = (
    "Tensor out = None, tensorlab.dtype dtype = None, tensorlab.layout layout = None, "
    "tensorlab.device device = None, bool pin_memory = False, bool requires_grad = False"
)
_SIGNATURES = {
    "rand": [
        f"(tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(tuple of ints size, *, {_OPTS})",
    ],
    "randint": [
        f"(int high, tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(int high, tuple of ints size, *, {_OPTS})",
        f"(int low, int high, tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(int low, int high, tuple of ints size, *, {_OPTS})",
    ],
    "linspace": [
        f"({a} start, {b} end, int steps, *, {_OPTS})"
        for a, b in (
            ("Tensor", "Tensor"),
            ("Number", "Tensor"),
            ("Tensor", "Number"),
            ("Number", "Number"),
        )
    ],
}
_SIGNATURES["randn"] = _SIGNATURES["rand"]
_SIGNATURES["eye"] = [f"(int n, *, {_OPTS})", f"(int n, int m, *, {_OPTS})"]


def _invalid_combination(name: str, args: tuple) -> TypeError:
    """PyTorch's argument parser when no overload matches the positional arguments."""
    got = ", ".join(type(a).__name__ for a in args)
    sigs = "".join(f" * {sig}\n" for sig in _SIGNATURES[name])
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{sigs}"
    )


def _int_arg(x, name: str, arg: str, pos: int) -> builtins.int:
    """An ``int`` parameter (a Python or numpy int, or a one-element integer tensor)."""
    if isinstance(x, Tensor) and x.numel() == 1 and not x.dtype.is_floating_point:
        return builtins.int(x.item())
    if isinstance(x, (builtins.int, np.integer)) and not isinstance(x, (builtins.bool, np.bool_)):
        v = builtins.int(x)
        if not -(2**63) <= v < 2**63:
            raise ValueError("Overflow when unpacking long long")
        return v
    raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {_tp_name(x)}")


def _is_number(x) -> bool:
    if isinstance(x, Tensor):
        return x.numel() == 1
    return isinstance(x, (builtins.int, builtins.float, builtins.bool, np.number, np.bool_))


def _tp_name(x) -> str:
    """How CPython's C code names the type of ``x`` (``Py_TYPE(x)->tp_name``)."""
    t = type(x)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # a class defined in Python
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


# ---------------------------------------------------------------------------- from data
# PyTorch's torch/csrc/utils/tensor_new.cpp in Python: the shape follows the first element of
# each level (compute_sizes), the dtype promotes over every leaf (infer_scalar_type), then every
# leaf is stored with the checks of its target type (recursive_store / store_scalar).

_MAX_DIMS = 64


def _is_sequence(x) -> bool:
    """CPython's ``PySequence_Check`` as PyTorch sees it (a Tensor is not a sequence there)."""
    if isinstance(x, (list, tuple, range, str, bytes, bytearray, memoryview, np.ndarray)):
        return True
    if isinstance(x, (dict, Tensor, np.generic)):
        return False
    return hasattr(type(x), "__getitem__") and hasattr(type(x), "__len__")


def _compute_sizes(data) -> list[int]:
    sizes: list[int] = []
    seq = data
    while _is_sequence(seq):
        n = len(seq)  # a 0-d numpy array: TypeError 'len() of unsized object', as in PyTorch
        sizes.append(n)
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{_tp_name(seq)}'")
        if n == 0:
            break
        seq = seq[0]
    return sizes


def _infer_dtype(obj) -> D.dtype:
    if isinstance(obj, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(obj.dtype)
    if isinstance(obj, builtins.float):
        return D.get_default_dtype()
    if isinstance(obj, builtins.bool):
        return D.bool_
    if isinstance(obj, builtins.int):
        return D.int64
    if isinstance(obj, builtins.complex):
        raise TypeError("tensorlab has no complex dtypes")
    if isinstance(obj, Tensor):
        return obj.dtype
    if isinstance(obj, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp_name(obj)}'")
    if _is_sequence(obj):
        if len(obj) == 0:
            return D.get_default_dtype()
        out = None
        for i in range(len(obj)):
            item = obj[i]
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = _infer_dtype(item)
            out = d if out is None else D.promote_types(out, d)
        return out
    raise RuntimeError(f"Could not infer dtype of {_tp_name(obj)}")


def _unpack_double(x) -> builtins.float:
    if isinstance(x, builtins.float):
        return builtins.float(x)
    if isinstance(x, Tensor) or hasattr(type(x), "__float__"):
        return builtins.float(x)
    if hasattr(type(x), "__index__"):
        return builtins.float(operator.index(x))
    raise TypeError(f"must be real number, not {_tp_name(x)}")


def _unpack_long(x) -> builtins.int:
    v = operator.index(x)  # "'list' object cannot be interpreted as an integer"
    if not -(2**63) <= v < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return v


# how c10's checked_convert names the integer types when a Scalar (a fill value) overflows
_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int"}


def _fill_scalar(x, dtype: D.dtype):
    """A fill value (``full``, ``new_full``, ``full_like``) converted to ``dtype`` as c10 does."""
    if isinstance(x, Tensor):
        x = x.item()
    return _store_scalar(x, dtype, _C_NAMES.get(dtype.name, f"{dtype.name}_t"))


def _store_scalar(x, dtype: D.dtype, type_name: str | None = None):
    """One leaf as a Python value of ``dtype``'s kind, with PyTorch's checks (``store_scalar``)."""
    if dtype.is_floating_point:
        return _unpack_double(x)
    if dtype is D.bool_:
        if isinstance(x, (builtins.float, np.bool_)):
            return builtins.bool(x)
        v = operator.index(x)
        return v != 0
    info = np.iinfo(dtype.np)
    if isinstance(x, builtins.float):  # floats are truncated, with c10's checked_convert
        f = builtins.float(x)
        if math.isnan(f) or math.isinf(f) or f < info.min or f > info.max:
            raise RuntimeError(
                f"value cannot be converted to type {type_name or dtype.name} without overflow"
            )
        return builtins.int(f)
    v = _unpack_long(x)
    if info.min == 0:  # unsigned: negative values wrap (two's complement), as c10 allows
        bad = v > info.max or (v < 0 and -v > info.max)
        v &= info.max
    else:
        bad = v < info.min or v > info.max
    if bad:
        raise RuntimeError(
            f"value cannot be converted to type {type_name or dtype.name} without overflow"
        )
    return v


def _fast(obj) -> list | tuple:
    """CPython's ``PySequence_Fast(obj, "not a sequence")``."""
    if isinstance(obj, (list, tuple)):
        return obj
    try:
        it = iter(obj)
    except TypeError:
        raise TypeError("not a sequence") from None
    return list(it)


def _store(obj, dim: int, sizes: list[int], dtype: D.dtype, out: list) -> None:
    if dim == len(sizes):
        out.append(_store_scalar(obj, dtype))
        return
    seq = _fast(obj)
    n = sizes[dim]
    if len(seq) != n:
        raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
    for item in seq:
        if isinstance(item, np.ndarray) and not _store.warned:
            _store.warned = True
            warnings.warn(
                "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                "consider converting the list to a single numpy.ndarray with numpy.array() "
                "before converting to a tensor.",
                UserWarning,
                stacklevel=4,
            )
        _store(item, dim + 1, sizes, dtype, out)


_store.warned = False


_PY_NUMBERS = {builtins.float, builtins.int, builtins.bool}


def _leaf_types(data, depth: int):
    """The set of types of the leaves of nested lists/tuples ``depth`` levels deep (None when a
    level is not a list or tuple)."""
    if depth == 0:
        return set(map(type, data))
    out: set = set()
    for item in data:
        if type(item) not in (list, tuple):
            return None
        t = _leaf_types(item, depth - 1)
        if t is None:
            return None
        out |= t
    return out


def _fast_numbers(data, sizes: list[int], dtype: D.dtype | None) -> Tensor | None:
    """Nested lists of plain Python numbers, as numpy converts them (the same values as the
    element-by-element path below, which handles everything else and every error)."""
    if not sizes or 0 in sizes or type(data) not in (list, tuple):
        return None
    types = _leaf_types(data, len(sizes) - 1)
    if not types or not types <= _PY_NUMBERS:
        return None
    if dtype is None:
        if builtins.float in types:
            dtype = D.get_default_dtype()
        else:
            dtype = D.int64 if builtins.int in types else D.bool_
    try:
        if dtype.is_floating_point:
            with np.errstate(over="ignore"):
                arr = np.array(data, dtype=np.float64).astype(dtype.np)
        elif builtins.float in types or dtype not in (D.int64, D.bool_):
            return None  # value checks per element: the slow path
        else:
            arr = np.array(data, dtype=np.int64)
            if dtype is D.bool_:
                arr = arr != 0
    except (OverflowError, ValueError, TypeError):
        return None
    if arr.shape != tuple(sizes):
        return None
    return Tensor._from_array(arr, dtype)


def _from_sequence(data, dtype: D.dtype | None) -> Tensor:
    """``internal_new_from_data`` for Python data (not a tensor, not a numpy array)."""
    sizes = _compute_sizes(data)
    fast = _fast_numbers(data, sizes, dtype)
    if fast is not None:
        return fast
    dtype = _infer_dtype(data) if dtype is None else dtype
    t = Tensor._empty(sizes, dtype)
    if t.numel():
        values: list = []
        _store(data, 0, sizes, dtype, values)
        if dtype.is_floating_point:
            with np.errstate(over="ignore"):
                arr = np.array(values, dtype=np.float64).astype(dtype.np)
        elif dtype is D.bool_:
            arr = np.array(values, dtype=bool)
        else:  # every value was checked (or wrapped) to fit the dtype
            arr = np.array(values, dtype=np.int64).astype(dtype.np)
        t._storage._array[...] = arr
    return t


def _check_dtype_arg(name: str, dtype):
    if (
        dtype is None
        or isinstance(dtype, D.dtype)
        or dtype in (builtins.float, builtins.int, builtins.bool)
    ):
        return None if dtype is None else D.to_dtype(dtype)
    if type(dtype).__module__ == "torch":
        return D.to_dtype(dtype)
    raise TypeError(f"{name}(): argument 'dtype' must be tensorlab.dtype, not {_tp_name(dtype)}")


def tensor(
    data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new tensor holding a *copy* of ``data``: nested lists/tuples/ranges of numbers, 0-dim
    tensors and numpy arrays, a numpy array, a tensor.

    dtype is inferred as PyTorch does: Python floats -> the default float dtype (float32), else
    ints -> int64, else bool; numpy scalars, numpy arrays and tensors keep their dtype, promoted
    together. Ragged lists raise ``ValueError`` here.
    """
    dtype = _check_dtype_arg("tensor", dtype)
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
    if pin_memory:
        raise RuntimeError(_PIN)
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than tensorlab.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        out = data.detach().to(dtype or data.dtype, copy=True)
    elif isinstance(data, np.ndarray):
        src = from_numpy(data)
        out = src.to(dtype or src.dtype, copy=True)
    else:
        out = _from_sequence(data, dtype)
    check_factory_device(device)
    return _finish(out, requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor *sharing memory* with ``ndarray``: writes through either are seen by both."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtype = D.from_numpy_dtype(ndarray.dtype)
    storage, strides = storage_over(ndarray)
    return Tensor(storage, ndarray.shape, strides, 0, dtype)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory when it can (a numpy array or tensor of the right dtype)."""
    dtype = _check_dtype_arg("as_tensor", dtype)
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(dtype)
    elif isinstance(data, np.ndarray):
        t = from_numpy(data) if all(s >= 0 for s in data.strides) else tensor(data)
        out = t if dtype is None else t.to(dtype)
    else:
        out = tensor(data, dtype=dtype)
    check_factory_device(device)
    return out


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    """``as_tensor`` with ``copy=True`` (always a copy) and ``requires_grad=``."""
    if copy:
        if isinstance(obj, Tensor):
            out = obj.detach().to(_check_dtype_arg("asarray", dtype) or obj.dtype, copy=True)
            check_factory_device(device)
        else:
            out = tensor(obj, dtype=dtype, device=device)
    elif copy is False:  # alias or fail, as torch.asarray(copy=False)
        if isinstance(obj, np.ndarray):
            obj = from_numpy(obj)
        if not isinstance(obj, Tensor):
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        d = _check_dtype_arg("asarray", dtype)
        if d is not None and d is not obj.dtype:
            raise ValueError(
                f"can't alias tensor with dtype '{D.SCALAR_NAME[obj.dtype.name]}' into dtype "
                f"'{D.SCALAR_NAME[d.name]}'."
            )
        check_factory_device(device)
        out = obj
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        if out is obj:
            out = out.detach()
        out.requires_grad_(True)
    return out


# ---------------------------------------------------------------------------- by shape


def _filled(name, args, size, value, dtype, out, requires_grad, default=None) -> Tensor:
    shape = _shape_arg(_size_arg(args, size, name), name)
    d = _out_dtype(name, dtype, out, default or D.get_default_dtype())
    t = Tensor._empty(shape, d)
    t._storage._array[...] = value
    return _finish(_into_out(name, t, out), requires_grad)


def zeros(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    _options(device, layout, pin_memory)
    return _filled("zeros", size, _kw_size(kw, "zeros"), 0, dtype, out, requires_grad)


def ones(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    _options(device, layout, pin_memory)
    return _filled("ones", size, _kw_size(kw, "ones"), 1, dtype, out, requires_grad)


def empty(
    *size,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    memory_format=None,
    **kw,
) -> Tensor:
    """Like ``torch.empty``; tensorlab fills with zeros so notebooks stay reproducible.
    ``memory_format=channels_last`` lays a 4-d tensor out NHWC."""
    _options(device, layout, pin_memory)
    if memory_format is None:
        return _filled("empty", size, _kw_size(kw, "empty"), 0, dtype, out, requires_grad)
    _format_strides("empty", (), memory_format, like=_NO_LIKE)  # the argument's type first
    shape = _shape_arg(_size_arg(size, _kw_size(kw, "empty"), "empty"), "empty")
    stride = _format_strides("empty", shape, memory_format)
    d = _out_dtype("empty", dtype, out, D.get_default_dtype())
    lo, hi = L.storage_span(shape, stride, 0)
    from .._storage import new_storage

    storage = new_storage(hi - lo, d.np)
    storage._array[...] = 0
    return _finish(_into_out("empty", Tensor(storage, shape, stride, 0, d), out), requires_grad)


def _kw_size(kw: dict, name: str):
    size = kw.pop("size", None)
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
    return size


_NO_LIKE = object()  # ``_format_strides(..., like=_NO_LIKE)``: only check the argument's type


def _format_strides(name: str, shape, fmt, like=None) -> tuple[int, ...]:
    """Strides of a new tensor of ``shape`` in memory format ``fmt``: ``like``'s layout for
    ``preserve_format`` (``*_like``), otherwise the format's own strides (``Tensor``'s rule:
    contiguous, or NHWC / NDHWC with PyTorch's rank check)."""
    from .._tensor import _check_memory_format, preserve_format
    from .._tensor import _format_strides as format_strides

    _check_memory_format(fmt, name)
    if like is _NO_LIKE:
        return ()
    if fmt is None or fmt is preserve_format:
        if like is not None:
            return L.preserve_strides(like._shape, like._stride)
        if fmt is preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
    return format_strides(shape, fmt)


def full(
    size,
    fill_value,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    _options(device, layout, pin_memory)
    if not _is_number(fill_value):
        raise TypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not {_tp_name(fill_value)}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = D.scalar_dtype(fill_value)
    size = _size_tuple(size, "full")
    fill_value = _fill_scalar(fill_value, _out_dtype("full", dtype, out, default))
    return _filled("full", (), size, fill_value, dtype, out, requires_grad, default)


def _size_tuple(size, name: str):
    """A ``size`` argument that must be a sequence (``full``, ``new_full``): an int is refused."""
    if isinstance(size, (tuple, list)):
        return size
    raise TypeError(
        f"{name}(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
    )


def _like(input: Tensor, name: str, dtype, device, layout, pin_memory, memory_format) -> Tensor:
    """A fresh tensor shaped like ``input``, laid out like it (PyTorch's ``preserve_format``)."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    _options(device, layout, pin_memory, use_default=False)
    d = input.dtype if dtype is None else D.to_dtype(dtype)
    stride = _format_strides(name, input._shape, memory_format, like=input)
    lo, hi = L.storage_span(input._shape, stride, 0)
    from .._storage import new_storage

    storage = new_storage(hi - lo, d.np)
    storage._array[...] = 0
    return Tensor(storage, input._shape, stride, 0, d)


def _like_fn(name: str, value):
    def fn(
        input,
        *,
        dtype=None,
        layout=None,
        device=None,
        pin_memory=False,
        requires_grad=False,
        memory_format=None,
    ) -> Tensor:
        t = _like(input, name, dtype, device, layout, pin_memory, memory_format)
        if value != 0 and t.numel():
            t._np()[...] = value
        return _finish(t, requires_grad)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"A tensor of {value}s with ``input``'s shape, dtype and memory layout."
    return fn


zeros_like = _like_fn("zeros_like", 0)
ones_like = _like_fn("ones_like", 1)
empty_like = _like_fn("empty_like", 0)


def full_like(
    input,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    t = _like(input, "full_like", dtype, device, layout, pin_memory, memory_format)
    value = _fill_scalar(fill_value, t.dtype)
    if t.numel():
        t._np()[...] = value
    return _finish(t, requires_grad)


def eye(
    n: int,
    m: int | None = None,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    _options(device, layout, pin_memory)
    n = _int_arg(n, "eye", "n", 1)
    if m is not None and not _is_int(m) and not isinstance(m, Tensor):
        raise _invalid_combination("eye", (n, m))
    m = None if m is None else _int_arg(m, "eye", "m", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _out_dtype("eye", dtype, out, D.get_default_dtype())
    t = Tensor._from_array(np.eye(n, n if m is None else m), d)
    return _finish(_into_out("eye", t, out), requires_grad)


# ---------------------------------------------------------------------------- ranges


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """``[start, end)`` by ``step``; int64 for integer arguments, the default float dtype otherwise."""
    _options(device, layout, pin_memory)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    is_float = any(isinstance(v, (builtins.float, np.floating)) for v in (start, end, step))
    d = _out_dtype("arange", dtype, out, D.get_default_dtype() if is_float else D.int64)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if not d.is_floating_point:
        # integer results: PyTorch truncates start, end and step to integers first
        start, end, step = builtins.int(start), builtins.int(end), builtins.int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    n = builtins.int(math.ceil((end - start) / step))
    values = start + step * np.arange(n, dtype=np.float64 if d.is_floating_point else np.int64)
    t = Tensor._from_array(values, d)
    return _finish(_into_out("arange", t, out), requires_grad)


def linspace(
    start,
    end,
    steps: int = None,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed as PyTorch does
    (from the start for the first half, back from the end for the second half)."""
    _options(device, layout, pin_memory)
    if not (_is_number(start) and _is_number(end) and _is_int(steps)):
        given = (start, end) if steps is None else (start, end, steps)
        raise _invalid_combination("linspace", given)
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _out_dtype("linspace", dtype, out, D.get_default_dtype())
    ct = d.np.type if d.is_floating_point else np.float64
    if steps == 0:
        values = np.zeros(0)
    elif steps == 1:
        values = np.array([start], dtype=np.float64)
    else:
        s, e = ct(start), ct(end)
        step = (e - s) / ct(steps - 1)
        idx = np.arange(steps)
        half = steps // 2
        values = np.where(
            idx < half,
            s + step * idx.astype(ct),
            e - step * (steps - idx - 1).astype(ct),
        )
    if not d.is_floating_point:
        values = np.trunc(values)
    t = Tensor._from_array(np.asarray(values), d)
    return _finish(_into_out("linspace", t, out), requires_grad)


# ---------------------------------------------------------------------------- random


def _random(name, args, size, draw, generator, dtype, out, requires_grad, default=None):
    if not args and size is None and name in _SIGNATURES:
        raise _invalid_combination(name, args)
    shape = _shape_arg(_size_arg(args, size, name), name)
    d = _out_dtype(name, dtype, out, default or D.get_default_dtype())
    n = math.prod(shape)
    values = draw(n, d, _gen(generator), None).reshape(shape)  # a fresh, contiguous tensor
    t = Tensor._from_array(values.astype(d.np, copy=False), d)
    return _finish(_into_out(name, t, out), requires_grad)


# The draws of the random factories, PyTorch's kernels (``random/_kernels.py``):
# ``draw(n, dtype, generator, like)`` gives ``n`` values in fill order; ``like`` is the tensor
# filled (for its layout), or None for a fresh contiguous one.
def _float_kernel(d, kernel: str) -> None:
    if not d.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{D.SCALAR_NAME[d.name]}'")


def _uniform01(n, d, g, like):
    from ..random._kernels import uniform

    _float_kernel(d, "check_uniform_bounds")
    return uniform(g, n, d, 0.0, 1.0)


def _normal01(n, d, g, like):
    from ..random._kernels import normal

    _float_kernel(d, "normal_kernel_cpu")
    return normal(g, n, d, 0.0, 1.0, like is None or like.is_contiguous())


def _ints(low: int, high: int):
    def draw(n, d, g, like):
        from ..random._kernels import int_from_to
        from .distributions import _check_range

        _check_range(int(low), int(high), d)
        return int_from_to(g, n, int(low), int(high))

    return draw


def rand(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    """Uniform on [0, 1) from tensorlab's seeded generator."""
    _options(device, layout, pin_memory)
    return _random(
        "rand",
        size,
        _kw_size(kw, "rand"),
        _uniform01,
        generator,
        dtype,
        out,
        requires_grad,
    )


def randn(
    *size,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    **kw,
) -> Tensor:
    """Standard normal from tensorlab's seeded generator."""
    _options(device, layout, pin_memory)
    if out is not None and dtype is None and not out.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{D.SCALAR_NAME[out.dtype.name]}'"
        )
    return _random(
        "randn",
        size,
        _kw_size(kw, "randn"),
        _normal01,
        generator,
        dtype,
        out,
        requires_grad,
    )


def randint(
    *args,
    size=None,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    low=None,
    high=None,
) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    _options(device, layout, pin_memory)
    pos = list(args)
    if high is not None:
        pos.append(high)
    if low is not None:
        pos.insert(0, low)
    if size is None:
        if len(pos) not in (2, 3):
            raise _invalid_combination("randint", args)
        size = pos.pop()
        if not isinstance(size, (tuple, list)):
            raise TypeError(
                f"randint(): argument 'size' (position {len(pos) + 1}) must be tuple of ints, "
                f"not {_tp_name(size)}"
            )
    if len(pos) == 1:
        low, high = 0, _int_arg(pos[0], "randint", "high", 1)
    elif len(pos) == 2:
        if not all(_is_int(v) or isinstance(v, Tensor) for v in pos):
            raise _invalid_combination("randint", args)
        low, high = (
            _int_arg(v, "randint", n, i + 1) for i, (v, n) in enumerate(zip(pos, ("low", "high")))
        )
    else:
        raise _invalid_combination("randint", args)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return _random(
        "randint",
        (),
        size,
        _ints(low, high),
        generator,
        dtype,
        out,
        requires_grad,
        D.int64,
    )


def _random_like(
    name, input, draw, generator, dtype, layout, device, pin_memory, requires_grad, memory_format
):
    t = _like(input, name, dtype, device, layout, pin_memory, memory_format)
    from .distributions import _put

    return _finish(_put(t, draw(t.numel(), t.dtype, _gen(generator), t)), requires_grad)


def _random_like_fn(name: str, draw, what: str):
    """``rand_like``/``randn_like``: ``draw(...)`` into a tensor laid out like
    ``input`` (PyTorch's ``preserve_format``)."""

    def fn(
        input,
        *,
        generator=None,
        dtype=None,
        layout=None,
        device=None,
        pin_memory=False,
        requires_grad=False,
        memory_format=None,
    ) -> Tensor:
        return _random_like(
            name,
            input,
            draw,
            generator,
            dtype,
            layout,
            device,
            pin_memory,
            requires_grad,
            memory_format,
        )

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{what} with ``input``'s shape, dtype and memory layout."
    return fn


rand_like = _random_like_fn("rand_like", _uniform01, "Uniform on [0, 1)")
randn_like = _random_like_fn("randn_like", _normal01, "Standard normal")


def randint_like(
    input,
    low=0,
    high=None,
    *,
    generator=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
    memory_format=None,
) -> Tensor:
    if high is None:
        low, high = 0, low
    low, high = _num(low), _num(high)
    return _random_like(
        "randint_like",
        input,
        _ints(low, high),
        generator,
        dtype,
        layout,
        device,
        pin_memory,
        requires_grad,
        memory_format,
    )


def randperm(
    n: int,
    *,
    generator=None,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    _options(device, layout, pin_memory)
    n = _int_arg(n, "randperm", "n", 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = _out_dtype("randperm", dtype, out, D.int64)
    from ..random._kernels import randperm as perm

    t = Tensor._from_array(perm(_gen(generator), n), d)
    return _finish(_into_out("randperm", t, out), requires_grad)


# ---------------------------------------------------------------------------- Tensor.new_*


def _new_like_self(name: str, factory, what: str):
    """``self.new_zeros/new_ones/new_empty(size)``: ``factory(size)`` with ``self``'s dtype and
    device unless ``dtype=``/``device=`` say otherwise."""

    def method(
        self,
        *size,
        dtype=None,
        layout=None,
        device=None,
        pin_memory=False,
        requires_grad=False,
        **kw,
    ) -> Tensor:
        return factory(
            *size,
            dtype=dtype or self.dtype,
            layout=layout,
            device=self.device if device is None else device,
            pin_memory=pin_memory,
            requires_grad=requires_grad,
            **_new_size(kw, size, name),
        )

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{what} of ``size`` with ``self``'s dtype (unless ``dtype=`` says otherwise)."
    return tensor_method(name, function=False)(method)


new_zeros = _new_like_self("new_zeros", zeros, "Zeros")
new_ones = _new_like_self("new_ones", ones, "Ones")
new_empty = _new_like_self("new_empty", empty, "An uninitialised tensor (tensorlab: zeros)")


def _new_size(kw: dict, size: tuple, name: str) -> dict:
    if not size and "size" not in kw:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    _shape_arg(_size_arg(size, kw.get("size"), name), name)  # this method's own messages
    return kw


@tensor_method("new_full", function=False)
def new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return full(
        _size_tuple(size, "new_full"),
        fill_value,
        dtype=dtype or self.dtype,
        layout=layout,
        device=self.device if device is None else device,
        pin_memory=pin_memory,
        requires_grad=requires_grad,
    )


@tensor_method("new_tensor", function=False)
def new_tensor(
    self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
) -> Tensor:
    """``tensor(data)`` with ``self``'s dtype unless ``dtype=`` is given (a copy, always)."""
    _options(device, layout, pin_memory, use_default=False)
    d = _check_dtype_arg("new_tensor", dtype) or self.dtype
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        out = data.detach().to(d, copy=True)
    elif isinstance(data, np.ndarray):
        out = from_numpy(data).to(d, copy=True)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
        out = _from_sequence(data, d)
    return _finish(out, requires_grad)


@tensor_method("new", function=False)
def new(self, *args, **kwargs) -> Tensor:
    """The legacy ``x.new(...)``: ``torch.Tensor(...)`` with ``x``'s dtype."""
    return legacy_new(self.dtype, args, kwargs, "new")


# ---------------------------------------------------------------------------- legacy constructors
# ``tensorlab.Tensor(2, 3)``, ``tensorlab.Tensor([[1, 2]])``, ``tensorlab.FloatTensor(...)``: PyTorch's
# legacy_tensor_generic_ctor_new (torch/csrc/utils/tensor_new.cpp).

_NEW_SIGNATURES = (
    " * (*, tensorlab.device device = None)\n"
    " * (tensorlab.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, tensorlab.device device = None)\n"
    " * (object data, *, tensorlab.device device = None)\n"
)


def _is_int(x) -> bool:
    return isinstance(x, (builtins.int, np.integer)) and not isinstance(
        x, (builtins.bool, np.bool_)
    )


def legacy_new(dtype: D.dtype, args: tuple, kwargs: dict, kind: str) -> Tensor:
    """``kind``: ``'base'`` (tensorlab.Tensor), ``'ctor'`` (FloatTensor & co.), ``'new'`` (x.new)."""
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join(
            [type(a).__name__ for a in args] + [f"{k}={_kw_type(v)}" for k, v in kwargs.items()]
        )
        first, rest = _NEW_SIGNATURES.split("\n", 1)
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but expected one "
            f"of:\n{first}\n      didn't match because some of the keywords were incorrect: "
            f"{', '.join(kwargs)}\n{rest}"
        )
    if device is not None:
        kind_ = _as_device_type(device)
        if kind_ != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {kind_} was passed"
            )
    if not args:
        return _zeros((0,), dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if device is not None:
            if kind == "new":
                raise RuntimeError(
                    "Legacy tensor new of the form tensor.new(tensor, device=device) is not "
                    "supported.  Use tensorlab.as_tensor(...) instead."
                )
            raise RuntimeError(
                "Legacy tensor constructor of the form tensorlab.Tensor(tensor, device=device) is "
                "not supported.  Use tensorlab.tensor(...) or tensorlab.as_tensor(...) instead."
            )
        if kind != "base" and other.dtype is not dtype:
            raise TypeError(f"expected {_options_str(dtype)} (got {_options_str(other.dtype)})")
        return other.detach()
    from .._tensor import Size

    if all(_is_int(a) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        shape = _shape_arg(args, "new")
        return _zeros(shape, dtype)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
        if not _is_sequence(data):
            raise TypeError(f"new(): data must be a sequence (got {_tp_name(data)})")
        if isinstance(data, np.ndarray):  # shares memory when the dtype already matches
            return from_numpy(data).to(dtype)
        return _from_sequence(data, dtype)
    if any(_is_int(a) for a in args[:1]):
        return _zeros(_shape_arg(args, "new"), dtype)  # raises the size TypeError
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{_NEW_SIGNATURES}"
    )


def _zeros(shape, dtype: D.dtype) -> Tensor:
    """``empty`` in tensorlab: zeros, so that notebooks print the same thing on every run."""
    t = Tensor._empty(shape, dtype)
    t._storage._array[...] = 0
    return t


def _kw_type(v) -> str:
    return "tensorlab.dtype" if isinstance(v, D.dtype) else type(v).__name__


def _as_device_type(device) -> str:
    from .._device import as_device

    return as_device(device).type


def _options_str(d: D.dtype) -> str:
    return (
        f"TensorOptions(dtype={D.TYPE_NAME[d.name]}, device=cpu, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


class tensortype(type):
    """The type of ``tensorlab.FloatTensor`` & co. (PyTorch's ``torch.tensortype``): calling one
    is the legacy constructor for its dtype; ``isinstance(x, FloatTensor)`` checks the dtype."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, **kwargs) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs, "ctor")

    def __repr__(cls) -> str:
        return f"<class 'tensorlab.{cls.__name__}'>"


def _legacy_class(d: D.dtype):
    cls = tensortype(d._legacy, (), {"dtype": d, "__module__": "tensorlab", "is_sparse": False})
    cls.__qualname__ = d._legacy
    return cls


FloatTensor = _legacy_class(D.float32)
DoubleTensor = _legacy_class(D.float64)
HalfTensor = _legacy_class(D.float16)
ByteTensor = _legacy_class(D.uint8)
CharTensor = _legacy_class(D.int8)
ShortTensor = _legacy_class(D.int16)
IntTensor = _legacy_class(D.int32)
LongTensor = _legacy_class(D.int64)
BoolTensor = _legacy_class(D.bool_)
tensortype.__module__ = "tensorlab"
