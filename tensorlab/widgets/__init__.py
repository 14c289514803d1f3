"""Interactive explorers: thin ipywidgets shells over the figures of :mod:`tensorlab.viz`.

Each explorer is constructible with no arguments and exposes ``.figure`` (a matplotlib Figure whose
artists are built once and updated on every control change), ``.status`` (the configuration in
words), ``.widget`` (the whole thing) and displays itself in a notebook::

    from tensorlab.widgets import ConvExplorer, GroupsExplorer, AxesExplorer, MemoryExplorer
    ConvExplorer()

With ``%matplotlib widget`` (ipympl installed) the figure is ipympl's live canvas; otherwise it is
shown as a PNG image (``<img>`` whose ``alt`` is the status line) re-rendered after each change
(works with the inline backend). A configuration that makes no sense shows its error in the
widget; nothing raises. Every control works from the keyboard (Tab, arrows, Space); ConvExplorer
and ArithExplorer have a Play control that walks the window over the output.
"""

from ._base import Explorer, FigureView
from .arith import ArithExplorer
from .axes import AxesExplorer
from .conv import ConvExplorer
from .groups import GroupsExplorer
from .memory import MemoryExplorer

__all__ = [
    "ArithExplorer",
    "AxesExplorer",
    "ConvExplorer",
    "Explorer",
    "FigureView",
    "GroupsExplorer",
    "MemoryExplorer",
]
