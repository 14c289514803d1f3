"""``Muon`` (``torch/optim/_muon.py``): momentum, then the update orthogonalised by a few
Newton-Schulz iterations, for 2-D parameters.

Torch runs the iteration in bfloat16. tensorlab has no bfloat16 dtype, so the arrays are float32
rounded to bfloat16 (round to nearest even) after every operation torch does in bfloat16, with
products accumulated in float32 first, as torch's bfloat16 matrix products accumulate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .._tensor import Tensor
from ._single import bump
from .adam import _lerp_
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(x) -> np.ndarray:
    """float32 values rounded to bfloat16 (the top 16 bits, to nearest, ties to even)."""
    u = np.asarray(x, np.float32).view(np.uint32)
    rounded = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    return np.where(
        np.isnan(np.asarray(x, np.float32)), np.float32(np.nan), rounded.view(np.float32)
    )


def _zeropower_via_newtonschulz(grad: np.ndarray, coefficients, steps: int, eps: float):
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in coefficients)
    x = _bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x.astype(np.float32) ** 2, dtype=np.float32)))
    x = _bf16(x / max(norm, _bf16(np.float32(eps))))
    for _ in range(steps):
        gram = _bf16(x @ x.T)
        gram_update = _bf16(b * gram + c * (gram @ gram))
        x = _bf16(a * x + gram_update @ x)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def _update(self, p: Tensor, group) -> None:
        state = self.state[p]
        if "momentum_buffer" not in state:
            from .._ops.creation import zeros_like

            state["momentum_buffer"] = zeros_like(p.grad)
        param = p._np()
        dt = param.dtype.type
        grad = p.grad._np().astype(param.dtype, copy=False)
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf = state["momentum_buffer"]._np()
        momentum = group["momentum"]
        _lerp_(buf, grad, 1 - momentum)
        if group["nesterov"]:
            update = grad.copy()
            _lerp_(update, buf, momentum)
        else:
            update = buf
        update = _zeropower_via_newtonschulz(
            update, group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        lr = group["lr"]
        adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
        param *= dt(1 - lr * group["weight_decay"])
        param += update.astype(param.dtype) * dt(-adjusted_lr)
        bump(state["momentum_buffer"], p)
