"""Pictures follow the notebook's theme: a transparent ground, and whatever is drawn on the ground
reads on JupyterLab Light's white and JupyterLab Dark's near-black alike (tensorlab.viz._theme).

Checked on rendered pixels: the share of opaque near-white pixels (the "white block" a dark theme
showed before), and every label's colour against what is really under it in the rendered figure
(the ground, seen over both themes, or the opaque cell it is printed on). The browser side (both
themes in JupyterLab) is in tests/e2e/test_explorer_access.py.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from tensorlab import viz  # noqa: E402
from tensorlab.viz import _draw, _theme  # noqa: E402
from tensorlab.viz._theme import (  # noqa: E402
    DARK_GROUND,
    GRAPHIC_CONTRAST,
    GROUNDS,
    LIGHT_GROUND,
    TEXT_CONTRAST,
    contrast_ratio,
    course_rc,
    relative_luminance,
)

REPO = Path(__file__).resolve().parents[2]
WHITE_BLOCK = 0.15  # at most this share of a picture may be opaque near-white


# ---------------------------------------------------------------------------------- colour maths
def test_contrast_ratio_matches_wcag_reference_values():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    # WCAG's own examples: #767676 is the lightest grey with 4.5:1 on white; #777777 is not
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio("#777777", "#ffffff") < 4.5
    assert contrast_ratio((1.0, 0.0, 0.0), "#ffffff") == pytest.approx(3.998, abs=0.001)
    assert relative_luminance("#808080") == pytest.approx(0.2159, abs=1e-4)
    assert contrast_ratio("#123456", "#abcdef") == contrast_ratio("#abcdef", "#123456")


@pytest.mark.parametrize("bad", ["red", "#12345", "#gggggg", (1.0, 2.0, 0.0), (0.1, 0.2), 3])
def test_colour_maths_rejects_what_is_not_a_colour(bad):
    with pytest.raises((ValueError, TypeError), match="colour|numbers"):
        contrast_ratio(bad, "#ffffff")


def test_no_single_grey_reaches_4_5_on_both_grounds():
    """Why TEXT_CONTRAST is 4 and not WCAG's 4.5: no colour reaches 4.5:1 on both grounds."""
    best = max(
        min(contrast_ratio(f"#{v:02x}{v:02x}{v:02x}", g) for g in GROUNDS) for v in range(256)
    )
    assert TEXT_CONTRAST <= best < 4.5


@pytest.mark.parametrize(
    "name,need",
    [
        ("INK", TEXT_CONTRAST),
        ("ERROR_INK", TEXT_CONTRAST),
        ("NOTE_INK", TEXT_CONTRAST),
        ("TICK_INK_X", TEXT_CONTRAST),
    ],
)
def test_inks_read_on_both_grounds(name, need):
    colour = getattr(_theme, name)
    for ground in (LIGHT_GROUND, DARK_GROUND):
        assert contrast_ratio(colour, ground) >= need, (name, ground)


@pytest.mark.parametrize(
    "colour", [_draw.WINDOW, _draw.REMOVED, _draw.ERROR, viz.memory.WALK, _draw.NEW_AXIS]
)
def test_marks_on_the_ground_read_on_both_grounds(colour):
    for ground in GROUNDS:
        assert contrast_ratio(colour, ground) >= GRAPHIC_CONTRAST, (colour, ground)


# ---------------------------------------------------------------------------------- pixels
def _png(fig) -> np.ndarray:
    """(h, w, 4) uint8: the figure as the inline backend saves it."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor=fig.get_facecolor(), bbox_inches="tight")
    return np.asarray(Image.open(io.BytesIO(buf.getvalue())).convert("RGBA"))


def white_block_share(rgba: np.ndarray) -> float:
    """Share of pixels that are opaque and near-white (what a dark theme shows as a white block)."""
    opaque = rgba[..., 3] >= 250
    light = rgba[..., :3].min(axis=2) >= 235
    return float((opaque & light).mean())


def test_white_block_share_sees_a_white_block():
    """The measure can fail: an opaque white figure (as before) is almost all white block."""
    fig = _draw.new_figure(3, 2)
    fig.set_facecolor("white")
    assert white_block_share(_png(fig)) > 0.95
    assert white_block_share(_png(_draw.new_figure(3, 2))) == 0.0


def _figures():
    image = viz.image_preset("step (lecture)")
    kernel = viz.kernel_preset("edge [-1, 0, 1] (lecture)")
    return {
        "conv": lambda: viz.conv_figure(image, kernel, padding=1, padding_mode="reflect"),
        "conv error": lambda: _shown_error(viz.ConvScene(), viz.conv_model(image, kernel)),
        "groups": lambda: viz.groups_figure(16, 64, groups=4),
        "groups error": lambda: viz.groups_figure(6, 4, groups=4),
        "axes": lambda: viz.axes_figure((16, 16), "unsqueeze", 0),
        "axes squeeze": lambda: viz.axes_figure((1, 3, 1), "squeeze()", None),
        "memory": lambda: viz.memory_figure(chain="x.T\n.view(-1)", shape=(2, 5)),
        "memory copy": lambda: viz.memory_figure(chain=".T\n.contiguous()", shape=(3, 4)),
        "arith": lambda: viz.arith_figure(),
        "arith transposed": lambda: viz.arith_figure(transposed=True, stride=2),
        "arith error": lambda: _shown_error(viz.ArithScene(), viz.arith_model()),
    }


def _shown_error(scene, model):
    scene.update(model)
    scene.show_error("RuntimeError: Calculated output size: (0x0). Output size is too small")
    return scene.figure


FIGURES = _figures()


def _safe(make):
    try:
        return make()
    except Exception as e:  # noqa: BLE001 - a figure that cannot be made is reported by name
        pytest.fail(f"could not make the figure: {type(e).__name__}: {e}")


@pytest.mark.parametrize("name", list(FIGURES))
def test_viz_figures_are_no_white_block(name):
    rgba = _png(_safe(FIGURES[name]))
    assert rgba[0, 0, 3] == 0, "the corner is not transparent ground"
    share = white_block_share(rgba)
    assert share < WHITE_BLOCK, f"{name}: {share:.0%} of the picture is opaque near-white"
    assert (rgba[..., 3] > 0).mean() > 0.02, f"{name}: nothing drawn"


def _shown(artist) -> bool:
    """Visible, and so is its axes (a hidden axes draws none of its children)."""
    ax = getattr(artist, "axes", None)
    return artist.get_visible() and (ax is None or ax.get_visible())


def _label_spots(fig, renderer):
    """(what, colour, (x, y) pixel, y down) of every piece of text the figure draws."""
    H = fig.canvas.get_width_height()[1]
    spots = []
    texts = [t for t in fig.findobj(Text) if _shown(t) and t.get_text().strip()]
    for t in texts:
        if t.get_bbox_patch() is not None:  # draws its own ground: checked against that
            continue
        box = t.get_window_extent(renderer)
        if box.width <= 0:
            continue
        spots.append((t.get_text()[:30], t.get_color(), (box.x0 + box.x1) / 2, H - box.y0 - 2))
    for labels in fig.findobj(_draw.CellLabels):
        if not _shown(labels) or not labels.texts:
            continue
        xy = labels.get_transform().transform(labels.positions)
        for (x, y), s, c in zip(xy, labels.texts, labels.colors):
            if s:
                spots.append((s, c, x, H - y))
    return spots


def _under_text(fig):
    """The figure drawn without any text: what each label is printed on."""
    hidden = [a for a in fig.findobj(lambda a: isinstance(a, (Text, _draw.CellLabels)))]
    states = [a.get_visible() for a in hidden]
    for a in hidden:
        a.set_visible(False)
    fig.canvas.draw()
    under = np.asarray(fig.canvas.buffer_rgba()).copy()
    for a, s in zip(hidden, states):
        a.set_visible(s)
    fig.canvas.draw()
    return under


def label_contrasts(fig) -> list[tuple[str, str, float]]:
    """(text, where, contrast) of every label against what is under its centre pixel: the
    (transparent) ground over both themes, or the opaque cell it is printed on."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    spots = _label_spots(fig, renderer)
    under = _under_text(fig)
    h, w = under.shape[:2]
    out = []
    for text, colour, x, y in spots:
        # the commonest colour of a small patch at its centre: a line through the text (a
        # crossed-out box) is not what it is printed on
        r, c = int(np.clip(y, 2, h - 3)), int(np.clip(x, 8, w - 9))
        patch = under[r - 2 : r + 3, c - 8 : c + 9].reshape(-1, 4)
        colours, counts = np.unique(patch, axis=0, return_counts=True)
        px = colours[np.argmax(counts)].astype(float)
        fg = mcolors.to_rgb(colour)
        a = px[3] / 255.0
        for ground in GROUNDS:
            g = np.array(mcolors.to_rgb(ground))
            bg = tuple(px[:3] / 255.0 * a + g * (1 - a))
            where = "ground" if a < 0.5 else "cell"
            out.append((text, f"{where} over {ground}", contrast_ratio(fg, bg)))
    return out


@pytest.mark.parametrize("name", list(FIGURES))
def test_every_label_reads_on_what_is_under_it_in_both_themes(name):
    fig = _safe(FIGURES[name])
    found = label_contrasts(fig)
    assert len(found) >= (2 if "error" in name else 6), found
    low = [(t, where, round(c, 2)) for t, where, c in found if c < TEXT_CONTRAST]
    assert not low, f"{name}: labels too faint: {low[:8]}"


def test_label_contrast_catches_black_text_on_the_ground():
    """The check can fail: the old black text on a transparent ground vanishes in dark."""
    fig = _draw.new_figure(3, 1)
    _draw.fig_text(fig, 0.5, 0.5, "black on the ground", color="black", ha="center")
    low = [c for _, where, c in label_contrasts(fig) if DARK_GROUND in where]
    assert low and max(low) < 2.0


@pytest.mark.parametrize(
    "cls", ["ConvExplorer", "GroupsExplorer", "AxesExplorer", "MemoryExplorer", "ArithExplorer"]
)
def test_explorer_pictures_are_transparent_and_readable(cls):
    pytest.importorskip("ipywidgets")
    from PIL import Image

    import tensorlab.widgets as w

    e = getattr(w, cls)(display="png")
    rgba = np.asarray(Image.open(io.BytesIO(e.view.png)))
    assert rgba.shape[2] == 4 and rgba[0, 0, 3] == 0
    assert white_block_share(rgba) < WHITE_BLOCK
    low = [(t, where, round(c, 2)) for t, where, c in label_contrasts(e.figure) if c < 4.0]
    assert not low, f"{cls}: {low[:8]}"


# ---------------------------------------------------------------------------------- plain pyplot
def _plain_plot():
    """A lesson-like pyplot figure: lines, an image with a colour bar, title, legend and grid."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6, 3), dpi=72)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot([0, 1, 2, 3], [1, 3, 2, 4], label="loss")
    ax1.set_title("training")
    ax1.set_xlabel("step")
    ax1.legend()
    ax1.grid(True)
    im = ax2.imshow(np.arange(16.0).reshape(4, 4), cmap="gray")
    fig.colorbar(im, ax=ax2)
    return fig


def test_plain_pyplot_figures_follow_the_theme_with_the_course_rc():
    with matplotlib.rc_context(course_rc()):
        fig = _plain_plot()
        rgba = _png(fig)
        texts = [
            t.get_color() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
        ]
    assert rgba[0, 0, 3] == 0 and white_block_share(rgba) < 0.05
    assert len(texts) >= 8  # title, axis label, tick labels, legend, colour bar ticks
    for c in texts:
        for g in GROUNDS:
            assert contrast_ratio(mcolors.to_rgb(c), g) >= TEXT_CONTRAST, (c, g)
    with matplotlib.rc_context(matplotlib.rcParamsDefault):  # the check can fail
        assert white_block_share(_png(_plain_plot())) > 0.5


def test_the_inline_backend_asks_for_no_background():
    """IPython's inline backend tags a transparent figure whose tick labels are all dark (or all
    light) "needs_background", and JupyterLab paints white (black) behind it in a dark (light)
    theme: the white block again. With both axes labelled the course's figures are tagged
    neither; matplotlib's own grey ticks would be."""
    backend = pytest.importorskip("matplotlib_inline.backend_inline")
    with matplotlib.rc_context(course_rc()):
        assert backend._fetch_figure_metadata(_plain_plot()) is None
    with matplotlib.rc_context({**course_rc(), "xtick.labelcolor": _theme.INK}):
        assert backend._fetch_figure_metadata(_plain_plot()) == {"needs_background": "light"}
    assert contrast_ratio(_theme.TICK_INK_X, LIGHT_GROUND) >= TEXT_CONTRAST
    assert contrast_ratio(_theme.TICK_INK_X, DARK_GROUND) >= TEXT_CONTRAST


def test_lessons_folder_and_style_carry_the_course_rc():
    """matplotlib reads lessons/matplotlibrc (the kernel's folder); the packaged style is the
    same settings for use anywhere."""
    from matplotlib import rc_params_from_file

    for path in (REPO / "lessons" / "matplotlibrc", REPO / "tensorlab/viz/theme.mplstyle"):
        params = rc_params_from_file(path, use_default_template=False)
        assert dict(params) == pytest.approx(
            {k: matplotlib.rcParams.validate[k](v) for k, v in course_rc().items()}
        ), path
    assert (REPO / "lessons" / "matplotlibrc").read_text() == _theme.matplotlibrc_text()


def test_a_kernel_started_in_the_lessons_folder_gets_the_theme():
    code = (
        "import json, matplotlib as m\n"
        "print(json.dumps([m.rcParams['figure.facecolor'], m.rcParams['text.color']]))"
    )
    env = {"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin", "HOME": str(REPO / "lessons")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO / "lessons",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert json.loads(out.stdout) == ["none", _theme.INK]


# ---------------------------------------------------------------------------------- saved lessons
def _saved_pictures():
    for path in sorted((REPO / "lessons").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        for i, cell in enumerate(nb["cells"]):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if "image/png" in data:
                    yield path.name, i, data["image/png"], out.get("metadata", {})


SAVED = list(_saved_pictures())
# Pictures whose only tick labels are on one axis (image panels with their ticks off and a colour
# bar each): every label is INK, so IPython tags them "needs_background: light" and JupyterLab
# Dark shows them on white, as before (tensorlab.viz._theme.TICK_INK_X). A new one is reported.
ONE_AXIS_OF_TICKS = {("15_transposed_conv_and_pooling.ipynb", 28)}


@pytest.mark.parametrize(
    "lesson,cell,png,metadata", SAVED, ids=[f"{name[:2]}-cell{i}" for name, i, _, _ in SAVED]
)
def test_saved_lesson_pictures_follow_the_theme(lesson, cell, png, metadata):
    """Every picture saved in a lesson has a transparent ground: its outer frame (the margin
    ``bbox_inches="tight"`` leaves round the content) lets the theme through. Data may be
    white (a diverging colormap's zero); the ground may not. Re-execute a lesson after
    changing its figures."""
    import base64

    from PIL import Image

    rgba = np.asarray(Image.open(io.BytesIO(base64.b64decode(png))).convert("RGBA"))
    frame = np.concatenate([rgba[:2].reshape(-1, 4), rgba[-2:].reshape(-1, 4)])
    frame = np.concatenate([frame, rgba[:, :2].reshape(-1, 4), rgba[:, -2:].reshape(-1, 4)])
    clear = float((frame[:, 3] == 0).mean())
    assert clear > 0.9, f"{lesson} cell {cell}: only {clear:.0%} of its frame is clear; re-run it"
    # JupyterLab paints a background behind a picture tagged so (test_the_inline_backend_...)
    tags = {**metadata, **metadata.get("image/png", {})}
    if (lesson, cell) not in ONE_AXIS_OF_TICKS:
        assert "needs_background" not in tags, f"{lesson} cell {cell}: {tags}; re-run it"
