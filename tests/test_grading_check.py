"""``tensorlab.check``: staged feedback, named misconceptions, growing hints, shrunk
counterexamples, tidy display in a real kernel, and a failed cell that nbval would see."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tensorlab
from tensorlab.grading import CheckFailed, check, evaluate, get
from tensorlab.grading import inline as check_module
from tensorlab.grading.feedback import smallest_failing_input
from tensorlab.grading.questions._refs import convolve_valid, correlate_valid

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def fresh_attempts(monkeypatch):
    monkeypatch.delenv("TENSORLAB_GRADING", raising=False)
    check_module._FAILURES.clear()
    yield
    check_module._FAILURES.clear()


def test_check_is_tensorlab_check():
    assert tensorlab.check is check


def test_passing_check_prints_and_returns_none(capsys):
    assert check("conv.valid_shape", (24, 26)) is None
    out = capsys.readouterr().out
    assert out.startswith("✓ conv.valid_shape: passed")


def test_not_attempted_looks_up_the_name_in_the_caller(capsys):
    with pytest.raises(CheckFailed) as info:
        check("conv.valid_shape")  # `valid_shape` is not defined here
    assert "not attempted" in info.value.feedback.headline()
    assert "`valid_shape` is not defined yet" in capsys.readouterr().out
    globals()["valid_shape"] = (24, 26)  # a notebook's answer lives in the caller's globals
    try:
        assert check("conv.valid_shape") is None
    finally:
        del globals()["valid_shape"]


def test_not_implemented_function_is_not_attempted():
    def convo2d(input, kernel):
        raise NotImplementedError("write me")

    v = evaluate("conv.convo2d", convo2d)
    assert v.status == "not_attempted"


def test_failure_names_the_misconception_and_hints_grow(capsys):
    texts = []
    for _ in range(4):
        with pytest.raises(CheckFailed) as info:
            check("conv.valid_shape", (23, 25))
        texts.append(info.value.feedback.text())
    first, second, third, fourth = texts
    assert "Likely misconception: there are H - M + 1 valid positions" in first
    assert "Hint:" in first and "Hint 2" not in first
    assert "Hint 1:" in second and "Hint 2:" in second
    q = get("conv.valid_shape")
    assert third.count("Hint") == fourth.count("Hint") == len(q.hints)  # capped
    assert "24" not in first.split("Failed at values:")[1].split("\n")[0]  # answer not revealed


def test_function_feedback_shows_the_first_failing_input_and_smallest_one(capsys):
    with pytest.raises(CheckFailed) as info:
        check("conv.convo2d", correlate_valid)
    fb = info.value.feedback
    text = fb.text()
    assert "0 of 8 inputs pass" in text
    assert "this equals cross-correlation" in text
    c = fb.counterexample
    assert c is not None
    x, k = c.args
    assert x.size <= 2 and k.size <= 2  # shrunk to a tiny input
    assert not np.allclose(correlate_valid(x, k), convolve_valid(x, k))
    again = smallest_failing_input(get("conv.convo2d"), correlate_valid)
    assert all(np.array_equal(a, b) for a, b in zip(again.args, c.args))  # derandomised


def test_counterexample_search_writes_no_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    smallest_failing_input(get("strides.contiguous"), lambda shape: tuple(reversed(shape)))
    assert not (tmp_path / ".hypothesis").exists()
    assert list(tmp_path.iterdir()) == []


def test_copy_instead_of_view_is_named():
    def flatten_hw(x):
        return x.contiguous().view(x.shape[0], x.shape[1], -1)

    v = evaluate("views.flatten_hw", flatten_hw)
    assert v.status == "failed" and v.stage == "layout"
    assert v.misconception.key == "contiguous_first"
    assert "this is a copy, not a view" in v.misconception.message


def test_html_rendering_is_escaped_and_complete():
    with pytest.raises(CheckFailed) as info:
        check("conv.padding_modes", ("<b>edge</b>", "reflect", "zeros", "circular"))
    html = info.value.feedback._repr_html_()
    assert "&lt;b&gt;" in html and "<b>edge" not in html
    assert "Likely misconception" in html and "numpy.pad" in html


def test_check_is_silent_inside_a_grading_kernel(monkeypatch):
    monkeypatch.setenv("TENSORLAB_GRADING", "1")
    assert check("conv.valid_shape", "nonsense") is None


def test_render_traceback_is_one_tidy_line():
    with pytest.raises(CheckFailed) as info:
        check("conv.same_padding", 2)
    lines = info.value._render_traceback_()
    assert len(lines) == 1 and "conv.same_padding" in lines[0]


def test_in_a_real_kernel_check_shows_html_and_fails_the_cell(tmp_path):
    """The display is tidy HTML, the error output is one line, and the cell counts as failed."""
    pytest.importorskip("nbclient")
    from tensorlab.grading.kernel import Kernel

    with Kernel(tmp_path, memory=0, grading=False) as kernel:
        failed = kernel.run("import tensorlab\ntensorlab.check('conv.valid_shape', (23, 25))", 60)
        passed = kernel.run("tensorlab.check('conv.valid_shape', (24, 26))", 60)
    assert failed.status == "error" and failed.ename == "CheckFailed"
    (error,) = [o for o in failed.outputs if o.output_type == "error"]
    assert len(error.traceback) == 1  # no Python traceback: the cell is failed, tidily
    (display,) = [o for o in failed.outputs if o.output_type == "display_data"]
    assert "Likely misconception" in display.data["text/html"]
    assert "✗ conv.valid_shape: not yet" in display.data["text/plain"]
    assert passed.status == "ok"
    assert "passed" in passed.outputs[0].data["text/plain"]


def test_exercises_run_top_to_bottom_raise_only_not_attempted(tmp_path):
    """A learner running a fresh exercise: answer cells raise NotImplementedError, check cells
    say "not attempted" (and fail the cell), every other cell runs cleanly."""
    pytest.importorskip("nbclient")
    import nbformat

    from tensorlab.grading.kernel import Kernel

    with Kernel(tmp_path, memory=0, grading=False) as kernel:
        for path in sorted((ROOT / "exercises").glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                role = cell.metadata.get("tensorlab", {}).get("role")
                r = kernel.run(cell.source, 60)
                where = f"{path.name}: {cell.source[:40]!r}"
                if role == "answer" and r.status == "error":
                    assert r.ename == "NotImplementedError", where
                elif role == "check":
                    assert r.status == "error" and r.ename == "CheckFailed", where
                    (display,) = [o for o in r.outputs if o.output_type == "display_data"]
                    assert "not attempted" in display.data["text/plain"], where
                else:
                    assert r.status == "ok", (where, r.ename, r.evalue)
