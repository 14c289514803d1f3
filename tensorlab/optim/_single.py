"""Small pieces every optimizer's single-tensor step shares (``torch/optim/optimizer.py``'s
helpers): the step counter, the gradient as the update sees it, and version bumps."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor


def scalar_state(value: float = 0.0) -> Tensor:
    """A 0-d float32 state tensor (``step``, ``mu``, ``eta``), as ``_get_scalar_dtype()`` makes."""
    from .._ops.creation import tensor

    return tensor(float(value), dtype=D.float32)


def count_step(step_t: Tensor) -> float:
    """``step_t += 1``; returns the new step as a Python float (``_get_value``)."""
    step_t._np()[...] += 1
    step_t._vc[0] += 1
    return float(step_t.item())


def grad_of(p: Tensor, group, *, sparse_name: str | None = None) -> np.ndarray:
    """The gradient in the parameter's dtype, negated for ``maximize``."""
    grad = p.grad._np().astype(p._np().dtype, copy=False)
    return -grad if group.get("maximize") else grad


ZEROS = object()  # in ``begin``: a state tensor of zeros like the parameter


def begin(optimizer, p: Tensor, group, **fresh):
    """One parameter's step begins: ``(state, param, dt, grad, step)``.

    The state is made on the first step: ``step``, then ``fresh`` in order (``ZEROS`` for zeros
    like ``p``, a callable for what it returns, a number for a 0-d float32 tensor, ``None`` for
    nothing), as torch's ``_init_group`` makes it. Then the parameter's array, its scalar type,
    the gradient (negated for ``maximize``) and the step count after ``step += 1``."""
    state = optimizer.state[p]
    if not state:
        from .._ops.creation import zeros_like

        state["step"] = scalar_state()
        for name, how in fresh.items():
            if how is ZEROS:
                state[name] = zeros_like(p)
            elif callable(how):
                state[name] = how()
            elif how is not None:
                state[name] = scalar_state(how)
    param = p._np()
    grad = grad_of(p, group)
    return state, param, param.dtype.type, grad, count_step(state["step"])


def with_weight_decay(grad: np.ndarray, param: np.ndarray, wd: float) -> np.ndarray:
    """``grad.add(param, alpha=weight_decay)``."""
    return grad + param * param.dtype.type(wd) if wd != 0 else grad


def bump(*tensors: Tensor) -> None:
    """The version counters of tensors the step changed in place."""
    for t in tensors:
        t._vc[0] += 1


def check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_nonneg(**values) -> None:
    """torch's ``Invalid <name> value: <v>`` checks, in the order given."""
    for name, value in values.items():
        if not 0.0 <= value:
            label = {"eps": "epsilon"}.get(name, name)
            raise ValueError(f"Invalid {label} value: {value}")


def check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
