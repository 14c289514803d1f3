"""The distribution as a user meets it: its name, one version, declared dependencies, typed, a
changelog entry for this release, the build floor, and one table of exit statuses."""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tensorlab import cli
from tensorlab._version import __version__

tomllib = pytest.importorskip("tomllib")  # Python 3.11+ (the test venv's); 3.10 skips

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
IN_CI = bool(os.environ.get("CI"))

# import name -> distribution that provides it
PROVIDED_BY = {
    "IPython": "ipython",
    "ipykernel": "ipykernel",
    "ipywidgets": "ipywidgets",
    "jupyter_client": "jupyter_client",
    "jupyter_core": "jupyter_core",
    "jupyterlab": "jupyterlab",
    "jupyterlab_server": "jupyterlab_server",
    "hypothesis": "hypothesis",
    "matplotlib": "matplotlib",
    "nbclient": "nbclient",
    "nbformat": "nbformat",
    "numpy": "numpy",
    "scipy": "scipy",
    "zmq": "pyzmq",
}
OPTIONAL = {"torch", "distributed", "ipympl"}  # extras, imported only where asked for


def _requirement_names(reqs: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower().replace("_", "-") for r in reqs}


def _imported_top_level() -> set[str]:
    names = set()
    for path in (ROOT / "tensorlab").rglob("*.py"):
        if "_course" in path.parts or "examples" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def test_the_distribution_is_tensorlab_course_with_one_version_source():
    project = PYPROJECT["project"]
    assert project["name"] == "tensorlab-course"
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["hatch"]["version"]["path"] == "tensorlab/_version.py"
    import tensorlab

    assert tensorlab.__version__ == __version__
    assert importlib.metadata.version("tensorlab-course") == __version__
    assert PYPROJECT["project"]["scripts"] == {"tensorlab": "tensorlab.cli:main"}


def test_every_third_party_import_is_declared():
    third_party = _imported_top_level() - set(sys.stdlib_module_names) - {"tensorlab"}
    unknown = third_party - set(PROVIDED_BY) - OPTIONAL
    assert not unknown, f"imports with no known distribution: {sorted(unknown)}"
    declared = _requirement_names(PYPROJECT["project"]["dependencies"])
    needed = {PROVIDED_BY[m].lower().replace("_", "-") for m in third_party - OPTIONAL}
    needed -= {"jupyter-core"}  # jupyter_core comes with jupyter_client, which is declared
    assert needed <= declared, f"imported but not declared: {sorted(needed - declared)}"
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert "distributed" in _requirement_names(extras["cluster"])
    assert _requirement_names(extras["oracle"]) == {"torch"}


def test_the_build_floor_is_the_hatchling_the_tests_build_with():
    """The floor in build-system.requires is the release the test extra pins, and the wheel test
    (test_start.py) builds with it; hatchling 1.25.0 fails on `license-files` (PEP 639)."""
    (req,) = PYPROJECT["build-system"]["requires"]
    floor = re.fullmatch(r"hatchling>=([\d.]+)", req)[1]
    pins = [r for r in PYPROJECT["project"]["optional-dependencies"]["test"] if "hatchling" in r]
    assert pins == [f"hatchling=={floor}"]
    try:
        installed = importlib.metadata.version("hatchling")
    except importlib.metadata.PackageNotFoundError:
        if IN_CI:
            raise
        pytest.skip("hatchling (the test extra) is not installed")
    if IN_CI:
        assert installed == floor


def test_classifiers_name_pythons_oses_audience_and_status():
    cls = PYPROJECT["project"]["classifiers"]
    low = PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {low}" in cls
    assert any(c.startswith("Development Status ::") for c in cls)
    assert any(c.startswith("Intended Audience ::") for c in cls)
    assert "Operating System :: POSIX :: Linux" in cls and "Typing :: Typed" in cls
    assert (ROOT / "tensorlab" / "py.typed").is_file()


def test_changelog_has_this_release():
    text = (ROOT / "CHANGELOG.md").read_text()
    (first,) = re.findall(r"^## \[?([\d.]+)\]?", text, re.M)[:1]
    assert first == __version__


@pytest.mark.parametrize("how", [["-m", "tensorlab"], ["-m", "tensorlab.cli"]])
def test_version_from_the_command_and_python_m(how):
    r = subprocess.run([sys.executable, *how, "--version"], capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, f"tensorlab {__version__}\n"), r.stderr


def test_exit_statuses_are_one_table_in_the_cli_and_the_reference():
    """The site's CLI reference (docs/reference/cli.rst) holds the one table of exit statuses."""
    text = (ROOT / "docs" / "reference" / "cli.rst").read_text()
    section = text.partition("Exit statuses\n")[2]
    assert section, "docs/reference/cli.rst has no 'Exit statuses' section"
    rows: dict[str, str] = {}
    code = None
    for line in section.splitlines():
        m = re.match(r"^``(\d+)``\s+(.*)$", line)
        if m:
            code = m[1]
            rows[code] = m[2]
        elif code and line.startswith(" " * 9) and line.strip():
            rows[code] += " " + line.strip()
        elif line.startswith("="):
            code = None
    assert set(rows) == {"0", "1", "2", "130", "143"}
    codes = (cli.EXIT_OK, cli.EXIT_FAILED, cli.EXIT_USAGE, cli.EXIT_INTERRUPTED)
    assert codes == (0, 1, 2, 130) and cli.EXIT_TERMINATED == 143
    assert "check" in rows["1"] and "not attempted" in rows["1"]


def test_usage_errors_exit_2_for_every_command(tmp_path):
    for argv in (["nonsense"], ["check"], ["grade", str(tmp_path / "missing"), "--out", "o"]):
        r = subprocess.run([sys.executable, "-m", "tensorlab", *argv], capture_output=True)
        assert r.returncode == 2, (argv, r.stderr)


def test_check_exits_0_when_every_question_passes():
    """The solutions answer every question: exit 0 (a failing question is exit 1: the check tests
    in tests/grading and test_start.py)."""
    r = subprocess.run(
        [sys.executable, "-m", "tensorlab", "check", str(ROOT / "solutions" / "04_strides.ipynb")]
        + ["--release", str(ROOT / "exercises"), "--cell-timeout", "30"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.rstrip().endswith("questions passed") and "✗" not in r.stdout
