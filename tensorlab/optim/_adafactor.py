"""``Adafactor`` (``torch/optim/_adafactor.py``, the single-tensor path).

The second moment of a matrix gradient is kept factored: a row and a column mean of ``g^2``
(``R`` and ``C``), whose product ``R C / mean(R)`` estimates it; a vector keeps it whole.
``beta2_t = 1 - t^beta2_decay``, the relative step ``rho_t = min(lr, 1 / sqrt(t))`` scaled by
``max(eps2, rms(p))``, and the update clipped to an RMS of at most ``d``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import bump, count_step, grad_of, scalar_state
from .adam import _lerp_
from .optimizer import Optimizer

__all__ = ["Adafactor"]


def _norm(a: np.ndarray, axis=None, keepdims=False) -> np.ndarray:
    return np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdims, dtype=a.dtype))


class Adafactor(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        from .._ops.creation import zeros, zeros_like

        state = self.state[p]
        if len(state) == 0:
            state["step"] = scalar_state()
            if p.grad.dim() > 1:
                row_shape, col_shape = list(p.grad.shape), list(p.grad.shape)
                row_shape[-1] = 1
                col_shape[-2] = 1
                state["row_var"] = zeros(row_shape, dtype=p.grad.dtype)
                state["col_var"] = zeros(col_shape, dtype=p.grad.dtype)
            else:
                state["variance"] = zeros_like(p.grad)
        param = p._np()
        dt = param.dtype.type
        lr, d, wd = group["lr"], group["d"], group["weight_decay"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(np.finfo(param.dtype).eps)
        grad = grad_of(p, group)
        step = count_step(state["step"])
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / (step**0.5))
        alpha = max(eps2, float(_norm(param)) / (param.size**0.5)) * rho_t
        if wd != 0:
            param *= dt(1 - lr * wd)
        if grad.ndim > 1:
            row_var, col_var = state["row_var"]._np(), state["col_var"]._np()
            row_mean = _norm(grad, axis=-1, keepdims=True) ** 2 / dt(grad.shape[-1])
            _lerp_(row_var, row_mean, one_minus_beta2_t)
            col_mean = _norm(grad, axis=-2, keepdims=True) ** 2 / dt(grad.shape[-2])
            _lerp_(col_var, col_mean, one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate /= np.maximum(row_var.mean(axis=-2, keepdims=True), dt(eps1))
            bump(state["row_var"], state["col_var"])
        else:
            variance = state["variance"]._np()
            _lerp_(variance, grad * grad, one_minus_beta2_t)
            var_estimate = variance.copy()
            bump(state["variance"])
        update = dt(1) / np.sqrt(np.maximum(var_estimate, dt(eps1 * eps1)))
        update *= grad
        denom = max(1.0, float(_norm(update)) / ((update.size**0.5) * d))
        param += update * dt(-alpha / denom)
        bump(p)
