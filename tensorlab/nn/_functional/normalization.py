"""``batch_norm`` (ATen's Normalization.cpp): normalise each channel by the batch's statistics
(training, updating the running ones in place) or by the running statistics (eval)."""

from __future__ import annotations

import numpy as np

from ..._tensor import Tensor, from_array
from ...autograd import nn_ops as N
from ._util import check_tensor, fmt_size, record, suggest_memory_format


def _verify_batch_size(size) -> None:
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {fmt_size(size)}"
        )


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float | None = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (dim 1)
    (``NativeBatchNormBackward0``). In training the batch's biased variance normalises and the
    running statistics move by ``momentum`` towards the batch's mean and unbiased variance."""
    check_tensor(input, "batch_norm")
    if training:
        _verify_batch_size(input.shape)
    if input.ndim < 2:
        raise RuntimeError(
            f"batch_norm(): Expected input to have at least 2 dimensions, but got {input.ndim}"
        )
    c = input.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.same_shape(
            input, "NativeBatchNormBackward0", input, running_mean, running_var, weight, bias
        )
    x = input._np()
    ct = np.float64
    shape = (1, c) + (1,) * (x.ndim - 2)
    axes = (0,) + tuple(range(2, x.ndim))
    if training:
        xd = x.astype(ct)
        mean = xd.mean(axis=axes)
        var = ((xd - mean.reshape(shape)) ** 2).mean(axis=axes)
        n = x.size // c if c else 0
        if running_mean is not None and momentum is not None:
            _update(running_mean, mean, momentum)
        if running_var is not None and momentum is not None:
            _update(running_var, var * n / max(n - 1, 1), momentum)
        invstd = 1 / np.sqrt(var + eps)
    else:
        mean = running_mean._np().astype(ct)
        invstd = 1 / np.sqrt(running_var._np().astype(ct) + eps)
    dt = x.dtype if x.dtype != np.float16 else np.float32
    w = weight._np().astype(dt) if weight is not None else np.ones(c, dtype=dt)
    b = bias._np().astype(dt) if bias is not None else np.zeros(c, dtype=dt)
    alpha = (invstd.astype(dt) * w).astype(dt)
    beta = (b - mean.astype(dt) * alpha).astype(dt)
    res = x.astype(dt, copy=False) * alpha.reshape(shape) + beta.reshape(shape)
    out = from_array(
        res,
        input.dtype,
        memory_format=suggest_memory_format(input) if input.ndim == 4 else None,
        fresh=True,
    )
    xhat = None

    def node():
        nonlocal xhat
        xhat = (x.astype(dt) - mean.astype(dt).reshape(shape)) * invstd.astype(dt).reshape(shape)
        return N.NativeBatchNormBackward0(
            input, weight, bias, xhat, invstd.astype(dt).reshape(shape), training
        )

    return record(out, node, input, weight, bias)


def _update(running: Tensor, value: np.ndarray, momentum: float) -> None:
    """``running = (1 - momentum) * running + momentum * value``, in place (no autograd)."""
    r = running._np()
    r[...] = (r * (1 - momentum) + value.astype(r.dtype) * momentum).astype(r.dtype)
    running._vc[0] += 1


def _shape_list(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def layer_norm(
    input: Tensor,
    normalized_shape,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last ``len(normalized_shape)``
    dims of each sample (``NativeLayerNormBackward0``); the same in training and eval."""
    check_tensor(input, "layer_norm")
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    ns = tuple(int(s) for s in normalized_shape)
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {_shape_list(t.shape)} and normalized_shape = {_shape_list(ns)}"
            )
    k = len(ns)
    if input.ndim < k or tuple(input.shape[input.ndim - k :]) != ns:
        raise RuntimeError(
            f"Given normalized_shape={_shape_list(ns)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in ns)}], but got input of size"
            f"{_shape_list(input.shape)}"
        )
    if input.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.same_shape(input, "NativeLayerNormBackward0", input, weight, bias)
    x = input._np()
    axes = tuple(range(x.ndim - k, x.ndim))
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axes, keepdims=True)
    var = ((xd - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    dt = x.dtype if x.dtype != np.float16 else np.float32
    xhat = ((xd - mean) * rstd).astype(dt)
    res = xhat
    if weight is not None:
        res = res * weight._np().astype(dt)
    if bias is not None:
        res = res + bias._np().astype(dt)
    out = from_array(np.asarray(res, dtype=dt), input.dtype, fresh=True)
    return record(
        out,
        lambda: N.NativeLayerNormBackward0(input, weight, bias, xhat, rstd.astype(dt), axes),
        input,
        weight,
        bias,
    )
