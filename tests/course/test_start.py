"""``tensorlab start``: the course is copied without overwriting anything, ``--update`` adds only
what is new, JupyterLab gets the right arguments, the wheel carries the course (built and installed
in a fresh venv, then started), and the saved lessons fall back to still pictures in nbconvert HTML.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tensorlab import cli, course
from tensorlab.course import MARKER, CourseError, course_files, prepare_course

ROOT = Path(__file__).resolve().parents[2]
IN_CI = bool(os.environ.get("CI"))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def repo_course_files() -> list[str]:
    """The course as the repository holds it (visible files of lessons/ and exercises/)."""
    out = []
    for part in ("lessons", "exercises"):
        for p in (ROOT / part).rglob("*"):
            rel = p.relative_to(ROOT)
            if p.is_file() and not any(s.startswith(".") or s == "__pycache__" for s in rel.parts):
                out.append(rel.as_posix())
    return sorted(out)


@pytest.fixture
def source(tmp_path) -> Path:
    """A private copy of the course to play "a newer tensorlab" with."""
    src = tmp_path / "src"
    for rel in course_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(course.course_root() / rel, src / rel)
    return src


# ---------------------------------------------------------------------------- copying
def test_course_in_a_clone_is_the_repository():
    assert course.course_root() == ROOT
    files = course_files()
    assert files == repo_course_files()
    assert "lessons/00_start_here.ipynb" in files and "exercises/release.json" in files


def test_first_start_copies_everything(tmp_path, source):
    dest = tmp_path / "course"
    report = prepare_course(dest, source=source)
    assert report.first and not report.skipped
    assert report.copied == course_files(source)
    for rel in report.copied:
        assert digest(dest / rel) == digest(source / rel), rel
    marker = json.loads((dest / MARKER).read_text())
    assert marker["files"] == course_files(source)
    n_lessons = sum(1 for f in report.copied if f.startswith("lessons/") and f.endswith(".ipynb"))
    assert f"copied {n_lessons} lessons" in report.lines()[0]


def test_first_start_never_overwrites_and_says_what_it_skipped(tmp_path, source):
    dest = tmp_path / "course"
    mine = dest / "lessons" / "00_start_here.ipynb"
    mine.parent.mkdir(parents=True)
    mine.write_text("my own notes")
    report = prepare_course(dest, source=source)
    assert report.skipped == ["lessons/00_start_here.ipynb"]
    assert mine.read_text() == "my own notes"
    assert "lessons/00_start_here.ipynb" not in report.copied
    text = "\n".join(report.lines())
    assert "skipped 1 file(s) you already have" in text and "00_start_here.ipynb" in text


def test_later_start_copies_nothing_and_update_adds_only_new_files(tmp_path, source):
    dest = tmp_path / "course"
    prepare_course(dest, source=source)
    edited = dest / "exercises" / "01_convolution.ipynb"
    edited.write_text("the learner's answers")
    removed = dest / "lessons" / "12_pytorch_trivia.ipynb"
    removed.unlink()
    # a newer tensorlab: one new lesson, one changed lesson
    (source / "lessons" / "13_new_topic.ipynb").write_text("{}")
    (source / "exercises" / "01_convolution.ipynb").write_text("a newer template")

    again = prepare_course(dest, source=source)
    assert not again.first and again.copied == [] and again.skipped == []
    assert again.available == ["lessons/13_new_topic.ipynb"]
    text = "\n".join(again.lines())
    assert "--update" in text and "13_new_topic.ipynb" in text
    assert not (dest / "lessons" / "13_new_topic.ipynb").exists()
    assert not removed.exists()

    update = prepare_course(dest, update=True, source=source)
    assert update.copied == ["lessons/13_new_topic.ipynb"]
    assert update.missing == ["lessons/12_pytorch_trivia.ipynb"]  # reported, not restored
    assert not removed.exists()
    assert edited.read_text() == "the learner's answers"
    assert "lessons/13_new_topic.ipynb" in json.loads((dest / MARKER).read_text())["files"]
    assert prepare_course(dest, update=True, source=source).copied == []


def test_update_never_overwrites_a_file_with_a_new_name(tmp_path, source):
    dest = tmp_path / "course"
    prepare_course(dest, source=source)
    (source / "lessons" / "13_new_topic.ipynb").write_text("{}")
    (dest / "lessons" / "13_new_topic.ipynb").write_text("the learner's own file")
    report = prepare_course(dest, update=True, source=source)
    assert report.copied == [] and report.skipped == ["lessons/13_new_topic.ipynb"]
    assert (dest / "lessons" / "13_new_topic.ipynb").read_text() == "the learner's own file"


def test_hidden_files_are_not_part_of_the_course(tmp_path, source):
    (source / "lessons" / ".ipynb_checkpoints").mkdir()
    (source / "lessons" / ".ipynb_checkpoints" / "00_start_here-checkpoint.ipynb").write_text("{}")
    assert not any("checkpoint" in f for f in course_files(source))


def test_destination_that_is_a_file_is_an_error(tmp_path, source):
    (tmp_path / "course").write_text("")
    with pytest.raises(CourseError, match="not a folder"):
        prepare_course(tmp_path / "course", source=source)


# ---------------------------------------------------------------------------- the command
@pytest.fixture
def launched(monkeypatch):
    """Capture the JupyterLab command instead of running it."""
    calls = []

    def fake_run_lab(cmd, cwd):
        calls.append((cmd, cwd))
        return 0

    monkeypatch.setattr(course, "run_lab", fake_run_lab)
    monkeypatch.setattr(course, "serve_lab", fake_run_lab)  # --no-browser: serve, print where
    monkeypatch.setattr(course, "_browser_found", lambda: True)  # a desktop, not this CI box
    return calls


def test_cli_start_copies_then_opens_jupyterlab_there(tmp_path, monkeypatch, capsys, launched):
    monkeypatch.chdir(tmp_path)
    argv = ["start", "--no-browser", "--port", "8899", "--", "--IdentityProvider.token=t0k"]
    assert cli.main(argv) == 0
    dest = (tmp_path / "tensorlab-course").resolve()
    assert (dest / "lessons" / "00_start_here.ipynb").is_file()
    assert (dest / "exercises" / "release.json").is_file()
    ((cmd, cwd),) = launched
    assert cmd[:3] == [sys.executable, "-m", "jupyterlab"] and cwd == dest
    assert f"--ServerApp.root_dir={dest}" in cmd
    assert "--port=8899" in cmd and "--no-browser" in cmd
    assert cmd[-1] == "--IdentityProvider.token=t0k"
    assert "--LabApp.default_url=/lab/tree/lessons/00_start_here.ipynb" in cmd
    out = capsys.readouterr().out
    assert "copied" in out and str(dest) in out

    assert cli.main(["start", "--update"]) == 0
    (cmd2, _) = launched[1]
    assert "--no-browser" not in cmd2 and not any(a.startswith("--port") for a in cmd2)
    assert "already has every lesson" in capsys.readouterr().out


@pytest.mark.parametrize("root", [True, False])
def test_cli_start_as_root_passes_allow_root_and_says_so(
    tmp_path, monkeypatch, capsys, launched, root
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000, raising=False)
    assert cli.main(["start", "--no-browser"]) == 0
    ((cmd, _),) = launched
    out = capsys.readouterr().out
    assert cmd.count("--allow-root") == (1 if root else 0)
    assert out.count(course.ROOT_NOTE) == (1 if root else 0)
    # given by the learner after `--`: passed once, no note
    for given in (["--allow-root"], ["--ServerApp.allow_root=True"]):
        assert cli.main(["start", "--no-browser", "--", *given]) == 0
        cmd = launched[-1][0]
        assert cmd.count("--allow-root") == given.count("--allow-root") and cmd[-1] == given[0]
        assert course.ROOT_NOTE not in capsys.readouterr().out


def test_lab_settings_live_in_the_course_folder(tmp_path, monkeypatch, launched):
    """JupyterLab reads this course's defaults from the course folder: overrides (merged with an
    admin's application overrides.json) and a first layout that is never overwritten."""
    upstream = tmp_path / "app" / "settings"
    upstream.mkdir(parents=True)
    admin = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}
    (upstream / "overrides.json").write_text(json.dumps(admin))
    monkeypatch.setattr(course, "_default_app_settings_dir", lambda: upstream)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["start", "c", "--no-browser"]) == 0
    dest = (tmp_path / "c").resolve()
    ((cmd, _),) = launched
    lab = dest / course.LAB_DIR
    assert f"--LabApp.app_settings_dir={lab / 'settings'}" in cmd
    assert f"--LabApp.workspaces_dir={lab / 'workspaces'}" in cmd
    overrides = json.loads((lab / "settings" / "overrides.json").read_text())
    assert overrides == {**admin, **course.LAB_OVERRIDES}
    assert overrides["@jupyterlab/apputils-extension:notification"] == {"fetchNews": "false"}
    assert (lab.parent / ".gitignore").read_text().splitlines()[-1] == "*"
    (first,) = (lab / "workspaces").glob("default-*.jupyterlab-workspace")
    layout = json.loads(first.read_text())["data"]["layout-restorer:data"]
    assert layout["relativeSizes"][0] == course.FILE_BROWSER_SHARE
    first.write_text('{"data": {}, "metadata": {"id": "default"}}')  # the learner's own layout
    assert cli.main(["start", "c", "--no-browser"]) == 0
    assert json.loads(first.read_text())["data"] == {}


def test_collapsed_outputs_hide_their_preview_in_this_course_only(tmp_path, monkeypatch, launched):
    """A collapsed "Predict, then run" output shows no first line: the course's own custom.css
    (written into the course folder, served with --LabApp.custom_css) hides the placeholder's
    preview; the learner's own custom.css is kept after it."""
    config = tmp_path / "jupyter-config"
    (config / "custom").mkdir(parents=True)
    (config / "custom" / "custom.css").write_text(".mine { color: red; }\n")
    monkeypatch.setenv("JUPYTER_CONFIG_DIR", str(config))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["start", "c", "--no-browser"]) == 0
    ((cmd, _),) = launched
    custom = (tmp_path / "c").resolve() / course.LAB_DIR / "custom"
    assert "--LabApp.custom_css=True" in cmd
    assert f"--ServerApp.tornado_settings=static_custom_path={custom}" in cmd
    css = (custom / "custom.css").read_text()
    assert css.startswith(course.COLLAPSED_OUTPUT_CSS)
    rule = ".jp-OutputPlaceholder .jp-PlaceholderText {\n  display: none !important;\n}"
    assert rule in css
    assert css.rstrip().endswith(".mine { color: red; }")  # the learner's own rules still apply
    assert (config / "custom" / "custom.css").read_text() == ".mine { color: red; }\n"  # untouched


def test_jupyterlab_serves_the_course_css(tmp_path):
    """The flags work on the real JupyterLab: /custom/custom.css is this course's file and the
    lab page links it (the learner's Jupyter config folder is not involved)."""
    dest = tmp_path / "course"
    dest.mkdir()
    port, token = _free_port(), "c55"
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "cfg")}
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "runtime")
    extra = [f"--IdentityProvider.token={token}", "--ServerApp.ip=127.0.0.1"]
    cmd = course.lab_command(dest, port=port, no_browser=True, extra=extra)
    proc = subprocess.Popen(
        cmd, cwd=dest, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        css = None
        deadline = time.monotonic() + 90
        while css is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                url = f"http://127.0.0.1:{port}/custom/custom.css"
                with urllib.request.urlopen(url, timeout=5) as r:
                    css = r.read().decode()
            except OSError:
                time.sleep(0.5)
        assert css is not None, "JupyterLab did not serve /custom/custom.css"
        assert css.startswith(course.COLLAPSED_OUTPUT_CSS)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=10) as r:
            assert "custom/custom.css" in r.read().decode()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def test_cli_start_into_a_file_fails_cleanly(tmp_path, capsys, launched):
    (tmp_path / "x").write_text("")
    assert cli.main(["start", str(tmp_path / "x")]) == 1
    assert "not a folder" in capsys.readouterr().err and not launched


def test_cli_start_with_a_port_in_use_says_so_in_one_line(tmp_path, capsys, launched):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = cli.main(["start", str(tmp_path / "c"), "--no-browser", "--port", str(port)])
    err = capsys.readouterr().err
    assert code == 1 and not launched
    assert err.count("\n") == 1 and f"port {port} cannot be used" in err and "--port N" in err


def _no_browser_here(monkeypatch, tmp_path):
    """This process as on a server: no display, no $BROWSER, no browser program on PATH."""
    import webbrowser

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # no browser program to find
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # forget what was registered before
    monkeypatch.setattr(webbrowser, "_browsers", {})


def test_cli_start_without_a_browser_serves_without_one(tmp_path, monkeypatch, capsys):
    """A server, a container, a session over SSH: JupyterLab serves as with --no-browser (where
    ``tensorlab start`` prints the address), and one line says why."""
    calls = []
    monkeypatch.setattr(course, "run_lab", lambda cmd, cwd: calls.append(("exec", cmd)) or 0)
    monkeypatch.setattr(course, "serve_lab", lambda cmd, cwd: calls.append(("serve", cmd)) or 0)
    _no_browser_here(monkeypatch, tmp_path)
    assert not course._browser_found()
    assert cli.main(["start", str(tmp_path / "c")]) == 0
    ((how, cmd),) = calls
    assert how == "serve" and "--no-browser" in cmd
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.count(course.NO_BROWSER_NOTE) == 1
    assert "no web browser found" in course.NO_BROWSER_NOTE
    # asked for: the same, without the note
    assert cli.main(["start", str(tmp_path / "c"), "--no-browser"]) == 0
    assert calls[-1][0] == "serve" and course.NO_BROWSER_NOTE not in capsys.readouterr().out
    # with a browser, JupyterLab replaces this process and opens it
    monkeypatch.setattr(course, "_browser_found", lambda: True)
    assert cli.main(["start", str(tmp_path / "c")]) == 0
    assert calls[-1][0] == "exec" and "--no-browser" not in calls[-1][1]
    assert cli.main(["start", str(tmp_path / "c"), "--", "--ServerApp.open_browser=False"]) == 0
    assert calls[-1][0] == "serve"


@pytest.mark.parametrize(
    "info, address, tunnel",
    [
        (
            {"url": "http://localhost:8890/", "hostname": "localhost", "port": 8890, "token": "ab"},
            "http://localhost:8890/lab/tree/lessons/00_start_here.ipynb?token=ab",
            "ssh -N -L 8890:localhost:8890 user@host",
        ),
        (  # --ip=0.0.0.0: every interface, localhost among them
            {"url": "http://0.0.0.0:8888/", "hostname": "0.0.0.0", "port": 8888, "token": "cd"},
            "http://localhost:8888/lab/tree/lessons/00_start_here.ipynb?token=cd",
            "ssh -N -L 8888:localhost:8888 user@host",
        ),
        (  # one address only, a base URL, a password instead of a token
            {"url": "http://10.0.0.5:9000/hub/", "hostname": "10.0.0.5", "port": 9000, "token": ""},
            "http://10.0.0.5:9000/hub/lab/tree/lessons/00_start_here.ipynb",
            "ssh -N -L 9000:10.0.0.5:9000 user@host",
        ),
    ],
)
def test_serving_lines_give_the_address_and_the_tunnel(info, address, tunnel):
    lines = course.serving_lines(info, "/lab/tree/lessons/00_start_here.ipynb")
    assert len(lines) == 3 and lines[1].strip() == address
    assert f"`{tunnel}`" in lines[2]
    assert ("same address" in lines[2]) == (info["hostname"] != "10.0.0.5")
    assert course.serving_lines(info)[1].strip().split("?")[0] == address.split("/lab/")[0] + "/lab"


def test_cli_start_with_an_unwritable_runtime_folder(tmp_path, monkeypatch, capsys, launched):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "file" / "runtime"))
    assert cli.main(["start", str(tmp_path / "c"), "--no-browser"]) == 1 and not launched
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "JUPYTER_RUNTIME_DIR" in err


def test_cli_start_in_a_read_only_course_folder(tmp_path, monkeypatch, capsys, launched):
    assert cli.main(["start", str(tmp_path / "c"), "--no-browser"]) == 0  # the course is there
    dest = (tmp_path / "c").resolve()
    if os.geteuid() == 0:  # root writes anywhere: make the folder look like a read-only mount
        real = os.access
        monkeypatch.setattr(
            course.os, "access", lambda p, m: False if Path(p) == dest else real(p, m)
        )
    else:
        dest.chmod(0o555)
    try:
        assert cli.main(["start", str(dest), "--no-browser"]) == 1 and len(launched) == 1
    finally:
        dest.chmod(0o755)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is read-only" in err and "tensorlab start DIR" in err


def test_cli_start_help_and_usage():
    r = subprocess.run(
        [sys.executable, "-m", "tensorlab.cli", "start", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "--update" in r.stdout and "--no-browser" in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "tensorlab.cli", "start", "--port", "many"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2


def test_cli_check_in_a_started_course_uses_the_shipped_templates(tmp_path, monkeypatch, launched):
    """A learner answers in place, so the notebook no longer matches release.json: ``check``
    still grades it against the pristine template shipped with tensorlab."""
    pytest.importorskip("nbclient")
    import nbformat

    monkeypatch.chdir(tmp_path)
    assert cli.main(["start", "course"]) == 0
    nb_path = tmp_path / "course" / "exercises" / "01_convolution.ipynb"
    nb = nbformat.read(nb_path, as_version=4)
    cell = next(
        c
        for c in nb.cells
        if c.metadata.get("tensorlab", {}) == {"question": "conv.valid_shape", "role": "answer"}
    )
    cell.source = "def valid_shape(i, k):\n    return (i[0] - k[0], i[1] - k[1])"
    nbformat.write(nb, nb_path)
    r = subprocess.run(
        [sys.executable, "-m", "tensorlab.cli", "check", str(nb_path), "--cell-timeout", "20"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=180,
    )
    assert r.returncode == 1, r.stderr  # a failed question: exit 1
    assert "✗ conv.valid_shape" in r.stdout
    assert "likely misconception: there are H - M + 1 valid positions" in r.stdout


# ---------------------------------------------------------------------------- the wheel
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _build_wheel(out: Path) -> Path:
    try:
        import hatchling  # noqa: F401

        isolation = ["--no-build-isolation"]
    except ImportError:  # pragma: no cover - the test extra installs hatchling
        if IN_CI:
            raise
        isolation = []
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            *isolation,
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        timeout=300,
    )
    (wheel,) = out.glob("tensorlab_course-*.whl")
    return wheel


def _fresh_venv(where: Path, wheel: Path) -> Path:
    """A new venv with the wheel installed (no network: its dependencies are this env's)."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=300)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        timeout=300,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(site, "_outer_env.pth").write_text("\n".join(sorted(outer)) + "\n")
    return python


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The wheel built from this checkout and a fresh venv it is installed in (built once for
    this module's tests): (wheel, python, venv)."""
    where = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(where / "dist")
    return wheel, _fresh_venv(where / "venv", wheel), where / "venv"


def _jupyter_dirs(env: dict, root: Path) -> None:
    """Jupyter's own folders (config, data, runtime, lab settings) inside the test's folder."""
    for var, sub in (
        ("JUPYTER_CONFIG_DIR", "cfg"),
        ("JUPYTER_DATA_DIR", "data"),
        ("JUPYTER_RUNTIME_DIR", "rt"),
        ("JUPYTERLAB_SETTINGS_DIR", "settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "ws"),
    ):
        env[var] = str(root / "jupyter" / sub)


@pytest.mark.skipif(os.name != "posix", reason="the fresh-venv test uses POSIX paths and signals")
def test_wheel_carries_the_course_and_starts_from_a_fresh_venv(tmp_path, installed):
    wheel, python, venv = installed
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if n.startswith("tensorlab/_course/")]
        shipped = sorted(n.removeprefix("tensorlab/_course/") for n in names)
        assert shipped == repo_course_files()
        for n in names:
            rel = n.removeprefix("tensorlab/_course/")
            assert hashlib.sha256(z.read(n)).hexdigest() == digest(ROOT / rel), rel

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MPLBACKEND")}
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import tensorlab.course as c; print(c.__file__); print(c.course_root())",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env=env,
    ).stdout.split()
    assert all(Path(p).resolve().is_relative_to(venv.resolve()) for p in probe), probe
    from tensorlab._version import __version__

    with zipfile.ZipFile(wheel) as z:  # the distribution's name and the one version
        meta = z.read(f"tensorlab_course-{__version__}.dist-info/METADATA").decode()
    assert "\nName: tensorlab-course\n" in meta and f"\nVersion: {__version__}\n" in meta
    for cmd in ([str(venv / "bin" / "tensorlab")], [str(python), "-m", "tensorlab"]):
        r = subprocess.run([*cmd, "--version"], capture_output=True, text=True, env=env)
        assert (r.returncode, r.stdout) == (0, f"tensorlab {__version__}\n"), r.stderr

    port, token = _free_port(), "wheel-test-token"
    _jupyter_dirs(env, tmp_path)
    cmd = [
        str(venv / "bin" / "tensorlab"),
        "start",
        "my-course",
        "--no-browser",
        "--port",
        str(port),
    ]
    cmd += ["--", f"--IdentityProvider.token={token}", "--ServerApp.ip=127.0.0.1"]
    log = tmp_path / "lab.log"
    with open(log, "w") as fh:
        proc = subprocess.Popen(
            cmd, cwd=tmp_path, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:

        def get(path: str):
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}{path}", headers={"Authorization": f"token {token}"}
            )
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.read()

        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                get("/api/status")
                break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.25)
        status, body = get("/api/contents/lessons")
        listed = sorted(f["name"] for f in json.loads(body)["content"])
        assert listed == sorted(
            Path(f).name for f in repo_course_files() if f.startswith("lessons/")
        )
        assert get("/lab")[0] == 200

        # the course's own defaults: no "Jupyter news?" prompt, no date column in the browser
        def default(plugin: str, key: str):
            schema = json.loads(get(f"/lab/api/settings/{plugin}")[1])["schema"]
            return schema["properties"][key]["default"]

        assert default("@jupyterlab/apputils-extension:notification", "fetchNews") == "false"
        browser = "@jupyterlab/filebrowser-extension:browser"
        assert default(browser, "showLastModifiedColumn") is False
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    course_dir = tmp_path / "my-course"
    for rel in repo_course_files():
        assert digest(course_dir / rel) == digest(ROOT / rel), rel
    text = log.read_text()
    assert "copied" in text
    assert (course.ROOT_NOTE in text) == (os.geteuid() == 0)  # as root it started all the same
    # nothing written into the learner's own JupyterLab settings or workspaces
    for sub in ("settings", "ws"):
        where = tmp_path / "jupyter" / sub
        assert not where.exists() or not any(where.rglob("*.jupyterlab-*")), sub


@pytest.mark.skipif(
    os.name != "posix" or sys.platform == "darwin",
    reason="a server without a display: macOS always has a browser to open",
)
def test_start_on_a_headless_machine_serves_and_prints_the_address(tmp_path, installed):
    """The README's first command on a server (no DISPLAY, no $BROWSER, no browser on PATH):
    ``tensorlab start`` serves, prints the address with its token and the SSH tunnel, the
    address answers; SIGTERM to ``tensorlab start`` stops JupyterLab, and nothing is left."""
    _, python, venv = installed
    gone = ("PYTHONPATH", "MPLBACKEND", "DISPLAY", "WAYLAND_DISPLAY", "BROWSER")
    env = {k: v for k, v in os.environ.items() if k not in gone}
    env["PATH"] = str(venv / "bin")  # the venv's programs, no browser among them
    _jupyter_dirs(env, tmp_path)
    probe = subprocess.run(
        [str(python), "-c", "import webbrowser; webbrowser.get()"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert probe.returncode != 0 and "could not locate runnable browser" in probe.stderr
    port = _free_port()
    out, err = tmp_path / "start.out", tmp_path / "start.err"
    with open(out, "w") as fo, open(err, "w") as fe:
        proc = subprocess.Popen(
            [str(venv / "bin" / "tensorlab"), "start", "c", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=fo,
            stderr=fe,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        deadline = time.monotonic() + 120
        while "JupyterLab is serving the course at" not in out.read_text():
            assert proc.poll() is None, out.read_text() + err.read_text()
            assert time.monotonic() < deadline, out.read_text() + err.read_text()
            time.sleep(0.25)
        time.sleep(0.2)  # the rest of the three lines
        text = out.read_text()
        assert text.count(course.NO_BROWSER_NOTE) == 1
        lines = text.splitlines()
        address = lines[lines.index("JupyterLab is serving the course at") + 1].strip()
        base, _, query = address.partition("/lab/tree/")
        assert base == f"http://localhost:{port}"
        assert query.startswith("lessons/00_start_here.ipynb?token=")
        token = query.split("?token=")[1]
        assert f"`ssh -N -L {port}:localhost:{port} user@host`" in text
        with direct.open(address, timeout=20) as r:  # the page, not a login form
            assert r.status == 200 and "/login" not in r.geturl()
        with direct.open(f"{base}/api/contents/lessons?token={token}", timeout=20) as r:
            names = {f["name"] for f in json.loads(r.read())["content"]}
        assert "00_start_here.ipynb" in names
        (server_file,) = (tmp_path / "jupyter" / "rt").glob("jpserver-*.json")
        lab_pid = json.loads(server_file.read_text())["pid"]
        assert lab_pid != proc.pid  # JupyterLab runs as its child
    finally:
        proc.send_signal(signal.SIGTERM)  # to `tensorlab start` only: it passes it on
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            raise
    assert code == 0, err.read_text()
    deadline = time.monotonic() + 10
    while True:  # nothing left in its session: JupyterLab and whatever it started are gone
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "processes of `tensorlab start` outlived it"
        time.sleep(0.2)
    with pytest.raises(ProcessLookupError):
        os.kill(lab_pid, 0)
    assert not list((tmp_path / "jupyter" / "rt").glob("jpserver-*"))
    with socket.socket() as s, pytest.raises(OSError):
        s.connect(("127.0.0.1", port))
    assert "received signal 15, stopping" in err.read_text()


# ---------------------------------------------------------------------------- without a kernel
def _explorer_lessons() -> list[Path]:
    return [
        p
        for p in sorted((ROOT / "lessons").glob("*.ipynb"))
        if re.search(r"\b\w+Explorer\(", p.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("path", _explorer_lessons(), ids=lambda p: p.stem)
def test_nbconvert_html_shows_a_still_picture_after_every_explorer(path):
    """Opened without a kernel (nbconvert's HTML), a still picture follows each explorer
    (before the next one)."""
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(path, as_version=4)
    html, _ = HTMLExporter().from_notebook_node(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    explorers = [i for i, c in enumerate(code) if re.search(r"\b\w+Explorer\(", c.source)]
    assert explorers
    for k, i in enumerate(explorers):
        start = html.index(f'id="cell-id={code[i].id}"')
        upto = explorers[k + 1] if k + 1 < len(explorers) else None
        end = html.index(f'id="cell-id={code[upto].id}"') if upto is not None else len(html)
        assert "data:image/png;base64" in html[start:end], (
            f"{path.name}: no still picture after the explorer in cell {code[i].id}"
        )
