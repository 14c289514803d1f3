"""Stage 2, rebuild: the notebook to run, made from the released template.

The template's code cells in order, with only the learner's *answer* cells spliced in (found by
their question id in cell metadata, else by cell id). Check cells, edited or not, are never run;
a missing answer cell scores 0 with the reason ``missing``. The templates are read once, by the
parent process, and checked against ``release.json`` (``Release.read_templates``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass
class ExecCell:
    """A cell of the rebuilt notebook: template context code, or a learner's answer."""

    source: str
    qid: str | None = None  # set for answer cells


def _answer_cells(submission) -> tuple[dict, dict]:
    by_question: dict[str, list] = {}
    by_id: dict[str, list] = {}
    for cell in submission.get("cells", []):
        if not isinstance(cell, dict):
            continue
        meta = cell.get("metadata", {})
        tl = meta.get("tensorlab") if isinstance(meta, dict) else None
        if (
            isinstance(tl, dict)
            and tl.get("role") == "answer"
            and isinstance(tl.get("question"), str)
        ):
            by_question.setdefault(tl["question"], []).append(cell)
        if isinstance(cell.get("id"), str):
            by_id.setdefault(cell["id"], []).append(cell)
    return by_question, by_id


def _source(cell) -> str | None:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        src = "".join(src)
    return src if isinstance(src, str) else None


def rebuild(template, submission, questions: dict) -> tuple[list[ExecCell], dict[str, str]]:
    """The cells to run: template code cells, with the learner's answer cells spliced in.

    Returns (cells, problems) where ``problems`` maps question ids whose answer cell is absent
    (or unusable) to a reason. Duplicated answer cells: the last one is used.
    """
    by_question, by_id = _answer_cells(submission)
    cells: list[ExecCell] = []
    problems: dict[str, str] = {}
    for cell in template.cells:
        if cell.cell_type != "code":
            continue
        tl = cell.metadata.get("tensorlab", {})
        role, qid = tl.get("role"), tl.get("question")
        if role == "check":
            continue
        if role != "answer":
            cells.append(ExecCell(cell.source))
            continue
        candidates = by_question.get(qid) or by_id.get(cell.get("id"), [])
        if not candidates:
            problems[qid] = "the answer cell was deleted from the notebook"
            continue
        chosen = candidates[-1]
        if chosen.get("cell_type") != "code":
            problems[qid] = "the answer cell is not a code cell"
            continue
        src = _source(chosen)
        if src is None:
            problems[qid] = "the answer cell is malformed"
            continue
        cells.append(ExecCell(src, qid))
    for qid in questions:
        if qid not in problems and not any(c.qid == qid for c in cells):
            problems[qid] = "the answer cell is missing"
    return cells, problems


def parse_submission(data: bytes) -> dict:
    """The submitted notebook's JSON; ``ValueError`` (or ``RecursionError``) if it is not one."""
    submission = json.loads(data.decode("utf-8"))
    if not isinstance(submission, dict) or not isinstance(submission.get("cells"), list):
        raise ValueError("not a notebook (no list of cells)")
    return submission
