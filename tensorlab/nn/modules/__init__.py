"""``tensorlab.nn.modules``: layers, laid out as ``torch/nn/modules/``."""

from .container import Sequential
from .conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
)
from .fold import Fold, Unfold
from .module import Module

__all__ = [
    "Conv1d",
    "Conv2d",
    "Fold",
    "Module",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "Sequential",
    "Unfold",
]
