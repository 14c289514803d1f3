"""Factories: by shape (``zeros``, ``ones``, ``empty``, ``full``, ``eye``), ``*_like``, ranges
(``arange``, ``linspace``) and random (``rand``, ``randn``, ``randint``, ``randperm``, ...).

Every factory takes PyTorch's keywords: ``dtype``, ``device`` (the cpu; ``'cuda'`` raises what a
CPU-only PyTorch raises), ``layout`` (``strided``), ``pin_memory`` (False), ``requires_grad``,
``out`` where PyTorch has it, ``generator`` on the random ones, ``memory_format`` on ``empty`` and
``*_like``, and ``size=`` for the shape (the shared checks: :mod:`._factory_args`). Bad arguments
raise PyTorch's argument-parser errors. The seeding API (``Generator``, ``manual_seed`` ...) lives
in :mod:`tensorlab.random`; tensors from data in :mod:`.from_data`; ``Tensor.new_*`` and the
legacy constructors in :mod:`.tensor_new`.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .. import _meta
from .._tensor import Tensor
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
from ._factory_args import (
    _SIGNATURES,
    _finish,
    _int_arg,
    _into_out,
    _invalid_combination,
    _is_int,
    _is_number,
    _options,
    _out_dtype,
    _shape_arg,
    _size_arg,
    _tp_name,
)
from .from_data import _fill_scalar, as_tensor, asarray, from_numpy, tensor  # noqa: F401  (re-exported)

# ---------------------------------------------------------------------------- by shape


def _filled(name, args, size, value, dtype, out, requires_grad, default=None, meta=False):
    shape = _shape_arg(_size_arg(args, size, name), name)
    d = _out_dtype(name, dtype, out, default or D.get_default_dtype())
    if meta:
        return _meta.factory(shape, d, requires_grad)
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
    meta = _options(device, layout, pin_memory)
    return _filled("zeros", size, _kw_size(kw, "zeros"), 0, dtype, out, requires_grad, meta=meta)


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
    meta = _options(device, layout, pin_memory)
    return _filled("ones", size, _kw_size(kw, "ones"), 1, dtype, out, requires_grad, meta=meta)


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
    meta = _options(device, layout, pin_memory)
    if memory_format is None:
        return _filled(
            "empty", size, _kw_size(kw, "empty"), 0, dtype, out, requires_grad, meta=meta
        )
    _format_strides("empty", (), memory_format, like=_NO_LIKE)  # the argument's type first
    shape = _shape_arg(_size_arg(size, _kw_size(kw, "empty"), "empty"), "empty")
    stride = _format_strides("empty", shape, memory_format)
    d = _out_dtype("empty", dtype, out, D.get_default_dtype())
    if meta:
        return _meta.factory(shape, d, requires_grad, stride)
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
    meta = _options(device, layout, pin_memory)
    if not _is_number(fill_value):
        raise TypeError(
            f"full(): argument 'fill_value' (position 2) must be Number, not {_tp_name(fill_value)}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    default = D.scalar_dtype(fill_value)
    size = _size_tuple(size, "full")
    fill_value = _fill_scalar(fill_value, _out_dtype("full", dtype, out, default))
    return _filled("full", (), size, fill_value, dtype, out, requires_grad, default, meta)


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
    meta = _options(device, layout, pin_memory, use_default=False)
    d = input.dtype if dtype is None else D.to_dtype(dtype)
    stride = _format_strides(name, input._shape, memory_format, like=input)
    if meta or (device is None and input.is_meta):
        return _meta.empty(input._shape, d, stride)
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
        if value != 0 and t.numel() and not t.is_meta:
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
    if t.numel() and not t.is_meta:
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
    meta = _options(device, layout, pin_memory)
    n = _int_arg(n, "eye", "n", 1)
    if m is not None and not _is_int(m) and not isinstance(m, Tensor):
        raise _invalid_combination("eye", (n, m))
    m = None if m is None else _int_arg(m, "eye", "m", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _out_dtype("eye", dtype, out, D.get_default_dtype())
    if meta:
        return _meta.factory((n, n if m is None else m), d, requires_grad)
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
    meta = _options(device, layout, pin_memory)
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
    if meta:
        return _meta.factory((n,), d, requires_grad)
    if d is D.float32 or d is D.float64:
        values = _arange_floats(builtins.float(start), builtins.float(step), n, d.np.type)
    else:
        values = start + step * np.arange(n, dtype=np.float64 if d.is_floating_point else np.int64)
    t = Tensor._from_array(values, d)
    return _finish(_into_out("arange", t, out), requires_grad)


def _fma(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once, in float64 (the FMA the compiler makes of ATen's
    ``start + step * idx``): the product split exactly (Dekker), then summed without loss."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split - (a * split - a)
    bh = b * split - (b * split - b)
    e = ((ah * bh - p) + ah * (b - bh) + (a - ah) * bh) + (a - ah) * (b - bh)  # a*b == p + e
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)  # p + c == s + t
    low = t + e
    return np.where(low == 0, s, s + low)  # keeps the sign of a zero (-0.0 + -0.0 * x)


def _arange_floats(start: float, step: float, n: int, dt) -> np.ndarray:
    """ATen's CPU ``arange`` kernel (RangeFactoriesKernel.cpp) for float32/float64, bit for bit:
    vectors of 8 floats (4 doubles) start at ``fma(step, i0, start)`` rounded to the dtype, the
    rest of each vector adds ``k * step`` to that start in double; the last ``n % 16`` (``% 8``)
    elements take the scalar path ``fma(step, i, start)``. (One thread's order: torch splits an
    arange of more than 32,768 elements between its threads, each with its own tail.)"""
    vec = 8 if dt is np.float32 else 4
    idx = np.arange(n, dtype=np.float64)
    main = n - n % (2 * vec)
    out = np.empty(n, dt)
    block = np.floor(idx[:main] / vec) * vec
    base = _fma(step, block, start).astype(dt).astype(np.float64)
    out[:main] = _fma(idx[:main] - block, step, base).astype(dt)
    out[main:] = _fma(step, idx[main:], start).astype(dt)
    return out


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
    meta = _options(device, layout, pin_memory)
    if not (_is_number(start) and _is_number(end) and _is_int(steps)):
        given = (start, end) if steps is None else (start, end, steps)
        raise _invalid_combination("linspace", given)
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _out_dtype("linspace", dtype, out, D.get_default_dtype())
    if meta:
        return _meta.factory((steps,), d, requires_grad)
    ct = d.np.type if d.is_floating_point else np.float64
    if steps == 0:
        values = np.zeros(0)
    elif steps == 1:
        values = np.array([start], dtype=np.float64)
    else:  # ATen's linspace_kernel: from the start for the first half, from the end after
        idx = np.arange(steps)
        first = idx < steps // 2
        k = np.where(first, idx, steps - idx - 1)
        if d is D.float16:  # c10::Half arithmetic: each operation rounded to half
            s, e = np.float16(start), np.float16(end)
            step = np.float16(e - s) / np.float16(steps - 1)
            values = np.where(
                first, s + step * k.astype(np.float16), e - step * k.astype(np.float16)
            )
        else:  # with the FMA the compiler makes of start + step * idx; integers step in double
            if not d.is_floating_point:
                start, end = builtins.int(start), builtins.int(end)  # scalar_t first
            s, e = ct(start), ct(end)
            step = (e - s) / ct(steps - 1)
            sign = np.where(first, 1.0, -1.0)
            k = k.astype(ct).astype(np.float64)
            values = _fma(sign * np.float64(step), k, np.where(first, s, e)).astype(ct)
    if not d.is_floating_point:
        values = np.trunc(values)
    t = Tensor._from_array(np.asarray(values), d)
    return _finish(_into_out("linspace", t, out), requires_grad)


# ---------------------------------------------------------------------------- random


def _random(name, args, size, draw, generator, dtype, out, requires_grad, default=None, meta=False):
    if not args and size is None and name in _SIGNATURES:
        raise _invalid_combination(name, args)
    shape = _shape_arg(_size_arg(args, size, name), name)
    d = _out_dtype(name, dtype, out, default or D.get_default_dtype())
    if meta:
        return _meta.factory(shape, d, requires_grad)
    n = math.prod(shape)
    values = draw(n, d, _gen(generator), None).astype(d.np, copy=False)  # fresh, contiguous
    if values.flags.c_contiguous and values.ndim == 1:  # its own storage: no 4 MB copy for 10^6
        t = Tensor._adopt(values.reshape(shape), d)
    else:
        t = Tensor._from_array(values.reshape(shape), d)
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
    meta = _options(device, layout, pin_memory)
    return _random(
        "rand",
        size,
        _kw_size(kw, "rand"),
        _uniform01,
        generator,
        dtype,
        out,
        requires_grad,
        meta=meta,
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
    meta = _options(device, layout, pin_memory)
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
        meta=meta,
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
    meta = _options(device, layout, pin_memory)
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
        meta,
    )


def _random_like(
    name, input, draw, generator, dtype, layout, device, pin_memory, requires_grad, memory_format
):
    t = _like(input, name, dtype, device, layout, pin_memory, memory_format)
    if t.is_meta:
        return _finish(t, requires_grad)
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
    meta = _options(device, layout, pin_memory)
    n = _int_arg(n, "randperm", "n", 1)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d = _out_dtype("randperm", dtype, out, D.int64)
    if meta:
        return _meta.factory((n,), d, requires_grad)
    from ..random._kernels import randperm as perm

    t = Tensor._from_array(perm(_gen(generator), n), d)
    return _finish(_into_out("randperm", t, out), requires_grad)
