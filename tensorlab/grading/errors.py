"""The learner's own error on their feedback page: the exception's type and the line of *their*
cell it came from (the line is read from the source the grader spliced in, never from the
kernel), so a ``TypeError`` reads "your function raised TypeError, line 3: ``return x + 'a'``"
instead of "failed at the runs stage". Only the learner's code is shown: no grader frame, no
hidden input (a feedback page withholds the exception's message where it may name one)."""

from __future__ import annotations

import re

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_CELL_LINE = re.compile(
    r"(?:Cell In ?\[\d*\]|<ipython-input-[^>]*>|ipykernel_\d+/\d+\.py), line (\d+)"
)


def _line_of(source: str, lineno: int) -> str | None:
    lines = source.split("\n")
    if 1 <= lineno <= len(lines) and lines[lineno - 1].strip():
        return lines[lineno - 1].strip()[:300]
    return None


def from_raised(sources: list[str], raised) -> dict | None:
    """``{"type", "lineno", "line"}`` for a function answer that raised (``encode.Raised`` with
    the frame ``encode._cell_frame`` found), when that frame's function is defined in one of
    the learner's answer cells ``sources`` at the line it says (else only the type)."""
    out = {"type": raised.type}
    name, first, line = raised.function, raised.first, raised.line
    if line is None or first is None or not name.isidentifier():
        return out
    for source in reversed(sources):  # the last cell defining it is the one that ran
        lines = source.split("\n")
        if 1 <= first <= len(lines) and re.match(
            rf"\s*(async\s+)?def\s+{re.escape(name)}\s*\(", lines[first - 1]
        ):
            text = _line_of(source, line)
            if text is not None:
                out.update(lineno=line, line=text)
            return out
    return out


def from_line(source: str, ename: str, lineno: int | None) -> dict:
    """``{"type", "lineno", "line"}`` for a cell that raised ``ename`` at line ``lineno`` of
    the cell (as the answer process reports it; the line is read from ``source``)."""
    found = {"type": str(ename)[:100]}
    if isinstance(lineno, int) and not isinstance(lineno, bool):
        text = _line_of(source, lineno)
        if text is not None:
            found.update(lineno=lineno, line=text)
    return found


def from_outputs(source: str, outputs: list) -> dict | None:
    """``{"type", "lineno", "line"}`` for an answer cell that raised as it ran, from the error
    output's traceback (its outermost cell frame: the cell that ran, whatever it called); the
    line is read from ``source``."""
    for out in outputs or ():
        if not isinstance(out, dict) or out.get("output_type") != "error":
            continue
        found = {"type": str(out.get("ename", ""))[:100]}
        lineno = None
        for entry in out.get("traceback") or ():
            m = _CELL_LINE.search(_ANSI.sub("", str(entry)))
            if m is not None:
                lineno = int(m[1])
                break
        if lineno is not None:
            text = _line_of(source, lineno)
            if text is not None:
                found.update(lineno=lineno, line=text)
        return found
    return None
