"""``Adam`` (``torch/optim/adam.py``, the single-tensor path torch takes on the CPU).

Per parameter: ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 v + (1 - beta2) g^2``, then
``p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)`` (``amsgrad`` uses the
running maximum of ``v``). ``weight_decay`` adds ``wd * p`` to the gradient, or, decoupled
(``AdamW``), shrinks ``p`` by ``lr * wd`` first. The arithmetic is done in the parameter's dtype
with the scalars rounded to it, as torch's kernels do.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam"]


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _init_state(self, p: Tensor, group) -> dict:
        from .._ops.creation import tensor, zeros_like

        state = self.state[p]
        if len(state) == 0:
            state["step"] = tensor(0.0, dtype=D.float32)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _update(self, p: Tensor, group) -> None:
        state = self._init_state(p, group)
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        param = p._np()
        dt = param.dtype.type
        grad = p.grad._np().astype(param.dtype, copy=False)
        if group["maximize"]:
            grad = -grad
        step_t = state["step"]
        step_t._np()[...] += 1
        step_t._vc[0] += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param *= dt(1 - lr * wd)
            else:
                grad = grad + param * dt(wd)
        exp_avg = state["exp_avg"]._np()
        exp_avg_sq = state["exp_avg_sq"]._np()
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= dt(beta2)
        exp_avg_sq += dt(1 - beta2) * grad * grad
        step = float(step_t.item())
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]._np()
            np.maximum(mx, exp_avg_sq, out=mx)
            denom = np.sqrt(mx) / dt(bias_correction2_sqrt) + dt(eps)
        else:
            denom = np.sqrt(exp_avg_sq) / dt(bias_correction2_sqrt) + dt(eps)
        param += dt(-step_size) * (exp_avg / denom)
        for t in (state["exp_avg"], state["exp_avg_sq"], p):
            t._vc[0] += 1


def _lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """ATen's ``lerp``: ``start + w (end - start)`` for ``w < 0.5``, else
    ``end - (end - start)(1 - w)`` (exact at both ends)."""
    dt = start.dtype.type
    if abs(weight) < 0.5:
        start += dt(weight) * (end - start)
    else:
        start[...] = end - (end - start) * dt(1 - weight)
