"""Grading: self-grading exercises for learners and a batch grader for instructors.

- ``check(question_id, answer)``: inline feedback in a notebook (``tensorlab.check``).
- ``evaluate(question_id, answer)``: the same judgement as a ``Verdict``, nothing displayed.
- ``tensorlab assign SOLUTIONS EXERCISES``: generate learner notebooks (``grading.assign``).
- ``tensorlab grade SUBMISSIONS --out DIR``: batch grading in fresh kernels (``grading.grade``).

Question definitions (ids, prompts, references, misconceptions, hints) live in
``tensorlab.grading.questions``; this package holds the machinery. nbclient, nbformat and
hypothesis are imported only when they are needed. The names below are imported on first use
(PEP 562), so a process that needs one module of the package (the grader's answer process
imports only ``encode``) does not pay for the others at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .inline import CheckFailed, check, evaluate
    from .model import Expect, Misconception, Question
    from .registry import all_questions, for_notebook, get

_LAZY = {
    "CheckFailed": "inline",
    "check": "inline",
    "evaluate": "inline",
    "Expect": "model",
    "Misconception": "model",
    "Question": "model",
    "all_questions": "registry",
    "for_notebook": "registry",
    "get": "registry",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "CheckFailed",
    "Expect",
    "Misconception",
    "Question",
    "all_questions",
    "check",
    "evaluate",
    "for_notebook",
    "get",
]
