"""The axes figure: where ``unsqueeze`` inserts an axis, what ``squeeze`` removes.

Left: one box per axis (index, size, stride) before and after, joined when they are the same axis;
the new axis is orange, a removed one is crossed out. Right: the nested-bracket picture of both
shapes, each bracket coloured like its axis: (16, 16) is a grid, (1, 16, 16) the same grid inside
one more pair of brackets.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

from ._axes_model import AxesModel, axes_model, nest_layout
from ._draw import (
    ERROR,
    FIGURE_WIDTH,
    INK,
    NEW_AXIS,
    REMOVED,
    CellLabels,
    Page,
    TextLine,
    ax_text,
    bare_axes,
    crop_to_content,
    new_figure,
    rect_outline,
    shrink_to_width,
    text_width,
)

AXIS_COLORS = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
)
BOX_W, BOX_H, BOX_STEP = 1.7, 1.25, 2.0
ROW_AFTER = 2.7  # the row of boxes after the op; its title goes under it, clear of the links
BOXES_TOP, BOXES_BOTTOM, BOXES_LEFT = -0.9, ROW_AFTER + BOX_H + 0.9, -0.3  # data limits
LABEL_SIZE = 8.0

# layout, in pixels at the figure's dpi
PAD = 8.0  # empty border around everything
GAP = 24.0  # between the boxes and the bracket pictures
TITLE_GAP = 4.0
TEXT_GAP = 7.0  # between lines of text under the panels
UNIT_MAX = 40.0  # pixels per data unit of the boxes (a box is BOX_W units wide)
BOXES_SHARE = 0.6  # the boxes (with their titles) take at most this share of the width
NEST_UNIT_MAX = 32.0  # pixels per unit of the bracket pictures


def axis_color(ident: int, new: bool = False) -> str:
    """Colour of an axis identity (orange for the axis just inserted)."""
    return NEW_AXIS if new else AXIS_COLORS[ident % len(AXIS_COLORS)]


class _NestPicture:
    """Brackets, element squares and ellipses of one shape, in one axes."""

    def __init__(self, ax):
        self.ax = ax
        bare_axes(ax, equal=False)  # place() gives the box the picture's exact aspect
        self.brackets = LineCollection([], linewidths=1.6)
        ax.add_collection(self.brackets)
        self.leaves = ax.scatter([], [], marker="s", c=INK, edgecolors="none")
        self.dots = CellLabels(ax, size=9, cell=None)
        self.title = ax_text(ax, 0.0, 1.02, va="bottom", ha="left", fontsize=9)
        self.layout = None
        self.span = (4.4, 2.9)  # data width and height shown

    def update(self, shape, colors: list[str], widths: list[float], title: str) -> None:
        lay = self.layout = nest_layout(tuple(shape))
        segs, cols, lws = [], [], []
        e = 0.18
        for x0, y0, x1, y1, level in lay.boxes:
            segs.append([(x0 + e, y0), (x0, y0), (x0, y1), (x0 + e, y1)])
            segs.append([(x1 - e, y0), (x1, y0), (x1, y1), (x1 - e, y1)])
            cols += [colors[level]] * 2
            lws += [widths[level]] * 2
        self.brackets.set_segments(segs)
        self.brackets.set_colors(cols)
        self.brackets.set_linewidths(lws)
        pts = np.array(lay.leaves, dtype=float).reshape(-1, 2)
        self.leaves.set_offsets(pts)
        width, height = max(lay.width, 1.0), max(lay.height, 1.0)
        self.ax.set_xlim(-0.2, width + 0.2)
        self.ax.set_ylim(height + 0.2, -0.2)
        self.span = (width + 0.4, height + 0.4)
        if lay.ellipses:
            xs, ys, ts = zip(*lay.ellipses)
            self.dots.set_labels(xs, ys, ts)
        else:
            self.dots.clear_labels()
        self.title.set_text(title)

    def title_height(self, page: Page, width: float) -> float:
        """The title's height in pixels once shrunk (if need be) to ``width`` pixels."""
        shrink_to_width(self.title, width, page.dpi)
        return page.size(self.title)[1] + TITLE_GAP

    def place(self, page: Page, left: float, top: float, scale: float) -> float:
        """Title at (``left``, ``top``) pixels, the picture under it at ``scale`` pixels per
        unit; returns the picture's bottom y."""
        box_top = top + page.size(self.title)[1] + TITLE_GAP
        span_w, span_h = self.span
        page.place_axes(self.ax, left, box_top, span_w * scale, span_h * scale)
        page.place_text(self.title, left, box_top - TITLE_GAP, "left", "bottom")
        points_per_unit = scale * 72.0 / page.dpi
        self.leaves.set_sizes([max((0.7 * points_per_unit) ** 2, 1.0)])
        return box_top + span_h * scale


class AxesScene:
    """Artists of the axes figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(FIGURE_WIDTH, 5.4)
        self.ax_boxes = fig.add_axes((0.01, 0.28, 0.44, 0.62))
        bare_axes(self.ax_boxes, equal=False)  # _arrange gives the box the data's aspect
        self.boxes = PolyCollection([], linewidths=1.4)
        self.ax_boxes.add_collection(self.boxes)
        self.links = LineCollection([], linewidths=1.4, linestyles="-")
        self.ax_boxes.add_collection(self.links)
        self.crosses = LineCollection([], colors=REMOVED, linewidths=2.5, zorder=4)
        self.ax_boxes.add_collection(self.crosses)
        self.lab_axis = CellLabels(self.ax_boxes, size=LABEL_SIZE, weight="bold", cell=None)
        self.lab_size = CellLabels(self.ax_boxes, size=LABEL_SIZE, cell=None)
        self.lab_stride = CellLabels(self.ax_boxes, size=LABEL_SIZE, cell=None)
        self.title_before = ax_text(self.ax_boxes, -0.2, -0.45, data=True, va="center", fontsize=9)
        self.title_after = ax_text(
            self.ax_boxes, -0.2, ROW_AFTER + BOX_H + 0.45, data=True, va="center", fontsize=9
        )
        self.before = _NestPicture(fig.add_axes((0.50, 0.60, 0.48, 0.30)))
        self.after = _NestPicture(fig.add_axes((0.50, 0.22, 0.48, 0.30)))
        self.line1 = TextLine(fig, fontsize=10)
        self.line2 = TextLine(fig, fontsize=9.5)
        self.line3 = TextLine(fig, fontsize=9)
        self.error = TextLine(fig, fontsize=11, weight="bold")
        self.model: AxesModel | None = None

    def show_error(self, message: str) -> None:
        self.error.set(message, ERROR)
        self.error.refit()

    def error_text(self) -> str:
        """The error the figure shows ('' when none)."""
        return self.error.get()

    def update(self, m: AxesModel) -> None:
        self.model = m
        self.error.set("")
        before_cols = [axis_color(i) for i in m.ids]
        verts, faces, edges = [], [], []
        xs, ys, t_axis, t_size, t_stride = [], [], [], [], []

        def box(k, y, size, stride, color, face):
            x = k * BOX_STEP
            verts.append(rect_outline(x, y, x + BOX_W, y + BOX_H)[:4])
            faces.append(face)
            edges.append(color)
            cx = x + BOX_W / 2
            xs.append(cx)
            ys.append(y)
            t_axis.append(f"axis {k}")
            t_size.append(f"size {size}")
            t_stride.append(f"stride {stride}")

        for k, (s, st) in enumerate(zip(m.shape, m.stride)):
            box(k, 0.0, s, st, before_cols[k], "none")
        crosses = []
        for k in m.removed:
            x = k * BOX_STEP
            crosses += [[(x, 0.0), (x + BOX_W, BOX_H)], [(x, BOX_H), (x + BOX_W, 0.0)]]
        links, link_cols = [], []
        if m.ok:
            after_cols = [axis_color(i, new=(k == m.inserted)) for k, i in enumerate(m.new_ids)]
            for k, (s, st) in enumerate(zip(m.new_shape, m.new_stride)):
                box(k, ROW_AFTER, s, st, after_cols[k], "none")
            for k_after, ident in enumerate(m.new_ids):
                if ident in m.ids:
                    k_before = m.ids.index(ident)
                    links.append(
                        [
                            (k_before * BOX_STEP + BOX_W / 2, BOX_H),
                            (k_after * BOX_STEP + BOX_W / 2, ROW_AFTER),
                        ]
                    )
                    link_cols.append(axis_color(ident))
        else:
            after_cols = []
        self.boxes.set_verts(verts)
        self.boxes.set_facecolors(faces)
        self.boxes.set_edgecolors(edges)
        self.links.set_segments(links)
        self.links.set_colors(link_cols)
        self.crosses.set_segments(crosses)
        self.lab_axis.set_labels(xs, [y + 0.3 for y in ys], t_axis, INK)
        self.lab_size.set_labels(xs, [y + 0.65 for y in ys], t_size)
        self.lab_stride.set_labels(xs, [y + 0.98 for y in ys], t_stride, INK)
        self.title_before.set_text(f"x: shape {m.shape}, strides {m.stride}")
        self.title_after.set_text(
            f"{m.code()}: shape {m.new_shape}, strides {m.new_stride}"
            if m.ok
            else f"{m.code()}: error"
        )
        self.ncols = max(len(m.shape), len(m.new_shape), 3)
        self.ax_boxes.set_xlim(BOXES_LEFT, self.ncols * BOX_STEP)
        self.ax_boxes.set_ylim(BOXES_BOTTOM, BOXES_TOP)

        self.before.update(
            m.shape,
            before_cols,
            [3.0 if k in m.removed else 1.6 for k in range(len(m.shape))],
            f"x: shape {m.shape}  ({len(m.shape)} axes)",
        )
        if m.ok:
            self.after.update(
                m.new_shape,
                after_cols,
                [3.0 if k == m.inserted else 1.6 for k in range(len(m.new_shape))],
                f"{m.code()}: shape {m.new_shape}  ({len(m.new_shape)} axes)",
            )
            self.line1.set(m.describe())
            self.line2.set(m.note())
        else:
            self.after.update((), [], [], f"{m.code()}: error")
            self.after.leaves.set_offsets(np.zeros((0, 2)))
            self.line1.set(f"x: shape {m.shape}, strides {m.stride}")
            self.line2.set(m.error, ERROR)
            self.error.set(m.error, ERROR)
        self.line3.set("history: " + " → ".join(str(s) for s in m.history))
        self._arrange()

    def _arrange(self) -> None:
        """Place the boxes, the two bracket pictures and the text lines (in pixels).

        The boxes get ``UNIT_MAX`` pixels per unit (less when short of room, more when a label
        needs it) in a slot as wide as their titles; the bracket pictures share the rest of the
        width, one above the other (the second one only when the op worked). The text lines go
        under everything.
        """
        page = Page(self.figure)
        lines = [self.line1, self.line2, self.line3]
        text_h = page.fit_lines(lines, page.width - 2 * PAD, TEXT_GAP)
        top, bottom = PAD, max(page.height - PAD - text_h - 2 * TEXT_GAP, PAD + 40.0)
        span_w, span_h = self.ncols * BOX_STEP - BOXES_LEFT, BOXES_BOTTOM - BOXES_TOP
        max_w = BOXES_SHARE * (page.width - 2 * PAD)
        widest = max(
            [text_width(t, LABEL_SIZE, "bold", dpi=page.dpi) for t in self.lab_axis.texts]
            + [text_width(t, LABEL_SIZE, dpi=page.dpi) for t in self.lab_size.texts]
            + [text_width(t, LABEL_SIZE, dpi=page.dpi) for t in self.lab_stride.texts]
            + [0.0]
        )
        unit = max(UNIT_MAX, (widest + 6.0) / BOX_W)
        unit = min(unit, (bottom - top) / span_h, max_w / span_w)
        page.place_axes(self.ax_boxes, PAD, top, span_w * unit, span_h * unit)
        for t in (self.title_before, self.title_after):
            shrink_to_width(t, max_w - 0.1 * unit, page.dpi)
        slot = max(
            span_w * unit,
            *(page.size(t)[0] + 0.1 * unit for t in (self.title_before, self.title_after)),
        )
        # an error takes the place of the missing row of boxes
        err_y = top + (ROW_AFTER + BOX_H / 2 - BOXES_TOP) * unit
        page.place_text(self.error.artist, PAD, err_y, "left", "center")
        self.error.fit(slot, page.dpi)
        left = PAD + slot + GAP
        width = page.width - PAD - left
        # both pictures at one scale, so the same elements look the same size
        pictures = [self.before, self.after] if self.model.ok else [self.before]
        self.after.ax.set_visible(self.model.ok)
        room = bottom - top - GAP * (len(pictures) - 1)
        room -= sum(p.title_height(page, width) for p in pictures)
        scale = min(
            NEST_UNIT_MAX,
            *(width / p.span[0] for p in pictures),
            room / sum(p.span[1] for p in pictures),
        )
        low = top - GAP
        for p in pictures:
            low = p.place(page, left, low + GAP, max(scale, 1.0))
        low = max(low, top + span_h * unit)
        page.stack_down(lines, PAD, low + 2 * TEXT_GAP, TEXT_GAP)


def axes_figure(shape, op: str = "unsqueeze", dim: int | None = 0) -> Figure:
    """A new figure of ``x.unsqueeze(dim)``, ``x.squeeze(dim)`` or ``x.squeeze()`` for ``x`` of ``shape``.

    ``op`` is ``"unsqueeze"``, ``"squeeze(dim)"`` or ``"squeeze()"``. A dim out of range draws the
    engine's ``IndexError`` instead of raising.
    """
    scene = AxesScene()
    scene.update(axes_model(shape, op, dim))
    crop_to_content(scene.figure)
    scene.figure._tensorlab_scene = scene
    return scene.figure
