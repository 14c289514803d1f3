"""The instructor's term inside the grade folder: overrides, written-answer scores, due dates,
extensions and the late policy, kept in ``DIR`` beside the grade files, never touched by a
regrade, and applied by one function (``final``) wherever a grade is read: the gradebook and
feedback pages ``grade`` writes, ``report``, ``export`` (``load_final``).

The grade files (``DIR/<student>.json``) hold what the grader found; the files below hold
what people decided, each line with who, why and when. All are plain CSV / JSON an instructor
may edit by hand (``tensorlab override``, ``tensorlab late`` and ``tensorlab written --merge``
write them):

- ``DIR/overrides.csv``: ``student,question,points,why,by,when``. ``points`` is a number (the
  question's points from now on; above the maximum is extra credit), ``+N`` / ``-N`` (added to
  what the grader gave) or ``excused`` (the question counts neither in the score nor in the
  maximum). The last line for a student and question counts; earlier ones are its history.
- ``DIR/written.csv``: the written-answer scores merged from graders' sheets
  (``student,question,points,comment,grader,when``; see ``written``).
- ``DIR/late.json``: ``{"due": {notebook: ISO time}, "policy": {"per_day": fraction,
  "cap": fraction} | {"zero": true}, "grace_minutes": n}``.
- ``DIR/extensions.csv``: ``student,notebook,due,why,by,when`` (``due``: an ISO time, or
  ``+Nd`` / ``+Nh`` after the class's due time; ``notebook`` ``*``: every notebook).

A submission's time is what the LMS recorded (``submitted_at`` in the student folder's
``.tensorlab-submission.json``, written by ``tensorlab collect``), else the file's
modification time; the grade file records which (``submitted_from``: ``lms`` | ``mtime``).
A late notebook loses ``per_day`` of its maximum for each started day after its due time
(after the grace minutes), at most ``cap`` of it (``zero``: a late notebook scores 0), never
below 0; the page states the times, the days and the points.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

OVERRIDES_FILE = "overrides.csv"
WRITTEN_FILE = "written.csv"
LATE_FILE = "late.json"
EXTENSIONS_FILE = "extensions.csv"
OVERRIDE_COLUMNS = ("student", "question", "points", "why", "by", "when")
WRITTEN_COLUMNS = ("student", "question", "points", "comment", "grader", "when")
# written by `tensorlab written --merge` (not required in a hand-made file): the scored answer's
# digest, so a resubmitted, changed answer is graded again, never given the old score
ANSWER_DIGEST = "answer_sha256"
EXTENSION_COLUMNS = ("student", "notebook", "due", "why", "by", "when")
SUBMISSION_FILE = ".tensorlab-submission.json"  # written by `tensorlab collect` (part B)
EXCUSED = "excused"


class TermError(ValueError):
    """A term file (or a command's argument) cannot be used: one line, naming file and line."""


def _key(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip())


# ---------------------------------------------------------------------------- times
def parse_time(text: str, where: str = "") -> datetime:
    """An ISO 8601 time as an aware UTC datetime (``Z`` accepted; a time without a zone is
    refused: a due date must say which zone it is in)."""
    s = str(text).strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        t = datetime.fromisoformat(s)
    except ValueError:
        raise TermError(
            f"{where}{text!r} is not an ISO 8601 time (e.g. 2026-11-20T23:59:00Z)"
        ) from None
    if t.tzinfo is None:
        raise TermError(f"{where}{text!r} has no time zone (add Z for UTC, or +01:00)")
    return t.astimezone(timezone.utc)


def iso(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def now() -> str:
    return iso(datetime.now(timezone.utc))


_OFFSET = re.compile(r"\+\s*(\d+(?:\.\d+)?)\s*([dh])")


def _shift(text: str) -> timedelta | None:
    m = _OFFSET.fullmatch(text.strip())
    if not m:
        return None
    n = float(m[1])
    return timedelta(days=n) if m[2] == "d" else timedelta(hours=n)


# ---------------------------------------------------------------------------- the files
@dataclass(frozen=True)
class Override:
    student: str
    question: str
    points: str  # "3", "+1", "-0.5" or "excused"
    why: str
    by: str
    when: str

    def apply(self, graded: float) -> float | None:
        """The question's points after this override (None: excused)."""
        p = self.points.strip()
        if p.lower() == EXCUSED:
            return None
        value = float(p)
        return max(0.0, graded + value) if p[0] in "+-" else value


@dataclass(frozen=True)
class Extension:
    student: str
    notebook: str  # a released notebook's file name, or "*"
    due: str  # ISO time or "+Nd" / "+Nh"
    why: str
    by: str
    when: str

    def due_for(self, class_due: datetime | None) -> datetime | None:
        shift = _shift(self.due)
        if shift is not None:
            return None if class_due is None else class_due + shift
        return parse_time(self.due)


@dataclass(frozen=True)
class LatePolicy:
    """``per_day``: fraction of a notebook's maximum lost per started late day; ``cap``: the
    most it can lose (fraction); ``zero``: a late notebook scores 0; ``grace_minutes``."""

    per_day: float = 0.0
    cap: float = 1.0
    zero: bool = False
    grace_minutes: float = 0.0

    def penalty(self, late: timedelta, max_score: float) -> tuple[int, float]:
        """(started days late, points lost) for a notebook ``late`` after its due time."""
        late -= timedelta(minutes=self.grace_minutes)
        if late <= timedelta(0):
            return 0, 0.0
        days = math.ceil(late / timedelta(days=1))
        if self.zero:
            return days, float(max_score)
        fraction = min(self.cap, days * self.per_day)
        return days, round(fraction * float(max_score), 4)

    def describe(self) -> str:
        if self.zero:
            return "a late notebook scores 0"
        text = f"{100 * self.per_day:g}% of the notebook's points per started day late"
        if self.cap < 1:
            text += f", at most {100 * self.cap:g}%"
        return text


@dataclass
class Term:
    """What people decided about the grades in ``DIR`` (see the module docstring)."""

    overrides: list[Override] = field(default_factory=list)
    written: dict[tuple[str, str], dict] = field(default_factory=dict)
    due: dict[str, datetime] = field(default_factory=dict)
    policy: LatePolicy | None = None
    extensions: list[Extension] = field(default_factory=list)

    def override_for(self, student: str, qid: str) -> Override | None:
        found = None
        for o in self.overrides:
            if _key(o.student) == _key(student) and o.question == qid:
                found = o
        return found

    def due_for(self, student: str, notebook: str) -> tuple[datetime | None, Extension | None]:
        base = self.due.get(notebook)
        chosen = None
        for e in self.extensions:
            if _key(e.student) == _key(student) and e.notebook in (notebook, "*"):
                chosen = e
        if chosen is None:
            return base, None
        return chosen.due_for(base), chosen


def _read_csv(path: Path, columns: tuple[str, ...]) -> list[tuple[int, dict]]:
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as e:
        raise TermError(f"{path} cannot be read as UTF-8 text: {e}") from None
    rows = list(csv.reader(io.StringIO(text)))
    rows = [r for r in rows if any(c.strip() for c in r)]
    if not rows:
        return []
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in columns if c not in header]
    if missing:
        raise TermError(f"{path}: no column {', '.join(missing)} (expected {','.join(columns)})")
    out = []
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise TermError(f"{path}, line {n}: {len(row)} fields, the header has {len(header)}")
        out.append((n, {h: v.strip() for h, v in zip(header, row)}))
    return out


def _append_csv(path: Path, columns: tuple[str, ...], row: dict) -> None:
    from .assign import write_atomic

    old = path.read_bytes().decode("utf-8-sig") if path.exists() else ""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    if not old.strip():
        writer.writerow(columns)
    elif not old.endswith("\n"):
        buf.write("\n")
    writer.writerow([row.get(c, "") for c in columns])
    write_atomic(path, (old + buf.getvalue()).encode("utf-8"))


def _check_points(text: str, where: str) -> None:
    p = text.strip()
    if p.lower() == EXCUSED:
        return
    try:
        value = float(p)
    except ValueError:
        raise TermError(f"{where}points {text!r} is not a number, +N / -N, or 'excused'") from None
    if not math.isfinite(value) or (p[:1] not in "+-" and value < 0):
        raise TermError(f"{where}points {text!r} must be a finite number >= 0 (or +N / -N)")


def load_term(out_dir) -> Term:
    """The term files of ``out_dir`` (absent files: nothing decided). ``TermError`` names the
    file and line of anything malformed."""
    out = Path(out_dir)
    term = Term()
    for n, r in _read_csv(out / OVERRIDES_FILE, OVERRIDE_COLUMNS):
        where = f"{out / OVERRIDES_FILE}, line {n}: "
        if not r["student"] or not r["question"]:
            raise TermError(f"{where}the student and the question are required")
        _check_points(r["points"], where)
        if not r["why"] or not r["by"]:
            raise TermError(f"{where}say why and by whom (columns why, by)")
        term.overrides.append(Override(*(r[c] for c in OVERRIDE_COLUMNS)))
    for n, r in _read_csv(out / WRITTEN_FILE, WRITTEN_COLUMNS):
        where = f"{out / WRITTEN_FILE}, line {n}: "
        try:
            points = float(r["points"])
        except ValueError:
            raise TermError(f"{where}points {r['points']!r} is not a number") from None
        if not math.isfinite(points) or points < 0:
            raise TermError(f"{where}points {r['points']!r} must be >= 0")
        term.written[(_key(r["student"]), r["question"])] = {**r, "points": points}
    late = out / LATE_FILE
    if late.exists():
        try:
            doc = json.loads(late.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise TermError(f"{late} is not valid JSON: {e}") from None
        if not isinstance(doc, dict):
            raise TermError(f"{late}: expected an object with 'due' and 'policy'")
        for nb, t in (doc.get("due") or {}).items():
            term.due[nb] = parse_time(t, f"{late}, due of {nb}: ")
        p = doc.get("policy") or {}
        try:
            term.policy = LatePolicy(
                per_day=float(p.get("per_day", 0)),
                cap=float(p.get("cap", 1)),
                zero=bool(p.get("zero", False)),
                grace_minutes=float(doc.get("grace_minutes", 0)),
            )
        except (TypeError, ValueError, AttributeError):
            raise TermError(f"{late}: policy needs numbers per_day, cap (or zero: true)") from None
        _check_policy(term.policy, f"{late}: ")
    for n, r in _read_csv(out / EXTENSIONS_FILE, EXTENSION_COLUMNS):
        where = f"{out / EXTENSIONS_FILE}, line {n}: "
        if not r["student"] or not r["notebook"] or not r["due"]:
            raise TermError(f"{where}student, notebook and due are required")
        if _shift(r["due"]) is None:
            parse_time(r["due"], where)
        term.extensions.append(Extension(*(r[c] for c in EXTENSION_COLUMNS)))
    return term


def _check_policy(p: LatePolicy, where: str) -> None:
    if not (0 <= p.per_day <= 1 and 0 <= p.cap <= 1 and p.grace_minutes >= 0):
        raise TermError(f"{where}per_day and cap are fractions in [0, 1], grace_minutes >= 0")


# ---------------------------------------------------------------------------- applying it
def final(doc: dict, term: Term) -> dict:
    """A student's grade file with the term applied (a new dict; ``doc`` is left as it is):
    written scores, overrides, late penalties; each question and notebook says what changed
    (``written``, ``override``, ``excused``, ``late``), and the totals are recomputed."""
    doc = copy.deepcopy(doc)
    student = doc.get("student", "")
    for sub in doc.get("submissions", []):
        if not sub.get("notebook"):
            continue
        questions = sub.get("questions") or {}
        for qid, rec in questions.items():
            w = term.written.get((_key(student), qid))
            if w is not None and not scored_answer(w, rec):
                rec["written_stale"] = {k: w.get(k, "") for k in ("points", "grader", "when")}
                rec["message"] = (
                    f"your answer changed after {w.get('grader') or 'a grader'} scored it "
                    f"({w['points']:g} points): it will be scored again"
                )
            elif w is not None and rec.get("status") in ("needs_grading", "scored"):
                rec["status"] = "scored"
                rec["message"] = ""
                rec["points"] = min(float(w["points"]), float(rec.get("max_points", 0)))
                rec["written"] = {k: w[k] for k in ("comment", "grader", "when") if w.get(k)}
                rec["written"]["points"] = rec["points"]
            o = term.override_for(student, qid)
            if o is None:
                continue
            new = o.apply(float(rec.get("points", 0)))
            rec["override"] = {
                "points": o.points,
                "graded_points": float(rec.get("points", 0)),
                "why": o.why,
                "by": o.by,
                "when": o.when,
            }
            if new is None:
                rec["excused"] = True
                rec["excused_max_points"] = float(rec.get("max_points", 0))
                rec["points"] = 0.0
                rec["max_points"] = 0.0
            else:
                rec["points"] = float(new)
        if questions:
            sub["score"] = float(sum(float(r.get("points", 0)) for r in questions.values()))
            sub["max_score"] = float(sum(float(r.get("max_points", 0)) for r in questions.values()))
        _late(sub, student, term)
    graded = [s for s in doc.get("submissions", []) if s.get("notebook")]
    doc["score"] = float(sum(float(s.get("score", 0)) for s in graded))
    doc["max_score"] = float(sum(float(s.get("max_score", 0)) for s in graded))
    return doc


def answer_digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(str(text).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def scored_answer(w: dict, rec: dict) -> bool:
    """Whether the written score ``w`` was given to the answer ``rec`` holds now (a score
    without a digest, as typed by hand, is for whatever the answer is)."""
    digest = w.get(ANSWER_DIGEST)
    return not digest or answer_digest(rec.get("answer", "")) == digest


def _late(sub: dict, student: str, term: Term) -> None:
    nb = sub["notebook"]
    due, ext = term.due_for(student, nb)
    if due is None or sub.get("status") == "missing" or not sub.get("submitted_at"):
        return
    try:
        submitted = parse_time(sub["submitted_at"])
    except TermError:
        return
    policy = term.policy or LatePolicy()
    days, lost = policy.penalty(submitted - due, float(sub.get("max_score", 0)))
    info = {
        "due": iso(due),
        "submitted_at": iso(submitted),
        "submitted_from": sub.get("submitted_from", "mtime"),
        "days_late": days,
        "policy": policy.describe(),
        "penalty": 0.0,
    }
    if ext is not None:
        info["extension"] = {"due": ext.due, "why": ext.why, "by": ext.by, "when": ext.when}
    if days:
        before = float(sub.get("score", 0))
        after = max(0.0, round(before - lost, 4))
        info["penalty"] = round(before - after, 4)
        sub["score"] = after
    sub["late"] = info


def load_final(out_dir) -> list[dict]:
    """Every student's grade file in ``out_dir`` with the term applied: what the gradebook,
    feedback pages, ``report`` and ``export`` read (``ValueError`` if there is none)."""
    from .pages import load_class

    term = load_term(out_dir)
    return [final(doc, term) for doc in load_class(out_dir)]


# ---------------------------------------------------------------------------- commands
def add_override(
    out_dir,
    student: str,
    question: str,
    points: str,
    why: str,
    by: str,
    when: str | None = None,
) -> Override:
    """Append an override to ``DIR/overrides.csv`` after checking that ``student`` has a grade
    file there with ``question`` in it (``TermError`` otherwise), then refresh what is derived
    from the grades (``refresh``)."""
    from .pages import load_class

    out = Path(out_dir)
    if not why.strip() or not by.strip():
        raise TermError("an override needs --why and --by (kept with it, shown to the student)")
    _check_points(points, "")
    docs = {_key(d["student"]): d for d in load_class(out)}
    doc = docs.get(_key(student))
    if doc is None:
        raise TermError(
            f"no grade file for student {student!r} in {out} (students: "
            f"{', '.join(sorted(docs)[:20])})"
        )
    qids = [q for s in doc["submissions"] for q in (s.get("questions") or {})]
    if question not in qids:
        raise TermError(
            f"{student!r} has no question {question!r} (their questions: {', '.join(qids)})"
        )
    load_term(out)  # a malformed file is reported before anything is added to it
    o = Override(doc["student"], question, points.strip(), why.strip(), by.strip(), when or now())
    _append_csv(out / OVERRIDES_FILE, OVERRIDE_COLUMNS, o.__dict__)
    refresh(out)
    return o


def set_late(
    out_dir,
    due: dict[str, str] | None = None,
    per_day: float | None = None,
    cap: float | None = None,
    zero: bool | None = None,
    grace_minutes: float | None = None,
) -> dict:
    """Update ``DIR/late.json`` (due times by notebook, the policy), then ``refresh``."""
    from .assign import write_atomic

    out = Path(out_dir)
    path = out / LATE_FILE
    doc = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    doc.setdefault("due", {})
    doc.setdefault("policy", {})
    for nb, t in (due or {}).items():
        doc["due"][nb] = iso(parse_time(t, f"due of {nb}: "))
    if per_day is not None:
        doc["policy"]["per_day"] = per_day
    if cap is not None:
        doc["policy"]["cap"] = cap
    if zero is not None:
        doc["policy"]["zero"] = zero
    if grace_minutes is not None:
        doc["grace_minutes"] = grace_minutes
    policy = LatePolicy(
        float(doc["policy"].get("per_day", 0)),
        float(doc["policy"].get("cap", 1)),
        bool(doc["policy"].get("zero", False)),
        float(doc.get("grace_minutes", 0)),
    )
    _check_policy(policy, "")
    write_atomic(path, (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    refresh(out)
    return doc


def add_extension(
    out_dir, student: str, notebook: str, due: str, why: str, by: str, when: str | None = None
) -> Extension:
    """Append an extension to ``DIR/extensions.csv`` (``due``: ISO time, or ``+2d``/``+36h``
    after the class's due time), then ``refresh``."""
    if _shift(due) is None:
        parse_time(due, "--due: ")
    if not why.strip() or not by.strip():
        raise TermError("an extension needs --why and --by")
    e = Extension(student, notebook, due.strip(), why.strip(), by.strip(), when or now())
    _append_csv(Path(out_dir) / EXTENSIONS_FILE, EXTENSION_COLUMNS, e.__dict__)
    refresh(out_dir)
    return e


def refresh(out_dir) -> None:
    """Rewrite what is derived from the grade files and the term: ``gradebook.csv``, the
    feedback pages and, when there is one, ``report.html`` (the grade files are not touched)."""
    from .assign import write_atomic
    from .pages import FEEDBACK_DIR, REPORT_FILE, feedback_file, student_page, write_report
    from .records import UNASSIGNED

    out = Path(out_dir)
    docs = load_final(out)
    info = load_questions(out)
    write_atomic(out / "gradebook.csv", gradebook_csv(docs, list(info) or None))
    (out / FEEDBACK_DIR).mkdir(exist_ok=True)
    hidden = {q for q, i in info.items() if i.get("withheld")}
    for doc in docs:
        if doc["student"] == UNASSIGNED:
            continue
        write_atomic(
            out / FEEDBACK_DIR / feedback_file(doc["file"]), student_page(doc, hidden, info)
        )
    if (out / REPORT_FILE).exists():
        write_report(out)


# the release's questions as graded (titles, points, kinds), in a folder: no student's grade
# file is named like it (``collect.student_file``), no ``DIR/*.json`` reader sees it
QUESTIONS_FILE = "release/questions.json"


def load_questions(out_dir) -> dict[str, dict]:
    """``DIR/release/questions.json`` (written by ``grade``): {qid: the release's entry}, in the
    release's order; empty when absent (a folder graded by an older tensorlab)."""
    try:
        doc = json.loads((Path(out_dir) / QUESTIONS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc.get("questions", {}) if isinstance(doc, dict) else {}


def questions_json(release, notebooks) -> bytes:
    qs = {q: release.questions[q].to_json() for q in release.qids(notebooks)}
    return (json.dumps({"questions": qs}, indent=1) + "\n").encode("utf-8")


def gradebook_csv(docs: list[dict], qids: list[str] | None = None) -> bytes:
    """``gradebook.csv`` of final grade files (columns: ``records.GRADEBOOK_COLUMNS``, then one
    a question)."""
    from .records import GRADEBOOK_COLUMNS, gradebook_row

    if qids is None:
        qids = []
        for d in docs:
            for s in d["submissions"]:
                if s.get("notebook"):
                    qids += [q for q in s.get("questions") or {} if q not in qids]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*GRADEBOOK_COLUMNS, *qids])
    for doc in sorted(docs, key=lambda d: d["student"]):
        writer.writerow(gradebook_row(doc, qids))
    return buf.getvalue().encode("utf-8")


def submission_time(path, folder) -> tuple[str | None, str | None]:
    """(``submitted_at``, ``submitted_from``) of a submitted file: the time the LMS recorded
    (``submitted_at`` in ``folder/.tensorlab-submission.json``, written by ``tensorlab
    collect``: ``lms``), else the file's modification time (``mtime``); (None, None) if
    neither can be read. The LMS file is read only when it is a small regular file."""
    import os
    import stat

    meta = Path(folder) / SUBMISSION_FILE
    try:
        st = os.lstat(meta)
        if stat.S_ISREG(st.st_mode) and st.st_size < 65536:
            doc = json.loads(meta.read_text(encoding="utf-8"))
            if isinstance(doc, dict) and isinstance(doc.get("submitted_at"), str):
                return iso(parse_time(doc["submitted_at"])), "lms"
    except (OSError, ValueError, TermError, RecursionError):
        pass
    try:
        mtime = os.lstat(path).st_mtime
    except OSError:
        return None, None
    return iso(datetime.fromtimestamp(mtime, timezone.utc)), "mtime"
