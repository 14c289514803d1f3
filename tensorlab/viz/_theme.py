"""Pictures that follow the notebook's theme: a transparent ground and ink that reads on both.

A notebook shows a figure as a PNG, chosen and saved before anyone knows which theme will show
it (JupyterLab Light or Dark, the documentation site's light or dark mode, VS Code's theme). So
every picture here is drawn on a *transparent* ground, and everything drawn straight on that
ground (text, axes, frames, arrows) uses colours that read on a white page and on a near-black
one alike. Data colours (colormaps, cells with their values printed on them) are opaque and
unchanged: a value's colour does not depend on the theme, and a label drawn on a cell picks
black or white for that cell.

One grey cannot reach WCAG's 4.5:1 against both white and JupyterLab Dark's ``#111111`` (the
best any single colour reaches is about 4.35:1 against both), so text on the ground gets
:data:`TEXT_CONTRAST` (4:1, above WCAG's 3:1 for large text) against both, and lines and
marks get :data:`GRAPHIC_CONTRAST` (WCAG's 3:1 for graphical objects).

Plain ``matplotlib.pyplot`` figures follow through :func:`course_rc`: the course's lessons
folder holds a ``matplotlibrc`` with these settings (matplotlib reads one from the working
directory, which is the notebook's folder in Jupyter), and ``plt.style.use("tensorlab.viz.theme")``
applies the same anywhere. This module needs no matplotlib.
"""

from __future__ import annotations

import re

LIGHT_GROUND = "#ffffff"  # JupyterLab Light, the documentation site, VS Code Light
DARK_GROUND = "#111111"  # JupyterLab Dark's --jp-layout-color0, behind notebook outputs
GROUNDS = (LIGHT_GROUND, DARK_GROUND)

INK = "#787878"  # text and lines on the ground: 4.4:1 on white, 4.3:1 on #111111
ERROR_INK = "#dc3d45"  # errors on the ground: 4.4:1 on white, 4.3:1 on #111111
# The x axis's tick labels: a grey a hair lighter (and warmer) than INK, 4.0:1 on white and 4.7:1
# on #111111. IPython's inline backend tags a transparent figure whose tick labels are all dark,
# by BT.601 luma, "needs_background: light" (all light: "dark"), and JupyterLab and VS Code then
# paint white (black) behind it: INK is dark by that measure, this one is light, so a figure with
# both axes labelled is tagged neither and stays transparent in both themes.
TICK_INK_X = "#847d82"
NOTE_INK = "#9a7500"  # a note (not an error), amber: 4.3:1 on white, 4.4:1 on #111111
TEXT_CONTRAST = 4.0
GRAPHIC_CONTRAST = 3.0

_HEX = re.compile(r"^#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?$")


def to_rgb(color) -> tuple[float, float, float]:
    """``"#rrggbb"`` (or ``#rrggbbaa``, alpha ignored) or an (r, g, b[, a]) tuple in 0..1."""
    if isinstance(color, str):
        m = _HEX.match(color.strip())
        if not m:
            raise ValueError(f"expected a colour '#rrggbb', got {color!r}")
        h = m.group(1)
        return tuple(int(h[i : i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]
    try:
        parts = [float(v) for v in color]
    except TypeError:
        raise TypeError(
            f"expected a colour '#rrggbb' or an (r, g, b) tuple, got {color!r}"
        ) from None
    if len(parts) not in (3, 4) or not all(0.0 <= v <= 1.0 for v in parts):
        raise ValueError(f"expected 3 or 4 numbers in 0..1, got {color!r}")
    return parts[0], parts[1], parts[2]


def relative_luminance(color) -> float:
    """WCAG 2's relative luminance of an sRGB colour (0 black .. 1 white)."""

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in to_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b) -> float:
    """WCAG 2's contrast ratio of two colours, 1 (same) .. 21 (black on white)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def course_rc() -> dict[str, object]:
    """The matplotlib settings that make a plain ``pyplot`` figure follow the theme.

    Transparent figure and axes grounds; text, ticks, spines, grid and legend frames in
    :data:`INK`. Colormaps and the colour cycle stay matplotlib's (data colours are data).
    """
    return {
        "figure.facecolor": "none",
        "figure.edgecolor": "none",
        "axes.facecolor": "none",
        "savefig.transparent": True,
        "text.color": INK,
        "axes.labelcolor": INK,
        "axes.titlecolor": INK,
        "axes.edgecolor": INK,
        "xtick.color": INK,
        "ytick.color": INK,
        "xtick.labelcolor": TICK_INK_X,
        "ytick.labelcolor": INK,
        "grid.color": INK,
        "grid.alpha": 0.4,
        "legend.facecolor": "none",
        "legend.edgecolor": INK,
        "legend.labelcolor": INK,
        "hatch.color": INK,
        "patch.edgecolor": INK,
        "boxplot.boxprops.color": INK,
        "boxplot.whiskerprops.color": INK,
        "boxplot.capprops.color": INK,
        "boxplot.flierprops.color": INK,
        "boxplot.flierprops.markeredgecolor": INK,
    }


def matplotlibrc_text() -> str:
    """:func:`course_rc` as a ``matplotlibrc`` file (what the lessons folder ships)."""
    lines = [
        "# Pictures follow your notebook's light or dark theme: a transparent ground, and text,",
        "# axes and frames in a grey that reads on both. Matplotlib reads this file because it",
        "# is in the notebook's folder. Written by tensorlab.viz._theme.matplotlibrc_text().",
    ]
    for key, value in course_rc().items():
        text = str(value)
        if text.startswith("#"):
            text = text[1:]  # matplotlibrc starts a comment at '#': colours go without it
        lines.append(f"{key}: {text}")
    return "\n".join(lines) + "\n"
