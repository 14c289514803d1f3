"""More losses of ``torch.nn.functional``: ``smooth_l1_loss`` and ``huber_loss`` (ATen's
elementwise kernels and backward formulas, with their own nodes), and, composed of tensor ops as
ATen composes them, ``soft_margin_loss``, ``margin_ranking_loss``, ``hinge_embedding_loss``,
``cosine_embedding_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``, ``kl_div``,
``multilabel_soft_margin_loss``, ``triplet_margin_loss`` (with ``pairwise_distance``)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._ops import _cascade
from ..._ops._elementwise import output_strides
from ..._tensor import Tensor, from_array
from ...autograd.graph import Node
from ._loss_nodes import add_scalar, fused
from ._util import record
from .loss import _broadcast, _legacy_reduction, _reduction, _warn_size, _weighted, l1_loss


# ------------------------------------------------------------------- smooth L1 and Huber
class _PiecewiseLossBackward(Node):
    """``smooth_l1_loss`` / ``huber_loss``: ATen's backward kernels, ``norm`` = 1/numel for
    ``'mean'``."""

    def __init__(self, x, t, reduction, param, huber):
        super().__init__(x, t)
        self.x, self.t, self.reduction, self.param, self.huber = (
            self.save(x),
            self.save(t),
            reduction,
            param,
            huber,
        )

    def backward(self, g):
        a, b = self.x.unpack(), self.t.unpack()
        dt = a.dtype.type
        x = a - b
        norm = dt(1.0 / x.size) if self.reduction == "mean" and x.size else dt(1.0)
        g = np.asarray(g, a.dtype)
        p = dt(self.param)
        if self.huber:
            gi = np.where(x <= -p, -norm * g * p, np.where(x >= p, norm * g * p, norm * x * g))
        else:
            gi = np.where(x <= -p, -norm * g, np.where(x >= p, norm * g, norm * x * g / p))
        gi = np.asarray(gi, a.dtype)
        return (gi, -gi if self.needs_grad(1) else None)


class SmoothL1LossBackward0(_PiecewiseLossBackward):
    pass


class HuberLossBackward0(_PiecewiseLossBackward):
    pass


def _piecewise(input, target, reduction, param, huber, fname):
    x, t = _broadcast(input, target)
    if x.dtype is not t.dtype:
        dt = D.promote_types(x.dtype, t.dtype)
        x, t = x.to(dt), t.to(dt)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{fname}_cpu\" not implemented for '{D.SCALAR_NAME[x.dtype.name]}'"
        )
    a, b = x._np(), t._np()
    dt = a.dtype.type
    p, half = dt(param), dt(0.5)
    z = np.abs(a - b)
    with np.errstate(all="ignore"):
        if huber:
            loss = np.where(z < p, half * z * z, p * (z - half * p)).astype(a.dtype)
        else:
            loss = np.where(z < p, half * z * z / p, z - half * p).astype(a.dtype)
    node = SmoothL1LossBackward0 if not huber else HuberLossBackward0
    if reduction == "none":
        out = from_array(loss, x.dtype, stride=output_strides(loss.shape, (x, t)))
    elif reduction == "sum":
        out = from_array(_cascade.total(loss), x.dtype, fresh=True)
    else:
        out = from_array(_cascade.mean_all(loss), x.dtype, fresh=True)
    return record(out, lambda: node(x, t, reduction, param, huber), x, t)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 z^2 / beta`` where ``z = |input - target| < beta``, else ``z - 0.5 beta``
    (``beta=0``: ``l1_loss``)."""
    _ = target.size(), input.size()  # torch looks at them first (an int fails here, as there)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    reduction = _reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _piecewise(input, target, reduction, beta, False, "smooth_l1")


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight=None,
) -> Tensor:
    """``0.5 z^2`` where ``z = |input - target| < delta``, else ``delta (z - 0.5 delta)``."""
    _ = target.size(), input.size()  # torch looks at them first (an int fails here, as there)
    _warn_size(input, target)
    if weight is not None:
        x, t = _broadcast(input, target)
        z = (x - t).abs()
        loss = (z < delta).where(0.5 * z * z, delta * (z - 0.5 * delta)) * weight
        return _weighted(loss, _reduction(reduction))
    reduction = _reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _piecewise(input, target, reduction, delta, True, "huber")


# ----------------------------------------------------------------------------- margin losses
def _apply(loss: Tensor, reduction: str) -> Tensor:
    """ATen's ``apply_loss_reduction``."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _red(reduction, size_average, reduce) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    return reduction


def soft_margin_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """``log(1 + exp(-target * input))``."""
    reduction = _reduction(_red(reduction, size_average, reduce))
    return fused(
        "SoftMarginLossBackward0",
        lambda x, t: _apply((-t * x).exp().log1p(), reduction),
        input,
        target,
    )


def margin_ranking_loss(
    input1, input2, target, margin: float = 0, size_average=None, reduce=None, reduction="mean"
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``."""
    reduction = _reduction(_red(reduction, size_average, reduce))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    return _apply(add_scalar(-target * (input1 - input2), margin).clamp_min(0), reduction)


def hinge_embedding_loss(
    input, target, margin: float = 1.0, size_average=None, reduce=None, reduction="mean"
) -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``."""
    from ... import where, zeros_like

    reduction = _reduction(_red(reduction, size_average, reduce))
    zeros = zeros_like(input)
    margin_clamp = (margin - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _apply(output_margin + output_self, reduction)


def cosine_embedding_loss(
    input1, input2, target, margin: float = 0, size_average=None, reduce=None, reduction="mean"
) -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1``."""
    from ... import where, zeros_like

    reduction = _reduction(_red(reduction, size_average, reduce))
    targ_dim = target.dim()
    if targ_dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if targ_dim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError(
            "1D target tensor expects 2D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}."
        )
    if targ_dim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError(
            "0D target tensor expects 1D input tensors, but found inputs with sizes "
            f"{_sizes(input1)} and {_sizes(input2)}."
        )
    eps = 1e-12
    prod_sum = (input1 * input2).sum(targ_dim)
    mag_square1 = (input1 * input1).sum(targ_dim) + eps
    mag_square2 = (input2 * input2).sum(targ_dim) + eps
    denom = (mag_square1 * mag_square2).sqrt()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    output_pos = where(target == 1, pos, zeros)
    output_neg = where(target == -1, neg, zeros)
    return _apply(output_pos + output_neg, reduction)


def _sizes(t) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


# ----------------------------------------------------------------------- likelihood losses
def poisson_nll_loss(
    input,
    target,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``,
    plus Stirling's term where ``target > 1`` if ``full``."""
    reduction = _red(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply(loss, reduction)


def gaussian_nll_loss(
    input, target, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"
) -> Tensor:
    """``0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)``
    if ``full``); ``var`` per element, per sample (one fewer dimension) or a float."""
    from ... import no_grad

    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * input.new_ones(())
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.size()[:-1] == var.size()[:-1] and var.size(-1) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction != "none" and reduction != "mean" and reduction != "sum":
        raise ValueError(reduction + " is not valid")
    if (var < 0).any():
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def kl_div(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """``target * (log(target) - input)`` (``xlogy``; ``exp(target) * (target - input)`` with
    ``log_target``); ``'batchmean'`` divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction_enum = _legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support "
                "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                "major release.",
                stacklevel=2,
            )
        reduction_enum = "sum" if reduction == "batchmean" else reduction
        if reduction_enum not in ("none", "mean", "sum"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    reduced = _apply(loss, reduction_enum)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def _xlogy(x, y) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (``torch.xlogy``)."""
    from ... import where, zeros_like

    return where(x == 0, zeros_like(x), x * y.log())


def logsigmoid(input) -> Tensor:
    """``log(sigmoid(x))`` computed stably: ``min(x, 0) - log1p(exp(-|x|))``; its gradient
    ``[x < 0] - sign * z / (1 + z)`` with ``z = exp(-|x|)`` (ATen's ``log_sigmoid_backward``)."""
    return _LogSigmoid.apply(input)


def _make_log_sigmoid():
    from ...autograd.function import Function
    from ...autograd.grad_mode import no_grad

    class LogSigmoid(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            with no_grad():
                return x.clamp_max(0) - (-x.abs()).exp().log1p()

        @staticmethod
        def backward(ctx, g):
            from ... import where

            (x,) = ctx.saved_tensors
            neg = x < 0
            z = (-x.abs()).exp()
            max_deriv = neg.to(x.dtype)
            sign = where(neg, 1.0, -1.0).to(x.dtype)
            return g * (max_deriv - sign * (z / (1 + z)))

    return LogSigmoid


_LogSigmoid = _make_log_sigmoid()


def multilabel_soft_margin_loss(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Per sample, the mean over classes of ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))``."""
    reduction = _red(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


# ---------------------------------------------------------------------------------- triplets
def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """``||x1 - x2 + eps||_p`` over the last dimension."""
    x1_dim, x2_dim = x1.dim(), x2.dim()
    output_dim = max(x1_dim, x2_dim)
    innermost_dim = output_dim - 1
    return (x1 - x2 + eps).norm(p=p, dim=innermost_dim, keepdim=keepdim)


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``, ``d`` the p-norm
    distance (``swap``: the smaller of d(a, n) and d(p, n))."""
    from ... import min as tmin

    reduction = _reduction(_red(reduction, size_average, reduce))
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D "
            "inputs"
        )
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = tmin(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _apply((add_scalar(dist_pos, margin) - dist_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``triplet_margin_loss`` with any ``distance_function`` (default ``pairwise_distance``)."""
    from ... import minimum

    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D "
            "inputs"
        )
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    return _apply((margin + dist_pos - dist_neg).clamp_min(0), reduction)  # (Python's +)


def multi_margin_loss(
    input,
    target,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Per sample, the mean over the other classes of ``max(0, margin - x[y] + x[c])`` (squared
    for ``p=2``, times ``weight[y]``): the multi-class hinge loss."""
    from ... import arange

    reduction = _reduction(_red(reduction, size_average, reduce))
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input if input.dim() == 2 else input.reshape(1, -1)
    t = target.reshape(-1)
    n, c = x.shape
    if t.numel() != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {_sizes(target)}")
    if bool(((t < 0) | (t >= c)).any()):
        raise RuntimeError("target out of range")

    def compose(inp):
        x = inp if inp.dim() == 2 else inp.reshape(1, -1)
        xt = x.gather(1, t.unsqueeze(1))
        z = (margin - xt + x).relu()  # ATen's kernel: only z > 0 counts (and gets a gradient)
        h = z if p == 1 else z * z
        if weight is not None:
            h = h * weight[t].unsqueeze(1)
        other = (arange(c).unsqueeze(0) != t.unsqueeze(1)).to(h.dtype)
        loss = (h * other).sum(1) / c
        if input.dim() != 2 and reduction == "none":
            loss = loss.reshape(())
        return _apply(loss, reduction)

    return fused("MultiMarginLossBackward0", compose, input)


def multilabel_margin_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean"
) -> Tensor:
    """Per sample, over its target classes ``j`` (``target`` up to the first ``-1``) and the
    classes ``i`` that are not targets: ``sum max(0, 1 - (x[j] - x[i])) / C``
    (``MultilabelMarginLossBackward0``)."""
    from ..._ops.comparison import where

    reduction = _reduction(_red(reduction, size_average, reduce))
    if target.dtype is not D.int64:
        raise RuntimeError(
            f"expected scalar type Long but found {D.SCALAR_NAME[target.dtype.name]}"
        )
    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(
            f"inconsistent target size: {_sizes(target)} for input of size: {_sizes(input)}"
        )
    c = input.shape[-1] if input.dim() else 1
    tn = target._np().reshape(-1, c)
    valid = np.cumprod(tn >= 0, axis=1).astype(bool)  # the targets before the first -1
    if bool((tn[valid] >= c).any()):
        raise RuntimeError("argument #2 'target' is out of range")
    rows = np.broadcast_to(np.arange(tn.shape[0])[:, None], tn.shape)
    is_target = np.zeros(tn.shape, dtype=bool)
    is_target[rows[valid], tn[valid]] = True
    picked = from_array(np.where(valid, tn, 0), D.int64, fresh=True)
    pairs = valid[:, :, None] & ~is_target[:, None, :]  # (sample, target j, class i)

    def compose(inp):
        x = inp.reshape(-1, c)
        xj = x.gather(1, picked)
        z = (1 - (xj.unsqueeze(2) - x.unsqueeze(1))).relu()
        zero = from_array(np.zeros((), x.dtype.np), x.dtype, fresh=True)
        loss = where(from_array(pairs, D.bool_, fresh=True), z, zero).sum((1, 2)) / c
        if input.dim() < 2 and reduction == "none":
            loss = loss.reshape(())
        return _apply(loss, reduction)

    return fused("MultilabelMarginLossBackward0", compose, input)
