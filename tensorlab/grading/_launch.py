"""Start the answer process (``--answers``: what batch grading runs each submission in) or an
IPython kernel (``-f``: a kernel of ``kernel.Kernel``) under resource limits.

``python -m tensorlab.grading._launch MEMORY_BYTES [--cpu S] [--nproc N] [--uid UID]
-f CONNECTION_FILE``: caps the address space (RLIMIT_AS, soft and hard, so the notebook cannot
raise it again), CPU seconds (RLIMIT_CPU), processes and threads (RLIMIT_NPROC) and the size of
files the notebook may write (RLIMIT_FSIZE), disables core dumps, then runs ipykernel.

``--uid`` (the sandbox, when the grader is root): the connection file is read while still
root, then the process switches to that unprivileged uid for good (no supplementary groups,
no capabilities, ``no_new_privs``) and gives ipykernel a private copy of the connection file.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys

MAX_FILE_BYTES = 256 * 2**20
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1


def _limit(which: int, value: int) -> None:
    try:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


def _warm_up() -> None:
    """Import what every grading notebook needs while the kernel is idle (trusted code only)."""
    import importlib

    for name in ("numpy", "tensorlab", "tensorlab.grading._harness", "tensorlab.nn.functional"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a missing optional module only costs time later
            pass


def _no_new_privs() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _become(uid: int) -> None:
    """Switch to ``uid`` for good and point ipykernel at a private copy of the connection file."""
    info = None
    if "-f" in sys.argv:
        i = sys.argv.index("-f")
        with open(sys.argv[i + 1], "rb") as f:
            info = f.read()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:  # pragma: no cover - defensive
        raise SystemExit("could not switch to the sandbox uid")
    if info is None:
        return
    copy = os.path.join(os.environ.get("HOME", "/tmp"), ".connection.json")
    fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(info)
    sys.argv[i + 1] = copy


def _option(name: str) -> int | None:
    if name in sys.argv:
        i = sys.argv.index(name)
        value = int(sys.argv[i + 1])
        del sys.argv[i : i + 2]
        return value
    return None


def die_with_parent() -> None:
    """SIGKILL this process when its parent (the grading worker, or bwrap) dies, however it
    dies; exit now if the parent is already gone (Linux only; a no-op elsewhere)."""
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:
        os._exit(1)


def main() -> None:
    die_with_parent()
    memory = int(sys.argv.pop(1))
    cpu, nproc, uid = _option("--cpu"), _option("--nproc"), _option("--uid")
    answers = "--answers" in sys.argv
    if memory > 0:
        _limit(resource.RLIMIT_AS, memory)
    if cpu:
        _limit(resource.RLIMIT_CPU, cpu)
    if nproc:
        _limit(resource.RLIMIT_NPROC, nproc)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, MAX_FILE_BYTES)
    if uid is not None:
        _become(uid)
    _no_new_privs()
    if answers:  # the answer process (``_answers``): no IPython at all
        from tensorlab.grading._answers import main as answers_main

        answers_main()
        return
    _warm_up()
    from ipykernel.kernelapp import launch_new_instance

    launch_new_instance()


if __name__ == "__main__":
    main()
