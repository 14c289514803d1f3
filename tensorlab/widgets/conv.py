"""``ConvExplorer``: slide a kernel over a padded image and watch one output cell being made."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from ..interop import accepts_torch
from ..viz._conv_model import (
    IMAGE_PRESETS,
    KERNEL_PRESETS,
    OPERATIONS,
    PADDING_MODES,
    as_2d,
    conv_model,
    image_preset,
    kernel_preset,
    output_size,
    parse_kernel,
)
from ..viz.conv import ConvScene
from ._base import Explorer

TYPED = "typed in"
DROPDOWN_WIDTH = "320px"  # the longest preset name is not cut
CUSTOM_IMAGE = "your image"


def kernel_to_text(k: np.ndarray) -> str:
    """``-1 0 1; -1 0 1; -1 0 1``: the format the kernel box reads back."""

    def num(v: float) -> str:
        return str(int(v)) if float(v).is_integer() else f"{v:.4g}"

    return "; ".join(" ".join(num(v) for v in row) for row in np.asarray(k))


class ConvExplorer(Explorer):
    """Controls: image and kernel presets (or a typed kernel), padding amount and mode, stride,
    dilation, output position (and a Play control that walks it over the output),
    cross-correlation vs convolution.

    ``ConvExplorer()`` starts on the lecture's step image and [-1, 0, 1] kernel; pass ``image``
    (a 2-D array or tensor) and/or ``kernel`` to start elsewhere, and any of ``padding``,
    ``padding_mode``, ``stride``, ``dilation``, ``operation``.
    """

    @accepts_torch(layer="conv")
    def __init__(
        self,
        image=None,
        kernel=None,
        *,
        padding: int = 0,
        padding_mode: str = "zeros",
        stride: int = 1,
        dilation: int = 1,
        operation: str = "cross-correlation",
        display: str = "auto",
    ):
        super().__init__(ConvScene(), display=display)
        self._custom_image = None
        options = list(IMAGE_PRESETS)
        if image is not None:
            self._custom_image = as_2d(image, "image")
            options = [CUSTOM_IMAGE, *options]
        self.image = widgets.Dropdown(
            options=options, value=options[0], description="image", layout={"width": DROPDOWN_WIDTH}
        )
        k_options = [*KERNEL_PRESETS, TYPED]
        first_kernel = next(iter(KERNEL_PRESETS))
        self.kernel = widgets.Dropdown(
            options=k_options,
            value=first_kernel,
            description="kernel",
            layout={"width": DROPDOWN_WIDTH},
        )
        start = kernel_preset(first_kernel) if kernel is None else as_2d(kernel, "kernel")
        self.kernel_text = widgets.Text(
            value=kernel_to_text(start),
            description="weights",
            continuous_update=False,
            layout=widgets.Layout(width="640px"),  # a 3×3 box blur's ninths fit, uncut
        )
        if kernel is not None:
            self.kernel.value = TYPED
        self.padding = widgets.IntSlider(value=padding, min=0, max=4, description="padding")
        self.padding_mode = widgets.Dropdown(
            options=list(PADDING_MODES), value=padding_mode, description="mode"
        )
        self.stride = widgets.IntSlider(value=stride, min=1, max=3, description="stride")
        self.dilation = widgets.IntSlider(value=dilation, min=1, max=3, description="dilation")
        self.row = widgets.IntSlider(value=0, min=0, max=5, description="out row")
        self.col = widgets.IntSlider(value=0, min=0, max=5, description="out col")
        self.operation = widgets.ToggleButtons(options=list(OPERATIONS), value=operation)
        self.operation.style.button_width = "130px"
        self._make_play(self.row, self.col)

        self.kernel.observe(self._kernel_preset_changed, names="value")
        self.kernel_text.observe(self._kernel_typed, names="value")
        self._observe(
            self.image,
            self.padding,
            self.padding_mode,
            self.stride,
            self.dilation,
            self.row,
            self.col,
            self.operation,
        )
        self.refresh()
        self._warm()

    # ------------------------------------------------------------------ controls
    def controls(self) -> dict[str, widgets.Widget]:
        return {
            "image": self.image,
            "kernel": self.kernel,
            "kernel_text": self.kernel_text,
            "padding": self.padding,
            "padding_mode": self.padding_mode,
            "stride": self.stride,
            "dilation": self.dilation,
            "row": self.row,
            "col": self.col,
            "operation": self.operation,
            "play": self.play,
        }

    def _control_rows(self) -> list:
        return [
            widgets.HBox([self.image, self.kernel]),
            widgets.HBox([self.kernel_text]),
            widgets.HBox([self.padding, self.padding_mode, self.operation]),
            widgets.HBox([self.stride, self.dilation]),
            widgets.HBox([self.row, self.col, self.play]),
        ]

    def _kernel_preset_changed(self, change) -> None:
        if change["new"] != TYPED:
            with self._quiet():
                self.kernel_text.value = kernel_to_text(kernel_preset(change["new"]))
        self._on_change()

    def _kernel_typed(self, change) -> None:
        if self._suspended:
            return
        with self._quiet():
            self.kernel.value = TYPED
        self.refresh()

    # ------------------------------------------------------------------ model
    def current_image(self) -> np.ndarray:
        if self.image.value == CUSTOM_IMAGE:
            return self._custom_image
        return image_preset(self.image.value)

    def current_kernel(self) -> np.ndarray:
        if self.kernel.value == TYPED:
            return parse_kernel(self.kernel_text.value)
        return kernel_preset(self.kernel.value)

    def _before_model(self) -> None:
        """Fit the output-position sliders to the output size of the new settings."""
        try:
            img, ker = self.current_image(), self.current_kernel()
        except Exception:  # noqa: BLE001 - reported by _model
            return
        if img.ndim != 2 or ker.ndim != 2:
            return
        p, s, d = self.padding.value, self.stride.value, self.dilation.value
        for slider, n, k in (
            (self.row, img.shape[0], ker.shape[0]),
            (self.col, img.shape[1], ker.shape[1]),
        ):
            size = output_size(n, k, p, s, d)
            if size >= 1:
                slider.max = size - 1  # lowers the value too when it no longer fits
                slider.disabled = False
            else:
                slider.disabled = True

    def _model(self):
        return conv_model(
            self.current_image(),
            self.current_kernel(),
            padding=self.padding.value,
            padding_mode=self.padding_mode.value,
            stride=self.stride.value,
            dilation=self.dilation.value,
            position=(self.row.value, self.col.value),
            operation=self.operation.value,
        )

    def describe_settings(self) -> str:
        return (
            f"{self.operation.value}: image '{self.image.value}', kernel '{self.kernel.value}' "
            f"({self.kernel_text.value}), padding {self.padding.value} ({self.padding_mode.value}), "
            f"stride {self.stride.value}, dilation {self.dilation.value}, "
            f"output position ({self.row.value}, {self.col.value})"
        )
