"""``tensorlab.nn``: ``Module``, ``Parameter``, ``Conv1d``, ``Conv2d``, ``Sequential`` and ``functional``.

Imports numpy only (never scipy or matplotlib). The numeric kernels live in
:mod:`tensorlab.nn._conv_kernels` and work on plain numpy arrays.
"""

from __future__ import annotations

from . import functional
from .modules import Conv1d, Conv2d, Module, Sequential
from .modules.conv import Conv3d as Conv3d
from .modules.conv import ConvTranspose1d as ConvTranspose1d
from .modules.conv import ConvTranspose2d as ConvTranspose2d
from .modules.conv import ConvTranspose3d as ConvTranspose3d
from .modules.conv import LazyConv1d as LazyConv1d
from .modules.conv import LazyConv2d as LazyConv2d
from .modules.conv import LazyConv3d as LazyConv3d
from .modules.conv import LazyConvTranspose1d as LazyConvTranspose1d
from .modules.conv import LazyConvTranspose2d as LazyConvTranspose2d
from .modules.conv import LazyConvTranspose3d as LazyConvTranspose3d
from .modules.fold import Fold as Fold
from .modules.fold import Unfold as Unfold
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Module", "Parameter", "Sequential", "functional"]

# layers, losses and init (issue 12)
from . import init, utils  # noqa: E402
from .modules import *  # noqa: E402, F403
from .modules import __all__ as _modules_all  # noqa: E402
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402

__all__ += [n for n in _modules_all if n not in __all__] + [
    "UninitializedBuffer",
    "UninitializedParameter",
    "init",
    "utils",
]
del _modules_all
__all__ += ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold"]
__all__ += ["LazyConv1d", "LazyConv2d", "LazyConv3d"]
__all__ += ["LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
