"""``tensorlab start``: copy the course (lessons and exercises) into a folder, open JupyterLab there.

The course files travel with the package: an installed wheel carries them as package data in
``tensorlab/_course/{lessons,exercises}``; in a clone they are the repository's ``lessons/`` and
``exercises/``. A learner's files are never overwritten:

- the first ``start`` into a folder copies every course file that is not already there, lists the
  ones it left alone, and records what it gave in ``.tensorlab-course.json``;
- later ``start``\\ s copy nothing (the folder is the learner's now) and say when this version of
  tensorlab has lessons or exercises the folder has never received;
- ``start --update`` adds exactly those new files, still without overwriting anything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PARTS = ("lessons", "exercises")
MARKER = ".tensorlab-course.json"
DEFAULT_DIR = "tensorlab-course"
FIRST_LESSON = "lessons/00_start_here.ipynb"


class CourseError(Exception):
    """The course cannot be found or the destination cannot hold it."""


# ---------------------------------------------------------------------------- where the course is
def _has_parts(root: Path) -> bool:
    return all((root / part).is_dir() for part in PARTS)


def course_root() -> Path:
    """The folder holding ``lessons/`` and ``exercises/``: the wheel's package data, else the clone."""
    here = Path(__file__).resolve().parent
    packaged = here / "_course"
    if _has_parts(packaged):
        return packaged
    clone = here.parent
    if (clone / "pyproject.toml").is_file() and _has_parts(clone):
        return clone
    raise CourseError(
        f"the course files are missing: neither {packaged} nor a source checkout next to "
        f"{here} holds {' and '.join(p + '/' for p in PARTS)} (reinstall tensorlab)"
    )


def _visible(rel: Path) -> bool:
    """Skip hidden files and folders (``.ipynb_checkpoints``) and bytecode caches."""
    return not any(p.startswith(".") or p == "__pycache__" for p in rel.parts)


def course_files(root: Path | None = None) -> list[str]:
    """Every course file as a POSIX path relative to the course root, sorted."""
    root = course_root() if root is None else Path(root)
    found = []
    for part in PARTS:
        for path in (root / part).rglob("*"):
            rel = path.relative_to(root)
            if path.is_file() and _visible(rel):
                found.append(rel.as_posix())
    return sorted(found)


# ---------------------------------------------------------------------------- copying
@dataclass
class CourseCopy:
    """What :func:`prepare_course` did to ``dest``.

    ``copied``: files written now. ``skipped``: course files that were to be copied but already
    existed (left untouched). ``available``: files this tensorlab has that ``dest`` never received
    (only listed when not updating). ``missing``: files received earlier that are gone now (the
    learner removed them; never restored). ``first``: whether this was the folder's first start.
    """

    dest: Path
    first: bool
    update: bool
    copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    available: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report in plain words, one line per item."""
        out = []
        where = str(self.dest)
        if self.copied:
            out.append(f"copied {_count(self.copied)} into {where}")
            if not self.first:
                out.extend(f"  added {f}" for f in self.copied)
        elif self.first:
            out.append(f"nothing copied into {where}: every course file is already there")
        elif self.update:
            out.append(f"{where} already has every lesson and exercise of this version")
        else:
            out.append(f"opening your course in {where} (nothing copied)")
        if self.skipped:
            out.append(f"skipped {len(self.skipped)} file(s) you already have (left untouched):")
            out.extend(f"  {f}" for f in self.skipped)
        if self.available:
            out.append(
                f"this version of tensorlab has {len(self.available)} new file(s) for your course:"
            )
            out.extend(f"  {f}" for f in self.available)
            out.append(f"  add them with: tensorlab start {_quote(where)} --update")
        if self.update and self.missing:
            out.append(f"not restored ({len(self.missing)} file(s) you removed):")
            out.extend(f"  {f}" for f in self.missing)
        return out


def _count(files: list[str]) -> str:
    kinds = []
    for part in PARTS:
        n = sum(1 for f in files if f.startswith(part + "/") and f.endswith(".ipynb"))
        if n:
            kinds.append(f"{n} {part[:-1] if n == 1 else part}")
    others = sum(1 for f in files if not f.endswith(".ipynb"))
    if others:
        kinds.append(f"{others} other file{'s' if others > 1 else ''}")
    return ", ".join(kinds) or "0 files"


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _read_marker(dest: Path) -> set[str] | None:
    path = dest / MARKER
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(f) for f in data["files"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CourseError(
            f"{path} is unreadable ({e}); remove it to start the course afresh"
        ) from e


def _write_marker(dest: Path, given: set[str]) -> None:
    from . import __version__

    text = json.dumps({"tensorlab": __version__, "files": sorted(given)}, indent=1) + "\n"
    (dest / MARKER).write_text(text, encoding="utf-8")


def prepare_course(
    dest: str | os.PathLike, *, update: bool = False, source: str | os.PathLike | None = None
) -> CourseCopy:
    """Copy the course into ``dest`` without ever overwriting a file (see the module docstring)."""
    src = course_root() if source is None else Path(source)
    dest = Path(dest).expanduser().resolve()
    if dest.exists() and not dest.is_dir():
        raise CourseError(f"{dest} exists and is not a folder")
    files = course_files(src)
    if dest == src.resolve():  # `tensorlab start .` inside a clone: the course is right here
        return CourseCopy(dest, first=False, update=update)
    given = _read_marker(dest)
    report = CourseCopy(dest, first=given is None, update=update)
    if given is None:
        wanted = files
    else:
        new = [f for f in files if f not in given]
        wanted = new if update else []
        if not update:
            report.available = [f for f in new if not (dest / f).exists()]
        report.missing = sorted(f for f in given if not (dest / f).exists())
    try:
        dest.mkdir(parents=True, exist_ok=True)
        for rel in wanted:
            target = dest / rel
            if target.exists() or target.is_symlink():
                report.skipped.append(rel)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src / rel, target)
            report.copied.append(rel)
        if given is None or wanted:
            _write_marker(dest, (given or set()) | set(wanted))
    except OSError as e:
        raise CourseError(f"cannot write the course into {dest}: {e}") from e
    return report


# ---------------------------------------------------------------------------- JupyterLab
LAB_DIR = ".tensorlab/jupyterlab"  # in the course folder: this course's JupyterLab defaults
# Defaults for this course only (the learner's own settings still win): no "Jupyter news?"
# prompt on first open, and a file browser whose names are not cut (no date column).
LAB_OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false"},
    "@jupyterlab/filebrowser-extension:browser": {"showLastModifiedColumn": False},
}
# The first open shows a file browser wide enough for the lesson names (a share of the window).
FILE_BROWSER_SHARE = 0.24
# A collapsed output (a "Predict, then run" cell) shows JupyterLab's placeholder, which previews
# the output's first line: often the answer. This course's custom.css (served to this course's
# JupyterLab only, with --LabApp.custom_css) replaces the preview by a reminder; a click still
# opens the output.
COLLAPSED_OUTPUT_CSS = """\
/* tensorlab: a collapsed output shows no preview of its first line (predict first) */
.jp-OutputPlaceholder .jp-PlaceholderText {
  display: none !important;
}
.jp-OutputPlaceholder .jp-Placeholder-contentContainer::before {
  content: "output hidden: predict, then click to show it";
  font-style: italic;
  opacity: 0.7;
}
"""
ROOT_NOTE = "running as root: passing --allow-root to JupyterLab"


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _gives_allow_root(args: list[str]) -> bool:
    return any(a == "--allow-root" or a.lower().startswith("--serverapp.allow_root") for a in args)


def _default_app_settings_dir() -> Path | None:
    """JupyterLab's own application settings folder (where an admin's overrides.json lives)."""
    try:
        from jupyterlab.commands import get_app_dir
    except ImportError:  # pragma: no cover - JupyterLab is a dependency
        return None
    return Path(get_app_dir()) / "settings"


def lab_settings(dest: Path) -> dict[str, Path]:
    """Write this course's JupyterLab defaults into ``dest/.tensorlab/jupyterlab``.

    ``settings/overrides.json`` (served as *defaults*: the learner's user settings still win)
    merges JupyterLab's own application ``overrides.json`` (if any) with :data:`LAB_OVERRIDES`;
    ``workspaces/`` gets a first layout with a wide file browser, written only when absent (later
    the learner's own layout of this course is saved there); ``custom/custom.css`` hides the
    preview of a collapsed output. Nothing outside ``dest`` is touched.
    """
    base = Path(dest) / LAB_DIR
    settings, workspaces = base / "settings", base / "workspaces"
    settings.mkdir(parents=True, exist_ok=True)
    workspaces.mkdir(parents=True, exist_ok=True)
    ignore = base.parent / ".gitignore"  # a course kept in git (or the clone) does not track it
    if not ignore.exists():
        ignore.write_text("# JupyterLab's state for this course, written by tensorlab start\n*\n")
    overrides: dict = {}
    upstream = _default_app_settings_dir()
    if upstream is not None:
        for name in ("page_config.json", "page_config.json5"):
            if (upstream / name).is_file() and not (settings / name).exists():
                shutil.copyfile(upstream / name, settings / name)
        try:
            overrides = json.loads((upstream / "overrides.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            overrides = {}
    for plugin, values in LAB_OVERRIDES.items():
        overrides.setdefault(plugin, {}).update(values)
    (settings / "overrides.json").write_text(json.dumps(overrides, indent=1) + "\n", "utf-8")
    custom = _write_custom_css(base / "custom")
    paths = {"settings": settings, "workspaces": workspaces, "custom": custom}
    try:
        from jupyterlab_server.workspaces_handler import WORKSPACE_EXTENSION, slugify
    except ImportError:  # pragma: no cover - JupyterLab is a dependency
        return paths
    first = workspaces / (slugify("default") + WORKSPACE_EXTENSION)
    if not first.exists():
        share = FILE_BROWSER_SHARE
        layout = {
            "left": {"collapsed": False, "visible": True, "current": "filebrowser"},
            "relativeSizes": [share, 1 - share, 0],
        }
        workspace = {"data": {"layout-restorer:data": layout}, "metadata": {"id": "default"}}
        first.write_text(json.dumps(workspace, indent=1) + "\n", encoding="utf-8")
    return paths


def _learner_custom_css() -> str:
    """The learner's own ``custom.css`` (Jupyter's config folder), which ours must not hide."""
    try:
        from jupyter_core.paths import jupyter_config_dir

        return (Path(jupyter_config_dir()) / "custom" / "custom.css").read_text(encoding="utf-8")
    except (ImportError, OSError, UnicodeDecodeError):
        return ""


def _write_custom_css(folder: Path) -> Path:
    """``folder/custom.css``: :data:`COLLAPSED_OUTPUT_CSS`, then the learner's own custom.css
    (JupyterLab serves one custom.css: the first found on its search path, here ours)."""
    folder.mkdir(parents=True, exist_ok=True)
    own = _learner_custom_css()
    text = COLLAPSED_OUTPUT_CSS + (f"\n/* your own custom.css */\n{own}" if own.strip() else "")
    (folder / "custom.css").write_text(text, encoding="utf-8")
    return folder


def lab_command(
    dest: Path, *, port: int | None = None, no_browser: bool = False, extra: list[str] = ()
) -> list[str]:
    """The ``jupyter lab`` command (this Python's) serving ``dest``.

    JupyterLab reads this course's defaults from ``dest`` (see :func:`lab_settings`). As root it
    gets ``--allow-root`` (JupyterLab refuses to run as root without it) and one line says so.
    """
    dest = Path(dest)
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={dest}"]
    if (dest / FIRST_LESSON).is_file():
        cmd.append(f"--LabApp.default_url=/lab/tree/{FIRST_LESSON}")
    try:
        lab = lab_settings(dest)
    except OSError as e:  # a read-only course folder still opens, with JupyterLab's defaults
        print(f"note: JupyterLab opens with its own defaults ({e})", file=sys.stderr)
    else:
        cmd.append(f"--LabApp.app_settings_dir={lab['settings']}")
        cmd.append(f"--LabApp.workspaces_dir={lab['workspaces']}")
        cmd.append("--LabApp.custom_css=True")
        cmd.append(f"--ServerApp.tornado_settings=static_custom_path={lab['custom']}")
    if port is not None:
        cmd.append(f"--port={port}")
    if no_browser:
        cmd.append("--no-browser")
    if _is_root() and not _gives_allow_root(list(extra)):
        print(ROOT_NOTE, flush=True)
        cmd.append("--allow-root")
    return [*cmd, *extra]


def _lab_ip(extra: list[str]) -> str:
    """The address JupyterLab will listen on (``--ip``/``--ServerApp.ip`` after ``--``)."""
    ip = "localhost"
    for a in extra:
        for flag in ("--ip=", "--ServerApp.ip=", "--NotebookApp.ip="):
            if a.startswith(flag):
                ip = a[len(flag) :]
    return "127.0.0.1" if ip in ("localhost", "") else ip


def _browser_found() -> bool:
    import webbrowser

    try:
        webbrowser.get()
    except webbrowser.Error:
        return False
    return True


def lab_preflight(
    dest: Path, *, port: int | None = None, no_browser: bool = False, extra: list[str] = ()
) -> str | None:
    """Why JupyterLab cannot start here, as one line that says what to do; None when it can.

    Checked before JupyterLab replaces this process: the course folder must be writable (your
    answers are saved there), JupyterLab's runtime folder too, and a ``--port`` you name must
    be free (JupyterLab would silently take another). A machine without a web browser is no
    obstacle: see :func:`opens_no_browser`.
    """
    dest = Path(dest)
    if not os.access(dest, os.W_OK):
        return (
            f"{dest} is read-only, so your work could not be saved there: "
            "name a folder you can write, `tensorlab start DIR`"
        )
    try:
        from jupyter_core.paths import jupyter_runtime_dir

        runtime = Path(jupyter_runtime_dir())
        runtime.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=runtime):
            pass
    except ImportError:  # pragma: no cover - jupyter_core comes with JupyterLab
        pass
    except OSError as e:
        return (
            f"JupyterLab cannot write its runtime folder {runtime} ({e.strerror or e}): "
            "set JUPYTER_RUNTIME_DIR to a folder you can write"
        )
    if port is not None:
        import socket

        with socket.socket(socket.AF_INET6 if ":" in _lab_ip(extra) else socket.AF_INET) as sock:
            try:
                sock.bind((_lab_ip(list(extra)), port))
            except OSError as e:
                return (
                    f"port {port} cannot be used ({e.strerror or e}): choose another with "
                    "--port N, or leave --port out and JupyterLab picks a free one"
                )
    return None


def _gives_no_browser(extra: list[str]) -> bool:
    return any(
        a == "--no-browser" or a.lower().startswith("--serverapp.open_browser") for a in extra
    )


NO_BROWSER_NOTE = (
    "no web browser found on this machine: JupyterLab serves without opening one "
    "(as with --no-browser); open the address printed below"
)


def opens_no_browser(no_browser: bool, extra: list[str] = ()) -> tuple[bool, str | None]:
    """Whether JupyterLab serves without opening a browser, and the note to print when that is
    because this machine has none (a server, a container, a session over SSH): JupyterLab
    serves all the same, and ``tensorlab start`` prints where (:func:`serving_lines`)."""
    if no_browser or _gives_no_browser(list(extra)):
        return True, None
    if _browser_found():
        return False, None
    return True, NO_BROWSER_NOTE


_ANY_HOST = ("", "0.0.0.0", "::", "*")
_LOCAL_HOST = ("localhost", "127.0.0.1", "::1", *_ANY_HOST)


def serving_lines(info: dict, default_url: str = "/lab") -> list[str]:
    """Where a running JupyterLab answers, from its server file (``jpserver-<pid>.json``): the
    address with its token, and the SSH tunnel that reaches it from another computer."""
    from urllib.parse import urlsplit

    port = int(info["port"])
    url = str(info.get("url") or f"http://localhost:{port}/").rstrip("/")
    host = str(info.get("hostname") or "localhost")
    if host in _ANY_HOST:  # listening everywhere (--ip=0.0.0.0): localhost is one of them
        parts = urlsplit(url)
        url = parts._replace(netloc=f"localhost:{parts.port or port}").geturl()
    token = info.get("token") or ""
    address = url + "/" + default_url.lstrip("/") + (f"?token={token}" if token else "")
    target = "localhost" if host in _ANY_HOST else host
    there = (
        "then open the same address there"
        if host in _LOCAL_HOST
        else f"then open it there with localhost:{port} in place of {host}:{port}"
    )
    return [
        "JupyterLab is serving the course at",
        f"    {address}",
        f"from another computer, tunnel to it through SSH with `ssh -N -L {port}:{target}:{port} "
        f"user@host` (your login on this machine), {there}",
    ]


def _lab_default_url(cmd: list[str]) -> str:
    flag = "--LabApp.default_url="
    return next((a[len(flag) :] for a in reversed(cmd) if a.startswith(flag)), "/lab")


def _answers(url: str) -> bool:
    """Whether a web server answers at ``url`` (any HTTP status counts)."""
    import urllib.error
    import urllib.request

    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy
    try:
        with direct.open(url.rstrip("/") + "/api/status", timeout=2):
            return True
    except urllib.error.HTTPError:  # 403 without the token: it answers
        return True
    except (OSError, ValueError):
        return False


def serve_lab(cmd: list[str], cwd: Path, *, wait_for_address: float = 180.0) -> int:
    """Run JupyterLab without a browser and print where it serves (:func:`serving_lines`) once
    it has written its server file; then wait for it. Ctrl-C reaches JupyterLab itself (the
    terminal signals the whole foreground group); SIGTERM and SIGHUP sent to this process are
    passed on, so stopping ``tensorlab start`` stops JupyterLab too."""
    import signal
    import threading
    import time

    from jupyter_core.paths import jupyter_runtime_dir

    sys.stdout.flush()
    sys.stderr.flush()
    forwarded = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    if threading.current_thread() is not threading.main_thread():  # signals are the main's
        forwarded = []
    pending: list[int] = []  # a signal that came before JupyterLab did
    procs: list[subprocess.Popen] = []

    def pass_on(signum, _frame):
        if procs:
            procs[0].send_signal(signum)
        else:
            pending.append(signum)

    previous = {sig: signal.signal(sig, pass_on) for sig in forwarded}
    if forwarded:  # Ctrl-C: JupyterLab asks, then stops; this process waits for it
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        proc = subprocess.Popen(cmd, cwd=cwd)
        procs.append(proc)
        for signum in pending:
            proc.send_signal(signum)
        server_file = Path(jupyter_runtime_dir()) / f"jpserver-{proc.pid}.json"
        deadline = time.monotonic() + wait_for_address
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                info = json.loads(server_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):  # not written yet, or half written
                time.sleep(0.2)
                continue
            if not _answers(str(info.get("url", ""))):  # printed once it answers (and its
                time.sleep(0.2)  # own log has said so above)
                continue
            print("\n".join(serving_lines(info, _lab_default_url(cmd))), flush=True)
            break
        code = proc.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if procs and procs[0].poll() is None:  # torn down here: take JupyterLab along
            procs[0].terminate()
            procs[0].wait()
    return code if code >= 0 else 128 - code


def run_lab(cmd: list[str], cwd: Path) -> int:
    """Run JupyterLab. On POSIX the process becomes JupyterLab (signals reach it directly)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.chdir(cwd)
        os.execv(cmd[0], cmd)  # does not return
    return subprocess.call(cmd, cwd=cwd)  # pragma: no cover - Windows
