"""``NAdam`` (``torch/optim/nadam.py``, the single-tensor path): Adam with Nesterov momentum.

``mu_t = beta1 (1 - 0.5 * 0.96^(t psi))`` (``psi = momentum_decay``), ``mu_product *= mu_t``;
``p -= lr (1 - mu_t) / (1 - prod mu) * g / d + lr mu_{t+1} / (1 - prod mu mu_{t+1}) * m / d``
with ``d = sqrt(v / (1 - beta2^t)) + eps``.
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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
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
        check_nonneg(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        state, param, dt, grad, step = begin(
            self, p, group, mu_product=1.0, exp_avg=ZEROS, exp_avg_sq=ZEROS
        )
        beta1, beta2 = group["betas"]
        lr, wd, psi = group["lr"], group["weight_decay"], group["momentum_decay"]
        bias_correction2 = 1 - beta2**step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param *= dt(1 - lr * wd)
            else:
                grad = with_weight_decay(grad, param, wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
        mu_product = state["mu_product"]._np()
        mu_product *= np.float32(mu)  # a float32 0-d tensor, as torch keeps it
        exp_avg, exp_avg_sq = state["exp_avg"]._np(), state["exp_avg_sq"]._np()
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq *= dt(beta2)
        exp_avg_sq += dt(1 - beta2) * grad * grad
        denom = np.sqrt(exp_avg_sq / dt(bias_correction2))
        product = float(mu_product)
        mu_product_next = product * mu_next
        denom += dt(group["eps"])
        param += dt(-lr * (1.0 - mu) / (1.0 - product)) * grad / denom
        param += dt((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg / denom
        bump(state["mu_product"], state["exp_avg"], state["exp_avg_sq"], p)
