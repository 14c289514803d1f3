"""End-to-end setup: a real JupyterLab on 127.0.0.1 serving a course made by ``tensorlab start``,
driven through Debian's Chromium with Playwright (which never downloads a browser here).

Without Chromium or Playwright these tests skip locally with the reason; under CI (``CI`` set)
they FAIL instead, so the browser suite can never be skipped silently there. Set
``TENSORLAB_CHROMIUM`` to use another Chromium build, ``TENSORLAB_E2E_ARTIFACTS`` to keep the
screenshots somewhere else than pytest's temporary folder.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

IN_CI = bool(os.environ.get("CI"))
HERE = Path(__file__).resolve().parent
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Deterministic JupyterLab: no news or update checks, no extension manager queries, no
# autosave, every cell attached to the DOM (no windowed rendering), kernels started on open,
# execution times recorded in the cells' metadata.
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification": {
        "checkForUpdates": False,
        "fetchNews": "false",
        "doNotDisturbMode": True,
    },
    "@jupyterlab/notebook-extension/tracker": {
        "windowingMode": "none",
        "autoStartDefaultKernel": True,
        "kernelShutdown": True,
        "recordTiming": True,  # cells carry their execution times: proof they ran in this test
    },
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/extensionmanager-extension/plugin": {"enabled": False},
}
E2E_TIMEOUT = 120.0  # seconds for one lesson to run (they take 5-15 s alone on 2 cores)


def _unavailable(reason: str):
    """Skip locally; fail under CI, where the browser suite must run."""
    if IN_CI:
        pytest.fail(f"browser tests cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def find_chromium() -> str | None:
    """``$TENSORLAB_CHROMIUM``, else a Chromium or Chrome on PATH (Debian: /usr/bin/chromium)."""
    env = os.environ.get("TENSORLAB_CHROMIUM")
    if env:
        return env if os.access(env, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_lab_settings(settings_dir: Path) -> None:
    for plugin, values in LAB_SETTINGS.items():
        path = settings_dir / f"{plugin}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values, indent=1))


class Lab:
    """A JupyterLab server started with ``tensorlab start DIR --no-browser --port P -- ...``."""

    def __init__(self, base: Path):
        self.base = base
        self.course = base / "course"
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = base / "jupyterlab.log"
        self.proc: subprocess.Popen | None = None
        self.start_output = ""

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("MPLBACKEND", None)  # the test session's Agg must not leak into the kernels
        env.pop("JUPYTER_PLATFORM_DIRS", None)
        settings = self.base / "lab-settings"
        write_lab_settings(settings)
        env.update(
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(self.base / "lab-workspaces"),
            JUPYTER_CONFIG_DIR=str(self.base / "jupyter-config"),
            JUPYTER_DATA_DIR=str(self.base / "jupyter-data"),
            JUPYTER_RUNTIME_DIR=str(self.base / "jupyter-runtime"),
            IPYTHONDIR=str(self.base / "ipython"),
            PYDEVD_DISABLE_FILE_VALIDATION="1",
        )
        return env

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "tensorlab.cli",
            "start",
            str(self.course),
            "--no-browser",
            "--port",
            str(self.port),
            "--",
            f"--IdentityProvider.token={self.token}",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port_retries=0",
            "--ServerApp.terminals_enabled=False",
            # the driver opens each notebook in the page already loaded, through the command the
            # file browser runs (tests/e2e/lab_driver.py): JupyterLab boots once per session
            "--LabApp.expose_app_in_browser=True",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.append("--allow-root")  # containers and CI often run as root
        log = open(self.log_path, "w")  # noqa: SIM115 - the server writes to it until stop()
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.base,
            env=self.env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stop() ends it and its kernels
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early:\n{self.log()}")
            try:
                self.api("GET", "/api/status")
                return
            except OSError:
                time.sleep(0.25)
        raise RuntimeError(f"JupyterLab did not answer within 90 s:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def api(self, method: str, path: str):
        req = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels(self) -> None:
        """End every notebook session (and its kernel) of the previous page."""
        for s in self.api("GET", "/api/sessions") or []:
            try:
                self.api("DELETE", f"/api/sessions/{s['id']}")
            except OSError:
                pass

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ---------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = find_chromium()
    if path is None:
        _unavailable(
            "no Chromium found: install it (`apt-get install -y chromium`) or set "
            "TENSORLAB_CHROMIUM; Playwright's own browser download is not used"
        )
    return path


@pytest.fixture(scope="session")
def playwright_api():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (`pip install -e '.[test]'`)")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory) -> Path:
    """Where screenshots go (kept after the run; the path is printed in the summary)."""
    env = os.environ.get("TENSORLAB_E2E_ARTIFACTS")
    path = Path(env) if env else tmp_path_factory.mktemp("e2e-artifacts")
    path.mkdir(parents=True, exist_ok=True)
    _ARTIFACTS.append(path)
    return path


_ARTIFACTS: list[Path] = []


@pytest.fixture(scope="session")
def lab(tmp_path_factory, chromium_path, playwright_api):
    """JupyterLab serving a fresh course (the browser's presence is checked first)."""
    server = Lab(tmp_path_factory.mktemp("lab"))
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(playwright_api, chromium_path):
    b = playwright_api.chromium.launch(
        executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True
    )
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="session")
def jlab(lab, browser, artifacts):
    """The learner's JupyterLab in one browser: opens notebooks, runs them, remembers the last."""
    from lab_driver import JupyterLabPage

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    session = JupyterLabPage(lab, context, artifacts)
    try:
        yield session
    finally:
        session.close()
        context.close()


# ---------------------------------------------------------------------------- ordering, summary
def pytest_collection_modifyitems(config, items):
    """Run each lesson's explorer tests right after the lesson itself (one run per lesson)."""
    slots = [i for i, it in enumerate(items) if Path(str(it.fspath)).parent == HERE]
    if not slots:
        return
    from lab_driver import order_key

    ordered = sorted((items[i] for i in slots), key=order_key)
    for i, it in zip(slots, ordered):
        items[i] = it


def pytest_terminal_summary(terminalreporter):
    for path in _ARTIFACTS:
        terminalreporter.write_line(f"browser test screenshots: {path}")


def pytest_configure(config):
    config.addinivalue_line("markers", "e2e: drives JupyterLab in Chromium (tests/e2e)")
