"""Making tensors: from data (``tensor``, ``from_numpy``), by shape (``zeros`` ...), ranges, random."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._storage import storage_over
from .._tensor import Tensor, _as_shape

# ---------------------------------------------------------------------------- random numbers


class Generator:
    """tensorlab's own seeded generator (numpy PCG64). Values do not match PyTorch's, only the API."""

    def __init__(self, seed: int = 0):
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed


default_generator = Generator(0)


def manual_seed(seed: int) -> Generator:
    """Seed tensorlab's generator (``rand``, ``randn``, ``randint``, ``nn.Conv2d`` init)."""
    return default_generator.manual_seed(seed)


def initial_seed() -> int:
    return default_generator.initial_seed()


def _rng(generator: Generator | None):
    return (generator or default_generator)._rng


# ---------------------------------------------------------------------------- helpers


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not t.dtype.is_floating_point:  # the factory functions' own wording
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


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


def _float_dtype(dtype) -> D.dtype:
    d = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    return d


# ---------------------------------------------------------------------------- from data


def _leaf_dtype(x) -> D.dtype:
    if isinstance(x, (builtins.bool, np.bool_)):
        return D.bool_
    if isinstance(x, np.generic):
        return D.from_numpy_dtype(x.dtype)
    if isinstance(x, builtins.int):
        return D.int64
    if isinstance(x, builtins.float):
        return D.get_default_dtype()
    if isinstance(x, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")


def _walk(data, dim: int, shape: list[int], leaves: list, kinds: set, check: bool = True) -> None:
    """Collect leaves of nested sequences, checking every level has the length of the first.

    Like PyTorch, lengths are only checked when the result has elements (``check``).
    """
    if isinstance(data, Tensor):
        if data.numel() != 1:
            if dim < len(shape):
                raise ValueError("only one element tensors can be converted to Python scalars")
        kinds.add(data.dtype)
        leaves.append(data.item())
        return
    if isinstance(data, np.ndarray):
        data = data.tolist() if data.ndim else data.item()
    if isinstance(data, (list, tuple)):
        if check:
            if dim >= len(shape):
                leaves.append(data)  # a sequence where a number belongs: reported by _convert
                return
            if len(data) != shape[dim]:
                raise ValueError(
                    f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})"
                )
        if not data:
            kinds.add(D.get_default_dtype())  # PyTorch: an empty sequence counts as a float
        for item in data:
            _walk(item, dim + 1, shape, leaves, kinds, check)
        return
    if check and dim < len(shape):
        raise TypeError("not a sequence")
    kinds.add(_leaf_dtype(data))
    leaves.append(data)


def _convert(leaves: list, dtype: D.dtype) -> np.ndarray:
    """Python leaves -> numpy array of ``dtype``, with PyTorch's per-value checks."""
    for x in leaves:
        if isinstance(x, (list, tuple)):
            if dtype.is_floating_point:
                raise TypeError(f"must be real number, not {type(x).__name__}")
            raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer")
        if isinstance(x, builtins.int) and not -(2**63) <= x < 2**63:
            raise ValueError("Overflow when unpacking long long")
    if dtype is D.bool_:
        return np.array([bool(x) for x in leaves], dtype=bool)
    if dtype.is_floating_point:
        with np.errstate(over="ignore"):
            return np.array(leaves, dtype=np.float64).astype(dtype.np)
    values = np.array(leaves, dtype=object)
    info = np.iinfo(dtype.np)
    as_float = np.array(leaves, dtype=np.float64)
    if leaves and not np.all((as_float >= info.min) & (as_float <= info.max)):
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return np.array([int(v) for v in values], dtype=np.int64).astype(dtype.np)


def _infer_shape(data) -> list[int]:
    shape = []
    while True:
        if isinstance(data, np.ndarray):
            shape.extend(data.shape)
            return shape
        if isinstance(data, Tensor):
            return shape
        if not isinstance(data, (list, tuple)):
            return shape
        shape.append(len(data))
        if not data:
            return shape
        data = data[0]


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A new tensor holding a *copy* of ``data`` (nested lists, tuples, scalars, numpy arrays).

    dtype is inferred as PyTorch does: any float -> default float dtype (float32), else any int
    -> int64, else bool; a numpy array keeps its dtype. Ragged lists raise ``ValueError`` here.
    """
    if isinstance(data, Tensor):
        out = data.detach().clone()
        return _finish(out if dtype is None else out.to(dtype), requires_grad)
    if isinstance(data, np.ndarray) and data.ndim > 0:
        src = D.from_numpy_dtype(data.dtype)
        out = Tensor._from_array(data, src)
        return _finish(out if dtype is None else out.to(dtype), requires_grad)
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    shape = _infer_shape(data)
    leaves: list = []
    kinds: set = set()
    _walk(data, 0, shape, leaves, kinds, check=L.numel(shape) > 0)
    if L.numel(shape) == 0:
        leaves = []
    if dtype is None:
        dtype = D.get_default_dtype()
        for i, k in enumerate(kinds):
            dtype = k if i == 0 else D.promote_types(dtype, k)
    else:
        dtype = D.to_dtype(dtype)
    arr = _convert(leaves, dtype)
    out = Tensor._from_array(arr.reshape(shape), dtype)
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
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray):
        t = from_numpy(data) if all(s >= 0 for s in data.strides) else tensor(data)
        return t if dtype is None else t.to(dtype)
    return tensor(data, dtype=dtype)


asarray = as_tensor


# ---------------------------------------------------------------------------- by shape


def _filled(size, value, dtype: D.dtype, requires_grad: bool, name: str, fmt=None) -> Tensor:
    shape = _shape_arg(size, name)
    t = Tensor._empty(shape, dtype)
    t._storage._array[...] = value
    if fmt is not None:  # a memory format, or the tensor whose layout ``*_like`` preserves
        t = Tensor(t._storage, shape, _format_stride(shape, fmt), 0, dtype)
    return _finish(t, requires_grad)


def _format_stride(shape, fmt) -> tuple[int, ...]:
    """Strides of a new tensor in ``fmt``: a memory format, or (for ``*_like`` with
    ``preserve_format``) the tensor to copy the layout of (its dense strides, or an inferred
    dense permutation of them)."""
    from .._tensor import _check_memory_format, _format_strides, preserve_format

    if isinstance(fmt, Tensor):
        return L.preserve_strides(fmt._shape, fmt._stride)
    _check_memory_format(fmt, "empty")
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return _format_strides(shape, fmt)


def _like_format(input, memory_format):
    """What ``*_like(input, memory_format=...)`` lays out by: ``input`` itself for preserve."""
    from .._tensor import preserve_format

    return input if memory_format is None or memory_format is preserve_format else memory_format


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _filled(size, 0, _float_dtype(dtype), requires_grad, "zeros")


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    return _filled(size, 1, _float_dtype(dtype), requires_grad, "ones")


def empty(
    *size, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    """Like ``torch.empty``; tensorlab fills with zeros so notebooks stay reproducible.
    ``memory_format=tensorlab.channels_last`` lays a 4-d tensor out NHWC."""
    return _filled(size, 0, _float_dtype(dtype), requires_grad, "empty", memory_format)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    d = D.scalar_dtype(fill_value) if dtype is None else D.to_dtype(dtype)
    return _filled((size,), fill_value, d, requires_grad, "full")


def _like(t: Tensor, dtype) -> D.dtype:
    if not isinstance(t, Tensor):
        raise TypeError(f"expected Tensor as element 0 in argument 0, but got {type(t).__name__}")
    return t.dtype if dtype is None else D.to_dtype(dtype)


def zeros_like(
    input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    d = _like(input, dtype)
    return _filled(
        (input.shape,), 0, d, requires_grad, "zeros_like", _like_format(input, memory_format)
    )


def ones_like(
    input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    d = _like(input, dtype)
    return _filled(
        (input.shape,), 1, d, requires_grad, "ones_like", _like_format(input, memory_format)
    )


def empty_like(
    input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None
) -> Tensor:
    d = _like(input, dtype)
    return _filled(
        (input.shape,), 0, d, requires_grad, "empty_like", _like_format(input, memory_format)
    )


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _filled((input.shape,), fill_value, _like(input, dtype), requires_grad, "full_like")


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _float_dtype(dtype)
    return _finish(Tensor._from_array(np.eye(n, n if m is None else m), d), requires_grad)


# ---------------------------------------------------------------------------- ranges


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``[start, end)`` by ``step``; int64 for integer arguments, the default float dtype otherwise."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if dtype is None:
        is_float = any(isinstance(v, (builtins.float, np.floating)) for v in (start, end, step))
        d = D.get_default_dtype() if is_float else D.int64
    else:
        d = D.to_dtype(dtype)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if not d.is_floating_point:
        # integer results: PyTorch truncates start, end and step to integers first
        start, end, step = builtins.int(start), builtins.int(end), builtins.int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    n = int(math.ceil((end - start) / step))
    values = start + step * np.arange(n, dtype=np.float64 if d.is_floating_point else np.int64)
    return _finish(Tensor._from_array(values, d), requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed as PyTorch does
    (from the start for the first half, back from the end for the second half)."""
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _float_dtype(dtype)
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
    return _finish(Tensor._from_array(np.asarray(values), d), requires_grad)


# ---------------------------------------------------------------------------- random


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Uniform on [0, 1) from tensorlab's seeded generator."""
    shape = _shape_arg(size, "rand")
    d = _float_dtype(dtype)
    return _finish(Tensor._from_array(_rng(generator).random(shape), d), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Standard normal from tensorlab's seeded generator."""
    shape = _shape_arg(size, "randn")
    d = _float_dtype(dtype)
    return _finish(Tensor._from_array(_rng(generator).standard_normal(shape), d), requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    args = list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    shape = _shape_arg((size,), "randint")
    d = D.int64 if dtype is None else D.to_dtype(dtype)
    values = _rng(generator).integers(low, high, size=shape)
    return _finish(Tensor._from_array(values, d), requires_grad)


def rand_like(input: Tensor, *, dtype=None, generator=None, requires_grad=False) -> Tensor:
    return rand(
        input.shape, dtype=_like(input, dtype), generator=generator, requires_grad=requires_grad
    )


def randn_like(input: Tensor, *, dtype=None, generator=None, requires_grad=False) -> Tensor:
    return randn(
        input.shape, dtype=_like(input, dtype), generator=generator, requires_grad=requires_grad
    )


def randperm(n: int, *, generator=None, dtype=None, requires_grad=False) -> Tensor:
    d = D.int64 if dtype is None else D.to_dtype(dtype)
    return Tensor._from_array(_rng(generator).permutation(n), d)
