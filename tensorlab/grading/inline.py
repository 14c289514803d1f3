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
    judge_function,
    judge_value,
    names_used,
    rule_verdict,
    rule_violation,
)
from .model import Question
from .registry import get

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
            broken = rule_violation(q, names_used(answer)) if q.forbidden else None
            if broken:
                return rule_verdict(q, broken)
            return judge_public(q, collect_function_results(answer, q, seed))
        return judge_public(q, roundtrip(answer) if answer is not MISSING else answer)
    if answer is _NOTHING:
        return judge_value(q, MISSING) if q.kind == "value" else judge_function(q, MISSING, seed)
    if q.kind == "function":
        if callable(answer) and not isinstance(answer, type):
            broken = rule_violation(q, names_used(answer)) if q.forbidden else None
            if broken:
                return rule_verdict(q, broken)
            return judge_function(q, collect_function_results(answer, q, seed), seed)
        return judge_function(q, roundtrip(answer), seed)
    return judge_value(q, roundtrip(answer))


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
    if not verdict.passed:
        raise CheckFailed(fb)
    return None
