"""The convolution-arithmetic figure and explorer: sizes and values against torch, every preset
drawn, every control moved, errors shown once."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorlab.viz._arith_model import (
    INPUT,
    PRESETS,
    arith_model,
    conv_output_size,
    conv_transpose_output_size,
)

layers = st.fixed_dictionaries(
    dict(
        size=st.integers(1, 7),
        kernel=st.integers(1, 4),
        padding=st.integers(0, 3),
        stride=st.integers(1, 3),
        dilation=st.integers(1, 3),
    )
)


def torch_output(torch, m_settings, transposed, output_padding=0):
    i, k = m_settings["size"], m_settings["kernel"]
    x = torch.arange(1.0, i * i + 1, dtype=torch.float64).view(1, 1, i, i)
    w = torch.ones(1, 1, k, k, dtype=torch.float64)
    kw = dict(
        stride=m_settings["stride"], padding=m_settings["padding"], dilation=m_settings["dilation"]
    )
    if transposed:
        return torch.nn.functional.conv_transpose2d(x, w, output_padding=output_padding, **kw)
    return torch.nn.functional.conv2d(x, w, **kw)


@settings(max_examples=60, deadline=None)
@given(layers)
def test_conv2d_model_matches_torch(torch, s):
    try:
        want = torch_output(torch, s, False)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=None) as got:
            arith_model(**s)
        assert str(got.value) == str(e)
        return
    m = arith_model(**s)
    assert (
        m.out_size
        == want.shape[-1]
        == conv_output_size(s["size"], s["kernel"], s["padding"], s["stride"], s["dilation"])
    )
    np.testing.assert_array_equal(m.output, want[0, 0].numpy())
    # the window of the last output cell sits on the grid, and the grid holds the input
    m = arith_model(**s, position=(m.out_size - 1, m.out_size - 1))
    assert m.window.max() < m.kinds.shape[0]
    assert (m.kinds == INPUT).sum() == s["size"] ** 2
    under = m.grid_values[m.window[:, 0], m.window[:, 1]].sum()
    assert under == m.value


@settings(max_examples=60, deadline=None)
@given(layers, st.integers(0, 2))
def test_transposed_model_matches_torch_and_the_zero_insertion_picture(torch, s, op):
    try:
        want = torch_output(torch, s, True, op)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as got:
            arith_model(**s, transposed=True, output_padding=op)
        assert str(got.value) == str(e)
        return
    if s["padding"] > s["dilation"] * (s["kernel"] - 1):
        with pytest.raises(ValueError, match="padding ≤ dilation"):
            arith_model(**s, transposed=True, output_padding=op)
        return
    m = arith_model(**s, transposed=True, output_padding=op)
    assert m.agrees
    assert (
        m.out_size
        == want.shape[-1]
        == conv_transpose_output_size(
            s["size"], s["kernel"], s["padding"], s["stride"], s["dilation"], op
        )
    )
    np.testing.assert_array_equal(m.output, want[0, 0].numpy())
    under = m.grid_values[m.window[:, 0], m.window[:, 1]].sum()
    assert under == m.value  # the drawn window makes the drawn value


def test_conv2d_has_no_output_padding():
    with pytest.raises(ValueError, match="output_padding"):
        arith_model(size=4, output_padding=1)


# ---------------------------------------------------------------------------------- the explorer
pytest.importorskip("ipywidgets")


def test_every_preset_draws(torch):
    from tensorlab.widgets import ArithExplorer

    e = ArithExplorer(display="agg")
    seen = set()
    for name in PRESETS:
        e.preset.value = name
        assert e.last_error is None, (name, e.last_error)
        assert e.model.agrees
        assert (e.model.transposed) == name.startswith("transposed")
        assert e.scene.out.rgba.shape[:2] == (e.model.out_size * 10,) * 2
        seen.add(e.status.value)
    assert len(seen) == len(PRESETS)


def test_controls_change_the_picture_and_status():
    from tensorlab.widgets import ArithExplorer

    e = ArithExplorer("padding, strides", display="agg")
    for name, value in [("operation", "conv_transpose2d"), ("stride", 1), ("col", 2), ("row", 1)]:
        before = (e.status.value, e.scene.grid.rgba.copy(), e.scene.out.rgba.copy())
        e.controls()[name].value = value
        assert e.last_error is None
        assert e.status.value != before[0], name
        assert not (
            np.array_equal(e.scene.grid.rgba, before[1])
            and np.array_equal(e.scene.out.rgba, before[2])
        ), name
    assert e.preset.value == "(your settings)"


def test_out_sliders_follow_the_output_and_errors_are_said_once():
    from tensorlab.widgets import ArithExplorer

    e = ArithExplorer("full padding", display="agg")
    assert e.row.max == 6
    e.col.value = 6
    e.padding.value = 0
    assert e.col.max == 2 and e.col.value == 2
    e.dilation.value = 3  # a 7×7 window on a 5×5 input
    assert e.last_error.startswith("RuntimeError: Calculated padded input size")
    assert e.last_error in e.shown_error()
    assert "not drawn" in e.status.value and e.last_error not in e.status.value
    e.dilation.value = 1
    assert e.last_error is None and e.shown_error() == ""


def test_sweep_every_control_never_raises():
    from tensorlab.widgets import ArithExplorer

    e = ArithExplorer(display="agg")
    for name, control in e.controls().items():
        if name == "preset":
            continue
        options = (
            list(control.options)
            if hasattr(control, "options")
            else range(control.min, control.max + 1)
        )
        for v in options:
            control.value = v
            assert e.last_error is None or e.last_error in e.shown_error()


def test_labels_are_at_least_9_px():
    from tensorlab.viz import arith_figure
    from tensorlab.viz._draw import MIN_TEXT_PX

    fig = arith_figure(size=5, kernel=3, padding=1, stride=2)
    fig.canvas.draw()
    for t in fig.findobj(lambda a: hasattr(a, "get_fontsize") and hasattr(a, "get_text")):
        if t.get_text():
            assert t.get_fontsize() * fig.dpi / 72 >= MIN_TEXT_PX - 1e-9, t.get_text()


def test_the_browser_tests_sequence_changes_every_time():
    """tests/e2e/lab_driver.py moves every control in this order, from either lesson's start."""
    from tensorlab.widgets import ArithExplorer

    steps = [
        ("preset", "full padding"),
        ("stride", +1),
        ("operation", "conv_transpose2d"),
        ("col", +1),
        ("row", +1),
        ("output_padding", +1),
        ("padding", -1),
        ("kernel", +1),
        ("dilation", +1),
        ("size", -1),
    ]
    for start in ("no padding, no strides", "transposed: no padding, strides"):
        e = ArithExplorer(start, display="agg")
        for name, change in steps:
            control = e.controls()[name]
            before = e.status.value
            control.value = change if isinstance(change, str) else control.value + change
            assert e.last_error is None, (start, name, e.last_error)
            assert e.status.value != before, (start, name)
