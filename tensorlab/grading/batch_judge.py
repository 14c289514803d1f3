"""Stage 4, judge (batch): what the kernel is asked, and how its answer becomes a record.

For each question one harness cell asks the kernel for the answer only (functions are called on
grader-chosen public and hidden random inputs); values come back as JSON (``encode``), never
pickle. The grader judges them in its own process (``judge``) against references the kernel
never sees, and a rule (``forbidden`` names) is checked on the source the grader spliced in.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rebuild import ExecCell


def harness_source(nonce: str, qid: str, info: dict, payload: str) -> str:
    return (
        "import tensorlab.grading._harness as _tl_harness\n"
        f"_tl_harness.respond({nonce!r}, {qid!r}, {info['name']!r}, {info['kind']!r}, "
        f"{payload!r})"
    )


def payload(q, seed: int) -> str:
    from .encode import encode_args
    from .model import make_cases

    if q.kind != "function":
        return "{}"
    cases = [encode_args(args)[0] for args in make_cases(q, seed)]
    return json.dumps({"cases": cases})


def answer_from(outputs: list, nonce: str, qid: str):
    from ._harness import MIME

    found = None
    for out in outputs:
        data = out.get("data", {}) if out.get("output_type") == "display_data" else {}
        msg = data.get(MIME)
        if isinstance(msg, str):
            try:
                msg = json.loads(msg)
            except ValueError:
                continue
        if isinstance(msg, dict) and msg.get("nonce") == nonce and msg.get("qid") == qid:
            found = msg.get("answer")
    return found


def judge_answer(q, answer, seed: int):
    from .authoring import PublicCheck, judge_public
    from .encode import decode
    from .judge import judge_function, judge_value

    if isinstance(q, PublicCheck):  # a learner's own check of an authored course
        if q.kind == "function" and isinstance(answer, dict) and answer.get("t") == "results":
            items = answer.get("items")
            if not isinstance(items, list):
                raise ValueError("malformed results")
            return judge_public(q, [decode(x) for x in items])
        return judge_public(q, decode(answer))
    if q.kind == "function" and isinstance(answer, dict) and answer.get("t") == "results":
        items = answer.get("items")
        if not isinstance(items, list):
            raise ValueError("malformed results")
        return judge_function(q, [decode(x) for x in items], seed)
    value = decode(answer)
    return judge_value(q, value) if q.kind == "value" else judge_function(q, value, seed)


def rule_verdict_for(q, cells: list[ExecCell]):
    """The failed verdict of an answer that breaks its question's rules (``q.forbidden``), read
    from the source the grader spliced in (the kernel is never asked), else None."""
    from .judge import answer_names, rule_verdict, rule_violation

    own = [c.source for c in cells if c.qid == q.id]
    if not own:
        return None
    used = answer_names(q.name, own[-1], [c.source for c in cells])
    broken = rule_violation(q, used)
    return rule_verdict(q, broken) if broken else None
