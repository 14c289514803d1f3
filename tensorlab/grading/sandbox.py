"""The OS sandbox every grading kernel runs in: bubblewrap (``bwrap``).

What the kernel sees: the Python environment read-only (the interpreter's prefix, the virtual
environment, site-packages and the ``tensorlab`` package itself, with its question banks and
shipped course hidden), a private size-capped scratch ``/tmp`` that is its working directory
and ``$HOME``, an empty ``/dev`` and its own ``/proc``, and the folder holding the IPC sockets it
talks to the grader through. Nothing else exists: no solutions, no class folder, no ``--out``,
no release folder, no home directories. It runs in new PID, network, IPC and UTS namespaces
(the PID namespace ends every process a notebook started when the kernel is stopped; the
network namespace has no interface but loopback) as an unprivileged uid:

- the grader is not root: a new user namespace maps uid 65534 inside to the grader's uid,
  and further user namespaces are disabled;
- the grader is root (containers, CI): bwrap runs privileged (no user namespace), and the
  kernel launcher (``_launch``) switches to a fresh unprivileged uid of its own before any
  notebook code runs (no capabilities, ``no_new_privs``). A uid of its own makes
  ``RLIMIT_NPROC`` count this kernel's processes only (root is exempt from that limit).

``RLIMIT_NPROC``, ``RLIMIT_CPU``, ``RLIMIT_FSIZE`` and the memory cap are set by ``_launch``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

MODES = ("auto", "bwrap", "none")
IPC_BYTES = 256 * 2**10  # the IPC folder's tmpfs (root mode): a connection file and sockets
IPC_INODES = 64
MS_NOSUID, MS_NODEV, MS_NOEXEC, MNT_DETACH = 2, 4, 8, 2
SCRATCH_BYTES = 256 * 2**20
SHM_BYTES = 64 * 2**20
NPROC = 64  # processes and threads of one kernel (ipykernel itself uses about 10)
NOBODY = 65534
# root mode: each kernel gets its own uid from this range (no account uses it)
UID_BASE, UID_SPAN = 2_000_000_000, 100_000_000


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create its namespaces on this machine."""


def package_dir() -> Path:
    import tensorlab

    return Path(tensorlab.__file__).resolve().parent


def hidden_paths() -> list[Path]:
    """Parts of the package the grading kernel must not read (references, the shipped course,
    the worked example of authored questions)."""
    pkg = package_dir()
    hidden = (pkg / "grading" / "questions", pkg / "_course", pkg / "examples")
    return [p for p in hidden if p.is_dir()]


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in roots)


def python_paths() -> list[Path]:
    """The directories the kernel's Python needs, read-only: prefixes, site-packages, the package.

    A ``sys.path`` entry that is neither under a prefix nor a site-packages folder (a source
    checkout, the current folder, an editable install's project root) is left out: it may hold
    solutions. The ``tensorlab`` package folder is bound on its own.
    """
    roots: list[Path] = []
    for p in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix):
        roots.append(Path(p).resolve())
    exe = Path(sys.executable)
    roots.append(exe.parent.resolve())
    roots.append(exe.resolve().parent)
    for entry in sys.path:
        if not entry:
            continue
        p = Path(entry).resolve()
        if p.name in ("site-packages", "dist-packages") and p.is_dir():
            roots.append(p)
    roots.append(package_dir())
    out: list[Path] = []
    for p in sorted(set(roots), key=lambda p: len(p.parts)):
        if p.exists() and not _under(p, out) and p != Path("/"):
            out.append(p)
    return out


def _system_binds() -> list[str]:
    """/usr read-only, and /bin, /lib, ... as symlinks (merged /usr) or read-only binds."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            args += ["--ro-bind", str(p), str(p)]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/alternatives"):
        args += ["--ro-bind-try", f, f]
    return args


@dataclass
class Sandbox:
    """How to wrap one kernel's command line in bwrap.

    ``ipc_dir`` (bound read-write at the same path) holds the connection file and the sockets;
    ``private`` is a grader-side folder for the sandbox's own small files (passwd).
    """

    ipc_dir: Path
    private: Path
    uid: int  # the uid the kernel runs as (inside; also outside in root mode)
    mounted: bool = False  # ipc_dir is a tmpfs of its own (root mode)

    @classmethod
    def create(cls, private: Path) -> Sandbox:
        private = Path(private)
        ipc = private / "ipc"
        ipc.mkdir(mode=0o700, exist_ok=True)
        mounted = False
        if os.geteuid() == 0:
            uid = UID_BASE + secrets.randbelow(UID_SPAN)
            # a tmpfs of IPC_BYTES the kernel cannot fill (nor the host's disk through it)
            mounted = _mount_tmpfs(ipc, f"size={IPC_BYTES},nr_inodes={IPC_INODES},mode=0711")
            os.chown(ipc, uid, uid)
            os.chmod(ipc, 0o711)  # root inside (no capabilities) reads the connection file
        else:
            uid = NOBODY
        (private / "passwd").write_text(f"grader:x:{uid}:{uid}:grading kernel:/tmp:/bin/false\n")
        (private / "group").write_text(f"grader:x:{uid}:\n")
        return cls(ipc, private, uid, mounted)

    def unlock(self) -> None:
        """Let the next kernel create its sockets in ``ipc_dir`` (before it is launched)."""
        if self.root_mode:
            os.chown(self.ipc_dir, self.uid, self.uid)
            os.chmod(self.ipc_dir, 0o711)

    def lock(self) -> None:
        """Once the kernel has bound its sockets (it answered), it may not create, fill or
        remove anything in ``ipc_dir`` again: the folder becomes root's (root mode; the kernel
        has no capability to change that). Without root, the folder is made read-only (the
        kernel, the folder's owner, could undo that: RLIMIT_FSIZE still caps each file)."""
        try:
            if self.root_mode:
                os.chown(self.ipc_dir, 0, 0)
                os.chmod(self.ipc_dir, 0o711)
            else:
                os.chmod(self.ipc_dir, 0o500)
        except OSError:  # pragma: no cover - the folder is gone: nothing to protect
            pass

    def cleanup(self) -> None:
        """Unmount the IPC tmpfs (everything in it goes at once, however deep)."""
        if self.mounted:
            _unmount(self.ipc_dir)
            self.mounted = False
        else:
            with contextlib.suppress(OSError):
                os.chmod(self.ipc_dir, 0o700)

    @property
    def root_mode(self) -> bool:
        return os.geteuid() == 0

    def launch_args(self) -> list[str]:
        """Extra arguments for ``_launch`` (the uid to switch to, in root mode)."""
        return ["--uid", str(self.uid)] if self.root_mode else []

    def argv(self, command: list[str]) -> list[str]:
        bwrap = shutil.which("bwrap") or "bwrap"
        args = [
            bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "grader",
            "--die-with-parent",
            "--new-session",
        ]
        if self.root_mode:
            # privileged bwrap; _launch keeps only what it needs to switch to self.uid
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
            args += ["--disable-userns"]
        args += _system_binds()
        args += ["--proc", "/proc", "--dev", "/dev"]
        args += ["--perms", "1777", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
        args += ["--perms", "1777", "--size", str(SCRATCH_BYTES), "--tmpfs", "/tmp"]
        mounted = [Path("/usr"), Path("/proc"), Path("/dev")]
        made: set[Path] = set()

        def parents(path: Path) -> list[str]:
            # bwrap would create missing parent folders with mode 0700: make them 0755 first
            out = []
            for a in reversed(path.parents):
                if a == Path("/") or a in made or _under(a, mounted):
                    continue
                made.add(a)
                out += ["--perms", "0755", "--dir", str(a)]
            return out

        for p in python_paths():
            if _under(p, mounted):
                continue
            args += parents(p) + ["--ro-bind", str(p), str(p)]
            mounted.append(p)
        args += parents(self.ipc_dir)  # under /tmp, the scratch tmpfs
        for p in hidden_paths():
            args += ["--perms", "0555", "--size", "4096", "--tmpfs", str(p)]
        args += ["--bind", str(self.ipc_dir), str(self.ipc_dir)]
        args += ["--ro-bind", str(self.private / "passwd"), "/etc/passwd"]
        args += ["--ro-bind", str(self.private / "group"), "/etc/group"]
        # ipykernel would take bwrap's init (pid 1 in the PID namespace) for a dead parent;
        # --die-with-parent ends the sandbox with the grader instead
        args += ["--unsetenv", "JPY_PARENT_PID", "--chdir", "/tmp", "--"]
        return args + list(command)


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _mount_tmpfs(path: Path, options: str) -> bool:
    """Mount a private tmpfs at ``path`` (root only); False when it cannot be mounted."""
    try:
        flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
        r = _libc().mount(b"tmpfs", os.fsencode(path), b"tmpfs", flags, options.encode())
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False
    return r == 0


def _unmount(path: Path) -> None:
    with contextlib.suppress(OSError, AttributeError):
        _libc().umount2(os.fsencode(path), MNT_DETACH)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists
        return True
    return True


def sweep(tmp: Path) -> None:
    """Remove what kernels of grading processes that are gone left in ``tmp`` (a worker killed
    before it could clean up): ``<tmp>/tensorlab-kernel-<pid>-*`` folders, their IPC tmpfs
    unmounted first (root mode), and the submissions' ``<tmp>/tensorlab-grade-<pid>-*`` working
    folders."""
    import re

    try:
        ours = ("tensorlab-kernel-", "tensorlab-grade-")
        names = [e.name for e in os.scandir(tmp) if e.name.startswith(ours)]
    except OSError:
        return
    for name in names:
        m = re.fullmatch(r"tensorlab-(?:kernel|grade)-(\d+)-[^/]+", name)
        if m is None or _alive(int(m[1])):
            continue
        if os.geteuid() == 0 and name.startswith("tensorlab-kernel-"):
            _unmount(tmp / name / "ipc")
        remove_tree(tmp / name)


def remove_tree(path: str | os.PathLike) -> None:
    """Remove ``path`` and everything under it without recursing in Python and with one open
    folder at a time, however deep a notebook made it (no RecursionError, no path too long,
    symbolic links removed, never followed). Errors are ignored: it removes what it can."""
    path = os.fspath(path)
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0)
    try:
        cur = os.open(path, flags)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    names: list[str] = []  # the folders entered below ``path``
    stuck: set[tuple[int, int]] = set()  # folders that could not be emptied (skip them)
    try:
        while True:
            entered = False
            with contextlib.suppress(OSError):
                os.fchmod(cur, 0o700)
            try:
                entries = list(os.scandir(cur))
            except OSError:
                entries = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if not is_dir:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.name, dir_fd=cur)
                    continue
                try:
                    st = os.stat(entry.name, dir_fd=cur, follow_symlinks=False)
                    if (st.st_dev, st.st_ino) in stuck:
                        continue
                    child = os.open(entry.name, flags, dir_fd=cur)
                except OSError:
                    continue
                os.close(cur)
                cur, entered = child, True
                names.append(entry.name)
                break
            if entered:
                continue
            if not names:
                break
            parent = os.open("..", flags, dir_fd=cur)
            os.close(cur)
            cur = parent
            name = names.pop()
            try:
                os.rmdir(name, dir_fd=cur)
            except OSError:
                with contextlib.suppress(OSError):
                    st = os.stat(name, dir_fd=cur, follow_symlinks=False)
                    stuck.add((st.st_dev, st.st_ino))
    finally:
        os.close(cur)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def env(base: dict) -> dict:
    """The kernel's environment inside the sandbox (paths that exist there)."""
    out = dict(base)
    out.update(
        HOME="/tmp",
        TMPDIR="/tmp",
        IPYTHONDIR="/tmp/.ipython",
        MPLCONFIGDIR="/tmp/.matplotlib",
        JPY_SESSION_NAME="/tmp/submission.ipynb",
        PYTHONPATH=str(package_dir().parent),
        USER="grader",
        LOGNAME="grader",
    )
    for k in ("TEMP", "TMP"):
        out.pop(k, None)
    return out


@lru_cache(maxsize=1)
def probe() -> str | None:
    """None when a sandboxed Python starts here, else the reason it does not."""
    import tempfile

    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    with tempfile.TemporaryDirectory(prefix="tensorlab-probe-") as tmp:
        box = Sandbox.create(Path(tmp))
        code = "import tensorlab.grading._launch"
        argv = box.argv([sys.executable, "-c", code])
        try:
            r = subprocess.run(
                argv,
                env=env({"PATH": os.environ.get("PATH", "/usr/bin:/bin")}),
                capture_output=True,
                text=True,
                timeout=60,
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bubblewrap could not be run: {e}"
        finally:
            box.cleanup()
    if r.returncode != 0:
        detail = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        return (
            f"bubblewrap cannot create a sandbox here ({detail}); unprivileged user namespaces "
            "may be disabled (sysctl kernel.unprivileged_userns_clone=1) or the container may "
            "forbid them"
        )
    return None


def resolve(mode: str, *, fallback: bool = False) -> str:
    """``"bwrap"`` or ``"none"`` for a requested mode.

    ``auto``: bwrap when usable; else ``none`` if ``fallback`` (a learner's own check), else
    ``SandboxUnavailable``. ``bwrap``: bwrap or ``SandboxUnavailable``.
    """
    if mode not in MODES:
        raise ValueError(f"unknown sandbox mode {mode!r} (choose from {', '.join(MODES)})")
    if mode == "none":
        return "none"
    reason = probe()
    if reason is None:
        return "bwrap"
    if mode == "auto" and fallback:
        return "none"
    raise SandboxUnavailable(
        f"{reason}. Grading runs student code, so it refuses to run without the sandbox; "
        "pass --sandbox none to grade without it (only for code you trust)"
    )
