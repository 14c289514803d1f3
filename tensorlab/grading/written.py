"""Written answers: the "explain why" questions a person scores with a rubric.

In a solution notebook a written question is a markdown cell with the metadata
``{"tensorlab": {"role": "written", "question": "<id>", "points": 2, "rubric": [...],
"title": "..."}}``; its model answer sits between ``### BEGIN SOLUTION`` / ``### END
SOLUTION`` (or is the whole cell), and the learner gets nbgrader's ``YOUR ANSWER HERE``
instead. ``rubric``: a list of criteria, each a string or ``{"points": p, "text": "..."}``.

``grade`` records each answer's text (status ``needs_grading``, 0 points; ``not_attempted``
when the cell is as released), without running it. ``tensorlab written DIR --sheets FOLDER
--graders N`` writes the answers to grade as CSV sheets (the students split into N blocks,
each answer with the question's rubric and maximum; student names and answers neutralised for
spreadsheets); the graders fill in ``points`` and ``comment``; ``--merge SHEET...`` checks
them (a known student and written question, 0 <= points <= maximum; two sheets giving one
answer different scores is an error) and keeps them in ``DIR/written.csv``
(``term.WRITTEN_FILE``), from where they count like any other points (``term.final``).
"""

from __future__ import annotations

import csv
import html
import io
from pathlib import Path

PLACEHOLDER = "YOUR ANSWER HERE"  # nbgrader's text for a written answer cell
MAX_ANSWER_CHARS = 20_000
SHEET_COLUMNS = (
    "file",
    "student",
    "question",
    "title",
    "max_points",
    "rubric",
    "answer",
    "points",
    "comment",
    "grader",
)


def rubric_items(rubric) -> tuple[dict, ...]:
    """A rubric as ``({"points": p or None, "text": t}, ...)``; ``ValueError`` if malformed."""
    if rubric is None:
        return ()
    if isinstance(rubric, str) or not isinstance(rubric, (list, tuple)):
        raise ValueError("rubric must be a list of criteria (strings or {points, text})")
    out = []
    for item in rubric:
        if isinstance(item, str):
            out.append({"points": None, "text": item})
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            p = item.get("points")
            if p is not None and not isinstance(p, (int, float)):
                raise ValueError(f"rubric item {item!r}: points must be a number")
            out.append({"points": p, "text": item["text"]})
        else:
            raise ValueError(f"rubric item {item!r} is neither a string nor {{points, text}}")
    return tuple(out)


def rubric_text(rubric) -> str:
    return "\n".join(
        (f"[{r['points']:g}] " if r.get("points") is not None else "- ") + r["text"]
        for r in rubric or ()
    )


# ---------------------------------------------------------------------------- grading
def _text(cell) -> str:
    src = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        src = "".join(src)
    return src if isinstance(src, str) else ""


def _cells(nb: dict, qid: str, cell_id: str) -> list:
    found = []
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        if not isinstance(cell, dict):
            continue
        meta = cell.get("metadata")
        tl = meta.get("tensorlab") if isinstance(meta, dict) else None
        if isinstance(tl, dict) and tl.get("role") == "written" and tl.get("question") == qid:
            found.append(cell)
    if not found:
        found = [c for c in nb.get("cells", []) if isinstance(c, dict) and c.get("id") == cell_id]
    return found


def records(template: dict, submission: dict, infos: dict) -> dict[str, dict]:
    """The records of the written questions ``infos`` of one submission (nothing is run)."""
    from .records import question_record

    out = {}
    for qid, info in infos.items():
        given = _cells(submission, qid, info.cell_id)
        if not given:
            out[qid] = question_record(
                "missing", info.points, message="the answer cell was deleted from the notebook"
            )
            continue
        text = _text(given[-1]).strip()
        released = [_text(c).strip() for c in _cells(template, qid, info.cell_id)]
        if not text or text in released or text == PLACEHOLDER:
            out[qid] = question_record(
                "not_attempted", info.points, message="not attempted: the answer cell is empty"
            )
            continue
        rec = question_record("needs_grading", info.points, message="waiting for a grader")
        rec["answer"] = text[:MAX_ANSWER_CHARS]
        out[qid] = rec
    return out


# ---------------------------------------------------------------------------- sheets
def _answers(out_dir, include_scored: bool) -> list[dict]:
    from .pages import load_class
    from .records import UNASSIGNED
    from .term import load_questions, load_term, scored_answer

    info = load_questions(out_dir)
    term = load_term(out_dir)
    rows = []
    for doc in load_class(out_dir):
        if doc["student"] == UNASSIGNED:
            continue
        for sub in doc["submissions"]:
            for qid, rec in (sub.get("questions") or {}).items():
                if rec.get("status") != "needs_grading":
                    continue
                scored = term.written.get((doc["student"], qid))
                if scored is not None and not scored_answer(scored, rec):
                    scored = None  # the answer changed since it was scored: grade it again
                if scored is not None and not include_scored:
                    continue
                q = info.get(qid, {})
                rows.append(
                    {
                        "file": doc["file"],
                        "student": doc["student"],
                        "question": qid,
                        "title": q.get("title", ""),
                        "max_points": f"{float(rec.get('max_points', 0)):g}",
                        "rubric": rubric_text(q.get("rubric")),
                        "answer": rec.get("answer", ""),
                        "points": "" if scored is None else f"{scored['points']:g}",
                        "comment": "" if scored is None else scored.get("comment", ""),
                        "grader": "" if scored is None else scored.get("grader", ""),
                    }
                )
    order = {q: i for i, q in enumerate(info)}
    rows.sort(key=lambda r: (r["student"], order.get(r["question"], len(order)), r["question"]))
    return rows


def split(students: list[str], n: int) -> list[list[str]]:
    """``students`` (sorted) in ``n`` contiguous blocks of sizes differing by at most one."""
    students = sorted(students)
    size, extra = divmod(len(students), n)
    out, at = [], 0
    for i in range(n):
        k = size + (1 if i < extra else 0)
        out.append(students[at : at + k])
        at += k
    return out


def write_sheets(out_dir, folder, graders: int = 1, include_scored: bool = False):
    """Write ``written-K-of-N.csv`` sheets into ``folder``; (their paths, answers written)."""
    from .assign import write_atomic
    from .text import csv_cell

    rows = _answers(out_dir, include_scored)
    students = sorted({r["student"] for r in rows})
    blocks = split(students, graders)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, block in enumerate(blocks, 1):
        mine = set(block)
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\r\n")
        writer.writerow(SHEET_COLUMNS)
        for r in rows:
            if r["student"] in mine:
                r = {**r, "student": csv_cell(r["student"]), "answer": csv_cell(r["answer"])}
                r["grader"] = r["grader"] or f"grader {k}"
                writer.writerow([r[c] for c in SHEET_COLUMNS])
        path = folder / f"written-{k}-of-{graders}.csv"
        write_atomic(path, buf.getvalue().encode("utf-8"))
        paths.append(path)
    return paths, len(rows)


def merge(out_dir, sheets) -> int:
    """Merge filled sheets into ``DIR/written.csv`` (see the module docstring), then refresh the
    gradebook and pages; the number of scores merged. ``TermError`` names sheet and line."""
    from .assign import write_atomic
    from .pages import load_class
    from .term import (
        ANSWER_DIGEST,
        WRITTEN_COLUMNS,
        WRITTEN_FILE,
        TermError,
        _read_csv,
        answer_digest,
        now,
        refresh,
    )

    out = Path(out_dir)
    docs = {d["file"]: d for d in load_class(out)}
    new: dict[tuple[str, str], tuple[dict, str]] = {}
    for sheet in sheets:
        rows = _read_csv(Path(sheet), ("file", "question", "points"))
        if not rows and not Path(sheet).exists():
            raise TermError(f"sheet {sheet} does not exist")
        for n, r in rows:
            where = f"{sheet}, line {n}: "
            if not r["points"]:
                continue  # not scored yet
            doc = docs.get(r["file"])
            if doc is None:
                raise TermError(f"{where}no grade file {r['file']!r} in {out}")
            rec = None
            for sub in doc["submissions"]:
                rec = (sub.get("questions") or {}).get(r["question"]) or rec
            if rec is None or rec.get("status") not in ("needs_grading", "scored"):
                raise TermError(
                    f"{where}{doc['student']!r} has no written answer for {r['question']!r}"
                )
            try:
                points = float(r["points"])
            except ValueError:
                raise TermError(f"{where}points {r['points']!r} is not a number") from None
            top = float(rec.get("max_points", 0))
            if not 0 <= points <= top:
                raise TermError(f"{where}points {r['points']} is not between 0 and {top:g}")
            key = (doc["student"], r["question"])
            row = {
                "student": doc["student"],
                "question": r["question"],
                "points": f"{points:g}",
                "comment": r.get("comment", ""),
                "grader": r.get("grader", "") or Path(sheet).stem,
                "when": now(),
                ANSWER_DIGEST: answer_digest(rec.get("answer", "")),
            }
            if key in new and new[key][0]["points"] != row["points"]:
                raise TermError(
                    f"{where}{doc['student']!r}, {r['question']!r} scored "
                    f"{row['points']} here and {new[key][0]['points']} in {new[key][1]}"
                )
            new[key] = (row, str(sheet))
    existing = {}
    for _, r in _read_csv(out / WRITTEN_FILE, WRITTEN_COLUMNS):
        existing[(r["student"], r["question"])] = r
    existing.update({k: v[0] for k, v in new.items()})
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    columns = (*WRITTEN_COLUMNS, ANSWER_DIGEST)
    writer.writerow(columns)
    for key in sorted(existing):
        writer.writerow([existing[key].get(c, "") for c in columns])
    write_atomic(out / WRITTEN_FILE, buf.getvalue().encode("utf-8"))
    refresh(out)
    return len(new)


def write_page(out_dir, dest) -> int:
    """One HTML page of every answer to grade, question by question (to read beside a sheet)."""
    from .assign import write_atomic
    from .pages import _page

    rows = _answers(out_dir, include_scored=True)
    by_q: dict[str, list[dict]] = {}
    for r in rows:
        by_q.setdefault(r["question"], []).append(r)
    e = html.escape
    body = ["<h1>Written answers</h1>"]
    for qid, items in by_q.items():
        first = items[0]
        body.append(f"<h2>{e(first['title'] or qid)} <code>{e(qid)}</code></h2>")
        body.append(f"<p>Out of {e(first['max_points'])} points.</p>")
        if first["rubric"]:
            body.append(f'<pre class="card">{e(first["rubric"])}</pre>')
        for r in items:
            body.append(
                f'<div class="card"><b>{e(r["student"])}</b> <span class="muted">'
                f"({e(r['file'])})</span><pre>{e(r['answer'])}</pre></div>"
            )
    write_atomic(Path(dest), _page("Written answers", "".join(body)))
    return len(rows)
