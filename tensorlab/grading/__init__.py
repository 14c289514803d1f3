"""Grading: self-grading exercises for learners and a batch grader for instructors.

- ``check(question_id, answer)``: inline feedback in a notebook (``tensorlab.check``).
- ``evaluate(question_id, answer)``: the same judgement as a ``Verdict``, nothing displayed.
- ``tensorlab assign SOLUTIONS EXERCISES``: generate learner notebooks (``grading.assign``).
- ``tensorlab grade SUBMISSIONS --out DIR``: batch grading in fresh kernels (``grading.grade``).

Question definitions (ids, prompts, references, misconceptions, hints) live in
``tensorlab.grading.questions``; this package holds the machinery. nbclient, nbformat and
hypothesis are imported only when they are needed.
"""

from __future__ import annotations

from .inline import CheckFailed, check, evaluate
from .model import Expect, Misconception, Question
from .registry import all_questions, for_notebook, get

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
