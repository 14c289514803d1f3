"""``tensorlab.nn.modules``: layers, laid out as ``torch/nn/modules/``."""

from .container import Sequential
from .conv import Conv1d, Conv2d
from .conv import Conv3d as Conv3d
from .conv import ConvTranspose1d as ConvTranspose1d
from .conv import ConvTranspose2d as ConvTranspose2d
from .conv import ConvTranspose3d as ConvTranspose3d
from .conv import LazyConv1d as LazyConv1d
from .conv import LazyConv2d as LazyConv2d
from .conv import LazyConv3d as LazyConv3d
from .conv import LazyConvTranspose1d as LazyConvTranspose1d
from .conv import LazyConvTranspose2d as LazyConvTranspose2d
from .conv import LazyConvTranspose3d as LazyConvTranspose3d
from .fold import Fold as Fold
from .fold import Unfold as Unfold
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Module", "Sequential"]
__all__ += ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold"]
__all__ += ["LazyConv1d", "LazyConv2d", "LazyConv3d"]
__all__ += ["LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
