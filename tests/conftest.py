"""Shared test setup. Tests that compare with real PyTorch use the ``torch`` fixture or
``helpers.require_torch()``; they skip locally without the ``oracle`` extra and FAIL under CI."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.configuration import set_hypothesis_home_dir

REPO = Path(__file__).resolve().parent.parent

# The suite runs on one worker per core plus one (``-n auto``, see pytest_xdist_auto_num_workers):
# each worker's numpy gets one BLAS thread, and torch's OpenMP threads sleep instead of spinning
# while they wait (spinning threads take another worker's core; issue 25 measured torch collapsing
# under load). Set before numpy and torch load; torch keeps its 2 threads (the backend choices
# tensorlab mirrors assume them).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# Hypothesis keeps a cache of constants (and, without database=None, examples) in ./.hypothesis.
# Tests and the kernels they start (nbval lessons, grading) keep it in a temporary folder instead:
# a test run writes nothing into the repository (checked at the end of the session).
_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="tensorlab-hypothesis-")
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = _HYPOTHESIS_HOME
set_hypothesis_home_dir(_HYPOTHESIS_HOME)

settings.register_profile(
    "tensorlab",
    deadline=None,
    database=None,  # never write .hypothesis/ into the repo
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("tensorlab")


@pytest.fixture(scope="session")
def torch():
    from helpers import require_torch

    return require_torch()


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker per core, plus one. The browser, lesson and grading tests spend much
    of their time waiting on other processes (JupyterLab and Chromium, kernels starting, sandboxed
    notebooks running into their time limits); a third worker on two cores fills that time."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return cores + 1


def pytest_report_header(config):
    try:
        import torch as _t

        return f"oracle: torch {_t.__version__}"
    except ImportError:
        return "oracle: torch not installed (oracle tests skip; they fail under CI)"


def pytest_configure(config):
    os.environ.setdefault("MPLBACKEND", "Agg")


# ---------------------------------------------------------------------------- a clean repository
# Paths that running Python and the linters create by design; anything else new in the work tree
# after the run (a .hypothesis/ folder, a notebook checkpoint, a course copy, screenshots) fails it.
_ALLOWED_LEFTOVERS = ("__pycache__", ".ruff_cache", ".pytest_cache", ".venv", "venv")


def _untracked(root: Path) -> set[str] | None:
    try:
        out = subprocess.run(
            ["git", "ls-files", "--others", "--directory", "--no-empty-directory"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None  # not a git checkout (an unpacked sdist): nothing to compare
    return {line for line in out.stdout.splitlines() if line}


def _allowed(path: str) -> bool:
    return any(part in _ALLOWED_LEFTOVERS for part in Path(path).parts)


def pytest_sessionstart(session):
    session.config._tensorlab_untracked = _untracked(REPO)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(_HYPOTHESIS_HOME, ignore_errors=True)
    before = getattr(session.config, "_tensorlab_untracked", None)
    if before is None or hasattr(session.config, "workerinput"):
        return
    after = _untracked(REPO) or set()
    new = sorted(p for p in after - before if not _allowed(p))
    if new:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(
                "tests wrote into the repository: " + ", ".join(new), red=True, bold=True
            )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    """The agreement figure of the third-party code corpora (tests/test_corpus.py)."""
    counts = {}
    for outcome in ("passed", "failed", "xfailed"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid = getattr(report, "nodeid", "")
            if getattr(report, "when", "call") != "call" or "test_corpus.py::" not in nodeid:
                continue
            if "::test_pytorch_documentation_example[" in nodeid:
                kind = "documentation"
            elif "::test_teaching_snippet[" in nodeid:
                kind = "snippet"
            else:
                continue
            agree, total = counts.get(kind, (0, 0))
            counts[kind] = (agree + (outcome == "passed"), total + 1)
    for kind, (agree, total) in counts.items():
        what = {"documentation": "PyTorch documentation examples", "snippet": "teaching programs"}
        terminalreporter.write_line(
            f"third-party code, {what[kind]}: {agree} of {total} agree with torch "
            f"({100 * agree / total:.1f}%)"
        )


# ---------------------------------------------------------------------------- lessons needing torch
def pytest_collection_modifyitems(config, items):
    """A lesson whose metadata says ``"tensorlab": {"requires": ["torch"]}`` (lesson 19, real
    PyTorch beside tensorlab) skips locally without the oracle extra; under CI torch is there."""
    import importlib.util
    import json

    from helpers import IN_CI

    if IN_CI or importlib.util.find_spec("torch") is not None:
        return
    needs: dict[str, bool] = {}
    for item in items:
        path = Path(str(item.path))
        if path.suffix != ".ipynb":
            continue
        if path not in needs:
            meta = json.loads(path.read_text()).get("metadata", {})
            needs[path] = "torch" in meta.get("tensorlab", {}).get("requires", [])
        if needs[path]:
            item.add_marker(pytest.mark.skip(reason="needs torch (the oracle extra)"))


# ---------------------------------------------------------------------------- lessons
# Cells whose output nbval ignores still have their printed numbers compared, loosely.
import nbval_loose  # noqa: E402

nbval_loose.install()
