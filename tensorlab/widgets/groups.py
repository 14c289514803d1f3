"""``GroupsExplorer``: how ``groups`` wires input channels to output channels, and what it costs."""

from __future__ import annotations

import ipywidgets as widgets

from ..viz._groups_model import PRESETS, groups_model
from ..viz.groups import GroupsScene
from ._base import ERROR_STYLE, Explorer

CUSTOM = "(your settings)"


class GroupsExplorer(Explorer):
    """Controls: in_channels, out_channels, groups, kernel size, and presets (standard, depthwise,
    the lecture's groups=2 and groups=4 cases, its 16 → 64 example and its illegal 2 → 3 one).

    When groups does not divide the channel counts the figure shows PyTorch's ``ValueError`` text.
    """

    def __init__(
        self,
        in_channels: int = 4,
        out_channels: int = 4,
        groups: int = 2,
        kernel_size: int = 3,
        *,
        display: str = "auto",
    ):
        super().__init__(GroupsScene(), display=display)
        self.preset = widgets.Dropdown(
            options=[CUSTOM, *PRESETS], value=CUSTOM, description="preset"
        )
        self.in_channels = widgets.IntSlider(
            value=in_channels,
            min=1,
            max=64,
            description="in_channels",
            style={"description_width": "initial"},
        )
        self.out_channels = widgets.IntSlider(
            value=out_channels,
            min=1,
            max=128,
            description="out_channels",
            style={"description_width": "initial"},
        )
        self.groups = widgets.IntSlider(value=groups, min=1, max=64, description="groups")
        self.kernel_size = widgets.IntSlider(value=kernel_size, min=1, max=7, description="kernel")
        self.preset.observe(self._preset_changed, names="value")
        for c in (self.in_channels, self.out_channels, self.groups, self.kernel_size):
            c.observe(self._slider_changed, names="value")
        self.refresh()

    def controls(self) -> dict[str, widgets.Widget]:
        return {
            "preset": self.preset,
            "in_channels": self.in_channels,
            "out_channels": self.out_channels,
            "groups": self.groups,
            "kernel_size": self.kernel_size,
        }

    def _control_rows(self) -> list:
        return [
            widgets.HBox([self.preset, self.kernel_size]),
            widgets.HBox([self.in_channels, self.out_channels, self.groups]),
        ]

    def _preset_changed(self, change) -> None:
        if change["new"] == CUSTOM:
            return
        p = PRESETS[change["new"]]
        with self.hold():
            self.in_channels.value = p["in_channels"]
            self.out_channels.value = p["out_channels"]
            self.groups.value = p["groups"]
            self.kernel_size.value = p["kernel_size"]

    def _slider_changed(self, change) -> None:
        if self._suspended:
            return
        with self._quiet():
            self.preset.value = CUSTOM
        self.refresh()

    def _model(self):
        return groups_model(
            self.in_channels.value,
            self.out_channels.value,
            self.groups.value,
            self.kernel_size.value,
        )

    def _note(self, model) -> str:
        if model.ok:
            return ""
        return f'<span style="{ERROR_STYLE}">ValueError: {model.error}</span>'

    def describe_settings(self) -> str:
        return (
            f"nn.Conv2d({self.in_channels.value}, {self.out_channels.value}, "
            f"{self.kernel_size.value}, groups={self.groups.value})"
        )
