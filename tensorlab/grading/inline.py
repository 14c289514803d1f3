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

        tree = _parse(text)
        if tree is None:
            return None
        name = qname if qname in _top_level(tree) else getattr(f, "__name__", qname)
        return text, context, name
    return None


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
    verdict = evaluate(q, answer)
    fb = feedback_for(q, answer, verdict)
    _show(fb)
    if not verdict.passed and verdict.status != "unchecked":  # "no self-check": not a failure
        raise CheckFailed(fb)
    return None
