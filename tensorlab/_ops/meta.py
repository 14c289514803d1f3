"""Shape propagation on the meta device: the ops of :class:`tensorlab._meta.MetaTensor`.

Most ops get their meta kernel from their own cpu implementation, run on a *stand-in*: a tiny
cpu tensor per meta operand, with the same dtype, ``requires_grad``, memory order and rank, whose
sizes are the operands' sizes renamed injectively (equal sizes stay equal, 0 and 1 stay 0 and 1,
the others become small distinct primes). The cpu op then does every check it does for real
(dtypes, dims, matching sizes), computes on a few elements, and its result says the meta
result's dtype, its sizes (renamed back), its memory order and its autograd node's name.
Elementwise ops take their strides from PyTorch's TensorIterator rule on the real layouts and
their broadcast error from PyTorch's meta kernels.

The layers (conv, pooling, linear, batch norm, dropout) call :func:`conv`, :func:`pool` & co.
from their entry points, after their own argument checks; ``cat`` and ``stack`` call
:func:`cat`. Nothing here runs for a cpu tensor.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .. import _meta
from .._meta import MetaTensor, any_meta, record
from .._tensor import Size, Tensor

# sizes of the stand-ins: primes above the small numbers that messages use for dims and ranks
_PRIMES = (7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47)
_SMALL = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
_MAX_ELEMENTS = 200_000

_REFLECTED = {
    "__radd__",
    "__rsub__",
    "__rmul__",
    "__rtruediv__",
    "__rdiv__",
    "__rfloordiv__",
    "__rmod__",
    "__rpow__",
    "__rand__",
    "__ror__",
    "__rxor__",
    "__rlshift__",
    "__rrshift__",
    "__rmatmul__",
}


def _is_inplace(name: str) -> bool:
    if name.startswith("__"):
        return name.startswith("__i") and name not in ("__invert__", "__index__")
    return name.endswith("_")


# ---------------------------------------------------------------------------------------------
# PyTorch's meta broadcast (torch._refs._broadcast_shapes)
# ---------------------------------------------------------------------------------------------


def broadcast_shapes(shapes) -> tuple[int, ...]:
    """The broadcast of ``shapes``, or the error PyTorch's meta kernels raise."""
    common = [1] * max((len(s) for s in shapes), default=0)
    for i, shape in enumerate(shapes):
        for idx in range(-1, -1 - len(shape), -1):
            if common[idx] == 1:
                common[idx] = shape[idx]
            elif shape[idx] != 1 and common[idx] != shape[idx]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[idx]} at {idx}! "
                    f"Mismatching argument at index {i} had {Size(shape)!r}; but expected shape "
                    f"should be broadcastable to {common}"
                )
    return tuple(common)


# ---------------------------------------------------------------------------------------------
# stand-ins
# ---------------------------------------------------------------------------------------------


def _tensors(args, kwargs) -> list:
    out = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(b for b in a if isinstance(b, Tensor))
    return out


class _Renaming:
    """Real sizes <-> stand-in sizes (injective; 0 and 1 kept)."""

    def __init__(self, tensors):
        sizes = []
        for t in tensors:
            if t.is_meta:
                sizes.extend(s for s in t._shape if s > 1 and s not in sizes)
        small = _PRIMES if len(sizes) <= len(_PRIMES) else None
        if small is not None:
            for t in tensors:
                n = math.prod(small[sizes.index(s)] if s > 1 else s for s in t._shape)
                if n > _MAX_ELEMENTS:
                    small = None
                    break
        if small is None or len(sizes) > len(_SMALL):
            small = _SMALL if len(sizes) <= len(_SMALL) else tuple(range(2, 2 + len(sizes)))
        self.fwd = {s: small[i] for i, s in enumerate(sizes)}
        self.back = {v: k for k, v in self.fwd.items()}
        self.exact = small is _PRIMES  # messages can be renamed back

    def shape(self, shape):
        return tuple(self.fwd.get(s, s) for s in shape)

    def real(self, shape):
        return tuple(self.back.get(s, s) for s in shape)

    def message(self, text: str) -> str:
        if not self.exact or not self.back:
            return text
        return re.sub(
            r"(?<![\d.])\d+(?![\d.])", lambda m: str(self.back.get(int(m.group()), m.group())), text
        )


def _standin(t: Tensor, ren: _Renaming, nonleaf: bool, nearby=None) -> Tensor:
    if not t.is_meta:
        return t
    shape = ren.shape(t._shape)
    stride = L.preserve_strides(shape, t._stride) if len(shape) > 1 else L.contiguous_strides(shape)
    dt = nearby.get(t._dtype, t._dtype) if nearby else t._dtype
    s = Tensor._from_array_strided(np.ones(shape, dtype=dt.np), dt, stride)
    if t.requires_grad:
        s._requires_grad = True
        if nonleaf and not t.is_leaf:
            from ..autograd.grad_mode import STATE

            if STATE.enabled:
                s = s.view(s._shape)  # a non-leaf, as the real one is
    return s


def _swap(x, table):
    if isinstance(x, Tensor):
        return table.get(id(x), x)
    if isinstance(x, list):
        return [_swap(b, table) for b in x]
    if isinstance(x, tuple) and not isinstance(x, Size):
        return tuple(_swap(b, table) for b in x)
    return x


def standin_call(fn, name: str, args, kwargs, *, elementwise: bool, first=0):
    """``fn(*args, **kwargs)`` for meta operands, through stand-ins (see the module doc)."""
    tensors = _tensors(args, kwargs)
    any_meta(*tensors)
    inplace = _is_inplace(name)
    shape = None
    if elementwise:
        shape = broadcast_shapes([t._shape for t in tensors])
        target = args[first] if args else None
        if inplace and isinstance(target, Tensor) and shape != target._shape:
            raise RuntimeError(
                f"output with shape {Size(target._shape)!r} doesn't match the broadcast shape "
                f"{shape}"
            )
    elif name in _MATMUL and len(args) > 1 and isinstance(args[1], Tensor):
        _matmul_check(name, *(args[::-1] if name == "__rmatmul__" else args[:2]))
    if name in ("sub", "__sub__", "__rsub__", "subtract", "rsub"):
        if tensors and all(t.dtype is D.bool_ for t in tensors):
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                "`^` or `logical_xor()` operator instead."
            )
    ren = _Renaming(tensors)
    nearby = None
    for nearby in (None, *_NEARBY):
        try:
            r, back = _run(fn, args, kwargs, tensors, ren, inplace, nearby)
            break
        except (NotImplementedError, RuntimeError) as e:
            # the meta device has no per-dtype kernels: "abs_cpu not implemented for 'Bool'"
            # and the cpu's dtype checks do not apply; the dtype comes from a nearby one
            if nearby is _NEARBY[-1] or not any(p in str(e) for p in _KERNEL_CHECKS):
                raise _renamed(e, ren, tensors) from None
        except (IndexError, ValueError) as e:
            raise _renamed(e, ren, tensors) from None
    if nearby is not None and isinstance(r, Tensor) and not inplace:
        for t in tensors:
            if nearby.get(t._dtype) is r._dtype:
                r = r.to(t._dtype)
                break
    if r is NotImplemented:
        return r
    return _result(r, back, ren, tensors, shape, inplace)


_NEARBY = (
    {D.bool_: D.uint8, D.float16: D.float32},
    {d: D.float64 for d in (D.bool_, D.uint8, D.int8, D.int16, D.int32, D.int64)},
)
_KERNEL_CHECKS = (
    "not implemented for",
    "Subtraction, the",
    "Boolean inputs not supported",
    "only support floating point",
)


def _run(fn, args, kwargs, tensors, ren, inplace, nearby):
    table = {id(t): _standin(t, ren, inplace, nearby) for t in tensors}
    # (the stand-ins are kept in ``back`` so that no later object can take one of their ids)
    back = {id(s): (s, t) for t, s in ((t, table[id(t)]) for t in tensors)}
    r = fn(*_swap(args, table), **{k: _swap(v, table) for k, v in kwargs.items()})
    return r, back


def _renamed(e, ren, tensors):
    text = ren.message(str(e))
    if text.startswith("mean(): could not infer output dtype") and tensors:
        text = text.rsplit("Got: ", 1)[0] + f"Got: tensorlab.{tensors[0].dtype.name}"
    return type(e)(text)


def _matmul_check(name: str, a: Tensor, b: Tensor) -> None:
    """The size checks of PyTorch's meta kernels for the matrix products (their messages)."""
    da, db = a.ndim, b.ndim
    if name == "dot" or (da == 1 and db == 1 and name != "outer" and name != "ger"):
        if da == 1 and db == 1 and a._shape[0] != b._shape[0]:
            k, k2 = a._shape[0], b._shape[0]
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{k}] and src [{k2}] to have thesame "
                f"number of elements, but got {k} and {k2} elements respectively"
            )
        return
    if name in ("outer", "ger") or da == 0 or db == 0:
        return
    if name == "bmm" or (name not in ("mm", "mv") and db >= 3 and da >= 1):
        if name == "bmm" and (da != 3 or db != 3):
            return
        batch_a = a._shape[:-2] if da >= 2 else ()
        batch = L.broadcast_shapes(batch_a, b._shape[:-2])
        nb = math.prod(batch)
        if a._shape[-1] != b._shape[-2]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{nb}, {a._shape[-1]}] but got: [{nb}, {b._shape[-2]}]."
            )
        return
    rows = math.prod(a._shape[:-1]) if da >= 2 else 1
    if db == 1:
        if da >= 2 and a._shape[-1] != b._shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({rows}x{a._shape[-1]}), vec ({b._shape[0]})"
            )
        return
    if db == 2 and a._shape[-1] != b._shape[0] and (name != "mm" or da == 2):
        raise RuntimeError(
            f"a and b must have same reduction dim, but got [{rows}, {a._shape[-1]}] X "
            f"{list(b._shape)}."
        )


def _original(back, r):
    """The meta tensor whose stand-in ``r`` is (None if ``r`` is a new tensor)."""
    entry = back.get(id(r))
    return entry[1] if entry is not None and entry[0] is r else None


def _result(r, back, ren, tensors, shape, inplace):
    if isinstance(r, tuple):
        items = [_result(x, back, ren, tensors, None, inplace) for x in r]
        return type(r)(*items) if hasattr(r, "_fields") or type(r) is not tuple else tuple(items)
    if not isinstance(r, Tensor):
        return r
    real = _original(back, r)
    if real is None and r._base is not None and r._shape == r._base._shape:
        real = _original(back, r._base)
    if real is not None:
        if inplace:
            real._vc[0] += 1
        return real
    if shape is not None and len(shape) == r.ndim:
        stride = _elementwise_strides(shape, tensors, r._dtype)
        out_shape = shape
    else:
        out_shape = ren.real(r._shape)
        stride = _dense_in_order(out_shape, r._stride)
    out = _meta.empty(out_shape, r._dtype, stride)
    if r.grad_fn is not None:
        record(out, r.grad_fn.name(), *tensors)
    return out


def _dense_in_order(shape, like_stride) -> tuple[int, ...]:
    """Dense strides for ``shape`` in the memory order of ``like_stride`` (the stand-in's result:
    outer dims first, ties, which only size-1 dims have, in dim order)."""
    order = sorted(range(len(shape)), key=lambda i: (-like_stride[i], i))
    out = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


def _elementwise_strides(shape, tensors, result: D.dtype):
    from ._elementwise import converted_layouts, output_strides

    try:
        common = D.result_type(*tensors) if tensors else result
    except TypeError:
        common = result
    return output_strides(shape, converted_layouts(tensors, common))


# ---------------------------------------------------------------------------------------------
# MetaTensor's methods
# ---------------------------------------------------------------------------------------------

_NOT_ELEMENTWISE = {
    "__hash__",
    "allclose",
    "equal",
    "nonzero",
}
_REDUCE = (
    "all amax amin any argmax argmin cummax cummin cumprod cumprod_ cumsum cumsum_ "
    "logcumsumexp logsumexp max mean min norm prod std var sum softmax log_softmax sort argsort "
    "msort"
).split()
_MATMUL = "__matmul__ __rmatmul__ bmm dot ger matmul mm mv outer".split()
_FILLS = (
    "uniform_ normal_ bernoulli_ cauchy_ exponential_ geometric_ log_normal_ random_ fill_ zero_"
).split()


def _method(name: str, fn, *, elementwise: bool):
    reflected = name in _REFLECTED

    def method(self, *args, **kwargs):
        if reflected and args and isinstance(args[0], Tensor) and not args[0].is_meta:
            any_meta(args[0], self)  # the cpu operand comes first: its device is expected
        ew = elementwise
        if name in ("max", "min") and args and isinstance(args[0], Tensor):
            ew = True  # max(other): elementwise
        return standin_call(fn, name, (self, *args), kwargs, elementwise=ew)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


def function_call(name: str, fn, args, kwargs):
    """``tensorlab.<name>(*args)`` (a function of the op table) on meta operands."""
    elementwise = name not in _REDUCE and name not in _MATMUL
    if name in ("max", "min") and len(args) > 1 and isinstance(args[1], Tensor):
        elementwise = True
    return standin_call(fn, name, args, kwargs, elementwise=elementwise)


def _fill(name: str, fn):
    """In-place fills (random or constant): the checks of the cpu op on a stand-in, no data."""

    def method(self, *args, **kwargs):
        from .._tensor import check_inplace

        check_inplace(self)  # the generator is not drawn from, as on PyTorch's meta device
        return self

    method.__name__ = method.__qualname__ = name
    return method


def _copy_(self, src, non_blocking: bool = False):
    from .._tensor import check_inplace

    if not isinstance(src, Tensor):
        raise TypeError(
            f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}"
        )
    check_inplace(self)
    broadcast_shapes([self._shape, src._shape])
    if src._shape and broadcast_shapes([self._shape, src._shape]) != self._shape:
        raise RuntimeError(
            f"output with shape {list(self._shape)} doesn't match the broadcast shape "
            f"{list(broadcast_shapes([self._shape, src._shape]))}"
        )
    return self


def install() -> None:
    """Give ``MetaTensor`` its methods (once, after the op table is built)."""
    from . import native_functions as nf

    families = {
        "tensorlab._ops.unary",
        "tensorlab._ops.arithmetic",
        "tensorlab._ops._elementwise",
        "tensorlab._ops.comparison",
    }
    for name in nf.METHODS:
        fn = getattr(Tensor, name, None)
        if fn is None:
            continue
        fam = nf._family(nf._resolve(nf.METHODS, name))
        if name in _FILLS:
            setattr(MetaTensor, name, _fill(name, fn))
        elif name == "copy_":
            setattr(MetaTensor, name, _copy_)
        elif fam in families and name not in _NOT_ELEMENTWISE:
            setattr(MetaTensor, name, _method(name, fn, elementwise=True))
        elif name in _REDUCE or name in _MATMUL:
            setattr(MetaTensor, name, _method(name, fn, elementwise=False))
    for name in ("softmax", "log_softmax"):
        fn = getattr(Tensor, name, None)
        if fn is not None:
            setattr(MetaTensor, name, _method(name, fn, elementwise=False))
    MetaTensor.__hash__ = Tensor.__hash__


# ---------------------------------------------------------------------------------------------
# the layers' entry points (called after their own argument checks)
# ---------------------------------------------------------------------------------------------


def conv(x, weight, bias, stride, padding, dilation, groups, transposed=False, output_padding=()):
    """The result of a convolution (``ConvolutionBackward0``) of shapes already checked."""
    n = x._shape[0]
    spatial = []
    for i, size in enumerate(x._shape[2:]):
        k = weight._shape[2 + i]
        if transposed:
            op = output_padding[i] if output_padding else 0
            spatial.append((size - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + op + 1)
        else:
            spatial.append((size + 2 * padding[i] - dilation[i] * (k - 1) - 1) // stride[i] + 1)
    if any(s < 1 for s in spatial):
        sizes = ", ".join(str(s) for s in x._shape[2:])
        outs = ", ".join(str(s) for s in spatial)
        raise RuntimeError(
            f"Given input size per channel: [{sizes}]. Calculated output size per channel: "
            f"[{outs}]. Output size is too small"
        )
    c_out = weight._shape[1] * groups if transposed else weight._shape[0]
    shape = (n, c_out, *spatial)
    fmt = L.suggest_memory_format(x._shape, x._stride) if x.ndim == 4 else "contiguous_format"
    wfmt = L.suggest_memory_format(weight._shape, weight._stride) if x.ndim == 4 else fmt
    cl = "channels_last" in (fmt, wfmt)
    stride_ = L.channels_last_strides(shape) if cl else L.contiguous_strides(shape)
    any_meta(x, weight, bias)
    return _meta.empty(shape, x._dtype, stride_)  # _convolution's wrapper records the node


def pool(x: Tensor, oh: int, ow: int, node: str, return_indices: bool = False):
    """The result of a 2-d pooling to ``(oh, ow)`` (and its indices when asked)."""
    shape = (*x._shape[:-2], oh, ow)
    cl = x.ndim == 4 and L.suggest_memory_format(x._shape, x._stride) == "channels_last"
    stride = L.channels_last_strides(shape) if cl else L.contiguous_strides(shape)
    values = record(_meta.empty(shape, x._dtype, stride), node, x)
    if not return_indices:
        return values
    return values, _meta.empty(shape, D.int64, stride)


def result(shape, like: Tensor, node: str | None, *inputs, dtype=None, stride=None):
    """A fresh meta result of ``shape`` (contiguous unless ``stride``) with node ``node``."""
    out = _meta.empty(shape, dtype or like._dtype, stride)
    return record(out, node, *inputs) if node else out


def same_shape(x: Tensor, node: str | None, *inputs) -> MetaTensor:
    """A result shaped and laid out like ``x`` (batch norm, dropout, activations)."""
    out = _meta.like(x)
    return record(out, node, *inputs) if node else out


def cat(tensors, dim: int, shape, dtype):
    """The result of ``cat``/``stack`` whose shape the cpu code has computed and checked (the
    op's own wrapper records its node)."""
    any_meta(*tensors)
    return _meta.empty(shape, dtype)


__all__ = ["MetaTensor", "broadcast_shapes", "cat", "conv", "install", "standin_call"]
