"""``GroupsExplorer``: how ``groups`` wires input channels to output channels, and what it costs."""

from __future__ import annotations

import ipywidgets as widgets

from ..interop import accepts_torch
from ..viz._groups_model import PRESETS, groups_model
from ..viz.groups import GroupsScene
from ._base import Explorer

CUSTOM = "(your settings)"
# Channel counts and groups on a log-like scale: the usual 1-8 take half of each slider, and the
# lecture's 16 -> 64 and depthwise cases are still a few steps away.
CHANNELS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64)
OUT_CHANNELS = (*CHANNELS, 96, 128)


def _stops(values: tuple[int, ...], value: int) -> list[int]:
    """The slider's stops, with ``value`` added when it is not one of them."""
    return sorted({*values, int(value)})


class GroupsExplorer(Explorer):
    """Controls: in_channels, out_channels, groups, kernel size, and presets (standard, depthwise,
    the lecture's groups=2 and groups=4 cases, its 16 → 64 example and its illegal 2 → 3 one).

    When groups does not divide the channel counts the figure shows PyTorch's ``ValueError`` text.
    """

    @accepts_torch(layer="any")
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
            options=[CUSTOM, *PRESETS],
            value=CUSTOM,
            description="preset",
            layout=widgets.Layout(width="360px"),  # the longest preset name is not cut
        )
        wide = {"description_width": "initial"}
        self.in_channels = widgets.SelectionSlider(
            options=_stops(CHANNELS, in_channels),
            value=int(in_channels),
            description="in_channels",
            style=wide,
        )
        self.out_channels = widgets.SelectionSlider(
            options=_stops(OUT_CHANNELS, out_channels),
            value=int(out_channels),
            description="out_channels",
            style=wide,
        )
        self.groups = widgets.SelectionSlider(
            options=_stops(CHANNELS, groups), value=int(groups), description="groups"
        )
        self.kernel_size = widgets.IntSlider(value=kernel_size, min=1, max=7, description="kernel")
        self.preset.observe(self._preset_changed, names="value")
        for c in (self.in_channels, self.out_channels, self.groups, self.kernel_size):
            c.observe(self._slider_changed, names="value")
        self.refresh()
        self._warm()

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

    def _status(self, model) -> str:
        """The layer in words; an illegal one's ValueError is in the picture (once)."""
        if model.ok:
            return model.describe()
        return f"{model.code()}: not a legal layer (PyTorch's error is in the picture)"

    def describe_settings(self) -> str:
        return (
            f"nn.Conv2d({self.in_channels.value}, {self.out_channels.value}, "
            f"{self.kernel_size.value}, groups={self.groups.value})"
        )
