"""Cells nbval does not compare (``# NBVAL_IGNORE_OUTPUT``) still run in every lesson; their
printed numbers are compared *loosely* with the saved ones, so a stale saved output cannot hide.

Such cells print what training makes of last bits that differ between BLAS libraries and CPUs
(accuracies, losses): the seeds fix the run on one machine, not across machines. The saved text
and the new text must have the same words; each pair of numbers must agree within ``close``:
a percentage within 10 points, any other number within 25 % (relative) or 1e-3 (absolute).
Pictures and widgets are not read (their ``text/plain`` stand-ins are); a cell that prints
addresses or timings opts out with ``# NBVAL_LOOSE_SKIP``."""

from __future__ import annotations

import math
import re

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?%?")
SKIP = "NBVAL_LOOSE_SKIP"


def text_of(outputs) -> str:
    """The text a person reads in ``outputs``: streams and ``text/plain`` (no pictures)."""
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append("".join(o.get("text", "")))
        elif o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data", {})
            if "text/plain" in data and "image/png" not in data:
                parts.append("".join(data["text/plain"]))
        elif o.get("output_type") == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
    return "\n".join(p.rstrip("\n") for p in parts)


def close(a: str, b: str) -> bool:
    if a.endswith("%") != b.endswith("%"):
        return False
    x, y = float(a.rstrip("%")), float(b.rstrip("%"))
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if a.endswith("%"):
        return abs(x - y) <= 10.0
    return abs(x - y) <= max(1e-3, 0.25 * max(abs(x), abs(y)))


def differences(saved: str, now: str) -> list[str]:
    """Why ``now`` is not loosely the ``saved`` text (empty when it is)."""
    if NUMBER.sub("#", saved) != NUMBER.sub("#", now):
        return [f"the text changed:\n--- saved\n{saved}\n--- now\n{now}"]
    out = []
    for a, b in zip(NUMBER.findall(saved), NUMBER.findall(now)):
        if not close(a, b):
            out.append(f"{a} (saved) is now {b}")
    return out


def install() -> None:
    """Wrap nbval's cell test: after an ignored cell runs, compare its numbers loosely."""
    try:
        from nbval import plugin
    except ImportError:  # nbval not installed: nothing to wrap
        return
    original = plugin.IPyNbCell.runtest
    if getattr(original, "_loose", False):
        return

    def runtest(self):
        original(self)
        if self.options["check"] or self.cell.execution_count is None:
            return
        if SKIP in self.cell.source or self.test_outputs is None:
            return
        saved, now = text_of(self.cell.outputs), text_of(self.test_outputs)
        problems = differences(saved, now)
        if problems:
            self.raise_cell_error(
                "An output nbval ignores is stale (its numbers are compared loosely: re-run "
                "the lesson and save it)",
                "\n".join(problems),
            )

    runtest._loose = True
    plugin.IPyNbCell.runtest = runtest
