"""The memory figure: every step's logical grid above the storage strip(s) it reads.

Each logical cell shows its value and ``@offset`` (its position in storage). The selected step is
tinted blue, and so are the storage cells it covers; arcs above the strip walk its elements in
logical order. Cells written through any view are yellow in *every* step that shares the
storage (aliasing). A copy gets a strip of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.figure import Figure

from ._draw import (
    COVERED,
    ERROR,
    HIGHLIGHT,
    WINDOW,
    CellLabels,
    TextLine,
    bare_axes,
    cell_squares,
    new_figure,
    rect_outline,
)
from ._memory_model import MemoryModel, memory_model

CHAR_CELLS = 0.2  # estimated width of one title character, in cells
SELECTED_FACE = "#d0e7ff"
SAME_STORAGE_FACE = "#ffffff"
OTHER_STORAGE_FACE = "#eef0f2"


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
    grid_origin: list[tuple[float, float]]  # top-left cell centre of each step's grid
    strip_origin: list[tuple[float, float]]  # storage position 0 of each storage
    width: float
    height: float

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


def memory_layout(model: MemoryModel, aspect: float = 2.5) -> MemoryLayout:
    """Where every grid and strip goes, in cell units (y grows downwards).

    Grids fill rows left to right; the row width is chosen so the whole picture has the biggest
    cells in an area ``aspect`` times wider than high.
    """
    best = None
    for row_width in (16, 24, 32, 40, 52, 64, 80):
        lay = _layout_rows(model, row_width)
        cell = min(aspect / lay.width, 1.0 / lay.height)
        if best is None or cell > best[0] + 1e-9:
            best = (cell, lay)
    return best[1]


def _layout_rows(model: MemoryModel, row_width: int) -> MemoryLayout:
    origins = []
    x = y = 0
    row_h = 0
    width = 1
    for k, step in enumerate(model.steps):
        rows, cols = grid_size(step.shape)
        head, info = _titles(model, k)
        slot = int(np.ceil(max(cols, CHAR_CELLS * max(len(head), len(info))) + 1.5))
        if x > 0 and x + slot > row_width:
            x, y = 0, y + row_h + 3
            row_h = 0
        origins.append((float(x), float(y + 2)))
        width = max(width, x + cols)
        x += slot
        row_h = max(row_h, rows + 2)
    y += row_h + 3
    strips = []
    for st in model.storages:
        strips.append((0.0, float(y)))
        width = max(width, len(st.values))
        y += 4
    return MemoryLayout(origins, strips, width, y - 2.0)


class MemoryScene:
    """Artists of the memory figure, built once; ``update(model)`` refreshes them."""

    def __init__(self, figure: Figure | None = None):
        fig = self.figure = figure if figure is not None else new_figure(11.0, 6.6)
        ax = self.ax = fig.add_axes((0.01, 0.30, 0.98, 0.68))
        bare_axes(ax)
        self.cells = PolyCollection([], edgecolors="#6c757d", linewidths=0.6, zorder=1)
        ax.add_collection(self.cells)
        self.separators = LineCollection([], colors="#212529", linewidths=1.6, zorder=2)
        self.frame = LineCollection([], colors="#1864ab", linewidths=2.2, zorder=3)
        self.arcs = LineCollection([], colors="#1864ab", linewidths=1.0, alpha=0.75, zorder=3)
        self.ring = LineCollection([], colors=WINDOW, linewidths=2.2, zorder=4)
        for coll in (self.separators, self.frame, self.arcs, self.ring):
            ax.add_collection(coll)
        (self.heads,) = ax.plot([], [], "v", ms=4, color="#1864ab", alpha=0.85, zorder=3)
        self.values = CellLabels(ax, size=8.5)
        self.offsets = CellLabels(ax, size=6, min_size=4.5)
        self.positions = CellLabels(ax, size=6.5, min_size=4.5)
        self.titles = CellLabels(ax, size=8, weight="bold", cell=None, ha="left")
        self.infos = CellLabels(ax, size=7, cell=None, ha="left")
        self.formula = TextLine(fig, 0.01, 0.275, fontsize=9.5)
        self.status = TextLine(fig, 0.01, 0.225, fontsize=8.5)
        self.error = TextLine(fig, 0.01, 0.175, fontsize=8)
        self.model: MemoryModel | None = None
        self.layout: MemoryLayout | None = None
        self.faces: dict[tuple[float, float], tuple] = {}  # cell centre -> RGBA drawn there

    def show_error(self, message: str) -> None:
        self.error.set(message, ERROR)

    # ------------------------------------------------------------------ update
    def update(self, m: MemoryModel) -> None:
        self.model = m
        lay = self.layout = memory_layout(m)
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

        def paint(x: float, y: float, rgba) -> None:
            faces[(float(x), float(y))] = rgba

        for k, step in enumerate(m.steps):
            gx, gy = lay.grid_origin[k]
            rows, cols = grid_size(step.shape)
            head, info = _titles(m, k)
            tx.append(gx - 0.5)
            ty.append(gy - 1.45)
            tt.append(head)
            ix.append(gx - 0.5)
            iy.append(gy - 0.85)
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
                px.append(x)
                py.append(sy + 0.85)
                pt.append(str(p))
            made = m.steps[st.made_by]
            ix.append(sx - 0.5)
            iy.append(sy + 1.6)
            it.append(
                f"storage {st.name}: {len(st.values)} elements, made by "
                f"{made.name if st.made_by else 'x'}"
                + ("   (blue: the cells the selected step reads)" if j == sel_storage else "")
            )

        self.faces = faces
        self.cells.set_verts(
            [rect_outline(x - 0.5, y - 0.5, x + 0.5, y + 0.5)[:4] for x, y in faces]
        )
        self.cells.set_facecolors(list(faces.values()))
        self.separators.set_segments(seps)
        self.frame.set_segments(frames)
        self.values.set_labels(vx, vy, vt)
        self.offsets.set_labels(ox, oy, ot, "#495057")
        self.positions.set_labels(px, py, pt, "#868e96")
        self.titles.set_labels(tx, ty, tt)
        self.infos.set_labels(ix, iy, it, "#343a40")
        self._update_walk(m, lay)
        self.ax.set_xlim(-1.0, max(lay.width, 8.0) + 0.5)
        self.ax.set_ylim(lay.height + 0.5, -0.5)
        self.formula.set(m.formula())
        self.status.set(m.describe().split(" | ")[0])
        if m.error is not None:
            text = f"{m.error.op_text} failed: {m.error.message}"
            if m.error.explanation:
                text += "\n" + m.error.explanation
            self.error.set(_wrap(text, 165), ERROR)
        else:
            bad = [w for w in m.writes if w.error]
            self.error.set(
                "write failed: " + bad[-1].error if bad else _write_note(m),
                ERROR if bad else "#5c4d00",
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


def _wrap(text: str, width: int) -> str:
    out = []
    for line in text.split("\n"):
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            cut = cut if cut > 0 else width
            out.append(line[:cut])
            line = line[cut:].lstrip()
        out.append(line)
    return "\n".join(out[:6])


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

    Same arguments as :func:`tensorlab.viz._memory_model.memory_model`; ``x`` is never modified.
    """
    scene = MemoryScene()
    scene.update(
        memory_model(x, chain, shape=shape, selected=selected, element=element, writes=writes)
    )
    scene.figure._tensorlab_scene = scene
    return scene.figure
