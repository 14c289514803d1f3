"""``tensorlab.autograd``: a small reverse-mode autograd with PyTorch's behaviour.

- :mod:`.grad_mode`: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``;
- :mod:`.graph`: nodes, saved tensors, recording, the backward engine;
- :mod:`.formulas`: the derivative of each op (``AddBackward0``, ``MulBackward0``...);
- :mod:`.views`: views and in-place ops in the graph (``CopySlices``, the leaf-view rule);
- :mod:`.conv`: the derivatives of ``conv1d``/``conv2d`` and ``pad``;
- :mod:`.api`: ``backward`` and ``grad``;
- :mod:`.function`: custom ops (``Function``, ``once_differentiable``);
- :mod:`.double_backward`: the formulas used by ``create_graph=True``;
- :mod:`.gradcheck`: ``gradcheck``, ``gradgradcheck`` (finite differences against autograd);
- :mod:`.functional`: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``hvp``, ``vhp``.

The tensor side (``requires_grad``, ``grad``, ``grad_fn``, ``is_leaf``, ``backward()``,
``detach()``...) lives in ``tensorlab._tensor``.
"""

from __future__ import annotations

from . import function, functional
from .api import backward, grad
from .function import Function, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .graph import Node

_anomaly = False


def set_detect_anomaly(mode: bool, check_nan: bool = True) -> None:
    """Accepted for compatibility; tensorlab records no forward tracebacks."""
    global _anomaly
    _anomaly = bool(mode)


def is_anomaly_enabled() -> bool:
    return _anomaly


__all__ = [
    "Function",
    "function",
    "functional",
    "once_differentiable",
    "Node",
    "backward",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "is_anomaly_enabled",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "set_detect_anomaly",
    "set_grad_enabled",
    "Variable",
    "profiler",
]


def __getattr__(name: str):
    """``profiler`` and ``Variable`` load on first use (``_tensor`` imports this package)."""
    import importlib

    if name in ("profiler", "profiler_util", "variable"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "Variable":
        return importlib.import_module(f"{__name__}.variable").Variable
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
