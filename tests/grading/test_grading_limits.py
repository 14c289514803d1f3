"""Memory per sandbox and processes that outlive the grader (issue 37, classes 2 and 4), against
real sandboxed kernels.

- A kernel whose child processes each stay under the per-process cap, and one that fills memfd
  files (counted by no per-process limit), are both stopped at the sandbox's cap: one cgroup
  holds the kernel and everything it starts.
- ``kill -9`` of a real ``tensorlab grade`` ends its pool workers, their helpers and every
  sandboxed kernel, and its stdout reaches end-of-file (``grade | tee`` returns).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from grading_class import EXERCISES, STRIDES, submission

from tensorlab.grading import cgroups
from tensorlab.grading.sandbox import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason="bubblewrap is not usable here")
needs_cgroup = pytest.mark.skipif(cgroups.probe() is not None, reason="no writable cgroup")

CAP = 768 * 2**20
CHILDREN = """
import subprocess, sys
code = "b = bytearray(300 * 2**20)\\nimport time\\nprint('ok', flush=True)\\ntime.sleep(30)"
procs = [subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE) for _ in range(5)]
print('holding', sum(1 for p in procs if p.stdout.readline().strip() == b'ok'))
"""
MEMFD = """
import os
held = 0
try:
    for _ in range(8):  # 8 x 200 MiB, each file under RLIMIT_FSIZE
        fd = os.memfd_create('fill')
        for _ in range(200):
            os.write(fd, b'x' * 2**20)
            held += 1
except OSError:
    pass
print('held', held)
"""


@needs_cgroup
def test_children_and_memfd_share_the_sandboxs_cap():
    from tensorlab.grading.kernel import Kernel, WorkDir

    with WorkDir() as wd:
        kernel = Kernel(wd, CAP, sandbox=True)
        folders = list(kernel._cgroup.folders)
        try:
            kernel.start()
            # five children of 300 MiB each (1.5 GiB; each far under the 768 MiB per-process
            # cap): at most two fit beside the kernel in one 768 MiB budget
            r = kernel.run(CHILDREN, 60)
            if r.status == "ok":
                text = "".join(o.get("text", "") for o in r.outputs)
                assert int(text.split()[-1]) <= 2, text
            else:
                assert r.status == "dead", r
            kernel.start()
            # 1.6 GiB in memfd files: stopped at the cap (the kernel is killed or refused)
            r = kernel.run(MEMFD, 60)
            if r.status == "ok":
                text = "".join(o.get("text", "") for o in r.outputs)
                assert int(text.split()[-1]) * 2**20 < CAP, text
            else:
                assert r.status == "dead", r
            peak = kernel._cgroup.memory_peak()
            assert peak is not None and peak <= CAP
        finally:
            kernel.close()
    assert not any(f.exists() for f in folders), "the sandbox's cgroup was not removed"


def test_unavailable_cgroups_say_why_and_keep_per_process_limits(monkeypatch):
    monkeypatch.setattr(cgroups, "_layout", lambda: "no cgroup for you")
    assert cgroups.probe() == "no cgroup for you"
    assert cgroups.Cgroup.create(CAP, 80) is None


def _children(pid: int) -> dict[int, str]:
    """Every living descendant of ``pid``: {pid: its start time} (so a reused pid is not
    mistaken for a survivor)."""
    parents: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents.setdefault(int(fields[1]), []).append(int(entry.name))
        starts[int(entry.name)] = fields[19]
    out, todo = {}, [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out[child] = starts[child]
            todo.append(child)
    return out


def _alive(pid: int, start: str) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[19] == start and fields[0] != "Z"


def test_kill_9_of_grade_ends_every_process_it_started(tmp_path):
    subs = tmp_path / "subs"
    forever = {"strides.transpose": "while True:\n    pass\n"}
    for student in ("ann", "bob", "cy"):
        (subs / student).mkdir(parents=True)
        (subs / student / STRIDES).write_text(json.dumps(submission(STRIDES, forever)))
    grade = subprocess.Popen(
        [sys.executable, "-m", "tensorlab.cli", "grade", str(subs), "--out", str(tmp_path / "o")]
        + ["--jobs", "2", "--cell-timeout", "600", "--timeout", "900"]
        + ["--release", str(EXERCISES)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=EXERCISES,
    )
    try:
        deadline = time.monotonic() + 120
        seen: dict[int, str] = {}
        while time.monotonic() < deadline:
            seen.update(_children(grade.pid))
            cmdlines = []
            for pid in seen:
                try:
                    cmdlines.append(Path(f"/proc/{pid}/cmdline").read_bytes())
                except OSError:
                    pass
            # two sandboxed answer processes (one a worker's warm spare, at least one busy)
            if sum(b"_launch" in c and b"--answers" in c for c in cmdlines) >= 2:
                break
            assert grade.poll() is None, grade.stdout.read().decode()[-2000:]
            time.sleep(0.5)
        else:
            pytest.fail("no sandboxed answer process started within 120 s")
        time.sleep(1)
        seen.update(_children(grade.pid))
        os.kill(grade.pid, signal.SIGKILL)
        grade.wait()
        # like `grade | tee`: the pipe reaches end-of-file once nothing holds it
        os.set_blocking(grade.stdout.fileno(), False)
        eof, left = False, dict(seen)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (left or not eof):
            ready, _, _ = select.select([grade.stdout], [], [], 0.25)
            if ready and not eof:
                try:
                    eof = os.read(grade.stdout.fileno(), 1 << 16) == b""
                except BlockingIOError:
                    pass
            left = {p: s for p, s in seen.items() if _alive(p, s)}
        assert not left, {p: Path(f"/proc/{p}/cmdline").read_bytes()[:80] for p in left}
        assert eof, "something still holds the grader's stdout"
    finally:
        if grade.poll() is None:
            grade.kill()
