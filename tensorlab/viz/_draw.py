"""Drawing helpers shared by every figure: a figure factory, colours, and fast cell labels.

Matplotlib draws each ``Text`` artist through its whole layout machinery (about a millisecond per
label on a slow CPU), so a grid of 200 numbers costs a fifth of a second. :class:`CellLabels`
is one artist for many short labels: with the Agg renderer (inline PNGs, ipympl, ``savefig`` to
PNG) it stamps cached bitmaps of each distinct string, rendered once by Agg itself, so a redraw
costs microseconds per label; with a vector renderer (PDF, SVG) it draws real text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from matplotlib import colors as mcolors
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from ._numbers import snap_zero  # noqa: F401 - figures print values through it
from ._theme import ERROR_INK, INK  # text and lines drawn on the (transparent) ground

# ---------------------------------------------------------------------------------- colours
GROUP_COLORS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
)
INVENTED = "#ff9f1c"  # padding pixels that are not in the image
WINDOW = "#e63946"  # the kernel window and the current output cell
HIGHLIGHT = "#ffd60a"  # a written / lit cell
COVERED = "#9ecae1"  # storage cells a view covers
NEW_AXIS = "#e07000"  # orange: 3.2:1 on white, 5.8:1 on #111111
REMOVED = "#d62728"
ERROR = ERROR_INK  # errors drawn on the ground: readable on light and dark themes


# ---------------------------------------------------------------------------------- text size
# Figures are shown 1:1 (a PNG pixel is a screen pixel at 100 % zoom, and every figure is at most
# MAX_FIGURE_PX wide, so a notebook's output area never scales it down): no text is drawn smaller
# than MIN_TEXT_PX pixels. Layouts measure text through the same floor, so they make room for it.
MIN_TEXT_PX = 9.0
MAX_FIGURE_PX = 864.0  # 9.6 inches at the default 90 dpi: fits JupyterLab's output area at 1400 px
FIGURE_DPI = 90.0
FIGURE_WIDTH = MAX_FIGURE_PX / FIGURE_DPI  # inches


def min_points(dpi: float) -> float:
    """The smallest font size (points) drawn at ``dpi``: :data:`MIN_TEXT_PX` pixels."""
    return MIN_TEXT_PX * 72.0 / float(dpi)


def points(size: float, dpi: float) -> float:
    """The font size actually drawn for ``size`` points at ``dpi`` (never below the floor)."""
    return max(float(size), min_points(dpi))


def font_px(size: float, dpi: float) -> float:
    """Pixels per em of text of ``size`` points at ``dpi``, as drawn (floor included)."""
    return points(size, dpi) * float(dpi) / 72.0


def group_color(k: int) -> str:
    """A colour per group / axis, cycling through 10 distinguishable ones."""
    return GROUP_COLORS[k % len(GROUP_COLORS)]


def new_figure(width: float, height: float, dpi: float = FIGURE_DPI) -> Figure:
    """A ``Figure`` with an Agg canvas, made without pyplot (no global state, nothing shown).

    Its ground is transparent whatever the rc settings, so the notebook's theme (light or dark)
    shows through; what is drawn on the ground uses :data:`INK` and the other theme-neutral
    colours of :mod:`tensorlab.viz._theme`, never black or white.
    """
    fig = Figure(figsize=(width, height), dpi=dpi, facecolor="none", edgecolor="none")
    FigureCanvasAgg(fig)
    return fig


def bare_axes(ax, *, equal: bool = True) -> None:
    """No ticks, no spines: figures here are diagrams, not plots."""
    ax.set_axis_off()
    if equal:
        ax.set_aspect("equal", adjustable="box")


def fmt_number(v: float) -> str:
    """A short label for a cell value: ``4``, ``-1``, ``0.25``, ``1e+03``."""
    v = float(v)
    if math.isnan(v):
        return "nan"
    if v == 0:
        return "0"
    if v == round(v) and abs(v) < 1e5:
        return str(int(round(v)))
    if abs(v) >= 1e3 or abs(v) < 1e-2:
        return f"{v:.0e}"
    return f"{v:.2f}".rstrip("0").rstrip(".") if abs(v) < 10 else f"{v:.1f}"


def text_colors_on(values: np.ndarray, cmap, norm) -> list[str]:
    """Label colour for each value drawn with ``cmap`` / ``norm`` (see :func:`text_colors_for`)."""
    return text_colors_for(cmap(norm(np.asarray(values, dtype=float))))


def text_colors_for(rgba: np.ndarray) -> list[str]:
    """Label colour for each cell colour (rows of RGB(A) in 0..1): black or white, whichever has
    the higher WCAG contrast with the cell (at least 4.58:1 whatever the cell's colour)."""
    rgb = np.asarray(rgba, dtype=float).reshape(-1, np.shape(rgba)[-1])[:, :3]
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    lum = linear @ np.array([0.2126, 0.7152, 0.0722])
    # black wins when (L + 0.05) / 0.05 > 1.05 / (L + 0.05), i.e. L > 0.179
    return ["black" if v > 0.17913 else "white" for v in np.ravel(lum)]


def rect_outline(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    """The closed polyline of an axis-aligned rectangle (for a ``LineCollection``)."""
    return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], dtype=float)


def cell_squares(rows: Sequence[float], cols: Sequence[float], half: float = 0.5) -> list:
    """Outlines of unit cells centred on (row, col) pairs, in imshow's (x=col, y=row) coordinates."""
    return [rect_outline(c - half, r - half, c + half, r + half) for r, c in zip(rows, cols)]


# ---------------------------------------------------------------------------------- glyphs
def _font_key(size: float, weight, family: str, dpi: float) -> tuple:
    return (points(size, dpi), str(weight), str(family), float(dpi))


@lru_cache(maxsize=4096)
def _glyph(ch: str, size: float, weight: str, family: str, dpi: float):
    """Agg's own bitmap of one character: (alpha mask, ink left, ink top, advance) in pixels.

    ``ink left`` is relative to the pen position and ``ink top`` to the baseline (negative: above).
    The advance is FreeType's hinted advance, the same whole-pixel step Agg's layout uses.
    """
    prop = FontProperties(size=size, weight=weight, family=family)
    px = size * dpi / 72.0
    pad = int(px) + 4
    W = H = int(3 * px) + 2 * pad
    r = RendererAgg(W, H, dpi)
    gc = r.new_gc()
    gc.set_foreground("black")
    baseline = int(2 * px) + pad
    r.draw_text(gc, pad, baseline, ch, prop, 0)
    gc.restore()
    alpha = np.asarray(r.buffer_rgba())[..., 3]
    font = get_font(findfont(prop))
    font.set_size(size, dpi)
    if font.get_char_index(ord(ch)):
        advance = font.load_char(ord(ch)).horiAdvance / 64.0
    else:  # drawn with a fallback font: measure it
        advance = r.get_text_width_height_descent(ch, prop, ismath=False)[0]
    rows = np.flatnonzero(alpha.any(axis=1))
    cols = np.flatnonzero(alpha.any(axis=0))
    if rows.size == 0:
        return np.zeros((0, 0), np.uint8), 0, 0, advance
    top, bottom, left, right = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
    mask = np.ascontiguousarray(alpha[top:bottom, left:right])
    mask.setflags(write=False)
    return mask, int(left - pad), int(top - baseline), advance


@lru_cache(maxsize=8192)
def _line_mask(s: str, size: float, weight: str, family: str, dpi: float):
    """One line of text as (alpha mask, ink left from pen start, ink top from baseline, advance)."""
    placed = []
    pen = 0.0
    for ch in s:
        mask, dx, dy, adv = _glyph(ch, size, weight, family, dpi)
        if mask.size:
            placed.append((int(round(pen)) + dx, dy, mask))
        pen += adv
    if not placed:
        return np.zeros((0, 0), np.uint8), 0, 0, pen
    x0 = min(p[0] for p in placed)
    y0 = min(p[1] for p in placed)
    x1 = max(p[0] + p[2].shape[1] for p in placed)
    y1 = max(p[1] + p[2].shape[0] for p in placed)
    out = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for x, y, mask in placed:
        region = out[y - y0 : y - y0 + mask.shape[0], x - x0 : x - x0 + mask.shape[1]]
        np.maximum(region, mask, out=region)
    out.setflags(write=False)
    return out, x0, y0, pen


@lru_cache(maxsize=64)
def _metrics(size: float, weight: str, family: str, dpi: float) -> tuple[int, int, float]:
    """(digit height above baseline, descent of 'p', line height) in pixels."""
    _, _, top0, _ = _glyph("0", size, weight, family, dpi)
    mask_p, _, top_p, _ = _glyph("p", size, weight, family, dpi)
    return -top0, top_p + mask_p.shape[0], 1.2 * size * dpi / 72.0


def _rgb255(c) -> np.ndarray:
    return (np.array(mcolors.to_rgb(c)) * 255).astype(np.uint8)


def _draw_composite(renderer, comp) -> None:
    """Draw a :func:`_composite` result (``None``: nothing to draw)."""
    if comp is None:
        return
    img, x, y = comp
    gc = renderer.new_gc()
    renderer.draw_image(gc, x, y, img)
    gc.restore()


def _composite(stamps, H: int, W: int, alpha: float = 1.0):
    """(image, x, y) for ``draw_image``: the stamps composited on a canvas ``H`` x ``W`` pixels.

    Artists keep this between draws while nothing they show has changed: an explorer redraws the
    whole figure on every change, but most of its labels are where they were.
    """
    if not stamps:
        return None
    t0 = max(0, min(s[0] for s in stamps))
    l0 = max(0, min(s[1] for s in stamps))
    t1 = min(H, max(s[0] + s[2].shape[0] for s in stamps))
    l1 = min(W, max(s[1] + s[2].shape[1] for s in stamps))
    if t1 <= t0 or l1 <= l0:
        return None
    img = np.zeros((t1 - t0, l1 - l0, 4), np.uint8)
    rgb_cache: dict = {}
    for top, left, mask, c in stamps:
        rgb = rgb_cache.get(c)
        if rgb is None:
            rgb = rgb_cache[c] = _rgb255(c)
        a, b = top - t0, left - l0
        ma, mb = max(0, -a), max(0, -b)
        a2 = min(a + mask.shape[0], t1 - t0)
        b2 = min(b + mask.shape[1], l1 - l0)
        a, b = max(a, 0), max(b, 0)
        if a2 <= a or b2 <= b:
            continue
        m = mask[ma : ma + a2 - a, mb : mb + b2 - b]
        region = img[a:a2, b:b2]
        stronger = m > region[..., 3]
        region[stronger, :3] = rgb
        np.maximum(region[..., 3], m, out=region[..., 3])
    if alpha < 1.0:
        img[..., 3] = (img[..., 3] * alpha).astype(np.uint8)
    return (np.ascontiguousarray(img[::-1]) if _FLIP_IMAGES else img), l0, H - t1


WARM_CHARS = (
    "0123456789.,:;+-−×·=()[]{}<>/|_@#%'\"!?→←↑↓… "
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)


def warm_glyphs(fig: Figure) -> int:
    """Render the glyphs every text artist of ``fig`` may need, now rather than on first use.

    An explorer calls this once when it is built, so that the first time a control shows a new
    word (an error message, a bigger number) does not pay for rasterising its letters. Returns
    the number of (font, size) keys warmed.
    """
    dpi = float(fig.dpi)
    keys = set()
    for a in fig.findobj():
        if isinstance(a, CellLabels):
            keys.add(_font_key(a.size, a.weight, a.family, dpi))
        elif isinstance(a, FastText):
            keys.add(_text_key(a, dpi))
    for key in keys:
        _metrics(*key)
        for ch in WARM_CHARS:
            _glyph(ch, *key)
    return len(keys)


class _Metric:
    """What stamp placement needs from a renderer: its dpi and canvas height (any backend)."""

    def __init__(self, renderer, fig):
        self.dpi = float(getattr(renderer, "dpi", None) or fig.dpi)
        self.height = int(getattr(renderer, "height", None) or fig.bbox.height)


def _renderer_of(artist: Artist, renderer=None):
    """``renderer``, or the figure's own when none is given (as ``Text.get_window_extent`` does)."""
    if renderer is not None:
        return renderer
    fig = artist.get_figure(root=True)
    return fig._get_renderer()


def stamps_extent(stamps, H: int) -> Bbox:
    """The display box (pixels, y up) covering (top, left, mask, ...) stamps; null if none."""
    if not stamps:
        return Bbox.null()
    top = min(s[0] for s in stamps)
    left = min(s[1] for s in stamps)
    bottom = max(s[0] + s[2].shape[0] for s in stamps)
    right = max(s[1] + s[2].shape[1] for s in stamps)
    return Bbox([[left, H - bottom], [right, H - top]])


def _images_need_flip() -> bool:
    """Whether Agg's ``draw_image`` wants rows bottom-up (checked once on a 1x2 canvas)."""
    r = RendererAgg(1, 2, 72)
    img = np.zeros((2, 1, 4), np.uint8)
    img[0] = (255, 0, 0, 255)  # row 0 red
    img[1] = (0, 0, 255, 255)
    gc = r.new_gc()
    r.draw_image(gc, 0, 0, img)
    gc.restore()
    top = np.asarray(r.buffer_rgba())[0, 0]
    return bool(top[2] > top[0])  # the top of the canvas shows row 1: flip


_FLIP_IMAGES = _images_need_flip()


# ---------------------------------------------------------------------------------- labels
class CellLabels(Artist):
    """Many short labels centred at data positions, in one artist.

    ``set_labels(xs, ys, texts, colors)`` replaces them all. ``texts`` / ``positions`` keep what is
    shown, so tests can read the numbers back. Agg gets cached bitmaps; vector backends real text.
    """

    zorder = 5

    def __init__(
        self,
        ax,
        *,
        size: float = 7.0,
        weight: str = "normal",
        family="DejaVu Sans",
        cell: float | None = 1.0,
        min_size: float = 5.0,
        ha: str = "center",
    ):
        super().__init__()
        self.axes = ax
        self.set_figure(ax.figure)
        self.set_transform(ax.transData)
        self.size, self.weight, self.family = size, weight, family
        self.cell = cell  # labels must fit in cells this wide (data units); None: no check
        self.min_size = min_size
        self.ha = ha
        self.drawn_size: float | None = None  # font size used at the last draw (None: too small)
        self.texts: list[str] = []
        self.positions = np.zeros((0, 2))
        self.colors: list[str] = []
        self._version = 0  # bumped by every change of what is shown
        self._cache: tuple | None = None  # (key, composite) of the last Agg draw
        ax.add_artist(self)
        self.set_clip_on(False)

    def set_labels(self, xs, ys, texts, colors=INK, *, size: float | None = None) -> None:
        """Show ``texts[k]`` centred at data point ``(xs[k], ys[k])``."""
        texts = [str(t) for t in texts]
        positions = np.column_stack([np.ravel(xs), np.ravel(ys)]).astype(float)
        if len(positions) != len(texts):
            raise ValueError("one position per label")
        colors = [colors] * len(texts) if isinstance(colors, str) else list(colors)
        same = (
            texts == self.texts
            and colors == self.colors
            and (size is None or size == self.size)
            and np.array_equal(positions, self.positions)
        )
        self.positions, self.texts, self.colors = positions, texts, colors
        if size is not None:
            self.size = size
        if not same:
            self._version += 1
        self.stale = True

    def clear_labels(self) -> None:
        self.set_labels([], [], [])

    def get_window_extent(self, renderer=None):
        """The box (display pixels) of the ink the labels put on the canvas; null if none."""
        if not self.get_visible() or not self.texts:
            return Bbox.null()
        r = _Metric(_renderer_of(self, renderer), self.get_figure(root=True))
        return stamps_extent(self._stamps(r), r.height)

    def draw(self, renderer) -> None:
        if not self.get_visible() or not self.texts:
            return
        if isinstance(renderer, RendererAgg):
            key = (
                self._version,
                self.size,
                self.min_size,
                self.get_transform().get_matrix().tobytes(),
                renderer.dpi,
                int(renderer.height),
                int(renderer.width),
            )
            if self._cache is None or self._cache[0] != key:
                H, W = int(renderer.height), int(renderer.width)
                self._cache = (key, _composite(self._stamps(renderer), H, W))
            _draw_composite(renderer, self._cache[1])
        else:
            xy = self.get_transform().transform(self.positions)
            for (x, y), s, c in zip(xy, self.texts, self.colors):
                t = Text(x, y, s, color=c, ha=self.ha, va="center", fontsize=self.size)
                t.set_fontweight(self.weight)
                t.set_figure(self.figure)
                t.draw(renderer)
        self.stale = False

    def _fitting_size(self, renderer) -> float | None:
        """The largest font size (from ``size`` down to ``min_size``) whose labels fit the cells."""
        if self.cell is None:
            return self.size
        (x0, y0), (x1, y1) = self.get_transform().transform([(0, 0), (self.cell, self.cell)])
        cell_w, cell_h = abs(x1 - x0), abs(y1 - y0)
        longest = max(self.texts, key=len)
        size = points(self.size, renderer.dpi)
        while size >= points(self.min_size, renderer.dpi):
            key = _font_key(size, self.weight, self.family, renderer.dpi)
            widest = max(
                _line_mask(t, *key)[3] for t in set(self.texts) if len(t) >= len(longest) - 1
            )
            if widest <= cell_w - 2 and _metrics(*key)[0] <= cell_h - 2:
                return size
            size -= 0.5
        return None

    def _stamps(self, renderer) -> list:
        """(top, left, mask, colour) of every label, in canvas pixels (y down), as Agg draws them."""
        size = self._fitting_size(renderer)
        self.drawn_size = None if size is None else points(size, renderer.dpi)
        if size is None:
            return []
        key = _font_key(size, self.weight, self.family, renderer.dpi)
        cap = _metrics(*key)[0]
        H = int(renderer.height)
        xy = self.get_transform().transform(self.positions)
        shift_of = {"center": 0.5, "left": 0.0, "right": 1.0}[self.ha]
        stamps = []
        for (x, y), s, c in zip(xy, self.texts, self.colors):
            if not s or not (np.isfinite(x) and np.isfinite(y)):
                continue
            mask, dx, dy, adv = _line_mask(s, *key)
            if mask.size == 0:
                continue
            baseline = (H - y) + cap / 2.0
            stamps.append((int(round(baseline + dy)), int(round(x - shift_of * adv)) + dx, mask, c))
        return stamps


class FastText(Text):
    """A ``Text`` that Agg draws from cached glyph bitmaps (no rotation, box or math needed).

    Anything it cannot do (rotation, a bbox patch, ``$math$``, vector backends) falls back to
    ``Text.draw``, so it is a drop-in replacement.
    """

    def _fast_ok(self, renderer) -> bool:
        return (
            isinstance(renderer, RendererAgg)
            and self.get_rotation() == 0
            and self.get_bbox_patch() is None
            and not self.get_usetex()
            and "$" not in self.get_text()
            and not self.get_wrap()
        )

    def _stamps(self, renderer) -> list:
        """(top, left, mask, colour) of every line, in canvas pixels (y down), as Agg draws them."""
        key = _text_key(self, renderer.dpi)
        asc, desc, line_h = _metrics(*key)
        x, y = self.get_transform().transform(self.get_unitless_position())
        H = int(renderer.height)
        lines = self.get_text().split("\n")
        masks = [_line_mask(s, *key) for s in lines]
        width = max(m[3] for m in masks)
        block = asc + desc + line_h * (len(lines) - 1)
        top_y = H - y  # canvas y, downwards
        va = self.get_verticalalignment()
        if va == "top":
            first = top_y + asc
        elif va == "bottom":
            first = top_y - block + asc
        elif va in ("center", "center_baseline"):
            first = top_y - block / 2.0 + asc
        else:  # baseline
            first = top_y - line_h * (len(lines) - 1) if len(lines) > 1 else top_y
        ha = self.get_horizontalalignment()
        multi = getattr(self, "_multialignment", None) or ha
        stamps = []
        color = self.get_color()
        left_block = x - {"left": 0.0, "center": width / 2.0, "right": width}[ha]
        for k, (mask, dx, dy, adv) in enumerate(masks):
            if mask.size == 0:
                continue
            shift = {"left": 0.0, "center": (width - adv) / 2.0, "right": width - adv}[multi]
            baseline = first + k * line_h
            stamps.append(
                (int(round(baseline + dy)), int(round(left_block + shift)) + dx, mask, color)
            )
        return stamps

    def get_window_extent(self, renderer=None, dpi=None):
        """The box (display pixels) of the ink Agg stamps; ``Text``'s own box otherwise."""
        if dpi is None and self.get_visible() and self.get_text():
            r = _renderer_of(self, renderer)
            if self._fast_ok(r):
                return stamps_extent(self._stamps(r), int(r.height))
        return super().get_window_extent(renderer, dpi)

    def draw(self, renderer) -> None:
        if renderer is not None:
            self._renderer = renderer
        if not self.get_visible() or not self.get_text():
            return
        if not self._fast_ok(renderer):
            return super().draw(renderer)
        alpha = self.get_alpha()
        alpha = 1.0 if alpha is None else float(alpha)
        H, W = int(renderer.height), int(renderer.width)
        key = (
            self.get_text(),
            mcolors.to_hex(self.get_color(), keep_alpha=True),
            _text_key(self, renderer.dpi),
            tuple(self.get_transform().transform(self.get_unitless_position())),
            self.get_horizontalalignment(),
            self.get_verticalalignment(),
            getattr(self, "_multialignment", None),
            alpha,
            H,
            W,
        )
        cache = getattr(self, "_tl_cache", None)
        if cache is None or cache[0] != key:
            cache = self._tl_cache = (key, _composite(self._stamps(renderer), H, W, alpha))
        _draw_composite(renderer, cache[1])
        self.stale = False


def fig_text(fig: Figure, x: float, y: float, s: str = "", **kw) -> FastText:
    """A :class:`FastText` in figure coordinates (0..1)."""
    kw.setdefault("color", INK)
    t = FastText(x, y, s, transform=fig.transFigure, **kw)
    t.base_size = t.get_fontsize()
    fig.add_artist(t)
    return t


def ax_text(ax, x: float, y: float, s: str = "", *, data: bool = False, **kw) -> FastText:
    """A :class:`FastText` in axes coordinates (0..1), or data coordinates with ``data=True``."""
    kw.setdefault("color", INK)
    t = FastText(x, y, s, transform=ax.transData if data else ax.transAxes, **kw)
    t.base_size = t.get_fontsize()
    t.set_clip_on(False)
    ax.add_artist(t)
    return t


# ---------------------------------------------------------------------------------- layout
def text_width(
    s: str, size: float, weight="normal", family="DejaVu Sans", dpi: float = 90
) -> float:
    """Width in pixels of one line as the fast text artists lay it out (sum of glyph advances)."""
    key = _font_key(size, weight, family, dpi)
    return sum(_glyph(ch, *key)[3] for ch in s)


def _text_key(t: Text, dpi: float) -> tuple:
    prop = t.get_fontproperties()
    family = prop.get_family()[0] if prop.get_family() else "sans-serif"
    return _font_key(prop.get_size_in_points(), prop.get_weight(), family, dpi)


def block_size(t: Text, dpi: float) -> tuple[float, float]:
    """(width, height) in pixels of a text's layout box (all lines; 0 x 0 when empty)."""
    if not t.get_text():
        return 0.0, 0.0
    key = _text_key(t, dpi)
    asc, desc, line_h = _metrics(*key)
    lines = t.get_text().split("\n")
    width = max(sum(_glyph(ch, *key)[3] for ch in line) for line in lines)
    return width, asc + desc + line_h * (len(lines) - 1)


def shrink_to_width(t: Text, max_width: float, dpi: float, min_scale: float = 0.75) -> None:
    """Set ``t``'s font size back to its base size, then smaller (down to ``min_scale`` of it,
    in half points) until its widest line is at most ``max_width`` pixels.

    Widths scale with the size, so the size is computed from the width at the base size rather
    than searched for: glyphs are rendered (once, then cached) only at the size that is used.
    """
    base = getattr(t, "base_size", None) or t.get_fontsize()
    t.set_fontsize(base)
    width = block_size(t, dpi)[0]
    if width <= max_width:
        return
    lowest = base * min_scale
    size = max(np.floor(2 * base * max_width / width) / 2, np.ceil(2 * lowest) / 2)
    t.set_fontsize(size)
    while block_size(t, dpi)[0] > max_width and size - 0.5 >= lowest:  # hinting rounds widths
        size -= 0.5
        t.set_fontsize(size)


def wrap_to_width(text: str, key: tuple, max_width: float, max_lines: int | None = None) -> str:
    """``text`` with line breaks added at spaces so each line is at most ``max_width`` pixels."""
    out = []
    for line in text.split("\n"):
        cur, cur_w = "", 0.0
        for word in line.split(" "):
            piece = (" " if cur else "") + word
            w = sum(_glyph(ch, *key)[3] for ch in piece)
            if cur and cur_w + w > max_width:
                out.append(cur)
                cur, cur_w = word, sum(_glyph(ch, *key)[3] for ch in word)
            else:
                cur, cur_w = cur + piece, cur_w + w
        out.append(cur)
    if max_lines is not None and len(out) > max_lines:
        out = out[:max_lines]
        out[-1] += " …"
    return "\n".join(out)


class Page:
    """A figure's pixel frame for layout: ``x`` from the left edge, ``y`` down from the top."""

    def __init__(self, fig: Figure):
        self.fig = fig
        self.dpi = float(fig.dpi)
        self.width, self.height = (float(v) for v in fig.bbox.size)

    def place_axes(self, ax, left: float, top: float, width: float, height: float) -> None:
        """Put ``ax``'s box at these pixels (a degenerate size is made one pixel)."""
        W, H = self.width, self.height
        width, height = max(width, 1.0), max(height, 1.0)
        ax.set_position((left / W, 1.0 - (top + height) / H, width / W, height / H))

    def place_data(self, ax, box, xlim, ylim, margin: float = 0.0) -> None:
        """Show data ``xlim`` (left to right) and ``ylim`` (top to bottom) exactly in the pixel
        ``box`` (left, top, width, height), the axes reaching ``margin`` pixels further on every
        side, so lines drawn on the data's edges stay inside the axes (and its tight box)."""
        left, top, width, height = box
        width, height = max(width, 1.0), max(height, 1.0)
        sx = (xlim[1] - xlim[0]) / width
        sy = (ylim[1] - ylim[0]) / height
        self.place_axes(ax, left - margin, top - margin, width + 2 * margin, height + 2 * margin)
        ax.set_xlim(xlim[0] - margin * sx, xlim[1] + margin * sx)
        ax.set_ylim(ylim[1] + margin * sy, ylim[0] - margin * sy)

    def place_text(self, t: Text, x: float, y: float, ha: str = "left", va: str = "top") -> None:
        """Anchor ``t`` (in figure coordinates) at pixel ``(x, y)`` with this alignment."""
        t.set_transform(self.fig.transFigure)
        t.set_position((x / self.width, 1.0 - y / self.height))
        t.set_horizontalalignment(ha)
        t.set_verticalalignment(va)

    def size(self, t: Text) -> tuple[float, float]:
        return block_size(t, self.dpi)

    def fit_lines(self, lines, width: float, gap: float) -> float:
        """Fit each ``TextLine`` to ``width`` pixels; returns their height stacked ``gap`` apart."""
        total = 0.0
        for line in lines:
            line.fit(width, self.dpi)
            if line.get():
                total += self.size(line.artist)[1] + gap
        return max(total - gap, 0.0)

    def stack_down(self, lines, left: float, top: float, gap: float) -> float:
        """Place fitted ``TextLine`` s one under the other from ``top``; returns the bottom y."""
        y = top
        for line in lines:
            self.place_text(line.artist, left, y, "left", "top")
            if line.get():
                y += self.size(line.artist)[1] + gap
        return y - gap


def crop_to_content(fig: Figure, pad: float = 0.06) -> None:
    """Shrink ``fig`` to its content's tight box plus ``pad`` inches, keeping every artist where
    it is relative to the others (what ``savefig(bbox_inches="tight")`` does, made permanent)."""
    renderer = fig.canvas.get_renderer()
    bb = fig.get_tightbbox(renderer)  # inches
    if bb is None or not np.all(np.isfinite(bb.extents)):
        return
    W, H = fig.get_size_inches()
    pad_x = min(pad, max((MAX_FIGURE_PX / fig.dpi - bb.width) / 2, 0.0))  # stays 1:1 on screen
    x0, y0 = bb.x0 - pad_x, bb.y0 - pad
    nw, nh = bb.width + 2 * pad_x, bb.height + 2 * pad
    for ax in fig.axes:
        p = ax.get_position(original=True)
        ax.set_position(
            ((p.x0 * W - x0) / nw, (p.y0 * H - y0) / nh, p.width * W / nw, p.height * H / nh)
        )
    placed = [*fig.texts, *fig.artists, *(c for ax in fig.axes for c in ax.get_children())]
    for t in placed:
        if isinstance(t, Text) and t.get_transform() is fig.transFigure:
            x, y = t.get_position()
            t.set_position(((x * W - x0) / nw, (y * H - y0) / nh))
    fig.set_size_inches(nw, nh)


class TextLine:
    """A ``Text`` in figure coordinates whose string and colour are replaced on update.

    ``get()`` is the string as set; what is drawn may be wrapped by :meth:`fit`.
    """

    def __init__(self, fig: Figure, x: float = 0.0, y: float = 0.0, **kw):
        kw.setdefault("fontsize", 9)
        kw.setdefault("va", "top")
        self.artist = fig_text(fig, x, y, "", **kw)
        self.text = ""
        self.fitted: tuple | None = None  # the arguments of the last fit

    def set(self, s: str, color: str = INK) -> None:
        self.text = s
        self.artist.set_text(s)
        self.artist.set_color(color)

    def get(self) -> str:
        return self.text

    def refit(self) -> None:
        """Fit the current string to the width of the last :meth:`fit` (if any)."""
        if self.fitted is not None:
            self.fit(*self.fitted)

    def fit(self, max_width: float, dpi: float, max_lines: int = 8) -> None:
        """Wrap at spaces so no line is wider than ``max_width`` pixels (the font keeps its size:
        its glyphs are cached, and every line of a figure stays the size it was designed at)."""
        self.fitted = (max_width, dpi, max_lines)
        self.artist.set_text(self.text)
        if not self.text:
            return
        self.artist.set_fontsize(self.artist.base_size)
        if block_size(self.artist, dpi)[0] > max_width:
            key = _text_key(self.artist, dpi)
            self.artist.set_text(wrap_to_width(self.text, key, max_width, max_lines))


# ---------------------------------------------------------------------------------- grids
class CellGrid(Artist):
    """A grid of coloured unit cells (like ``imshow`` with nearest pixels), cheap to redraw.

    ``set_cells(rgba, origin=(x, y))`` shows an (h, w, 4) array whose cell (r, c) is centred at
    data point ``(x + c, y + r)``. Agg gets a pixel-exact image built with one numpy gather;
    other renderers get the small image scaled by an affine transform (crisp in PDF/SVG).
    ``values`` keeps the numbers the colours stand for, so tests can read them back.
    """

    zorder = 1

    def __init__(self, ax):
        super().__init__()
        self.axes = ax
        self.set_figure(ax.figure)
        self.set_transform(ax.transData)
        self.rgba = np.zeros((0, 0, 4), np.uint8)
        self.values: np.ndarray = np.zeros((0, 0))
        self.origin = (0.0, 0.0)
        self._version = 0
        self._cache: tuple | None = None  # (key, (image, x, y)) of the last Agg draw
        ax.add_artist(self)
        self.set_clip_on(False)

    def set_cells(self, rgba, origin=(0.0, 0.0), values=None) -> None:
        rgba = np.asarray(rgba)
        if rgba.dtype != np.uint8:
            rgba = (np.clip(rgba, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
        origin = (float(origin[0]), float(origin[1]))
        if not (origin == self.origin and np.array_equal(rgba, self.rgba)):
            self._version += 1
        self.rgba = rgba
        self.origin = origin
        self.values = np.asarray(values) if values is not None else np.zeros(rgba.shape[:2])
        self.stale = True

    def extent(self) -> tuple[float, float, float, float]:
        """(left, right, top, bottom) edges in data coordinates."""
        h, w = self.rgba.shape[:2]
        x0, y0 = self.origin
        return x0 - 0.5, x0 + w - 0.5, y0 - 0.5, y0 + h - 0.5

    def get_window_extent(self, renderer=None):
        """The display box (pixels) the cells cover; null when there are none."""
        if self.rgba.size == 0:
            return Bbox.null()
        left, right, top, bottom = self.extent()
        (x0, y0), (x1, y1) = self.get_transform().transform([(left, top), (right, bottom)])
        return Bbox.from_extents(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))

    def draw(self, renderer) -> None:
        if not self.get_visible() or self.rgba.size == 0:
            return
        h, w = self.rgba.shape[:2]
        left, right, top, bottom = self.extent()
        trans = self.get_transform()
        (dx0, dy0), (dx1, dy1) = trans.transform([(left, top), (right, bottom)])
        gc = renderer.new_gc()
        if not isinstance(renderer, RendererAgg) and renderer.option_scale_image():
            from matplotlib.transforms import Affine2D

            img = self.rgba if dy0 > dy1 else self.rgba[::-1]  # row 0 must end up on top
            x_lo, y_lo = min(dx0, dx1), min(dy0, dy1)
            t = Affine2D().scale(abs(dx1 - dx0) / w, abs(dy1 - dy0) / h).translate(x_lo, y_lo)
            renderer.draw_image(gc, x_lo, y_lo, img[::-1], t)
            gc.restore()
            return
        key = (self._version, dx0, dy0, dx1, dy1, int(renderer.height), int(renderer.width))
        if self._cache is not None and self._cache[0] == key:
            img, x, y = self._cache[1]
            renderer.draw_image(gc, x, y, img)
            gc.restore()
            return
        px_lo, px_hi = int(np.floor(min(dx0, dx1))), int(np.ceil(max(dx0, dx1)))
        py_lo, py_hi = int(np.floor(min(dy0, dy1))), int(np.ceil(max(dy0, dy1)))
        if px_hi <= px_lo or py_hi <= py_lo:
            gc.restore()
            return
        # the cell under each pixel centre (display y up; image rows go top -> bottom)
        xs = np.arange(px_lo, px_hi) + 0.5
        ys = np.arange(py_hi - 1, py_lo - 1, -1) + 0.5
        cols = np.floor((xs - dx0) / (dx1 - dx0) * w).astype(int)
        rows = np.floor((ys - dy0) / (dy1 - dy0) * h).astype(int)
        cok = (cols >= 0) & (cols < w)
        rok = (rows >= 0) & (rows < h)
        img = self.rgba[np.clip(rows, 0, h - 1)][:, np.clip(cols, 0, w - 1)]
        if not (cok.all() and rok.all()):
            img = img.copy()
            img[~rok] = 0
            img[:, ~cok] = 0
        img = np.ascontiguousarray(img[::-1]) if _FLIP_IMAGES else img
        self._cache = (key, (img, px_lo, py_lo))
        renderer.draw_image(gc, px_lo, py_lo, img)
        gc.restore()


def colorize(values: np.ndarray, cmap, norm) -> np.ndarray:
    """(h, w, 4) floats: ``cmap(norm(values))``."""
    return cmap(norm(np.asarray(values, dtype=float)))
