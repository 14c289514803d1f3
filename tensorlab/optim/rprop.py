"""``Rprop`` (``torch/optim/rprop.py``, the single-tensor path): resilient backpropagation.

Each weight has its own step size: it grows by ``etas[1]`` while the gradient keeps its sign,
shrinks by ``etas[0]`` when the sign flips (and that step is skipped), clamped to
``step_sizes``; ``p -= sign(g) * step_size``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import ZEROS, begin, bump, check_lr
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        from .._ops.creation import full_like

        state, param, dt, grad, _ = begin(
            self, p, group, prev=ZEROS, step_size=lambda: full_like(p.grad, group["lr"])
        )
        etaminus, etaplus = (dt(e) for e in group["etas"])
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"]._np(), state["step_size"]._np()
        sign = np.sign(grad * prev)
        sign[sign > 0] = etaplus
        sign[sign < 0] = etaminus
        sign[sign == 0] = 1
        step_size *= sign
        np.clip(step_size, dt(step_size_min), dt(step_size_max), out=step_size)
        grad = grad.copy()
        grad[sign == etaminus] = 0
        param += dt(-1) * np.sign(grad) * step_size
        prev[...] = grad
        bump(state["prev"], state["step_size"], p)
