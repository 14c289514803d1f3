"""The memory figure: every step's logical grid above the storage strip(s) it reads.

Each logical cell shows its value and ``@offset`` (its position in storage). The selected step is
tinted blue, and so are the storage cells it covers; arcs above the strip walk its elements in
logical order. Cells written through any view are yellow in *every* step that shares the
storage (aliasing). A copy gets a strip of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

from ..interop import accepts_torch
from ._draw import (
    COVERED,
    ERROR,
    FIGURE_WIDTH,
    HIGHLIGHT,
    INK,
    MAX_FIGURE_PX,
    WINDOW,
    CellLabels,
    Page,
    TextLine,
    bare_axes,
    cell_squares,
    crop_to_content,
    font_px,
    new_figure,
    rect_outline,
    text_width,
)
from ._memory_model import MemoryModel, memory_model
from ._theme import NOTE_INK

# font sizes (points) of the labels the layout makes room for
HEAD_SIZE, INFO_SIZE, POSITION_SIZE = 8.0, 7.0, 6.5
# layout, in pixels at the figure's dpi
PAD = 8.0  # empty border around everything
CELL_MAX, CELL_MIN = 34.0, 2.0  # the biggest cells that fit are used, within these bounds
SLOT_GAP = 16.0  # between two grids side by side
ROW_GAP = 14.0  # between rows of grids, and between the grids and the storage strips
TEXT_GAP = 7.0  # between lines of text under the picture
AREA = (
    MAX_FIGURE_PX - 2 * PAD,
    430.0,
)  # what memory_layout fills by default (the default figure's picture area)
SELECTED_FACE = "#d0e7ff"
SAME_STORAGE_FACE = "none"  # the theme shows through: its labels are INK
OTHER_STORAGE_FACE = "#eef0f2"
WALK = "#3b82c4"  # the selected step: frame and arcs (4:1 on white and on #111111)


def cell_rc(shape: tuple[int, ...], flat: int) -> tuple[int, int]:
    """(row, col) of logical element ``flat`` in the 2-D picture of ``shape``."""
    if len(shape) <= 1:
        return 0, flat
    return flat // shape[-1], flat % shape[-1]


def grid_size(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, cols) of the picture: leading dims stack rows, the last dim runs across."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return 1, shape[0]
    cols = shape[-1]
    rows = int(np.prod(shape[:-1]))
    return rows, cols


@dataclass
class MemoryLayout:
    """Where everything goes, in cell units (one unit = ``cell`` pixels; y grows downwards)."""

    grid_origin: list[tuple[float, float]]  # top-left cell centre of each step's grid
    strip_origin: list[tuple[float, float]]  # storage position 0 of each storage
    width: float  # of the whole picture, from x = 0
    height: float  # of the whole picture, from y = 0
    cell: float = 30.0  # pixels per cell
    head_xy: list[tuple[float, float]] = field(default_factory=list)  # step titles (left, centre)
    info_xy: list[tuple[float, float]] = field(default_factory=list)  # their info lines
    strip_info_xy: list[tuple[float, float]] = field(default_factory=list)
    position_dy: float = 0.85  # storage positions are written this far under the cell centres

    def cell_xy(self, model: MemoryModel, step: int, flat: int) -> tuple[float, float]:
        gx, gy = self.grid_origin[step]
        r, c = cell_rc(model.steps[step].shape, flat)
        return gx + c, gy + r

    def storage_xy(self, storage: int, pos: int) -> tuple[float, float]:
        sx, sy = self.strip_origin[storage]
        return sx + pos, sy


def _titles(model: MemoryModel, k: int) -> tuple[str, str]:
    s = model.steps[k]
    head = "x" if k == 0 else f"step {k}: {s.op_text}"
    store = model.storages[s.storage].name
    kind = {"base": f"storage {store}", "view": f"view, {store}", "copy": f"COPY → {store}"}[s.kind]
    info = f"{s.shape} · strides {s.stride} · +{s.offset} · {kind}"
    return head, info


def _line_height(size: float, dpi: float) -> float:
    """Pixels one line of labels at ``size`` points takes (ascent to descent, plus a little)."""
    return 1.15 * font_px(size, dpi)


def _strip_info(model: MemoryModel, j: int) -> str:
    st = model.storages[j]
    made = model.steps[st.made_by]
    return (
        f"storage {st.name}: {len(st.values)} elements, made by "
        f"{made.name if st.made_by else 'x'}"
        + ("   (blue: the cells the selected step reads)" if j == model.view.storage else "")
    )


def memory_layout(model: MemoryModel, area=AREA, dpi: float = 90.0) -> MemoryLayout:
    """Where every grid, title and strip goes, with the biggest cells that fit ``area``.

    ``area`` is (width, height) in pixels at ``dpi``. Titles keep their size in pixels (they are
    measured, not estimated), so a grid's slot is as wide as its widest title. Grids fill rows
    left to right; the storage strips go under them, each with room above for the arcs of the
    walk and under it for the positions and a line of text.
    """
    heads = [_titles(model, k) for k in range(len(model.steps))]
    head_w = [
        max(text_width(h, HEAD_SIZE, "bold", dpi=dpi), text_width(i, INFO_SIZE, dpi=dpi))
        for h, i in heads
    ]
    strip_w = [
        text_width(_strip_info(model, j), INFO_SIZE, dpi=dpi) for j in range(len(model.storages))
    ]
    cell = CELL_MAX
    while True:
        lay, w, h = _layout_px(model, cell, head_w, strip_w, area[0], dpi)
        if (w <= area[0] and h <= area[1]) or cell <= CELL_MIN:
            return lay
        cell = max(cell - 0.5 if cell > 12 else cell * 0.94, CELL_MIN)


def _layout_px(model: MemoryModel, c: float, head_w, strip_w, max_w: float, dpi: float):
    """The layout with ``c``-pixel cells, and its (width, height) in pixels."""
    head_h, info_h = _line_height(HEAD_SIZE, dpi), _line_height(INFO_SIZE, dpi)
    title_h = head_h + info_h + 3.0
    origins, heads, infos = [], [], []
    x = y = row_h = 0.0
    width = 0.0
    for k, step in enumerate(model.steps):
        rows, cols = grid_size(step.shape)
        slot = max(cols * c, head_w[k])
        if x > 0 and x + slot > max_w:
            x, y = 0.0, y + row_h + ROW_GAP
            row_h = 0.0
        heads.append((x / c, (y + head_h / 2) / c))
        infos.append((x / c, (y + head_h + info_h / 2) / c))
        origins.append((x / c + 0.5, (y + title_h) / c + 0.5))
        width = max(width, x + slot)
        x += slot + SLOT_GAP
        row_h = max(row_h, title_h + rows * c)
    y += row_h + ROW_GAP
    pos_h = _line_height(POSITION_SIZE, dpi)
    strips, strip_infos = [], []
    for j, st in enumerate(model.storages):
        y += 2.0 * c + 4.0  # the walk's arcs rise up to 1.9 cells above the strip
        strips.append((0.5, y / c + 0.5))
        y += c + 2.0 + pos_h
        strip_infos.append((0.0, (y + info_h / 2) / c))
        y += info_h + ROW_GAP
        width = max(width, len(st.values) * c, strip_w[j])
    height = y - ROW_GAP
    lay = MemoryLayout(
        origins,
        strips,
        width / c,
        height / c,
        cell=c,
        head_xy=heads,
        info_xy=infos,
        strip_info_xy=strip_infos,
        position_dy=0.5 + (2.0 + pos_h / 2) / c,
    )
    return lay, width, height


class MemoryScene:
    """Artists of the memory figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(FIGURE_WIDTH, 6.6)
        # the most height a picture may take; each update trims the figure to what it uses, so
        # a small chain leaves no blank band between the picture and the controls under it
        self.max_height = float(fig.get_size_inches()[1])
        ax = self.ax = fig.add_axes((0.01, 0.30, 0.98, 0.68))
        bare_axes(ax, equal=False)  # the box gets the picture's exact size in pixels
        self.cells = PolyCollection([], edgecolors=INK, linewidths=0.6, zorder=1)
        ax.add_collection(self.cells)
        self.separators = LineCollection([], colors=INK, linewidths=1.6, zorder=2)
        self.frame = LineCollection([], colors=WALK, linewidths=2.2, zorder=3)
        self.arcs = LineCollection([], colors=WALK, linewidths=1.0, alpha=0.75, zorder=3)
        self.ring = LineCollection([], colors=WINDOW, linewidths=2.2, zorder=4)
        for coll in (self.separators, self.frame, self.arcs, self.ring):
            ax.add_collection(coll)
        (self.heads,) = ax.plot([], [], "v", ms=4, color=WALK, alpha=0.85, zorder=3)
        # the box ends at the outermost cell edges: lines drawn on them must not lose their half
        for artist in (self.cells, self.separators, self.frame, self.arcs, self.ring):
            artist.set_clip_on(False)
        self.values = CellLabels(ax, size=8.5)
        self.offsets = CellLabels(ax, size=6, min_size=4.5)
        self.positions = CellLabels(ax, size=POSITION_SIZE, min_size=4.5)
        self.titles = CellLabels(ax, size=HEAD_SIZE, weight="bold", cell=None, ha="left")
        self.infos = CellLabels(ax, size=INFO_SIZE, cell=None, ha="left")
        self.formula = TextLine(fig, fontsize=9.5)
        self.status = TextLine(fig, fontsize=8.5)
        self.error = TextLine(fig, fontsize=8)
        self.model: MemoryModel | None = None
        self.layout: MemoryLayout | None = None
        self.faces: dict[tuple[float, float], tuple] = {}  # cell centre -> RGBA drawn there
        self._placed = None  # (box, xlim, ylim, margin) of the picture, in pixels from the top

    def show_error(self, message: str) -> None:
        self.error.set(message, ERROR)
        self._arrange_text()

    def error_text(self) -> str:
        """The error the figure shows ('' when none; a note about a write is not an error)."""
        return self.error.get() if mcolors.same_color(self.error.artist.get_color(), ERROR) else ""

    def _set_height(self, inches: float) -> None:
        """Make the figure ``inches`` high (its width stays)."""
        w, h = self.figure.get_size_inches()
        if abs(h - inches) * self.figure.dpi >= 0.5:
            self.figure.set_size_inches(w, inches)

    def _arrange_text(self) -> None:
        """The text lines under the picture, the figure as high as they need."""
        page = Page(self.figure)
        lines = [self.formula, self.status, self.error]
        text_h = page.fit_lines(lines, page.width - 2 * PAD, TEXT_GAP)
        bottom = PAD if self._placed is None else self._placed[0][1] + self._placed[0][3]
        self._set_height((bottom + 2 * TEXT_GAP + text_h + PAD) / page.dpi)
        page = Page(self.figure)
        if self._placed is not None:
            page.place_data(self.ax, *self._placed)
        page.stack_down(lines, PAD, bottom + 2 * TEXT_GAP, TEXT_GAP)

    # ------------------------------------------------------------------ update
    def update(self, m: MemoryModel) -> None:
        self.model = m
        self._update_text(m)
        page = Page(self.figure)
        lines = [self.formula, self.status, self.error]
        text_h = page.fit_lines(lines, page.width - 2 * PAD, TEXT_GAP)
        max_h = self.max_height * page.dpi
        area = (page.width - 2 * PAD, max(max_h - 2 * PAD - text_h - 2 * TEXT_GAP, 20.0))
        lay = self.layout = memory_layout(m, area, page.dpi)
        faces: dict[tuple[float, float], tuple] = {}
        lit = m.lit()
        covered = set(m.covered().tolist())
        sel_storage = m.view.storage

        seps, frames = [], []
        vx, vy, vt, ox, oy, ot = [], [], [], [], [], []
        tx, ty, tt, ix, iy, it = [], [], [], [], [], []
        face_sel = mcolors.to_rgba(SELECTED_FACE)
        face_same = mcolors.to_rgba(SAME_STORAGE_FACE)
        face_other = mcolors.to_rgba(OTHER_STORAGE_FACE)
        face_lit = mcolors.to_rgba(HIGHLIGHT)
        face_cov = mcolors.to_rgba(COVERED)

        vc, oc = [], []  # label colours: dark on an opaque face, INK where the theme shows

        def paint(x: float, y: float, rgba) -> None:
            faces[(float(x), float(y))] = rgba
            vc.append("black" if rgba[3] > 0 else INK)
            oc.append("#495057" if rgba[3] > 0 else INK)

        for k, step in enumerate(m.steps):
            gx, gy = lay.grid_origin[k]
            rows, cols = grid_size(step.shape)
            head, info = _titles(m, k)
            tx.append(lay.head_xy[k][0])
            ty.append(lay.head_xy[k][1])
            tt.append(head)
            ix.append(lay.info_xy[k][0])
            iy.append(lay.info_xy[k][1])
            it.append(info)
            base_face = (
                face_sel
                if k == m.selected
                else face_same
                if step.storage == sel_storage
                else face_other
            )
            lit_here = lit.get(step.storage, set())
            for e in range(step.offsets.size):
                r, c = cell_rc(step.shape, e)
                x, y = gx + c, gy + r
                off = int(step.offsets[e])
                paint(x, y, face_lit if off in lit_here else base_face)
                vx.append(x)
                vy.append(y - 0.12)
                vt.append(_fmt_value(step.values[e]))
                ox.append(x)
                oy.append(y + 0.3)
                ot.append(f"@{off}")
            if len(step.shape) >= 3 and step.shape[-2] > 0:
                for r in range(step.shape[-2], rows, step.shape[-2]):
                    seps.append([(gx - 0.5, gy + r - 0.5), (gx + cols - 0.5, gy + r - 0.5)])
            if k == m.selected and step.offsets.size:
                frames.append(rect_outline(gx - 0.6, gy - 0.6, gx + cols - 0.4, gy + rows - 0.4))

        px, py, pt = [], [], []
        for j, st in enumerate(m.storages):
            sx, sy = lay.strip_origin[j]
            lit_here = lit.get(j, set())
            for p, v in enumerate(st.values):
                x = sx + p
                if p in lit_here:
                    face = face_lit
                elif j == sel_storage and p in covered:
                    face = face_cov
                else:
                    face = face_same
                paint(x, sy, face)
                vx.append(x)
                vy.append(sy)
                vt.append(_fmt_value(v))
                oc.pop()  # storage cells show no offset
                px.append(x)
                py.append(sy + lay.position_dy)
                pt.append(str(p))
            ix.append(lay.strip_info_xy[j][0])
            iy.append(lay.strip_info_xy[j][1])
            it.append(_strip_info(m, j))

        self.faces = faces
        self.cells.set_verts(
            [rect_outline(x - 0.5, y - 0.5, x + 0.5, y + 0.5)[:4] for x, y in faces]
        )
        self.cells.set_facecolors(list(faces.values()))
        self.separators.set_segments(seps)
        self.frame.set_segments(frames)
        self.values.set_labels(vx, vy, vt, vc)
        self.offsets.set_labels(ox, oy, ot, oc)
        self.positions.set_labels(px, py, pt, INK)
        self.titles.set_labels(tx, ty, tt)
        self.infos.set_labels(ix, iy, it, INK)
        self._update_walk(m, lay)
        c = lay.cell
        used = PAD + lay.height * c + 2 * TEXT_GAP + text_h + PAD
        self._set_height(min(used, max_h) / page.dpi)
        page = Page(self.figure)
        box = (PAD, PAD, lay.width * c, lay.height * c)
        # the selected step's frame is 0.1 cell outside its grid, and thick
        self._placed = (box, (0.0, lay.width), (0.0, lay.height), 0.1 * c + 2.0)
        page.place_data(self.ax, *self._placed)
        page.stack_down(lines, PAD, PAD + lay.height * lay.cell + 2 * TEXT_GAP, TEXT_GAP)

    def _update_text(self, m: MemoryModel) -> None:
        self.formula.set(m.formula())
        self.status.set(m.describe().split(" | ")[0])
        if m.error is not None:
            text = f"{m.error.op_text} failed: {m.error.message}"
            if m.error.explanation:
                text += "\n" + m.error.explanation
            self.error.set(text, ERROR)
        else:
            bad = [w for w in m.writes if w.error]
            self.error.set(
                "write failed: " + bad[-1].error if bad else _write_note(m),
                ERROR if bad else NOTE_INK,
            )

    def _update_walk(self, m: MemoryModel, lay: MemoryLayout) -> None:
        sx, sy = lay.strip_origin[m.view.storage]
        arcs, heads = [], []
        t = np.linspace(0.0, 1.0, 16)
        for a, b in m.walk():
            if a == b:
                continue
            h = min(0.45 + 0.12 * abs(b - a), 1.9)
            xs = sx + a + (b - a) * t
            ys = sy - 0.5 - h * np.sin(np.pi * t)
            arcs.append(np.column_stack([xs, ys]))
            heads.append((sx + b, sy - 0.62))
        self.arcs.set_segments(arcs)
        hv = np.array(heads, dtype=float).reshape(-1, 2)
        self.heads.set_data(hv[:, 0], hv[:, 1])
        if m.element_offset is None:
            self.ring.set_segments([])
            return
        cx, cy = lay.cell_xy(m, m.selected, m.element)
        self.ring.set_segments(cell_squares([cy, sy], [cx, sx + m.element_offset], half=0.47))


def _fmt_value(v) -> str:
    v = float(v)
    return str(int(v)) if v == int(v) and abs(v) < 1e6 else f"{v:.3g}"


def _write_note(m: MemoryModel) -> str:
    done = [w for w in m.writes if w.error is None]
    if not done:
        return ""
    w = done[-1]
    st = m.storages[w.storage].name
    sharing = [s.name for s in m.steps if s.storage == w.storage]
    return (
        f"wrote {_fmt_value(w.value)} through {m.steps[w.step].name} into storage {st}[{w.offset}]: "
        f"yellow in every step on storage {st} ({', '.join(sharing)})"
    )


@accepts_torch
def memory_figure(
    x=None,
    chain: str = "",
    *,
    shape=(2, 5),
    selected: int | None = None,
    element: int = 0,
    writes=None,
) -> Figure:
    """A new figure of ``x`` (default ``arange(n).view(shape)``) and the ops in ``chain``.

    Same arguments as :func:`tensorlab.viz._memory_model.memory_model`; ``x`` (a tensorlab or torch
    tensor) is never modified.
    """
    scene = MemoryScene()
    scene.update(
        memory_model(x, chain, shape=shape, selected=selected, element=element, writes=writes)
    )
    crop_to_content(scene.figure)
    scene.figure._tensorlab_scene = scene
    return scene.figure
