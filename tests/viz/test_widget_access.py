"""Explorers for everyone, without a browser: the picture's text alternative follows the status
line, the Play control walks the output position over every output cell (checked against real
torch), and the figures have a transparent ground whatever the rc settings (the notebook's theme
shows through: tensorlab.viz._theme).

The browser side (Tab and arrow keys, alt in the DOM, dark theme) is in tests/e2e."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
from tensorlab.widgets import (  # noqa: E402
    ArithExplorer,
    AxesExplorer,
    ConvExplorer,
    GroupsExplorer,
    MemoryExplorer,
)

ALL = [ConvExplorer, GroupsExplorer, AxesExplorer, MemoryExplorer, ArithExplorer]


def alt_of(e) -> str:
    """The alt attribute of the ``<img>`` on screen, unescaped."""
    m = re.search(r'<img [^>]*alt="([^"]*)"', e.view.widget.value)
    assert m, e.view.widget.value[:200]
    return html.unescape(m.group(1))


def status_text(e) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", e.status.value))


# ---------------------------------------------------------------------------------- alt text
@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_the_picture_has_the_status_line_as_alt_text(cls):
    e = cls(display="png")
    alt = alt_of(e)
    assert alt and alt == status_text(e) == e.view.alt
    # it changes with the controls: move the first slider that has room
    slider = next(
        c
        for c in e.controls().values()
        if hasattr(c, "max") and not hasattr(c, "options") and c.max > c.min and c is not e.play
    )
    slider.value = slider.max if slider.value != slider.max else slider.min
    assert alt_of(e) == status_text(e) != alt


def test_alt_text_of_a_configuration_that_cannot_be_drawn_says_why():
    e = GroupsExplorer(4, 4, 2, display="png")
    e.groups.value = 3  # 4 channels do not split into 3 groups
    alt = alt_of(e)
    assert "groups=3" in alt
    e = AxesExplorer(display="png")
    e.shape.value = "16, sixteen"
    alt = alt_of(e)
    assert "not drawn" in alt and e.last_error in alt


def test_alt_text_is_escaped_inside_the_attribute():
    e = ConvExplorer(display="png")
    e.kernel_text.value = '1 "a" <b>'  # quotes and markup must not end the attribute
    assert e.last_error
    assert alt_of(e) == f"{e.describe_settings()} — not drawn: {e.last_error}"
    assert '1 "a" <b>' in alt_of(e)


# ---------------------------------------------------------------------------------- play
def test_conv_play_walks_every_output_cell_row_by_row(torch):
    import torch.nn.functional as F

    e = ConvExplorer(display="agg")
    e.kernel.value = next(k for k in e.kernel.options if "box blur" in k)
    e.padding.value, e.stride.value = 1, 2
    img = torch.tensor(e.current_image(), dtype=torch.float64)[None, None]
    ker = torch.tensor(e.current_kernel(), dtype=torch.float64)[None, None]
    want = F.conv2d(img, ker, padding=1, stride=2)[0, 0].numpy()
    ho, wo = want.shape
    assert (e.play.min, e.play.max) == (0, ho * wo - 1)
    seen = []
    for k in range(ho * wo):
        n, moved = len(e.timings), e.play.value != k
        e.play.value = k  # what the Play control's timer does
        assert len(e.timings) == n + moved  # one redraw per frame
        r, c = divmod(k, wo)
        assert (e.row.value, e.col.value) == (r, c) == e.model.position
        np.testing.assert_allclose(e.model.value, want[r, c], rtol=1e-6, atol=1e-9)
        assert f"output[{r}, {c}] =" in e.status.value
        seen.append((r, c))
    assert len(set(seen)) == ho * wo


def test_conv_play_follows_the_sliders_and_the_output_size():
    e = ConvExplorer(display="agg")
    wo = e.col.max + 1
    e.row.value, e.col.value = 2, 1
    assert e.play.value == 2 * wo + 1
    e.stride.value = 3  # a smaller output: the play range shrinks with it
    assert e.play.max == (e.row.max + 1) * (e.col.max + 1) - 1
    assert e.play.value == e.row.value * (e.col.max + 1) + e.col.value
    e.padding.value, e.dilation.value = 0, 3  # a kernel that no longer fits: nothing to play
    if e.row.disabled:
        assert e.play.disabled and not e.play.playing


def test_arith_play_walks_the_transposed_output(torch):
    e = ArithExplorer("full padding", display="agg")
    e.operation.value = "conv_transpose2d"
    ho = e.row.max + 1
    wo = e.col.max + 1
    x = torch.ones(1, 1, e.size.value, e.size.value)
    w = torch.ones(1, 1, e.kernel.value, e.kernel.value)
    out = torch.nn.functional.conv_transpose2d(
        x, w, padding=e.padding.value, stride=e.stride.value, dilation=e.dilation.value
    )
    assert (ho, wo) == tuple(out.shape[-2:])
    assert e.play.max == ho * wo - 1
    for k in (0, wo + 1, ho * wo - 1):
        e.play.value = k
        assert (e.row.value, e.col.value) == divmod(k, wo)
        assert e.last_error is None


def test_play_is_tab_reachable_and_labelled():
    """ipywidgets.Play draws real <button>s; it carries a label and a tooltip for its icons."""
    e = ConvExplorer(display="agg")
    assert e.play.description and e.play.tooltip
    assert e.play.tabbable is not False
    assert any(e.play in row.children for row in e._control_rows())


# ---------------------------------------------------------------------------------- backgrounds
@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_figures_have_a_transparent_ground_whatever_the_rc(cls):
    import matplotlib

    with matplotlib.rc_context({"figure.facecolor": "white", "savefig.transparent": False}):
        e = cls(display="png")
    assert e.figure.get_facecolor()[3] == 0
    import io

    from PIL import Image

    png = Image.open(io.BytesIO(e.view.png))
    assert png.mode == "RGBA"  # the theme behind it shows through
    assert png.getpixel((0, 0))[3] == 0  # the corner is ground
    alpha = np.asarray(png)[..., 3]
    assert 0.02 < (alpha > 0).mean() < 0.9  # something is drawn, on a ground that is not


# ---------------------------------------------------------------------------------- keyboard
@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_the_picture_keeps_notebook_shortcuts_off_the_controls(cls):
    """JupyterLab's command-mode keys (arrows, "a", "x"...) must not reach a focused control: the
    picture's onload marks every control of its explorer box (what Lumino honours), and names the
    Play buttons. Its effect in a real JupyterLab is tested in tests/e2e/test_explorer_access.py.
    """
    from tensorlab.widgets._base import EXPLORER_CLASS

    e = cls(display="png")
    assert EXPLORER_CLASS in e.widget._dom_classes
    assert e.view.widget in e.widget.children
    m = re.search(r'<img [^>]*onload="([^"]*)"', e.view.widget.value)
    assert m, e.view.widget.value[:300]
    script = m.group(1)
    assert f"closest('.{EXPLORER_CLASS}')" in script
    assert "data-lm-suppress-shortcuts" in script
    for kind in ("select", "button", "input", "textarea", ".noUi-handle"):
        assert kind in script
    assert "aria-label" in script and "play or pause" in script
