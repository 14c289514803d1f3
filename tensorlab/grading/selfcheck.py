"""An honest learner-side check for an authored value question: a salted fingerprint of the
expected value ships in ``tensorlab-checks.json`` (never the value), and the learner's answer is
fingerprinted the same way. Values the fingerprint cannot judge as the grader would (floats
compared with a tolerance, arrays) ship no fingerprint: their self-check says "no self-check
for this question", never "passed".

A fingerprint keeps the value out of plain sight; it does not make it secret (a small int can
be found by trying them all): the self-check is formative, the grade uses the reference.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .encode import ArrayAnswer, Opaque, Raised

FORMAT = "sha256-v1"


class Unchecked(ValueError):
    """The value cannot be fingerprinted the way the grader compares it."""


def canonical(value: Any, expect) -> Any:
    """``value`` (decoded) as the grader compares it, as plain JSON data: sequences as lists,
    strings folded when ``expect.casefold``, unordered sequences sorted, an integral float as
    an int when the question is numeric. ``Unchecked`` for anything compared with a tolerance
    (floats) or by layout (arrays)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if getattr(expect, "numeric", False) and value.is_integer():
            return int(value)
        raise Unchecked("a float is compared with a tolerance")
    if isinstance(value, str):
        return value.strip().casefold() if expect.casefold else value
    if isinstance(value, (tuple, list, frozenset)):
        items = [canonical(v, expect) for v in value]
        if isinstance(value, frozenset) or expect.unordered:
            items = sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
        return items
    if isinstance(value, dict):
        return {str(k): canonical(v, expect) for k, v in sorted(value.items(), key=str)}
    if isinstance(value, (ArrayAnswer, Opaque, Raised)):
        raise Unchecked("an array or object is compared by its contents and layout")
    raise Unchecked(f"a {type(value).__name__} cannot be fingerprinted")


def fingerprint(qid: str, value: Any, expect) -> str:
    """The salted fingerprint of a decoded value for question ``qid`` (``Unchecked`` when the
    value has none). The salt is the question's id: the same answer to two questions gives
    two fingerprints."""
    data = json.dumps(canonical(value, expect), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"tensorlab:{qid}:{data}".encode()).hexdigest()


def tolerant(expect, reference: Any) -> bool:
    """Whether a tolerance could accept another integer than ``reference`` (``atol`` or
    ``rtol * |reference|`` of 0.5 or more): then an exact fingerprint would say "wrong" to an
    answer the grader accepts."""
    if not getattr(expect, "numeric", False):
        return False
    numbers = _numbers(reference)
    return any(expect.atol + expect.rtol * abs(n) >= 0.5 for n in numbers)


def _numbers(v):
    if isinstance(v, bool):
        return []
    if isinstance(v, (int, float)):
        return [v]
    if isinstance(v, (tuple, list, frozenset)):
        return [n for x in v for n in _numbers(x)]
    return []


def shipped(qid: str, reference: Any, expect) -> dict:
    """What ``tensorlab-checks.json`` carries for a value question: ``{"accepted": [...]}`` or
    ``{"unchecked": why}``."""
    from .encode import decode, encode

    value = decode(encode(reference))
    if tolerant(expect, value):
        return {"unchecked": "its tolerance accepts more than one value"}
    try:
        return {"accepted": [fingerprint(qid, value, expect)], "fingerprint": FORMAT}
    except Unchecked as e:
        return {"unchecked": str(e)}
