"""Driving JupyterLab as a learner does: open a notebook, Run All, type into cells, move widgets.

Only the public UI is used (menus, keyboard, mouse); what the page shows is read from the DOM,
and errors from the notebook JupyterLab itself saves.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import nbformat

from tensorlab.course import course_files, course_root

EXPLORERS = ("AxesExplorer", "ConvExplorer", "GroupsExplorer", "MemoryExplorer", "ArithExplorer")
LESSONS = [f for f in course_files() if f.startswith("lessons/") and f.endswith(".ipynb")]

# The kernel is connected and idle (the status bar reads "Python 3 (ipykernel) | Idle").
KERNEL_IDLE = """() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]
    .some(e => /\\|\\s*Idle\\s*$/.test(e.textContent))"""
# Run All has finished: no cell waits ([*]), and every code cell ran or a cell shows an error
# (JupyterLab stops a Run All at the first error).
RUN_FINISHED = """() => {
    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')]
        .map(p => p.textContent);
    if (!prompts.length || prompts.some(t => t.includes('*'))) return false;
    if (prompts.every(t => /\\[\\d+\\]/.test(t))) return true;
    return [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
        .some(e => /Traceback|Error/.test(e.textContent));
}"""
# JupyterLab's application object (the test server exposes it: tests/e2e/conftest.py).
HAS_APP = "() => Boolean(window.jupyterapp && window.jupyterapp.shell)"
# Close every document in the main area without the unsaved-changes dialog (the course is a
# scratch copy; a test that needs the notebook on disk saves it first).
CLOSE_DOCUMENTS = """() => {
    for (const w of Array.from(window.jupyterapp.shell.widgets('main'))) {
        if (w.context && w.context.model) w.context.model.dirty = false;
        w.dispose();
    }
}"""
OPEN_DOCUMENT = """async (path) => {
    const w = await window.jupyterapp.commands.execute('docmanager:open', {path});
    window.jupyterapp.shell.activateById(w.id);
}"""
# The open notebook is ``path`` and its own kernel is connected and idle.
NOTEBOOK_IDLE = """(path) => {
    const app = window.jupyterapp;
    const w = app && app.shell.currentWidget;
    const kernel = w && w.context && w.context.path === path && w.sessionContext
        && w.sessionContext.session && w.sessionContext.session.kernel;
    return Boolean(kernel && kernel.status === 'idle'
        && document.querySelectorAll('.jp-NotebookPanel').length === 1);
}"""
# SHA-256 of the bytes an <img> shows (the explorers' PNG, held in a data: URL).
IMAGE_DIGEST = """async (img) => {
    const buf = await (await fetch(img.src)).arrayBuffer();
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', buf));
    return [Array.from(h, b => b.toString(16).padStart(2, '0')).join(''), buf.byteLength];
}"""


def explorer_cells(lesson: str) -> list[tuple[int, str]]:
    """(cell index, explorer class) for every code cell that creates an explorer."""
    nb = nbformat.read(course_root() / lesson, as_version=4)
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        m = re.search(r"\b(" + "|".join(EXPLORERS) + r")\(", cell.source)
        if m:
            found.append((i, m.group(1)))
    return found


EXPLORER_CASES = [(lesson, i, cls) for lesson in LESSONS for i, cls in explorer_cells(lesson)]


def order_key(item) -> tuple:
    """Each lesson's run first, then its explorers; the exercise test last."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    lesson = params.get("lesson")
    if lesson is None:
        return (len(LESSONS), 0, item.name)
    kind = 0 if "cell" not in params else 1
    return (LESSONS.index(lesson), kind, params.get("cell", 0))


def stem(path: str) -> str:
    return Path(path).stem


# ---------------------------------------------------------------------------- the page
class JupyterLabPage:
    """One learner in one browser context; one notebook open at a time (kernels shut after)."""

    def __init__(self, lab, context, artifacts: Path):
        self.lab = lab
        self.context = context
        self.artifacts = artifacts
        self.page = None
        self.path: str | None = None
        self.ran = False
        self.opened = 0
        self.run_started: datetime | None = None

    def close(self) -> None:
        if self.page is not None:
            self.page.close()
            self.page = None
            self.lab.shutdown_kernels()
        self.path = None
        self.ran = False

    def open(self, path: str):
        """Open ``path`` and wait for its kernel to be idle. The first notebook loads JupyterLab
        in a new page; later ones close the open documents (their kernels shut down) and open
        in the same page through ``docmanager:open``, the command a double click in the file
        browser runs, which spares JupyterLab's ~4 s boot per notebook."""
        self.opened += 1
        page = self.page
        if page is None or page.is_closed() or not page.evaluate(HAS_APP):
            self.close()
            page = self.context.new_page()
            page.set_default_timeout(30_000)
            url = f"{self.lab.url}/lab/workspaces/e2e{self.opened}/tree/{path}"
            page.goto(f"{url}?token={self.lab.token}")
        else:
            page.evaluate(CLOSE_DOCUMENTS)
            self.lab.shutdown_kernels()
            self.ran, self.path = False, None
            page.evaluate(OPEN_DOCUMENT, path)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.wait_for_function(NOTEBOOK_IDLE, arg=path, timeout=90_000)
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        self.page, self.path = page, path
        return page

    def run_all(self, timeout: float = 120.0) -> float:
        """Run → Run All Cells, as a learner does; returns the seconds it took."""
        page = self.page
        t0 = time.monotonic()
        self.run_started = datetime.now(timezone.utc)
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item", has_text=re.compile(r"^Run All Cells")).first.click()
        page.wait_for_function(RUN_FINISHED, timeout=timeout * 1000, polling=250)
        page.wait_for_function(KERNEL_IDLE, timeout=timeout * 1000)
        self.ran = True
        return time.monotonic() - t0

    def ensure_ran(self, path: str):
        if self.path != path or not self.ran:
            self.open(path)
            self.run_all()
        return self.page

    def save(self) -> nbformat.NotebookNode:
        """Ctrl+S, wait until JupyterLab has written the file, and read it back."""
        page = self.page
        page.keyboard.press("Escape")  # command mode; Ctrl+S is JupyterLab's, not the browser's
        page.keyboard.press("Control+s")
        page.wait_for_function(
            "() => !document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')",
            timeout=30_000,
        )
        return nbformat.read(self.lab.course / self.path, as_version=4)

    def cell(self, index: int):
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def shot(self, locator, name: str) -> Path:
        path = self.artifacts / f"{name}.png"
        locator.scroll_into_view_if_needed()
        locator.screenshot(path=str(path))
        return path


def _ran_since(cell, since: datetime) -> bool:
    """The cell's recorded execution (JupyterLab's ``recordTiming``) ended after ``since``."""
    stamp = cell.metadata.get("execution", {}).get("shell.execute_reply")
    if not stamp:
        return False
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) >= since


def notebook_errors(nb, since: datetime | None = None) -> list[str]:
    """Every error output and every code cell left unexecuted (since ``since``), in words."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        if cell.get("execution_count") is None or (since and not _ran_since(cell, since)):
            problems.append(f"cell {i} was not run")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
    return problems


# ---------------------------------------------------------------------------- explorers
@dataclass
class WidgetState:
    status: str
    digest: str
    size: int
    src: str
    alt: str = ""


class ExplorerView:
    """An explorer's output in the page: its controls, its picture and its status line."""

    def __init__(self, page, cell):
        self.page = page
        self.root = cell.locator(".jp-OutputArea-output .tensorlab-explorer").first
        self.img = self.root.locator(".tensorlab-figure img").first
        self.status = self.root.locator(".tensorlab-figure + .widget-html .widget-html-content")

    def visible(self) -> bool:
        return self.root.count() > 0 and self.img.count() > 0

    def state(self) -> WidgetState:
        digest, size = self.img.evaluate(IMAGE_DIGEST)
        return WidgetState(
            self.status.first.inner_text(),
            digest,
            size,
            self.img.get_attribute("src") or "",
            self.img.get_attribute("alt") or "",
        )

    def wait_changed(
        self,
        before: WidgetState,
        *,
        status: bool = True,
        timeout: float = 20.0,
        either: bool = False,
    ) -> WidgetState:
        """Wait until the picture (and, if ``status``, the status) differ from ``before``;
        with ``either``, until the picture or the alt text does. Then wait until what is on
        screen holds still for 0.3 s (a trailing message lands first) and return it."""
        deadline = time.monotonic() + timeout
        now = self.state()
        while time.monotonic() < deadline:
            if either and (now.digest != before.digest or now.alt != before.alt):
                break
            if now.digest != before.digest and (now.status != before.status or not status):
                break
            time.sleep(0.1)
            now = self.state()
        settle = time.monotonic() + 5.0
        while True:
            time.sleep(0.3)
            later = self.state()
            same = (later.digest, later.alt, later.status) == (now.digest, now.alt, now.status)
            if same or time.monotonic() > settle:
                return later
            now = later

    # -- what a learner does
    def _labelled(self, kind: str, label: str):
        return self.root.locator(kind).filter(
            has=self.page.locator(
                "label.widget-label", has_text=re.compile(f"^{re.escape(label)}$")
            )
        )

    def slide(self, label: str, key: str) -> str:
        """Click the slider's handle and press an arrow key."""
        handle = self._labelled(".widget-slider", label).locator(".noUi-handle").first
        handle.click()
        handle.press(key)
        return f"slider '{label}' {key}"

    def choose(self, label: str, contains: str) -> str:
        """Pick the first option containing ``contains`` in a dropdown."""
        select = self._labelled(".widget-dropdown", label).locator("select").first
        options = select.locator("option").all_inner_texts()
        option = next(o for o in options if contains in o.replace("\xa0", " "))
        select.select_option(label=option)
        return f"dropdown '{label}' -> {option!r}"

    def toggle_other(self) -> str:
        """Click the first toggle button that is not the selected one."""
        buttons = self.root.locator(".widget-toggle-buttons button")
        for i in range(buttons.count()):
            b = buttons.nth(i)
            if "mod-active" not in (b.get_attribute("class") or ""):
                text = b.inner_text().strip()
                b.click()
                return f"toggle -> {text!r}"
        raise AssertionError("no toggle button to switch to")

    def press_button(self, text: str) -> str:
        # by its text: the accessible name also holds the icon font's glyph
        pattern = re.compile(rf"^\s*{re.escape(text)}\s*$")
        self.root.locator("button").filter(has_text=pattern).first.click()
        return f"button {text!r}"

    def type_into(self, label: str, text: str) -> str:
        box = self._labelled(".widget-text", label).locator("input").first
        box.click()
        box.press("Control+a")
        box.type(text)
        box.press("Enter")
        return f"typed {text!r} into '{label}'"


# Learner actions per explorer: (action, whether the status line must change too). Every
# action must change the picture; at least two per explorer must change the status line too.
ACTIONS = {
    "AxesExplorer": [
        (lambda w: w.toggle_other(), True),
        (lambda w: w.slide("dim", "ArrowRight"), True),
        (lambda w: w.type_into("x.shape", "2, 3, 4"), True),
    ],
    "ConvExplorer": [
        (lambda w: w.slide("padding", "ArrowRight"), True),
        (lambda w: w.toggle_other(), True),
        (lambda w: w.slide("out row", "ArrowRight"), True),
        (lambda w: w.choose("kernel", "box blur"), False),  # the status names the size only
    ],
    "GroupsExplorer": [
        (lambda w: w.slide("groups", "ArrowLeft"), True),
        (lambda w: w.choose("preset", "depthwise"), True),
        (lambda w: w.slide("out_channels", "ArrowRight"), True),
    ],
    "MemoryExplorer": [
        (lambda w: (w.choose("op", ".contiguous()"), w.press_button("append op"))[-1], True),
        (lambda w: w.slide("step", "ArrowLeft"), True),
        (lambda w: w.choose("preset", "slice: a view with an offset"), True),
        (lambda w: w.slide("element", "ArrowRight"), False),  # highlights; same step described
    ],
    # every control, in an order that keeps the layer legal (tests/test_viz_arith.py replays it)
    "ArithExplorer": [
        (lambda w: w.choose("preset", "full padding"), True),
        (lambda w: w.slide("stride", "ArrowRight"), True),
        (lambda w: w.toggle_other(), True),  # conv2d <-> conv_transpose2d
        (lambda w: w.slide("out col", "ArrowRight"), True),
        (lambda w: w.slide("out row", "ArrowRight"), True),
        (lambda w: w.slide("output_padding", "ArrowRight"), True),
        (lambda w: w.slide("padding", "ArrowLeft"), True),
        (lambda w: w.slide("kernel", "ArrowRight"), True),
        (lambda w: w.slide("dilation", "ArrowRight"), True),
        (lambda w: w.slide("input size", "ArrowLeft"), True),
    ],
}
