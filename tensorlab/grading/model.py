"""What a question is: data (id, prompt, hints, misconceptions) plus small pure functions
(reference, cases, strategy). The question banks live in ``tensorlab.grading.questions``."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Expect:
    """How an answer is compared with the reference.

    ``arrays``: which array kinds are accepted where the reference is an array
    (``"ndarray"``, ``"tensor"``). ``rtol``/``atol`` apply to floating-point values.
    ``layout``: also compare strides, storage offset and storage sharing (questions about views).
    ``casefold``: compare strings ignoring case and surrounding spaces.
    ``unordered``: a sequence answer is compared as a set (e.g. a list of names).
    ``equal_nan``: a NaN in the answer matches a NaN in the reference (off by default: a
    constant-NaN answer must not pass a question whose reference also gives NaN).
    ``numeric``: numbers are compared as numbers, with ``rtol``/``atol``, whatever their type
    (an int and a float alike; a bool never): an authored question that gives a tolerance.
    """

    arrays: tuple[str, ...] = ("ndarray", "tensor")
    rtol: float = 1e-7
    atol: float = 1e-9
    layout: bool = False
    casefold: bool = False
    unordered: bool = False
    equal_nan: bool = False
    numeric: bool = False


@dataclass(frozen=True)
class Misconception:
    """A plausible wrong answer and what it reveals.

    ``answer``: the wrong answer itself (a value, or a function for function questions); an
    answer that equals it is attributed to this misconception, and the test suite proves that the
    grader rejects it with this message. ``detect(actual, expected)`` optionally recognises a
    whole family of answers (decoded values) with the same cause; ``variants`` lists more wrong
    answers with the same cause (each is proven to be rejected with this message, too).
    ``detail``: the part that gives a number away, shown only from the second failed attempt.
    ``credit``: partial credit for this specific wrong answer (a fraction of the points, shown
    in the feedback and the report).
    """

    key: str
    message: str
    answer: Any = None
    variants: tuple = ()
    detect: Callable[[Any, Any], bool] | None = None
    detail: str = ""
    credit: float = 0.0  # the fraction of the question's points this wrong answer earns

    def wrong_answers(self) -> tuple:
        """``answer`` followed by ``variants`` (the catalogued wrong answers)."""
        return (() if self.answer is None else (self.answer,)) + tuple(self.variants)


@dataclass(frozen=True)
class Question:
    """One graded question.

    ``kind == "value"``: the learner binds ``name`` to a value; ``reference()`` gives the expected
    value. ``kind == "function"``: the learner defines function ``name``; the grader calls it on
    ``cases(rng)`` (public examples plus random hidden ones) and compares with
    ``reference(*args)``. ``strategy()`` returns a hypothesis strategy of argument tuples, used to
    show the learner the smallest input on which their function fails. ``judge(actual)`` replaces
    the comparison with the reference for open questions (it returns None or a failure message).
    ``forbidden``: names a function answer must not use (e.g. ``repeat_interleave`` when the
    exercise says "using only view and repeat"); see ``judge.rule_violation``.
    ``huge``: fixed inputs with sizes no tensor can have in memory (a side of 10**9, a length of
    10**15), appended to every call of ``make_cases`` (the learner's own check meets them too):
    a function that builds a tensor and runs the operation fails them, only the rule passes.
    ``allowed``: an allow-list (``allow.Allowed``): what a function answer may use besides plain
    Python, followed through helpers and aliases (``rules.rule_check``).
    ``assessment``: what a passing answer proves (``release.ASSESSMENTS``: derive, implement,
    predict, written, free), stated in the notebook, the feedback and the report; ``title``: a
    short human name for feedback pages and reports (the id when empty).
    """

    id: str
    notebook: str
    name: str
    kind: str
    prompt: str
    todo: str
    reference: Callable[..., Any] | None = None
    cases: Callable[[np.random.Generator], list[tuple]] | None = None
    strategy: Callable[[], Any] | None = None
    expect: Expect = field(default_factory=Expect)
    misconceptions: tuple[Misconception, ...] = ()
    hints: tuple[str, ...] = ()
    judge: Callable[[Any], str | None] | None = None
    points: float = 1.0
    forbidden: tuple[str, ...] = ()
    assessment: str = "free"
    title: str = ""
    huge: tuple = ()  # derive questions: inputs no tensor can have (appended to the cases)
    allowed: Any = None  # allow.Allowed: what a function answer may use (an allow-list)
    predict: str = ""  # predict questions: "formative" (0 points) or "first" (first prediction)

    def __post_init__(self):
        from .release import ASSESSMENTS

        if self.kind not in ("value", "function"):
            raise ValueError(f"{self.id}: kind must be 'value' or 'function'")
        if self.assessment not in ASSESSMENTS:
            raise ValueError(f"{self.id}: assessment must be one of {', '.join(ASSESSMENTS)}")
        if self.kind == "function" and (self.cases is None or self.reference is None):
            raise ValueError(f"{self.id}: a function question needs cases and a reference")
        if self.reference is None and self.judge is None:
            raise ValueError(f"{self.id}: needs a reference or a judge")
        keys = [m.key for m in self.misconceptions]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.id}: duplicate misconception keys")


def case_seed(seed: int, qid: str) -> int:
    """A per-question seed derived from the grader's seed (stable across processes)."""
    digest = hashlib.sha256(f"{seed}:{qid}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def make_cases(q: Question, seed: int) -> list[tuple]:
    """Fresh argument tuples for ``q`` (new objects on every call, so callers may mutate them)."""
    rng = np.random.default_rng(case_seed(seed, q.id))
    huge = [tuple(h) for h in getattr(q, "huge", ())]
    return [tuple(c) for c in q.cases(rng)] + copy.deepcopy(huge)
