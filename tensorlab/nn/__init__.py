"""``tensorlab.nn``: ``Module``, ``Parameter``, ``Conv1d``, ``Conv2d``, ``Sequential`` and ``functional``.

Imports numpy only (never scipy or matplotlib). The numeric kernels live in
:mod:`tensorlab.nn._conv_kernels` and work on plain numpy arrays.
"""

from __future__ import annotations

from . import functional
from .modules import Conv1d, Conv2d, Module, Sequential
from .parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Module", "Parameter", "Sequential", "functional"]

# layers, losses and init (issue 12)
from . import init  # noqa: E402
from .modules import *  # noqa: E402, F403
from .modules import __all__ as _modules_all  # noqa: E402
from .parameter import UninitializedParameter  # noqa: E402

__all__ += [n for n in _modules_all if n not in __all__] + ["UninitializedParameter", "init"]
del _modules_all
