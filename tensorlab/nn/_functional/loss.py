"""Losses: ``nll_loss``, ``cross_entropy`` (class indices or probabilities, ``ignore_index``,
``label_smoothing``), ``mse_loss``, ``l1_loss``, ``binary_cross_entropy``,
``binary_cross_entropy_with_logits`` (torch/nn/functional.py + ATen's Loss*.cpp)."""

from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype as D
from ... import _layout as L
from ..._ops import _cascade
from ..._ops._elementwise import output_strides
from ..._tensor import Tensor, from_array
from ...autograd import nn_ops as N
from ._loss_nodes import div_scalar, mul_scalar
from ._util import check_tensor, fmt_size, record

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, emit_warning: bool = True) -> str:
    """``_Reduction.legacy_get_string``: the old ``size_average``/``reduce`` flags."""
    warning = "size_average and reduce args will be deprecated, please use reduction='{}' instead."
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(warning.format(ret), stacklevel=3)
    return ret


def _reduction(reduction, size_average=None, reduce=None) -> str:
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _shape_str(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------------------- nll / cross entropy


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """Minus the (weighted) log-probability of each target class: input (N, C) or (N, C, d...)
    of log-probabilities, target (N) or (N, d...) of class indices."""
    check_tensor(input, "nll_loss")
    check_tensor(target, "nll_loss", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    return _nll_loss_nd(input, target, weight, reduction, ignore_index)


def _nll_loss_nd(x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim != 1 and (target.ndim == 0 or x.shape[0] != target.shape[0]):
        tb = target.shape[0] if target.ndim else 1
        raise ValueError(
            f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({tb})."
        )
    if target.dtype not in (D.int64, D.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {D.SCALAR_NAME[target.dtype.name]}"
        )
    if x.ndim <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        no_batch = x.ndim == 1 and target.ndim == 0
        if not (no_batch or x.shape[0] == target.shape[0]):
            raise RuntimeError(
                f"size mismatch (got input: {_shape_str(x.shape)}, target: "
                f"{_shape_str(target.shape)})"
            )
        name = "NllLossBackward0"
    elif x.ndim == 4:
        if target.ndim != 3:
            raise RuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {target.ndim}"
            )
        if (x.shape[0], x.shape[2], x.shape[3]) != tuple(target.shape):
            raise RuntimeError(
                f"size mismatch (got input: {_shape_str(x.shape)} , target: "
                f"{_shape_str(target.shape)}"
            )
        name = "NllLoss2DBackward0"
    else:
        expected = (x.shape[0], *x.shape[2:])
        if tuple(target.shape[1:]) != tuple(x.shape[2:]):
            raise RuntimeError(
                f"Expected target size {_shape_str(expected)}, got {_shape_str(target.shape)}"
            )
        name = "NllLoss2DBackward0"
    n_classes = x.shape[-1] if x.ndim == 1 else x.shape[1]
    if weight is not None and x.ndim > 2 and weight.numel() != n_classes:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes "
            f"but got weight tensor of shape: {_shape_str(weight.shape)}"
        )
    if not x.dtype.is_floating_point:
        kernel = "nll_loss_out_frame" if x.ndim <= 2 else "nll_loss2d_forward_out_frame"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{D.SCALAR_NAME[x.dtype.name]}'"
        )
    arr = x._np()
    t = target._np().astype(np.int64)
    keep = t != ignore_index
    bad = keep & ((t < 0) | (t >= n_classes))
    if bad.any():
        raise IndexError(f"Target {t[bad].flat[0]} is out of bounds.")
    safe = np.where(keep, t, 0)
    if x.ndim == 1:
        picked = arr[safe]
    elif x.ndim == 2:  # (N, C): one fancy index (take_along_axis's moveaxis costs more)
        picked = arr[np.arange(safe.shape[0]), safe]
    else:
        moved = np.moveaxis(arr, 1, -1)
        picked = np.take_along_axis(moved, safe[..., None], axis=-1)[..., 0]
    w = weight._np().astype(arr.dtype)[safe] if weight is not None else np.ones_like(picked)
    w = np.where(keep, w, 0).astype(arr.dtype)
    losses = -(picked * w)
    losses = np.where(keep, losses, 0).astype(arr.dtype)
    total_weight = None
    if reduction == "none":
        res = losses
    elif reduction == "sum":
        res = np.asarray(losses.sum(dtype=np.float64), dtype=arr.dtype)
    else:
        total_weight = w.sum(dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            res = np.asarray(losses.sum(dtype=np.float64) / total_weight, dtype=arr.dtype)
        total_weight = float(total_weight)
    view_back = reduction == "none" and x.ndim > 2 and x.ndim != 4
    if view_back:  # torch runs nll_loss2d on an (N, C, 1, -1) view and views the result back
        res = res.reshape(res.shape[0], -1)
    out = from_array(res, x.dtype, fresh=True)
    out = record(
        out,
        lambda: N.NllLossBackward0(name, x, safe, w, keep, reduction, total_weight),
        x,
    )
    return out.view(tuple(target.shape)) if view_back else out


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; for class probabilities
    (target shaped like input) ``-(log_softmax(input) * target)`` summed over classes."""
    from .activation import log_softmax

    check_tensor(input, "cross_entropy")
    check_tensor(target, "cross_entropy", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    class_dim = 0 if input.ndim == 1 else 1
    if tuple(input.shape) == tuple(target.shape):
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{D.SCALAR_NAME[target.dtype.name]}"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_prob(input, target, weight, reduction, label_smoothing, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        return _cross_entropy_smoothing(
            input, target, weight, reduction, ignore_index, label_smoothing, class_dim
        )
    return _nll_loss_nd(log_softmax(input, class_dim), target, weight, reduction, ignore_index)


def _expand_weight(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(shape)


def _cross_entropy_prob(x, target, weight, reduction, label_smoothing, class_dim) -> Tensor:
    from .activation import log_softmax

    n_classes = x.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
            f"or no classes but got weight tensor of shape: {_shape_str(weight.shape)}"
        )
    logp = log_softmax(x, class_dim)
    if label_smoothing > 0.0:
        if label_smoothing > 1.0:
            raise RuntimeError(
                f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}"
            )
        target = target * (1 - label_smoothing) + (label_smoothing / n_classes)
    prod = logp * target
    if weight is not None:
        prod = prod * _expand_weight(weight, x.ndim, class_dim)
    if reduction == "sum":
        return -prod.sum()
    if reduction == "none":
        return -prod.sum(class_dim)
    if logp.numel() == 0:
        return -prod.sum() * float("nan")
    return div_scalar(-prod.sum(), logp.numel() // n_classes)  # torch: div(Tensor, SymInt)


def _cross_entropy_smoothing(x, target, weight, reduction, ignore_index, ls, class_dim) -> Tensor:
    from .activation import log_softmax

    logp = log_softmax(x, class_dim)
    nll = _nll_loss_nd(logp, target, weight, reduction, ignore_index)
    n_classes = logp.shape[class_dim]
    ignore = target._np() == ignore_index
    if weight is not None:
        smooth = -(logp * _expand_weight(weight, x.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    if ignore.any():  # masked_fill_: the ignored entries get exactly 0 (and no gradient)
        from ..._ops.comparison import where

        smooth = where(
            from_array(ignore, D.bool_, fresh=True),
            from_array(np.zeros((), x.dtype.np), x.dtype, fresh=True),
            smooth,
        )
    if reduction == "mean":
        if weight is not None:
            picked = weight._np()[target._np()[~ignore].ravel()]
            ret = smooth.sum() / float(picked.sum(dtype=np.float64))
        else:
            ret = smooth.sum() / int((~ignore).sum())
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth
    return mul_scalar(nll, 1 - ls) + mul_scalar(ret, ls / n_classes)  # (ATen's Scalar overloads)


# ---------------------------------------------------------------------------- regression losses


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({fmt_size(target.shape)}) that is different to the input size "
            f"({fmt_size(input.shape)}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _broadcast(input: Tensor, target: Tensor):
    shape = L.broadcast_shapes(input.shape, target.shape)
    if tuple(input.shape) != shape:
        input = input.expand(shape)
    if tuple(target.shape) != shape:
        target = target.expand(shape)
    return input, target


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
) -> Tensor:
    """The (mean/summed) squared difference (``MseLossBackward0``)."""
    check_tensor(input, "mse_loss")
    check_tensor(target, "mse_loss", "target", 2)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    x, t = _broadcast(input, target)
    reduction = _reduction(reduction)
    if weight is not None:
        return _weighted(((x - t) ** 2) * weight, reduction)
    if x.dtype is not t.dtype or not x.dtype.is_floating_point:
        dt = D.promote_types(x.dtype, t.dtype)
        if not dt.is_floating_point:
            raise RuntimeError(f"\"mse_cpu\" not implemented for '{D.SCALAR_NAME[dt.name]}'")
        x, t = x.to(dt), t.to(dt)
    a, b = x._np(), t._np()
    sq = np.square(a - b)
    if reduction == "none":
        res = sq
        out = from_array(res, x.dtype, stride=output_strides(np.shape(res), (x, t)))
        return record(out, lambda: N.MseLossBackward0(x, t, reduction), x, t)
    elif reduction == "sum":
        res = _cascade.total(sq)  # torch's summation order
    else:
        res = _cascade.mean_all(sq)
    out = from_array(res, x.dtype, fresh=True)
    return record(out, lambda: N.MseLossBackward0(x, t, reduction), x, t)


def _weighted(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    weight=None,
) -> Tensor:
    """The (mean/summed) absolute difference: ``(input - target).abs()`` then the reduction."""
    check_tensor(input, "l1_loss")
    check_tensor(target, "l1_loss", "target", 2)
    _warn_size(input, target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    x, t = _broadcast(input, target)
    reduction = _reduction(reduction)
    loss = (x - t).abs()
    if weight is not None:
        loss = loss * weight
    return _weighted(loss, reduction)


# ---------------------------------------------------------------------------- binary losses


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
) -> Tensor:
    """``-(t log x + (1 - t) log(1 - x))`` with each log clamped at -100."""
    check_tensor(input, "binary_cross_entropy")
    check_tensor(target, "binary_cross_entropy", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({fmt_size(target.shape)}) that is different to the input "
            f"size ({fmt_size(input.shape)}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        shape = L.broadcast_shapes(target.shape, weight.shape)
        weight = weight.expand(shape)
    _not_differentiable("binary_cross_entropy", weight=weight)
    x, t = input._np(), target._np()
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"binary_cross_entropy\" not implemented for '{D.SCALAR_NAME[input.dtype.name]}'"
        )
    if x.size and ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log(1 - x), -100)
    loss = (t - 1) * log_1mx - t * log_x
    if weight is not None:
        loss = loss * weight._np()
    loss = loss.astype(x.dtype)
    res = _reduce_np(loss, reduction)
    out = from_array(
        res, input.dtype, stride=output_strides(np.shape(res), (input, target) if res.ndim else ())
    )
    return record(
        out,
        lambda: N.BinaryCrossEntropyBackward0(input, target, weight, reduction),
        input,
        target,
        weight,
    )


def _not_differentiable(fname: str, **tensors) -> None:
    from ...autograd.grad_mode import STATE

    for name, t in tensors.items():
        if t is not None and STATE.enabled and t.requires_grad:
            raise RuntimeError(
                f"The function '{fname}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )


def _reduce_np(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _cascade.total(loss)  # torch's summation order
    return _cascade.mean_all(loss)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from the logits;
    ``pos_weight`` weighs the positive term."""
    check_tensor(input, "binary_cross_entropy_with_logits")
    check_tensor(target, "binary_cross_entropy_with_logits", "target", 2)
    reduction = _reduction(reduction, size_average, reduce)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({fmt_size(target.shape)}) must be the same as input size "
            f"({fmt_size(input.shape)})"
        )
    _not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    # ATen: loss = (1 - target).mul_(input).sub_(log_sigmoid(input) [.mul_(log_weight)]) [.mul_(weight)]:
    # in-place steps on (1 - target), so the loss has the target's dtype, each step computed in
    # the promoted dtype and rounded back to it
    x, t = input._np(), target._np()
    xd, td = x.dtype, t.dtype

    def inplace(a, b, op, into):
        common = np.result_type(a.dtype, b.dtype)
        return op(a.astype(common, copy=False), b.astype(common, copy=False)).astype(into)

    log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        pw = pos_weight._np()
        log_weight = inplace(pw - np.asarray(1, pw.dtype), t, np.multiply, np.result_type(pw, t))
        log_weight = log_weight + np.asarray(1, log_weight.dtype)
        log_sig = inplace(log_sig, log_weight, np.multiply, xd)
    loss = inplace(np.asarray(1, td) - t, x, np.multiply, td)
    loss = inplace(loss, log_sig, np.subtract, td)
    if weight is not None:
        loss = inplace(loss, weight._np(), np.multiply, td)
    res = _reduce_np(loss, reduction)
    out = from_array(
        res, target.dtype, stride=output_strides(np.shape(res), (input, target) if res.ndim else ())
    )
    return record(
        out,
        lambda: N.BinaryCrossEntropyWithLogitsBackward0(
            input, target, weight, pos_weight, reduction
        ),
        input,
        target,
        weight,
        pos_weight,
    )
