"""Tensors from data: ``tensor``, ``as_tensor``, ``asarray``, ``from_numpy`` (PyTorch's
``torch/csrc/utils/tensor_new.cpp``: ``internal_new_from_data``)."""

from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy as np

from .. import _dtype as D
from .._device import check_factory_device
from .._storage import storage_over
from .._tensor import Tensor
from ._factory_args import _PIN, _check_dtype_arg, _finish, _tp_name

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
    elif isinstance(data, np.ndarray) or _is_torch(data):
        src = from_numpy(data) if isinstance(data, np.ndarray) else _from_torch(data)
        out = src.to(dtype or src.dtype, copy=True)
    else:
        out = _from_sequence(data, dtype)
    if check_factory_device(device) and not out.is_meta:
        from .._meta import from_cpu

        out = from_cpu(out)
    return _finish(out, requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor *sharing memory* with ``ndarray``: writes through either are seen by both."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dtype = D.from_numpy_dtype(ndarray.dtype)
    storage, strides = storage_over(ndarray)
    return Tensor(storage, ndarray.shape, strides, 0, dtype)


def _is_torch(data) -> bool:
    """A real ``torch.Tensor`` (torch is looked up, never imported)."""
    from ..interop import is_torch_tensor

    return is_torch_tensor(data)


def _from_torch(data) -> Tensor:
    from ..interop import from_torch

    return from_torch(data.detach())


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory when it can (a numpy array or tensor of the right dtype)."""
    dtype = _check_dtype_arg("as_tensor", dtype)
    if _is_torch(data):  # a real torch tensor: the tensorlab tensor on its memory
        data = _from_torch(data)
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(dtype)
    elif isinstance(data, np.ndarray):
        t = from_numpy(data) if all(s >= 0 for s in data.strides) else tensor(data)
        out = t if dtype is None else t.to(dtype)
    else:
        out = tensor(data, dtype=dtype)
    if check_factory_device(device) and not out.is_meta:
        return out.to("meta")
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
        elif _is_torch(obj):
            obj = _from_torch(obj)
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
