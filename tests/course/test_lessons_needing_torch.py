"""Lesson 19 runs real PyTorch: it says so in its metadata, and without torch (outside CI) its
nbval items are skipped rather than failed (tests/conftest.py)."""

from __future__ import annotations

import importlib.abc
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "lessons" / "19_with_real_pytorch.ipynb"


def test_lesson_19_declares_torch_and_says_so_first():
    nb = json.loads(LESSON.read_text())
    assert nb["metadata"]["tensorlab"]["requires"] == ["torch"]
    first = "".join(nb["cells"][0]["source"])
    assert "needs real PyTorch" in first and 'pip install "tensorlab-course[torch]"' in first


@pytest.mark.parametrize(
    "torch_found, ci, skipped", [(False, False, True), (True, False, False), (False, True, False)]
)
def test_items_skip_only_without_torch_outside_ci(
    monkeypatch, pytestconfig, torch_found, ci, skipped
):
    import helpers

    # tests/conftest.py as pytest loaded it (the name ``conftest`` may be tests/e2e's)
    root_conftest = (ROOT / "tests" / "conftest.py").resolve()
    conftest = next(
        m
        for m in pytestconfig.pluginmanager.get_plugins()
        if getattr(m, "__file__", None) and Path(m.__file__).resolve() == root_conftest
    )

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (object() if torch_found else None) if name == "torch" else real(name, *a),
    )
    monkeypatch.setattr(helpers, "IN_CI", ci)

    class Item(SimpleNamespace):
        def add_marker(self, marker):
            self.markers.append(marker)

    lesson, other = (
        Item(path=LESSON, markers=[]),
        Item(path=ROOT / "lessons" / "10_view_vs_reshape.ipynb", markers=[]),
    )
    conftest.pytest_collection_modifyitems(None, [lesson, other])
    assert bool(lesson.markers) == skipped and not other.markers


# ---------------------------------------------------------------------------- without torch
def test_require_torch_says_what_to_install(monkeypatch):
    from tensorlab.interop import TorchMissing, require_torch

    monkeypatch.setitem(sys.modules, "torch", None)  # `import torch` fails as if not installed
    with pytest.raises(TorchMissing) as info:
        require_torch()
    assert isinstance(info.value, ModuleNotFoundError) and info.value.name == "torch"
    assert 'pip install "tensorlab-course[torch]"' in str(info.value)
    (line,) = info.value._render_traceback_()  # what IPython shows instead of a traceback
    assert "TorchMissing" in line and str(info.value) in line


def test_require_torch_lets_a_broken_torch_speak_for_itself(monkeypatch):
    from tensorlab.interop import TorchMissing, require_torch

    class BrokenTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch":
                raise ModuleNotFoundError("No module named 'torch._C'", name="torch._C")

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(sys, "meta_path", [BrokenTorch(), *sys.meta_path])
    with pytest.raises(ModuleNotFoundError) as info:
        require_torch()
    assert not isinstance(info.value, TorchMissing) and info.value.name == "torch._C"


def test_lesson_19_without_torch_reads_like_a_book(tmp_path, monkeypatch):
    """In a kernel without torch, Run All shows one line in the first code cell (what to install)
    and stops there: every later cell keeps the output saved with it."""
    pytest.importorskip("nbclient")
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    shadow = tmp_path / "no-torch" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(shadow.parent))  # the kernel finds this torch first
    saved = nbformat.read(LESSON, as_version=4)
    nb = nbformat.read(LESSON, as_version=4)
    client = NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    with pytest.raises(CellExecutionError):
        client.execute()
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    first = nb.cells[code[0]]
    (error,) = [o for o in first.outputs if o.output_type == "error"]
    assert error.ename == "TorchMissing"
    (line,) = error.traceback  # one line, no traceback
    assert 'pip install "tensorlab-course[torch]"' in line
    assert not any(o.output_type == "stream" for o in first.outputs)
    for i in code[1:]:
        assert nb.cells[i].outputs == saved.cells[i].outputs, nb.cells[i].source[:60]
