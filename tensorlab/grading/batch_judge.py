"""Stage 4, judge (batch): what the answer process is asked, and how its answer becomes a record.

For each question the answer process (``answers``/``_answers``) is given the grader-chosen public
and hidden inputs (``payload``); values come back as signed JSON (``encode``), never pickle. The grader judges them in its own process (``judge``) against references the kernel
never sees, and a rule (``forbidden`` names) is checked on the source the grader spliced in.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rebuild import ExecCell


def payload(q, seed: int) -> str:
    from .encode import encode_args
    from .model import make_cases

    if q.kind != "function":
        return "{}"
    cases = [encode_args(args)[0] for args in make_cases(q, seed)]
    return json.dumps({"cases": cases})


def judge_answer(q, answer, seed: int):
    """The verdict on an answer as the kernel sent it (``judge.judge_encoded``: sized, decoded
    and judged under one guard; it never raises for what the answer holds). A learner's own
    check of an authored course (``PublicCheck``) is judged on its public cases, likewise."""
    from .authoring import PublicCheck, judge_public
    from .encode import decode
    from .judge import check_size, guarded, judge_encoded

    if not isinstance(q, PublicCheck) or (
        isinstance(answer, dict) and answer.get("t") in ("tampered", "cannot_follow")
    ):
        return judge_encoded(q, answer, seed)

    def step():
        check_size(answer)
        if q.kind == "function" and isinstance(answer, dict) and answer.get("t") == "results":
            items = answer.get("items")
            if not isinstance(items, list):
                raise ValueError("malformed results")
            return judge_public(q, [decode(x) for x in items])
        return judge_public(q, decode(answer))

    return guarded(q.id, step)


def with_rules(q, cells: list[ExecCell], verdict):
    """``verdict``, or the failed verdict of an answer that breaks its question's rules
    (``judge.rule_check``: the same check as the inline ``check``), read from the source the
    grader spliced in (the kernel is never asked)."""
    from .judge import guarded, rule_check
    from .judge import with_rules as apply
    from .rules import has_rules

    own = [c.source for c in cells if c.qid == q.id]
    if not own or not has_rules(q):
        return verdict
    context = [c.source for c in cells]
    return guarded(q.id, lambda: apply(q, verdict, rule_check(q, own[-1], context)))
