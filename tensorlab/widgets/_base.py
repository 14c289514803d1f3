"""What every explorer shares: one figure on screen, a status line, errors shown, never raised.

An explorer owns a *scene* from :mod:`tensorlab.viz` (artists built once) and a row of
ipywidgets controls. Each control change calls :meth:`Explorer.refresh`, which builds a model,
updates the scene's artists, and puts the figure on screen:

- with the ipympl backend (``%matplotlib widget``), the figure's own interactive canvas, redrawn
  with ``draw_idle``;
- otherwise (the inline backend, or no notebook at all), a PNG of the Agg canvas, re-encoded after
  each change, shown as ``<img alt="...">`` in an ``ipywidgets.HTML`` (``ipywidgets.Image`` has no
  ``alt``): the alt text is the status line's description, so a screen reader reads what the
  picture shows. This needs no extra package and does not flicker, unlike clearing and
  re-displaying an ``Output``.

Every control is reachable with Tab and changed with the keyboard (sliders and dropdowns with the
arrow keys, buttons with Space or Enter); explorers with an output position also have a Play
control that walks the window over every output cell.
"""

from __future__ import annotations

import base64
import html
import struct
import time
import zlib
from contextlib import contextmanager

import ipywidgets as widgets
import numpy as np

# theme-aware (JupyterLab's error colour, legible on its light and dark themes), else a dark red
ERROR_STYLE = "color:var(--jp-error-color1,#b00020);font-weight:bold"
FIGURE_CLASS = "tensorlab-figure"  # the HTML widget holding the picture (tests find it by this)
EXPLORER_CLASS = "tensorlab-explorer"  # the explorer's outer box
PLAY_INTERVAL_MS = 500  # one output cell per half second, like conv_arithmetic's animations
# Keyboard use inside a notebook: JupyterLab's command-mode shortcuts (ArrowUp/Down move between
# cells, "a" inserts one, "x" cuts one...) fire on any focused element that is not a text box, so
# a focused dropdown never sees its arrow keys and a stray letter edits the notebook. Lumino skips
# shortcuts for an element marked ``data-lm-suppress-shortcuts``; ipywidgets cannot set an
# attribute, so the picture's ``onload`` marks the explorer's controls (each picture: idempotent)
# and names the Play control's icon-only buttons for screen readers.
_ONLOAD = (
    f"var r=this.closest('.{EXPLORER_CLASS}');if(r){{"
    "r.querySelectorAll('select,button,input,textarea,.noUi-handle,[contenteditable]')"
    ".forEach(function(c){c.setAttribute('data-lm-suppress-shortcuts','true')});"
    "r.querySelectorAll('.widget-play button').forEach(function(b,i){"
    "b.setAttribute('aria-label',['play or pause','stop','repeat'][i]||'')})}"
)


def _ipympl_active() -> bool:
    import matplotlib

    backend = str(matplotlib.get_backend()).lower()
    return "ipympl" in backend or backend in ("widget", "module://ipympl.backend_nbagg")


_RAW: dict = {}  # (h, w) -> the scanline buffer, reused between frames


def encode_png(canvas) -> bytes:
    """PNG bytes (RGBA, no row filter, zlib level 1) of an Agg canvas that has just been drawn.

    RGBA: the figures' ground is transparent, so the notebook's theme shows through
    (:mod:`tensorlab.viz._theme`). Diagrams are mostly flat colour, so unfiltered rows compress
    as well as PIL's adaptive filters do, and this is about three times faster than
    ``PIL.Image.save``. The scanlines are written into a buffer kept between frames and
    compressed in place (no copies).
    """
    rgba = np.asarray(canvas.buffer_rgba())
    h, w = rgba.shape[:2]
    raw = _RAW.get((h, w))
    if raw is None:
        if len(_RAW) > 8:
            _RAW.clear()
        raw = _RAW[(h, w)] = np.zeros((h, 1 + 4 * w), np.uint8)  # column 0: filter "None"
    np.copyto(raw[:, 1:].reshape(h, w, 4), rgba)

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)  # 8-bit RGBA, no interlace
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 1))
        + chunk(b"IEND", b"")
    )


def figure_html(png: bytes, alt: str, width: int, height: int) -> str:
    """``<img alt=...>`` showing ``png`` inline (a ``data:`` URL), its size fixed (no reflow)."""
    src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return (
        f'<img class="{FIGURE_CLASS}-img" alt="{html.escape(alt, quote=True)}" '
        f'width="{width}" height="{height}" style="max-width:100%;height:auto" '
        f'onload="{_ONLOAD}" src="{src}">'
    )


class FigureView:
    """Puts one figure on screen and refreshes it: ipympl's canvas if active, else a PNG image.

    ``mode``: ``"auto"`` (ipympl when it is the active backend, else PNG), ``"ipympl"``,
    ``"png"``, or ``"agg"`` (draw only, nothing encoded: for scripts and tests). In PNG mode
    ``widget`` is an ``ipywidgets.HTML`` holding ``<img alt=...>``; ``png`` holds the last bytes
    and ``alt`` the last text alternative.
    """

    def __init__(self, figure, mode: str = "auto"):
        self.figure = figure
        self.mode = "png"
        self.widget = None
        if mode in ("auto", "ipympl") and (mode == "ipympl" or _ipympl_active()):
            try:
                from ipympl.backend_nbagg import new_figure_manager_given_figure

                manager = new_figure_manager_given_figure(id(figure), figure)
                canvas = manager.canvas
                canvas.header_visible = False
                canvas.footer_visible = False
                canvas.resizable = False
                self.widget = canvas
                self.mode = "ipympl"
            except Exception:  # noqa: BLE001 - no ipympl after all: fall back to PNGs
                self.widget = None
        if self.widget is None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg

            if not isinstance(figure.canvas, FigureCanvasAgg):
                FigureCanvasAgg(figure)
            self.widget = widgets.HTML()
            self.widget.add_class(FIGURE_CLASS)
            if mode == "agg":  # draw with Agg but never encode (headless use, tests)
                self.mode = "agg"
        self.png_bytes = 0
        self.png = b""
        self.alt = ""

    def render(self, alt: str = "") -> None:
        """Redraw the figure where it is shown; ``alt`` is its text alternative."""
        self.alt = alt
        if self.mode == "ipympl":
            if hasattr(self.widget, "tooltip"):  # a canvas has no alt: its title says it
                self.widget.tooltip = alt or None
            self.figure.canvas.draw_idle()
            return
        canvas = self.figure.canvas
        canvas.draw()
        if self.mode == "agg":
            return
        data = encode_png(canvas)
        self.png, self.png_bytes = data, len(data)
        w, h = canvas.get_width_height()
        self.widget.value = figure_html(data, alt, w, h)


class Explorer:
    """Base class: subclasses set ``self.scene`` and controls, and implement ``_model()``.

    Attributes every explorer exposes: ``figure`` (the matplotlib Figure), ``scene`` (its
    artists), ``model`` (what is drawn now), ``status`` (an HTML widget stating the configuration
    in words), ``message`` (errors), ``widget`` (the whole thing, a ``VBox``), ``last_error``
    (``None`` or the error text shown), ``timings`` (seconds per refresh).
    """

    def __init__(self, scene, *, display: str = "auto"):
        self.scene = scene
        self.figure = scene.figure
        self.view = FigureView(self.figure, display)
        self.status = widgets.HTML(layout=widgets.Layout(width="100%"))
        self.message = widgets.HTML(layout=widgets.Layout(width="100%"))
        self.model = None
        self.last_error: str | None = None
        self.timings: list[float] = []
        self._suspended = 0
        self.play: widgets.Play | None = None
        self._play_cells: tuple = ()
        self._play_syncing = False

    def _warm(self) -> None:
        """Rasterise the figure's glyphs now (see :func:`tensorlab.viz._draw.warm_glyphs`)."""
        from ..viz._draw import warm_glyphs

        warm_glyphs(self.figure)

    # ------------------------------------------------------------------ plumbing
    @contextmanager
    def hold(self):
        """Change several controls at once with one redraw at the end."""
        self._suspended += 1
        try:
            yield
        finally:
            self._suspended -= 1
        if not self._suspended:
            self.refresh()

    @contextmanager
    def _quiet(self):
        """Change controls without any redraw (the caller refreshes)."""
        self._suspended += 1
        try:
            yield
        finally:
            self._suspended -= 1

    def _on_change(self, change=None) -> None:
        if not self._suspended:
            self.refresh()

    def _observe(self, *controls) -> None:
        for c in controls:
            c.observe(self._on_change, names="value")

    # ------------------------------------------------------------------ play
    def _make_play(self, row, col) -> widgets.Play:
        """A Play control walking the output position (``row``, ``col`` sliders) over every output
        cell, row by row, like the convolution-arithmetic animations. Keyboard: Tab to its
        buttons, Space to start or pause."""
        self._play_cells = (row, col)
        self.play = widgets.Play(
            value=0,
            min=0,
            max=1,
            step=1,
            interval=PLAY_INTERVAL_MS,
            repeat=True,
            description="animate",
            tooltip="play: move the window over every output cell",
        )
        self.play.observe(self._play_moved, names="value")
        return self.play

    def _sync_play(self) -> None:
        """Fit the Play control to the output size and put it on the current cell (no redraw)."""
        if self.play is None:
            return
        row, col = self._play_cells
        ncols = col.max - col.min + 1
        cells = (row.max - row.min + 1) * ncols
        self._play_syncing = True
        try:
            self.play.max = max(cells - 1, 1)
            self.play.value = (row.value - row.min) * ncols + (col.value - col.min)
            self.play.disabled = bool(row.disabled or col.disabled)
            if self.play.disabled:
                self.play.playing = False
        finally:
            self._play_syncing = False

    def _play_moved(self, change) -> None:
        if self._play_syncing or self._suspended:
            return
        row, col = self._play_cells
        r, c = divmod(int(change["new"]), col.max - col.min + 1)
        with self.hold():
            row.value = min(row.min + r, row.max)
            col.value = col.min + c

    def _model(self):  # pragma: no cover - subclasses implement
        raise NotImplementedError

    def _before_model(self) -> None:
        """Adjust dependent controls (slider ranges) before the model is built."""

    def refresh(self) -> None:
        """Rebuild the model, update the artists and the screen; show errors, never raise them."""
        t0 = time.perf_counter()
        try:
            with self._quiet():
                self._before_model()
                self._sync_play()
            model = self._model()
            self.scene.update(model)
        except Exception as e:  # noqa: BLE001 - a bad configuration is a message, not a crash
            # said once, in the picture (which a still keeps); under it only if it cannot draw
            self.last_error = f"{type(e).__name__}: {e}"
            self.message.value = ""
            try:
                self.scene.show_error(self.last_error)
            except Exception:  # noqa: BLE001
                self.message.value = (
                    f'<span style="{ERROR_STYLE}">{html.escape(self.last_error)}</span>'
                )
            self.status.value = html.escape(self.describe_settings()) + " — <i>not drawn</i>"
            alt = f"{self.describe_settings()} — not drawn: {self.last_error}"
        else:
            self.model = model
            self.last_error = None
            self.message.value = self._note(model)
            alt = self._status(model)
            self.status.value = html.escape(alt)
        try:
            self.view.render(alt=alt)
        except Exception as e:  # noqa: BLE001
            self.last_error = f"{type(e).__name__} while drawing: {e}"
            self.message.value = (
                f'<span style="{ERROR_STYLE}">{html.escape(self.last_error)}</span>'
            )
        self.timings.append(time.perf_counter() - t0)

    def _note(self, model) -> str:
        """Extra HTML under the figure for a model that drew fine (hints; errors are drawn in the
        figure, once, never repeated here)."""
        return ""

    def _status(self, model) -> str:
        """The status line for a model that drew fine: the configuration in words."""
        return model.describe()

    def shown_error(self) -> str:
        """The error the picture shows now ('' when none): what the learner reads, once."""
        return self.scene.error_text() if hasattr(self.scene, "error_text") else ""

    def describe_settings(self) -> str:
        """The controls' values in words (shown when the model could not be built)."""
        return ""

    # ------------------------------------------------------------------ display
    @property
    def widget(self) -> widgets.VBox:
        if not hasattr(self, "_widget"):
            self._widget = widgets.VBox(
                [*self._control_rows(), self.view.widget, self.status, self.message]
            )
            self._widget.add_class(EXPLORER_CLASS)
        return self._widget

    def _control_rows(self) -> list:  # pragma: no cover - subclasses implement
        return []

    def controls(self) -> dict[str, widgets.Widget]:
        """Every control by name (tests drive them through this)."""
        return {}

    def text(self) -> str:
        """The explorer in one line of plain text: its class and what it shows (or its error)."""
        if self.last_error is None and self.model is not None:
            return f"{type(self).__name__}: {self.model.describe()}"
        return f"{type(self).__name__}: {self.describe_settings()} ({self.last_error})"

    def picture(self) -> tuple[bytes, str]:
        """The PNG of what the explorer shows now, and its text alternative.

        In PNG mode these are the bytes on screen; with ipympl (or ``display="agg"``) the figure's
        Agg canvas is drawn and encoded the same way.
        """
        if not self.view.png:
            canvas = self.figure.canvas
            canvas.draw()
            return encode_png(canvas), self.view.alt
        return self.view.png, self.view.alt

    def _repr_mimebundle_(self, include=None, exclude=None):
        """Display as the widget, with a stable text form (no PNG bytes) and the picture.

        JupyterLab shows the live widget (its view comes first); a reader without widgets (a
        documentation site, nbconvert, GitHub) shows ``image/png``, the explorer's current
        picture, whose output metadata carries its text alternative as ``alt``.
        """
        bundle = dict(self.widget._repr_mimebundle_(include=include, exclude=exclude) or {})
        bundle["text/plain"] = self.text()
        metadata = {}
        try:
            png, alt = self.picture()
        except Exception:  # noqa: BLE001 - no picture is no reason not to show the widget
            png = b""
        if png and (include is None or "image/png" in include):
            if exclude is None or "image/png" not in exclude:
                bundle["image/png"] = base64.b64encode(png).decode("ascii")
                metadata["image/png"] = {"alt": alt}
        return bundle, metadata

    def __repr__(self) -> str:
        return f"<{self.text()}>"
