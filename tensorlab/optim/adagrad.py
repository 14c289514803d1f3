"""``Adagrad`` (``torch/optim/adagrad.py``, the single-tensor path).

``s += g^2`` (``s`` starts at ``initial_accumulator_value``, made when the optimizer is built);
``p -= clr g / (sqrt(s) + eps)`` with ``clr = lr / (1 + (step - 1) lr_decay)``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import (
    bump,
    check_lr,
    check_nonneg,
    count_step,
    grad_of,
    scalar_state,
    with_weight_decay,
)
from .optimizer import Optimizer

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_lr(lr)
        check_nonneg(lr_decay=lr_decay, weight_decay=weight_decay)
        check_nonneg(initial_accumulator_value=initial_accumulator_value, eps=eps)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        from .._ops.creation import full_like

        for group in self.param_groups:  # torch makes Adagrad's state up front
            for p in group["params"]:
                state = self.state[p]
                state["step"] = scalar_state()
                state["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update(self, p: Tensor, group) -> None:
        state = self.state[p]
        param = p._np()
        dt = param.dtype.type
        step = count_step(state["step"])
        grad = with_weight_decay(grad_of(p, group), param, group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        total = state["sum"]._np()
        total += dt(1) * grad * grad
        std = np.sqrt(total) + dt(group["eps"])
        param += dt(-clr) * grad / std
        bump(state["sum"], p)
