"""``SGD`` (with momentum, dampening, weight decay, Nesterov, maximize), following
``torch.optim.SGD`` step for step (``torch/optim/sgd.py``).

The update of a float32/float64 parameter whose momentum buffer exists runs on the numpy arrays
directly (:func:`_fast_update`): the same kernels, in the same order, as the tensor ops
``buf.mul_(m).add_(grad, alpha=1 - dampening)`` and ``p.add_(grad, alpha=-lr)`` (a fused
multiply-add for ``alpha != 1``), with the same version-counter bumps, without the dispatch of
three tensor ops per parameter. Anything else (the first step, other dtypes, overlapping
memory, a tensor ``lr``) takes the tensor ops."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent: ``p -= lr * grad`` for every parameter.

    With ``momentum`` m, a running buffer ``b = m * b + (1 - dampening) * grad`` replaces the
    gradient (``grad + m * b`` with ``nesterov``); ``weight_decay`` adds ``weight_decay * p`` to
    the gradient first; ``maximize`` climbs instead of descending.
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        if _fast_update(self, p, group):
            return
        grad = p.grad if not group["maximize"] else -p.grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state.setdefault(p, {})
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])


_FAST_DTYPES = (D.float32, D.float64)


def _scalars(lr, momentum, dampening, wd, dt: D.dtype):
    """The group's numbers as the tensor ops convert them for ``dt`` (None when a conversion
    would raise: the tensor ops then say why)."""
    from .._ops._elementwise import checked_scalar, scalar_array

    try:
        checked_scalar(momentum, dt)  # (Nesterov's grad.add(buf, alpha=momentum) checks it)
        return (
            checked_scalar(-lr, dt)[()],
            scalar_array(momentum, dt)[()],
            checked_scalar(1 - dampening, dt)[()],
            checked_scalar(wd, dt)[()],
        )
    except (RuntimeError, OverflowError):
        return None


def _axpy(x: np.ndarray, y: np.ndarray, alpha, alpha_dt, *, out: np.ndarray | None = None):
    """``x + alpha * y`` as ``Tensor.add(y, alpha=alpha)`` computes it (``_k_add``: one fused
    multiply-add; for float32 the float64 product is exact and ``+ x`` rounds once, as
    ``_elementwise._fma32``, with one float64 temporary instead of four)."""
    from .._ops._elementwise import _fma64

    if alpha == 1:
        return np.add(x, y, out=out) if out is not None else x + y
    if x.dtype == np.float32:
        r = y.astype(np.float64)
        r *= np.float64(alpha_dt)
        r += x
    else:
        r = _fma64(y, np.asarray(alpha_dt), x)
    if out is not None:
        np.copyto(out, r, casting="same_kind")
        return out
    return r.astype(x.dtype, copy=False)


def _fast_update(opt: SGD, p: Tensor, group: dict[str, Any]) -> bool:
    """``SGD._update`` on numpy arrays, when it can be done exactly so; False if not done."""
    g = p.grad
    dt = p._dtype
    if dt not in _FAST_DTYPES or g._dtype is not dt or g._shape != p._shape:
        return False
    momentum = group["momentum"]
    buf_t = None
    if momentum != 0:
        buf_t = opt.state.get(p, {}).get("momentum_buffer")
        if buf_t is None or buf_t._dtype is not dt or buf_t._shape != p._shape:
            return False
    lr, dampening, wd = group["lr"], group["dampening"], group["weight_decay"]
    if not all(type(v) in (int, float) for v in (lr, momentum, dampening, wd)):
        return False
    key = (dt, lr, momentum, dampening, wd)
    cache = opt.__dict__.setdefault("_fast_scalars", {})
    if key not in cache:
        if len(cache) > 64:  # (a scheduler changes lr every epoch)
            cache.clear()
        cache[key] = _scalars(lr, momentum, dampening, wd, dt)
    scalars = cache[key]
    if scalars is None:
        return False
    neg_lr_dt, m_dt, damp_dt, wd_dt = scalars
    m, neg_lr, damp = momentum, -lr, 1 - dampening
    written = (p, buf_t) if buf_t is not None else (p,)
    if not all(L.is_non_overlapping_and_dense(t._shape, t._stride) for t in written):
        return False
    param, grad = p._np(), g._np()
    buf = buf_t._np() if buf_t is not None else None
    arrays = (param, grad, buf) if buf is not None else (param, grad)
    for i in range(len(arrays)):
        for j in range(i):
            if np.may_share_memory(arrays[i], arrays[j]):
                return False
    with np.errstate(all="ignore"):
        if group["maximize"]:
            grad = -grad
        if wd != 0:
            grad = _axpy(grad, param, wd, wd_dt)
        if buf is not None:
            check_inplace(buf_t)
            np.multiply(buf, m_dt, out=buf)
            check_inplace(buf_t)
            _axpy(buf, grad, damp, damp_dt, out=buf)
            grad = _axpy(grad, buf, m, m_dt) if group["nesterov"] else buf
        check_inplace(p)
        _axpy(param, grad, neg_lr, neg_lr_dt, out=param)
    return True
