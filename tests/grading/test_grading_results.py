"""The grade files: written atomically as students complete, an interrupted run undone.

Records are made by the grader itself (unreadable notebooks) or by hand, and the kernel pool
is replaced where a test needs a run to be interrupted midway; only the last tests, which
interrupt a real ``tensorlab grade`` process, start kernels.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_class import submission

from tensorlab.grading import executors
from tensorlab.grading.assign import load_release
from tensorlab.grading.grade import Job, Results, Settings, grade, student_file

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
STRIDES, VIEWS = "04_strides.ipynb", "05_views.ipynb"


@pytest.fixture(scope="module")
def manifest():
    return load_release(EXERCISES)


def _record(manifest, student: str, notebook: str, points: float) -> dict:
    qids = manifest.notebooks[notebook].questions
    qs = {
        q: {"status": "passed" if i < points else "failed", "points": float(i < points),
            "max_points": 1.0, "stage": None, "message": "", "misconception": None,
            "misconception_message": None, "cases_passed": None, "cases": None}
        for i, q in enumerate(qids)
    }  # fmt: skip
    return {
        "path": f"/class/{student}/{notebook}",
        "student": student,
        "notebook": notebook,
        "status": "graded",
        "reason": None,
        "score": float(sum(q["points"] for q in qs.values())),
        "max_score": float(len(qids)),
        "questions": qs,
    }


def _job(student: str, notebook: str) -> Job:
    return Job(f"/class/{student}/{notebook}", student, notebook, b"{}")


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() if p.is_file() else None for p in sorted(out.iterdir())}


def _tree(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` (feedback pages too), by relative path."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def _rows(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}


def _settings() -> Settings:
    return Settings(str(EXERCISES), seed=1)


def test_a_student_is_written_when_complete_and_the_gradebook_follows(tmp_path, manifest):
    out = tmp_path / "out"
    jobs = [_job("ann", STRIDES), _job("ann", VIEWS), _job("bob", STRIDES)]
    results = Results(out, manifest, _settings(), jobs, min_interval=0)
    results.add(_record(manifest, "ann", STRIDES, 6))
    assert not out.exists(), "a half-graded student is never written"
    results.add(_record(manifest, "bob", STRIDES, 2))
    assert sorted(p.name for p in out.iterdir()) == ["bob.json", "gradebook.csv"]
    assert set(_rows(out)) == {"bob"}
    results.add(_record(manifest, "ann", VIEWS, 1))
    ann = json.loads((out / "ann.json").read_text())
    assert ann["score"] == 7 and {s["notebook"] for s in ann["submissions"]} == {STRIDES, VIEWS}
    assert _rows(out)["ann"]["score"] == "7"
    # the columns are the whole run's from the start: bob's views questions are blank, not absent
    bob = json.loads((out / "bob.json").read_text())
    assert {s["notebook"]: s["status"] for s in bob["submissions"]} == {
        STRIDES: "graded",
        VIEWS: "missing",
    }
    before = _files(out)
    docs = results.finish()
    assert [d["student"] for d in docs] == ["ann", "bob"]
    assert _files(out) == before, "the final pass writes what the run already wrote"
    assert not [p for p in out.iterdir() if p.name.startswith(".")]


def test_the_gradebook_is_rewritten_at_most_once_a_second_and_at_the_end(tmp_path, manifest):
    out = tmp_path / "out"
    jobs = [_job(s, STRIDES) for s in ("ann", "bob", "cy")]
    results = Results(out, manifest, _settings(), jobs)  # min_interval 1 s
    for s in ("ann", "bob", "cy"):
        results.add(_record(manifest, s, STRIDES, 3))
    assert {p.name for p in out.iterdir()} == {"ann.json", "bob.json", "cy.json", "gradebook.csv"}
    assert set(_rows(out)) == {"ann"}  # the first student's, then not again within the second
    results.finish()
    assert set(_rows(out)) == {"ann", "bob", "cy"}


def _earlier_run(out: Path, manifest) -> dict[str, bytes]:
    jobs = [_job("ann", STRIDES), _job("carl", STRIDES)]
    results = Results(out, manifest, _settings(), jobs)
    results.add(_record(manifest, "ann", STRIDES, 1))
    results.add(_record(manifest, "carl", STRIDES, 5))
    results.finish()
    return _files(out)


def test_abort_puts_back_what_was_replaced_and_removes_what_was_added(tmp_path, manifest):
    out = tmp_path / "out"
    before = _earlier_run(out, manifest)
    jobs = [_job("ann", STRIDES), _job("dan", STRIDES), _job("eve", STRIDES)]
    results = Results(out, manifest, _settings(), jobs, min_interval=0)
    results.add(_record(manifest, "ann", STRIDES, 6))
    results.add(_record(manifest, "dan", STRIDES, 4))
    # while the run goes on, the earlier rows are kept next to the completed students
    assert set(_rows(out)) == {"ann", "carl", "dan"} and _rows(out)["ann"]["score"] == "6"
    assert any(p.name.startswith(".tensorlab-undo-") for p in out.iterdir())
    results.abort()
    assert _files(out) == before


def test_abort_removes_the_folder_the_run_created(tmp_path, manifest):
    out = tmp_path / "new" / "out"
    results = Results(out, manifest, _settings(), [_job("ann", STRIDES), _job("bob", STRIDES)])
    results.add(_record(manifest, "ann", STRIDES, 6))
    assert (out / "ann.json").is_file()
    results.abort()
    assert not out.exists()


def _class(tmp_path: Path) -> Path:
    """Three students: two with notebooks that need no kernel (unreadable), one that does."""
    klass = tmp_path / "class"
    for s in ("ann", "bob"):
        (klass / s).mkdir(parents=True)
        (klass / s / STRIDES).write_text("not a notebook")
    (klass / "zed").mkdir()
    (klass / "zed" / STRIDES).write_bytes((EXERCISES / STRIDES).read_bytes())
    return klass


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_an_interrupted_grade_leaves_the_earlier_files_as_they_were(
    tmp_path, manifest, monkeypatch, interrupt
):
    """grade() itself: the students done before the interruption were written (atomically, as
    they completed), and the interruption undoes them."""
    out = tmp_path / "out"
    before = _earlier_run(out, manifest)
    seen = {}

    def interrupted_pool(self, jobs, manifest, settings, sink):
        seen.update(_files(out))  # what was on disk when the kernels would have started
        raise interrupt()

    monkeypatch.setattr(executors.LocalPool, "run", interrupted_pool)
    with pytest.raises(interrupt):
        grade([str(_class(tmp_path))], out, EXERCISES, progress=False, sandbox="none", seed=1)
    assert {"ann.json", "bob.json", "gradebook.csv"} <= set(seen)
    assert json.loads(seen["bob.json"])["submissions"][0]["status"] == "error"
    assert _files(out) == before


def test_records_from_a_cluster_are_written_as_they_arrive(tmp_path, manifest, monkeypatch):
    """--cluster hands each record to the same writer as it arrives (Dask faked here; the
    real LocalCluster run is in test_grading_cluster.py)."""
    from tensorlab.grading import cluster

    out = tmp_path / "out"
    on_disk = []

    def fake_run(self, jobs, manifest_, settings, sink):
        assert self.address == "local:1"
        records = []
        for job in jobs:
            rec = _record(manifest, job.student, job.notebook, 6)
            sink.update(rec)
            on_disk.append(json.loads((out / student_file(job.student)).read_text())["score"])
            records.append(rec)
        return records

    monkeypatch.setattr(cluster.DaskExecutor, "run", fake_run)
    summary = grade(
        [str(_class(tmp_path))], out, EXERCISES, progress=False, sandbox="none", cluster="local:1"
    )
    assert on_disk == [6.0] and summary["students"] == 3
    assert _rows(out)["zed"]["score"] == "6"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_leaves_no_partial_gradebook(tmp_path, sig, code):
    """Interrupted mid-run (Ctrl-C, or SIGTERM from a batch scheduler): exit 130 (143), and the
    run is undone: the student it had already written is removed, an earlier run's files are
    back as they were (the rule: an interrupted run leaves --out exactly as it found it)."""
    klass, out = tmp_path / "class", tmp_path / "out"
    (klass / "aaa").mkdir(parents=True)
    (klass / "aaa" / STRIDES).write_text("broken")  # recorded (and written) before any kernel
    grade([str(klass)], out, EXERCISES, progress=False, sandbox="none", seed=1)
    (klass / "aaa" / STRIDES).write_text("still broken")
    earlier = _tree(out)
    assert "feedback/aaa.html" in earlier
    for student in ("ann", "bob"):
        (klass / student).mkdir(parents=True)
        slow = {"strides.transpose": "import time\n\ntime.sleep(120)\n"}
        (klass / student / STRIDES).write_text(json.dumps(submission(STRIDES, slow)))
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), full.get("PYTHONPATH", "")])
    cmd = [sys.executable, "-m", "tensorlab.cli", "grade", str(klass), "--out",
           str(out), "--release", str(EXERCISES), "--sandbox", "none",
           "--cell-timeout", "200", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env=full)
    deadline = time.monotonic() + 60
    while json.loads((out / "aaa.json").read_text())["submissions"][0]["sha256"] == (
        hashlib.sha256(b"broken").hexdigest()
    ):  # the run has rewritten aaa.json: it is under way
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.2)
    time.sleep(4)  # the kernels are starting or running
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "no grades were written" in err
    assert _tree(out) == earlier
