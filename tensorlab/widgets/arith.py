"""``ArithExplorer``: the convolution-arithmetic animations, one output cell at a time."""

from __future__ import annotations

import ipywidgets as widgets

from ..viz._arith_model import (
    PRESETS,
    arith_model,
    conv_output_size,
    conv_transpose_output_size,
    preset,
)
from ..viz.arith import ArithScene
from ._base import Explorer

CUSTOM = "(your settings)"
OPERATIONS = ("conv2d", "conv_transpose2d")


class ArithExplorer(Explorer):
    """Controls: a preset (the guide's animations: no padding/strides, half, full padding, strided,
    dilated, transposed), input size, kernel size, padding, stride, dilation, ``conv2d`` or
    ``conv_transpose2d``, ``output_padding``, and the output cell (row, column), which a Play
    control walks over the whole output, as the guide's GIFs do.

    ``ArithExplorer("full padding")`` starts on a preset; an impossible layer shows PyTorch's error
    in the picture.
    """

    def __init__(self, start: str = "no padding, no strides", *, display: str = "auto"):
        super().__init__(ArithScene(), display=display)
        s = preset(start)
        self.preset = widgets.Dropdown(
            options=[CUSTOM, *PRESETS],
            value=start,
            description="preset",
            layout=widgets.Layout(width="420px"),
        )
        self.operation = widgets.ToggleButtons(
            options=OPERATIONS,
            value=OPERATIONS[int(s["transposed"])],
            description="op",
            style={"button_width": "130px", "description_width": "40px"},
        )
        self.size = widgets.IntSlider(value=s["size"], min=1, max=7, description="input size")
        self.kernel = widgets.IntSlider(value=s["kernel"], min=1, max=4, description="kernel")
        self.padding = widgets.IntSlider(value=s["padding"], min=0, max=3, description="padding")
        self.stride = widgets.IntSlider(value=s["stride"], min=1, max=3, description="stride")
        self.dilation = widgets.IntSlider(value=s["dilation"], min=1, max=3, description="dilation")
        self.output_padding = widgets.IntSlider(
            value=s["output_padding"], min=0, max=2, description="output_padding"
        )
        self.row = widgets.IntSlider(value=0, min=0, max=0, description="out row")
        self.col = widgets.IntSlider(value=0, min=0, max=0, description="out col")
        for c in (self.size, self.padding, self.stride, self.output_padding, self.row, self.col):
            c.style.description_width = "initial"
        self._make_play(self.row, self.col)
        self.preset.observe(self._preset_changed, names="value")
        self._layer = (
            self.operation,
            self.size,
            self.kernel,
            self.padding,
            self.stride,
            self.dilation,
            self.output_padding,
        )
        for c in self._layer:
            c.observe(self._layer_changed, names="value")
        self._observe(self.row, self.col)
        self.refresh()
        self._warm()

    def controls(self) -> dict[str, widgets.Widget]:
        return {
            "preset": self.preset,
            "operation": self.operation,
            "size": self.size,
            "kernel": self.kernel,
            "padding": self.padding,
            "stride": self.stride,
            "dilation": self.dilation,
            "output_padding": self.output_padding,
            "row": self.row,
            "col": self.col,
            "play": self.play,
        }

    def _control_rows(self) -> list:
        return [
            widgets.HBox([self.preset, self.operation]),
            widgets.HBox([self.size, self.kernel, self.padding]),
            widgets.HBox([self.stride, self.dilation, self.output_padding]),
            widgets.HBox([self.row, self.col, self.play]),
        ]

    def _preset_changed(self, change) -> None:
        if change["new"] == CUSTOM:
            return
        s = preset(change["new"])
        with self.hold():
            self.operation.value = OPERATIONS[int(s["transposed"])]
            for name in ("size", "kernel", "padding", "stride", "dilation", "output_padding"):
                getattr(self, name).value = s[name]
            self.row.value = 0
            self.col.value = 0

    def _layer_changed(self, change) -> None:
        if self._suspended:
            return
        with self._quiet():
            self.preset.value = CUSTOM
        self.refresh()

    def _settings(self) -> dict:
        return dict(
            size=self.size.value,
            kernel=self.kernel.value,
            padding=self.padding.value,
            stride=self.stride.value,
            dilation=self.dilation.value,
            transposed=self.operation.value == "conv_transpose2d",
            output_padding=self.output_padding.value,
        )

    def _before_model(self) -> None:
        """The output-cell sliders span the output (when the layer is legal)."""
        st = self._settings()
        args = (st["size"], st["kernel"], st["padding"], st["stride"], st["dilation"])
        if st["transposed"]:
            o = conv_transpose_output_size(*args, st["output_padding"])
        else:
            o = conv_output_size(*args)
        if o < 1:  # an impossible layer: the model reports it, in the picture
            return
        for slider in (self.row, self.col):
            slider.max = max(o - 1, 0)
            slider.value = min(slider.value, slider.max)

    def _model(self):
        return arith_model(**self._settings(), position=(self.row.value, self.col.value))

    def describe_settings(self) -> str:
        s = self._settings()
        name = "conv_transpose2d" if s["transposed"] else "conv2d"
        extra = f", output_padding {s['output_padding']}" if s["output_padding"] else ""
        return (
            f"{name}: input {s['size']}×{s['size']}, kernel {s['kernel']}, padding "
            f"{s['padding']}, stride {s['stride']}, dilation {s['dilation']}{extra}"
        )
