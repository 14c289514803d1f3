"""The course in a real JupyterLab, driven through Chromium the way a learner uses it.

- every lesson: open it, Run All, wait for the kernel to be idle, no cell shows an error;
- every explorer widget: move controls with the mouse and keyboard; after each move its status
  line and its picture (the PNG bytes on screen) have changed; screenshots are kept;
- one exercise: a wrong answer shows the named misconception, the right one passes.
"""

from __future__ import annotations

import time

import pytest
from lab_driver import ACTIONS, EXPLORER_CASES, LESSONS, ExplorerView, notebook_errors, stem

pytestmark = pytest.mark.e2e

TIMINGS: dict[str, float] = {}


# The lessons split in two halves, one class each: under ``pytest -n auto --dist loadscope`` each
# class runs on its own worker, with its own JupyterLab and Chromium (session fixtures are per
# worker), so the slowest part of the suite uses both cores. Within a class a lesson runs first,
# then its explorers (tests/e2e/conftest.py orders them).
HALVES = (LESSONS[0::2], LESSONS[1::2])


def _lessons(half: int):
    return pytest.mark.parametrize("lesson", HALVES[half], ids=stem)


def _explorers(half: int):
    cases = [c for c in EXPLORER_CASES if c[0] in HALVES[half]]
    ids = [f"{stem(lesson)}-cell{cell}-{cls}" for lesson, cell, cls in cases]
    return pytest.mark.parametrize("lesson,cell,cls", cases, ids=ids)


def run_lesson(jlab, lesson):
    jlab.open(lesson)
    TIMINGS[lesson] = jlab.run_all()
    jlab.shot(jlab.page.locator(".jp-NotebookPanel").first, f"{stem(lesson)}-ran")
    problems = notebook_errors(jlab.save(), since=jlab.run_started)
    assert not problems, f"{lesson} in JupyterLab: " + "; ".join(problems)


def move_explorer(jlab, lesson, cell, cls):
    page = jlab.ensure_ran(lesson)
    view = ExplorerView(page, jlab.cell(cell))
    view.root.wait_for(state="visible", timeout=20_000)
    assert view.visible(), f"{cls} in {lesson} cell {cell} did not render as a widget"
    name = f"{stem(lesson)}-cell{cell}-{cls}"
    jlab.shot(view.root, f"{name}-0-start")
    state = view.state()
    assert state.size > 1000 and state.status, f"{cls}: no picture or no status on screen"
    changes = []
    for n, (act, status_changes) in enumerate(ACTIONS[cls], 1):
        t0 = time.monotonic()
        what = act(view)
        after = view.wait_changed(state, status=status_changes)
        seconds = time.monotonic() - t0
        shot = jlab.shot(view.root, f"{name}-{n}")
        assert after.digest != state.digest, f"{cls}: {what} did not change the picture; see {shot}"
        if status_changes:
            assert after.status != state.status, (
                f"{cls}: {what} did not change the status line ({state.status!r}); see {shot}"
            )
        changes.append((what, status_changes, round(seconds, 2)))
        state = after
    print(f"{name}: {changes}")
    assert sum(1 for _, status, _ in changes if status) >= 2


class TestLessonsFirstHalf:
    """Lessons 00, 02, 04, ...: every lesson runs clean, every explorer answers the learner."""

    @_lessons(0)
    def test_lesson_runs_without_errors(self, jlab, lesson):
        run_lesson(jlab, lesson)

    @_explorers(0)
    def test_explorer_responds_to_the_learner(self, jlab, lesson, cell, cls):
        move_explorer(jlab, lesson, cell, cls)


class TestLessonsSecondHalf:
    """Lessons 01, 03, 05, ...; then an exercise and a failing notebook, in the same browser."""

    @_lessons(1)
    def test_lesson_runs_without_errors(self, jlab, lesson):
        run_lesson(jlab, lesson)

    @_explorers(1)
    def test_explorer_responds_to_the_learner(self, jlab, lesson, cell, cls):
        move_explorer(jlab, lesson, cell, cls)

    def test_exercise_check_names_the_misconception_then_passes(self, jlab):
        exercise_check_names_the_misconception_then_passes(jlab)

    def test_a_failing_cell_is_caught(self, jlab):
        a_failing_cell_is_caught(jlab)

    def test_a_collapsed_output_shows_no_preview(self, jlab):
        collapsed_output_shows_no_preview(jlab)


def _wait_executed(page, cell, previous: str, timeout: float = 60.0) -> str:
    """Wait until the cell's prompt shows a new execution count; return it."""
    prompt = cell.locator(".jp-InputArea-prompt").first
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = prompt.inner_text()
        if text != previous and "*" not in text and any(ch.isdigit() for ch in text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"cell did not run (prompt still {prompt.inner_text()!r})")


def _answer(jlab, answer_cell, check_cell, code: str) -> str:
    """Type ``code`` into the answer cell, run it and the check below it; the check's text."""
    page = jlab.page
    editor = answer_cell.locator(".jp-InputArea-editor .cm-content").first
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(code)
    typed = editor.inner_text().strip()
    assert typed == code, f"the editor holds {typed!r}, not {code!r}"
    before = check_cell.locator(".jp-InputArea-prompt").first.inner_text()
    page.keyboard.press("Shift+Enter")  # run the answer, move to the check cell
    page.keyboard.press("Shift+Enter")  # run the check
    _wait_executed(page, check_cell, before)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
        ".some(e => /\\|\\s*Idle\\s*$/.test(e.textContent))"
    )
    return check_cell.locator(".jp-OutputArea").first.inner_text()


def exercise_check_names_the_misconception_then_passes(jlab):
    import nbformat

    path = "exercises/01_convolution.ipynb"
    nb = nbformat.read(jlab.lab.course / path, as_version=4)
    roles = {
        (
            c.metadata.get("tensorlab", {}).get("question"),
            c.metadata.get("tensorlab", {}).get("role"),
        ): i
        for i, c in enumerate(nb.cells)
    }
    answer_i = roles[("conv.valid_shape", "answer")]
    check_i = roles[("conv.valid_shape", "check")]
    imports_i = next(i for i, c in enumerate(nb.cells) if "import tensorlab" in c.source)

    jlab.open(path)
    page = jlab.page
    imports = jlab.cell(imports_i)
    imports.locator(".jp-InputArea-editor .cm-content").first.click()
    page.keyboard.press("Shift+Enter")
    _wait_executed(page, imports, "")

    answer, check = jlab.cell(answer_i), jlab.cell(check_i)
    wrong = _answer(jlab, answer, check, "valid_shape = lambda i, k: (i[0] - k[0], i[1] - k[1])")
    jlab.shot(check, "exercise-01-valid_shape-wrong")
    assert "✗ conv.valid_shape" in wrong, wrong
    assert "Likely misconception" in wrong, wrong
    assert "H - M + 1 valid positions" in wrong, wrong  # the off-by-one misconception, named

    right = _answer(
        jlab, answer, check, "valid_shape = lambda i, k: (i[0] - k[0] + 1, i[1] - k[1] + 1)"
    )
    jlab.shot(check, "exercise-01-valid_shape-right")
    assert "✓ conv.valid_shape" in right and "correct" in right, right
    assert "misconception" not in right.lower(), right


def a_failing_cell_is_caught(jlab):
    """The lesson check can fail: Run All on a notebook whose second cell raises."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_code_cell("1 / 0"),
        nbformat.v4.new_code_cell("print('never reached')"),
    ]
    nbformat.write(nb, jlab.lab.course / "e2e-broken.ipynb")
    jlab.open("e2e-broken.ipynb")
    jlab.run_all(timeout=60)
    problems = notebook_errors(jlab.save(), since=jlab.run_started)
    assert problems == ["cell 1: ZeroDivisionError: division by zero", "cell 2 was not run"]


def collapsed_output_shows_no_preview(jlab):
    """A "Predict, then run" cell's saved output is collapsed: JupyterLab's placeholder would
    preview its first line (often the answer); the course's custom.css hides the preview and
    says why, and a click still opens the output."""
    # the shipped lesson, not the course copy another test may have run and saved (one JupyterLab
    # serves both halves under ``-n 0``)
    from tensorlab.course import course_root

    lesson = "lessons/02_scipy_convolve2d.ipynb"
    (jlab.lab.course / "e2e-collapsed.ipynb").write_bytes((course_root() / lesson).read_bytes())
    page = jlab.open("e2e-collapsed.ipynb")
    page.locator(".jp-OutputPlaceholder").first.wait_for(state="attached")
    index = page.evaluate(
        "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]"
        ".findIndex(c => c.querySelector('.jp-OutputPlaceholder'))"
    )
    cell = jlab.cell(index)  # by position: once opened it no longer has a placeholder
    placeholder = cell.locator(".jp-OutputPlaceholder").first
    placeholder.wait_for(state="visible")
    preview = placeholder.locator(".jp-PlaceholderText")
    assert preview.count() == 1 and not preview.is_visible(), "the first line is on show"
    reminder = page.evaluate(
        "() => getComputedStyle(document.querySelector("
        "'.jp-OutputPlaceholder .jp-Placeholder-contentContainer'), '::before').content"
    )
    assert "predict" in reminder, reminder
    jlab.shot(placeholder, "collapsed-output")
    placeholder.click()
    cell.locator(".jp-OutputArea-output").first.wait_for(state="visible")
