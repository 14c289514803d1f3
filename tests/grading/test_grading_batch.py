"""Batch grading end to end: real sandboxed answer processes, the released exercises, the CLI.

One grading run (module fixture, 2 workers) grades the solutions and the blank exercises; the
tests then read the grade files. Hostile and broken submissions are graded in
test_grading_attacks.py (a second file, so the two runs share the test workers).
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from grading_class import EXERCISES, NOTEBOOKS, SOLUTIONS, STRIDES, grade_class, student_doc
from grading_cli import run_cli

import tensorlab
from tensorlab.grading.assign import load_release

pytest.importorskip("nbclient")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade the solutions and the blank exercises once; (out_dir, summary, submissions)."""
    base = tmp_path_factory.mktemp("grading")
    subs = base / "submissions"
    paths = []
    for nb in NOTEBOOKS:
        for student, src in (("solution", SOLUTIONS), ("blank", EXERCISES)):
            p = subs / student / nb
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes((src / nb).read_bytes())
            paths.append(p)
    return grade_class(subs, paths, base / "out")


def test_solutions_score_full_marks(graded):
    out, summary, _ = graded
    assert not summary["grader_errors"]
    doc = student_doc(out, "solution")
    release = load_release(EXERCISES)
    n = sum(q.points for q in release.questions.values())  # predict questions are worth 0
    assert doc["score"] == doc["max_score"] == n >= 30 and len(release.questions) >= 30
    for sub in doc["submissions"]:
        assert sub["status"] == "graded" and sub["restarts"] == 0
        assert all(q["status"] == "passed" for q in sub["questions"].values()), sub["questions"]


def test_exercises_score_zero_and_only_not_attempted(graded):
    out, _, _ = graded
    doc = student_doc(out, "blank")
    release = load_release(EXERCISES)
    assert doc["score"] == 0 and doc["max_score"] == sum(
        q.points for q in release.questions.values()
    )
    for sub in doc["submissions"]:
        assert sub["restarts"] == 0
        statuses = {qid: q["status"] for qid, q in sub["questions"].items()}
        assert set(statuses.values()) == {"not_attempted"}, statuses


def test_grade_files_and_gradebook(graded):
    out, summary, before = graded
    doc = student_doc(out, "solution")
    assert doc["tensorlab_version"] == tensorlab.__version__
    assert doc["grader"]["seed"] == 1234
    for sub in doc["submissions"]:
        path = Path(sub["path"])
        assert sub["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    rows = list(csv.DictReader((out / "gradebook.csv").open()))
    by_student = {r["student"]: r for r in rows}
    assert set(by_student) == {"solution", "blank"}
    assert float(by_student["solution"]["score"]) == float(by_student["solution"]["max_score"])
    assert by_student["solution"]["views.flatten_hw"] == "1"
    assert by_student["blank"]["conv.convo2d"] == "0"
    assert not any(p.name.startswith(".") for p in out.iterdir()), "temporary files left"


def test_submissions_are_never_modified(graded):
    _, _, before = graded
    for p, (digest, mtime) in before.items():
        assert hashlib.sha256(p.read_bytes()).hexdigest() == digest
        assert p.stat().st_mtime_ns == mtime


# ---------------------------------------------------------------------------- the command line
def _cli(*args):
    return run_cli(*args)


def test_cli_grade_broken_batch_exits_zero(tmp_path):
    """Broken submissions never make the grader fail (no kernel needed for these)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / STRIDES).write_text("not json at all")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "mystery.ipynb").write_text('{"cells": [], "metadata": {}}')
    r = _cli(
        "grade",
        str(tmp_path / "a"),
        str(tmp_path / "m" / "mystery.ipynb"),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(EXERCISES),
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out" / "m.json").read_text())
    assert doc["submissions"][0]["status"] == "error"
    assert "which exercise" in doc["submissions"][0]["reason"]
    assert (tmp_path / "out" / "gradebook.csv").is_file()


def test_cli_grade_fails_without_release(tmp_path):
    r = _cli(
        "grade",
        str(tmp_path),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(tmp_path / "nothing"),
    )
    assert r.returncode == 1
    assert "release.json" in r.stderr


def test_cli_grade_refuses_a_tampered_release(tmp_path):
    release = tmp_path / "release"
    shutil.copytree(EXERCISES, release)
    nb = release / STRIDES
    nb.write_text(nb.read_text().replace("YOUR CODE HERE", "your code here"))
    r = _cli("grade", str(tmp_path), "--out", str(tmp_path / "out"), "--release", str(release))
    assert r.returncode == 1
    assert "does not match release.json" in r.stderr


def test_cli_usage_errors():
    assert _cli("grade", "x").returncode == 2  # --out is required
    assert _cli("grade", "x", "--out", "y", "--memory", "lots").returncode == 2
    # `tensorlab start` is tested in tests/test_start.py


def test_a_warm_answer_process_is_started_only_for_a_job_that_may_come(monkeypatch):
    """In a grading worker, the next submission's answer process starts while this one is
    graded, unless no job may follow (the pool's last ones): none is started for nothing."""
    from tensorlab.grading import run
    from tensorlab.grading.collect import Job
    from tensorlab.grading.release import Release

    monkeypatch.setitem(run._spare, "enabled", True)
    release = Release.load(EXERCISES, full=True)
    settings = run.Settings(str(EXERCISES), cell_timeout=30, timeout=120)
    data = (SOLUTIONS / STRIDES).read_bytes()
    job = Job(str(SOLUTIONS / STRIDES), "s", STRIDES, data)
    full = sum(q.points for q in release.infos(STRIDES).values())
    try:
        assert run.grade_notebook(job, release, settings, more=False)["score"] == full
        assert "entry" not in run._spare
        assert run.grade_notebook(job, release, settings, more=True)["score"] == full
        warm = run._spare["entry"][2]
        assert warm.poll() is None  # started, waiting for its request
        assert run.grade_notebook(job, release, settings, more=False)["score"] == full
        assert "entry" not in run._spare and warm.poll() is not None  # it was the one used
    finally:
        run._close_spare()
