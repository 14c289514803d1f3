"""The grade records, defined once: a question's record, a notebook's record, a student's file,
a gradebook row. Every stage that makes a record (the judge, the runner, the executors, the
results writer) builds it here, so the layout of ``DIR/<student>.json`` and ``gradebook.csv``
has one definition.

A question's record::

    {"status", "points", "max_points", "stage", "message", "misconception",
     "misconception_message", "cases_passed", "cases", "partial"}  (+ "misconception_hint",
     "misconception_credit", "weighted", "error": {"type", "lineno", "line"} (the learner's
     own line), "answer" (a written answer's text; status "needs_grading") when they apply)

A notebook's record::

    {"path", "student", "notebook", "sha256", "status", "reason", "restarts", "score",
     "max_score", "questions": {qid: question record}}  (+ "duration_s", "attempts",
     "traceback", "submitted_at" / "submitted_from" (``term``) when they apply)

The grade files hold what the grader found; what people decided (overrides, written scores,
late penalties) is applied on reading, by ``term.final`` (``term.load_final``).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import TYPE_CHECKING

from .. import __version__
from .release import max_score

if TYPE_CHECKING:
    from .release import QuestionInfo, Release
    from .verdict import Verdict

STATUSES = ("passed", "failed", "not_attempted", "error", "timeout", "kernel_died", "missing")
GRADEBOOK_COLUMNS = ("student", "score", "max_score", "lost")
UNASSIGNED = "_unassigned"  # notebooks found outside any student folder


def question_record(
    status: str,
    max_points: float,
    *,
    points: float = 0.0,
    stage: str | None = None,
    message: str | None = None,
    misconception: str | None = None,
    misconception_message: str | None = None,
    cases_passed: int | None = None,
    cases: int | None = None,
    partial: bool = False,
    hint: str | None = None,
) -> dict:
    """One question's record in a grade file (``partial``: the points were given per case;
    ``hint``: an authored misconception's hint)."""
    rec = {
        "status": status,
        "points": float(points),
        "max_points": float(max_points),
        "stage": stage,
        "message": message,
        "misconception": misconception,
        "misconception_message": misconception_message,
        "cases_passed": cases_passed,
        "cases": cases,
    }
    if partial:
        rec["partial"] = True
    if hint:
        rec["misconception_hint"] = hint
    return rec


def earned(max_points: float, passed: bool, n_passed: int, n_cases: int, partial: bool) -> float:
    """Points for an answer: all or nothing, or (``partial``) per passed case."""
    if passed:
        return float(max_points)
    if partial and n_cases:
        return round(float(max_points) * n_passed / n_cases, 4)
    return 0.0


def weighted(max_points: float, weights: list[float], failed: list[int]) -> float:
    """Points for the cases passed, each case worth its weight's share of ``max_points``."""
    total = float(sum(weights))
    if total <= 0:
        return 0.0
    kept = sum(w for i, w in enumerate(weights) if i not in set(failed))
    return round(float(max_points) * kept / total, 4)


def verdict_record(
    verdict: Verdict,
    max_points: float,
    partial: bool = False,
    with_hint: bool = False,
    weights: list[float] | None = None,
) -> dict:
    """A judged question's record (a ``Verdict``; ``partial``: points per passed case, each
    worth its share of ``weights`` when given; ``with_hint``: the misconception's hint is kept,
    for an authored question). A misconception with ``credit`` earns that fraction of the
    points when it gives more than the cases passed."""
    m = verdict.misconception
    points = earned(max_points, verdict.passed, verdict.n_passed, verdict.n_cases, partial)
    failed = verdict.details.get("failed_cases") if verdict.details else None
    if partial and weights and not verdict.passed and failed is not None:
        if len(weights) == verdict.n_cases:
            points = weighted(max_points, weights, failed)
    credit = float(getattr(m, "credit", 0.0) or 0.0) if m and not verdict.passed else 0.0
    if credit:
        points = max(points, round(float(max_points) * credit, 4))
    rec = question_record(
        verdict.status,
        max_points,
        points=points,
        stage=verdict.stage,
        message=verdict.message,
        misconception=m.key if m else None,
        misconception_message=m.message if m else None,
        cases_passed=verdict.n_passed if verdict.n_cases else None,
        cases=verdict.n_cases or None,
        partial=partial,
        hint=(m.detail or None) if (m and with_hint) else None,
    )
    if credit:
        rec["misconception_credit"] = credit
    if weights and partial:
        rec["weighted"] = True
    return rec


def unjudged(infos: dict[str, QuestionInfo], status: str, message: str) -> dict:
    """Records for questions that could not be judged (0 points; their max kept)."""
    return {
        qid: question_record(status, info.points, message=message) for qid, info in infos.items()
    }


def notebook_record(
    job, infos: dict[str, QuestionInfo], status: str = "graded", reason: str | None = None
) -> dict:
    """A notebook's record before its questions are judged (``job``: a ``collect.Job``)."""
    rec = {
        "path": job.path,
        "student": job.student,
        "notebook": job.notebook,
        "sha256": None if job.data is None else hashlib.sha256(job.data).hexdigest(),
        "status": status,
        "reason": reason,
        "restarts": 0,
        "score": 0.0,
        "max_score": max_score(infos),
        "questions": {},
    }
    if getattr(job, "submitted_at", None):  # for the late policy (``term``)
        rec["submitted_at"] = job.submitted_at
        rec["submitted_from"] = job.submitted_from
    return rec


def lost_record(job, release: Release, reason: str, tb: str | None = None) -> dict:
    """The record of a notebook the grader could not grade: 0 points, its max score kept."""
    infos = release.infos(job.notebook)
    rec = notebook_record(job, infos, "grader_error", reason)
    del rec["restarts"]
    rec["questions"] = unjudged(infos, "grader_error", reason)
    if tb:
        rec["traceback"] = tb[-4000:]
    return rec


def missing_record(student: str, nb: str, release: Release) -> dict:
    """The placeholder of a notebook a student did not submit."""
    infos = release.infos(nb)
    reason = "no submission for this notebook"
    return {
        "path": None,
        "student": student,
        "notebook": nb,
        "status": "missing",
        "reason": reason,
        "score": 0.0,
        "max_score": max_score(infos),
        "questions": unjudged(infos, "missing", reason),
    }


def student_doc(
    student: str, file: str, records: list[dict], notebooks, release: Release, settings
) -> dict:
    """A student's grade file: their notebooks' records (missing ones filled in), totals."""
    by_nb = {r.get("notebook"): r for r in records}
    subs = list(records)
    for nb in notebooks if student != UNASSIGNED else ():
        if nb not in by_nb and nb in release.notebooks:
            subs.append(missing_record(student, nb, release))
    graded = [s for s in subs if s.get("notebook")]
    return {
        "student": student,
        "file": file,
        "tensorlab_version": __version__,
        "release_tensorlab_version": release.tensorlab_version,
        "grader": asdict(settings),
        "score": float(sum(s.get("score", 0.0) for s in graded)),
        "max_score": float(sum(s.get("max_score", 0.0) for s in graded)),
        "lost": float(
            sum(s.get("max_score", 0.0) for s in graded if s.get("status") == "grader_error")
        ),
        "submissions": sorted(subs, key=lambda s: (s.get("notebook") or "", s.get("path") or "")),
    }


def gradebook_row(doc: dict, qids: list[str]) -> list[str]:
    """A student's row of ``gradebook.csv`` (``GRADEBOOK_COLUMNS`` then one column a question)."""
    points = {}
    for sub in doc["submissions"]:
        if sub.get("notebook"):
            for qid, rec in sub.get("questions", {}).items():
                points[qid] = rec["points"]
    row = [_student_cell(doc), f"{doc['score']:g}", f"{doc['max_score']:g}", f"{doc['lost']:g}"]
    return row + [f"{points[q]:g}" if q in points else "" for q in qids]


def _student_cell(doc: dict) -> str:
    """The student's name as a gradebook cell: a formula neutralised (``text.csv_cell``), and
    a name with undecodable bytes followed by its grade file, so it stays distinct."""
    from .text import csv_cell, display

    student = doc["student"]
    cell = csv_cell(student)
    if display(student) != student:
        cell += f" [{doc.get('file', '')}]"
    return cell
