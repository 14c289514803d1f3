"""A term's LMS ends, end to end: a Canvas "Download Submissions" zip and a Moodle "Download all
submissions" zip, laid out exactly as each LMS names its files (Canvas:
``lib/content_zipper.rb``; Moodle: ``mod/assign`` download and
``feedback/file/importziplib.php``), with late, missing, renamed and resubmitted notebooks ->
``tensorlab collect`` -> ``tensorlab grade`` (real sandboxed kernels) -> ``tensorlab export``
into Canvas's own gradebook export and Moodle's own grading worksheet, and Moodle's feedback
files zip. Every number is checked against the answers each student was given here."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from grading_class import EXERCISES, STRIDES, TRANSPOSE_WRONG, submission
from grading_cli import run_cli

pytest.importorskip("nbclient")

POINTS = {
    q: json.loads((EXERCISES / "release.json").read_text())["questions"][q]["points"]
    for q in json.loads((EXERCISES / "release.json").read_text())["notebooks"][STRIDES]["questions"]
}
MAX = sum(POINTS.values())
WRONG = {
    "strides.transpose": TRANSPOSE_WRONG,
    "strides.contiguous": "def contiguous_strides(shape):\n    return tuple(0 for _ in shape)\n",
}


def notebook(wrong=(), blank=False) -> bytes:
    """04_strides answered with the solution's answers, the questions in ``wrong`` answered
    wrongly (``blank``: the released exercise, untouched)."""
    if blank:
        return (EXERCISES / STRIDES).read_bytes()
    return json.dumps(submission(STRIDES, {q: WRONG[q] for q in wrong})).encode()


def expected(wrong=(), blank=False) -> float:
    return 0.0 if blank else MAX - sum(POINTS[q] for q in wrong)


def _zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _csv(path: Path, rows, bom=False) -> Path:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    path.write_bytes((("\ufeff" if bom else "") + buf.getvalue()).encode())
    return path


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"))))


# ---------------------------------------------------------------------------- the class
# Canvas: {sortable name, lower-cased, non-word characters removed}[_LATE]_{user id}_
# {attachment id}_{file name}; a second upload of a file of the same name is renamed "-1".
CANVAS = {
    "leeann_101_9001_04_strides.ipynb": notebook(),
    "raybob_LATE_102_9002_04_strides.ipynb": notebook(["strides.transpose", "strides.contiguous"]),
    "raybob_LATE_102_9010_04_strides-1.ipynb": notebook(["strides.transpose"]),  # newer
    "youngcy_103_9003_04_strides (1).ipynb": notebook(["strides.contiguous"]),
    "kimdee_104_9004_Copy of 04_strides.ipynb": notebook(blank=True),
    "kimdee_104_text.html": b"<p>my notes</p>",
}
CANVAS_SCORES = {
    "leeann": expected(),
    "raybob": expected(["strides.transpose"]),
    "youngcy": expected(["strides.contiguous"]),
    "kimdee": expected(blank=True),
}
# Moodle 4.1+: {full name}_{participant id}_assignsubmission_file/ (earlier: a trailing "_").
MOODLE = {
    "Ann Lee_5501_assignsubmission_file/04_strides.ipynb": notebook(),
    "Bob Ray_5502_assignsubmission_file_/04_strides-Copy1.ipynb": notebook(["strides.contiguous"]),
    "Bob Ray_5502_assignsubmission_onlinetext/onlinetext.html": b"<p>text</p>",
    "Cy Young_5503_assignsubmission_file/my answers.ipynb": notebook(["strides.transpose"]),
}
MOODLE_SCORES = {
    "Ann Lee": expected(),
    "Bob Ray": expected(["strides.contiguous"]),
    "Cy Young": expected(["strides.transpose"]),
}

# Canvas's gradebook export (Grades > Export): assignments named "Name (id)", then the
# Points Possible row, read-only columns at the end, the test student's row.
CANVAS_HEAD = [
    "Student",
    "ID",
    "SIS User ID",
    "SIS Login ID",
    "Section",
    "Quiz 1 (501)",
    "04 Strides (502)",
    "Current Score",
    "Final Score",
]
CANVAS_EXPORT = [
    CANVAS_HEAD,
    ["    Points Possible", "", "", "", "", "10.00", "12.00", "(read only)", "(read only)"],
    ["Lee, Ann", "101", "S101", "alee", "A", "8.00", "", "80", "40"],
    ["Ray, Bob", "102", "S102", "bray", "A", "9.00", "", "90", "45"],
    ["Young, Cy", "103", "S103", "cyoung", "B", "7.00", "", "70", "35"],
    ["Kim, Dee", "104", "S104", "dkim", "B", "6.00", "", "60", "30"],
    ["Park, Eve", "105", "S105", "epark", "B", "5.00", "", "50", "25"],  # no submission
    ["Ng, Fay", "106", "S106", "fng", "A", "", "EX", "", ""],  # excused
    ["Student, Test", "107", "", "", "A", "", "", "", ""],
]
# Moodle's grading worksheet (View all submissions > Download grading worksheet).
WORKSHEET_HEAD = [
    "Identifier",
    "Full name",
    "Email address",
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
]
WORKSHEET = [
    WORKSHEET_HEAD,
    ["Participant 5501", "Ann Lee", "ann@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    ["Participant 5502", "Bob Ray", "bob@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    ["Participant 5503", "Cy Young", "cy@uni.edu", "Submitted", "", "100.00", "Yes", "", "-", ""],
    [
        "Participant 5504",
        "Dee Kim",
        "dee@uni.edu",
        "No submission",
        "",
        "100.00",
        "Yes",
        "",
        "-",
        "",
    ],
    [
        "Participant 5505",
        "Eve Park",
        "eve@uni.edu",
        "No submission",
        "55.00",
        "100.00",
        "No",
        "",
        "",
        "",
    ],
]


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    """Both downloads collected and graded once (real sandboxed kernels, 2 at a time)."""
    base = tmp_path_factory.mktemp("term")
    canvas_zip = _zip(base / "course-lab4_submissions.zip", CANVAS)
    moodle_zip = _zip(base / "COURSE-Lab 4-77.zip", MOODLE)
    r1 = run_cli("collect", canvas_zip, "--out", base / "canvas_class", "--release", EXERCISES)
    r2 = run_cli(
        "collect", moodle_zip, "--out", base / "moodle_class", "--release", EXERCISES,
        "--notebook", STRIDES,
    )  # fmt: skip
    graded = {}
    for lms in ("canvas", "moodle"):
        r = run_cli(
            "grade", base / f"{lms}_class", "--out", base / f"{lms}_out", "--release", EXERCISES,
            "--jobs", "2", "--quiet", "--seed", "35", "--cell-timeout", "20",
        )  # fmt: skip
        graded[lms] = r
    return base, r1, r2, graded


def _scores(out: Path) -> dict[str, float]:
    found = {}
    for p in out.glob("*.json"):
        doc = json.loads(p.read_text())
        found[doc["student"]] = doc["score"]
    return found


# ---------------------------------------------------------------------------- collect
def test_canvas_download_becomes_class_folders_with_identities(term):
    base, r, _, _ = term
    assert r.returncode == 0, r.stderr
    assert "collected 4 notebooks of 4 students from a Canvas download" in r.stdout
    assert "(1 late)" in r.stdout
    klass = base / "canvas_class"
    assert sorted(p.name for p in klass.iterdir()) == [
        "kimdee",
        "leeann",
        "raybob",
        "roster.csv",
        "youngcy",
    ]
    for student in CANVAS_SCORES:
        assert [p.name for p in (klass / student).glob("*.ipynb")] == [STRIDES]
    # the newest upload (attachment 9010, "-1") is the one kept
    assert (klass / "raybob" / STRIDES).read_bytes() == CANVAS[
        "raybob_LATE_102_9010_04_strides-1.ipynb"
    ]
    bob = json.loads((klass / "raybob" / ".tensorlab-submission.json").read_text())
    assert bob["lms"] == "canvas" and bob["lms_id"] == "102" and bob["late"] is True
    assert bob["submitted_at"] is None and bob["name"] == "raybob"
    assert bob["files"][STRIDES]["file"] == "04_strides-1.ipynb"
    assert [u["from"] for u in bob["not_used"]] == ["raybob_LATE_102_9002_04_strides.ipynb"]
    ann = json.loads((klass / "leeann" / ".tensorlab-submission.json").read_text())
    assert ann["late"] is False and ann["lms_id"] == "101"
    cy = json.loads((klass / "youngcy" / ".tensorlab-submission.json").read_text())
    assert cy["files"][STRIDES]["file"] == "04_strides (1).ipynb"
    assert "skipped kimdee_104_text.html" in r.stderr
    assert _rows(klass / "roster.csv") == [
        ["student", "name", "lms", "canvas_id"],
        ["kimdee", "kimdee", "canvas", "104"],
        ["leeann", "leeann", "canvas", "101"],
        ["raybob", "raybob", "canvas", "102"],
        ["youngcy", "youngcy", "canvas", "103"],
    ]


def test_moodle_download_becomes_class_folders_with_identities(term):
    base, _, r, _ = term
    assert r.returncode == 0, r.stderr
    klass = base / "moodle_class"
    assert sorted(p.name for p in klass.iterdir()) == [
        "Ann Lee",
        "Bob Ray",
        "Cy Young",
        "roster.csv",
    ]
    cy = json.loads((klass / "Cy Young" / ".tensorlab-submission.json").read_text())
    assert cy == {
        "submitted_at": None,
        "lms": "moodle",
        "lms_id": "5503",
        "name": "Cy Young",
        "late": None,
        "files": {
            STRIDES: {
                "from": "Cy Young_5503_assignsubmission_file/my answers.ipynb",
                "file": "my answers.ipynb",
                "late": None,
            }
        },
        "not_used": [],
    }
    assert (klass / "Bob Ray" / STRIDES).read_bytes() == MOODLE[
        "Bob Ray_5502_assignsubmission_file_/04_strides-Copy1.ipynb"
    ]
    assert _rows(klass / "roster.csv")[1:] == [
        ["Ann Lee", "Ann Lee", "moodle", "5501"],
        ["Bob Ray", "Bob Ray", "moodle", "5502"],
        ["Cy Young", "Cy Young", "moodle", "5503"],
    ]


# ---------------------------------------------------------------------------- grade
def test_each_collected_class_is_graded_as_its_students(term):
    base, _, _, graded = term
    for lms, want in (("canvas", CANVAS_SCORES), ("moodle", MOODLE_SCORES)):
        assert graded[lms].returncode == 0, graded[lms].stderr
        assert f"graded {len(want)} submissions from {len(want)} students" in graded[lms].stdout
        assert _scores(base / f"{lms}_out") == want


# ---------------------------------------------------------------------------- export
def test_canvas_export_fills_canvas_own_gradebook(term):
    base, *_ = term
    gradebook = _csv(base / "canvas_export.csv", CANVAS_EXPORT, bom=True)
    dest = base / "canvas_import.csv"
    r = run_cli(
        "export", base / "canvas_out", "--format", "canvas", "--gradebook", gradebook,
        "--out", dest,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "wrote 7 students" in r.stdout
    assert f"scaled from {MAX:g} to the assignment's 12 points" in r.stderr
    assert dest.read_bytes().startswith(b"\xef\xbb\xbf")  # as Canvas wrote it
    rows = _rows(dest)
    assert rows[0] == CANVAS_HEAD and rows[1] == CANVAS_EXPORT[1]
    by_id = {row[1]: row for row in rows[2:]}
    scale = 12 / MAX
    want = {
        "101": CANVAS_SCORES["leeann"] * scale,
        "102": CANVAS_SCORES["raybob"] * scale,
        "103": CANVAS_SCORES["youngcy"] * scale,
        "104": 0.0,
        "105": 0.0,  # on Canvas's roster, no submission
        "107": 0.0,
    }
    for uid, score in want.items():
        assert float(by_id[uid][6]) == pytest.approx(score, abs=0.005), uid
    assert by_id["106"][6] == "EX"  # excused stays excused
    for original in CANVAS_EXPORT[2:]:  # every other cell as Canvas wrote it
        row = by_id[original[1]]
        assert row[:6] + row[7:] == original[:6] + original[7:]


def test_canvas_per_question_columns_match_or_create_assignments(term):
    base, *_ = term
    head = CANVAS_HEAD + ["04_strides: strides.transpose (601)"]  # imported once before
    rows = [head] + [r + ["1.00" if i == 0 else ""] for i, r in enumerate(CANVAS_EXPORT[1:])]
    gradebook = _csv(base / "canvas_export_q.csv", rows)
    dest = base / "canvas_q.csv"
    r = run_cli(
        "export", base / "canvas_out", "--format", "canvas", "--gradebook", gradebook,
        "--out", dest, "--per-question",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    out = _rows(dest)
    qids = list(POINTS)
    new = [f"04_strides: {q}" for q in qids if q != "strides.transpose"]
    assert out[0] == head + new  # the existing one matched, the others new assignments
    col = {h: i for i, h in enumerate(out[0])}
    assert out[1][col[new[0]]] == f"{POINTS[qids[0]]:g}"
    bob = next(row for row in out if row[1] == "102")
    assert bob[col["04_strides: strides.transpose (601)"]] == "0"
    assert bob[col["04_strides: strides.contiguous"]] == f"{POINTS['strides.contiguous']:g}"
    eve = next(row for row in out if row[1] == "105")
    assert {eve[col[h]] for h in new} == {"0"}


def test_moodle_export_fills_the_grading_worksheet_and_feedback_zip(term):
    base, *_ = term
    worksheet = _csv(base / "worksheet.csv", WORKSHEET)
    dest, fzip = base / "worksheet_filled.csv", base / "feedback.zip"
    r = run_cli(
        "export", base / "moodle_out", "--format", "moodle", "--gradebook", worksheet,
        "--out", dest, "--per-question", "--feedback-zip", fzip,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = _rows(dest)
    assert rows[0] == WORKSHEET_HEAD
    grade = {row[0]: row[4] for row in rows[1:]}
    assert grade == {
        "Participant 5501": f"{MOODLE_SCORES['Ann Lee'] * 100 / MAX:.2f}",
        "Participant 5502": f"{MOODLE_SCORES['Bob Ray'] * 100 / MAX:.2f}",
        "Participant 5503": f"{MOODLE_SCORES['Cy Young'] * 100 / MAX:.2f}",
        "Participant 5504": "0.00",  # on Moodle's list, no submission
        "Participant 5505": "55.00",  # "Grade can be changed: No": left alone
    }
    assert "Participant 5505: the grade cannot be changed" in r.stderr
    comments = {row[0]: row[9] for row in rows[1:]}
    assert "strides.transpose: 0/0" in comments["Participant 5503"]  # a formative prediction
    assert "strides.contiguous: 1/1" in comments["Participant 5503"]
    assert comments["Participant 5503"].startswith(
        f"04_strides: {MOODLE_SCORES['Cy Young']:g}/{MAX:g} points."
    )
    for original, row in zip(WORKSHEET[1:], rows[1:]):
        assert row[:4] + row[5:9] == original[:4] + original[5:9]
    # the zip as Moodle's importziplib reads it: a path part "name_participant_type_plugin"
    # whose participant is numeric and whose plugin exists, then the file name
    out = base / "moodle_out"
    with zipfile.ZipFile(fzip) as z:
        names = sorted(z.namelist())
        assert names == [
            "Ann Lee_5501_assignsubmission_file/feedback.html",
            "Bob Ray_5502_assignsubmission_file/feedback.html",
            "Cy Young_5503_assignsubmission_file/feedback.html",
        ]
        for name in names:
            info = name.split("/")[0].split("_", 4)
            assert info[1].isdigit() and (info[2], info[3]) == ("assignsubmission", "file")
            student = info[0]
            doc = next(
                json.loads(p.read_text())
                for p in out.glob("*.json")
                if json.loads(p.read_text())["student"] == student
            )
            page = out / "feedback" / (doc["file"][: -len(".json")] + ".html")
            assert z.read(name) == page.read_bytes()


def test_new_import_files_give_zero_to_rostered_students_without_submission(term):
    base, *_ = term
    roster = base / "canvas_class" / "roster.csv"
    text = roster.read_text() + "parkeve,parkeve,canvas,105\r\n"
    (base / "roster_plus.csv").write_text(text)
    dest = base / "new_canvas.csv"
    r = run_cli(
        "export", base / "canvas_out", "--format", "canvas", "--roster", base / "roster_plus.csv",
        "--out", dest,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = _rows(dest)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "04_strides"]
    got = {row[1]: float(row[5]) for row in rows[2:]}
    assert got == {
        "101": CANVAS_SCORES["leeann"],
        "102": CANVAS_SCORES["raybob"],
        "103": CANVAS_SCORES["youngcy"],
        "104": CANVAS_SCORES["kimdee"],
        "105": 0.0,
    }
