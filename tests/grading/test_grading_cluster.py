"""``tensorlab grade --cluster``: one notebook = one Dask task, same results as a local run,
a worker killed mid-run costs nothing, an unreachable scheduler is a usage error."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from grading_cli import run_cli

from tensorlab.grading.grade import grade, student_file
from tensorlab.grading.sandbox import probe

distributed = pytest.importorskip("distributed")
pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"
STRIDES = "04_strides.ipynb"
FULL = 5  # its points (4.3 is a formative prediction: 0)
SANDBOX = "auto" if probe() is None else "none"


def _answers() -> dict[str, str]:
    nb = json.loads((SOLUTIONS / STRIDES).read_text())
    return {
        c["metadata"]["tensorlab"]["question"]: "".join(c["source"])
        for c in nb["cells"]
        if c.get("metadata", {}).get("tensorlab", {}).get("role") == "answer"
    }


def _write(path: Path, replace: dict[str, str] | None = None) -> None:
    nb = json.loads((EXERCISES / STRIDES).read_text())
    answers = {**_answers(), **(replace or {})}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            cell["source"] = answers[tl["question"]]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1))


def _comparable(out: Path, student: str) -> list[dict]:
    doc = json.loads((out / student_file(student)).read_text())
    subs = doc["submissions"]
    for s in subs:
        s.pop("duration_s", None)
    return subs


@contextlib.contextmanager
def _watching(out: Path):
    """{file name: when it first appeared} in ``out`` while the block runs; every file read
    must be whole (valid JSON or CSV with a header) whenever it is read."""
    first_seen: dict[str, float] = {}
    stop = threading.Event()
    errors: list = []

    def watch():
        while not stop.is_set():
            for path in out.glob("*") if out.is_dir() else ():
                if path.name.startswith(".") or path.is_dir():  # feedback/: written at the end
                    continue
                try:
                    text = path.read_text()
                except FileNotFoundError:
                    continue
                if path.suffix == ".json":
                    try:
                        json.loads(text)
                    except ValueError as e:
                        errors.append((path.name, e))
                elif not text.startswith("student,"):
                    errors.append((path.name, text[:80]))
                first_seen.setdefault(path.name, time.monotonic())
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield first_seen
    finally:
        first_seen["<end>"] = time.monotonic()
        stop.set()
        thread.join()
    assert not errors, errors


@pytest.fixture(scope="module")
def local_cluster():
    """(client, cluster): one LocalCluster of 2 worker processes for this module's tests, made
    as ``--cluster local:2`` makes it (starting one costs seconds: once is enough)."""
    from tensorlab.grading.cluster import connect

    client, cluster = connect("local:2")
    yield client, cluster
    client.close()
    cluster.close()


def test_a_local_cluster_grades_exactly_like_a_local_run(tmp_path, local_cluster):
    klass = tmp_path / "class"
    _write(klass / "solved" / STRIDES)
    _write(klass / "wrong" / STRIDES, {"strides.transpose": "transposed_layout = 1\n"})
    shutil_blank = klass / "blank" / STRIDES
    shutil_blank.parent.mkdir(parents=True)
    shutil_blank.write_bytes((EXERCISES / STRIDES).read_bytes())
    (klass / "broken").mkdir()
    (klass / "broken" / STRIDES).write_text("{")
    kw = dict(seed=3, progress=False, sandbox=SANDBOX, cell_timeout=20, timeout=120)
    local = grade([str(klass)], tmp_path / "local", EXERCISES, jobs=2, **kw)
    address = local_cluster[1].scheduler_address
    with _watching(tmp_path / "dask") as first_seen:
        dask = grade([str(klass)], tmp_path / "dask", EXERCISES, cluster=address, **kw)
    # the files were written as the records arrived, not all at the end, each one whole
    first = min(first_seen.get(f"{s}.json", math.inf) for s in ("solved", "wrong", "blank"))
    assert first < first_seen["<end>"] - 0.3, first_seen
    assert [r["path"] for r in dask["records"]] == [r["path"] for r in local["records"]]
    for student in ("solved", "wrong", "blank", "broken"):
        assert _comparable(tmp_path / "dask", student) == _comparable(tmp_path / "local", student)
    assert (tmp_path / "dask" / "gradebook.csv").read_text() == (
        tmp_path / "local" / "gradebook.csv"
    ).read_text()
    assert json.loads((tmp_path / "dask" / "solved.json").read_text())["score"] == FULL


def test_a_worker_killed_mid_run_costs_no_notebook(tmp_path, local_cluster):
    """Dask reschedules the killed worker's task: every notebook graded once, none lost."""
    client, cluster = local_cluster
    klass = tmp_path / "class"
    slow = {"strides.transpose": "import time\n\ntime.sleep(3)\n" + _answers()["strides.transpose"]}
    students = [f"s{i}" for i in range(4)]
    for s in students:
        _write(klass / s / STRIDES, slow)
    killed: list[int] = []

    def kill_one_busy_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                time.sleep(1.5)  # well into the notebook
                pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.2)

    killer = threading.Thread(target=kill_one_busy_worker, daemon=True)
    killer.start()
    try:
        summary = grade(
            [str(klass)],
            tmp_path / "out",
            EXERCISES,
            cluster=cluster.scheduler_address,
            seed=1,
            progress=False,
            sandbox=SANDBOX,
            cell_timeout=20,
            timeout=120,
        )
    finally:
        killer.join()
    assert killed, "no worker was killed"
    paths = [r["path"] for r in summary["records"]]
    assert sorted(paths) == sorted(str(klass / s / STRIDES) for s in students)
    for s in students:
        (sub,) = [
            x for x in json.loads((tmp_path / "out" / f"{s}.json").read_text())["submissions"]
        ]
        assert sub["status"] == "graded" and sub["score"] == FULL, sub


def _hang_once(job, manifest, settings):
    """A worker task that hangs (longer than the stall limit) the first time it sees a job."""
    from tensorlab.grading.cluster import task

    marker = Path(job.path + ".stalled")
    if not marker.exists():
        marker.write_text("")
        time.sleep(60)
        return {}  # never read: the run has moved on (and no kernel starts as the cluster closes)
    return task(job, manifest, settings)


def _hang_always(job, manifest, settings):
    time.sleep(1.5)
    return {}


@pytest.mark.parametrize("how", ["once", "always"])
def test_a_task_the_cluster_never_answers_is_submitted_again(
    tmp_path, local_cluster, monkeypatch, how
):
    """Every task is bounded by the notebook's time limit, so a run in which none finishes for
    longer is stalled (seen once in CI: a task whose result never came back): its tasks are
    submitted again, and a notebook that stalls twice is a grader error, not a hang."""
    from tensorlab.grading.cluster import DaskExecutor

    hang = {"once": _hang_once, "always": _hang_always}[how]
    monkeypatch.setattr(DaskExecutor, "task", staticmethod(hang))
    # a healthy notebook grades in 2-5 s here (10 s leaves room for a loaded machine)
    limit = 10.0 if how == "once" else 1.0
    monkeypatch.setattr(DaskExecutor, "stall_limit", lambda self, settings: limit)
    _write(tmp_path / "class" / "solved" / STRIDES)
    t0 = time.monotonic()
    summary = grade(
        [str(tmp_path / "class")],
        tmp_path / "out",
        EXERCISES,
        cluster=local_cluster[1].scheduler_address,
        seed=3,
        progress=False,
        sandbox=SANDBOX,
        cell_timeout=20,
        timeout=120,
    )
    (rec,) = summary["records"]
    if how == "once":
        assert Path(rec["path"] + ".stalled").exists()  # it did hang, and was not waited for
        assert rec["status"] == "graded" and rec["score"] == FULL, rec
        assert "attempts" not in rec  # the second task ran beside the first, not behind it:
        assert time.monotonic() - t0 < 50
    else:  # stalled twice in each of the policy's two attempts: four limits, then recorded
        assert rec["status"] == "grader_error", rec
        assert "no answer from the cluster in 1 s, twice" in rec["reason"], rec
        assert rec["attempts"] == 2 and time.monotonic() - t0 >= 4 * limit


def _cli(*args):
    return run_cli(*args)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "local:0", "nonsense"])
def test_an_unusable_cluster_is_a_usage_error(tmp_path, address):
    (tmp_path / "s").mkdir()
    _write(tmp_path / "s" / "ann" / STRIDES)
    r = _cli(
        "grade",
        str(tmp_path / "s"),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(EXERCISES),
        "--sandbox",
        "none",
        "--cluster",
        address,
        "--quiet",
    )
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert address in r.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(probe() is not None, reason="needs a usable sandbox here")
def test_a_worker_without_the_sandbox_records_it_per_notebook(tmp_path):
    from distributed import Client, LocalCluster

    _write(tmp_path / "s" / "ann" / STRIDES)
    _write(tmp_path / "s" / "bob" / STRIDES)
    cluster = LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        env={"PATH": str(tmp_path / "no-bwrap-here")},
    )
    try:
        with Client(cluster):
            summary = grade(
                [str(tmp_path / "s")],
                tmp_path / "out",
                EXERCISES,
                cluster=cluster.scheduler_address,
                progress=False,
                sandbox="auto",
            )
    finally:
        cluster.close()
    assert len(summary["records"]) == 2
    for rec in summary["records"]:
        assert rec["status"] == "grader_error" and rec["max_score"] == FULL
        assert "sandbox cannot start on worker" in rec["reason"]
