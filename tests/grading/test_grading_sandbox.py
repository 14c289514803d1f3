"""Grades an instructor can trust: hostile submissions against the sandboxed grader.

Each hostile student answers every question of ``04_strides`` correctly except the one their
attack is in, and writes the attack as a student would: with the paths they can guess (the
installed package's neighbours) and, worst case, the real paths of the class folder, the
output folder and the release, and the grader's pid (as if they had read the grader's command
line). One grading run (module fixture, 2 workers, in bubblewrap) grades them next to honest
students; the tests read the grade files and the disk afterwards. Attacks that need no kernel
(names, links, FIFOs, nesting, re-grading a subset) run ``collect``/``grade`` directly.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from grading_cli import run_cli

import tensorlab
from tensorlab.grading.grade import UNASSIGNED, collect, grade, student_file
from tensorlab.grading.sandbox import probe

pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
EXERCISES, SOLUTIONS = ROOT / "exercises", ROOT / "solutions"
STRIDES = "04_strides.ipynb"
FULL = 5  # points of 04_strides (4.3 is a formative prediction: 0)

needs_bwrap = pytest.mark.skipif(
    probe() is not None and not os.environ.get("CI"), reason=f"no usable sandbox: {probe()}"
)


def _answers() -> dict[str, str]:
    nb = json.loads((SOLUTIONS / STRIDES).read_text())
    out = {}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            out[tl["question"]] = "".join(cell["source"])
    return out


def _notebook(replace: dict[str, str] | None = None) -> str:
    nb = json.loads((EXERCISES / STRIDES).read_text())
    answers = {**_answers(), **(replace or {})}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            cell["source"] = answers[tl["question"]]
    return json.dumps(nb, indent=1)


def _release_copy(base: Path) -> Path:
    release = base / "release"
    shutil.copytree(EXERCISES, release)
    return release


def _attacks(klass: Path, out: Path, release: Path, port: int) -> dict[str, dict[str, str]]:
    """student -> {question id: hostile answer cell}."""
    T = _answers()["strides.transpose"]
    victim = klass / "victim" / STRIDES
    late_victim = klass / "zz_late_victim" / STRIDES
    grader = os.getpid()
    daemon = "import time\ntime.sleep(4)\n" + "".join(
        f"open({str(p)!r}, 'w').write('hacked')\n"
        for p in (out / "gradebook.csv", out / "victim.json", klass.parent / "daemon-was-here")
    )
    steal = (
        "import json\n\n\n"
        "def steal(path):\n"
        "    nb = json.load(open(path))\n"
        "    for c in nb['cells']:\n"
        "        if c.get('metadata', {}).get('tensorlab', {}).get('question') == "
        "'strides.transpose' and 'transposed_layout' in ''.join(c['source']):\n"
        "            exec(''.join(c['source']), globals())\n\n\n"
    )
    return {
        # 1. the reference answer from solutions/ next to the installed package
        "reads_solutions": {
            "strides.transpose": steal
            + "import tensorlab\nfrom pathlib import Path\n\n"
            + "root = Path(tensorlab.__file__).resolve().parent.parent\n"
            + f"for p in (root / 'solutions' / {STRIDES!r}, Path({str(SOLUTIONS / STRIDES)!r})):\n"
            + "    steal(p)\n"
        },
        # 2. the judge's references through the package the kernel imports
        "reads_registry": {
            "strides.transpose": "from tensorlab.grading.registry import get\n\n"
            "transposed_layout = get('strides.transpose').reference()\n"
        },
        # 2b. a classmate's submission from the class folder
        "copies_classmate": {"strides.transpose": steal + f"steal({str(victim)!r})\n"},
        # 3. a process in a new session that outlives the kernel and rewrites the grades
        "daemon": {
            "strides.transpose": "import subprocess\nimport sys\n\n"
            f"code = {daemon!r}\n"
            "subprocess.Popen([sys.executable, '-c', code], start_new_session=True)\n" + T
        },
        # 4. a forged template and its sha256 in release.json
        "forges_release": {
            "strides.transpose": "import hashlib\nimport json\n\n"
            f"nb_path = {str(release / STRIDES)!r}\n"
            f"manifest_path = {str(release / 'release.json')!r}\n"
            'forged = b\'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\'\n'
            "try:\n"
            "    open(nb_path, 'wb').write(forged)\n"
            "    m = json.load(open(manifest_path))\n"
            f"    m['notebooks'][{STRIDES!r}]['sha256'] = hashlib.sha256(forged).hexdigest()\n"
            "    json.dump(m, open(manifest_path, 'w'))\n"
            "except OSError:\n"
            "    pass\n" + T
        },
        # 5. a classmate's not-yet-read notebook overwritten with the blank exercise
        "overwrites_classmate": {
            "strides.transpose": "try:\n"
            f"    open({str(late_victim)!r}, 'w').write('{{}}')\n"
            "except OSError:\n"
            "    pass\n" + T
        },
        # 6. SIGKILL to every other grading kernel (and the grader, if it can see it)
        "killer": {
            "strides.transpose": "import os\nimport signal\n\n"
            "for name in os.listdir('/proc'):\n"
            "    if name.isdigit() and int(name) not in (os.getpid(), 1):\n"
            "        try:\n"
            "            os.kill(int(name), signal.SIGKILL)\n"
            "        except OSError:\n"
            "            pass\n"
            f"for pid in ({grader}, os.getppid()):\n"
            "    try:\n"
            "        os.kill(pid, signal.SIGKILL)\n"
            "    except OSError:\n"
            "        pass\n" + T
        },
        # a fork bomb
        "fork_bomb": {
            "strides.permute": "import os\n\nwhile True:\n    try:\n        os.fork()\n"
            "    except OSError:\n        pass\n"
        },
        # a connection to a port the grader's machine listens on
        "network": {
            "strides.transpose": "import socket\n\n"
            "for host in ('127.0.0.1', '1.1.1.1'):\n"
            "    try:\n"
            f"        socket.create_connection((host, {port}), timeout=2).sendall(b'hi')\n"
            "    except OSError:\n"
            "        pass\n" + T
        },
        # writing outside the scratch folder: the package, numpy, the output folder
        "writer": {
            "strides.transpose": "import os\n\nimport numpy\nimport tensorlab\n\n"
            "targets = [\n"
            "    os.path.join(os.path.dirname(tensorlab.__file__), 'pwned.py'),\n"
            "    os.path.join(os.path.dirname(numpy.__file__), 'pwned.py'),\n"
            f"    {str(out / 'pwned.json')!r},\n"
            f"    {str(klass / 'pwned.ipynb')!r},\n"
            "]\n"
            "for t in targets:\n"
            "    try:\n"
            "        open(t, 'w').write('pwned')\n"
            "    except OSError:\n"
            "        pass\n"
            "open(os.path.expanduser('~/mine.txt'), 'w').write('scratch is fine')\n" + T
        },
        # reading the grader's command line (seed, paths) from /proc
        "proc_reader": {
            "strides.transpose": "try:\n"
            f"    stolen = open('/proc/{grader}/cmdline', 'rb').read()\n"
            "except OSError:\n"
            "    stolen = None\n"
            "transposed_layout = ((2, 3, 4), (1, 4, 12), 0) if stolen else 'no /proc'\n"
        },
    }


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """(out, summary, class folder, release, release digests, connections seen, processes left
    over that a daemon started)."""
    if probe() is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must grade in the sandbox: {probe()}")
        pytest.skip(f"no usable sandbox: {probe()}")
    base = tmp_path_factory.mktemp("hostile")
    klass, out = base / "class", base / "out"
    release = _release_copy(base)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    listener.settimeout(0.2)
    seen: list = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                seen.append(listener.accept())
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    port = listener.getsockname()[1]
    for student in ("victim", "zz_late_victim", "honest"):
        (klass / student).mkdir(parents=True)
        (klass / student / STRIDES).write_text(_notebook())
    for student, replace in _attacks(klass, out, release, port).items():
        (klass / student).mkdir(parents=True)
        (klass / student / STRIDES).write_text(_notebook(replace))
    digests = {p.name: hashlib.sha256(p.read_bytes()).digest() for p in release.iterdir()}
    summary = grade(
        [str(klass)],
        out,
        release,
        jobs=2,
        cell_timeout=5,
        timeout=120,
        memory=2 * 2**30,
        seed=7,
        progress=False,
        sandbox="auto",
    )
    survivors = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    survivors = [line for line in survivors.splitlines() if "daemon-was-here" in line]
    time.sleep(6)  # give a surviving daemon the time to strike
    stop.set()
    thread.join()
    listener.close()
    return out, summary, klass, release, digests, seen, survivors


def _sub(out: Path, student: str) -> dict:
    doc = json.loads((out / student_file(student)).read_text())
    (sub,) = [s for s in doc["submissions"] if s["notebook"] == STRIDES]
    return sub


def _transpose(out: Path, student: str) -> dict:
    return _sub(out, student)["questions"]["strides.transpose"]


def test_every_kernel_was_sandboxed_and_nothing_was_lost(hostile):
    out, summary, *_ = hostile
    assert summary["sandbox"] == "bwrap"
    assert not summary["grader_errors"], summary["grader_errors"]
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert len(rows) == 3 + len(_attacks(Path("k"), Path("o"), Path("r"), 1))
    for student in ("victim", "zz_late_victim", "honest"):
        assert rows[student]["score"] == str(FULL), (student, _sub(out, student))


@pytest.mark.parametrize("student", ["reads_solutions", "reads_registry", "copies_classmate"])
def test_references_solutions_and_classmates_are_out_of_reach(hostile, student):
    """Attacks 1 and 2: the answer cell cannot read solutions/, the question banks or the class."""
    q = _transpose(hostile[0], student)
    assert q["status"] == "error" and q["points"] == 0, q
    expected = "ModuleNotFoundError" if student == "reads_registry" else "FileNotFoundError"
    assert expected in q["message"]


def test_a_daemon_dies_with_its_kernel_and_never_sees_the_grades(hostile):
    """Attack 3: the process started in a new session ends with the sandbox's PID namespace."""
    out, _, klass, *_, survivors = hostile
    assert survivors == []
    assert (out / "gradebook.csv").read_text().startswith("student,")
    assert json.loads((out / "victim.json").read_text())["student"] == "victim"
    assert not (klass.parent / "daemon-was-here").exists()
    assert _transpose(out, "daemon")["status"] == "passed"


def test_the_release_cannot_be_forged(hostile):
    """Attack 4: the release folder is not visible; the next run still uses the real one."""
    out, _, _, release, digests, *_ = hostile
    assert {p.name: hashlib.sha256(p.read_bytes()).digest() for p in release.iterdir()} == digests
    assert _transpose(out, "forges_release")["status"] == "passed"


def test_a_classmates_notebook_cannot_be_overwritten(hostile):
    """Attack 5: submissions are read before any kernel starts, and the class is not visible."""
    out, _, klass, *_ = hostile
    assert (klass / "zz_late_victim" / STRIDES).read_text() == _notebook()
    assert _sub(out, "zz_late_victim")["score"] == FULL


def test_killing_other_kernels_hurts_nobody(hostile):
    """Attack 6: other kernels and the grader are in other PID namespaces (and other uids)."""
    out, summary, *_ = hostile
    assert _transpose(out, "killer")["status"] == "passed"
    assert all(r.get("attempts", 1) == 1 for r in summary["records"])
    assert all(r["status"] == "graded" for r in summary["records"])


def test_a_fork_bomb_costs_only_its_own_answer(hostile):
    qs = _sub(hostile[0], "fork_bomb")["questions"]
    assert qs["strides.permute"]["status"] == "timeout"
    others = [q for qid, q in qs.items() if qid != "strides.permute"]
    assert all(q["status"] == "passed" for q in others), qs


def test_no_network(hostile):
    seen = hostile[5]
    assert seen == []
    assert _transpose(hostile[0], "network")["status"] == "passed"


def test_no_writes_outside_the_scratch_folder(hostile):
    out, _, klass, *_ = hostile
    import numpy

    assert not (Path(tensorlab.__file__).parent / "pwned.py").exists()
    assert not (Path(numpy.__file__).parent / "pwned.py").exists()
    assert not (out / "pwned.json").exists() and not (klass / "pwned.ipynb").exists()
    assert _transpose(out, "writer")["status"] == "passed"  # ~ (scratch) was writable


def test_the_graders_command_line_is_out_of_reach(hostile):
    q = _transpose(hostile[0], "proc_reader")
    assert q["status"] == "failed" and q["points"] == 0, q


# ---------------------------------------------------------------------------- one sandboxed kernel
@needs_bwrap
def test_sandboxed_kernel_sees_only_its_scratch(tmp_path):
    from tensorlab.grading.kernel import Kernel

    with Kernel(tmp_path, 2 * 2**30, sandbox=True, cpu=60) as k:
        r = k.run(
            "import os, sys\n"
            "print(sorted(os.listdir('/')), os.getcwd(), os.path.expanduser('~'), os.getuid())\n"
            f"print(os.path.exists({str(ROOT / 'solutions')!r}), "
            f"os.path.exists({str(ROOT / 'tests')!r}), os.path.exists('/home'))\n"
            "import tensorlab.grading as g\n"
            "print(os.listdir(os.path.join(os.path.dirname(g.__file__), 'questions')))\n"
            "import resource\n"
            "print(resource.getrlimit(resource.RLIMIT_NPROC)[0] > 0)\n",
            60,
        )
        assert r.status == "ok", r
        lines = "".join(o.get("text", "") for o in r.outputs).splitlines()
        assert "/tmp /tmp" in lines[0] and "'home'" not in lines[0]
        assert not lines[0].endswith(" 0"), "the kernel must not run as root"
        assert lines[1:] == ["False False False", "[]", "True"]
        r = k.run("open('/usr/pwned', 'w')", 30)
        assert r.status == "error" and r.ename in ("OSError", "PermissionError")


@needs_bwrap
def test_fork_bomb_is_capped_and_ends_with_the_kernel(tmp_path):
    from tensorlab.grading.kernel import Kernel

    marker = f"{300 + os.getpid() % 1000 / 1000:.3f}"  # a sleep no other test starts
    with Kernel(tmp_path, 2 * 2**30, sandbox=True, cpu=60) as k:
        r = k.run(
            "import os\nn = 0\n"
            "for _ in range(500):\n"
            "    try:\n"
            "        if os.fork() == 0:\n"
            f"            os.execv('/bin/sleep', ['sleep', {marker!r}])\n"
            "        n += 1\n"
            "    except OSError:\n"
            "        break\n"
            "print(n)\n",
            30,
        )
        assert r.status == "ok", r
        n = int(r.outputs[-1]["text"])
        assert 10 < n < 64, n  # RLIMIT_NPROC stops it
    time.sleep(1)
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert f"sleep {marker}" not in ps, "processes outlived their kernel"


def test_sandbox_none_is_loud(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / STRIDES).write_text("not json")
    r = _cli(
        "grade",
        str(tmp_path / "s"),
        "--out",
        str(tmp_path / "o"),
        "--release",
        str(EXERCISES),
        "--sandbox",
        "none",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    assert "WITHOUT the sandbox" in r.stderr


def test_auto_refuses_without_bubblewrap(tmp_path):
    """No usable bwrap: `grade` refuses with a clear message; `check` runs without it."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / STRIDES).write_text("not json")
    env = {"PATH": str(tmp_path / "empty")}
    r = _cli(
        "grade",
        str(tmp_path / "s"),
        "--out",
        str(tmp_path / "o"),
        "--release",
        str(EXERCISES),
        env=env,
    )
    assert r.returncode == 1 and "bubblewrap" in r.stderr and "--sandbox none" in r.stderr
    assert not (tmp_path / "o").exists()
    r = _cli("check", str(tmp_path / "s" / STRIDES), "--release", str(EXERCISES), env=env)
    assert r.returncode == 1, r.stderr  # a lost notebook passes no question
    assert "not a valid notebook" in r.stdout


# ---------------------------------------------------------------------------- nothing lost
def _manifest():
    from tensorlab.grading.assign import load_release

    return load_release(EXERCISES)


def test_unknown_and_loose_notebooks_are_recorded_under_their_student(tmp_path):
    """Attack 7: unknown names and loose files never become students, never merge."""
    for student in ("ann", "bob"):
        (tmp_path / student).mkdir()
        (tmp_path / student / "04_strides-Copy1.ipynb").write_text(_notebook())
    (tmp_path / "ann" / "99_unknown.ipynb").write_text(_notebook())
    (tmp_path / "ann" / "old").mkdir()
    (tmp_path / "ann" / "old" / STRIDES).write_text("{}")
    (tmp_path / "ann" / STRIDES).write_text("{}")
    (tmp_path / STRIDES).write_text(_notebook())
    jobs = {
        (j.student, Path(j.path).relative_to(tmp_path).as_posix()): j
        for j in collect([str(tmp_path)], _manifest())
    }
    assert set(jobs) == {
        ("ann", "ann/04_strides-Copy1.ipynb"),
        ("bob", "bob/04_strides-Copy1.ipynb"),
        ("ann", "ann/99_unknown.ipynb"),
        ("ann", "ann/old/04_strides.ipynb"),
        ("ann", "ann/04_strides.ipynb"),
        (UNASSIGNED, STRIDES),
    }
    assert jobs["ann", "ann/04_strides.ipynb"].problem is None  # the graded copy
    assert jobs["ann", "ann/old/04_strides.ipynb"].status == "duplicate"
    assert (
        "not the name of a released notebook" in jobs["bob", "bob/04_strides-Copy1.ipynb"].problem
    )
    assert "outside any student folder" in jobs[UNASSIGNED, STRIDES].problem
    out = tmp_path.parent / (tmp_path.name + "-out")
    grade([str(tmp_path)], out, EXERCISES, progress=False, sandbox="none")
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert set(rows) == {"ann", "bob", UNASSIGNED}
    assert rows[UNASSIGNED]["max_score"] == "0"
    ann = json.loads((out / "ann.json").read_text())
    statuses = sorted(s["status"] for s in ann["submissions"])
    assert statuses.count("unknown") == 2 and "duplicate" in statuses


def test_unicode_names_never_collide(tmp_path):
    """Attack 8: 李明 and 王芳 (and Ann/ann) are distinct students and distinct files."""
    names = ["李明", "王芳", "Ann", "ann", "a b", "a_b"]
    for n in names:
        (tmp_path / n).mkdir()
        (tmp_path / n / STRIDES).write_text("{not json")
    files = {student_file(n) for n in names}
    assert len(files) == len(names)
    assert len({f.lower() for f in files}) == len(names)
    out = tmp_path.parent / (tmp_path.name + "-out")
    grade([str(tmp_path)], out, EXERCISES, progress=False, sandbox="none")
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    assert sorted(r["student"] for r in rows) == sorted(names)
    doc = json.loads((out / student_file("李明")).read_text(encoding="utf-8"))
    assert doc["student"] == "李明" and doc["max_score"] == FULL


@pytest.mark.parametrize("name", [STRIDES, "deep.ipynb"])
def test_deeply_nested_huge_and_binary_files_are_recorded(tmp_path, name):
    """Attack 9: 200,000 nested '[' (and huge, and binary files) are recorded, never a crash."""
    klass = tmp_path / "class"
    (klass / "eve").mkdir(parents=True)
    (klass / "eve" / name).write_text("[" * 200_000)
    (klass / "mal").mkdir()
    (klass / "mal" / STRIDES).write_bytes(b"\x00\xff" * 1000)
    (klass / "big").mkdir()
    with open(klass / "big" / STRIDES, "wb") as f:
        f.truncate(21 * 2**20)
    r = _cli(
        "grade",
        str(klass),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(EXERCISES),
        "--sandbox",
        "none",
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    eve = json.loads((tmp_path / "out" / "eve.json").read_text())
    reasons = " ".join(str(s["reason"]) for s in eve["submissions"])
    assert "nested too deeply" in reasons or "not the name" in reasons
    mal = _sub(tmp_path / "out", "mal")
    assert mal["status"] == "error" and "not a valid notebook" in mal["reason"]
    big = _sub(tmp_path / "out", "big")
    assert big["status"] == "error" and "too large" in big["reason"]
    assert big["max_score"] == FULL


def test_regrading_a_subset_keeps_the_other_rows(tmp_path):
    """Attack 10: grading one student into an existing --out updates only that student."""
    klass = tmp_path / "class"
    for student in ("ann", "bob"):
        (klass / student).mkdir(parents=True)
        (klass / student / STRIDES).write_text("broken")
        (klass / student / "05_views.ipynb").write_text("broken")
    out = tmp_path / "out"
    grade([str(klass)], out, EXERCISES, progress=False, sandbox="none")
    bob_before = (out / "bob.json").read_text()
    (klass / "ann" / STRIDES).write_text("still broken")
    # one student's folder (notebooks, no sub-folders) is that student
    grade([str(klass / "ann")], out, EXERCISES, progress=False, sandbox="none")
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert set(rows) == {"ann", "bob"}
    assert (
        json.loads((out / "bob.json").read_text())["submissions"]
        == json.loads(bob_before)["submissions"]
    )
    ann = json.loads((out / "ann.json").read_text())
    by_nb = {s["notebook"]: s for s in ann["submissions"]}
    assert by_nb[STRIDES]["sha256"] == hashlib.sha256(b"still broken").hexdigest()
    assert by_nb["05_views.ipynb"]["sha256"] == hashlib.sha256(b"broken").hexdigest()
    (klass / "ann" / "05_views.ipynb").unlink()
    grade([str(klass / "ann" / STRIDES)], out, EXERCISES, progress=False, sandbox="none")
    ann = json.loads((out / "ann.json").read_text())
    assert {s["notebook"] for s in ann["submissions"]} == {STRIDES, "05_views.ipynb"}


def test_links_fifos_and_devices_are_never_followed_or_read(tmp_path):
    """Attack 11: a symlink to /dev/zero or out of the class folder, a FIFO: recorded, no hang."""
    klass = tmp_path / "class"
    secret = tmp_path / "secret.ipynb"
    secret.write_text(_notebook())
    for student in ("zero", "outside", "fifo", "inside", "dirlink"):
        (klass / student).mkdir(parents=True)
    (klass / "zero" / STRIDES).symlink_to("/dev/zero")
    (klass / "outside" / STRIDES).symlink_to(secret)
    os.mkfifo(klass / "fifo" / STRIDES)
    (klass / "inside" / STRIDES).symlink_to(klass / "fifo" / STRIDES)  # a classmate's file
    (klass / "own" / "old").mkdir(parents=True)
    os.mkfifo(klass / "own" / "old" / "pipe")
    (klass / "own" / STRIDES).symlink_to(klass / "own" / "old" / "pipe")
    (klass / "dirlink" / "sub").symlink_to(tmp_path, target_is_directory=True)
    started = time.monotonic()
    jobs = {j.student: j for j in collect([str(klass)], _manifest())}
    assert time.monotonic() - started < 5
    assert "out of the student's folder" in jobs["outside"].problem
    assert "out of the student's folder" in jobs["zero"].problem
    assert "out of the student's folder" in jobs["inside"].problem
    assert "not a regular file" in jobs["fifo"].problem
    assert "not a regular file" in jobs["own"].problem
    assert "symbolic link to a folder" in jobs["dirlink"].problem
    assert all(j.data is None for j in jobs.values())


def test_a_killed_worker_is_retried_once_then_recorded_as_lost(tmp_path, monkeypatch):
    """A notebook whose grading is killed from outside is graded again; lost points stay lost."""
    from tensorlab.grading import executors, run

    calls = []

    def flaky(job, manifest, settings, more=True):
        calls.append(job.path)
        raise RuntimeError("kernel killed from outside")

    monkeypatch.setattr(run, "grade_notebook", flaky)
    (tmp_path / "k" / "ann").mkdir(parents=True)
    (tmp_path / "k" / "ann" / STRIDES).write_text(_notebook())
    # the pool runs in spawned processes, which do not see the monkeypatch: run it in-process
    from concurrent.futures import Future

    class InlinePool:
        def __init__(self, *a, **k):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def shutdown(self, *a, **k):
            pass

        def submit(self, fn, *args):
            f = Future()
            try:
                f.set_result(fn(*args))
            except Exception as e:  # noqa: BLE001
                f.set_exception(e)
            return f

    import concurrent.futures

    assert executors.grade_job is run.grade_job  # the pool's task reports its own crashes
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", InlinePool)
    summary = grade(
        [str(tmp_path / "k")], tmp_path / "out", EXERCISES, progress=False, sandbox="none"
    )
    assert len(calls) == 2
    (rec,) = summary["records"]
    assert rec["status"] == "grader_error" and rec["max_score"] == FULL and rec["attempts"] == 2
    doc = json.loads((tmp_path / "out" / "ann.json").read_text())
    assert doc["lost"] == FULL and doc["score"] == 0 and doc["max_score"] == FULL


# ---------------------------------------------------------------------------- the command line
def _cli(*args, env=None):
    if env is None:
        return run_cli(*args)
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join([str(ROOT), full.get("PYTHONPATH", "")])
    full.update(env or {})
    cmd = [sys.executable, "-m", "tensorlab.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=full, timeout=300)


def test_an_out_that_is_a_file_is_a_usage_error(tmp_path):
    (tmp_path / "s").mkdir()
    (tmp_path / "out").write_text("mine")
    r = _cli("grade", str(tmp_path / "s"), "--out", str(tmp_path / "out"))
    assert r.returncode == 2 and "exists and is not a folder" in r.stderr
    assert (tmp_path / "out").read_text() == "mine"


@pytest.mark.parametrize(
    ("command", "path", "words"),
    [
        ("grade", "/nonexistent", "no such file or folder"),
        ("grade", "/etc/passwd", "is not a notebook"),
        ("check", "/etc/passwd", "is not a notebook"),
        ("check", "/missing.ipynb", "no such file"),
        ("check", "/tmp", "is a folder"),
    ],
)
def test_a_missing_or_wrong_path_is_a_usage_error(tmp_path, command, path, words):
    args = [command, path, "--release", str(EXERCISES)]
    if command == "grade":
        args += ["--out", str(tmp_path / "out")]
    r = _cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and path in lines[0] and words in lines[0], r.stderr
    assert not (tmp_path / "out").exists() and r.stdout == ""


def test_work_folders_of_a_killed_process_are_swept_and_live_ones_kept(tmp_path):
    """A worker killed before it cleans up (a Dask worker's warm spare) leaves its submission's
    work folder and its kernel's folder; the next kernel's sweep removes both, deep ones too,
    and keeps the folders of processes still alive and anything that is not ours."""
    from tensorlab.grading.kernel import WorkDir
    from tensorlab.grading.sandbox import sweep

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    own = WorkDir(prefix=str(tmp_path / "tensorlab-grade-"))
    assert Path(own.name).name.startswith(f"tensorlab-grade-{os.getpid()}-")
    left = [tmp_path / f"tensorlab-{kind}-{dead.pid}-x" for kind in ("grade", "kernel")]
    for folder in left:
        deep = folder.joinpath(*["d"] * 50)
        deep.mkdir(parents=True)
        (deep / "f").write_text("x")
    other = tmp_path / f"tensorlab-other-{dead.pid}-x"
    other.mkdir()
    sweep(tmp_path)
    assert [p.exists() for p in left] == [False, False]
    assert Path(own.name).is_dir() and other.is_dir()
    own.cleanup()
    assert not Path(own.name).exists()
