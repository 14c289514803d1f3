"""``Adadelta`` (``torch/optim/adadelta.py``, the single-tensor path torch takes on the CPU),
the optimizer of PyTorch's own MNIST example.

Per parameter: ``v = rho v + (1 - rho) g^2``, ``delta = sqrt(u + eps) / sqrt(v + eps) * g``,
``u = rho u + (1 - rho) delta^2``, ``p -= lr * delta``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        from .._ops.creation import tensor, zeros_like

        state = self.state[p]
        if len(state) == 0:
            state["step"] = tensor(0.0, dtype=D.float32)
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        rho, eps, lr, wd = group["rho"], group["eps"], group["lr"], group["weight_decay"]
        param = p._np()
        dt = param.dtype.type
        grad = p.grad._np().astype(param.dtype, copy=False)
        if group["maximize"]:
            grad = -grad
        state["step"]._np()[...] += 1
        if wd != 0:
            grad = grad + param * dt(wd)
        square_avg = state["square_avg"]._np()
        acc_delta = state["acc_delta"]._np()
        square_avg *= dt(rho)
        square_avg += dt(1 - rho) * grad * grad
        std = np.sqrt(square_avg + dt(eps))
        delta = np.sqrt(acc_delta + dt(eps))
        delta /= std
        delta *= grad
        acc_delta *= dt(rho)
        acc_delta += dt(1 - rho) * delta * delta
        param += dt(-lr) * delta
        for t in (state["step"], state["square_avg"], state["acc_delta"], p):
            t._vc[0] += 1
