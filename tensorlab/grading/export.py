"""``tensorlab export DIR --format canvas|moodle|gradescope --roster ROSTER.csv --out FILE``.

The grades in ``DIR`` as the CSV a learning management system imports. The roster maps each
student folder name (column ``student``) to the LMS's identities:

- ``canvas``: the Gradebook import (Grades > Import). Columns ``Student, ID, SIS User ID,
  SIS Login ID, Section``, then one column per notebook; the second row is ``Points
  Possible``. Canvas matches a row by ``ID`` (its user id), else ``SIS User ID``, else
  ``SIS Login ID``: the roster needs one of ``canvas_id``, ``sis_user_id``, ``sis_login_id``
  (and may give ``name`` and ``section``).
- ``moodle``: the CSV grade import (Grades > Import > CSV file). Columns ``Email address``
  and/or ``ID number`` (choose the one to map from when importing), then one column per
  notebook. The roster needs ``email`` or ``id_number``.
- ``gradescope``: the score upload of an (offline) assignment: ``Name, SID, Email, Score``
  (the total; Gradescope matches by email, else SID). The roster needs ``email`` or ``sid``.

A student graded in ``DIR`` but absent from the roster is *unmatched*: they are listed, and the
export fails (exit 1) unless ``allow_unmatched``. A missing, unreadable or malformed roster
(no ``student`` column, no identity column for the format, a student twice, an empty
identity) raises ``RosterError`` before anything is written. Files are written atomically.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path

from .records import UNASSIGNED
from .text import csv_cell

FORMATS = ("canvas", "moodle", "gradescope")
IDENTITIES = {
    "canvas": ("canvas_id", "sis_user_id", "sis_login_id"),
    "moodle": ("email", "id_number"),
    "gradescope": ("email", "sid"),
}
CANVAS_HEAD = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_IDS = {"email": "Email address", "id_number": "ID number"}
GRADESCOPE_HEAD = ["Name", "SID", "Email", "Score"]


class RosterError(ValueError):
    """The roster cannot be used (one line, for the command's error message)."""


class Unmatched(Exception):
    def __init__(self, students: list[str]):
        super().__init__(", ".join(students))
        self.students = students


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip())


def read_roster(path, fmt: str) -> dict[str, dict]:
    """``{student folder name: row}`` of a roster CSV (header names case-insensitive)."""
    if fmt not in FORMATS:
        raise RosterError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise RosterError(f"roster {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise RosterError(f"roster {path} cannot be read as UTF-8 text: {e}") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as e:
        raise RosterError(f"roster {path} is not valid CSV: {e}") from None
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise RosterError(f"roster {path} is empty (expected a header row with 'student')")
    header = [h.strip().lower().replace(" ", "_") for h in rows[0]]
    if "student" not in header:
        raise RosterError(
            f"roster {path} has no 'student' column (its header: {', '.join(rows[0])})"
        )
    if len(set(header)) != len(header):
        raise RosterError(f"roster {path} repeats a column in its header")
    ids = [c for c in IDENTITIES[fmt] if c in header]
    if not ids:
        raise RosterError(
            f"roster {path} has no column identifying students in {fmt} (one of "
            f"{', '.join(IDENTITIES[fmt])})"
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
        if not any(rec.get(c) for c in ids):
            raise RosterError(f"roster {path}, line {n}: {student!r} has no {' or '.join(ids)}")
        out[student] = rec
    return out


def _points(x: float) -> str:
    return f"{x:.4f}".rstrip("0").rstrip(".")


def export_rows(
    docs: list[dict], roster: dict[str, dict], fmt: str
) -> tuple[list[list[str]], list[str]]:
    """(CSV rows with the header, unmatched students) for ``fmt``."""
    docs = [d for d in docs if d["student"] != UNASSIGNED]
    notebooks = sorted({s["notebook"] for d in docs for s in d["submissions"] if s.get("notebook")})
    maxima = {}
    for d in docs:
        for s in d["submissions"]:
            if s.get("notebook"):
                maxima[s["notebook"]] = float(s.get("max_score", 0))
    columns = [Path(nb).stem for nb in notebooks]
    unmatched = sorted(d["student"] for d in docs if _key(d["student"]) not in roster)
    matched = [(roster[_key(d["student"])], d) for d in docs if _key(d["student"]) in roster]
    rows: list[list[str]] = []

    def scores(d) -> list[str]:
        by_nb = {s["notebook"]: s for s in d["submissions"] if s.get("notebook")}
        return [_points(float(by_nb[nb]["score"])) if nb in by_nb else "" for nb in notebooks]

    if fmt == "canvas":
        rows.append(
            CANVAS_HEAD
            + [f"{c} ({_points(maxima[nb])} points)" for c, nb in zip(columns, notebooks)]
        )
        rows.append(["Points Possible", "", "", "", ""] + [_points(maxima[nb]) for nb in notebooks])
        for r, d in matched:
            ident = [r.get("canvas_id", ""), r.get("sis_user_id", ""), r.get("sis_login_id", "")]
            rows.append([r.get("name") or d["student"], *ident, r.get("section", "")] + scores(d))
    elif fmt == "moodle":
        idcols = [c for c in IDENTITIES["moodle"] if any(c in r for r, _ in matched)] or ["email"]
        rows.append([MOODLE_IDS[c] for c in idcols] + columns)
        for r, d in matched:
            rows.append([r.get(c, "") for c in idcols] + scores(d))
    else:
        rows.append(list(GRADESCOPE_HEAD))
        for r, d in matched:
            rows.append(
                [
                    r.get("name") or d["student"],
                    r.get("sid", ""),
                    r.get("email", ""),
                    _points(float(d["score"])),
                ]
            )
    return rows, unmatched


def export(out_dir, fmt: str, roster_path, dest, *, allow_unmatched: bool = False) -> dict:
    """Write ``dest``; returns {"rows": n, "unmatched": [...]}. ``RosterError`` for a bad
    roster or format, ``Unmatched`` when students are missing from it (nothing written)."""
    from .assign import write_atomic
    from .pages import load_class

    roster = read_roster(roster_path, fmt)
    docs = load_class(out_dir)
    rows, unmatched = export_rows(docs, roster, fmt)
    if unmatched and not allow_unmatched:
        raise Unmatched(unmatched)
    buf = io.StringIO()
    # every cell through the one sanitiser: no formula, no invisible character (text.csv_cell)
    csv.writer(buf, lineterminator="\r\n").writerows([[csv_cell(str(c)) for c in r] for r in rows])
    write_atomic(Path(dest), buf.getvalue().encode("utf-8"))
    n = len(rows) - (2 if fmt == "canvas" else 1)
    return {"rows": n, "unmatched": unmatched}
