"""Figures of what the engine knows: convolution windows, channel groups, axes, storage.

Each figure is a pure function of data and settings returning a ``matplotlib.figure.Figure``
(made without pyplot: no global state, nothing shown until you display it), so it works in
notebooks, PDFs and slides alike::

    from tensorlab import viz
    viz.conv_figure(viz.image_preset("step (lecture)"), viz.kernel_preset("edge [-1, 0, 1] (lecture)"),
                    padding=1, padding_mode="reflect", position=(2, 3))
    viz.groups_figure(16, 64, groups=4)
    viz.axes_figure((16, 16), "unsqueeze", 0)
    viz.memory_figure(chain="x.T\\n.view(-1)", shape=(2, 5))

Behind each figure is a *model* function (``conv_model``, ``groups_model``, ``axes_model``,
``memory_model``) that computes everything drawn, with tensorlab, and needs no matplotlib; and a
*scene* class that builds the artists once and updates them, which the widgets reuse.

Every figure has a transparent ground and draws text and lines in colours that read on a light
and a dark page alike, so it follows the notebook's theme (:mod:`tensorlab.viz._theme`). Plain
``pyplot`` figures do the same in the course's lessons folder (its ``matplotlibrc``), or anywhere
after ``plt.style.use("tensorlab.viz.theme")``.
"""

from ._arith_model import ArithModel, arith_model, conv_transpose_output_size
from ._axes_model import AxesModel, axes_model, nest_layout, parse_shape
from ._conv_model import (
    IMAGE_PRESETS,
    KERNEL_PRESETS,
    PADDING_MODES,
    ConvModel,
    conv_model,
    image_preset,
    kernel_preset,
    output_size,
    parse_kernel,
)
from ._groups_model import GroupsModel, conv2d_error, groups_model
from ._memory_model import MemoryModel, memory_model, parse_chain
from .arith import ArithScene, arith_figure
from .axes import AxesScene, axes_figure
from .conv import ConvScene, conv_figure, conv_window
from .groups import GroupsScene, groups_figure
from .memory import MemoryScene, memory_figure, memory_layout

__all__ = [
    "ArithModel",
    "ArithScene",
    "arith_figure",
    "arith_model",
    "conv_transpose_output_size",
    "IMAGE_PRESETS",
    "KERNEL_PRESETS",
    "PADDING_MODES",
    "AxesModel",
    "AxesScene",
    "ConvModel",
    "ConvScene",
    "GroupsModel",
    "GroupsScene",
    "MemoryModel",
    "MemoryScene",
    "axes_figure",
    "axes_model",
    "conv2d_error",
    "conv_figure",
    "conv_window",
    "conv_model",
    "groups_figure",
    "groups_model",
    "image_preset",
    "kernel_preset",
    "memory_figure",
    "memory_layout",
    "memory_model",
    "nest_layout",
    "output_size",
    "parse_chain",
    "parse_kernel",
    "parse_shape",
]
