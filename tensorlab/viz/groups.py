"""The channel-groups figure: who connects to whom, and the weight tensor as blocks.

Left: input channels (left column) wired to output channels (right column), one colour per group.
Right: the weight ``(C_out, C_in/groups, kH, kW)`` drawn as one block per ``kH x kW`` operator:
column ``o`` is output channel ``o`` (weight axis 0), row ``j`` is weight axis 1, which for an
output channel of group ``k`` is input channel ``k * C_in/groups + j``.
"""

from __future__ import annotations

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..interop import accepts_torch
from ._draw import (
    ERROR,
    FIGURE_WIDTH,
    INK,
    CellGrid,
    CellLabels,
    Page,
    TextLine,
    ax_text,
    bare_axes,
    crop_to_content,
    font_px,
    group_color,
    new_figure,
    text_width,
)
from ._groups_model import GroupsModel, groups_model

MIN_BLOCK_PX = 5  # below this many pixels per kernel cell, one square stands for one operator
NODE_LABELS_UP_TO = 16

# layout, in pixels at the figure's dpi
PAD = 8.0  # empty border around everything
CONN_WIDTH = 0.3  # the connections panel's share of the figure width
GAP = 16.0  # between the panels (and the weight panel's axis label)
TITLE_GAP = 5.0
TEXT_GAP = 7.0  # between lines of text under the panels
MAX_CELL = 30.0  # largest weight cell
GROUP_LABEL_SIZE = 8.0
AXIS_LABEL_GAP = 12.0  # between the "C_in/groups" label and the weight blocks


def _positions(n: int) -> np.ndarray:
    """Evenly spaced heights in (0, 1), channel 0 at the top."""
    return 1.0 - (np.arange(n) + 0.5) / n


def weight_blocks(m: GroupsModel, detailed: bool) -> tuple[np.ndarray, np.ndarray]:
    """RGBA cells for the weight picture and the output channel of each cell (-1: gap).

    ``detailed``: each operator is kH x kW cells with a one-cell gap; otherwise one cell.
    """
    cout, per_in = m.weight_shape[0], m.weight_shape[1]
    kH, kW = m.kernel_size if detailed else (1, 1)
    gap = 1 if detailed else 0
    H = per_in * (kH + gap) - gap
    W = cout * (kW + gap) - gap
    rgba = np.zeros((H, W, 4))  # the gaps are transparent: the theme shows through
    owner = np.full((H, W), -1)
    shade = np.indices((kH, kW)).sum(axis=0) % 2  # a faint checker shows the kH x kW cells
    for o in range(cout):
        base = np.array(mcolors.to_rgba(group_color(m.out_group[o])))
        light = 0.75 * base + 0.25
        light[3] = 1.0
        block = np.where(shade[..., None] == 0, base, light)
        for j in range(per_in):
            r0, c0 = j * (kH + gap), o * (kW + gap)
            # without the kH x kW detail, neighbouring operators alternate shades instead
            rgba[r0 : r0 + kH, c0 : c0 + kW] = block if detailed or (o + j) % 2 == 0 else light
            owner[r0 : r0 + kH, c0 : c0 + kW] = o
    return rgba, owner


class GroupsScene:
    """Artists of the groups figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(FIGURE_WIDTH, 4.8)
        self.ax_c = fig.add_axes((0.03, 0.2, 0.30, 0.68))
        self.ax_w = fig.add_axes((0.40, 0.26, 0.58, 0.58))
        bare_axes(self.ax_c, equal=False)
        bare_axes(self.ax_w, equal=False)  # _arrange gives the box the blocks' exact aspect
        self.ax_c.set_xlim(-0.35, 1.35)
        self.ax_c.set_ylim(-0.02, 1.02)

        self.lines = LineCollection([], linewidths=1.2, alpha=0.8)
        self.ax_c.add_collection(self.lines)
        self.in_nodes = self.ax_c.scatter([], [], s=40, zorder=3, edgecolors=INK, linewidths=0.5)
        self.out_nodes = self.ax_c.scatter([], [], s=40, zorder=3, edgecolors=INK, linewidths=0.5)
        self.in_labels = CellLabels(self.ax_c, size=7, cell=None)
        self.out_labels = CellLabels(self.ax_c, size=7, cell=None)
        self.title_c = ax_text(self.ax_c, 0.5, 1.04, va="bottom", ha="center", fontsize=9)

        self.blocks = CellGrid(self.ax_w)
        self.group_labels = CellLabels(self.ax_w, size=GROUP_LABEL_SIZE, cell=None)
        self.title_w = ax_text(self.ax_w, 0.5, 1.04, va="bottom", ha="center", fontsize=9)
        self.axis_w = ax_text(self.ax_w, -0.01, 0.5, va="center", ha="right", fontsize=8)

        self.shape_text = TextLine(fig, fontsize=10)
        self.count_text = TextLine(fig, fontsize=9.5)
        self.code_text = TextLine(fig, fontsize=8.5, family="monospace")
        self.error = TextLine(fig, fontsize=11, weight="bold")
        self.model: GroupsModel | None = None
        self._frame = self._measure_frame()

    def update(self, m: GroupsModel) -> None:
        self.model = m
        self._update_text(m)
        self._frame = self._measure_frame()
        self._update_connections(m)
        self._update_weight(m)
        self._arrange(m)

    def _measure_frame(self) -> dict:
        """Where the panels go (pixels from the top-left), after stacking the text lines."""
        page = Page(self.figure)
        lines = [self.shape_text, self.count_text, self.code_text]
        text_h = page.fit_lines(lines, page.width - 2 * PAD, TEXT_GAP)
        title_h = max(page.size(self.title_c)[1], page.size(self.title_w)[1], 24.0)
        top = PAD + title_h + TITLE_GAP
        bottom = max(page.height - PAD - text_h - 2 * TEXT_GAP, top + 20.0)
        conn_w = CONN_WIDTH * page.width
        return dict(
            page=page,
            lines=lines,
            top=top,
            bottom=bottom,
            conn_w=conn_w,
            w_left=PAD + conn_w + GAP,
        )

    def show_error(self, message: str) -> None:
        self.error.set(message, ERROR)
        self.error.refit()

    def error_text(self) -> str:
        """The error the figure shows ('' when none)."""
        return self.error.get()

    def _update_connections(self, m: GroupsModel) -> None:
        yi, yo = _positions(m.in_channels), _positions(m.out_channels)
        grey = "#999999"
        in_cols = [group_color(g) if g >= 0 else grey for g in m.in_group]
        out_cols = [group_color(g) if g >= 0 else grey for g in m.out_group]
        size = float(np.clip(900.0 / max(m.in_channels, m.out_channels), 6, 60))
        self.in_nodes.set_offsets(np.column_stack([np.zeros_like(yi), yi]))
        self.in_nodes.set_facecolors(in_cols)
        self.in_nodes.set_sizes([size])
        self.out_nodes.set_offsets(np.column_stack([np.ones_like(yo), yo]))
        self.out_nodes.set_facecolors(out_cols)
        self.out_nodes.set_sizes([size])
        self.lines.set_segments([[(0.0, yi[i]), (1.0, yo[o])] for i, o, _ in m.connections])
        self.lines.set_colors([group_color(g) for _, _, g in m.connections])
        self.lines.set_linewidths([1.2 if len(m.connections) <= 64 else 0.5])
        if m.in_channels <= NODE_LABELS_UP_TO:
            self.in_labels.set_labels(
                [-0.17] * m.in_channels, yi, [f"in {c}" for c in range(m.in_channels)]
            )
        else:
            self.in_labels.set_labels(
                [-0.17, -0.17], [yi[0], yi[-1]], ["in 0", f"in {m.in_channels - 1}"]
            )
        if m.out_channels <= NODE_LABELS_UP_TO:
            self.out_labels.set_labels(
                [1.18] * m.out_channels, yo, [f"out {o}" for o in range(m.out_channels)]
            )
        else:
            self.out_labels.set_labels(
                [1.18, 1.18], [yo[0], yo[-1]], ["out 0", f"out {m.out_channels - 1}"]
            )
        if m.ok:
            per_in = m.in_channels // m.groups
            self.title_c.set_text(
                f"{m.groups} group{'s' if m.groups > 1 else ''}: each output channel\n"
                f"sees {per_in} of {m.in_channels} input channel{'s' if m.in_channels > 1 else ''}"
            )
        else:
            self.title_c.set_text("no valid grouping:\nno connections")

    def _update_weight(self, m: GroupsModel) -> None:
        ax = self.ax_w
        if not m.ok:
            self.blocks.set_cells(np.zeros((0, 0, 4)))
            self.group_labels.clear_labels()
            self.title_w.set_text("")
            self.axis_w.set_text("")
            self.error.set(f"ValueError: {m.error}", ERROR)
            return
        self.error.set("")
        cout, per_in, kH, kW = m.weight_shape
        self.axis_w.set_text(f"C_in/groups\n= {per_in}")
        area_w, area_h = self._weight_area()
        px_w = area_w / max(cout * (kW + 1), 1)
        px_h = area_h / max(per_in * (kH + 1), 1)
        detailed = min(px_w, px_h) >= MIN_BLOCK_PX
        rgba, owner = weight_blocks(m, detailed)
        self.blocks.set_cells(rgba, values=owner)
        H, W = rgba.shape[:2]
        ax.set_xlim(-0.5, W - 0.5)
        ax.set_ylim(H - 0.5, -0.5)
        # one label under the middle of each group's columns (placed by _arrange)
        step = (kW + 1) if detailed else 1
        per_out = cout // m.groups
        self._group_x = [
            (g * per_out + (per_out - 1) / 2.0) * step + ((kW - 1) / 2.0 if detailed else 0)
            for g in range(m.groups)
        ]
        self._group_cols = per_out * step - (1 if detailed else 0)  # cells under one group
        unit = f"{kH}×{kW} operator" if detailed else f"square = one {kH}×{kW} operator"
        self.title_w.set_text(
            f"weight {tuple(m.weight_shape)}: columns = output channels (axis 0), "
            f"rows = axis 1\n({unit}s; colour = group)"
            if detailed
            else f"weight {tuple(m.weight_shape)}: columns = output channels (axis 0), "
            f"rows = axis 1\n(one {unit}; colour = group)"
        )

    def _weight_area(self) -> tuple[float, float]:
        """(width, height) in pixels the weight blocks may fill."""
        f, page = self._frame, self._frame["page"]
        label_w = page.size(self.axis_w)[0] + AXIS_LABEL_GAP
        label_h = font_px(GROUP_LABEL_SIZE, self.figure.dpi) * 1.6
        return (
            max(page.width - PAD - f["w_left"] - label_w, 10.0),
            max(f["bottom"] - f["top"] - label_h, 10.0),
        )

    def _arrange(self, m: GroupsModel) -> None:
        """Place both panels, their titles and labels (in pixels) so nothing overlaps.

        The connections panel takes a fixed share of the width and the full height left by the
        text lines under it; the weight blocks get square cells, as big as fit (up to
        ``MAX_CELL``) right of it, under their title, with the group labels under them.
        """
        f, page = self._frame, self._frame["page"]
        top, bottom = f["top"], f["bottom"]
        page.place_axes(self.ax_c, PAD, top, f["conn_w"], bottom - top)
        page.stack_down(f["lines"], PAD, bottom + 2 * TEXT_GAP, TEXT_GAP)
        page.place_text(self.title_c, PAD + f["conn_w"] / 2, top - TITLE_GAP, "center", "bottom")
        label_w = page.size(self.axis_w)[0] + AXIS_LABEL_GAP
        left = f["w_left"] + label_w
        area_w, area_h = self._weight_area()
        page.place_text(self.error.artist, f["w_left"], (top + bottom) / 2, "left", "center")
        self.error.fit(page.width - PAD - f["w_left"], page.dpi)
        self.ax_w.set_visible(m.ok)  # an empty box would still count in a tight bounding box
        if not m.ok:
            self.group_labels.clear_labels()
            return
        H, W = self.blocks.rgba.shape[:2]
        cell = min(area_w / W, area_h / H, MAX_CELL)
        w, h = W * cell, H * cell
        x0 = left + (area_w - w) / 2
        page.place_axes(self.ax_w, x0, top, w, h)
        page.place_text(self.axis_w, x0 - AXIS_LABEL_GAP, top, "right", "top")
        # the title centred over the blocks, kept inside the weight area
        tw = page.size(self.title_w)[0]
        cx = min(max(x0 + w / 2, f["w_left"] + tw / 2), page.width - PAD - tw / 2)
        page.place_text(self.title_w, cx, top - TITLE_GAP, "center", "bottom")
        # group labels: "group g" if it fits under the group's columns, else "g", else none
        group_px = self._group_cols * cell
        dpi = page.dpi
        widest = text_width(f"group {m.groups - 1}", GROUP_LABEL_SIZE, dpi=dpi)
        if m.groups > 16 or text_width(str(m.groups - 1), GROUP_LABEL_SIZE, dpi=dpi) > group_px:
            self.group_labels.clear_labels()
            return
        names = [f"group {g}" if widest <= group_px else str(g) for g in range(m.groups)]
        y = H - 0.5 + (4.0 + 0.5 * font_px(GROUP_LABEL_SIZE, dpi)) / cell
        self.group_labels.set_labels(
            self._group_x,
            [y] * m.groups,
            names,
            INK,  # under its block of the group's colour (coloured text fails on one theme)
        )

    def _update_text(self, m: GroupsModel) -> None:
        kH, kW = m.kernel_size
        if m.ok:
            cout, per_in = m.weight_shape[:2]
            self.shape_text.set(
                f"weight shape (C_out, C_in/groups, kH, kW) = ({m.out_channels}, "
                f"{m.in_channels}/{m.groups}, {kH}, {kW}) = {tuple(m.weight_shape)}"
            )
            compare = (
                f"   (groups=1 would need {m.standard_parameters}: {m.groups}× more)"
                if m.groups > 1
                else ""
            )
            self.count_text.set(
                f"{cout} × {per_in} = {m.operators} operators of {kH}×{kW}  →  "
                f"{m.operators} × {kH * kW} = {m.parameters} weights{compare}"
            )
        else:  # PyTorch's message is drawn once, in the weight panel (see _update_weight)
            self.shape_text.set(
                f"in_channels={m.in_channels}, out_channels={m.out_channels}, groups={m.groups}: "
                "both channel counts must be divisible by groups"
            )
            self.count_text.set("")
        self.code_text.set(m.code())


@accepts_torch(layer="any")
def groups_figure(in_channels: int, out_channels: int, groups: int = 1, kernel_size=3) -> Figure:
    """A new figure of ``nn.Conv2d(in, out, k, groups=g)``'s connections and weight blocks.

    ``groups_figure(layer)`` reads the four settings from a conv layer (``torch.nn``'s or
    tensorlab's).

    An illegal configuration draws the channels and PyTorch's error message instead of raising.
    """
    scene = GroupsScene()
    scene.update(groups_model(in_channels, out_channels, groups, kernel_size))
    crop_to_content(scene.figure)
    scene.figure._tensorlab_scene = scene
    return scene.figure
