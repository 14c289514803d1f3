"""``SGD`` (with momentum, dampening, weight decay, Nesterov, maximize), following
``torch.optim.SGD`` step for step (``torch/optim/sgd.py``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._tensor import Tensor
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
