"""One control group per sandbox: the kernel and everything it starts share one budget of memory
(swap included) and processes, and all of them end together.

``--memory`` alone is an address-space limit per process (``RLIMIT_AS``): a kernel's children
each get the whole cap again, and memory held in memfd files or tmpfs counts against none of
them. A cgroup counts all of it for the whole sandbox. cgroup v2 is used when the ``memory`` and
``pids`` controllers can be enabled below the grader's own cgroup there, else cgroup v1 (the
``memory`` and ``pids`` hierarchies). New groups are made *inside* the grader's own cgroup, so
whatever limit the machine puts on the grader still holds for its kernels.

A process joins its group before it runs anything: ``wrap(argv)`` prefixes a command with a
``/bin/sh`` line that writes its own pid into the group and then ``exec``s the command, so
the kernel and every process it ever starts are inside. ``kill()`` ends every process in the
group; ``remove()`` kills and removes it. Groups are named after the owning process, so the
groups of a grader killed with ``kill -9`` are removed by the next run (``sweep``).

Without root (and no delegated cgroup), ``probe()`` says why and the per-process limits stay
the only ones.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import signal
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PREFIX = "tensorlab-"
PIDS_SLACK = 16  # bwrap, sh and the interpreter's own threads, above the kernel's RLIMIT_NPROC


def _own(controller: str | None) -> Path | None:
    """The grader's own cgroup folder for a v1 ``controller`` (None: the v2 hierarchy)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controller is None and controllers == "":
            base = ROOT / "unified" if (ROOT / "unified" / "cgroup.procs").exists() else ROOT
            return base / path.lstrip("/")
        if controller is not None and controller in controllers.split(","):
            return ROOT / controller / path.lstrip("/")
    return None


def _writable(folder: Path | None) -> bool:
    return folder is not None and folder.is_dir() and os.access(folder, os.W_OK)


@lru_cache(maxsize=1)
def _layout() -> tuple[str, tuple[Path, ...]] | str:
    """("v2", (parent,)) or ("v1", (memory parent, pids parent)), or the reason there is none."""
    v2 = _own(None)
    if _writable(v2):
        try:
            controllers = (v2 / "cgroup.controllers").read_text().split()
        except OSError:
            controllers = []
        if "memory" in controllers and "pids" in controllers:
            return "v2", (v2,)
    mem, pids = _own("memory"), _own("pids")
    if _writable(mem) and _writable(pids):
        return "v1", (mem, pids)
    if os.geteuid() != 0:
        return (
            "the grader is not root and has no delegated cgroup: each sandbox keeps per-process "
            "limits only (a kernel's child processes and memfd memory are not capped together)"
        )
    return "no writable cgroup (v1 memory+pids or v2) was found: per-process limits only"


def probe() -> str | None:
    """None when a cgroup per sandbox can be made here, else the reason it cannot."""
    layout = _layout()
    return layout if isinstance(layout, str) else None


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError:
        return False


def _procs(folder: Path) -> list[int]:
    try:
        return [int(x) for x in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


@dataclass
class Cgroup:
    """The group (one folder per hierarchy) of one sandbox."""

    folders: list[Path] = field(default_factory=list)
    version: str = "v1"

    @classmethod
    def create(cls, memory: int, pids: int) -> Cgroup | None:
        """A new group capped at ``memory`` bytes (swap included; 0: no memory cap) and
        ``pids`` tasks; None when cgroups cannot be used here (``probe``)."""
        layout = _layout()
        if isinstance(layout, str):
            return None
        version, parents = layout
        name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        group = cls([], version)
        try:
            for parent in parents:
                folder = parent / name
                folder.mkdir()
                group.folders.append(folder)
            if version == "v2":
                (folder,) = group.folders
                if memory > 0:
                    (folder / "memory.max").write_text(str(memory))
                    _write(folder / "memory.swap.max", "0")
                (folder / "pids.max").write_text(str(pids))
            else:
                mem, pid = group.folders
                if memory > 0:
                    (mem / "memory.limit_in_bytes").write_text(str(memory))
                    # memsw (memory + swap) exists only with swap accounting
                    _write(mem / "memory.memsw.limit_in_bytes", str(memory))
                _write(mem / "memory.swappiness", "0")
                (pid / "pids.max").write_text(str(pids))
        except OSError:
            group.remove()
            return None
        return group

    def wrap(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into this group (it fails, exit
        status 121, rather than run outside it)."""
        joins = " && ".join(
            f"echo $$ > '{folder}/cgroup.procs'"
            for folder in self.folders
            if "'" not in str(folder)
        )
        return ["/bin/sh", "-c", f'{joins} || exit 121; exec "$@"', "sh", *argv]

    def pids(self) -> list[int]:
        out: set[int] = set()
        for folder in self.folders:
            out.update(_procs(folder))
        return sorted(out)

    def kill(self) -> None:
        """End every process in the group (new ones forked meanwhile too)."""
        if self.version == "v2" and self.folders:
            if _write(self.folders[0] / "cgroup.kill", "1"):
                self._wait_empty()
                return
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def _wait_empty(self) -> None:
        for _ in range(100):
            if not self.pids():
                return
            time.sleep(0.02)

    def memory_peak(self) -> int | None:
        """The most memory the group has used (bytes), when the kernel reports it."""
        for folder in self.folders:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                with contextlib.suppress(OSError, ValueError):
                    return int((folder / name).read_text())
        return None

    def remove(self) -> None:
        """Kill what is left and remove the group's folders."""
        self.kill()
        for folder in self.folders:
            for _ in range(50):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
        self.folders = []


def sweep() -> None:
    """Remove the groups of grading processes that are gone (killed before they could)."""
    layout = _layout()
    if isinstance(layout, str):
        return
    version, parents = layout
    for parent in parents:
        try:
            names = [e.name for e in os.scandir(parent) if e.name.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            m = re.fullmatch(rf"{PREFIX}(\d+)-[0-9a-f]+", name)
            if m is None or _alive(int(m[1])):
                continue
            Cgroup([parent / name], version).remove()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
