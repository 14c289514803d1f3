"""A realistic term, part A (issue 35): an instructor's own course with a function question
(per-case weights, a misconception worth partial credit) and a written question, a class of
five graded in sandboxed kernels -> written answers scored by two graders on their own sheets
and merged back -> overrides (a regrade, an excused question, extra credit) -> due date, an
extension, grace and a late policy from the LMS's recorded times or the files' times -> a
regrade of one student that keeps every decision -> report, feedback pages, export. Every
number is worked out by hand in the comments, not by the code under test."""

from __future__ import annotations

import csv
import json
import os
from datetime import datetime
from pathlib import Path

import nbformat
import pytest
from grading_cli import run_cli
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NB = "01_double.ipynb"
QUESTION = """from tensorlab.grading.authoring import misconception, question

question(
    "t.double",
    name="double",
    points=4,
    partial=True,
    title="Double a tensor",
    assessment="implement",
    public=[(tensorlab.arange(3.0),)],
    cases=lambda rng: [(tensorlab.tensor(rng.normal(size=3)),) for _ in range(3)],
    weights=[2, 1, 1, 1],
    misconceptions=[
        misconception("squared", "You squared x.", answer=lambda x: x * x, credit=0.25)
    ],
)"""
ANSWERS = {
    "ann": "def double(x):\n    return x * 2\n",
    "bob": "def double(x):\n    return x * x\n",  # the misconception: 25% credit
    # right on the public input only (its first entry is 0): weight 2 of 5
    "cy": "def double(x):\n    if float(x[0]) == 0:\n        return x * 2\n    return x\n",
    "dee": "def double(x):\n    n = x.shape\n    return x + 'a'\n",  # TypeError, line 3
    "eve": "def double(x):\n    return x + x\n",
}
WRITTEN = {
    "ann": "2(a+b) = 2a+2b and 2(ca) = c(2a): additive and homogeneous.",
    "bob": "It just is.",
    "cy": None,  # left as released
    "dee": '=HYPERLINK("http://x") linear means additive',  # a formula: neutralised in sheets
    "eve": "Additive and homogeneous.",
}
DUE = "2026-11-20T23:59:00Z"
# ann and cy: the LMS's time (tensorlab collect's file); bob and dee: the file's mtime; eve:
# the LMS's time, 31 minutes late, inside 60 minutes of grace
TIMES = {
    "ann": ("lms", "2026-11-20T20:00:00Z"),
    "bob": ("mtime", "2026-11-21T10:00:00Z"),  # 10 h late: 1 started day
    "cy": ("lms", "2026-11-23T01:00:00Z"),  # 49 h late: 3 started days
    "dee": ("mtime", "2026-11-22T12:00:00Z"),  # late, but an extension of +3d
    "eve": ("lms", "2026-11-21T00:30:00Z"),
}


def _solutions(folder: Path) -> None:
    folder.mkdir(parents=True)
    nb = new_notebook()

    def cell(kind, src, **tl):
        c = (new_code_cell if kind == "code" else new_markdown_cell)(src)
        if tl:
            c.metadata["tensorlab"] = tl
        nb.cells.append(c)

    cell("code", "import tensorlab")
    cell("markdown", "## 1. Double\nWrite `double(x)`.")
    body = "def double(x):\n    ### BEGIN SOLUTION\n    return x * 2\n    ### END SOLUTION"
    cell("code", body, role="answer", question="t.double")
    cell("code", QUESTION, role="question", question="t.double")
    cell("code", 'tensorlab.check("t.double")', role="check", question="t.double")
    cell("markdown", "## 2. Why is doubling linear?")
    cell(
        "markdown",
        "### BEGIN SOLUTION\nBecause 2(a+b) = 2a + 2b and 2(ca) = c(2a).\n### END SOLUTION",
        role="written",
        question="t.why",
        points=2,
        title="Why linear",
        rubric=[{"points": 1, "text": "additivity"}, {"points": 1, "text": "homogeneity"}],
    )
    nbformat.write(nb, folder / NB)


def _class(exercises: Path, klass: Path) -> None:
    for student, code in ANSWERS.items():
        nb = json.loads((exercises / NB).read_text())
        for c in nb["cells"]:
            tl = c["metadata"].get("tensorlab", {})
            if tl.get("role") == "answer":
                c["source"] = code
            if tl.get("role") == "written" and WRITTEN[student]:
                c["source"] = WRITTEN[student]
        folder = klass / student
        folder.mkdir(parents=True)
        path = folder / NB
        path.write_text(json.dumps(nb))
        source, when = TIMES[student]
        t = datetime.fromisoformat(when.replace("Z", "+00:00"))
        if source == "lms":
            meta = {"submitted_at": when, "lms": "canvas", "lms_id": "1", "name": student}
            (folder / ".tensorlab-submission.json").write_text(json.dumps(meta))
            os.utime(path, (0, 0))  # the file's own time must not be used
        else:
            os.utime(path, (t.timestamp(), t.timestamp()))


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    from tensorlab.grading.assign import assign
    from tensorlab.grading.grade import grade

    base = tmp_path_factory.mktemp("term")
    _solutions(base / "solutions")
    assign(base / "solutions", base / "exercises")
    _class(base / "exercises", base / "class")
    out = base / "out"
    summary = grade([str(base / "class")], out, base / "exercises", jobs=2, seed=5, progress=False)
    assert summary["grader_errors"] == []
    return base, out


def _gradebook(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}


def _fill(sheet: Path, points: dict[str, str], comment: str) -> None:
    rows = list(csv.reader(sheet.open(newline="", encoding="utf-8")))
    head = rows[0]
    for r in rows[1:]:
        r[head.index("points")] = points[r[head.index("file")][: -len(".json")]]
        r[head.index("comment")] = comment
    with sheet.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)


def _page(out: Path, student: str) -> str:
    import html
    import re

    text = (out / "feedback" / f"{student}.html").read_text()
    return html.unescape(re.sub(r"<[^>]+>", " ", text[text.index("<body>") :]))


def test_a_term_end_to_end(term, tmp_path):
    base, out = term
    # -- what the grader found: weighted cases, misconception credit, written answers pending
    book = _gradebook(out)
    assert book["ann"]["t.double"] == "4"
    assert book["bob"]["t.double"] == "1"  # squared: 0 cases, 25% credit of 4
    assert book["cy"]["t.double"] == "1.6"  # the public case only: weight 2 of 5, x 4
    assert book["dee"]["t.double"] == "0"
    assert {s: r["t.why"] for s, r in book.items()} == {s: "0" for s in ANSWERS}
    dee = json.loads((out / "dee.json").read_text())["submissions"][0]
    assert dee["questions"]["t.double"]["error"]["line"] == "return x + 'a'"
    assert "line 3:  return x + 'a'" in _page(out, "dee")
    assert "(written)" in _page(out, "ann") and "Double a tensor" in _page(out, "ann")
    cy = json.loads((out / "cy.json").read_text())["submissions"][0]["questions"]["t.why"]
    assert cy["status"] == "not_attempted"

    # -- written answers: two graders, two sheets, merged back
    sheets = tmp_path / "sheets"
    r = run_cli("written", out, "--sheets", sheets, "--graders", "2")
    assert r.returncode == 0, r.stderr
    one, two = sheets / "written-1-of-2.csv", sheets / "written-2-of-2.csv"
    first = {row["file"] for row in csv.DictReader(one.open())}
    second = {row["file"] for row in csv.DictReader(two.open())}
    assert first == {"ann.json", "bob.json"} and second == {"dee.json", "eve.json"}  # cy: empty
    assert "'=HYPERLINK" in two.read_text()  # a formula is text in a spreadsheet
    _fill(one, {"ann": "2", "bob": "0.5"}, "see rubric")
    _fill(two, {"dee": "1", "eve": "2"}, "ok")
    r = run_cli("written", out, "--merge", one, two)
    assert r.returncode == 0, r.stderr

    # -- overrides: a regrade request, an excused question, extra credit
    for args in (
        ("bob", "t.double", "--points", "3", "--why", "regrade: accepted", "--by", "TA Kim"),
        ("cy", "t.why", "--excuse", "--why", "medical note", "--by", "Prof. Ode"),
        ("dee", "t.why", "--add", "1", "--why", "extra credit", "--by", "Prof. Ode"),
    ):
        r = run_cli("override", out, *args)
        assert r.returncode == 0, r.stderr

    # -- late: due date, 10% a started day, at most 25%, 60 minutes' grace, an extension
    r = run_cli("late", out, "--due", f"{NB}={DUE}", "--per-day", "10%", "--cap", "25%")
    assert r.returncode == 0, r.stderr
    r = run_cli("late", out, "--grace", "60")
    assert r.returncode == 0, r.stderr
    r = run_cli("late", out, "--extend", "dee", NB, "+3d", "--why", "illness", "--by", "Prof. Ode")
    assert r.returncode == 0, r.stderr

    expected = {
        "ann": ("6", "6"),  # 4 + 2, on time by the LMS's clock (the file says 1970)
        "bob": ("2.9", "6"),  # 3 (override) + 0.5 - 1 day x 10% x 6
        "cy": ("0.6", "4"),  # 1.6 + excused (max 4) - min(3 x 10%, 25%) x 4
        "dee": ("2", "6"),  # 0 + 1 + 1 extra, on time with the extension
        "eve": ("6", "6"),  # 4 + 2, 31 minutes late inside 60 minutes of grace
    }
    book = _gradebook(out)
    assert {s: (r["score"], r["max_score"]) for s, r in book.items()} == expected
    # -- a regrade of one student keeps every decision
    from tensorlab.grading.grade import grade

    grade([str(base / "class" / "bob")], out, base / "exercises", seed=5, progress=False)
    book = _gradebook(out)
    assert {s: (r["score"], r["max_score"]) for s, r in book.items()} == expected
    assert (out / "overrides.csv").read_text().count("\n") == 4  # header + 3, untouched

    # -- the student sees each decision on their page
    bob = _page(out, "bob")
    assert "Changed by TA Kim" in bob and "regrade: accepted" in bob
    assert "1 day(s) late: 0.6 points deducted" in bob and "the file's time" in bob
    assert "Partial credit for this answer: 25%" in bob and "Scored by grader 1" in bob
    cy_page = _page(out, "cy")
    assert "excused" in cy_page and "as the LMS recorded it" in cy_page
    assert "extended by Prof. Ode: illness" in _page(out, "dee")

    # -- report and export read the same final numbers
    r = run_cli("report", out)
    assert r.returncode == 0, r.stderr
    assert "3 overrides, 2 late notebooks, 0 written answers to grade" in r.stdout
    report = (out / "report.html").read_text()
    assert "Overrides" in report and "credit 25%" in report and "Why linear" in report
    roster = tmp_path / "roster.csv"
    roster.write_text("student,email\n" + "".join(f"{s},{s}@uni.edu\n" for s in ANSWERS))
    dest = tmp_path / "moodle.csv"
    r = run_cli("export", out, "--format", "moodle", "--roster", roster, "--out", dest)
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(dest.open()))
    # the LMS column is the notebook's 6 points: cy's 0.6 of 4 (a question excused) is
    # exported on the same scale, 0.6 x 6 / 4 = 0.9
    exported = {f"{s}@uni.edu": score for s, (score, _) in expected.items()}
    exported["cy@uni.edu"] = "0.9"
    assert {row[0]: row[1] for row in rows[1:]} == exported


# ---------------------------------------------------------------------------- the whole term
# From each LMS's download to each LMS's upload (issue 35, "Done when"): a Canvas "Download
# Submissions" zip and a Moodle "Download all submissions" zip of this course, named as each
# LMS names its files (see test_grading_term.py), with late, missing, renamed and resubmitted
# notebooks -> collect -> grade -> written answers by two graders -> overrides -> late ->
# report -> export into Canvas's own gradebook export, Moodle's grading worksheet and its
# feedback files zip. The zip entries' times are the submission times (UTC here).
def _submission_bytes(exercises: Path, code: str, text: str | None) -> bytes:
    nb = json.loads((exercises / NB).read_text())
    for c in nb["cells"]:
        tl = c["metadata"].get("tensorlab", {})
        if tl.get("role") == "answer":
            c["source"] = code
        if tl.get("role") == "written" and text:
            c["source"] = text
    return json.dumps(nb).encode()


def _download(path: Path, exercises: Path, entries) -> Path:
    import zipfile

    with zipfile.ZipFile(path, "w") as z:
        for name, code, text, when in entries:
            info = zipfile.ZipInfo(name, date_time=when)
            z.writestr(info, _submission_bytes(exercises, code, text))
    return path


CANVAS_ZIP = [  # {sortable name}[_LATE]_{user id}_{attachment id}_{file name}; kimdee: none
    ("leeann_101_9001_01_double.ipynb", ANSWERS["ann"], WRITTEN["ann"], (2026, 11, 20, 12, 0, 0)),
    ("raybob_LATE_102_9002_01_double.ipynb", ANSWERS["bob"], "first try", (2026, 11, 21, 9, 0, 0)),
    # resubmitted: the newer upload (a higher attachment id, renamed -1 by Canvas) is graded
    ("raybob_LATE_102_9010_01_double-1.ipynb", ANSWERS["ann"], "It just is.", (2026, 11, 21, 10, 0, 0)),
    ("youngcy_LATE_103_9003_01_double (1).ipynb", ANSWERS["cy"], None, (2026, 11, 23, 1, 0, 0)),
]  # fmt: skip
MOODLE_ZIP = [  # {full name}_{participant id}_assignsubmission_file[_]/{their file name}
    ("Ann Lee_5501_assignsubmission_file/01_double.ipynb", ANSWERS["ann"], WRITTEN["ann"],
     (2026, 11, 20, 12, 0, 0)),
    ("Bob Ray_5502_assignsubmission_file_/01_double-Copy1.ipynb", ANSWERS["bob"], "x",
     (2026, 11, 22, 12, 0, 0)),
    ("Cy Young_5503_assignsubmission_file/my answers.ipynb", ANSWERS["eve"], WRITTEN["eve"],
     (2026, 11, 20, 22, 0, 0)),
]  # fmt: skip
CANVAS_EXPORT = [
    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01_double (502)", "Final Score"],
    ["    Points Possible", "", "", "", "", "6.00", "(read only)"],
    ["Lee, Ann", "101", "S101", "alee", "A", "", "0"],
    ["Ray, Bob", "102", "S102", "bray", "A", "", "0"],
    ["Young, Cy", "103", "S103", "cyoung", "B", "", "0"],
    ["Kim, Dee", "104", "S104", "dkim", "B", "", "0"],  # no submission
]
WORKSHEET = [
    ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
     "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
     "Feedback comments"],
    ["Participant 5501", "Ann Lee", "ann@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    ["Participant 5502", "Bob Ray", "bob@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    ["Participant 5503", "Cy Young", "cy@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    ["Participant 5504", "Dee Kim", "dee@uni.edu", "No submission", "", "100.00", "Yes", "", "-",
     ""],
]  # fmt: skip


def _write_csv(path: Path, rows) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\r\n").writerows(rows)
    return path


def _score_sheets(out: Path, folder: Path, points: dict[str, str]) -> None:
    """Two graders: each fills in their own sheet (by the student's name), then both merge."""
    r = run_cli("written", out, "--sheets", folder, "--graders", "2")
    assert r.returncode == 0, r.stderr
    sheets = sorted(folder.glob("written-*-of-2.csv"))
    assert len(sheets) == 2
    for sheet in sheets:
        rows = list(csv.reader(sheet.open(newline="", encoding="utf-8")))
        head = rows[0]
        assert rows[1:], f"{sheet.name}: each grader has answers to score"
        for row in rows[1:]:
            row[head.index("points")] = points[row[head.index("student")]]
        _write_csv(sheet, rows)
    r = run_cli("written", out, "--merge", *sheets)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def whole_term(tmp_path_factory):
    import time

    from tensorlab.grading.assign import assign

    with pytest.MonkeyPatch.context() as mp:  # the zips' times read as UTC, as unzip would here
        mp.setenv("TZ", "UTC")
        time.tzset()
        base = tmp_path_factory.mktemp("whole_term")
        _solutions(base / "solutions")
        assign(base / "solutions", base / "exercises")
        ex = base / "exercises"
        canvas = _download(base / "course-lab1_submissions.zip", ex, CANVAS_ZIP)
        moodle = _download(base / "COURSE-Lab 1-77.zip", ex, MOODLE_ZIP)
        for lms, zipped, extra in (("canvas", canvas, ()), ("moodle", moodle, ("--notebook", NB))):
            r = run_cli("collect", zipped, "--out", base / f"{lms}_class", "--release", ex, *extra)
            assert r.returncode == 0, r.stderr
            r = run_cli(
                "grade", base / f"{lms}_class", "--out", base / f"{lms}_out", "--release", ex,
                "--jobs", "2", "--quiet", "--seed", "35",
            )  # fmt: skip
            assert r.returncode == 0, r.stderr
    time.tzset()
    return base


def test_a_whole_term_from_the_lms_download_to_the_lms_upload(whole_term):
    base = whole_term
    canvas, moodle = base / "canvas_out", base / "moodle_out"
    assert _gradebook(canvas).keys() == {"leeann", "raybob", "youngcy"}  # kimdee: no submission
    assert _gradebook(moodle).keys() == {"Ann Lee", "Bob Ray", "Cy Young"}
    for out in (canvas, moodle):
        r = run_cli("late", out, "--due", f"{NB}={DUE}", "--per-day", "10%", "--cap", "25%")
        assert r.returncode == 0, r.stderr

    # -- Canvas: bob's newer upload graded (4 + written 0.5 -> 1 by override, 1 day late);
    # cy's renamed file graded (1.6 of 4 for the public input), late 3 days but extended
    _score_sheets(canvas, base / "canvas_sheets", {"leeann": "2", "raybob": "0.5"})
    for args in (
        ("override", canvas, "raybob", "t.why", "--points", "1", "--why", "regrade request",
         "--by", "TA Kim"),
        ("late", canvas, "--extend", "youngcy", NB, "+3d", "--why", "illness", "--by", "Prof"),
    ):  # fmt: skip
        r = run_cli(*args)
        assert r.returncode == 0, r.stderr
    want_canvas = {"101": "6", "102": "4.4", "103": "1.6", "104": "0"}  # 4+1-0.6; dee: none
    assert {s: r["score"] for s, r in _gradebook(canvas).items()} == {
        "leeann": "6", "raybob": "4.4", "youngcy": "1.6"
    }  # fmt: skip
    gradebook = _write_csv(base / "canvas_export.csv", CANVAS_EXPORT)
    dest = base / "canvas_import.csv"
    r = run_cli("export", canvas, "--format", "canvas", "--gradebook", gradebook, "--out", dest)
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(dest.open(encoding="utf-8-sig")))
    assert rows[0] == CANVAS_EXPORT[0] and rows[1] == CANVAS_EXPORT[1]
    assert {row[1]: row[5] for row in rows[2:]} == want_canvas
    assert all(row[6] == "0" for row in rows[2:])  # Canvas's own columns left as they were

    # -- Moodle: bob's Copy1 graded (squared: 25% credit = 1, +1 by override, 2 days late);
    # cy's "my answers.ipynb" graded as the notebook; cy's written question excused
    _score_sheets(
        moodle, base / "moodle_sheets", {"Ann Lee": "2", "Bob Ray": "0", "Cy Young": "1.5"}
    )
    for args in (
        ("override", moodle, "Bob Ray", "t.double", "--add", "1", "--why", "the idea is right",
         "--by", "Prof"),
        ("override", moodle, "Cy Young", "t.why", "--excuse", "--why", "medical", "--by", "Prof"),
    ):  # fmt: skip
        r = run_cli(*args)
        assert r.returncode == 0, r.stderr
    book = _gradebook(moodle)
    # Ann 4+2; Bob 1+1+0 - 2 days x 10% x 6 = 0.8; Cy 4 of 4 (t.why excused)
    assert {s: (r["score"], r["max_score"]) for s, r in book.items()} == {
        "Ann Lee": ("6", "6"), "Bob Ray": ("0.8", "6"), "Cy Young": ("4", "4")
    }  # fmt: skip
    worksheet = _write_csv(base / "worksheet.csv", WORKSHEET)
    dest, fzip = base / "worksheet_filled.csv", base / "feedback.zip"
    r = run_cli(
        "export", moodle, "--format", "moodle", "--gradebook", worksheet, "--out", dest,
        "--feedback-zip", fzip,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = list(csv.reader(dest.open(encoding="utf-8-sig")))
    # out of Moodle's 100: 6/6, 0.8/6, 4/4 (exported on the notebook's full 6), no submission
    assert {row[0]: row[4] for row in rows[1:]} == {
        "Participant 5501": "100.00",
        "Participant 5502": "13.33",
        "Participant 5503": "100.00",
        "Participant 5504": "0.00",
    }
    import zipfile

    with zipfile.ZipFile(fzip) as z:
        bob = z.read("Bob Ray_5502_assignsubmission_file/feedback.html").decode()
    assert "Changed by Prof" in bob and "the idea is right" in bob
    assert "2 day(s) late: 1.2 points deducted" in bob and "Partial credit for this answer" in bob

    # -- the report reads the same decisions
    for out, overrides, late in ((canvas, 1, 1), (moodle, 2, 1)):
        r = run_cli("report", out)
        assert r.returncode == 0, r.stderr
        assert f"{overrides} overrides, {late} late notebooks, 0 written answers to grade" in (
            r.stdout
        )
