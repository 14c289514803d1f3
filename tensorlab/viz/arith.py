"""The convolution-arithmetic figure: the grid a kernel slides over, its window, and the output.

Left: the input (blue, its values printed), zero padding (light orange: invented pixels), and for
a transposed convolution the zeros inserted between input pixels (white); the window for one
output cell is shaded and outlined in red. Right: the output (green), the current cell outlined,
each cell labelled with the engine's value for an all-ones kernel. Both panels use the same cell
size, so how the output grows or shrinks is seen at a glance.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.figure import Figure

from ._arith_model import INPUT, INSERTED, PAD, ArithModel, arith_model, fmt
from ._draw import (
    ERROR,
    FIGURE_WIDTH,
    INVENTED,
    WINDOW,
    CellGrid,
    CellLabels,
    TextLine,
    ax_text,
    bare_axes,
    new_figure,
    rect_outline,
)

S = 10  # sub-cells per drawn cell: a clear sub-cell line between cells makes the grid
INPUT_COLOR = "#6baed6"
INSERTED_COLOR = "#ffffff"
PAD_COLOR = INVENTED
UNDER_WINDOW = "#2171b5"
OUTPUT_COLOR = "#a1d99b"
OUTPUT_DONE = "#41ab5d"
LINE = "none"  # between cells: the theme shows through (a light line was a grey slab in Dark)
HEIGHT = 4.6  # inches


def _rgb(c) -> np.ndarray:
    return np.array(mcolors.to_rgba(c))


def cells_image(colors: np.ndarray) -> np.ndarray:
    """(h, w, 4) cell colours -> (h*S, w*S, 4) sub-cells with a clear line around each cell."""
    h, w = colors.shape[:2]
    img = np.repeat(np.repeat(colors, S, axis=0), S, axis=1)
    line = _rgb(LINE)
    img[::S, :] = line
    img[:, ::S] = line
    img[S - 1 :: S, :] = line
    img[:, S - 1 :: S] = line
    return img


def grid_colors(m: ArithModel) -> np.ndarray:
    colors = np.zeros((*m.kinds.shape, 4))
    colors[m.kinds == PAD] = 0.45 * _rgb(PAD_COLOR) + 0.55  # light: invented pixels
    colors[m.kinds == INPUT] = _rgb(INPUT_COLOR)
    colors[m.kinds == INSERTED] = _rgb(INSERTED_COLOR)
    under = _rgb(UNDER_WINDOW)
    for r, c in m.window:
        colors[r, c] = 0.55 * under + 0.45 * colors[r, c]
        colors[r, c, 3] = 1.0
    return colors


def output_colors(m: ArithModel) -> np.ndarray:
    o = m.out_size
    colors = np.tile(_rgb(OUTPUT_COLOR), (o, o, 1))
    r, c = m.position
    colors[r, c] = _rgb(OUTPUT_DONE)
    return colors


class ArithScene:
    """Artists of the arithmetic figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(FIGURE_WIDTH, HEIGHT)
        self.ax_in = fig.add_axes((0.02, 0.2, 0.47, 0.68))
        self.ax_out = fig.add_axes((0.51, 0.2, 0.47, 0.68))
        for ax in (self.ax_in, self.ax_out):
            bare_axes(ax)
        self.grid = CellGrid(self.ax_in)
        self.out = CellGrid(self.ax_out)
        self.in_labels = CellLabels(self.ax_in, size=8, cell=S)
        self.out_labels = CellLabels(self.ax_out, size=8, cell=S)
        (self.window_line,) = self.ax_in.plot([], [], color=WINDOW, lw=2.0, zorder=6)
        (self.cell_line,) = self.ax_out.plot([], [], color=WINDOW, lw=2.0, zorder=6)
        self.title_in = ax_text(self.ax_in, 0.5, 1.02, va="bottom", ha="center", fontsize=10)
        self.title_out = ax_text(self.ax_out, 0.5, 1.02, va="bottom", ha="center", fontsize=10)
        self.formula = TextLine(fig, 0.02, 0.14, fontsize=10)
        self.code = TextLine(fig, 0.02, 0.07, fontsize=9.5, family="monospace")
        self.error = TextLine(fig, 0.02, 0.5, fontsize=11, weight="bold", va="center")
        self.model: ArithModel | None = None

    def update(self, m: ArithModel) -> None:
        self.model = m
        self.error.set("")
        for ax in (self.ax_in, self.ax_out):
            ax.set_visible(True)
        P, o = m.kinds.shape[0], m.out_size
        n = max(P, o, 4)
        for ax in (self.ax_in, self.ax_out):  # one cell size for both panels
            ax.set_xlim(-0.5, n * S - 0.5)
            ax.set_ylim(n * S - 0.5, -0.5)
        off_in = (n - P) * S / 2.0
        off_out = (n - o) * S / 2.0
        self.grid.set_cells(cells_image(grid_colors(m)), origin=(off_in, off_in))
        self.out.set_cells(cells_image(output_colors(m)), origin=(off_out, off_out))

        centre = (S - 1) / 2.0
        rr, cc = np.nonzero(m.kinds == INPUT)
        self.in_labels.set_labels(
            off_in + cc * S + centre,
            off_in + rr * S + centre,
            [fmt(v) for v in m.grid_values[rr, cc]],
            "black",
        )
        orr, occ = np.indices((o, o))
        self.out_labels.set_labels(
            off_out + occ.ravel() * S + centre,
            off_out + orr.ravel() * S + centre,
            [fmt(v) for v in m.output.ravel()],
            "black",
        )
        # the window's outline (a dilated window: the box around its taps)
        r0, c0 = m.window.min(axis=0)
        r1, c1 = m.window.max(axis=0)
        box = rect_outline(
            off_in + c0 * S - 0.5,
            off_in + r0 * S - 0.5,
            off_in + (c1 + 1) * S - 0.5,
            off_in + (r1 + 1) * S - 0.5,
        )
        self.window_line.set_data(box[:, 0], box[:, 1])
        r, c = m.position
        cell = rect_outline(
            off_out + c * S - 0.5,
            off_out + r * S - 0.5,
            off_out + (c + 1) * S - 0.5,
            off_out + (r + 1) * S - 0.5,
        )
        self.cell_line.set_data(cell[:, 0], cell[:, 1])

        i = m.size
        if m.transposed:
            self.title_in.set_text(
                f"input {i}×{i}, {m.stride - 1} zero(s) inserted, padded by "
                f"{m.dilation * (m.kernel - 1) - m.padding}: {P}×{P}"
            )
        else:
            self.title_in.set_text(f"input {i}×{i}, padded by {m.padding}: {P}×{P}")
        self.title_out.set_text(
            f"output {o}×{o}; output[{m.position[0]}, {m.position[1]}] = {fmt(m.value)}"
        )
        self.formula.set("output size: " + m.formula())
        self.code.set(m.code())

    def show_error(self, message: str) -> None:
        for ax in (self.ax_in, self.ax_out):
            ax.set_visible(False)
        self.formula.set("")
        self.code.set("")
        self.error.set(message, ERROR)
        self.error.fit(self.figure.bbox.width * 0.96, self.figure.dpi)

    def error_text(self) -> str:
        return self.error.get()


def arith_figure(**settings) -> Figure:
    """The arithmetic figure for ``arith_model(**settings)`` (see there), as a new Figure."""
    scene = ArithScene()
    scene.update(arith_model(**settings))
    return scene.figure
