"""Derivative formulas: one small :class:`~tensorlab.autograd.graph.Node` per op, named as in
PyTorch (``AddBackward0``, ``MulBackward0``, ...), and the ``make_*`` functions that build them
from an op's own arguments.

``backward(g)`` receives the gradient of the op's result as a numpy array and returns one array
(or None) per input. Shapes that were broadcast are summed back and dtypes are cast by the engine
(:func:`tensorlab.autograd.graph._fit`), so the formulas are the textbook ones.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from .graph import Node, NotImplementedNode, SavedValue


def _t(x):
    """``x`` when it is a tensor (an input that can carry a gradient), else None."""
    return x if isinstance(x, Tensor) else None


def _value(saved):
    """A saved tensor's array, or a saved number."""
    return saved.unpack()


def _zeros(meta) -> np.ndarray:
    shape, dtype = meta
    return np.zeros(shape, dtype=dtype.np)


# ---------------------------------------------------------------------------------------------
# elementwise binary ops
# ---------------------------------------------------------------------------------------------


class AddBackward0(Node):
    def __init__(self, a, b, alpha=1):
        super().__init__(_t(a), _t(b))
        self.alpha = alpha

    def backward(self, g):
        return (g, g * self.alpha if self.alpha != 1 else g)


class SubBackward0(Node):
    def __init__(self, a, b, alpha=1):
        super().__init__(_t(a), _t(b))
        self.alpha = alpha

    def backward(self, g):
        return (g, -g * self.alpha)


class RsubBackward0(Node):
    """``rsub(input, other) = other - alpha * input`` with a tensor ``other``."""

    def __init__(self, a, b, alpha=1):
        super().__init__(_t(a), _t(b))
        self.alpha = alpha

    def backward(self, g):
        return (-g * self.alpha, g)


class RsubBackward1(Node):
    """``rsub(input, number)``: only ``input`` is an edge."""

    def __init__(self, a, alpha=1):
        super().__init__(_t(a))
        self.alpha = alpha

    def backward(self, g):
        return (-g * self.alpha,)


class MulBackward0(Node):
    def __init__(self, a, b):
        super().__init__(_t(a), _t(b))
        self.b = self.save(b) if self.needs_grad(0) else None
        self.a = self.save(a) if self.needs_grad(1) else None

    def backward(self, g):
        ga = g * _value(self.b) if self.b is not None else None
        gb = g * _value(self.a) if self.a is not None else None
        return (ga, gb)


class DivBackward0(Node):
    def __init__(self, a, b):
        super().__init__(_t(a), _t(b))
        self.b = self.save(b)
        self.a = self.save(a) if self.needs_grad(1) else None

    def backward(self, g):
        b = _value(self.b)
        ga = g / b if self.needs_grad(0) else None
        gb = -g * ((_value(self.a) / b) / b) if self.a is not None else None
        return (ga, gb)


class ZeroGrads(Node):
    """Ops whose derivative is zero almost everywhere (floor, sign, rounding division...)."""

    def __init__(self, name: str, *inputs):
        super().__init__(*inputs)
        self._name = name

    def backward(self, g):
        return tuple(None if m is None else _zeros(m) for m in self._input_meta)


class RemainderFmod(Node):
    """``remainder``/``fmod``: d/dself = 1, d/dother = -floor(self/other) (trunc for fmod)."""

    def __init__(self, name: str, a, b, rounding):
        super().__init__(_t(a), *([_t(b)] if isinstance(b, Tensor) else []))
        self._name, self._round = name, rounding
        if isinstance(b, Tensor):
            self.a, self.b = self.save(a), self.save(b)

    def backward(self, g):
        if len(self.next_functions) == 1:
            return (g,)
        gb = None
        if self.needs_grad(1):
            gb = -g * self._round(_value(self.a) / _value(self.b))
        return (g, gb)


class PowBackward0(Node):
    """``tensor ** number``."""

    def __init__(self, a, exponent):
        super().__init__(_t(a))
        self.a = self.save(a)
        self.exponent = exponent

    def backward(self, g):
        e = self.exponent
        x = _value(self.a)
        if e == 0:
            return (np.zeros_like(g),)
        # ATen's pow_backward: grad * (e * self.pow(e - 1)), with pow's own kernel (1 / (x * x)
        # for -2, x * x for 2...), so a hand-derived gradient written with ** matches bit for bit
        return (g * (e * _pow_scalar(x, e - 1)),)


def _pow_scalar(x: np.ndarray, e) -> np.ndarray:
    """``x ** e`` for a number ``e`` as ``Tensor.pow`` computes it (its special exponents)."""
    if e == 1:
        return x
    from .._ops.arithmetic import _POW_SPECIAL

    special = _POW_SPECIAL.get(float(e)) if x.dtype != np.float16 else None
    with np.errstate(all="ignore"):
        return special(x) if special is not None else np.power(x, e)


def _pow_exponent_grad(g, base, result):
    """d(base ** e)/de = result * log(base), taken as 0 where base == 0 and e >= 0."""
    with np.errstate(all="ignore"):
        return g * (result * np.log(base))


class PowBackward1(Node):
    """``tensor ** tensor``."""

    def __init__(self, a, b, out):
        super().__init__(_t(a), _t(b))
        self.b, self.a = self.save(b), self.save(a)  # torch's order: exponent, self, result
        self.out = self.save(out, output=True)

    def backward(self, g):
        e, x = _value(self.b), _value(self.a)
        ga = gb = None
        with np.errstate(all="ignore"):
            if self.needs_grad(0):
                ga = np.where(e == 0, 0, g * (e * np.power(x, e - 1)))
            r = _value(self.out)  # (unpacked whichever gradients are needed, as in torch)
            if self.needs_grad(1):
                gb = np.where((x == 0) & (e >= 0), 0, _pow_exponent_grad(g, x, r))
        return (ga, gb)


class PowBackward2(Node):
    """``number ** tensor``."""

    def __init__(self, base, b, out):
        super().__init__(_t(b))
        self.base = base
        self.b = self.save(b)
        self.out = self.save(out, output=True)

    def backward(self, g):
        e, r = _value(self.b), _value(self.out)
        if self.base == 0:
            with np.errstate(all="ignore"):
                return (np.where(e >= 0, 0, g * (r * -np.inf)),)
        return (g * (r * math.log(self.base)),)


class MaxMinimumBackward(Node):
    """``maximum``/``minimum``: the gradient goes to the larger (smaller) input, half each on ties."""

    def __init__(self, name: str, a, b, larger: bool):
        super().__init__(_t(a), _t(b))
        self._name, self.larger = name, larger
        self.a, self.b = self.save(a), self.save(b)

    def backward(self, g):
        a, b = _value(self.a), _value(self.b)
        half = np.where(a == b, g / 2, g)
        lose_a = a < b if self.larger else a > b
        lose_b = a > b if self.larger else a < b
        return (np.where(lose_a, 0, half), np.where(lose_b, 0, half))


class WhereBackward0(Node):
    def __init__(self, condition, a, b):
        super().__init__(_t(a), _t(b))
        self.cond = self.save(condition)

    def backward(self, g):
        c = _value(self.cond)
        return (np.where(c, g, 0), np.where(c, 0, g))


class LerpBackward(Node):
    """``lerp(start, end, weight) = start + weight * (end - start)``."""

    def __init__(self, start, end, weight):
        tensor_w = isinstance(weight, Tensor)
        super().__init__(_t(start), _t(end), *([weight] if tensor_w else []))
        self._name = "LerpBackward1" if tensor_w else "LerpBackward0"
        self.w = self.save(weight)
        if tensor_w and self.needs_grad(2):
            self.start, self.end = self.save(start), self.save(end)

    def backward(self, g):
        w = _value(self.w)
        out = [g * (1 - w), g * w]
        if len(self.next_functions) == 3:
            gw = None
            if self.needs_grad(2):
                gw = g * (_value(self.end) - _value(self.start))
            out.append(gw)
        return tuple(out)


# ---------------------------------------------------------------------------------------------
# unary ops: d out / d x from the input (x) or from the result (r)
# ---------------------------------------------------------------------------------------------

_LN2, _LN10 = math.log(2.0), math.log(10.0)

UNARY_FROM_INPUT = {
    "log": lambda g, x: g / x,
    "log2": lambda g, x: g / (x * _LN2),
    "log10": lambda g, x: g / (x * _LN10),
    "sin": lambda g, x: g * np.cos(x),
    "cos": lambda g, x: g * -np.sin(x),
    "abs": lambda g, x: g * np.sign(x),
    "asin": lambda g, x: g / np.sqrt(1 - x * x),
    "acos": lambda g, x: -g / np.sqrt(1 - x * x),
    "atan": lambda g, x: g / (1 + x * x),
    "sinh": lambda g, x: g * np.cosh(x),
    "cosh": lambda g, x: g * np.sinh(x),
    "asinh": lambda g, x: g / np.sqrt(x * x + 1),
    "acosh": lambda g, x: g / np.sqrt(x * x - 1),
    "atanh": lambda g, x: g / (1 - x * x),
    "log1p": lambda g, x: g / (x + 1),
    "erf": lambda g, x: g * (2 / math.sqrt(math.pi)) * np.exp(-(x * x)),
    "erfc": lambda g, x: g * (-2 / math.sqrt(math.pi)) * np.exp(-(x * x)),
}
UNARY_FROM_RESULT = {
    "exp": lambda g, r: g * r,
    "sqrt": lambda g, r: g / (2 * r),
    "rsqrt": lambda g, r: -0.5 * g * (r * r * r),  # ATen: -0.5 * grad * result.pow(3)
    "tan": lambda g, r: g * (1 + r * r),
    "tanh": lambda g, r: _tanh_grad(g, r),
    "sigmoid": lambda g, r: g * (1 - r) * r,  # ATen's sigmoid_backward: a * (1 - b) * b
    "reciprocal": lambda g, r: -g * (r * r),
    "exp2": lambda g, r: g * r * _LN2,
    "expm1": lambda g, r: g * (r + 1),
    "relu": lambda g, r: _relu_grad(g, r),
}
UNARY_NAMES = {"log1p": "Log1PBackward0"}


def _tanh_grad(g, r):
    """ATen's ``tanh_backward``: ``a * (1 - b * b)``, which its vectorised CPU kernels compute
    with a fused multiply-add for ``1 - b * b`` (one rounding: the float32 square is exact in
    float64). Other dtypes: the plain formula."""
    r = np.asarray(r)
    if r.dtype == np.float32:
        r64 = r.astype(np.float64)
        np.multiply(r64, r64, out=r64)
        np.subtract(1.0, r64, out=r64)
        return g * r64.astype(np.float32)
    return g * (1 - r * r)


def _relu_grad(g, r):
    """ATen's ``threshold_backward(g, result, 0)``: 0 where ``result <= 0``, else ``g`` (so a NaN
    result passes its gradient). For floats the select is a bitwise AND with an all-ones/zero
    mask: branch-free (``np.where`` on a random mask is ~20x slower) and exact (+0.0 where
    dropped, ``g``'s own bits where kept)."""
    g = np.asarray(g)
    drop = np.asarray(np.asarray(r) <= 0)
    if g.shape != drop.shape or g.dtype.kind != "f":
        return np.where(~drop, g, 0)
    u = np.dtype(f"u{g.dtype.itemsize}")
    mask = drop.view(np.uint8).astype(u)
    mask -= 1  # kept: 0 - 1 wraps to all ones; dropped: 1 - 1 = 0
    bits = (g if g.flags.c_contiguous else g.copy(order="C")).view(u)
    return np.bitwise_and(bits, mask, out=mask).view(g.dtype)


UNARY_ZERO = ("sign", "floor", "ceil", "trunc", "round")


class UnaryBackward(Node):
    """``<Name>Backward0`` for a one-input elementwise op."""

    def __init__(self, op: str, x, out):
        super().__init__(_t(x))
        self._name = UNARY_NAMES.get(op, op.capitalize() + "Backward0")
        self.op = op
        if op in UNARY_FROM_INPUT:
            self.saved = self.save(x)
        elif op in UNARY_FROM_RESULT:
            self.saved = self.save(out, output=True)
        else:
            self.saved = None

    def backward(self, g):
        op = self.op
        with np.errstate(all="ignore"):
            if op == "neg":
                return (-g,)
            if op in UNARY_FROM_INPUT:
                return (UNARY_FROM_INPUT[op](g, _value(self.saved)),)
            if op in UNARY_FROM_RESULT:
                return (UNARY_FROM_RESULT[op](g, _value(self.saved)),)
        return (np.zeros_like(g),)


def unary_node(op: str):
    """``make_node`` for the unary op ``op`` (``neg``, ``exp``, ``floor``...)."""

    def make(out, x, *args, **kwargs):
        if op == "round" and kwargs.get("decimals", 0) != 0:
            return ZeroGrads("RoundBackward1", x)
        return UnaryBackward(op, x, out)

    return make


class ClampBackward(Node):
    """``clamp`` with number bounds (ClampBackward1, ClampMinBackward0, ClampMaxBackward0) or
    tensor bounds (ClampBackward0: the bounds get gradients too)."""

    def __init__(self, name, x, lo, hi):
        tensors = isinstance(lo, Tensor) or isinstance(hi, Tensor)
        super().__init__(_t(x), *([_t(lo), _t(hi)] if tensors else []))
        self._name = name
        self.x = self.save(x)
        self.lo = None if lo is None else self.save(lo)
        self.hi = None if hi is None else self.save(hi)

    def backward(self, g):
        x = _value(self.x)
        lo = None if self.lo is None else _value(self.lo)
        hi = None if self.hi is None else _value(self.hi)
        keep = np.ones(x.shape, dtype=bool)
        if lo is not None:
            keep &= x >= lo
        if hi is not None:
            keep &= x <= hi
        gx = np.where(keep, g, 0)
        if len(self.next_functions) == 1:
            return (gx,)
        glo = ghi = None
        if lo is not None and self.needs_grad(1):
            m = x < lo if hi is None else (x < lo) & (lo < hi)
            glo = np.where(m, g, 0)
        if hi is not None and self.needs_grad(2):
            m = x > hi if lo is None else (x > hi) | (hi < lo)
            ghi = np.where(m, g, 0)
        return (gx, glo, ghi)


# ---------------------------------------------------------------------------------------------
# matrix products
# ---------------------------------------------------------------------------------------------


class _MatmulBackward(Node):
    def __init__(self, a, b):
        super().__init__(_t(a), _t(b))
        self._strides = (a._stride, b._stride)  # (``_saved_*_sym_strides``)
        self.b = self.save(b) if self.needs_grad(0) else None
        self.a = self.save(a) if self.needs_grad(1) else None


class DotBackward0(_MatmulBackward):
    def backward(self, g):
        return (
            None if self.b is None else g * _value(self.b),
            None if self.a is None else g * _value(self.a),
        )


class MvBackward0(_MatmulBackward):
    def backward(self, g):
        return (
            None if self.b is None else np.outer(g, _value(self.b)),
            None if self.a is None else _value(self.a).T @ g,
        )


class MmBackward0(_MatmulBackward):
    def backward(self, g):
        return (
            None if self.b is None else g @ _value(self.b).T,
            None if self.a is None else _value(self.a).T @ g,
        )


class BmmBackward0(_MatmulBackward):
    def backward(self, g):
        return (
            None if self.b is None else g @ np.swapaxes(_value(self.b), -1, -2),
            None if self.a is None else np.swapaxes(_value(self.a), -1, -2) @ g,
        )


# ---------------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------------


def _expand_back(g, shape, dims, keepdim) -> np.ndarray:
    """Undo a reduction over ``dims``: put the reduced dims back (size 1) and broadcast."""
    g = np.asarray(g)
    if not keepdim and len(shape):
        for d in sorted(dims):
            g = np.expand_dims(g, d)
    return np.broadcast_to(g, shape)


class SumMeanBackward(Node):
    def __init__(self, name, x, dims, keepdim, count):
        super().__init__(_t(x))
        self._name, self.dims, self.keepdim, self.count = name, dims, keepdim, count

    def backward(self, g):
        shape = self._input_meta[0][0]
        g = _expand_back(g, shape, self.dims, self.keepdim)
        return (g / self.count if self.count != 1 else g,)


class EvenlyDistributed(Node):
    """max()/min()/amax/amin: the gradient is shared equally by the elements that attain the
    extreme value (PyTorch's ``evenly_distribute_backward``)."""

    def __init__(self, name, x, out, dims, keepdim):
        super().__init__(_t(x))
        self._name, self.dims, self.keepdim = name, dims, keepdim
        self.x, self.out = self.save(x), self.save(out, output=True)

    def backward(self, g):
        x, r = _value(self.x), _value(self.out)
        shape = x.shape
        r = _expand_back(r, shape, self.dims, self.keepdim)
        mask = (x == r) | (np.isnan(x) & np.isnan(r))
        count = mask.sum(axis=tuple(self.dims), keepdims=True) if self.dims else mask.sum()
        g = _expand_back(g, shape, self.dims, self.keepdim)
        return (np.where(mask, g / count, 0),)


class IndexedReduction(Node):
    """max(dim)/min(dim): the gradient goes to the element whose index was returned."""

    def __init__(self, name, x, indices, dim, keepdim):
        super().__init__(_t(x))
        self._name, self.dim, self.keepdim = name, dim, keepdim
        self.indices = self.save(indices)

    def backward(self, g):
        shape = self._input_meta[0][0]
        idx = _value(self.indices)
        out = np.zeros(shape, dtype=g.dtype)
        if not shape:
            return (np.asarray(g).reshape(()),)
        if not self.keepdim:
            idx, g = np.expand_dims(idx, self.dim), np.expand_dims(g, self.dim)
        np.put_along_axis(out, idx, g, axis=self.dim)
        return (out,)


class ProdBackward(Node):
    """Product: d/dx_i = product of the others (computed without dividing, so zeros are fine)."""

    def __init__(self, name, x, dim, keepdim):
        super().__init__(_t(x))
        self._name, self.dim, self.keepdim = name, dim, keepdim
        self.x = self.save(x)

    def backward(self, g):
        x = _value(self.x)
        shape = x.shape
        if self.dim is None:
            flat = x.reshape(-1)
            others = _others_product(flat, 0).reshape(shape)
            return (np.asarray(g) * others,)
        d = self.dim
        others = _others_product(x, d) if x.ndim else np.ones_like(x)
        return (_expand_back(g, shape, (d,) if x.ndim else (), self.keepdim) * others,)


def _others_product(x: np.ndarray, axis: int) -> np.ndarray:
    """For each element, the product of the other elements along ``axis``."""
    ones = np.ones_like(np.take(x, [0], axis=axis)) if x.shape[axis] else None
    if ones is None:
        return x
    left = np.cumprod(np.concatenate([ones, np.delete(x, -1, axis=axis)], axis=axis), axis=axis)
    rev = np.flip(x, axis=axis)
    right = np.cumprod(np.concatenate([ones, np.delete(rev, -1, axis=axis)], axis=axis), axis=axis)
    return left * np.flip(right, axis=axis)


class CumsumBackward0(Node):
    def __init__(self, x, dim):
        super().__init__(_t(x))
        self.dim = dim

    def backward(self, g):
        if np.ndim(g) == 0:
            return (g,)
        d = self.dim
        return (np.flip(np.cumsum(np.flip(g, d), axis=d), d),)


class VarStdBackward(Node):
    """var: 2 (x - mean) / (N - correction); std: the same divided by 2 std (0 where std is 0)."""

    def __init__(self, name, x, out, dims, keepdim, correction):
        super().__init__(_t(x))
        self._name, self.dims, self.keepdim, self.correction = name, dims, keepdim, correction
        self.x = self.save(x)
        self.out = self.save(out, output=True) if name == "StdBackward0" else None

    def backward(self, g):
        x = _value(self.x)
        dims = tuple(self.dims)
        n = int(np.prod([x.shape[d] for d in dims])) if dims else x.size
        mean = x.mean(axis=dims, keepdims=True) if dims else x.mean()
        with np.errstate(all="ignore"):
            if self.out is not None:
                r = _value(self.out)
                g = np.where(r == 0, 0, g / (2 * r))
            g = _expand_back(g, x.shape, dims, self.keepdim)
            return (g * (2 * (x - mean) / max(n - self.correction, 0)),)


class NormBackward(Node):
    """``LinalgVectorNormBackward0`` for a vector norm of order p over ``dims``."""

    def __init__(self, x, out, p, dims, keepdim):
        super().__init__(_t(x))
        self._name = "LinalgVectorNormBackward0"
        self.p, self.dims, self.keepdim = p, dims, keepdim
        self.x, self.out = self.save(x), self.save(out, output=True)

    def backward(self, g):
        x, r = _value(self.x), _value(self.out)
        dims, p = tuple(self.dims), self.p
        r = _expand_back(r, x.shape, dims, self.keepdim)
        g = _expand_back(g, x.shape, dims, self.keepdim)
        with np.errstate(all="ignore"):
            if p == 0:
                return (np.zeros_like(x),)
            if p == 1:
                return (g * np.sign(x),)
            if math.isinf(p):
                mask = np.abs(x) == r
                count = mask.sum(axis=dims, keepdims=True) if dims else mask.sum()
                return (np.where(mask, g * np.sign(x) / count, 0),)
            if p == 2:
                return (np.where(r == 0, 0, g * x / r),)
            scale = x * np.abs(x) ** (p - 2) / r ** (p - 1)
            return (np.where(r == 0, 0, g * scale),)


# ---------------------------------------------------------------------------------------------
# copies
# ---------------------------------------------------------------------------------------------


class PassThrough(Node):
    """Clone, ToCopy (the engine casts back to the input's dtype), positive..."""

    def __init__(self, name, x):
        super().__init__(_t(x))
        self._name = name

    def backward(self, g):
        return (g,)


class UnsafeViewBackward0(Node):
    def __init__(self, x):
        super().__init__(_t(x))

    def backward(self, g):
        return (np.reshape(g, self._input_meta[0][0]),)


class FlipBackward0(Node):
    def __init__(self, x, dims):
        super().__init__(_t(x))
        self.dims = dims

    def backward(self, g):
        return (np.flip(g, axis=self.dims) if self.dims else g,)


class RepeatBackward0(Node):
    """Sum the gradient over the copies: reshape to (r0, s0, r1, s1, ...) and sum the r axes."""

    def __init__(self, x, sizes):
        super().__init__(_t(x))
        self.sizes = tuple(sizes)

    def backward(self, g):
        shape = self._input_meta[0][0]
        padded = (1,) * (len(self.sizes) - len(shape)) + tuple(shape)
        inter = []
        for r, s in zip(self.sizes, padded):
            inter += [r, s]
        g = np.reshape(g, inter).sum(axis=tuple(range(0, 2 * len(padded), 2)))
        return (g.reshape(shape),)


class IndexSelectBackward0(Node):
    """repeat_interleave with a tensor of counts: element i was copied counts[i] times."""

    def __init__(self, x, index, dim, flat):
        super().__init__(_t(x))
        self.index, self.dim, self.flat = index, dim, flat

    def backward(self, g):
        shape = self._input_meta[0][0]
        src_shape = (int(np.prod(shape)),) if self.flat else (tuple(shape) or (1,))
        out = np.zeros(src_shape, dtype=g.dtype)
        moved = np.moveaxis(out, self.dim, 0)
        np.add.at(moved, self.index, np.moveaxis(g, self.dim, 0))
        return (out.reshape(shape),)


class CatBackward0(Node):
    """Split the gradient along ``dim`` into the pieces that came from each input."""

    def __init__(self, tensors, dim, used):
        super().__init__(*tensors)
        self.dim, self.used = dim, used  # used[i]: False for skipped legacy empty tensors

    def backward(self, g):
        out, start = [], 0
        for meta, used in zip(self._input_meta, self.used):
            if not used:
                out.append(_zeros(meta))
                continue
            n = meta[0][self.dim]
            out.append(np.take(g, np.arange(start, start + n), axis=self.dim))
            start += n
        return tuple(out)


class StackBackward0(Node):
    def __init__(self, tensors, dim):
        super().__init__(*tensors)
        self.dim = dim

    def backward(self, g):
        return tuple(np.take(g, i, axis=self.dim) for i in range(len(self.next_functions)))


class IndexBackward0(Node):
    """Advanced indexing gathered elements; their gradients are scattered back (added where an
    element was picked more than once)."""

    def __init__(self, x, np_index):
        super().__init__(_t(x))
        self.np_index = SavedValue(np_index)
        self._saved.append(self.np_index)

    def backward(self, g):
        out = np.zeros(self._input_meta[0][0], dtype=g.dtype)
        np.add.at(out, self.np_index.unpack(), g)
        return (out,)


# ---------------------------------------------------------------------------------------------
# what in-place ops record (the out-of-place ops above serve the arithmetic ones)
# ---------------------------------------------------------------------------------------------


class FillBackward(Node):
    """``fill_``/``zero_``/``t[...] = number``: the old values no longer matter."""

    def __init__(self, name, x, value=None):
        inputs = (_t(x),) if name in ("ZeroBackward0", "FillBackward2") else (_t(x), _t(value))
        super().__init__(*inputs)
        self._name = name

    def backward(self, g):
        out = [np.zeros_like(g)]
        if len(self.next_functions) == 2:
            out.append(np.asarray(g).sum())
        return tuple(out)


class CopyBackwards(Node):
    """``copy_``: the gradient goes to the source (summed if it was broadcast), not the old self."""

    def __init__(self, x, src):
        super().__init__(_t(x), _t(src))

    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # PyTorch's name() (its class name is shorter)

    def __repr__(self) -> str:
        return f"<CopyBackwards object at {hex(id(self))}>"

    def backward(self, g):
        return (np.zeros_like(g), g)


class IndexPutBackward0(Node):
    """``t[index_tensors] = value``: the written positions take their gradient from ``value``."""

    def __init__(self, x, value, np_index):
        super().__init__(_t(x), _t(value))
        self.np_index = np_index

    def backward(self, g):
        gx = np.array(g, copy=True)
        gx[self.np_index] = 0
        gv = None
        if self.needs_grad(1):
            gv = np.asarray(g)[self.np_index]
        return (gx, gv)


def floor_divide_node(out, a, b, **kwargs):
    """PyTorch has no derivative for floor_divide either (its node is named ``NotImplemented``)."""
    return NotImplementedNode(
        "NotImplemented", "derivative for aten::floor_divide is not implemented", _t(a)
    )


# ---------------------------------------------------------------------------------------------
# make_node functions: ``make(result, *op_args, **op_kwargs) -> Node`` for the math ops
# ---------------------------------------------------------------------------------------------


def make_add(out, input, other, *, alpha=1, **kwargs):
    return AddBackward0(input, other, alpha)


def make_sub(out, input, other, *, alpha=1, **kwargs):
    return SubBackward0(input, other, alpha)


def make_rsub(out, input, other, *, alpha=1, **kwargs):
    if isinstance(other, (Tensor, np.ndarray)):
        return RsubBackward0(input, other, alpha)
    return RsubBackward1(input, alpha)


def make_mul(out, input, other, **kwargs):
    return MulBackward0(input, other)


def make_div(out, input, other, *, rounding_mode=None, **kwargs):
    if rounding_mode is not None:
        return ZeroGrads("DivBackward2", _t(input), _t(other))
    return DivBackward0(input, other)


def make_true_divide(out, input, other, **kwargs):
    return DivBackward0(input, other)


def make_remainder(out, input, other, **kwargs):
    kind = "RemainderBackward1" if isinstance(other, Tensor) else "RemainderBackward0"
    return RemainderFmod(kind, input, other, np.floor)


def make_fmod(out, input, other, **kwargs):
    kind = "FmodBackward1" if isinstance(other, Tensor) else "FmodBackward0"
    return RemainderFmod(kind, input, other, np.trunc)


def make_pow(out, input, exponent, **kwargs):
    if not isinstance(input, Tensor):
        return PowBackward2(input, exponent, out)
    if isinstance(exponent, (Tensor, np.ndarray)):
        return PowBackward1(input, exponent, out)
    return PowBackward0(input, exponent)


def make_maximum(out, input, other, **kwargs):
    return MaxMinimumBackward("MaximumBackward0", input, other, larger=True)


def make_minimum(out, input, other, **kwargs):
    return MaxMinimumBackward("MinimumBackward0", input, other, larger=False)


def make_where(out, condition, input=None, other=None, **kwargs):
    return WhereBackward0(condition, input, other)


def make_lerp(out, input, end, weight, **kwargs):
    return LerpBackward(input, end, weight)


def make_clamp(out, input, min=None, max=None, **kwargs):
    tensors = isinstance(min, Tensor) or isinstance(max, Tensor)
    return ClampBackward("ClampBackward0" if tensors else "ClampBackward1", input, min, max)


def make_clamp_min(out, input, min, **kwargs):
    return ClampBackward("ClampMinBackward0", input, min, None)


def make_clamp_max(out, input, max, **kwargs):
    return ClampBackward("ClampMaxBackward0", input, None, max)


def make_dot(out, input, other, **kwargs):
    return DotBackward0(input, other)


def make_mv(out, input, other, **kwargs):
    return MvBackward0(input, other)


def make_mm(out, input, other, **kwargs):
    return MmBackward0(input, other)


def make_bmm(out, input, other, **kwargs):
    return BmmBackward0(input, other)


def make_fill(old, value):
    if isinstance(value, Tensor):
        return FillBackward("FillBackward3", old, value)
    return FillBackward("FillBackward2", old)


def make_zero(old):
    return FillBackward("ZeroBackward0", old)


def make_copy(old, src, non_blocking=False):
    if not isinstance(src, Tensor):
        return FillBackward("FillBackward2", old)
    return CopyBackwards(old, src)
