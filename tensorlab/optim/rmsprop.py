"""``RMSprop`` (``torch/optim/rmsprop.py``, the single-tensor path torch takes on the CPU).

``v = alpha v + (1 - alpha) g^2``; centered: ``avg = sqrt(v - m^2)`` with ``m`` the running
mean of ``g``, else ``sqrt(v)``; then ``avg + eps``; with momentum ``b = momentum b + g / avg``,
``p -= lr b``, else ``p -= lr g / avg``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import (
    ZEROS,
    begin,
    bump,
    check_lr,
    check_nonneg,
    with_weight_decay,
)
from .adam import _lerp_
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        check_nonneg(eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        state, param, dt, grad, _ = begin(
            self,
            p,
            group,
            square_avg=ZEROS,
            momentum_buffer=ZEROS if group["momentum"] > 0 else None,
            grad_avg=ZEROS if group["centered"] else None,
        )
        grad = with_weight_decay(grad, param, group["weight_decay"])
        alpha, eps, lr = group["alpha"], group["eps"], group["lr"]
        square_avg = state["square_avg"]._np()
        square_avg *= dt(alpha)
        square_avg += dt(1 - alpha) * grad * grad
        if group["centered"]:
            grad_avg = state["grad_avg"]._np()
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = np.sqrt(square_avg + dt(-1) * grad_avg * grad_avg)
            bump(state["grad_avg"])
        else:
            avg = np.sqrt(square_avg)
        avg += dt(eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]._np()
            buf *= dt(group["momentum"])
            buf += grad / avg
            param += buf * dt(-lr)
            bump(state["momentum_buffer"])
        else:
            param += dt(-lr) * grad / avg
        bump(state["square_avg"], p)
