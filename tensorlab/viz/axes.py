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
    NEW_AXIS,
    REMOVED,
    CellLabels,
    TextLine,
    ax_text,
    bare_axes,
    new_figure,
    rect_outline,
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
ROW_AFTER = 3.2


def axis_color(ident: int, new: bool = False) -> str:
    """Colour of an axis identity (orange for the axis just inserted)."""
    return NEW_AXIS if new else AXIS_COLORS[ident % len(AXIS_COLORS)]


class _NestPicture:
    """Brackets, element squares and ellipses of one shape, in one axes."""

    def __init__(self, ax):
        self.ax = ax
        bare_axes(ax)
        self.brackets = LineCollection([], linewidths=1.6)
        ax.add_collection(self.brackets)
        self.leaves = ax.scatter([], [], marker="s", c="#adb5bd", edgecolors="none")
        self.dots = CellLabels(ax, size=9, cell=None)
        self.title = ax_text(ax, 0.0, 1.02, va="bottom", ha="left", fontsize=9)
        self.layout = None

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
        span = max(lay.width, lay.height * 1.6, 4.0)
        self.ax.set_xlim(-0.2, span + 0.2)
        self.ax.set_ylim(max(lay.height, span / 1.6) + 0.2, -0.2)
        bbox = self.ax.get_position()
        fig = self.ax.figure
        px_per_unit = bbox.width * fig.get_figwidth() * 72.0 / (span + 0.4)
        self.leaves.set_sizes([max((0.7 * px_per_unit) ** 2, 1.0)])
        if lay.ellipses:
            xs, ys, ts = zip(*lay.ellipses)
            self.dots.set_labels(xs, ys, ts)
        else:
            self.dots.clear_labels()
        self.title.set_text(title)


class AxesScene:
    """Artists of the axes figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(11.0, 5.4)
        self.ax_boxes = fig.add_axes((0.01, 0.28, 0.44, 0.62))
        bare_axes(self.ax_boxes)
        self.boxes = PolyCollection([], linewidths=1.4)
        self.ax_boxes.add_collection(self.boxes)
        self.links = LineCollection([], linewidths=1.4, linestyles="-")
        self.ax_boxes.add_collection(self.links)
        self.crosses = LineCollection([], colors=REMOVED, linewidths=2.5, zorder=4)
        self.ax_boxes.add_collection(self.crosses)
        self.lab_axis = CellLabels(self.ax_boxes, size=8, weight="bold", cell=None)
        self.lab_size = CellLabels(self.ax_boxes, size=8, cell=None)
        self.lab_stride = CellLabels(self.ax_boxes, size=8, cell=None)
        self.title_before = ax_text(self.ax_boxes, -0.2, -0.45, data=True, va="center", fontsize=9)
        self.title_after = ax_text(
            self.ax_boxes, -0.2, ROW_AFTER - 0.45, data=True, va="center", fontsize=9
        )
        self.before = _NestPicture(fig.add_axes((0.50, 0.60, 0.48, 0.30)))
        self.after = _NestPicture(fig.add_axes((0.50, 0.22, 0.48, 0.30)))
        self.line1 = TextLine(fig, 0.01, 0.15, fontsize=10)
        self.line2 = TextLine(fig, 0.01, 0.095, fontsize=9.5)
        self.line3 = TextLine(fig, 0.01, 0.045, fontsize=9)
        self.error = TextLine(fig, 0.02, 0.45, fontsize=11, va="center", weight="bold")
        self.model: AxesModel | None = None

    def show_error(self, message: str) -> None:
        self.error.set(message, ERROR)

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
            box(k, 0.0, s, st, before_cols[k], "#fff5f5" if k in m.removed else "white")
        crosses = []
        for k in m.removed:
            x = k * BOX_STEP
            crosses += [[(x, 0.0), (x + BOX_W, BOX_H)], [(x, BOX_H), (x + BOX_W, 0.0)]]
        links, link_cols = [], []
        if m.ok:
            after_cols = [axis_color(i, new=(k == m.inserted)) for k, i in enumerate(m.new_ids)]
            for k, (s, st) in enumerate(zip(m.new_shape, m.new_stride)):
                new = k == m.inserted
                box(k, ROW_AFTER, s, st, after_cols[k], "#fff3e0" if new else "white")
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
        self.lab_axis.set_labels(xs, [y + 0.3 for y in ys], t_axis, edges)
        self.lab_size.set_labels(xs, [y + 0.65 for y in ys], t_size)
        self.lab_stride.set_labels(xs, [y + 0.98 for y in ys], t_stride, "#555555")
        self.title_before.set_text(f"x: shape {m.shape}, strides {m.stride}")
        self.title_after.set_text(
            f"{m.code()}: shape {m.new_shape}, strides {m.new_stride}"
            if m.ok
            else f"{m.code()}: error"
        )
        ncols = max(len(m.shape), len(m.new_shape), 3)
        self.ax_boxes.set_xlim(-0.3, ncols * BOX_STEP)
        self.ax_boxes.set_ylim(ROW_AFTER + BOX_H + 0.4, -0.9)

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


def axes_figure(shape, op: str = "unsqueeze", dim: int | None = 0) -> Figure:
    """A new figure of ``x.unsqueeze(dim)``, ``x.squeeze(dim)`` or ``x.squeeze()`` for ``x`` of ``shape``.

    ``op`` is ``"unsqueeze"``, ``"squeeze(dim)"`` or ``"squeeze()"``. A dim out of range draws the
    engine's ``IndexError`` instead of raising.
    """
    scene = AxesScene()
    scene.update(axes_model(shape, op, dim))
    scene.figure._tensorlab_scene = scene
    return scene.figure
