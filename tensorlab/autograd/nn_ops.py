"""Derivatives of the layer ops of ``tensorlab.nn.functional`` (activations, ``linear``,
``softmax``/``log_softmax``, the losses, ``batch_norm``). Each node carries torch's name.

Gradients are numpy arrays; ``g`` is the gradient of the node's output.
"""

from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from . import saved_hooks as _saved_hooks
from .graph import Node


def _t(x):
    return x if isinstance(x, Tensor) else None


# ---------------------------------------------------------------------------------------------
# activations
# ---------------------------------------------------------------------------------------------


class LeakyReluBackward0(Node):
    """``leaky_relu``: slope 1 where the input is > 0, ``negative_slope`` elsewhere."""

    def __init__(self, x, slope: float):
        super().__init__(_t(x))
        self.x, self.slope = self.save(x), slope

    def backward(self, g):
        x = self.x.unpack()
        return (np.where(x > 0, g, g * np.asarray(self.slope, dtype=g.dtype)),)


class EluBackward0(Node):
    """``elu``: 1 for x > 0, ``alpha * exp(x)`` (= out + alpha) elsewhere."""

    def __init__(self, x, alpha: float):
        super().__init__(_t(x))
        self.x, self.alpha = self.save(x), alpha

    def backward(self, g):
        x = self.x.unpack()
        a = np.asarray(self.alpha, dtype=g.dtype)
        with np.errstate(over="ignore"):
            return (np.where(x > 0, g, g * a * np.exp(np.minimum(x, 0))),)


class GeluBackward0(Node):
    """``gelu``: d/dx x*Phi(x) = Phi(x) + x*phi(x) (or the tanh approximation's derivative)."""

    def __init__(self, x, approximate: str):
        super().__init__(_t(x))
        self.x, self.approximate = self.save(x), approximate

    def backward(self, g):
        from ..nn._functional.activation import erf

        x = self.x.unpack().astype(np.float64)
        if self.approximate == "tanh":
            k = math.sqrt(2 / math.pi)
            inner = k * (x + 0.044715 * x**3)
            th = np.tanh(inner)
            d = 0.5 * (1 + th) + 0.5 * x * (1 - th * th) * k * (1 + 3 * 0.044715 * x * x)
        else:
            d = 0.5 * (1 + erf(x / math.sqrt(2))) + x * np.exp(-0.5 * x * x) / math.sqrt(
                2 * math.pi
            )
        return ((g * d).astype(g.dtype),)


class SoftmaxBackward0(Node):
    """``softmax``: ``y * (g - sum(g * y))`` along ``dim``."""

    def __init__(self, x, out, dim: int):
        super().__init__(_t(x))
        self.y, self.dim = self.save(out, output=True), dim

    def backward(self, g):
        y = self.y.unpack()
        gy = g * y
        return (gy - y * gy.sum(axis=self.dim, keepdims=True),)


class LogSoftmaxBackward0(Node):
    """``log_softmax``: ``g - exp(y) * sum(g)`` along ``dim``."""

    def __init__(self, x, out, dim: int):
        super().__init__(_t(x))
        self.y, self.dim = self.save(out, output=True), dim

    def backward(self, g):
        y = self.y.unpack()
        return (g - np.exp(y) * g.sum(axis=self.dim, keepdims=True),)


# ---------------------------------------------------------------------------------------------
# linear
# ---------------------------------------------------------------------------------------------


class AddmmBackward0(Node):
    """``bias + x @ w.T`` for 2-d ``x`` (torch records ``addmm(bias, x, w.t())``; the ``w.t()``
    is folded in here: the weight's gradient is ``g.T @ x``). ``MmBackward0`` without bias."""

    def __init__(self, bias, x, w):
        if bias is None:
            super().__init__(_t(x), _t(w))
            self._name = "MmBackward0"
        else:
            super().__init__(_t(bias), _t(x), _t(w))
        self.has_bias = bias is not None
        k = 1 if self.has_bias else 0
        # torch saves ``w.t()`` (a TBackward0 view); made only when saved-tensor hooks can see it
        self._wt = bool(_saved_hooks.STACK) and self.needs_grad(k)
        self._strides = (x._stride, w._stride)  # (``_saved_*_sym_strides``)
        if self._wt:
            w = w.t()
        save_x, save_w = self.needs_grad(k + 1), self.needs_grad(k)
        if self.has_bias:  # torch's order: addmm saves mat1, mat2; mm saves mat2, self
            self.x = self.save(x) if save_x else None
            self.w = self.save(w) if save_w else None
        else:
            self.w = self.save(w) if save_w else None
            self.x = self.save(x) if save_x else None

    def backward(self, g):
        k = 1 if self.has_bias else 0
        from ..nn._blas import matmul  # one BLAS thread for small products

        if self.has_bias:  # torch's unpacking order (seen by unpack hooks)
            x = self.x.unpack() if self.x is not None else None
            w = self.w.unpack() if self.w is not None else None
        else:
            w = self.w.unpack() if self.w is not None else None
            x = self.x.unpack() if self.x is not None else None
        if self._wt:
            w = w.T
        gx = matmul(g, w) if self.needs_grad(k) else None
        gw = matmul(g.T, x) if self.needs_grad(k + 1) else None
        if not self.has_bias:
            return (gx, gw)
        gb = g.sum(axis=0) if self.needs_grad(0) else None
        return (gb, gx, gw)


# ---------------------------------------------------------------------------------------------
# losses
# ---------------------------------------------------------------------------------------------


class NllLossBackward0(Node):
    """``nll_loss``: minus the weighted picked log-probabilities; the gradient goes to the picked
    entries only (``NllLoss2DBackward0`` for 4-d inputs)."""

    def __init__(self, name, x, target_idx, weights, valid, reduction, total_weight):
        super().__init__(_t(x))
        self._name = name
        # numpy: the target (class axis removed), each sample's weight (0 where ignored), and
        # whether it is not ignore_index; saved like torch's target (freed after backward)
        self._target_np = self.save((target_idx, weights, valid))
        self.reduction = reduction
        self.total_weight = total_weight
        self.shape = tuple(x.shape)

    def backward(self, g):
        self.target, w, keep = self._target_np.unpack()
        dt = g.dtype
        if self.reduction == "none":
            g = g.reshape(w.shape)
            coef = -(g * w)
        elif self.reduction == "sum":
            coef = -(g * w)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                coef = w * -(g / np.asarray(self.total_weight, dtype=dt))
        coef = np.where(keep, coef, 0)
        out = np.zeros(self.shape, dtype=dt)
        if len(self.shape) == 1:
            out[self.target] = coef
            return (out,)
        if len(self.shape) == 2:
            out[np.arange(self.shape[0]), self.target] = coef
            return (out,)
        moved = np.moveaxis(out, 1, -1)
        idx = self.target[..., None]
        np.put_along_axis(moved, idx, np.asarray(coef, dtype=dt)[..., None], axis=-1)
        return (out,)


class MseLossBackward0(Node):
    """``mse_loss``: ``2 (x - t) g`` (divided by the count for ``'mean'``), ``-`` that for t."""

    def __init__(self, x, target, reduction):
        super().__init__(_t(x), _t(target))
        self.x, self.t, self.reduction = self.save(x), self.save(target), reduction

    def backward(self, g):
        x, t = self.x.unpack(), self.t.unpack()
        diff = x - t
        scale = 2.0
        if self.reduction == "mean":
            scale = 2.0 / diff.size if diff.size else float("nan")
        gi = diff * (g * np.asarray(scale, dtype=diff.dtype))
        return (gi, -gi if self.needs_grad(1) else None)


class BinaryCrossEntropyBackward0(Node):
    """``binary_cross_entropy``: ``g w (x - t) / max((1 - x) x, eps)``."""

    def __init__(self, x, target, weight, reduction):
        super().__init__(_t(x), _t(target))  # (weight: not differentiable, no edge, as in torch)
        self.x, self.t = self.save(x), self.save(target)
        self.w = None if weight is None else self.save(weight)
        self.reduction = reduction

    def backward(self, g):
        x, t = self.x.unpack(), self.t.unpack()
        eps = 1e-12
        gi = g * (x - t) / np.maximum((1 - x) * x, eps)
        if self.w is not None:
            gi = gi * self.w.unpack()
        if self.reduction == "mean":
            gi = gi / x.size
        gt = None
        if self.needs_grad(1):
            with np.errstate(divide="ignore"):
                gt = g * (np.log(1 - x) - np.log(x))
            if self.w is not None:
                gt = gt * self.w.unpack()
            if self.reduction == "mean":
                gt = gt / x.size
        return (gi.astype(x.dtype), gt)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """``binary_cross_entropy_with_logits``: ``g w ((1 + (pw - 1) t) sigmoid(x) - pw t)``."""

    def __init__(self, x, target, weight, pos_weight, reduction):
        super().__init__(_t(x), _t(target))  # (weights: not differentiable, no edges)
        self.x, self.t = self.save(x), self.save(target)
        self.w = None if weight is None else self.save(weight)
        self.pw = None if pos_weight is None else self.save(pos_weight)
        self.reduction = reduction

    def backward(self, g):
        x, t = self.x.unpack(), self.t.unpack()
        with np.errstate(over="ignore"):
            sig = 1 / (1 + np.exp(-x))
        if self.pw is not None:
            pw = self.pw.unpack()
            gi = ((pw * t + 1 - t) * sig - pw * t) * g
        else:
            gi = (sig - t) * g
        n = np.broadcast_shapes(x.shape, t.shape)
        if self.w is not None:
            gi = gi * self.w.unpack()
        if self.reduction == "mean":
            gi = gi / math.prod(n)
        gt = None
        if self.needs_grad(1):
            if self.pw is not None:
                gt = (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)) * (pw - 1) - x
                gt = gt * g
            else:
                gt = -x * g
            if self.w is not None:
                gt = gt * self.w.unpack()
            if self.reduction == "mean":
                gt = gt / math.prod(n)
        return (gi, gt)


# ---------------------------------------------------------------------------------------------
# batch norm
# ---------------------------------------------------------------------------------------------


class NativeBatchNormBackward0(Node):
    """``batch_norm``: with batch statistics (training) the gradient flows through the mean and
    the variance too; with running statistics (eval) it is a per-channel scale."""

    def __init__(self, x, weight, bias, xhat, invstd, training: bool):
        super().__init__(_t(x), _t(weight), _t(bias))
        self._stats = self.save((xhat, invstd))  # freed after backward, like torch's
        self.training = training
        self.has_weight = weight is not None
        self.w = self.save(weight) if weight is not None else None

    def backward(self, g):
        xhat, invstd = self._stats.unpack()  # invstd shaped to broadcast (1, C, 1, ...)
        axes = (0,) + tuple(range(2, g.ndim))
        ct = xhat.dtype
        g = g.astype(ct, copy=False)
        shape = invstd.shape
        gb = g.sum(axis=axes)
        gw = (g * xhat).sum(axis=axes)
        w = self.w.unpack().astype(ct).reshape(shape) if self.w is not None else 1
        gx = None
        if self.needs_grad(0):
            if self.training:
                m = g.size // g.shape[1]
                gx = (w * invstd) * (g - gb.reshape(shape) / m - xhat * (gw.reshape(shape) / m))
            else:
                gx = g * (w * invstd)
        return (
            gx,
            gw if self.needs_grad(1) else None,
            gb if self.needs_grad(2) else None,
        )


class SiluBackward0(Node):
    """``silu``: d/dx x*s(x) = s(x) (1 + x (1 - s(x)))."""

    def __init__(self, x):
        super().__init__(_t(x))
        self.x = self.save(x)

    def backward(self, g):
        x = self.x.unpack()
        with np.errstate(over="ignore"):
            s = 1 / (1 + np.exp(-x))
        return (g * (s * (1 + x * (1 - s))),)


class SoftplusBackward0(Node):
    """``softplus``: sigmoid(beta x), or 1 where beta x > threshold (the linear part)."""

    def __init__(self, x, beta, threshold):
        super().__init__(_t(x))
        self.x, self.beta, self.threshold = self.save(x), beta, threshold

    def backward(self, g):
        x = self.x.unpack()
        bx = x * np.asarray(self.beta, dtype=x.dtype)
        with np.errstate(over="ignore"):
            z = np.exp(bx)
            d = np.where(bx > self.threshold, 1, z / (z + 1))
        return ((g * d).astype(g.dtype),)


class HardtanhBackward0(Node):
    """``hardtanh`` / ``relu6``: the gradient passes where min_val < x < max_val."""

    def __init__(self, x, lo, hi):
        super().__init__(_t(x))
        self.x, self.lo, self.hi = self.save(x), lo, hi

    def backward(self, g):
        x = self.x.unpack()
        return (np.where((x > self.lo) & (x < self.hi), g, 0).astype(g.dtype),)


class NativeLayerNormBackward0(Node):
    """``layer_norm``: each sample is normalised by its own mean and variance over the last
    dims, so the gradient flows through both (the batch-norm formula, per sample)."""

    def __init__(self, x, weight, bias, xhat, rstd, axes):
        super().__init__(_t(x), _t(weight), _t(bias))
        self._stats = self.save((xhat, rstd))
        self.w = self.save(weight) if weight is not None else None
        self.axes = axes

    def backward(self, g):
        xhat, rstd = self._stats.unpack()
        ct = xhat.dtype
        g = g.astype(ct, copy=False)
        lead = tuple(range(g.ndim - len(self.axes)))
        gw = (g * xhat).sum(axis=lead) if self.needs_grad(1) else None
        gb = g.sum(axis=lead) if self.needs_grad(2) else None
        gx = None
        if self.needs_grad(0):
            gh = g * self.w.unpack().astype(ct) if self.w is not None else g
            m1 = gh.mean(axis=self.axes, keepdims=True)
            m2 = (gh * xhat).mean(axis=self.axes, keepdims=True)
            gx = rstd * (gh - m1 - xhat * m2)
        return (gx, gw, gb)


class EmbeddingBackward0(Node):
    """``embedding``: each looked-up row's gradient is added into its row of the weight (rows
    looked up several times add up; the ``padding_idx`` row gets none)."""

    def __init__(self, weight, indices, padding_idx):
        super().__init__(_t(weight))
        self._idx = self.save(indices)
        self.padding_idx = padding_idx
        self.shape = tuple(weight.shape)

    def backward(self, g):
        idx = self._idx.unpack().reshape(-1)
        rows = g.reshape(-1, self.shape[1])
        out = np.zeros(self.shape, dtype=g.dtype)
        np.add.at(out, idx, rows)
        if self.padding_idx is not None and self.padding_idx >= 0:
            out[self.padding_idx] = 0
        return (out,)
