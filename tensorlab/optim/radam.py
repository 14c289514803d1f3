"""``RAdam`` (``torch/optim/radam.py``, the single-tensor path): Adam whose adaptive step is
switched on only once the variance of its estimate is bounded (``rho_t > 5``).

``rho_inf = 2 / (1 - beta2) - 1``, ``rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)``; the update
is ``lr * m_hat * r_t * sqrt(1 - beta2^t) / (sqrt(v) + eps)`` with the rectification ``r_t``, or
``lr * m_hat`` while ``rho_t <= 5``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import (
    ZEROS,
    begin,
    bump,
    check_betas,
    check_lr,
    check_nonneg,
    with_weight_decay,
)
from .adam import _lerp_
from .optimizer import Optimizer

__all__ = ["RAdam"]


class RAdam(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        check_nonneg(weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        state, param, dt, grad, step = begin(self, p, group, exp_avg=ZEROS, exp_avg_sq=ZEROS)
        beta1, beta2 = group["betas"]
        lr, wd = group["lr"], group["weight_decay"]
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param *= dt(1 - lr * wd)
            else:
                grad = with_weight_decay(grad, param, wd)
        exp_avg, exp_avg_sq = state["exp_avg"]._np(), state["exp_avg_sq"]._np()
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= dt(beta2)
        exp_avg_sq += dt(1 - beta2) * grad * grad
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / dt(bias_correction1)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive = dt(bias_correction2**0.5) / (np.sqrt(exp_avg_sq) + dt(group["eps"]))
            param -= corrected * dt(lr) * adaptive * dt(rect)
        else:
            param -= corrected * dt(lr)
        bump(state["exp_avg"], state["exp_avg_sq"], p)
