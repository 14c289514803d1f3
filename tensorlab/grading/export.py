"""``tensorlab export DIR --format canvas|moodle|gradescope [--gradebook FILE] --out FILE``.

The grades in ``DIR`` as the CSV a learning management system imports.

**Filling the LMS's own gradebook file** (``--gradebook``), so the columns are the LMS's:

- Canvas: its gradebook export (Grades > Export). Its header row names each assignment
  ``Assignment name (id)``, which is how Canvas's import recognises an assignment that exists;
  the next rows before the students (``Points Possible``, and ``Manual Posting`` when an
  assignment posts grades manually) are kept as they are. Each notebook is matched to the one
  assignment column whose name is the notebook's (``04_strides``, ``04 Strides``: case,
  spaces, ``_`` and ``-`` ignored) or the one ``--column NOTEBOOK=NAME`` names; every student
  row gets its points, scaled to the assignment's ``Points Possible`` when that differs from
  the notebook's maximum. A student of the file with no submission gets 0, unless the cell is
  ``EX`` (excused), which is kept. Every other column and row is written back unchanged
  (Canvas ignores its read-only columns on import): the cells the LMS wrote are its own data,
  which its import matches on, and are copied byte for byte; every cell export writes (a
  score, a new column's name, a comment) goes through ``text.csv_cell``.
- Moodle: an assignment's grading worksheet (View all submissions > Download grading
  worksheet; "Offline grading worksheet" turned on in the assignment's feedback types). Its
  ``Identifier`` column (``Participant 123456``) is the participant id Moodle's download names
  folders with, kept by ``tensorlab collect``. ``Grade`` is filled (scaled to ``Maximum
  Grade``), 0 for a participant with no submission; a row whose ``Grade can be changed`` is
  ``No`` is left alone. One worksheet is one assignment: ``--notebook`` says which (needed
  when DIR holds several).

**Writing a new import file** (no ``--gradebook``):

- ``canvas``: ``Student, ID, SIS User ID, SIS Login ID, Section``, then one column per notebook
  (new assignments in Canvas); the second row is ``Points Possible``. The roster needs one of
  ``canvas_id``, ``sis_user_id``, ``sis_login_id`` (and may give ``name`` and ``section``).
- ``moodle``: the CSV grade import (Grades > Import > CSV file): ``Email address`` and/or
  ``ID number``, then one column per notebook. The roster needs ``email`` or ``id_number``.
- ``gradescope``: the score upload of an (offline) assignment: ``Name, SID, Email, Score``.

``--per-question``: a column per question too (Canvas: ``04_strides: <title>``, filled if the
gradebook has it, else a new assignment; Moodle's worksheet holds one grade, so there the
questions' points go into ``Feedback comments``). ``--feedback-zip FILE`` (Moodle): the
students' feedback pages as the zip Moodle's "Upload multiple feedback files in a zip" takes
(``{name}_{participant id}_assignsubmission_file/feedback.html``).

Identities: ``--roster ROSTER.csv`` maps each student folder name (column ``student``) to the
LMS's identity; without it, each student's ``.tensorlab-submission.json`` that ``tensorlab
collect`` wrote beside their notebooks is used. A student on the roster (or in the LMS's file)
with no submission scores 0. A graded student the roster or the LMS's file does not have is
*unmatched*: listed, and the export fails (exit 1) unless ``allow_unmatched``. A bad roster or
gradebook file raises ``RosterError`` before anything is written. Files are written atomically.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
import zipfile
from pathlib import Path

from .records import UNASSIGNED
from .text import csv_cell

FORMATS = ("canvas", "moodle", "gradescope")
IDENTITIES = {
    "canvas": ("canvas_id", "sis_user_id", "sis_login_id"),
    "moodle": ("email", "id_number"),
    "gradescope": ("email", "sid"),
}
WORKSHEET_IDENTITIES = ("moodle_participant", "email")
CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = {"email": "Email address", "id_number": "ID number"}
GRADESCOPE_HEAD = ["Name", "SID", "Email", "Score"]
CANVAS_ASSIGNMENT = re.compile(r"(?P<name>.*\S)\s*\((?P<id>\d+)\)")
EXCUSED = "EX"
FEEDBACK_PAGE = "feedback.html"


class RosterError(ValueError):
    """The roster or the LMS's gradebook file cannot be used (one line, for the message)."""


class Unmatched(Exception):
    def __init__(self, students: list[str]):
        super().__init__(", ".join(students))
        self.students = students


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip())


def _norm(name: str) -> str:
    """An assignment's name as compared with a notebook's: case, spaces, ``_``, ``-`` ignored."""
    return re.sub(r"[\s_\-]+", " ", unicodedata.normalize("NFC", name)).strip().casefold()


# ---------------------------------------------------------------------------- points
def final_points(doc: dict) -> dict[str, dict]:
    """A student's points as exported, per notebook::

        {notebook: {"score", "max_score", "questions": {qid: {"points", "max_points"}}}}

    The one place export reads a grade file's points, from a grade file with the term applied
    (``term.load_final``: overrides, written scores, late penalties; what the feedback pages
    and the gradebook show). A notebook with excused questions is exported on its full
    maximum, its score scaled by the same factor (the excused questions count in neither);
    an excused question keeps 0 of 0 and ``"excused": True``.
    """
    out = {}
    for s in doc.get("submissions", []):
        nb = s.get("notebook")
        if not nb:
            continue
        questions = s.get("questions") or {}
        excused = sum(_graded_max(r) for r in questions.values() if r.get("excused"))
        score, top = float(s.get("score", 0.0)), float(s.get("max_score", 0.0))
        if excused and top > 0:
            score = round(score * (top + excused) / top, 4)
        out[nb] = {
            "score": score,
            "max_score": top + excused,
            "questions": {
                q: {"points": float(r.get("points", 0.0)), "max_points": float(r["max_points"])}
                | ({"excused": True} if r.get("excused") else {})
                for q, r in questions.items()
            },
        }
    return out


def _graded_max(rec: dict) -> float:
    """An excused question's maximum before it was excused (``term.final`` keeps it)."""
    return float(rec.get("excused_max_points", 0.0))


def _points(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".")


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except (ValueError, AttributeError):
        return None
    return value if value == value and abs(value) != float("inf") else None


def _scaled(score: float, maximum: float, lms_max: float | None) -> float:
    """``score`` out of ``maximum`` on the LMS's scale (its points possible) when it differs
    (an LMS maximum of 0, an ungraded or extra-credit column, keeps the points as they are)."""
    if lms_max is None or lms_max <= 0 or maximum <= 0 or abs(lms_max - maximum) < 1e-9:
        return score
    return round(score * lms_max / maximum, 2)


# ---------------------------------------------------------------------------- rosters
def read_csv(path, what: str) -> list[list[str]]:
    """The rows of a CSV file (UTF-8, with or without a byte-order mark)."""
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise RosterError(f"{what} {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RosterError(f"{what} {path} cannot be read as UTF-8 text: {e}") from None
    try:
        return list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as e:
        raise RosterError(f"{what} {path} is not valid CSV: {e}") from None


def read_roster(path, fmt: str, ids: tuple[str, ...] | None = None) -> dict[str, dict]:
    """``{student folder name: row}`` of a roster CSV (header names case-insensitive); each row
    needs one of ``ids`` (default: the format's identity columns)."""
    if fmt not in FORMATS:
        raise RosterError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    wanted = ids or IDENTITIES[fmt]
    rows = [r for r in read_csv(path, "roster") if any(c.strip() for c in r)]
    if not rows:
        raise RosterError(f"roster {path} is empty (expected a header row with 'student')")
    header = [h.strip().lower().replace(" ", "_") for h in rows[0]]
    if "student" not in header:
        raise RosterError(
            f"roster {path} has no 'student' column (its header: {', '.join(rows[0])})"
        )
    if len(set(header)) != len(header):
        raise RosterError(f"roster {path} repeats a column in its header")
    present = [c for c in wanted if c in header]
    if not present:
        raise RosterError(
            f"roster {path} has no column identifying students in {fmt} (one of "
            f"{', '.join(wanted)})"
        )
    out: dict[str, dict] = {}
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise RosterError(
                f"roster {path}, line {n}: {len(row)} fields, the header has {len(header)}"
            )
        rec = {h: v.strip() for h, v in zip(header, row)}
        student = _key(rec["student"])
        if not student:
            raise RosterError(f"roster {path}, line {n}: the student is empty")
        if student in out:
            raise RosterError(f"roster {path}, line {n}: student {student!r} appears twice")
        if not any(rec.get(c) for c in present):
            raise RosterError(f"roster {path}, line {n}: {student!r} has no {' or '.join(present)}")
        out[student] = rec
    return out


def collected_identities(docs: list[dict]) -> dict[str, dict]:
    """``{student: roster row}`` from the ``.tensorlab-submission.json`` that ``tensorlab
    collect`` left beside each graded notebook (students without one are left out)."""
    from .lms import ID_COLUMN, SUBMISSION_FILE

    out: dict[str, dict] = {}
    for d in docs:
        for s in d["submissions"]:
            if not s.get("path"):
                continue
            try:
                ident = json.loads(
                    (Path(s["path"]).parent / SUBMISSION_FILE).read_text(encoding="utf-8")
                )
            except (OSError, ValueError):
                continue
            if isinstance(ident, dict) and ident.get("lms") in ID_COLUMN and ident.get("lms_id"):
                out[_key(d["student"])] = {
                    "student": d["student"],
                    "name": str(ident.get("name") or ""),
                    ID_COLUMN[ident["lms"]]: str(ident["lms_id"]),
                }
                break
    return out


# ---------------------------------------------------------------------------- columns
class Columns:
    """What is exported: the notebooks graded in DIR (and, per question, their questions)."""

    def __init__(self, docs: list[dict], per_question: bool, only: str | None = None):
        self.notebooks: list[str] = []
        self.maxima: dict[str, float] = {}
        self.questions: dict[str, dict[str, float]] = {}
        for d in docs:
            for nb, p in final_points(d).items():
                self.maxima[nb] = max(self.maxima.get(nb, 0.0), p["max_score"])
                qs = self.questions.setdefault(nb, {})
                for q, r in p["questions"].items():
                    qs[q] = max(qs.get(q, 0.0), r["max_points"])
        self.notebooks = sorted(self.maxima)
        if only is not None:
            if only not in self.maxima:
                raise RosterError(
                    f"--notebook {only}: not graded in this folder (graded: "
                    f"{', '.join(self.notebooks) or 'none'})"
                )
            self.notebooks = [only]
        self.per_question = per_question
        self.titles, order = _release_info(docs)
        for nb, qs in self.questions.items():  # the release's order (grade files sort keys)
            rank = {q: i for i, q in enumerate(order.get(nb, ()))}
            self.questions[nb] = dict(sorted(qs.items(), key=lambda kv: rank.get(kv[0], 1e9)))

    def label(self, qid: str) -> str:
        return self.titles.get(qid) or qid

    def question_column(self, nb: str, qid: str) -> str:
        return f"{Path(nb).stem}: {self.label(qid)}"

    def all(self) -> list[tuple[str, str | None, float]]:
        """(notebook, question or None, max points) per column, in order."""
        out = []
        for nb in self.notebooks:
            out.append((nb, None, self.maxima[nb]))
        if self.per_question:
            for nb in self.notebooks:
                out += [(nb, q, m) for q, m in self.questions[nb].items()]
        return out


def _release_info(docs: list[dict]) -> tuple[dict[str, str], dict[str, tuple]]:
    """(question titles, each notebook's questions in order) from the release the grade files
    name; empty when it is not readable (ids then, in the grade files' order)."""
    from .release import Release

    for d in docs:
        folder = (d.get("grader") or {}).get("release_dir")
        if folder:
            try:
                release = Release.load(folder)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            titles = {q: i.title for q, i in release.questions.items() if i.title}
            return titles, {nb: i.questions for nb, i in release.notebooks.items()}
    return {}, {}


def _value(points: dict, nb: str, qid: str | None) -> tuple[float, float] | None:
    """(points, max) of a notebook or question in ``final_points``, None if not submitted."""
    p = points.get(nb)
    if p is None:
        return None
    if qid is None:
        return p["score"], p["max_score"]
    r = p["questions"].get(qid)
    return None if r is None else (r["points"], r["max_points"])


# ---------------------------------------------------------------------------- new files
def export_rows(
    docs: list[dict], roster: dict[str, dict], fmt: str, *, per_question: bool = False
) -> tuple[list[list[str]], list[str]]:
    """(CSV rows with the header, unmatched students) for a new import file of ``fmt``.
    Students on the roster with no grade file get a row of zeros."""
    docs = [d for d in docs if d["student"] != UNASSIGNED]
    cols = Columns(docs, per_question)
    graded = {_key(d["student"]): d for d in docs}
    unmatched = sorted(d["student"] for d in docs if _key(d["student"]) not in roster)
    people = [(r, final_points(graded[k]) if k in graded else {}) for k, r in roster.items()]
    people.sort(key=lambda rp: _key(rp[0]["student"]).casefold())

    def cells(points) -> list[str]:
        out = []
        for nb, qid, _ in cols.all():
            v = _value(points, nb, qid)
            out.append(_points(v[0]) if v else "0")
        return out

    heads = [
        Path(nb).stem if qid is None else cols.question_column(nb, qid) for nb, qid, _ in cols.all()
    ]
    rows: list[list[str]] = []
    if fmt == "canvas":
        rows.append(CANVAS_HEAD + [csv_cell(h) for h in heads])
        rows.append(["Points Possible", "", "", "", ""] + [_points(m) for *_, m in cols.all()])
        for r, points in people:
            ident = [r.get("canvas_id", ""), r.get("sis_user_id", ""), r.get("sis_login_id", "")]
            name = r.get("name") or r["student"]
            rows.append([csv_cell(name), *ident, csv_cell(r.get("section", ""))] + cells(points))
    elif fmt == "moodle":
        idcols = [c for c in IDENTITIES["moodle"] if any(r.get(c) for r, _ in people)] or ["email"]
        rows.append([MOODLE_IDS[c] for c in idcols] + [csv_cell(h) for h in heads])
        for r, points in people:
            rows.append([csv_cell(r.get(c, "")) for c in idcols] + cells(points))
    else:
        rows.append(list(GRADESCOPE_HEAD))
        for r, points in people:
            total = sum(p["score"] for p in points.values())
            name = r.get("name") or r["student"]
            rows.append(
                [csv_cell(name), r.get("sid", ""), csv_cell(r.get("email", "")), _points(total)]
            )
    return rows, unmatched


# ---------------------------------------------------------------------------- the LMS's files
def _column_of(name: str, header: list[str], what: str, path) -> int:
    for i, h in enumerate(header):
        if h.strip().casefold() == name.casefold():
            return i
    raise RosterError(
        f"gradebook {path} has no {name!r} column, so it is not {what} (its header: "
        f"{', '.join(header[:8])}{', ...' if len(header) > 8 else ''})"
    )


def _match_assignment(
    wanted: list[str], assignments: dict[int, tuple[str, str]], explicit: str | None
) -> int | None:
    """The column of the one assignment named like one of ``wanted`` (or ``explicit``: a
    name, ``name (id)`` or an id), None when there is none; ``RosterError`` when several."""
    if explicit is not None:
        e = explicit.strip()
        hits = [
            i
            for i, (name, aid) in assignments.items()
            if e in (aid, f"{name} ({aid})") or _norm(e) == _norm(name)
        ]
    else:
        keys = {_norm(w) for w in wanted}
        hits = [i for i, (name, _) in assignments.items() if _norm(name) in keys]
    if len(hits) > 1:
        names = ", ".join(f"{assignments[i][0]} ({assignments[i][1]})" for i in hits)
        raise RosterError(
            f"several assignments match {explicit or wanted[0]}: {names} (choose one with "
            "--column NOTEBOOK='NAME (ID)')"
        )
    return hits[0] if hits else None


def fill_canvas(
    rows: list[list[str]],
    docs: list[dict],
    roster: dict[str, dict],
    *,
    per_question: bool = False,
    columns: dict[str, str] | None = None,
    path="gradebook",
) -> tuple[list[list[str]], list[str], list[str]]:
    """Canvas's gradebook export ``rows`` with the grades filled in: (rows, unmatched students,
    notes). ``columns``: {notebook: assignment} chosen by hand."""
    columns = columns or {}
    if not rows:
        raise RosterError(f"gradebook {path} is empty")
    header = list(rows[0])
    id_col = _column_of("ID", header, "a Canvas gradebook export", path)
    _column_of("Student", header, "a Canvas gradebook export", path)
    sis_col = next((i for i, h in enumerate(header) if h.strip() == "SIS User ID"), None)
    login_col = next((i for i, h in enumerate(header) if h.strip() == "SIS Login ID"), None)
    assignments = {}
    for i, h in enumerate(header):
        m = CANVAS_ASSIGNMENT.fullmatch(h.strip())
        if m:
            assignments[i] = (m["name"], m["id"])
    possible = next((r for r in rows[1:] if r and r[0].strip() == "Points Possible"), None)
    docs = [d for d in docs if d["student"] != UNASSIGNED]
    cols = Columns(docs, per_question)
    notes: list[str] = []
    targets: list[tuple[int, str, str | None, float]] = []  # column, notebook, question, max
    for nb, qid, maximum in cols.all():
        stem = Path(nb).stem
        if qid is None:
            wanted = [stem]
            i = _match_assignment(wanted, assignments, columns.get(nb) or columns.get(stem))
            if i is None:
                shown = ", ".join(f"{n} ({a})" for n, a in assignments.values()) or "none"
                raise RosterError(
                    f"gradebook {path} has no assignment named like {stem} (its assignments: "
                    f"{shown}); name it with --column {nb}='NAME (ID)'"
                )
        else:
            wanted = [cols.question_column(nb, qid), f"{stem}: {qid}"]
            i = _match_assignment(wanted, assignments, None)
            if i is None:  # a new assignment in Canvas, named without an id
                i = len(header)
                header.append(csv_cell(cols.question_column(nb, qid)))
                for r in rows[1:]:
                    r.extend([""] * (len(header) - len(r)))
                if possible is not None:
                    possible[i] = _points(maximum)
                notes.append(f"new assignment column (Canvas creates it): {header[i]}")
        lms_max = _number(possible[i]) if possible is not None and i < len(possible) else None
        if lms_max is not None and lms_max > 0 and abs(lms_max - maximum) > 1e-9:
            notes.append(
                f"{header[i]}: scaled from {_points(maximum)} to the assignment's "
                f"{_points(lms_max)} points"
            )
        targets.append((i, nb, qid, lms_max))
    by_key = {}
    for student, r in roster.items():
        for col, field in (
            (id_col, "canvas_id"),
            (sis_col, "sis_user_id"),
            (login_col, "sis_login_id"),
        ):
            if col is not None and r.get(field):
                by_key[(col, r[field])] = student
    graded = {_key(d["student"]): d for d in docs}
    seen = set()
    out = [header]
    for r in rows[1:]:
        r = list(r) + [""] * (len(header) - len(r))
        ident = r[id_col].strip() if id_col < len(r) else ""
        if not ident or r[0].strip() == "Points Possible":
            out.append(r)
            continue
        student = next(
            (
                by_key[(c, r[c].strip())]
                for c in (id_col, sis_col, login_col)
                if c is not None and (c, r[c].strip()) in by_key
            ),
            None,
        )
        points = final_points(graded[student]) if student in graded else {}
        if student in graded:
            seen.add(student)
        for i, nb, qid, lms_max in targets:
            if r[i].strip().upper() == EXCUSED:
                continue
            v = _value(points, nb, qid)
            r[i] = _points(_scaled(v[0], v[1], lms_max)) if v else "0"
        out.append(r)
    unmatched = sorted(d["student"] for k, d in graded.items() if k not in seen)
    return out, unmatched, notes


WORKSHEET_LOCKED = "No"


def fill_moodle_worksheet(
    rows: list[list[str]],
    docs: list[dict],
    roster: dict[str, dict],
    notebook: str | None,
    *,
    per_question: bool = False,
    path="gradebook",
) -> tuple[list[list[str]], list[str], list[str]]:
    """A Moodle grading worksheet ``rows`` with ``Grade`` filled for ``notebook`` (and, with
    ``per_question``, ``Feedback comments``): (rows, unmatched students, notes)."""
    if not rows:
        raise RosterError(f"gradebook {path} is empty")
    header = list(rows[0])
    what = "a Moodle grading worksheet"
    ident_col = _column_of("Identifier", header, what, path)
    grade_col = _column_of("Grade", header, what, path)
    low = [h.strip().casefold() for h in header]
    max_col = low.index("maximum grade") if "maximum grade" in low else None
    email_col = low.index("email address") if "email address" in low else None
    change_col = low.index("grade can be changed") if "grade can be changed" in low else None
    comments_col = low.index("feedback comments") if "feedback comments" in low else None
    if per_question and comments_col is None:
        raise RosterError(
            f"gradebook {path} has no 'Feedback comments' column for the questions' points "
            "(turn on Feedback comments in the assignment's feedback types)"
        )
    if max_col is not None:
        scale = next(
            (r[max_col] for r in rows[1:] if max_col < len(r) and r[max_col].strip()
             and _number(r[max_col]) is None),
            None,
        )  # fmt: skip
        if scale is not None:
            raise RosterError(
                f"gradebook {path}: the assignment is graded on a scale (Maximum Grade "
                f"{scale!r}), not in points: give it a point grade in Moodle to import scores"
            )
    docs = [d for d in docs if d["student"] != UNASSIGNED]
    graded_nbs = sorted({nb for d in docs for nb in final_points(d)})
    if notebook is None:
        if len(graded_nbs) != 1:
            raise RosterError(
                "a Moodle grading worksheet is one assignment: choose its notebook with "
                f"--notebook (graded here: {', '.join(graded_nbs) or 'none'})"
            )
        notebook = graded_nbs[0]
    cols = Columns(docs, per_question, only=notebook)
    by_participant = {
        r["moodle_participant"]: s for s, r in roster.items() if r.get("moodle_participant")
    }
    by_email = {r["email"].casefold(): s for s, r in roster.items() if r.get("email")}
    graded = {_key(d["student"]): d for d in docs}
    seen, notes, out = set(), [], [header]
    for r in rows[1:]:
        r = list(r) + [""] * (len(header) - len(r))
        m = re.search(r"(\d+)\s*$", r[ident_col])
        if not m:
            out.append(r)
            continue
        student = by_participant.get(m[1])
        if student is None and email_col is not None:
            student = by_email.get(r[email_col].strip().casefold())
        if change_col is not None and r[change_col].strip() == WORKSHEET_LOCKED:
            notes.append(f"{r[ident_col]}: the grade cannot be changed in Moodle: left as it is")
            if student in graded:
                seen.add(student)
            out.append(r)
            continue
        points = final_points(graded[student]) if student in graded else {}
        if student in graded:
            seen.add(student)
        lms_max = _number(r[max_col]) if max_col is not None else None
        v = _value(points, notebook, None)
        score, maximum = v if v else (0.0, cols.maxima[notebook])
        r[grade_col] = f"{_scaled(score, maximum, lms_max):.2f}"
        if per_question:
            parts = []
            for _, qid, qmax in cols.all()[1:]:
                q = _value(points, notebook, qid)
                parts.append(f"{cols.label(qid)}: {_points(q[0] if q else 0.0)}/{_points(qmax)}")
            r[comments_col] = csv_cell(
                f"{Path(notebook).stem}: {_points(score)}/{_points(maximum)} points. "
                + "; ".join(parts)
            )
        out.append(r)
    if max_col is not None:
        maxima = {_number(r[max_col]) for r in out[1:] if len(r) > max_col} - {None}
        for lms_max in maxima:
            if lms_max > 0 and abs(lms_max - cols.maxima[notebook]) > 1e-9:
                notes.append(
                    f"Grade: scaled from {_points(cols.maxima[notebook])} to the assignment's "
                    f"maximum grade {_points(lms_max)}"
                )
    unmatched = sorted(d["student"] for k, d in graded.items() if k not in seen)
    return out, unmatched, notes


def moodle_feedback_zip(out_dir, docs: list[dict], roster: dict[str, dict]) -> tuple[bytes, list]:
    """(the zip for Moodle's "Upload multiple feedback files in a zip", students left out):
    each student's feedback page as ``{name}_{participant id}_assignsubmission_file/
    feedback.html``, the folder Moodle's own download gave their submission."""
    from .pages import FEEDBACK_DIR, feedback_file

    buf = io.BytesIO()
    missing = []
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for d in sorted(docs, key=lambda d: d["student"]):
            if d["student"] == UNASSIGNED:
                continue
            r = roster.get(_key(d["student"]))
            page = Path(out_dir) / FEEDBACK_DIR / feedback_file(d["file"])
            if not r or not r.get("moodle_participant") or not page.is_file():
                missing.append(d["student"])
                continue
            name = re.sub(r"[_/\\\x00-\x1f]+", " ", r.get("name") or d["student"]).strip()
            folder = f"{name or 'student'}_{r['moodle_participant']}_assignsubmission_file"
            z.writestr(f"{folder}/{FEEDBACK_PAGE}", page.read_bytes())
    return buf.getvalue(), missing


# ---------------------------------------------------------------------------- the command
def _not_a_student(row: list[str], header: list[str]) -> bool:
    """A row of an LMS's file that is not a student's (Points Possible, Manual Posting)."""
    key = "ID" if "ID" in header else "Identifier"
    i = header.index(key) if key in header else 0
    return i >= len(row) or not row[i].strip() or row[0].strip() == "Points Possible"


def _csv_bytes(rows: list[list[str]], bom: bool = False) -> bytes:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    return (("\ufeff" if bom else "") + buf.getvalue()).encode("utf-8")


def export(
    out_dir,
    fmt: str,
    roster_path,
    dest,
    *,
    allow_unmatched: bool = False,
    gradebook=None,
    per_question: bool = False,
    notebook: str | None = None,
    columns: dict[str, str] | None = None,
    feedback_zip=None,
) -> dict:
    """Write ``dest`` (and ``feedback_zip``); returns {"rows", "unmatched", "notes",
    "feedback"}. ``RosterError`` for a bad roster, gradebook or format, ``Unmatched`` when
    graded students are missing from the roster or the LMS's file (nothing written)."""
    from .assign import write_atomic
    from .term import load_final

    if fmt not in FORMATS:
        raise RosterError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    if feedback_zip is not None and fmt != "moodle":
        raise RosterError("--feedback-zip is Moodle's bulk feedback upload: use it with moodle")
    if gradebook is not None and fmt == "gradescope":
        raise RosterError("--gradebook fills a Canvas export or a Moodle grading worksheet")
    # the term applied (overrides, written scores, late penalties: ``term.final``)
    docs = [d for d in load_final(out_dir) if d["student"] != UNASSIGNED]
    worksheet = gradebook is not None and fmt == "moodle"
    ids = WORKSHEET_IDENTITIES if worksheet or feedback_zip is not None else None
    if roster_path is not None:
        roster = read_roster(roster_path, fmt, ids)
    else:
        roster = collected_identities(docs)
        if not roster:
            raise RosterError(
                "no --roster, and no .tensorlab-submission.json beside the graded notebooks "
                "(written by `tensorlab collect`): give --roster ROSTER.csv"
            )
    notes: list[str] = []
    bom = False
    if gradebook is not None:
        raw = Path(gradebook).read_bytes() if Path(gradebook).is_file() else b""
        bom = raw.startswith(b"\xef\xbb\xbf")
        rows_in = read_csv(gradebook, "gradebook")
        if worksheet:
            rows, unmatched, notes = fill_moodle_worksheet(
                rows_in, docs, roster, notebook, per_question=per_question, path=gradebook
            )
        else:
            rows, unmatched, notes = fill_canvas(
                rows_in, docs, roster, per_question=per_question, columns=columns, path=gradebook
            )
        n = len(rows) - 1 - sum(1 for r in rows_in[1:] if _not_a_student(r, rows_in[0]))
    else:
        rows, unmatched = export_rows(docs, roster, fmt, per_question=per_question)
        n = len(rows) - (2 if fmt == "canvas" else 1)
    if unmatched and not allow_unmatched:
        raise Unmatched(unmatched)
    package = None
    if feedback_zip is not None:
        package, left_out = moodle_feedback_zip(out_dir, docs, roster)
        if left_out and not allow_unmatched:
            raise Unmatched(left_out)
        notes += [f"no feedback page or participant id, not in the zip: {s}" for s in left_out]
    write_atomic(Path(dest), _csv_bytes(rows, bom))
    if package is not None:
        write_atomic(Path(feedback_zip), package)
    return {"rows": n, "unmatched": unmatched, "notes": notes, "feedback": package is not None}
