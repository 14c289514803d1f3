"""The convolution figure: padded input, window, kernel, products, output, output-size formula.

:class:`ConvScene` builds every artist once; :meth:`ConvScene.update` only changes their data, so
a widget can redraw it many times a second. :func:`conv_figure` is the one-shot pure version.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib import colors as mcolors
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..interop import accepts_torch
from ._conv_model import ConvModel, conv_model, copy_links
from ._draw import (
    ERROR,
    FIGURE_WIDTH,
    INK,
    INVENTED,
    REMOVED,
    WINDOW,
    CellGrid,
    CellLabels,
    Page,
    TextLine,
    ax_text,
    bare_axes,
    cell_squares,
    colorize,
    crop_to_content,
    fmt_number,
    new_figure,
    rect_outline,
    text_colors_for,
    text_colors_on,
    text_width,
)

MAX_LABELLED_CELLS = 400  # above this many cells a grid is drawn without numbers
MAX_COLD_LINKS = 200  # every copy link is drawn faintly only for small images
MAX_TERMS = 12  # products written out in the sum line (fewer when the line would not fit)

# layout, in pixels at the figure's dpi
PAD = 8.0  # empty border around everything
SLOT_GAP = 24.0  # least space between two panels' slots (a slot is as wide as its title)
MAX_SLOT_GAP = 56.0
TITLE_GAP = 5.0  # between a title and its panel
EDGE = 3.0  # each axes reaches this far beyond its grid (lines drawn on the grid's edge)
TEXT_GAP = 7.0  # between lines of text under the panels
BIG_CELL_MAX = 48.0  # largest input / output cell
SMALL_SIDE = 0.5  # the kernel and product panels fit in a square this fraction of the big height
SMALL_SIDE_MAX = 150.0


def _grid_labels(
    labels: CellLabels, values: np.ndarray, cmap, norm, *, limit=MAX_LABELLED_CELLS, rgba=None
):
    """Write each cell's value at its centre (nothing when the grid is too big to read), in black
    or white for the cell's colour (``rgba``, the cells as drawn, if not ``cmap(norm(values))``)."""
    if values.size > limit:
        labels.clear_labels()
        return
    r, c = np.indices(values.shape)
    labels.set_labels(
        c.ravel(),
        r.ravel(),
        [fmt_number(v) for v in values.ravel()],
        text_colors_on(values.ravel(), cmap, norm) if rgba is None else text_colors_for(rgba),
    )


def _sym_norm(*arrays) -> mcolors.Normalize:
    m = max(float(np.max(np.abs(a))) if a.size else 0.0 for a in arrays) or 1.0
    return mcolors.Normalize(-m, m)


def _range_norm(a: np.ndarray) -> mcolors.Normalize:
    lo, hi = float(np.min(a)), float(np.max(a))
    if hi == lo:
        lo, hi = lo - 1.0, hi + 1.0
    return mcolors.Normalize(lo, hi)


class ConvScene:
    """All the artists of the convolution figure, made once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(FIGURE_WIDTH, 4.8)
        # grey without pure black, so black labels stay readable on the darkest pixels
        self.grey = mcolors.ListedColormap(colormaps["gray"](np.linspace(0.08, 1.0, 256)))
        self.div = colormaps["RdBu_r"]
        self.seq = colormaps["viridis"]

        self.ax_in = fig.add_axes((0.01, 0.24, 0.36, 0.62))
        self.ax_k = fig.add_axes((0.395, 0.46, 0.125, 0.34))
        self.ax_p = fig.add_axes((0.545, 0.46, 0.125, 0.34))
        self.ax_out = fig.add_axes((0.69, 0.24, 0.30, 0.62))
        for ax in (self.ax_in, self.ax_k, self.ax_p, self.ax_out):
            bare_axes(ax, equal=False)  # _arrange gives each box its grid's exact aspect

        ax = self.ax_in
        self.im_in = CellGrid(ax)
        self.frame = LineCollection([], colors=INK, linewidths=1.6, zorder=3)
        self.links = LineCollection([], colors=INVENTED, linewidths=0.6, alpha=0.45, zorder=3)
        self.links_hot = LineCollection([], colors=REMOVED, linewidths=1.4, zorder=4)
        (self.link_ends,) = ax.plot([], [], "o", ms=3.5, color=REMOVED, zorder=4)
        self.window = LineCollection([], colors=WINDOW, linewidths=2.2, zorder=4)
        self.window_box = LineCollection(
            [], colors=WINDOW, linewidths=1.0, linestyles="--", zorder=4
        )
        for coll in (self.frame, self.links, self.links_hot, self.window, self.window_box):
            ax.add_collection(coll)
        self.lab_in = CellLabels(ax, size=6.5)
        self.title_in = ax_text(ax, 0.5, 1.03, va="bottom", ha="center", fontsize=9)

        self.im_k = CellGrid(self.ax_k)
        self.lab_k = CellLabels(self.ax_k, size=7)
        self.title_k = ax_text(self.ax_k, 0.5, 1.03, va="bottom", ha="center", fontsize=9)
        self.im_p = CellGrid(self.ax_p)
        self.lab_p = CellLabels(self.ax_p, size=7)
        self.title_p = ax_text(self.ax_p, 0.5, 1.03, va="bottom", ha="center", fontsize=9)

        self.im_out = CellGrid(self.ax_out)
        self.out_cell = LineCollection([], colors=WINDOW, linewidths=2.4, zorder=4)
        self.ax_out.add_collection(self.out_cell)
        # each box ends at its grid's outer cell edges: lines drawn there must not lose a half
        for artist in (self.frame, self.window, self.window_box, self.out_cell):
            artist.set_clip_on(False)
        self.lab_out = CellLabels(self.ax_out, size=6.5)
        self.title_out = ax_text(self.ax_out, 0.5, 1.03, va="bottom", ha="center", fontsize=9)

        self.formula_h = TextLine(fig, fontsize=9.5)
        self.formula_w = TextLine(fig, fontsize=9.5)
        self.sum_text = TextLine(fig, fontsize=9)
        self.code_text = TextLine(fig, fontsize=8, family="monospace")
        self.error = fig.text(
            0.5,
            0.55,
            "",
            ha="center",
            va="center",
            fontsize=11,
            color=ERROR,
            wrap=True,
            bbox=dict(boxstyle="round", fc="white", ec=ERROR, alpha=0.95),
            zorder=10,
            visible=False,
        )
        self.model: ConvModel | None = None

    # ------------------------------------------------------------------ update
    def update(self, m: ConvModel) -> None:
        """Show model ``m`` (hides any error message)."""
        self.model = m
        self.error.set_visible(False)
        self._update_input(m)
        self._update_kernel(m)
        self._update_output(m)
        self._update_text(m)
        self._arrange(m)

    def show_error(self, message: str) -> None:
        """Overlay a readable message (the last good picture stays underneath)."""
        self.error.set_text(message)
        self.error.set_visible(True)

    def error_text(self) -> str:
        """The error the figure shows ('' when none)."""
        return self.error.get_text() if self.error.get_visible() else ""

    def _update_input(self, m: ConvModel) -> None:
        ax, Hp, Wp, p = self.ax_in, *m.padded.shape, m.padding
        H, W = m.image.shape
        norm = _range_norm(m.image)
        rgba = colorize(m.padded, self.grey, norm)
        tint = np.array(mcolors.to_rgba(INVENTED))
        rgba[m.invented] = 0.45 * rgba[m.invented] + 0.55 * tint
        self.im_in.set_cells(rgba, values=m.padded)
        self.frame.set_segments([rect_outline(p - 0.5, p - 0.5, p + W - 0.5, p + H - 0.5)])

        in_window = set()
        for r in m.taps_rows:
            for c in m.taps_cols:
                in_window.add((int(r), int(c)))
        links = copy_links(m)
        show_cold = len(links) <= MAX_COLD_LINKS and m.padded.size <= MAX_LABELLED_CELLS
        cold, hot, ends = [], [], []
        for (r, c), (sr, sc) in links:
            seg = np.array([(c, r), (sc, sr)], dtype=float)
            if (r, c) in in_window:
                hot.append(seg)
                ends.append((sc, sr))
            elif show_cold:
                cold.append(seg)
        self.links.set_segments(cold)
        self.links_hot.set_segments(hot)
        ends_arr = np.array(ends, dtype=float).reshape(-1, 2)
        self.link_ends.set_data(ends_arr[:, 0], ends_arr[:, 1])

        rr, cc = np.meshgrid(m.taps_rows, m.taps_cols, indexing="ij")
        self.window.set_segments(cell_squares(rr.ravel(), cc.ravel(), half=0.45))
        self.window_box.set_segments(
            [
                rect_outline(
                    m.taps_cols[0] - 0.5,
                    m.taps_rows[0] - 0.5,
                    m.taps_cols[-1] + 0.5,
                    m.taps_rows[-1] + 0.5,
                )
            ]
            if m.dilation > 1
            else []
        )
        ax.set_xlim(-0.5, Wp - 0.5)
        ax.set_ylim(Hp - 0.5, -0.5)
        _grid_labels(self.lab_in, m.padded, self.grey, norm, rgba=rgba)
        how = {
            "zeros": "invented pixels are 0",
            "reflect": "invented pixels mirror the image",
            "replicate": "invented pixels repeat the edge",
            "circular": "invented pixels wrap around",
        }[m.padding_mode]
        self.title_in.set_text(
            f"input {H}×{W} padded by {p} ({m.padding_mode}) → {Hp}×{Wp}"
            + (f"\norange: {how}" if p else "\nno padding: the window stays inside")
        )

    def _update_kernel(self, m: ConvModel) -> None:
        norm = _sym_norm(m.weight)
        self.im_k.set_cells(colorize(m.weight, self.div, norm), values=m.weight)
        self.ax_k.set_xlim(-0.5, m.weight.shape[1] - 0.5)
        self.ax_k.set_ylim(m.weight.shape[0] - 0.5, -0.5)
        _grid_labels(self.lab_k, m.weight, self.div, norm, limit=121)
        flipped = m.operation == "convolution"
        self.title_k.set_text(
            "kernel flipped\n(convolution)" if flipped else "weight as given\n(cross-correlation)"
        )

        pnorm = _sym_norm(m.products)
        self.im_p.set_cells(colorize(m.products, self.div, pnorm), values=m.products)
        self.ax_p.set_xlim(-0.5, m.products.shape[1] - 0.5)
        self.ax_p.set_ylim(m.products.shape[0] - 0.5, -0.5)
        _grid_labels(self.lab_p, m.products, self.div, pnorm, limit=121)
        self.title_p.set_text(f"window × weight\nsum = {fmt_number(m.value_shown)}")

    def _update_output(self, m: ConvModel) -> None:
        shown = m.shown(m.output)  # 0 up to rounding prints (and is coloured) as 0
        norm = _range_norm(shown)
        Ho, Wo = m.output.shape
        self.im_out.set_cells(colorize(shown, self.seq, norm), values=m.output)
        self.ax_out.set_xlim(-0.5, Wo - 0.5)
        self.ax_out.set_ylim(Ho - 0.5, -0.5)
        i, j = m.position
        self.out_cell.set_segments(cell_squares([i], [j], half=0.5))
        _grid_labels(self.lab_out, shown, self.seq, norm)
        self.title_out.set_text(
            f"output {Ho}×{Wo} (F.conv2d)\nlit: output[{i}, {j}] = {fmt_number(m.value_shown)}"
        )

    def _update_text(self, m: ConvModel) -> None:
        self.formula_h.set(m.formula_h + "    (p = padding, d = dilation, s = stride)")
        self.formula_w.set(m.formula_w)
        self.sum_text.set(self._sum_line(m))
        self.code_text.set(m.code())

    def _sum_line(self, m: ConvModel) -> str:
        """``output[i, j] = a·w + ... = v`` with as many terms as fit across the figure."""
        terms = [
            f"{fmt_number(a)}·{fmt_number(b)}" for a, b in zip(m.patch.ravel(), m.weight.ravel())
        ]
        i, j = m.position
        room = self.figure.bbox.width - 2 * PAD
        size = self.sum_text.artist.base_size
        for n in range(min(len(terms), MAX_TERMS), 0, -1):
            shown = " + ".join(terms[:n]) + (" + …" if len(terms) > n else "")
            line = f"output[{i}, {j}] = {shown} = {fmt_number(m.value_shown)}"
            if text_width(line, size, dpi=self.figure.dpi) <= room:
                break
        return line

    def _arrange(self, m: ConvModel) -> None:
        """Place panels, titles and text lines (in pixels) so nothing overlaps or leaves the figure.

        One row of four slots (input, kernel, products, output), each as wide as the larger of
        its panel and its title, with the text lines under it. The panels keep square cells;
        their common height is the largest that leaves room for the text and fits the width.
        """
        page = Page(self.figure)
        lines = [self.formula_h, self.formula_w, self.sum_text, self.code_text]
        text_h = page.fit_lines(lines, page.width - 2 * PAD, TEXT_GAP)
        titles = (self.title_in, self.title_k, self.title_p, self.title_out)
        axes = (self.ax_in, self.ax_k, self.ax_p, self.ax_out)
        grids = (m.padded.shape, m.weight.shape, m.products.shape, m.output.shape)
        title_w = [page.size(t)[0] for t in titles]
        top = PAD + max(page.size(t)[1] for t in titles) + TITLE_GAP
        avail_w = page.width - 2 * PAD
        avail_h = max(page.height - PAD - text_h - 2 * TEXT_GAP - top, 10.0)

        def boxes(h: float) -> list[tuple[float, float]]:
            """(width, height) of each panel when the big panels are ``h`` pixels high."""
            out = []
            for k, (rows, cols) in enumerate(grids):
                if k in (0, 3):
                    cell = min(h / rows, BIG_CELL_MAX)
                else:
                    side = min(SMALL_SIDE * h, SMALL_SIDE_MAX)
                    cell = min(side / max(rows, cols), BIG_CELL_MAX)
                out.append((cell * cols, cell * rows))
            return out

        def row_width(h: float) -> float:
            return sum(max(w, tw) for (w, _), tw in zip(boxes(h), title_w)) + 3 * SLOT_GAP

        lo, hi = 1.0, avail_h
        if row_width(hi) > avail_w:  # too wide at full height: the largest height that fits
            for _ in range(30):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if row_width(mid) <= avail_w else (lo, mid)
            hi = lo
        sizes = boxes(hi)
        slots = [max(w, tw) for (w, _), tw in zip(sizes, title_w)]
        gap = min(MAX_SLOT_GAP, max(SLOT_GAP, (avail_w - sum(slots)) / 3))
        x = PAD
        for ax, title, slot, (w, h), (rows, cols) in zip(axes, titles, slots, sizes, grids):
            box = (x + (slot - w) / 2, top, w, h)
            page.place_data(ax, box, (-0.5, cols - 0.5), (-0.5, rows - 0.5), EDGE)
            page.place_text(title, x + slot / 2, top - TITLE_GAP, "center", "bottom")
            x += slot + gap
        page.stack_down(lines, PAD, top + max(h for _, h in sizes) + 2 * TEXT_GAP, TEXT_GAP)


@accepts_torch(layer="conv")
def conv_figure(
    image,
    kernel,
    *,
    padding: int = 0,
    padding_mode: str = "zeros",
    stride: int = 1,
    dilation: int = 1,
    position: tuple[int, int] = (0, 0),
    operation: str = "cross-correlation",
) -> Figure:
    """A new figure showing one output cell of ``conv2d`` on ``image`` with ``kernel``.

    Same arguments as :func:`tensorlab.viz._conv_model.conv_model`; raises its errors. ``image``
    and ``kernel`` may be torch tensors; ``kernel`` may be a conv layer with one input and one
    output channel (``torch.nn``'s or tensorlab's), which also gives padding, mode, stride and
    dilation.
    """
    model = conv_model(
        image,
        kernel,
        padding=padding,
        padding_mode=padding_mode,
        stride=stride,
        dilation=dilation,
        position=position,
        operation=operation,
    )
    scene = ConvScene()
    scene.update(model)
    crop_to_content(scene.figure)
    scene.figure._tensorlab_scene = scene  # tests read the artists back through this
    return scene.figure


@accepts_torch
def conv_window(
    x, w, i: int = 0, j: int = 0, *, padding: int = 0, mode: str = "zeros", **kwargs
) -> Figure:
    """``conv_figure`` with the output position first: the window that makes ``output[i, j]``.

    ``mode`` is the padding mode; other keywords (``stride``, ``dilation``, ``operation``) pass on.
    """
    return conv_figure(x, w, padding=padding, padding_mode=mode, position=(i, j), **kwargs)
