"""``MemoryExplorer``: views, copies and the one storage strip they read."""

from __future__ import annotations

import ipywidgets as widgets

from ..interop import accepts_torch
from ..viz._axes_model import parse_shape
from ..viz._memory_model import PRESETS, memory_model
from ..viz.memory import MemoryScene
from ._base import Explorer

CUSTOM = "(your chain)"
OP_TEMPLATES = (
    ".T",
    ".transpose(0, 1)",
    ".permute(1, 0)",
    "[:, 1:3]",
    "[::2]",
    "[1]",
    ".view(-1)",
    ".reshape(-1)",
    ".expand(3, -1)",
    ".unsqueeze(0)",
    ".flatten()",
    ".contiguous()",
    ".clone()",
    "[tensor([0, 2])]",
)


class MemoryExplorer(Explorer):
    """Controls: the starting shape (``x = arange(n).view(shape)``) or your own tensor, the chain
    of ops (typed, or picked and appended), which step is highlighted, which element, and a
    "write" button that assigns a value through the highlighted step.

    ``MemoryExplorer()`` starts on the lecture's ``x = arange(10).view(2, 5)``, ``y = x.T``.
    ``MemoryExplorer(t, ".T; .contiguous()")`` starts from a private copy of tensor ``t``.
    """

    @accepts_torch
    def __init__(self, x=None, chain: str = ".T", *, shape=(2, 5), display: str = "auto"):
        super().__init__(MemoryScene(), display=display)
        self._x = x
        self.preset = widgets.Dropdown(
            options=[CUSTOM, *PRESETS],
            value=CUSTOM,
            description="preset",
            layout=widgets.Layout(width="420px"),  # the longest preset name is not cut
        )
        self.shape = widgets.Text(
            value=", ".join(str(s) for s in (x.shape if x is not None else shape)),
            description="x.shape",
            continuous_update=False,
            disabled=x is not None,
        )
        self.chain = widgets.Textarea(
            value="\n".join(p.strip() for p in chain.replace(";", "\n").split("\n") if p.strip()),
            description="ops",
            continuous_update=False,
            layout=widgets.Layout(width="300px", height="90px"),
        )
        self.pick = widgets.Dropdown(options=OP_TEMPLATES, value=".view(-1)", description="op")
        self.append = widgets.Button(description="append op", icon="plus")
        self.undo = widgets.Button(description="remove last op")
        self.step = widgets.IntSlider(value=1, min=0, max=1, description="step")
        self.element = widgets.IntSlider(value=0, min=0, max=9, description="element")
        self.value = widgets.IntText(
            value=99, description="value", layout=widgets.Layout(width="160px")
        )
        self.write = widgets.Button(
            description="write through step", icon="pencil", layout=widgets.Layout(width="auto")
        )
        self.clear = widgets.Button(description="clear writes")
        self.writes: list[tuple[int, int, float]] = []
        self._follow_last = True

        self.preset.observe(self._preset_changed, names="value")
        self.shape.observe(self._structure_changed, names="value")
        self.chain.observe(self._structure_changed, names="value")
        self.step.observe(self._step_moved, names="value")
        self._observe(self.element)
        self.append.on_click(lambda _: self.append_op(self.pick.value))
        self.undo.on_click(lambda _: self.remove_last_op())
        self.write.on_click(lambda _: self.write_value())
        self.clear.on_click(lambda _: self.clear_writes())
        self.refresh()
        self._warm()

    # ------------------------------------------------------------------ controls
    def controls(self) -> dict[str, widgets.Widget]:
        return {
            "preset": self.preset,
            "shape": self.shape,
            "chain": self.chain,
            "pick": self.pick,
            "step": self.step,
            "element": self.element,
            "value": self.value,
        }

    def _control_rows(self) -> list:
        return [
            widgets.HBox(
                [
                    widgets.VBox([self.preset, self.shape, widgets.HBox([self.pick])]),
                    self.chain,
                    widgets.VBox([self.append, self.undo]),
                ]
            ),
            widgets.HBox([self.step, self.element]),
            widgets.HBox([self.value, self.write, self.clear]),
        ]

    def _preset_changed(self, change) -> None:
        if change["new"] == CUSTOM:
            return
        shape, chain = PRESETS[change["new"]]
        self.writes = []
        self._follow_last = True
        with self.hold():
            if self._x is None:
                self.shape.value = shape
            self.chain.value = chain

    def _structure_changed(self, change) -> None:
        if self._suspended:
            return
        self.writes = []  # old writes named steps that may be gone
        self._follow_last = True
        with self._quiet():
            self.preset.value = CUSTOM
        self.refresh()

    def _step_moved(self, change) -> None:
        if self._suspended:
            return
        self._follow_last = change["new"] == self.step.max
        self.refresh()

    def append_op(self, op: str) -> None:
        """Add ``op`` as a new last line of the chain (and highlight its result)."""
        lines = [p for p in self.chain.value.split("\n") if p.strip()]
        self.chain.value = "\n".join([*lines, op])

    def remove_last_op(self) -> None:
        lines = [p for p in self.chain.value.split("\n") if p.strip()]
        self.chain.value = "\n".join(lines[:-1])

    def write_value(self) -> None:
        """``step[element] = value``: every step on the same storage shows the change."""
        self.writes.append((self.step.value, self.element.value, self.value.value))
        self.refresh()

    def clear_writes(self) -> None:
        self.writes = []
        self.refresh()

    # ------------------------------------------------------------------ model
    def _model(self):
        shape = parse_shape(self.shape.value) if self._x is None else None
        probe = memory_model(self._x, self.chain.value, shape=shape or (2, 5), selected=0)
        last = len(probe.steps) - 1
        with self._quiet():
            self.step.max = max(last, 0)
            if self._follow_last:
                self.step.value = last
        selected = min(self.step.value, last)
        n = probe.steps[selected].offsets.size
        with self._quiet():
            self.element.max = max(n - 1, 0)
            self.element.disabled = n == 0
        return memory_model(
            self._x,
            self.chain.value,
            shape=shape or (2, 5),
            selected=selected,
            element=self.element.value,
            writes=self.writes,
        )

    def _status(self, model) -> str:
        """The highlighted step in words; a failing op and its explanation are in the picture."""
        return model.describe().split(" | ")[0]

    def describe_settings(self) -> str:
        chain = "; ".join(p.strip() for p in self.chain.value.split("\n") if p.strip())
        return f"x.shape = ({self.shape.value}), ops: {chain or '(none)'}"
