"""``tensorlab collect`` and ``export`` without kernels: each LMS's naming variants (anonymous
grading, blind marking, Moodle without folders, a zip unpacked into a folder), clashing names,
hostile zips, layouts that are not an LMS's, and the export's errors (on grade files written
by the real results writer)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from grading_cli import run_cli
from hypothesis import given
from hypothesis import strategies as st

from tensorlab.grading import lms
from tensorlab.grading.lms import SUBMISSION_FILE, released_name

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
STRIDES, VIEWS = "04_strides.ipynb", "05_views.ipynb"
NB = (EXERCISES / STRIDES).read_bytes()
NOTEBOOKS = sorted(json.loads((EXERCISES / "release.json").read_text())["notebooks"])


def _zip(path: Path, files: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def _collect(src, out, *extra):
    return run_cli("collect", src, "--out", out, "--release", EXERCISES, *extra)


def _ident(folder: Path) -> dict:
    return json.loads((folder / SUBMISSION_FILE).read_text())


def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_bytes().decode("utf-8-sig"))))


# ---------------------------------------------------------------------------- names
RENAMES = [
    lambda s: f"Copy of {s}",  # Google Drive / Colab
    lambda s: f"{s} (3)",  # a browser's third download
    lambda s: f"{s}-Copy2",  # Jupyter's Duplicate
    lambda s: f"{s} - Copy",  # Windows Explorer
    lambda s: f"{s}-2",  # Canvas: uploaded again under the same name
    lambda s: s.upper(),
]


@given(st.sampled_from(NOTEBOOKS), st.lists(st.sampled_from(range(len(RENAMES))), max_size=4))
def test_any_chain_of_renamings_is_undone(nb, chain):
    stem = nb[: -len(".ipynb")]
    for i in chain:
        stem = RENAMES[i](stem)
    assert released_name(stem + ".ipynb", NOTEBOOKS)[0] == nb


@pytest.mark.parametrize(
    "name", ["04_strides.py", "04_stride.ipynb", "notes.ipynb", "04_strides.ipynb.zip", ""]
)
def test_other_names_are_not_a_released_notebook(name):
    assert released_name(name, NOTEBOOKS) == (None, 0)


# ---------------------------------------------------------------------------- canvas variants
def test_canvas_anonymous_grading_and_clashing_names(tmp_path):
    src = _zip(
        tmp_path / "dl.zip",
        {
            "LATE_anon_Xy12z_9001_04_strides.ipynb": NB,  # anonymous grading: no name
            "leeann_101_9002_04_strides.ipynb": NB,
            "leeann_108_9003_04_strides.ipynb": NB,  # another Ann Lee
        },
    )
    r = _collect(src, tmp_path / "c")
    assert r.returncode == 0, r.stderr
    folders = sorted(p.name for p in (tmp_path / "c").iterdir() if p.is_dir())
    assert folders == ["anon_Xy12z", "leeann_101", "leeann_108"]
    anon = _ident(tmp_path / "c" / "anon_Xy12z")
    assert anon["lms_id"] == "anon_Xy12z" and anon["late"] is True and anon["name"] == ""
    # a later download: a new leeann does not take the folder of the first
    (tmp_path / "c2").mkdir()
    first = _zip(tmp_path / "a.zip", {"leeann_101_9002_04_strides.ipynb": NB})
    assert _collect(first, tmp_path / "c2").returncode == 0
    second = _zip(tmp_path / "b.zip", {"leeann_109_9100_05_views.ipynb": b"{}"})
    assert _collect(second, tmp_path / "c2").returncode == 0
    assert _ident(tmp_path / "c2" / "leeann")["lms_id"] == "101"
    assert _ident(tmp_path / "c2" / "leeann_109")["lms_id"] == "109"
    assert _rows(tmp_path / "c2" / "roster.csv")[1:] == [
        ["leeann", "leeann", "canvas", "101"],
        ["leeann_109", "leeann", "canvas", "109"],
    ]


def test_notebooks_inside_a_zip_a_student_submitted_are_collected(tmp_path):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("lab4/04_strides.ipynb", NB)
        z.writestr("lab4/.ipynb_checkpoints/04_strides-checkpoint.ipynb", b"old")
        z.writestr("__MACOSX/lab4/._04_strides.ipynb", b"junk")
    src = _zip(tmp_path / "dl.zip", {"leeann_101_9002_lab4.zip": inner.getvalue()})
    r = _collect(src, tmp_path / "c")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "c" / "leeann" / STRIDES).read_bytes() == NB
    ident = _ident(tmp_path / "c" / "leeann")
    assert ident["files"][STRIDES]["from"] == "leeann_101_9002_lab4.zip!lab4/04_strides.ipynb"
    assert [u["from"] for u in ident["not_used"]] == ["leeann_101_9002_lab4.zip"]


def test_a_notebook_keeps_the_time_the_zip_gives_it(tmp_path):
    """Neither LMS names the submission time: the notebook keeps the zip entry's time, as
    unzip would (what a late policy falls back on), and submitted_at stays null."""
    import os
    import time

    src = tmp_path / "dl.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr(zipfile.ZipInfo("leeann_101_9002_04_strides.ipynb", (2026, 3, 1, 12, 30, 4)), NB)
    assert _collect(src, tmp_path / "c").returncode == 0
    got = os.stat(tmp_path / "c" / "leeann" / STRIDES).st_mtime
    assert got == time.mktime((2026, 3, 1, 12, 30, 4, 0, 0, -1))
    assert _ident(tmp_path / "c" / "leeann")["submitted_at"] is None


def test_a_download_unpacked_into_a_folder_is_read_as_the_zip(tmp_path):
    dl = tmp_path / "unpacked" / "course-lab4 submissions"
    dl.mkdir(parents=True)
    (dl / "leeann_101_9002_04_strides (2).ipynb").write_bytes(NB)
    (dl / ".DS_Store").write_bytes(b"junk")
    r = _collect(tmp_path / "unpacked", tmp_path / "c")  # the wrapper folder is looked through
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "c" / "leeann" / STRIDES).read_bytes() == NB
    # and grade refuses the unpacked download itself, saying what to do
    g = run_cli("grade", dl, "--out", tmp_path / "o", "--release", EXERCISES)
    assert g.returncode == 2 and "run `tensorlab collect" in g.stderr
    assert not (tmp_path / "o").exists()


# ---------------------------------------------------------------------------- moodle variants
def test_moodle_without_folders_and_blind_marking(tmp_path):
    src = _zip(
        tmp_path / "dl.zip",
        {
            "Ann Lee_5501_assignsubmission_file_04_strides.ipynb": NB,
            "Participant_5509_assignsubmission_file_Copy of 04_strides.ipynb": NB,
            "=cmd()_5510_assignsubmission_file_04_strides.ipynb": NB,  # a formula as a name
        },
    )
    r = _collect(src, tmp_path / "c")
    assert r.returncode == 0, r.stderr
    folders = sorted(p.name for p in (tmp_path / "c").iterdir() if p.is_dir())
    assert folders == ["Ann Lee", "_=cmd()", "participant_5509"]
    assert _ident(tmp_path / "c" / "participant_5509")["lms_id"] == "5509"
    roster = _rows(tmp_path / "c" / "roster.csv")
    assert ["_=cmd()", "'=cmd()", "moodle", "5510"] in roster  # neutralised as a cell
    g = run_cli("grade", tmp_path / "c", "--out", tmp_path / "o", "--release", EXERCISES)
    assert "laid out as" not in g.stderr  # a collected class folder is a class folder


def test_grade_refuses_a_moodle_download_folder(tmp_path):
    (tmp_path / "dl" / "Ann Lee_5501_assignsubmission_file").mkdir(parents=True)
    (tmp_path / "dl" / "Ann Lee_5501_assignsubmission_file" / STRIDES).write_bytes(NB)
    g = run_cli("grade", tmp_path / "dl", "--out", tmp_path / "o", "--release", EXERCISES)
    assert g.returncode == 2 and "Moodle download" in g.stderr


# ---------------------------------------------------------------------------- not an LMS's
@pytest.mark.parametrize(
    "files",
    [
        {"ann/04_strides.ipynb": NB, "bob/04_strides.ipynb": NB},  # a class folder, zipped
        {"04_strides.ipynb": NB},
        {},
    ],
    ids=["class-folder", "one-notebook", "empty"],
)
def test_a_layout_no_lms_makes_is_exit_2_and_writes_nothing(tmp_path, files):
    src = _zip(tmp_path / "dl.zip", files)
    r = _collect(src, tmp_path / "c")
    assert r.returncode == 2, r.stdout
    assert r.stderr.startswith("tensorlab collect: error: ") and r.stderr.count("\n") == 1
    assert "not laid out as Canvas or Moodle" in r.stderr or "no submission" in r.stderr
    assert not (tmp_path / "c").exists()


def test_mixed_lms_and_not_a_zip_are_usage_errors(tmp_path):
    mixed = _zip(
        tmp_path / "m.zip",
        {
            "leeann_101_9002_04_strides.ipynb": NB,
            "Ann Lee_5501_assignsubmission_file/04_strides.ipynb": NB,
        },
    )
    r = _collect(mixed, tmp_path / "c")
    assert r.returncode == 2 and "mixes Canvas names" in r.stderr
    (tmp_path / "x.zip").write_bytes(b"not a zip")
    r = _collect(tmp_path / "x.zip", tmp_path / "c")
    assert r.returncode == 2 and "neither a folder nor a zip" in r.stderr
    r = _collect(tmp_path / "x.zip", tmp_path / "c", "--notebook", "99_nothing.ipynb")
    assert r.returncode == 2


def test_hostile_zip_entries_never_write_outside_the_class_folder(tmp_path, monkeypatch):
    src = tmp_path / "dl.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("Ann Lee_5501_assignsubmission_file/../../../../evil.ipynb", b"{}")
        z.writestr("/abs_1_2_04_strides.ipynb", NB)
        link = zipfile.ZipInfo("Bob Ray_5502_assignsubmission_file/04_strides.ipynb")
        link.external_attr = 0o120777 << 16  # a symbolic link
        z.writestr(link, "/etc/passwd")
        z.writestr("Cy Young_5503_assignsubmission_file/04_strides.ipynb", b"x" * 200)
    monkeypatch.setattr(lms, "MAX_FILE_BYTES", 100)
    r = _collect(src, tmp_path / "c", "--notebook", STRIDES)
    assert r.returncode == 0, r.stderr
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [
        "c/Ann Lee/.tensorlab-submission.json",
        "c/Ann Lee/04_strides.ipynb",
        "c/Cy Young/.tensorlab-submission.json",
        "c/roster.csv",
        "dl.zip",
    ]
    assert "symbolic link in the zip is not followed" in r.stderr
    cy = _ident(tmp_path / "c" / "Cy Young")
    assert cy["files"] == {} and "too large" in cy["not_used"][0]["reason"]


# ---------------------------------------------------------------------------- export errors
@pytest.fixture
def collected(tmp_path):
    """A Canvas download collected, and grade files for it written by the real results
    writer (no kernel): leeann 2 points of 04_strides, raybob 05_views only."""
    from tensorlab.grading.grade import Job, Results, Settings
    from tensorlab.grading.release import Release

    src = _zip(
        tmp_path / "dl.zip",
        {"leeann_101_1_04_strides.ipynb": NB, "raybob_102_2_05_views.ipynb": b"{}"},
    )
    assert _collect(src, tmp_path / "c").returncode == 0
    release = Release.load(EXERCISES)
    out = tmp_path / "out"
    recs = []
    for student, nb, passed in (("leeann", STRIDES, 2), ("raybob", VIEWS, 1)):
        qids = release.notebooks[nb].questions
        recs.append(
            {
                "path": str(tmp_path / "c" / student / nb),
                "student": student,
                "notebook": nb,
                "status": "graded",
                "reason": None,
                "score": float(passed),
                "max_score": float(len(qids)),
                "questions": {
                    q: {"status": "passed" if i < passed else "failed", "points": float(i < passed),
                        "max_points": 1.0}
                    for i, q in enumerate(qids)
                },
            }
        )  # fmt: skip
    jobs = [Job(r["path"], r["student"], r["notebook"]) for r in recs]
    results = Results(out, release, Settings(str(EXERCISES), seed=1), jobs, feedback=True)
    for r in recs:
        results.add(r)
    results.finish()
    return tmp_path, out


def _gradebook(path: Path, head_extra, rows_extra=()) -> Path:
    rows = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *head_extra],
        ["Points Possible", "", "", "", "", *["5"] * len(head_extra)],
        ["Lee, Ann", "101", "", "", "", *[""] * len(head_extra)],
        ["Ray, Bob", "102", "", "", "", *[""] * len(head_extra)],
        *rows_extra,
    ]
    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    path.write_text(buf.getvalue())
    return path


def test_a_notebook_without_its_canvas_assignment_is_exit_2_then_column_maps_it(collected):
    base, out = collected
    gb = _gradebook(base / "gb.csv", ["Lab: strides (11)", "05 Views (12)"])
    dest = base / "o.csv"
    args = ("export", out, "--format", "canvas", "--gradebook", gb, "--out", dest)
    r = run_cli(*args)
    assert r.returncode == 2 and "no assignment named like 04_strides" in r.stderr
    assert "Lab: strides (11)" in r.stderr and not dest.exists()
    r = run_cli(*args, "--column", "04_strides.ipynb=11")
    assert r.returncode == 0, r.stderr
    rows = _rows(dest)
    # leeann: 2 of 6 points scaled to the assignment's 5; no views notebook: 0
    assert rows[2][5:] == [f"{round(2 * 5 / 6, 2):g}", "0"]
    assert rows[3][5:] == ["0", f"{round(1 * 5 / 5, 2):g}"]
    # an assignment worth 0 points in Canvas (ungraded, extra credit): the points as they are
    zero = _gradebook(base / "gb0.csv", ["04 strides (11)", "05 Views (12)"])
    zero.write_text(zero.read_text().replace("Points Possible,,,,,5,5", "Points Possible,,,,,0,5"))
    r = run_cli("export", out, "--format", "canvas", "--gradebook", zero, "--out", dest)
    assert r.returncode == 0, r.stderr
    assert [row[5:] for row in _rows(dest)[2:]] == [["2", "0"], ["0", "1"]]


def test_export_errors_are_one_line(collected):
    base, out = collected
    dest = base / "o.csv"
    not_canvas = base / "nc.csv"
    not_canvas.write_text("Name,Score\nAnn,1\n")
    ws = base / "ws.csv"
    ws.write_text("Identifier,Full name,Grade,Last modified (grade)\nParticipant 1,Ann,,\n")
    scale = base / "scale.csv"
    scale.write_text(
        "Identifier,Full name,Grade,Maximum Grade,Last modified (grade)\n"
        "Participant 1,Ann,,Satisfactory,\n"
    )
    cases = [
        ("--format", "canvas", "--gradebook", not_canvas),  # not Canvas's export
        ("--format", "moodle", "--gradebook", ws),  # two notebooks graded: which one?
        ("--format", "canvas", "--feedback-zip", base / "f.zip"),  # Moodle only
        ("--format", "gradescope", "--gradebook", not_canvas),
        ("--format", "moodle", "--gradebook", scale, "--notebook", STRIDES),  # a scale
    ]
    for case in cases:
        r = run_cli("export", out, *case, "--out", dest)
        assert r.returncode == 2, (case, r.stdout, r.stderr)
        assert r.stderr.startswith("tensorlab export: error: ") and r.stderr.count("\n") == 1
        assert not dest.exists()
    # no --roster and no identities beside the notebooks
    for p in (base / "c").rglob(SUBMISSION_FILE):
        p.unlink()
    r = run_cli("export", out, "--format", "canvas", "--out", dest)
    assert r.returncode == 2 and "no --roster" in r.stderr


def test_identities_kept_by_collect_make_the_roster(collected):
    base, out = collected
    dest = base / "o.csv"
    r = run_cli("export", out, "--format", "canvas", "--out", dest)  # no --roster
    assert r.returncode == 0, r.stderr
    rows = _rows(dest)
    assert [row[:2] for row in rows[2:]] == [["leeann", "101"], ["raybob", "102"]]
    assert rows[2][5:] == ["2", "0"] and rows[3][5:] == ["0", "1"]


# ---------------------------------------------------------------------------- any gradebook
_cell = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@given(
    others=st.lists(_cell.filter(lambda t: "strides" not in t.lower()), max_size=4),
    students=st.lists(st.tuples(st.integers(200, 999), _cell, st.booleans()), max_size=6),
    possible=st.sampled_from(["", "6", "12", "3.5", "0", "n/a"]),
)
def test_filling_any_canvas_export_changes_only_the_notebook_column(others, students, possible):
    """Whatever else a Canvas export holds, only the matched assignment's cells change: the
    graded student's (scaled), 0 for everyone else, EX kept; rows and other cells as they were."""
    from tensorlab.grading.export import fill_canvas

    head = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    head += [f"{o} ({i})" for i, o in enumerate(others)] + ["04 Strides (77)"]
    width = len(head)
    rows = [head, ["Points Possible"] + [""] * (width - 2) + [possible]]
    rows.append(["Lee, Ann", "101", "", "", "", *["x"] * len(others), ""])
    for uid, text, excused in students:
        rows.append(
            [text, str(uid), text, "", "", *[text] * len(others), "EX" if excused else text]
        )
    before = [list(r) for r in rows]
    docs = [
        {
            "student": "ann",
            "file": "ann.json",
            "submissions": [{"notebook": STRIDES, "score": 2.0, "max_score": 6.0, "questions": {}}],
        }
    ]
    out, unmatched, _ = fill_canvas(rows, docs, {"ann": {"student": "ann", "canvas_id": "101"}})
    assert unmatched == [] and len(out) == len(before)
    col = width - 1
    for got, was in zip(out, before):
        assert got[:col] == was[:col]
    pp = {"6": 6.0, "12": 12.0, "3.5": 3.5}.get(possible)
    ann = float(out[2][col])
    assert ann == (round(2.0 * pp / 6.0, 2) if pp else 2.0)
    for was, row in zip(before[3:], out[3:]):
        excused = was[col].strip().upper() == "EX"
        assert row[col] == (was[col] if excused else "0")
    assert out[1][col] == possible
