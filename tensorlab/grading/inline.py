"""``tensorlab.check(question_id, answer)``: the learner's inline check.

It judges the answer in stages (see ``judge``), names the likely misconception, shows a hint that
grows with repeated failures and, for function answers, the smallest failing input. The feedback
is displayed (HTML in Jupyter, text elsewhere); a failing check then raises ``CheckFailed``, whose
traceback is a single tidy line, so the cell is still marked as failed (nbval sees it).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .authoring import PublicCheck, judge_public
from .encode import MISSING, roundtrip
from .feedback import Feedback, smallest_failing_input
from .judge import (
    Verdict,
    collect_function_results,
    guarded,
    judge_function,
    judge_value,
    names_used,
    rule_check,
    rule_violation,
    with_rules,
)
from .model import Question
from .registry import get
from .rules import has_rules

_NOTHING = object()
_FAILURES: dict[str, int] = {}  # failed checks per question in this process (hints grow)
INLINE_SEED = 0


class CheckFailed(AssertionError):
    """A check did not pass. The feedback was displayed just before this was raised."""

    def __init__(self, feedback: Feedback):
        super().__init__(feedback.text())
        self.feedback = feedback

    def _render_traceback_(self) -> list[str]:
        # IPython shows this instead of a traceback: one line, the feedback is above.
        return [f"\x1b[31mCheckFailed\x1b[0m: {self.feedback.headline()} (see the feedback above)"]


def evaluate(
    question: str | Question, answer: Any = _NOTHING, *, seed: int = INLINE_SEED
) -> Verdict:
    """Judge ``answer`` for ``question`` here, without displaying anything.

    Function answers are called in this process on the question's public and random inputs.
    """
    q = lookup(question) if isinstance(question, str) else question
    if isinstance(q, PublicCheck):  # an authored course's self-check: public inputs, as data
        if answer is _NOTHING:
            answer = MISSING
        if q.kind == "function" and callable(answer) and not isinstance(answer, type):
            broken = inline_rules(q, answer)  # the same rule check as everywhere
            results = collect_function_results(answer, q, seed)
            return with_rules(q, guarded(q.id, judge_public, q, results), broken)
        value = roundtrip(answer) if answer is not MISSING else answer
        return guarded(q.id, judge_public, q, value)
    if answer is _NOTHING:
        if q.kind == "value":
            return guarded(q.id, judge_value, q, MISSING)
        return guarded(q.id, judge_function, q, MISSING, seed)
    if q.kind == "function":
        if callable(answer) and not isinstance(answer, type):
            broken = inline_rules(q, answer)
            results = collect_function_results(answer, q, seed)
            return with_rules(q, guarded(q.id, judge_function, q, results, seed), broken)
        return guarded(q.id, lambda: judge_function(q, roundtrip(answer), seed))
    return guarded(q.id, lambda: judge_value(q, roundtrip(answer)))


def inline_rules(q: Question, fn) -> str | None:
    """``judge.rule_check`` on the source that defined ``fn`` (the cell, with every cell that
    ran as context, in a notebook: the same check and verdict as batch grading); a function
    whose source cannot be read is checked on the names its code uses (``names_used``)."""
    if not has_rules(q):
        return None
    found = answer_sources(fn, q.name)
    if found is None:
        if getattr(q, "allowed", None) is not None:
            from .allow import names_violation

            broken = names_violation(q.allowed, fn)
            if broken is not None:
                return broken
        return rule_violation(q, names_used(fn))
    source, context, name = found
    return rule_check(q, source, context, name)


def answer_sources(fn, qname: str) -> tuple[str, list[str], str] | None:
    """(the source defining ``fn``, the cells that ran, the name it is bound to), or None.

    In IPython: the cell ``fn`` was defined in and the input history ``In``. Elsewhere (a
    module, a test) None: such code is not a notebook's cells."""
    import linecache

    f = getattr(fn, "__func__", fn)
    code = getattr(f, "__code__", None)
    if code is None:
        return None
    filename = code.co_filename
    lines = linecache.getlines(filename)
    if not lines:
        return None
    text = "".join(lines)
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    if isinstance(history, list) and not os.path.isfile(filename):
        from .rules import _parse, _top_level, latest_cells

        context = latest_cells([h for h in history if isinstance(h, str) and h.strip()])
        if not context:  # cells run without history (nbval, some front ends): the live modules
            imports = _module_imports(getattr(shell, "user_ns", {}))
            context = [imports] if imports else []

        tree = _parse(text)
        if tree is None:
            return None
        if getattr(f, "__name__", "") == "<lambda>":  # check("id", lambda ...): the lambda only
            own = _lambda_source(text, tree, code.co_firstlineno)
            if own is not None:
                return f"{LAMBDA_NAME} = {own}\n", context, LAMBDA_NAME
        name = qname if qname in _top_level(tree) else getattr(f, "__name__", qname)
        return text, context, name
    return None


LAMBDA_NAME = "_answer_lambda"


def _module_imports(ns: dict) -> str:
    """``import numpy as np`` lines for the names of ``ns`` bound to modules: what they are
    when the cells that imported them are not in the input history (it is not kept when a
    front end runs cells with ``store_history=False``, as nbval does)."""
    import types

    lines = []
    for name, value in list(ns.items()):
        if isinstance(value, types.ModuleType) and name.isidentifier() and not name.startswith("_"):
            module = getattr(value, "__name__", None)
            if isinstance(module, str) and all(p.isidentifier() for p in module.split(".")):
                lines.append(f"import {module} as {name}" if module != name else f"import {name}")
    return "\n".join(sorted(lines))


def _lambda_source(text: str, tree, line: int) -> str | None:
    """The source of the one lambda that starts on ``line`` of a cell (its rules are read on
    it alone, not on the ``tensorlab.check(...)`` call around it), else None."""
    import ast

    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == line]
    if len(found) != 1:
        return None
    return ast.get_source_segment(text, found[0])


def lookup(qid: str) -> Question:
    """A question by id: built-in or registered (an instructor's own notebook ran here), else
    the public check of an authored course (``tensorlab-checks.json`` near this kernel)."""
    try:
        return get(qid)
    except KeyError:
        from .authoring import lookup_public

        q = lookup_public(qid)
        if q is None:
            raise
        return q


def _in_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _show(fb: Feedback) -> None:
    if _in_notebook():
        from IPython.display import display

        display(fb)
    else:
        print(fb.text())


def feedback_for(q: Question, answer: Any, verdict: Verdict, *, search: bool = True) -> Feedback:
    """Feedback with the hints this attempt earns and, if useful, a shrunk counterexample."""
    failed = verdict.status in ("failed", "error")
    if failed:
        _FAILURES[q.id] = _FAILURES.get(q.id, 0) + 1
    n = _FAILURES.get(q.id, 0)
    hints = list(q.hints[: min(n, len(q.hints))]) if failed else []
    counterexample = None
    if search and failed and q.kind == "function" and callable(answer) and verdict.stage != "rules":
        counterexample = smallest_failing_input(q, answer)
    return Feedback(verdict, q, hints, counterexample, attempts=n)


def verdict_for(question: str | Question, answer: Any = _NOTHING) -> Verdict:
    """``check``'s verdict, without displaying it: ``evaluate``, then what grading would lose
    (``lost_helpers``): the verdict ``tensorlab grade`` gives the same answer cells."""
    q = lookup(question) if isinstance(question, str) else question
    verdict = evaluate(q, answer)
    lost = lost_helpers(q, answer) if verdict.status in ("passed", "failed") else None
    if lost:  # the grade rebuilds from the answer cells: the same verdict here (NameError)
        verdict = Verdict(q.id, "failed", "runs", lost)
    return verdict


def check(question: str, answer: Any = _NOTHING) -> None:
    """Check ``answer`` to ``question`` and show feedback; raise ``CheckFailed`` unless correct.

    With no ``answer``, the question's own name (e.g. ``convo2d``) is looked up in the caller's
    namespace, so a check cell also works before the answer has been written.
    Inside a batch-grading kernel (``TENSORLAB_GRADING`` set) this does nothing.
    """
    if os.environ.get("TENSORLAB_GRADING"):
        return None
    q = lookup(question)
    if answer is _NOTHING:
        answer = sys._getframe(1).f_globals.get(q.name, _NOTHING)
    verdict = verdict_for(q, answer)
    fb = feedback_for(q, answer, verdict)
    _show(fb)
    if not verdict.passed and verdict.status != "unchecked":  # "no self-check": not a failure
        raise CheckFailed(fb)
    return None


# ---------------------------------------------------------------------------- one judge
def _release_near() -> Any:
    """The release (``release.json``) of the notebook this kernel runs, looked for in the
    current folder and its parents (None outside a course's exercises folder)."""
    from pathlib import Path

    from .release import RELEASE_FILE, Release

    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / RELEASE_FILE).is_file():
            try:
                return Release.load(folder)
            except (OSError, ValueError, KeyError):
                return None
    return None


def _template_cells(release, notebook: str) -> set[str]:
    """The code cells grading keeps from the released notebook (every code cell that is not an
    answer cell), stripped; the pristine copy shipped with tensorlab when the folder's copy was
    answered in place."""
    import hashlib
    import json
    from pathlib import Path

    info = release.notebooks[notebook]
    paths = [Path(release.folder) / notebook]
    try:
        from ..course import course_root

        paths.append(course_root() / "exercises" / notebook)
    except Exception:  # noqa: BLE001 - no shipped course: the folder's copy only
        pass
    data = None
    for path in paths:
        try:
            raw = path.read_bytes()
        except OSError:
            continue
        if data is None or hashlib.sha256(raw).hexdigest() == info.sha256:
            data = raw
    if data is None:
        return set()
    try:
        nb = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return set()
    out = set()
    for cell in nb.get("cells", []):
        role = (cell.get("metadata", {}).get("tensorlab") or {}).get("role")
        if cell.get("cell_type") == "code" and role != "answer":
            src = cell.get("source", "")
            out.add(("".join(src) if isinstance(src, list) else src).strip())
    return out


def lost_helpers(q: Question, answer: Any) -> str | None:
    """What grading would lose of this answer, as the message ``check`` gives (None when
    nothing): grading rebuilds the notebook from the release, keeping the learner's answer
    cells only, so a helper, an alias or an import the answer uses that was defined in a cell
    of the learner's own (not an answer cell, not a cell of the released notebook) is gone.
    Only in a notebook kernel, next to the release (else None)."""
    from .rules import _follow_nodes, _parse, _top_level, latest_cells

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    history = getattr(shell, "user_ns", {}).get("In") if shell is not None else None
    if not isinstance(history, list):
        return None
    release = _release_near()
    if release is None or q.id not in release.questions:
        return None
    nb = release.questions[q.id].notebook
    names = {release.questions[x].name for x in release.notebooks[nb].questions}
    template = _template_cells(release, nb)
    numbered = [(i, h) for i, h in enumerate(history) if isinstance(h, str) and h.strip()]
    kept_texts = set(latest_cells([h for _, h in numbered]))
    cells = [(i, h) for i, h in numbered if h in kept_texts]
    binds = {i: set(_top_level(t)) if (t := _parse(h)) is not None else set() for i, h in cells}
    own = [h for i, h in cells if q.name in binds[i]]
    if not own:
        return None
    _, _, owners, _ = _follow_nodes(q.name, own[-1], [h for _, h in cells])
    for n in dict.fromkeys(owners):
        if n == q.name:
            continue
        where = [i for i, h in cells if n in binds[i]]
        if where and all(
            not (binds[i] & names) and h.strip() not in template for i, h in cells if i in where
        ):
            return (
                f"`{n}` is defined in a cell that is not an answer cell (In [{where[-1]}]): "
                "grading keeps only the answer cells, so your answer would lose it. Move it "
                f"into the answer cell of {q.id}."
            )
    return None
