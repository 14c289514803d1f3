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

_ICONS = {"passed": "✓", "failed": "✗", "not_attempted": "○", "error": "✗", "unchecked": "?"}
# Theme-aware: JupyterLab's own colours (each level chosen to keep 4.5:1 contrast on both its
# light and dark themes), with the light-theme colour as fallback elsewhere.
_COLOURS = {
    "passed": "var(--jp-success-color0,#1a7f37)",
    "failed": "var(--jp-error-color1,#cf222e)",
    "not_attempted": "var(--jp-ui-font-color2,#6e7781)",
    "error": "var(--jp-error-color1,#cf222e)",
    "unchecked": "var(--jp-ui-font-color2,#6e7781)",
}
_LABEL_COLOUR = (
    "var(--jp-ui-font-color1,#57606a)"  # color2 is 4.5:1 on white: too faint on grey rows
)
_TEXT_COLOUR = "var(--jp-content-font-color1,inherit)"
_TITLES = {
    "passed": "passed",
    "failed": "not yet",
    "not_attempted": "not attempted",
    "error": "error",
    "unchecked": "no self-check",
}


FULL_LIMIT = 36  # arrays with at most this many entries (and at most 2 axes) print in full
WINDOW = 6  # a bigger array shows at most WINDOW x WINDOW entries of one 2-D plane


def _array_of(v: Any) -> tuple[np.ndarray, str, str] | None:
    """(values, kind name, extra layout text) for an array-like argument or decoded answer."""
    from .._tensor import Tensor

    if isinstance(v, Tensor):
        arr = np.asarray(v._np())
        contiguous = v.is_contiguous()
        extra = "" if contiguous else f", stride={v.stride()}"
        return arr, "tensor", extra
    if isinstance(v, np.ndarray):
        return v, "array", ""
    if isinstance(v, ArrayAnswer):
        kind = "tensor" if v.kind == "tensor" else "array"
        fresh = _fresh_strides(v.array.shape)
        extra = ""
        if kind == "tensor" and v.stride is not None and tuple(v.stride) != fresh:
            extra = f", stride={tuple(v.stride)}"
        return v.array, kind, extra
    return None


def _fresh_strides(shape: tuple) -> tuple:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _entry(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if f.is_integer() and abs(f) < 1e15:
            return f"{int(f)}."
        return f"{f:.4g}"
    if isinstance(x, (complex, np.complexfloating)):
        return f"{complex(x):.4g}"
    return str(x)


def _window(shape: tuple, focus: tuple | None) -> tuple:
    """Index (a tuple of ints and slices) of the plane shown for an array of ``shape``:
    the last two axes, at most WINDOW x WINDOW, around ``focus`` (the first difference)."""
    focus = focus if focus is not None else (0,) * len(shape)
    index: list = [int(i) for i in focus[:-2]] if len(shape) > 2 else []
    for axis in range(max(0, len(shape) - 2), len(shape)):
        n, at = shape[axis], int(focus[axis])
        start = 0 if n <= WINDOW else min(max(0, at - WINDOW // 2), n - WINDOW)
        index.append(slice(start, min(n, start + WINDOW)))
    return tuple(index)


def _index_text(index: tuple) -> str:
    parts = []
    for i in index:
        if isinstance(i, slice):
            parts.append(f"{i.start}:{i.stop}")
        else:
            parts.append(str(i))
    return "[" + ", ".join(parts) + "]"


def _grid(block: np.ndarray, width: int, more_rows: bool, more_cols: bool) -> str:
    """Rows of right-aligned entries, every row starting in the same column."""
    if block.ndim == 0:
        return _entry(block[()])
    if block.ndim == 1:
        block = block[None, :]
        one = True
    else:
        one = False
    rows = []
    for r in block:
        cells = [_entry(x).rjust(width) for x in r]
        if more_cols:
            cells.append("...")
        rows.append("[" + ", ".join(cells) + "]")
    if one:
        return rows[0]
    if more_rows:
        rows.append(" ...")
    return "[" + ",\n ".join(rows) + "]"


MAX_PLANES = 4  # an array with more than two axes shows at most this many 2-D planes


def _plane_text(arr: np.ndarray, lead: tuple, focus: tuple | None, width: int) -> str:
    """One 2-D plane ``arr[lead]`` (cropped to WINDOW x WINDOW), labelled by its index."""
    plane = arr[lead] if lead else arr
    inner = focus[len(lead) :] if focus is not None and tuple(focus[: len(lead)]) == lead else None
    index = _window(plane.shape, inner)
    block = plane[index]
    more_rows = index[0].start > 0 or index[0].stop < plane.shape[0]
    more_cols = index[1].start > 0 or index[1].stop < plane.shape[1]
    grid = _grid(block, width, more_rows, more_cols)
    cropped = more_rows or more_cols
    if not lead and not cropped:
        return grid
    label = _index_text(lead + index) if cropped else _index_text(lead)
    pad = " " * (len(label) + 1)
    return label + " " + grid.replace("\n", "\n" + pad)


def _summary(arr: np.ndarray, kind: str, extra: str, focus: tuple | None, width: int) -> str:
    dtype = str(arr.dtype)
    if arr.size <= FULL_LIMIT and arr.ndim <= 2:
        body = _grid(arr, width, False, False)
        if "\n" in body:
            return f"{kind}, dtype={dtype}{extra}\n{body}"
        return f"{body}  ({kind}, dtype={dtype}{extra})"
    head = f"{kind} of shape {tuple(arr.shape)}, dtype={dtype}{extra}"
    if arr.size == 0:
        return head + " (empty)"
    if arr.ndim <= 2:
        view = arr.reshape(1, -1) if arr.ndim == 1 else arr
        body = _plane_text(
            view, (), None if focus is None else (0,) * (2 - arr.ndim) + focus, width
        )
        return f"{head}\n{body}"
    leads = list(np.ndindex(arr.shape[:-2]))
    start = leads.index(tuple(focus[:-2])) if focus is not None else 0
    start = max(0, min(start, len(leads) - MAX_PLANES))
    shown = leads[start : start + MAX_PLANES]
    lines = [head]
    if start:
        lines.append(f"... ({start} planes before)")
    lines += [_plane_text(arr, lead, focus, width) for lead in shown]
    after = len(leads) - start - len(shown)
    if after:
        lines.append(f"... ({after} more planes)")
    return "\n".join(lines)


def _first_difference(a: np.ndarray, b: np.ndarray) -> tuple | None:
    if a.shape != b.shape or a.size == 0:
        return None
    try:
        with np.errstate(all="ignore"):
            if a.dtype.kind in "fc" or b.dtype.kind in "fc":
                same = np.isclose(a.astype(np.complex128), b.astype(np.complex128)) | (
                    np.isnan(a.astype(np.complex128)) & np.isnan(b.astype(np.complex128))
                )
            else:
                same = a == b
    except (TypeError, ValueError):
        return None
    bad = np.argwhere(~np.asarray(same))
    return tuple(int(i) for i in bad[0]) if len(bad) else None


def format_value(v: Any, *, other: Any = None) -> str:
    """A compact, deterministic rendering of an argument or a decoded answer.

    Small arrays print in full; bigger ones as shape, dtype and one plane of at most
    WINDOW x WINDOW entries (around the first entry where ``v`` differs from ``other``).
    """
    got = _array_of(v)
    if got is not None:
        arr, kind, extra = got
        focus, width = None, max((len(_entry(x)) for x in arr.flat), default=1)
        pair = _array_of(other) if other is not None else None
        if pair is not None:
            focus = _first_difference(arr, pair[0])
            width = max(width, max((len(_entry(x)) for x in pair[0].flat), default=1))
        return _summary(arr, kind, extra, focus, width)
    if isinstance(v, Raised):
        return repr(v)
    if isinstance(v, tuple) and v and any(_array_of(x) is not None for x in v):
        return "(" + ", ".join(format_value(x) for x in v) + ")"
    return repr(v)


def format_pair(expected: Any, actual: Any) -> tuple[str, str]:
    """Expected and actual rendered so that their rows line up, focused on where they differ."""
    return format_value(expected, other=actual), format_value(actual, other=expected)


def format_args(q: Question, args: tuple) -> list[tuple[str, str]]:
    """(parameter name, rendered value) for a call of ``q``'s function."""
    try:
        names = list(inspect.signature(q.reference).parameters)
    except (TypeError, ValueError):
        names = []
    names += [f"arg{i}" for i in range(len(names), len(args))]
    return [(names[i], format_value(a)) for i, a in enumerate(args)]


class _OutOfTime(Exception):
    """The counterexample search used up its time budget."""


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
    found: list[tuple] = []  # failing inputs in the order seen: the last is the smallest yet

    def fails(args: tuple) -> bool:
        if time.monotonic() > deadline:
            raise _OutOfTime
        expected, n = call_encoded(q.reference, copy_args(args))
        actual, _ = call_encoded(fn, copy_args(args))
        failed = compare(actual, expected, q.expect, n) is not None
        if failed:
            found.append(args)
        return failed

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
    except Exception:  # noqa: BLE001 - out of time, or an answer that is not deterministic
        if not found:
            return None
        args = found[-1]
    try:  # what the answer returns must never break the feedback (the verdict stands)
        expected, n = call_encoded(q.reference, copy_args(args))
        actual, _ = call_encoded(fn, copy_args(args))
        failure = compare(actual, expected, q.expect, n)
    except Exception:  # noqa: BLE001 - e.g. an OverflowError comparing a huge int
        return None
    return Counterexample(args, expected, actual, failure.message if failure else "")


def _groups(rows: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
    """Rows split into runs of indented labels (an input's arguments, expected, yours) and
    single top-level rows, so that the bodies of one run start in the same column."""
    out: list[list[tuple[str, str]]] = []
    for row in rows:
        indented = row[0].startswith("  ")
        if indented and out and out[-1][0][0].startswith("  "):
            out[-1].append(row)
        else:
            out.append([row])
    return out


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
        """(label, body) rows in teaching order: what failed, the likely misconception, the
        smallest input that shows it, then the hints earned so far."""
        v, q = self.verdict, self.question
        out: list[tuple[str, str]] = []
        if v.status == "passed":
            extra = f" ({v.n_passed} of {v.n_cases} inputs)" if v.n_cases else ""
            out.append(("", f"correct{extra}."))
            return out
        if v.status in ("not_attempted", "unchecked"):
            out.append(("", v.message + "."))
            if v.status == "unchecked":
                return out
            out.append(("To do", q.todo))
            return out
        stage = {"runs": "running"}.get(v.stage or "", v.stage or "")
        message = v.message
        if v.case_index is not None and v.n_cases:
            message += f" ({v.n_passed} of {v.n_cases} inputs pass)"
        out.append((f"Failed at {stage}" if stage else "Failed", message))
        m = v.misconception
        if m is not None:
            text = m.message
            if m.detail and self.attempts >= 2:
                text += " " + m.detail
            out.append(("Likely misconception", text))
        c = self.counterexample
        if c is not None:
            out.append(("Smallest failing input", c.message))
            out.extend(self._call_rows(c.args, c.expected, c.actual))
        elif v.case_index is not None:
            out.append(("First failing input", f"input {v.case_index + 1} of {v.n_cases}"))
            out.extend(self._call_rows(v.case_args, v.expected, v.actual))
        for i, h in enumerate(self.hints, 1):
            out.append((f"Hint {i}" if len(self.hints) > 1 else "Hint", h))
        return out

    def _call_rows(self, args: tuple, expected: Any, actual: Any) -> list[tuple[str, str]]:
        rows = [(f"  {n}", s) for n, s in format_args(self.question, args)]
        e, a = format_pair(expected, actual)
        return rows + [("  expected", e), ("  yours", a)]

    def headline(self) -> str:
        v, q = self.verdict, self.question
        head = f"{_ICONS[v.status]} {v.qid}: {_TITLES[v.status]}"
        if getattr(q, "assessment", "") == "predict" and not q.points:
            head += " (a formative self-check: 0 points)"
        return head

    def text(self) -> str:
        rows = self._lines()
        lines = [self.headline()]
        for group in _groups(rows):
            width = max(len(label) for label, _ in group)
            for label, body in group:
                if not label:
                    lines.append(f"    {body}")
                    continue
                lead = f"    {(label + ':').ljust(width + 1)} "
                body = body.replace("\n", "\n" + " " * len(lead))
                lines.append(lead + body)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        v = self.verdict
        colour = _COLOURS[v.status]
        rows = []
        for label, body in self._lines():
            pre = label.startswith("  ") or "\n" in body
            text = html.escape(body)
            cell = f"<pre style='margin:0'>{text}</pre>" if pre else text
            lab = html.escape(label.strip())
            rows.append(
                "<tr><td style='vertical-align:top;padding:2px 8px 2px 0;text-align:left;"
                f"white-space:nowrap;color:{_LABEL_COLOUR}'>{lab}</td>"
                f"<td style='text-align:left;padding:2px 0;color:{_TEXT_COLOUR}'>{cell}</td></tr>"
            )
        return (
            f"<div style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0;"
            "font-family:var(--jp-ui-font-family,sans-serif)'>"
            f"<div style='font-weight:600;color:{colour}'>{html.escape(self.headline())}</div>"
            f"<table style='border-collapse:collapse;margin-top:2px'>{''.join(rows)}</table></div>"
        )
