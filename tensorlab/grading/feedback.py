"""Feedback for learners: tidy text and HTML built from a ``Verdict``, growing hints, and the
smallest failing input of a function answer (hypothesis ``find``, derandomised, no database)."""

from __future__ import annotations

import html
import inspect
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from .encode import ArrayAnswer, Raised
from .judge import Verdict, call_encoded, compare, copy_args
from .model import Question

_ICONS = {"passed": "✓", "failed": "✗", "not_attempted": "○", "error": "✗"}
_COLOURS = {
    "passed": "#1a7f37",
    "failed": "#cf222e",
    "not_attempted": "#6e7781",
    "error": "#cf222e",
}
_TITLES = {
    "passed": "passed",
    "failed": "not yet",
    "not_attempted": "not attempted",
    "error": "error",
}


def format_value(v: Any) -> str:
    """A compact, deterministic rendering of an argument or a decoded answer."""
    from .._tensor import Tensor

    if isinstance(v, Tensor):
        body = np.array2string(v._np(), separator=", ", threshold=100, prefix="tensor(")
        return f"tensor({body}, dtype={v.dtype.name}, stride={v.stride()})"
    if isinstance(v, np.ndarray):
        body = np.array2string(v, separator=", ", threshold=100, prefix="array(")
        return f"array({body}, dtype={v.dtype})"
    if isinstance(v, (ArrayAnswer, Raised)):
        return repr(v)
    if isinstance(v, tuple) and v and any(isinstance(x, (np.ndarray, Tensor)) for x in v):
        return "(" + ", ".join(format_value(x) for x in v) + ")"
    return repr(v)


def format_args(q: Question, args: tuple) -> list[tuple[str, str]]:
    """(parameter name, rendered value) for a call of ``q``'s function."""
    try:
        names = list(inspect.signature(q.reference).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i}" for i in range(len(names), len(args))]
    return [(names[i], format_value(a)) for i, a in enumerate(args)]


@dataclass
class Counterexample:
    """The smallest input found on which the learner's function disagrees with the reference."""

    args: tuple
    expected: Any
    actual: Any
    message: str


def smallest_failing_input(
    q: Question, fn, *, max_examples: int = 150, budget_s: float = 8.0
) -> Counterexample | None:
    """Search ``q.strategy()`` for a failing input and shrink it (hypothesis ``find``).

    Derandomised and without an example database, so nothing is written to disk and the same
    answer always gets the same counterexample. Gives up quietly after ``budget_s`` seconds.
    """
    if q.strategy is None:
        return None
    try:
        from hypothesis import HealthCheck, Phase, find, settings
        from hypothesis.errors import NoSuchExample, Unsatisfiable
    except ImportError:  # hypothesis missing: feedback without a shrunk counterexample
        return None

    deadline = time.monotonic() + budget_s

    def fails(args: tuple) -> bool:
        if time.monotonic() > deadline:
            return False
        expected, n = call_encoded(q.reference, copy_args(args))
        actual, _ = call_encoded(fn, copy_args(args))
        return compare(actual, expected, q.expect, n) is not None

    config = settings(
        database=None,
        derandomize=True,
        max_examples=max_examples,
        deadline=None,
        phases=[Phase.generate, Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    try:
        args = find(q.strategy(), fails, settings=config)
    except (NoSuchExample, Unsatisfiable):
        return None
    expected, n = call_encoded(q.reference, copy_args(args))
    actual, _ = call_encoded(fn, copy_args(args))
    failure = compare(actual, expected, q.expect, n)
    return Counterexample(args, expected, actual, failure.message if failure else "")


@dataclass
class Feedback:
    """What ``check`` shows: renders as HTML in Jupyter and as plain text elsewhere."""

    verdict: Verdict
    question: Question
    hints: list[str]
    counterexample: Counterexample | None = None
    attempts: int = 0

    # -- content, shared by both renderings
    def _lines(self) -> list[tuple[str, str]]:
        v, q = self.verdict, self.question
        out: list[tuple[str, str]] = []
        if v.status == "passed":
            extra = f" ({v.n_passed} of {v.n_cases} inputs)" if v.n_cases else ""
            out.append(("", f"correct{extra}."))
            return out
        if v.status == "not_attempted":
            out.append(("", v.message + "."))
            out.append(("To do", q.todo))
            return out
        stage = {"runs": "running"}.get(v.stage or "", v.stage or "")
        out.append((f"Failed at {stage}" if stage else "Failed", v.message))
        if v.case_index is not None:
            out.append(("On input", f"{v.n_passed} of {v.n_cases} inputs pass; first failure:"))
            out.extend((f"  {n}", s) for n, s in format_args(q, v.case_args))
            out.append(("  expected", format_value(v.expected)))
            out.append(("  yours", format_value(v.actual)))
        if v.misconception is not None:
            out.append(("Likely misconception", v.misconception.message))
        for i, h in enumerate(self.hints, 1):
            out.append((f"Hint {i}" if len(self.hints) > 1 else "Hint", h))
        c = self.counterexample
        if c is not None:
            out.append(("Smallest failing input", c.message))
            out.extend((f"  {n}", s) for n, s in format_args(q, c.args))
            out.append(("  expected", format_value(c.expected)))
            out.append(("  yours", format_value(c.actual)))
        return out

    def headline(self) -> str:
        v = self.verdict
        return f"{_ICONS[v.status]} {v.qid}: {_TITLES[v.status]}"

    def text(self) -> str:
        lines = [self.headline()]
        for label, body in self._lines():
            body = body.replace("\n", "\n      ")
            lines.append(f"    {label}: {body}" if label else f"    {body}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        v = self.verdict
        colour = _COLOURS[v.status]
        rows = []
        for label, body in self._lines():
            pre = label.startswith("  ")
            text = html.escape(body)
            cell = f"<pre style='margin:0'>{text}</pre>" if pre else text
            lab = html.escape(label.strip())
            rows.append(
                "<tr><td style='vertical-align:top;padding:2px 8px 2px 0;text-align:left;"
                f"white-space:nowrap;color:#57606a'>{lab}</td>"
                f"<td style='text-align:left;padding:2px 0'>{cell}</td></tr>"
            )
        return (
            f"<div style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0;"
            "font-family:var(--jp-ui-font-family,sans-serif)'>"
            f"<div style='font-weight:600;color:{colour}'>{html.escape(self.headline())}</div>"
            f"<table style='border-collapse:collapse;margin-top:2px'>{''.join(rows)}</table></div>"
        )
