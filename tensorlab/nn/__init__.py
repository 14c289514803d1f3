"""``tensorlab.nn``: ``Module``, ``Parameter``, ``Conv1d``, ``Conv2d``, ``Sequential`` and ``functional``.

Imports numpy only (never scipy or matplotlib). The numeric kernels live in
:mod:`tensorlab.nn._conv_kernels` and work on plain numpy arrays.
"""

from __future__ import annotations

from . import functional
from .modules import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    Fold,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    Module,
    Sequential,
    Unfold,
)
from .parameter import Parameter

__all__ = [
    "Conv1d",
    "Conv2d",
    "Module",
    "Parameter",
    "Sequential",
    "functional",
    "Fold",
    "Unfold",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
]
