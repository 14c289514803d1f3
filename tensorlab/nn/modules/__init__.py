"""``tensorlab.nn.modules``: layers, laid out as ``torch/nn/modules/``."""

from .container import Sequential
from .conv import Conv1d, Conv2d
from .fold import Fold, Unfold
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Fold", "Module", "Sequential", "Unfold"]
