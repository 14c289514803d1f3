"""Widgets without a browser: move every control through its range, check the figure's artists
and the status line follow, and that nothing ever raises (errors become messages)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
from tensorlab.widgets import (  # noqa: E402
    AxesExplorer,
    ConvExplorer,
    GroupsExplorer,
    MemoryExplorer,
)
from tensorlab.widgets.axes import dim_range  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def shown_png(widget) -> bytes:
    """The PNG bytes the picture's ``<img src="data:image/png;base64,...">`` shows."""
    import base64
    import re

    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', widget.value)
    assert m, widget.value[:200]
    return base64.b64decode(m.group(1))


def needs_functional():
    try:
        from tensorlab.nn import functional as F

        F.conv2d, F.pad  # noqa: B018
    except (ImportError, AttributeError) as e:
        pytest.skip(f"tensorlab.nn.functional is not available yet: {e}")


def values_of(control):
    """Every value a control can take (sliders: the whole range; lists: every option)."""
    if hasattr(control, "options"):
        return [o[1] if isinstance(o, tuple) else o for o in control.options]
    if hasattr(control, "min") and hasattr(control, "max"):
        return list(range(control.min, control.max + 1))
    raise TypeError(control)


def sweep(explorer, name, check):
    """Set control ``name`` to each of its values; after each, run ``check(explorer, value)``."""
    control = explorer.controls()[name]
    for v in values_of(control):
        before = explorer.status.value
        control.value = v  # must never raise
        check(explorer, v, before)


def said_once(e, text: str) -> None:
    """``text`` (an error) is in the picture and nowhere else: not the status, not under it."""
    assert text in e.shown_error(), (text, e.shown_error())
    assert text not in e.status.value and text not in e.message.value
    unescaped = e.status.value.replace("&#x27;", "'").replace("&quot;", '"')
    assert text not in unescaped


def assert_drawn_or_explained(e):
    """Either the figure shows a model and no error, or the picture says what went wrong."""
    if e.last_error is None:
        assert e.model is not None and e.status.value and "not drawn" not in e.status.value
    else:
        said_once(e, e.last_error)
        assert "not drawn" in e.status.value


# ---------------------------------------------------------------------------------- all explorers
@pytest.mark.parametrize("cls", [ConvExplorer, GroupsExplorer, AxesExplorer, MemoryExplorer])
def test_constructible_with_no_arguments(cls):
    if cls is ConvExplorer:
        needs_functional()
    e = cls()
    assert e.figure is e.scene.figure
    assert e.last_error is None, e.last_error
    assert e.status.value
    assert shown_png(e.view.widget).startswith(PNG)  # the inline path: <img> of a PNG
    assert e.widget.children[-3] is e.view.widget
    assert e.controls()
    bundle, metadata = e._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert (
        bundle["text/plain"].startswith(cls.__name__ + ": ") and "PNG" not in bundle["text/plain"]
    )
    # the saved output also carries the picture on screen and its alt text (the site shows it)
    import base64

    assert base64.b64decode(bundle["image/png"]) == shown_png(e.view.widget)
    alt = metadata["image/png"]["alt"]
    assert alt and f'alt="{alt}"' in e.view.widget.value.replace("&#x27;", "'")
    assert "image/png" not in e._repr_mimebundle_(exclude={"image/png"})[0]


@pytest.mark.parametrize("cls", [GroupsExplorer, AxesExplorer, MemoryExplorer])
def test_saved_picture_without_png_mode(cls):
    """Drawn with Agg only (as with ipympl), the bundle still carries a PNG of the figure."""
    e = cls(display="agg")
    bundle, metadata = e._repr_mimebundle_()
    import base64

    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(PNG)
    w, h = e.figure.canvas.get_width_height()
    import struct

    assert struct.unpack(">II", png[16:24]) == (w, h)
    assert metadata["image/png"]["alt"] == e.view.alt != ""


# ---------------------------------------------------------------------------------- conv
def test_conv_every_control_through_its_range(torch):
    needs_functional()
    e = ConvExplorer(display="agg")  # every artist is drawn; only the PNG encoding is skipped

    def check(e, v, before):
        assert_drawn_or_explained(e)
        if e.last_error is None:
            m = e.model
            settings = (m.padding, m.padding_mode, m.stride, m.dilation, m.operation, m.position)
            wanted = (
                e.padding.value,
                e.padding_mode.value,
                e.stride.value,
                e.dilation.value,
                e.operation.value,
                (e.row.value, e.col.value),
            )
            assert settings == wanted
            # the output artist holds PyTorch's result for these settings
            x = torch.from_numpy(e.current_image())[None, None]
            w = torch.from_numpy(np.ascontiguousarray(m.weight))[None, None]
            F = torch.nn.functional
            mode = "constant" if m.padding_mode == "zeros" else m.padding_mode
            xp = F.pad(x, (m.padding,) * 4, mode=mode)
            out = F.conv2d(xp, w, stride=m.stride, dilation=m.dilation)[0, 0].numpy()
            np.testing.assert_allclose(e.scene.im_out.values, out, atol=1e-12)
            # the position sliders span exactly the output
            assert (e.row.max, e.col.max) == (out.shape[0] - 1, out.shape[1] - 1)
            # the status states the configuration and the lit value
            i, j = m.position
            for part in (
                f"{m.operation}:",
                f"padding {m.padding} ({m.padding_mode})",
                f"stride {m.stride}, dilation {m.dilation}",
                f"output {out.shape[0]}×{out.shape[1]}",
                f"output[{i}, {j}] = {out[i, j]:g}",
            ):
                assert part in e.status.value, (part, e.status.value)

    for name in (
        "image",
        "kernel",
        "padding",
        "padding_mode",
        "stride",
        "dilation",
        "operation",
        "row",
        "col",
    ):
        sweep(e, name, check)
    # and a few combinations that stress the ranges
    for image in values_of(e.image):
        e.image.value = image
        for p in (0, 4):
            e.padding.value = p
            for mode in values_of(e.padding_mode):
                e.padding_mode.value = mode
                for d in (1, 3):
                    e.dilation.value = d
                    check(e, None, None)


def test_conv_status_and_lit_cell_follow_the_position():
    needs_functional()
    e = ConvExplorer()
    e.row.value, e.col.value = 2, 3
    assert "output[2, 3] = -9" in e.status.value
    (seg,) = e.scene.out_cell.get_segments()
    assert (seg[:4, 1].mean(), seg[:4, 0].mean()) == (2.0, 3.0)
    png = shown_png(e.view.widget)
    e.operation.value = "convolution"
    assert "output[2, 3] = 9" in e.status.value and shown_png(e.view.widget) != png


def test_conv_typed_kernel_and_bad_input_become_messages():
    needs_functional()
    e = ConvExplorer()
    e.kernel_text.value = "1 2 1; 2 4 2; 1 2 1"
    assert e.kernel.value == "typed in" and e.last_error is None
    assert e.model.kernel.tolist() == [[1, 2, 1], [2, 4, 2], [1, 2, 1]]
    e.kernel_text.value = "1 2; 3"
    assert e.last_error.startswith("ValueError") and "different lengths" in e.last_error
    said_once(e, e.last_error)
    e.kernel_text.value = "1 1 1 1 1 1 1 1 1 1"  # 1 x 10: wider than the 8-wide image
    assert e.last_error.startswith("RuntimeError") and "Kernel size" in e.last_error
    assert e.col.disabled
    e.kernel.value = "Sobel x"
    assert e.last_error is None and not e.col.disabled
    assert e.kernel_text.value == "-1 0 1; -2 0 2; -1 0 1"


def test_conv_explorer_takes_the_lectures_4d_tensors():
    needs_functional()
    import tensorlab as tl

    x = tl.zeros(1, 1, 8, 8, dtype=tl.float64)
    x[0, 0, :, 4] = 1
    w = tl.tensor([[[[1.0, 2.0, 3.0]] * 3]], dtype=tl.float64)
    e = ConvExplorer(x, w)
    assert e.kernel.value == "typed in" and e.kernel_text.value == "1 2 3; 1 2 3; 1 2 3"
    np.testing.assert_array_equal(e.model.output[0], [0, 0, 9, 6, 3, 0])  # the lecture's rows
    with pytest.raises(ValueError, match="must be 2-D"):
        ConvExplorer(tl.zeros(2, 1, 8, 8))


def test_conv_reflect_padding_too_wide_shows_torchs_error(torch):
    needs_functional()
    e = ConvExplorer(image=np.zeros((3, 3)), kernel=np.ones((1, 1)))
    assert e.image.value == "your image"
    e.padding_mode.value = "reflect"
    e.padding.value = 3
    with pytest.raises(RuntimeError) as info:
        torch.nn.functional.pad(
            torch.zeros(1, 1, 3, 3, dtype=torch.float64), (3,) * 4, mode="reflect"
        )
    assert e.last_error == f"RuntimeError: {info.value}"
    e.padding.value = 2
    assert e.last_error is None and e.model.padded.shape == (7, 7)


# ---------------------------------------------------------------------------------- groups
def test_groups_every_control_through_its_range(torch):
    e = GroupsExplorer(display="agg")  # every artist is drawn; only the PNG encoding is skipped

    def check(e, v, before):
        assert e.last_error is None  # illegal groups are drawn, not errors
        m = e.model
        assert (m.in_channels, m.out_channels, m.groups, m.kernel_size[0]) == (
            e.in_channels.value,
            e.out_channels.value,
            e.groups.value,
            e.kernel_size.value,
        )
        try:
            conv = torch.nn.Conv2d(m.in_channels, m.out_channels, m.kernel_size, groups=m.groups)
        except ValueError as err:
            assert m.error == str(err)
            said_once(e, str(err))
            assert len(e.scene.lines.get_segments()) == 0
        else:
            assert m.weight_shape == tuple(conv.weight.shape)
            assert len(e.scene.lines.get_segments()) == m.out_channels * m.in_channels // m.groups
            assert str(tuple(conv.weight.shape)) in e.status.value

    for name in ("preset", "kernel_size"):
        sweep(e, name, check)
    for name in ("in_channels", "out_channels", "groups"):
        control = e.controls()[name]
        for v in control.options:
            control.value = v
            check(e, v, None)


def test_groups_presets_set_the_sliders_and_moving_one_leaves_the_preset():
    e = GroupsExplorer()
    e.preset.value = "lecture: 16 → 64, groups=4"
    assert (e.in_channels.value, e.out_channels.value, e.groups.value) == (16, 64, 4)
    assert "(64, 4, 3, 3)" in e.status.value and "256 operators" in e.status.value
    n = len(e.timings)
    e.preset.value = "lecture: groups=4 (4 → 4)"
    assert len(e.timings) == n + 1  # four sliders moved, one redraw
    e.groups.value = 2
    assert e.preset.value == "(your settings)"
    e.preset.value = "lecture: illegal 2 → 3, groups=2"
    said_once(e, "out_channels must be divisible by groups")


# ---------------------------------------------------------------------------------- axes
def test_axes_every_control_through_its_range(torch):
    e = AxesExplorer(display="agg")  # every artist is drawn; only the PNG encoding is skipped

    def check(e, v, before):
        assert_drawn_or_explained(e)
        m = e.model
        shape = tuple(int(s) for s in e.shape.value.split(",") if s.strip())
        x = torch.empty(shape)
        try:
            if e.op.value == "unsqueeze":
                y = x.unsqueeze(e.dim.value)
            elif e.op.value == "squeeze(dim)":
                y = x.squeeze(e.dim.value)
            else:
                y = x.squeeze()
        except IndexError as err:
            assert m.error == f"IndexError: {err}" and m.error in e.scene.error.get()
        else:
            assert m.error is None and m.new_shape == tuple(y.shape) and m.new_stride == y.stride()
            assert str(tuple(y.shape)) in e.status.value
        lo, hi = dim_range(e.op.value, len(shape))
        assert (e.dim.min, e.dim.max) == (lo, hi)

    for op in values_of(e.op):
        e.op.value = op
        for shape in ("16, 16", "1, 16, 16", "1, 1, 16, 16", "3", ""):
            e.shape.value = shape
            sweep(e, "dim", check)


def test_axes_apply_walks_the_lecture_chain():
    e = AxesExplorer()
    e.apply_result()
    assert e.shape.value == "1, 16, 16"
    e.apply_result()
    assert e.model.shape == (1, 1, 16, 16)
    assert e.model.history == [(16, 16), (1, 16, 16), (1, 1, 16, 16)]
    assert "history: (16, 16) → (1, 16, 16) → (1, 1, 16, 16)" in e.scene.line3.get()
    # the two original axes kept their colours (identities 0 and 1) at the end
    assert e.model.ids[2:] == (0, 1)
    e.op.value = "squeeze()"
    assert e.model.new_shape == (16, 16) and e.model.removed == (0, 1)
    e.reset_shape()
    assert e.model.shape == (16, 16) and e.model.history == [(16, 16)]


def test_axes_bad_shape_text_is_a_message():
    e = AxesExplorer()
    e.shape.value = "16, sixteen"
    assert e.last_error.startswith("ValueError") and "not drawn" in e.status.value
    e.shape.value = "2, 3"
    assert e.last_error is None


# ---------------------------------------------------------------------------------- memory
def test_memory_every_control_through_its_range(torch):
    e = MemoryExplorer(display="agg")  # every artist is drawn; only the PNG encoding is skipped

    def check(e, v, before):
        assert_drawn_or_explained(e)
        if e.last_error is None:
            m = e.model
            assert m.selected == e.step.value and m.element == e.element.value
            assert e.step.max == len(m.steps) - 1
            assert e.element.max == max(m.view.offsets.size - 1, 0)
            v = m.view
            assert f"{v.name}: shape {v.shape}, strides {v.stride}" in e.status.value.replace(
                "&#x27;", "'"
            )
            # the highlighted storage cells are the selected step's offsets
            covered = set(m.view.offsets.tolist())
            assert set(m.covered().tolist()) == covered
            assert (
                e.scene.offsets.texts[-m.view.offsets.size :] == [f"@{o}" for o in m.view.offsets]
                or m.selected != len(m.steps) - 1
            )

    sweep(e, "preset", check)
    for preset in values_of(e.preset)[1:]:
        e.preset.value = preset
        sweep(e, "step", check)
        sweep(e, "element", check)
    for op in values_of(e.pick):
        e.preset.value = "permute a 3-d tensor"
        e.append_op(op)
        check(e, op, None)
        e.remove_last_op()
        check(e, op, None)


def test_memory_failed_view_shows_the_reason(torch):
    e = MemoryExplorer()
    e.append_op(".view(-1)")
    with pytest.raises(RuntimeError) as info:
        torch.arange(10).view(2, 5).T.view(-1)
    assert e.model.error.message == f"RuntimeError: {info.value}"
    said_once(e, str(info.value))
    assert e.model.error.explanation and e.model.error.explanation in e.shown_error()
    assert e.model.error.explanation not in e.message.value
    e.remove_last_op()
    assert e.model.error is None and e.message.value == "" and e.shown_error() == ""


def test_memory_write_lights_every_alias_and_not_the_copy(torch):
    e = MemoryExplorer()
    e.preset.value = "index with a tensor copies"
    assert [s.kind for s in e.model.steps] == ["base", "copy"]
    e.step.value = 1
    e.element.value = 0
    e.write_value()  # writes 99 into the copy
    assert e.model.steps[1].values[0] == 99 and e.model.steps[0].values[0] == 0
    assert e.model.lit() == {1: {0}}
    e.step.value = 0
    e.element.value = 8  # x[2, 0]: the copy's row 1 came from it, but the copy does not see this
    e.write_value()
    assert e.model.steps[0].values[8] == 99 and e.model.steps[1].values[4] == 8
    # torch agrees: indexing with a tensor copies
    x = torch.arange(12).view(3, 4)
    y = x[torch.tensor([0, 2])]
    y[0, 0] = 99
    x[2, 0] = 99
    assert e.model.steps[0].values.tolist() == x.reshape(-1).tolist()
    assert e.model.steps[1].values.tolist() == y.reshape(-1).tolist()
    e.clear_writes()
    assert e.model.writes == [] and e.model.lit() == {}


def test_memory_view_aliasing_through_a_transpose():
    e = MemoryExplorer()  # x = arange(10).view(2, 5); x.T
    e.step.value = 1
    e.element.value = 1  # x.T[0, 1] is x[1, 0], storage position 5
    e.write_value()
    assert e.model.lit() == {0: {5}}
    assert e.model.steps[0].values[5] == 99 and e.model.steps[1].values[1] == 99
    assert "storage A[5]" in e.scene.error.get()


def test_memory_bad_chain_and_custom_tensor():
    import tensorlab as tl

    e = MemoryExplorer()
    e.chain.value = "__import__('os').system('true')"
    assert e.last_error.startswith("ValueError")
    t = tl.arange(6).view(2, 3)
    e2 = MemoryExplorer(t, ".T\n.contiguous()")
    assert e2.shape.disabled and e2.model.steps[0].shape == (2, 3)
    e2.step.value = 0
    e2.write_value()
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]  # the explorer works on a private copy


# ---------------------------------------------------------------------------------- plumbing
def _artist_ids(fig):
    """The figure's own artists (axis tick machinery, which matplotlib makes lazily, left out)."""
    from matplotlib.axis import Axis

    mine = [*fig.axes, *fig.texts, *fig.artists]
    for ax in fig.axes:
        mine += [c for c in ax.get_children() if not isinstance(c, Axis)]
    return {id(a) for a in mine}


@pytest.mark.parametrize("cls", [ConvExplorer, GroupsExplorer, AxesExplorer, MemoryExplorer])
def test_artists_are_built_once_and_only_updated(cls):
    if cls is ConvExplorer:
        needs_functional()
    e = cls()
    before = _artist_ids(e.figure)
    for control in e.controls().values():
        if hasattr(control, "options"):
            for v in values_of(control)[:4]:
                control.value = v
        elif hasattr(control, "max"):
            control.value = control.max
            control.value = control.min
    assert _artist_ids(e.figure) == before


def test_without_ipympl_the_figure_is_a_png_image():
    import ipywidgets

    from tensorlab.viz import groups_figure
    from tensorlab.widgets import FigureView

    try:
        import ipympl  # noqa: F401
    except ImportError:
        view = FigureView(groups_figure(4, 4, 2), mode="ipympl")  # asked for, not installed
        assert view.mode == "png" and isinstance(view.widget, ipywidgets.HTML)
    view = FigureView(groups_figure(4, 4, 2), mode="png")
    view.render(alt="four channels in two groups")
    png = shown_png(view.widget)
    assert png.startswith(PNG) and view.png_bytes == len(png) > 1000 and view.png == png
    assert 'alt="four channels in two groups"' in view.widget.value


def test_an_exception_inside_the_scene_becomes_a_message(monkeypatch):
    e = GroupsExplorer()

    def broken(model):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(e.scene, "update", broken)
    e.groups.value = 4  # must not raise
    assert e.last_error == "ZeroDivisionError: boom"
    said_once(e, "boom")
    monkeypatch.setattr(e.scene, "show_error", broken)  # cannot even draw the message:
    e.groups.value = 3
    assert "boom" in e.message.value  # then, and only then, it goes under the picture
    monkeypatch.undo()
    e.groups.value = 2
    assert e.last_error is None and e.message.value == "" and e.shown_error() == ""


def test_png_encoder_round_trips_through_pil():
    import io

    from PIL import Image

    from tensorlab.viz import memory_figure
    from tensorlab.widgets._base import encode_png

    fig = memory_figure(chain=".T")
    fig.canvas.draw()
    data = encode_png(fig.canvas)
    image = Image.open(io.BytesIO(data))
    assert image.mode == "RGBA"
    np.testing.assert_array_equal(np.asarray(image), np.asarray(fig.canvas.buffer_rgba()))


# ---------------------------------------------------------------------------------- labels not cut
CHAR_PX, DESCRIPTION_PX = 8.0, 90.0  # JupyterLab's 13 px UI font: at most 8 px a character


def _px(layout_width) -> float:
    return float(str(layout_width or "300px").removesuffix("px"))  # ipywidgets' default: 300 px


def test_dropdown_and_text_labels_are_not_cut():
    """Every dropdown is wide enough for its longest option, the weights box for any preset
    kernel's text (a box blur's ninths included)."""
    from tensorlab.viz._conv_model import KERNEL_PRESETS, kernel_preset
    from tensorlab.widgets.conv import kernel_to_text

    for cls in (ConvExplorer, GroupsExplorer, MemoryExplorer, AxesExplorer):
        e = cls(display="agg")
        for name, c in e.controls().items():
            if type(c).__name__ == "Dropdown":
                longest = max(len(str(label)) for label in c.options)
                need = CHAR_PX * longest + DESCRIPTION_PX
                assert _px(c.layout.width) >= need, (cls.__name__, name, c.layout.width, need)
    e = ConvExplorer(display="agg")
    texts = [kernel_to_text(kernel_preset(k)) for k in KERNEL_PRESETS]
    assert "0.1111" in " ".join(texts)
    need = CHAR_PX * max(map(len, texts)) + DESCRIPTION_PX
    assert _px(e.kernel_text.layout.width) >= need, (e.kernel_text.layout.width, need)


def test_groups_sliders_give_the_usual_counts_room():
    """Channel counts 1-8 (and the lecture's 16 and 64) are stops of the sliders, and 1-8 take
    at least a third of each slider instead of the first few pixels."""
    e = GroupsExplorer(display="agg")
    for c in (e.in_channels, e.out_channels, e.groups):
        stops = list(c.options)
        assert {1, 2, 3, 4, 8, 16, 64} <= set(stops)
        assert stops.index(8) / (len(stops) - 1) >= 1 / 3
    e.groups.value = 1
    assert "more)" not in e.scene.count_text.get() and "would need" not in e.status.value
    e.groups.value = 2
    assert "(groups=1 would need 144: 2× more)" in e.scene.count_text.get()
