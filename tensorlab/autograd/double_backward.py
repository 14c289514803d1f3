"""Backward formulas written with tensor ops, for ``create_graph=True`` (double backward).

A normal backward pass moves numpy arrays between nodes (fast, nothing recorded). With
``create_graph=True`` the engine moves tensors and calls ``node.apply_tensor(grad)`` with grad
mode on, so every formula below is recorded like any other computation and its results can be
differentiated again (``autograd.functional.hessian``, gradient penalties...).

The formulas cover the ops a Hessian of ordinary code meets: elementwise arithmetic, ``pow``,
the unary math functions, ``relu``/``clamp``/``where``/``maximum``, ``sum``/``mean``,
``dot``/``mv``/``mm``/``bmm`` (so ``matmul``), ``linear``, ``softmax``/``log_softmax``,
``mse_loss``, ``leaky_relu``/``hardtanh``/``relu6``/``elu``/``silu``/``softplus``, and the view ops (``view``/``reshape``/``transpose``/indexing, ``cat``/``stack``). Any other node computes its gradient with numpy as usual and gives
the result a ``NotImplemented`` node: differentiating through it again raises a clear error
instead of silently treating the gradient as a constant.
"""

from __future__ import annotations

import math

import numpy as np

from . import formulas as F
from . import indexing_ops as IX
from . import nn_ops as N
from . import views as V
from .graph import Node, NotImplementedNode, attach, gradient_edge, sum_to_tensor


def _tl():
    import tensorlab

    return tensorlab


def _get(saved):
    return None if saved is None else saved.unpack_tensor()


def _zeros_like(g):
    return _tl().zeros_like(g)


def _where(mask: np.ndarray, g, other=None):
    """``g`` where ``mask`` holds, else ``other`` (zeros): linear in ``g``, recorded."""
    tl = _tl()
    m = tl.from_numpy(np.array(np.broadcast_to(mask, g.shape), order="C"))
    return tl.where(m, g, _zeros_like(g) if other is None else other)


# ---------------------------------------------------------------------------------------------
# formulas: node -> tuple of tensor gradients (or None)
# ---------------------------------------------------------------------------------------------


def _add(n, g):
    return (g, g * n.alpha if n.alpha != 1 else g)


def _sub(n, g):
    return (g, -g * n.alpha if n.alpha != 1 else -g)


def _rsub0(n, g):
    return (-g * n.alpha if n.alpha != 1 else -g, g)


def _rsub1(n, g):
    return (-g * n.alpha if n.alpha != 1 else -g,)


def _mul(n, g):
    b, a = _get(n.b), _get(n.a)
    return (None if b is None else g * b, None if a is None else g * a)


def _div(n, g):
    b, a = _get(n.b), _get(n.a)
    ga = g / b if n.needs_grad(0) else None
    gb = -g * ((a / b) / b) if a is not None else None
    return (ga, gb)


def _pow0(n, g):
    e, x = n.exponent, _get(n.a)
    if e == 0:
        return (_zeros_like(g),)
    return (g * (e * x.pow(e - 1)),)


def _pow1(n, g):
    x, e = _get(n.a), _get(n.b)
    ga = gb = None
    if n.needs_grad(0):
        ga = _where(~(e._np() == 0), g * (e * x.pow(e - 1)))
    if n.needs_grad(1):
        r = _get(n.out)
        xs, es = np.broadcast_arrays(x._np(), e._np())
        gb = _where(~((xs == 0) & (es >= 0)), g * (r * x.log()))
    return (ga, gb)


def _pow2(n, g):
    r = _get(n.out)
    if n.base == 0:
        e = _get(n.b)
        return (_where(~(e._np() >= 0), g * (r * -math.inf)),)
    return (g * (r * math.log(n.base)),)


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_FROM_INPUT = {
    "log": lambda g, x: g / x,
    "log2": lambda g, x: g / (x * _LN2),
    "log10": lambda g, x: g / (x * _LN10),
    "sin": lambda g, x: g * x.cos(),
    "cos": lambda g, x: g * -x.sin(),
    "abs": lambda g, x: g * x.sign(),
    "asin": lambda g, x: g / (1 - x * x).sqrt(),
    "acos": lambda g, x: -g / (1 - x * x).sqrt(),
    "atan": lambda g, x: g / (1 + x * x),
    "sinh": lambda g, x: g * x.cosh(),
    "cosh": lambda g, x: g * x.sinh(),
    "asinh": lambda g, x: g / (x * x + 1).sqrt(),
    "acosh": lambda g, x: g / (x * x - 1).sqrt(),
    "atanh": lambda g, x: g / (1 - x * x),
    "log1p": lambda g, x: g / (x + 1),
    "erf": lambda g, x: g * (2 / math.sqrt(math.pi)) * (-(x * x)).exp(),
    "erfc": lambda g, x: g * (-2 / math.sqrt(math.pi)) * (-(x * x)).exp(),
}
_FROM_RESULT = {
    "exp": lambda g, r: g * r,
    "sqrt": lambda g, r: g / (2 * r),
    "rsqrt": lambda g, r: -0.5 * g * r * r * r,
    "tan": lambda g, r: g * (1 + r * r),
    "tanh": lambda g, r: g * (1 - r * r),
    "sigmoid": lambda g, r: g * (1 - r) * r,
    "reciprocal": lambda g, r: -g * (r * r),
    "exp2": lambda g, r: g * r * _LN2,
    "expm1": lambda g, r: g * (r + 1),
    "relu": lambda g, r: _where(~(r._np() <= 0), g),  # threshold_backward: NaN passes
}


def _unary(n, g):
    op = n.op
    if op == "neg":
        return (-g,)
    if op in _FROM_INPUT:
        return (_FROM_INPUT[op](g, _get(n.saved)),)
    if op in _FROM_RESULT:
        return (_FROM_RESULT[op](g, _get(n.saved)),)
    if op in F.UNARY_ZERO:
        return (_zeros_like(g),)
    return None


def _clamp(n, g):
    x = n.x.unpack()
    lo = None if n.lo is None else n.lo.unpack()
    hi = None if n.hi is None else n.hi.unpack()
    if len(n.next_functions) != 1:
        return None  # tensor bounds: numpy formula, no second derivative
    lo = None if lo is None else (lo._np() if hasattr(lo, "_np") else lo)
    hi = None if hi is None else (hi._np() if hasattr(hi, "_np") else hi)
    keep = np.ones(x.shape, dtype=bool)
    if lo is not None:
        keep &= x >= lo
    if hi is not None:
        keep &= x <= hi
    return (_where(keep, g),)


def _maxmin(n, g):
    a, b = n.a.unpack(), n.b.unpack()
    a, b = np.broadcast_arrays(a, b)
    half = _where(a == b, g / 2, g)
    lose_a = a < b if n.larger else a > b
    lose_b = a > b if n.larger else a < b
    return (_where(~lose_a, half), _where(~lose_b, half))


def _where_node(n, g):
    c = n.cond.unpack()
    return (_where(c, g), _where(~np.asarray(c, dtype=bool), g))


def _dot(n, g):
    b, a = _get(n.b), _get(n.a)
    return (None if b is None else g * b, None if a is None else g * a)


def _mv(n, g):
    b, a = _get(n.b), _get(n.a)
    tl = _tl()
    return (None if b is None else tl.outer(g, b), None if a is None else a.t().mv(g))


def _mm(n, g):
    b, a = _get(n.b), _get(n.a)
    return (None if b is None else g.mm(b.t()), None if a is None else a.t().mm(g))


def _bmm(n, g):
    b, a = _get(n.b), _get(n.a)
    return (
        None if b is None else g.bmm(b.transpose(1, 2)),
        None if a is None else a.transpose(1, 2).bmm(g),
    )


def _sum_mean(n, g):
    shape = n._input_meta[0][0]
    if not n.keepdim and len(shape):
        for d in sorted(n.dims):
            g = g.unsqueeze(d)
    g = g.expand(*shape) if len(shape) else g.reshape(())
    return (g / n.count if n.count != 1 else g,)


def _pass(n, g):
    return (g,)


def _reshape_back(n, g):
    return (g.reshape(n._input_meta[0][0]),)


def _expand(n, g):
    return (sum_to_tensor(g, n._input_meta[0][0]),)


_RESHAPES = {"ViewBackward0", "UnsqueezeBackward0", "UnsqueezeBackward1", "AliasBackward0"}


def _view(n, g):
    if n.name() in _RESHAPES or n.name().startswith(("SqueezeBackward", "ReshapeAlias")):
        return _reshape_back(n, g)

    def adjoint(h):  # the view op itself: d(backward)/d(g) transposed
        tl = _tl()
        return n.replay(tl.from_numpy(np.array(h, order="C")))._np()

    return (_linear(n, g, adjoint),)


def _index(n, g):
    idx = n.np_index.unpack()
    return (_linear(n, g, lambda h: np.asarray(h)[idx]),)


def _cat(n, g):
    out, start = [], 0
    for meta, used in zip(n._input_meta, n.used):
        if not used:
            out.append(_zeros_like(g).new_zeros(meta[0]))
            continue
        k = meta[0][n.dim]
        out.append(g.narrow(n.dim, start, k))
        start += k
    return tuple(out)


def _stack(n, g):
    return tuple(g.select(n.dim, i) for i in range(len(n.next_functions)))


def _flip(n, g):
    return (g.flip(n.dims) if n.dims else g,)


def _addmm(n, g):
    k = 1 if n.has_bias else 0
    w, x = _get(n.w), _get(n.x)
    if n._wt:  # the saved ``w.t()`` (saved-tensor hooks)
        w = w.t()
    gx = g.mm(w) if n.needs_grad(k) else None
    gw = g.t().mm(x) if n.needs_grad(k + 1) else None
    if not n.has_bias:
        return (gx, gw)
    return (g.sum(0) if n.needs_grad(0) else None, gx, gw)


def _softmax(n, g):
    y = _get(n.y)
    gy = g * y
    return (gy - y * gy.sum(n.dim, keepdim=True),)


def _log_softmax(n, g):
    y = _get(n.y)
    return (g - y.exp() * g.sum(n.dim, keepdim=True),)


def _mse(n, g):
    x, t = _get(n.x), _get(n.t)
    diff = x - t
    scale = 2.0
    if n.reduction == "mean":
        scale = 2.0 / diff.numel() if diff.numel() else float("nan")
    gi = diff * (g * scale)
    return (gi, -gi if n.needs_grad(1) else None)


def _leaky_relu(n, g):
    x = n.x.unpack()
    return (_where(x > 0, g, g * n.slope),)


def _hardtanh(n, g):
    x = n.x.unpack()
    return (_where((x > n.lo) & (x < n.hi), g),)


def _elu(n, g):
    x = _get(n.x)
    return (_where(x._np() > 0, g, g * n.alpha * x.clamp(max=0).exp()),)


def _silu(n, g):
    x = _get(n.x)
    s = x.sigmoid()
    return (g * (s * (1 + x * (1 - s))),)


def _softplus(n, g):
    x = _get(n.x)
    bx = x * n.beta
    return (_where(bx._np() > n.threshold, g, g * bx.sigmoid()),)


def _fill(n, g):
    out = [_zeros_like(g)]
    if len(n.next_functions) == 2:
        out.append(g.sum())
    return tuple(out)


def _copy(n, g):
    return (_zeros_like(g), g)


def _masked_fill(n, g):
    mask = np.broadcast_to(n.mask, g.shape)
    out = [_where(~mask, g)]
    if len(n.next_functions) == 2:
        out.append(_where(mask, g).sum())
    return tuple(out)


def _copy_slices(n, g):
    """The base of a view written in place: ``g`` outside the view's positions, and there the
    in-place op's own gradient (recorded, so it is differentiable again)."""
    tl = _tl()
    idx = V.positions_in_base(n.base_layout, n.view_layout)
    it = tl.from_numpy(np.array(idx.reshape(-1), dtype=np.int64))
    flat = g.reshape(-1)
    grads = apply_tensor(n.op, flat[it].reshape(idx.shape))
    first = grads[0] if grads else None
    keep = np.ones(flat.shape[0], dtype=bool)
    keep[idx.reshape(-1)] = False
    out = _where(keep.reshape(tuple(g.shape)), g)
    if first is not None:
        first = sum_to_tensor(first, idx.shape).reshape(-1)
        scattered = tl.zeros(flat.shape[0], dtype=g.dtype).index_add(0, it, first)
        out = out + scattered.reshape(g.shape)
    return (out, *grads[1:])


def _as_strided(n, g):
    """A view read from its base's current history: scatter-add ``g`` to its positions."""
    tl = _tl()
    shape = tuple(n._input_meta[0][0])
    idx = V.positions_in_base(n.base_layout, n.view_layout).reshape(-1)
    it = tl.from_numpy(np.array(idx, dtype=np.int64))
    size = int(np.prod(shape))
    out = tl.zeros(size, dtype=g.dtype).index_add(0, it, g.reshape(-1))
    return (out.reshape(shape),)


FORMULAS = {
    V.AsStridedBackward0: _as_strided,
    F.FillBackward: _fill,
    F.CopyBackwards: _copy,
    IX.MaskedFillBackward: _masked_fill,
    V.CopySlices: _copy_slices,
    N.LeakyReluBackward0: _leaky_relu,
    N.HardtanhBackward0: _hardtanh,
    N.EluBackward0: _elu,
    N.SiluBackward0: _silu,
    N.SoftplusBackward0: _softplus,
    N.AddmmBackward0: _addmm,
    N.SoftmaxBackward0: _softmax,
    N.LogSoftmaxBackward0: _log_softmax,
    N.MseLossBackward0: _mse,
    F.AddBackward0: _add,
    F.SubBackward0: _sub,
    F.RsubBackward0: _rsub0,
    F.RsubBackward1: _rsub1,
    F.MulBackward0: _mul,
    F.DivBackward0: _div,
    F.PowBackward0: _pow0,
    F.PowBackward1: _pow1,
    F.PowBackward2: _pow2,
    F.UnaryBackward: _unary,
    F.ClampBackward: _clamp,
    F.MaxMinimumBackward: _maxmin,
    F.WhereBackward0: _where_node,
    F.DotBackward0: _dot,
    F.MvBackward0: _mv,
    F.MmBackward0: _mm,
    F.BmmBackward0: _bmm,
    F.SumMeanBackward: _sum_mean,
    F.PassThrough: _pass,
    F.UnsafeViewBackward0: _reshape_back,
    F.CatBackward0: _cat,
    F.StackBackward0: _stack,
    F.FlipBackward0: _flip,
    F.IndexBackward0: _index,
    V.ExpandBackward0: _expand,
    V.ViewBackward: _view,
}


# ---------------------------------------------------------------------------------------------
# the engine's entry point, and the nodes the formulas make
# ---------------------------------------------------------------------------------------------


class LinearGradBackward(Node):
    """The node of a gradient computed by a linear map of ``g`` that numpy does (a view's or an
    index's backward): its own derivative is the map's adjoint (the view/index op itself)."""

    def __init__(self, name: str, g, shape, forward, adjoint):
        super().__init__(g)
        self._name, self._forward, self._adjoint = name, forward, adjoint

    def backward(self, h):
        return (self._adjoint(h),)


def _linear(n: Node, g, adjoint):
    """``n``'s numpy backward applied to ``g``, recorded as a linear map of ``g``."""
    tl = _tl()
    (res,) = n.backward(np.array(g._np()))
    out = tl.from_numpy(np.array(res, order="C"))
    if g.requires_grad:
        attach(out, LinearGradBackward(n.name() + "Backward", g, out.shape, n.backward, adjoint))
    return out


def _linear_again(n, h):
    """A linear gradient's own gradient, differentiable again (its adjoint is the map)."""
    return (_linear(n, h, n._forward),)


FORMULAS[LinearGradBackward] = _linear_again


def _formula(node: Node):
    for cls in type(node).__mro__:
        f = FORMULAS.get(cls)
        if f is not None:
            return f
    return None


def apply_tensor(node: Node, g) -> tuple:
    """``node``'s gradients as recorded tensors (``g`` is a tensor)."""
    f = _formula(node)
    if f is not None:
        out = f(node, g)
        if out is not None:
            return out
    return _no_double_backward(node, g)


def _no_double_backward(node: Node, g) -> tuple:
    """The numpy formula, its results tied to a node that refuses to be differentiated."""
    from .. import _dtype as D
    from .._tensor import Tensor

    arrays = node.backward(np.array(g._np()))
    message = (
        f"the derivative of {node.name()} is not implemented for double backward in tensorlab "
        "(create_graph=True made a gradient through it, and that gradient is now being "
        "differentiated)"
    )
    err = None
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        a = np.asarray(a)
        t = Tensor._from_array(a, D.from_numpy_dtype(a.dtype))
        if t.dtype.is_floating_point:
            if err is None:
                err = NotImplementedNode("NotImplemented", message)
                err.next_functions = (gradient_edge(g), *node.next_functions)
                err._input_meta = (None,) * len(err.next_functions)
            attach(t, err)
        out.append(t)
    return tuple(out)
