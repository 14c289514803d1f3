"""``ASGD`` (``torch/optim/asgd.py``, the single-tensor path): averaged SGD.

``p *= 1 - lambd eta``, ``p -= eta g``; the average ``ax`` follows ``p`` (``ax += mu (p - ax)``, a
copy while ``mu == 1``); then ``eta = lr / (1 + lambd lr t)^alpha`` and ``mu = 1 / max(1, t - t0)``.
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
from .optimizer import Optimizer

__all__ = ["ASGD"]


class ASGD(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_lr(lr)
        check_nonneg(weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        state, param, dt, grad, step = begin(self, p, group, eta=group["lr"], mu=1.0, ax=ZEROS)
        lr, lambd = group["lr"], group["lambd"]
        grad = with_weight_decay(grad, param, group["weight_decay"])
        eta = float(state["eta"].item())
        param *= dt(1 - lambd * eta)
        param += grad * dt(-eta)
        ax, mu = state["ax"]._np(), state["mu"]._np()
        if float(mu) != 1:
            ax += (param - ax) * mu.astype(param.dtype)
        else:
            ax[...] = param
        state["eta"]._np()[...] = np.float32(lr / ((1 + lambd * lr * step) ** group["alpha"]))
        mu[...] = np.float32(1 / max(1, step - group["t0"]))
        bump(state["ax"], state["eta"], state["mu"], p)
