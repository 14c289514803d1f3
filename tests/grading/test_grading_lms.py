"""After grading: the class report, the LMS exports (parsed back against each LMS's import
columns), hostile rosters; and the run's fixes (recorded seed, lock, NFC names, fsync, one
retry policy)."""

from __future__ import annotations

import csv
import io
import json
import os
import unicodedata
from pathlib import Path

import pytest
from grading_cli import run_cli

from tensorlab.grading.assign import load_release
from tensorlab.grading.grade import Job, Results, Settings, collect, student_file

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
STRIDES, VIEWS = "04_strides.ipynb", "05_views.ipynb"


@pytest.fixture(scope="module")
def manifest():
    return load_release(EXERCISES)


def _record(manifest, student, notebook, passed, *, status="graded", mis=None, qstatus=None):
    qids = manifest.notebooks[notebook].questions
    qs = {}
    for i, q in enumerate(qids):
        ok = i < passed
        qs[q] = {
            "status": "passed" if ok else (qstatus or "failed"),
            "points": 1.0 if ok else 0.0,
            "max_points": 1.0,
            "stage": None if ok else "values",
            "message": "" if ok else "values differ",
            "misconception": None if ok or i != passed else mis,
            "misconception_message": None if ok or i != passed or not mis else f"because {mis}",
            "cases_passed": None,
            "cases": None,
        }
    return {
        "path": f"/c/{student}/{notebook}",
        "student": student,
        "notebook": notebook,
        "status": status,
        "reason": "the worker was killed" if status == "grader_error" else None,
        "score": float(passed),
        "max_score": float(len(qids)),
        "questions": qs,
    }


@pytest.fixture
def graded(tmp_path, manifest):
    """A graded class written by the real writer: ann full marks, bob with a misconception,
    cy with a lost notebook and a killed question, zoë (a unicode name)."""
    out = tmp_path / "out"
    n = len(manifest.notebooks[STRIDES].questions)
    recs = [
        _record(manifest, "ann", STRIDES, n),
        _record(manifest, "ann", VIEWS, 2),
        _record(manifest, "bob", STRIDES, 1, mis="swapped"),
        _record(manifest, "cy", STRIDES, 0, status="grader_error"),
        _record(manifest, "cy", VIEWS, 0, qstatus="kernel_died"),
        _record(manifest, "zoë", STRIDES, 1, mis="swapped"),
    ]
    jobs = [Job(r["path"], r["student"], r["notebook"]) for r in recs]
    results = Results(out, manifest, Settings(str(EXERCISES), seed=5), jobs, feedback=True)
    for r in recs:
        results.add(r)
    results.finish()
    return out


ROSTER = (
    "student,name,email,canvas_id,sis_user_id,sis_login_id,section,id_number,sid\n"
    "ann,Ann Lee,ann@uni.edu,101,S101,alee,A,N101,9101\n"
    "bob,Bob Ray,bob@uni.edu,102,S102,bray,B,N102,9102\n"
    "cy,Cy Young,cy@uni.edu,103,S103,cyoung,A,N103,9103\n"
    "zoe\u0308,Zoë Roe,zoe@uni.edu,104,S104,zroe,B,N104,9104\n"  # NFD, as a zip would spell it
)


def _roster(tmp_path, text=ROSTER) -> Path:
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def _parse(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def _totals(out: Path) -> dict[str, dict[str, float]]:
    found = {}
    for p in out.glob("*.json"):
        doc = json.loads(p.read_text())
        found[doc["student"]] = {
            s["notebook"]: s["score"] for s in doc["submissions"] if s.get("notebook")
        }
        found[doc["student"]]["total"] = doc["score"]
    return found


# ---------------------------------------------------------------------------- report
def test_report_counts_the_class(graded):
    r = run_cli("report", graded)
    assert r.returncode == 0, r.stderr
    page = (graded / "report.html").read_text()
    assert page.count("data:image/png;base64,") == 2
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "prefers-color-scheme: dark" in page
    assert "2× <code>swapped</code>" in page  # bob and zoë, counted
    assert "lost: the worker was killed" in page and "kernel died" in page
    assert "4 students" in r.stdout and "swapped (2 students)" in r.stdout
    # the views questions ann did not get: only she submitted views, nobody solved those
    views = load_release(EXERCISES).notebooks[VIEWS].questions
    assert f"nobody solved: {', '.join(sorted(views[2:]))}" in r.stdout
    for qid in views[2:]:
        assert f"<li><code>{qid}</code></li>" in page


def test_report_of_an_empty_folder_is_an_error(tmp_path):
    r = run_cli("report", tmp_path)
    assert r.returncode == 1 and "no grade files" in r.stderr
    assert not (tmp_path / "report.html").exists()


def test_feedback_pages_are_written_per_student(graded):
    files = sorted(p.name for p in (graded / "feedback").iterdir())
    assert files == sorted(student_file(s)[:-5] + ".html" for s in ("ann", "bob", "cy", "zoë"))
    bob = (graded / "feedback" / "bob.html").read_text()
    assert "because swapped" in bob and "values differ" in bob  # built-in: messages shown
    cy = (graded / "feedback" / "cy.html").read_text()
    assert "could not be graded" in cy


# ---------------------------------------------------------------------------- export
def test_canvas_export_matches_the_gradebook_import_columns(graded, tmp_path):
    dest = tmp_path / "canvas.csv"
    r = run_cli(
        "export", graded, "--format", "canvas", "--roster", _roster(tmp_path), "--out", dest
    )
    assert r.returncode == 0, r.stderr
    rows = _parse(dest)
    head = rows[0]
    assert head[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    points = {nb: len(load_release(EXERCISES).notebooks[nb].questions) for nb in (STRIDES, VIEWS)}
    # a new assignment is named by the notebook; its points are the Points Possible row (a
    # "(6 points)" in the name would become part of the new assignment's name in Canvas)
    assert head[5:] == ["04_strides", "05_views"]
    assert rows[1][5:] == [str(points[STRIDES]), str(points[VIEWS])]
    assert rows[1][0] == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    totals = _totals(graded)
    by_id = {row[1]: row for row in rows[2:]}
    assert set(by_id) == {"101", "102", "103", "104"}
    assert by_id["101"][:5] == ["Ann Lee", "101", "S101", "alee", "A"]
    assert float(by_id["101"][5]) == totals["ann"][STRIDES]
    assert float(by_id["101"][6]) == totals["ann"][VIEWS]
    assert by_id["102"][6] == "0"  # bob submitted no views notebook: 0, as in the gradebook
    assert float(by_id["104"][5]) == totals["zoë"][STRIDES]  # matched across NFD/NFC


def test_moodle_export_identifies_by_email_and_id_number(graded, tmp_path):
    dest = tmp_path / "moodle.csv"
    r = run_cli(
        "export", graded, "--format", "moodle", "--roster", _roster(tmp_path), "--out", dest
    )
    assert r.returncode == 0, r.stderr
    rows = _parse(dest)
    assert rows[0] == ["Email address", "ID number", "04_strides", "05_views"]
    by_email = {row[0]: row for row in rows[1:]}
    assert by_email["cy@uni.edu"][1] == "N103" and float(by_email["cy@uni.edu"][2]) == 0


def test_gradescope_export_is_a_score_upload(graded, tmp_path):
    dest = tmp_path / "gs.csv"
    r = run_cli(
        "export", graded, "--format", "gradescope", "--roster", _roster(tmp_path), "--out", dest
    )
    assert r.returncode == 0, r.stderr
    rows = _parse(dest)
    assert rows[0] == ["Name", "SID", "Email", "Score"]
    totals = _totals(graded)
    got = {row[2]: float(row[3]) for row in rows[1:]}
    assert got == {
        "ann@uni.edu": totals["ann"]["total"],
        "bob@uni.edu": totals["bob"]["total"],
        "cy@uni.edu": totals["cy"]["total"],
        "zoe@uni.edu": totals["zoë"]["total"],
    }


def test_unmatched_students_fail_unless_allowed(graded, tmp_path):
    roster = _roster(tmp_path, "\n".join(ROSTER.splitlines()[:3]) + "\n")  # no cy, no zoë
    dest = tmp_path / "gs.csv"
    args = ("export", graded, "--format", "gradescope", "--roster", roster, "--out", dest)
    r = run_cli(*args)
    assert r.returncode == 1 and "cy, zoë" in r.stderr and not dest.exists()
    r = run_cli(*args, "--allow-unmatched")
    assert r.returncode == 0 and "not in the roster, not exported: cy" in r.stderr
    assert [row[2] for row in _parse(dest)[1:]] == ["ann@uni.edu", "bob@uni.edu"]


HOSTILE = {
    "missing": None,
    "empty": "",
    "no student column": "name,email\nAnn,ann@uni.edu\n",
    "no identity": "student,name\nann,Ann\n",
    "twice": "student,email\nann,a@x\nann,b@x\n",
    "empty identity": "student,email\nann,\n",
    "ragged": "student,email\nann,a@x,extra\n",
    "binary": b"\xff\xfe\x00student",
    "quote": 'student,email\n"ann,a@x\n',
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_bad_roster_is_one_line_exit_2_and_nothing_written(graded, tmp_path, case):
    path = tmp_path / "roster.csv"
    text = HOSTILE[case]
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text)
    dest = tmp_path / "out.csv"
    r = run_cli("export", graded, "--format", "gradescope", "--roster", path, "--out", dest)
    assert r.returncode == 2, (case, r.stdout, r.stderr)
    assert r.stderr.startswith("tensorlab export: error: ") and r.stderr.count("\n") == 1
    assert not dest.exists()


# ---------------------------------------------------------------------------- fixes
def test_nfd_and_nfc_folder_names_are_one_student(tmp_path, manifest):
    klass = tmp_path / "class"
    nfd = unicodedata.normalize("NFD", "zoë")
    (klass / nfd).mkdir(parents=True)
    (klass / nfd / STRIDES).write_text("{}")
    (jobs,) = collect([str(klass)], manifest)
    assert jobs.student == "zoë" and unicodedata.is_normalized("NFC", jobs.student)


def test_atomic_writes_fsync_the_file_and_its_folder(tmp_path, monkeypatch):
    from tensorlab.grading import assign as assign_module

    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        return real(fd)

    monkeypatch.setattr(assign_module.os, "fsync", spy)
    assign_module.write_atomic(tmp_path / "a.json", b"{}")
    assert synced[0].startswith(str(tmp_path / ".a.json.tmp-"))  # the file, before the rename
    assert synced[-1] == str(tmp_path)  # then its folder
    assert (tmp_path / "a.json").read_bytes() == b"{}"


def test_a_second_grade_into_the_same_folder_exits_1(tmp_path):
    from tensorlab.grading.results import Lock

    out = tmp_path / "out"
    out.mkdir()
    holder = Lock(out)
    holder.acquire()
    try:
        (tmp_path / "s").mkdir()
        r = run_cli("grade", tmp_path / "s", "--out", out, "--sandbox", "none")
        assert r.returncode == 1 and "another `tensorlab grade` is writing into" in r.stderr
        assert list(out.iterdir()) == [out / ".tensorlab-grade.lock"]
    finally:
        holder.release()
    assert list(out.iterdir()) == []


def test_a_regrade_reuses_the_recorded_seed(tmp_path):
    from tensorlab.grading.grade import grade

    klass, out = tmp_path / "class", tmp_path / "out"
    (klass / "ann").mkdir(parents=True)
    (klass / "ann" / STRIDES).write_text("broken")  # recorded without a kernel
    first = grade([str(klass)], out, EXERCISES, progress=False, sandbox="none", seed=4242)
    again = grade([str(klass)], out, EXERCISES, progress=False, sandbox="none")
    assert first["seed"] == again["seed"] == 4242
    assert json.loads((out / "ann.json").read_text())["grader"]["seed"] == 4242
    other = grade([str(klass)], out, EXERCISES, progress=False, sandbox="none", seed=7)
    assert other["seed"] == 7  # --seed wins
    fresh = grade([str(klass)], tmp_path / "new", EXERCISES, progress=False, sandbox="none")
    assert isinstance(fresh["seed"], int)


def test_dask_and_the_pool_share_one_retry_policy(manifest):
    """The Dask executor retries a grader error once, as the local pool does."""
    from tensorlab.grading.cluster import DaskExecutor
    from tensorlab.grading.executors import Executor, LocalPool, RetryPolicy

    assert issubclass(DaskExecutor, Executor) and issubclass(LocalPool, Executor)
    assert DaskExecutor.run is Executor.run and LocalPool.run is Executor.run
    assert DaskExecutor.policy is LocalPool.policy

    class Flaky(DaskExecutor):
        def __init__(self):
            self.calls = []

        def session(self, manifest, settings):
            import contextlib

            return contextlib.nullcontext()

        def attempt(self, items, manifest, settings, number, take):
            for i, job in items:
                self.calls.append((number, job.student))
                rec = _record(manifest, job.student, STRIDES, 6)
                if job.student == "bad" or (job.student == "once" and number == 1):
                    rec = {**rec, "status": "grader_error", "reason": "killed", "score": 0.0}
                take(i, rec)

    class Sink:
        def __init__(self):
            self.got = []

        def update(self, rec):
            self.got.append(rec)

    ex, sink = Flaky(), Sink()
    jobs = [Job(f"/{s}", s, STRIDES) for s in ("ok", "once", "bad")]
    recs = ex.run(jobs, manifest, Settings(str(EXERCISES)), sink)
    assert ex.calls == [(1, "ok"), (1, "once"), (1, "bad"), (2, "once"), (2, "bad")]
    assert [r["status"] for r in recs] == ["graded", "graded", "grader_error"]
    assert recs[1]["attempts"] == 2 and recs[2]["attempts"] == 2
    assert recs[2]["reason"] == "graded twice, failed twice: killed"
    assert len(sink.got) == 3 and RetryPolicy().attempts == 2
