"""``AxesExplorer``: where ``unsqueeze`` puts the new axis, what ``squeeze`` takes away."""

from __future__ import annotations

import ipywidgets as widgets

from ..viz._axes_model import OPS, axes_model, parse_shape
from ..viz.axes import AxesScene
from ._base import Explorer


def dim_range(op: str, ndim: int) -> tuple[int, int]:
    """The slider's range: every valid dim plus one invalid value at each end (to see the error)."""
    if op == "unsqueeze":
        lo, hi = -(ndim + 1), ndim
    else:
        lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    return lo - 1, hi + 1


class AxesExplorer(Explorer):
    """Controls: a shape, the op (``unsqueeze``, ``squeeze(dim)``, ``squeeze()``), the dim, and
    "apply" to make the result the new ``x`` (so (16, 16) → (1, 16, 16) → (1, 1, 16, 16)).
    """

    def __init__(
        self, shape=(16, 16), op: str = "unsqueeze", dim: int = 0, *, display: str = "auto"
    ):
        super().__init__(AxesScene(), display=display)
        self.shape = widgets.Text(
            value=", ".join(str(s) for s in shape),
            description="x.shape",
            continuous_update=False,
        )
        self.op = widgets.ToggleButtons(options=list(OPS), value=op)
        lo, hi = dim_range(op, len(shape))
        self.dim = widgets.IntSlider(value=dim, min=lo, max=hi, description="dim")
        self.apply = widgets.Button(description="apply: x = result", icon="arrow-down")
        self.reset = widgets.Button(description="reset")
        self._ids: tuple[int, ...] | None = None
        self._history: list[tuple[int, ...]] = []
        self._start = tuple(shape)
        self._observe(self.op, self.dim)
        self.shape.observe(self._shape_typed, names="value")
        self.apply.on_click(lambda _: self.apply_result())
        self.reset.on_click(lambda _: self.reset_shape())
        self.refresh()
        self._warm()

    def controls(self) -> dict[str, widgets.Widget]:
        return {"shape": self.shape, "op": self.op, "dim": self.dim}

    def _control_rows(self) -> list:
        return [
            widgets.HBox([self.shape, self.op]),
            widgets.HBox([self.dim, self.apply, self.reset]),
        ]

    def _shape_typed(self, change) -> None:
        if self._suspended:
            return
        self._ids = None
        self._history = []
        self.refresh()

    def _before_model(self) -> None:
        try:
            n = len(parse_shape(self.shape.value))
        except ValueError:
            return
        lo, hi = dim_range(self.op.value, n)
        if self.dim.min > hi:  # set in an order that never makes min > max
            self.dim.max, self.dim.min = hi, lo
        else:
            self.dim.min, self.dim.max = lo, hi
        self.dim.disabled = self.op.value == "squeeze()"

    def _model(self):
        shape = parse_shape(self.shape.value)
        history = self._history + [shape] if self._history else [shape]
        dim = None if self.op.value == "squeeze()" else self.dim.value
        return axes_model(shape, self.op.value, dim, ids=self._ids, history=history)

    def apply_result(self) -> None:
        """Make the current result the new ``x`` (keeps each axis's colour)."""
        m = self.model
        if m is None or not m.ok or self.last_error:
            return
        self._ids = m.new_ids
        self._history = list(m.history)
        with self.hold():
            self.shape.value = ", ".join(str(s) for s in m.new_shape)

    def reset_shape(self) -> None:
        self._ids = None
        self._history = []
        with self.hold():
            self.shape.value = ", ".join(str(s) for s in self._start)

    def describe_settings(self) -> str:
        return f"x.shape = ({self.shape.value}), {self.op.value}, dim {self.dim.value}"
