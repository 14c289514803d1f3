"""Lesson 19 runs real PyTorch: it says so in its metadata, and without torch (outside CI) its
nbval items are skipped rather than failed (tests/conftest.py)."""

from __future__ import annotations

import importlib.util
import json
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
