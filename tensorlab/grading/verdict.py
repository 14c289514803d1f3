"""A verdict, defined once: where and why one answer passed or failed. The judge (``judge``),
the rules (``rules``), the public checks of an authored course (``authoring``) and the
learner's inline check all return a ``Verdict``; ``records.verdict_record`` turns it into the
question's record in a grade file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .model import Misconception

STAGES = ("attempted", "rules", "type", "dtype", "shape", "values", "layout")


@dataclass(frozen=True)
class Failure:
    """Where and why an answer differs from the reference."""

    stage: str
    message: str


@dataclass
class Verdict:
    """The outcome of judging one question.

    ``status``: passed | failed | not_attempted | error (plus, in batch grading, timeout |
    kernel_died | missing). ``case_index``/``case_args``: for function questions, the first
    failing call and its arguments; ``n_cases``/``n_passed``: how many inputs it was judged on
    and passed.
    """

    qid: str
    status: str
    stage: str | None = None
    message: str = ""
    misconception: Misconception | None = None
    case_index: int | None = None
    case_args: tuple | None = None
    expected: Any = None
    actual: Any = None
    n_cases: int = 0
    n_passed: int = 0
    details: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "passed"
