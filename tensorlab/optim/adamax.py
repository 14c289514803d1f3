"""``Adamax`` (``torch/optim/adamax.py``, the single-tensor path): Adam with the infinity norm.

``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 u, |g| + eps)``,
``p -= lr / (1 - beta1^t) * m / u``.
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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
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
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        state, param, dt, grad, step = begin(self, p, group, exp_avg=ZEROS, exp_inf=ZEROS)
        beta1, beta2 = group["betas"]
        grad = with_weight_decay(grad, param, group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"]._np(), state["exp_inf"]._np()
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_inf *= dt(beta2)
        np.maximum(exp_inf, np.abs(grad) + dt(group["eps"]), out=exp_inf)
        clr = group["lr"] / (1 - beta1**step)
        param += dt(-clr) * exp_avg / exp_inf
        bump(state["exp_avg"], state["exp_inf"], p)
