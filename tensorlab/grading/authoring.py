"""Your own questions: declared in your own solution notebooks, no change to the package.

A solution notebook declares each question in a *question cell* (cell metadata
``{"tensorlab": {"role": "question", "question": "<id>"}}``), next to the answer cell that
holds the reference solution between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and the
learner's check cell (``tensorlab.check("<id>")``)::

    from tensorlab.grading.authoring import misconception, question

    question(
        "intro.double",                  # the id (unique in the course)
        name="double",                   # what the learner defines: the reference is yours
        kind="function",                 # "value", "function" or "layout" (view/copy, storage)
        points=2,
        partial=True,                    # opt-in: points per passed case
        public=[(tensorlab.arange(4.0),)],          # self-check inputs (outputs ship as data)
        cases=lambda rng: [(tensorlab.tensor(rng.normal(size=3)),) for _ in range(8)],
        misconceptions=[misconception("squared", "You squared x.", hint="...",
                                      answer=lambda x: x * x)],
        forbidden=("repeat_interleave",),
    )

Hidden inputs come from ``cases(rng)`` (a seeded ``numpy.random.Generator``: never use the
global ``np.random``) or a hypothesis strategy of argument tuples (``strategy=``). The
question cell is removed from the exercise; so are the solution's lines. The learner's
self-check runs on the ``public`` inputs only, against their expected outputs written by
``assign`` as data (``tensorlab-checks.json``), with misconception detection; batch grading
(``tensorlab grade``) calls your reference on fresh hidden inputs, in the grader's process.

Running your own solution notebook registers its questions in that kernel, so its check
cells work there with the full references.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .model import Expect, Misconception, Question
from .release import CHECKS_FILE

KINDS = ("value", "function", "layout")
HIDDEN_CASES = 10

_collecting: list | None = None  # while a solution notebook is loaded: the declared specs


@dataclass(frozen=True)
class Authored(Question):
    """A question declared in an instructor's notebook (``public``: the self-check inputs)."""

    public: tuple = ()
    partial: bool = False
    layout: bool = False
    reveal: bool = False
    weights: Any = None  # per-case weights: a sequence (one a case) or a function of a case


@dataclass(frozen=True)
class PublicCheck(Question):
    """A learner's view of an authored question: public inputs and their expected outputs,
    as data (``data``); no reference."""

    data: dict = field(default_factory=dict)
    partial: bool = False


def misconception(
    key: str, message: str, *, hint: str = "", answer: Any = None, credit: float = 0.0
) -> Misconception:
    """A plausible wrong answer (a function for function questions, else a value), the message
    it earns and a hint (shown from the second failed attempt). ``credit``: the fraction of
    the question's points this wrong answer earns (0 <= credit < 1; e.g. 0.5 for an answer
    that is right but for the transposed output), shown in the feedback and the report."""
    import math

    if isinstance(credit, bool) or not isinstance(credit, (int, float)):
        raise TypeError(f"misconception {key!r}: credit must be a number, not {credit!r}")
    if not (math.isfinite(credit) and 0 <= credit < 1):
        raise ValueError(f"misconception {key!r}: credit must be in [0, 1), not {credit!r}")
    return Misconception(key, message, answer=answer, detail=hint, credit=float(credit))


class _Reference:
    """The instructor's ``name`` in their notebook's namespace, looked up when called (so a
    question cell may come before the answer cell); its signature is the function's."""

    def __init__(self, ns: dict, name: str):
        self.ns, self.name = ns, name

    def __call__(self, *args):
        return self.ns[self.name](*args)

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(self.ns[self.name])


class _Value(_Reference):
    """A value question's reference: ``name`` as the instructor's notebook binds it."""

    def __call__(self):
        return self.ns[self.name]


class _NoReference:
    """A learner's public check has no reference, only its parameters' names."""

    def __init__(self, params=()):
        self.params = tuple(params)

    def __call__(self, *args):
        raise RuntimeError("the reference stays with the instructor")

    @property
    def __signature__(self):
        import inspect

        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        return inspect.Signature([inspect.Parameter(n, kind) for n in self.params])


def question(
    id: str,
    *,
    name: str,
    kind: str = "function",
    points: float = 1.0,
    partial: bool = False,
    prompt: str = "",
    todo: str | None = None,
    public=(),
    cases=None,
    strategy=None,
    n_cases: int = HIDDEN_CASES,
    misconceptions=(),
    forbidden=(),
    hints=(),
    rtol: float | None = None,
    atol: float | None = None,
    reveal: bool = False,
    weights=None,
    title: str = "",
    assessment: str = "free",
) -> None:
    """Declare a question (registered in this kernel, so its check cell works here); its
    reference is ``name`` as the solution notebook defines it.

    ``reveal``: the feedback files may show the grader's messages, which name values at hidden
    inputs (by default they show the stage, the misconception and its hint only).
    ``rtol``/``atol``: giving either makes the question numeric: an int and a float are
    accepted alike (a bool never) when close enough.

    ``weights``: what each case is worth with ``partial=True`` (otter-grader's per-test
    points): a sequence, one number a case in the order they are judged (the public inputs,
    then the hidden ones), or a function of a case's arguments returning its weight. ``title``:
    shown on feedback pages and in the report instead of the id; ``assessment``: what a passing
    answer proves (``release.ASSESSMENTS``)."""
    if partial and kind == "value":
        raise ValueError(f"{id}: partial=True gives points per input: a value question has none")
    if weights is not None and not partial:
        raise ValueError(f"{id}: weights= give points per case: they need partial=True")
    if prompt and not isinstance(prompt, str):
        raise TypeError(f"{id}: prompt must be a string")
    if kind not in KINDS:
        raise ValueError(f"{id}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if not isinstance(id, str) or not id:
        raise ValueError("a question needs an id (a non-empty string)")
    ns = sys._getframe(1).f_globals
    reference = _Reference(ns, name)
    public = tuple(tuple(c) for c in public)
    if kind != "value" and cases is None and strategy is None and not public:
        raise ValueError(f"{id}: a {kind} question needs public inputs, cases(rng) or a strategy")

    def all_cases(rng):
        hidden = []
        if cases is not None:
            hidden = [tuple(c) for c in cases(rng)]
        elif strategy is not None:
            hidden = _draw(strategy, int(rng.integers(2**31)), n_cases)
        return [tuple(_fresh(c)) for c in public] + hidden

    expect = Expect(
        arrays=("tensor",) if kind == "layout" else ("ndarray", "tensor"),
        rtol=1e-7 if rtol is None else float(rtol),
        atol=1e-9 if atol is None else float(atol),
        layout=kind == "layout",
        numeric=rtol is not None or atol is not None,
    )
    q = Authored(
        id=id,
        notebook="",
        name=name,
        kind="value" if kind == "value" else "function",
        prompt=prompt,
        todo=todo or f"define `{name}` (see the question above)",
        reference=_Value(ns, name) if kind == "value" else reference,
        cases=None if kind == "value" else all_cases,
        strategy=(lambda: strategy) if strategy is not None else None,
        expect=expect,
        misconceptions=tuple(misconceptions),
        hints=tuple(hints),
        points=float(points),
        forbidden=tuple(forbidden),
        public=public,
        partial=bool(partial),
        layout=kind == "layout",
        reveal=bool(reveal),
        weights=tuple(weights) if isinstance(weights, (list, tuple)) else weights,
        title=title,
        assessment=assessment,
    )
    if _collecting is not None:
        _collecting.append(q)
    else:
        from .registry import register

        register([q])


def _fresh(case: tuple) -> tuple:
    from .judge import copy_args

    return copy_args(tuple(case))


def _draw(strategy, seed: int, n: int) -> list[tuple]:
    """``n`` argument tuples drawn from a hypothesis strategy, the same for the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list[tuple] = []

    @hseed(seed)
    @settings(
        max_examples=n,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def draw(args):
        out.append(tuple(args) if isinstance(args, (tuple, list)) else (args,))

    draw()
    return out[:n]


# ---------------------------------------------------------------------------- loading
def is_authored(nb) -> bool:
    """Whether a solution notebook declares its own questions (has question cells)."""
    return any(_role(c)[0] == "question" for c in nb.get("cells", []))


def _role(cell) -> tuple:
    meta = cell.get("metadata", {}).get("tensorlab", {})
    return (meta.get("role"), meta.get("question")) if isinstance(meta, dict) else (None, None)


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def notebook_code(nb) -> list[tuple[int, str]]:
    """(cell index, source) of every code cell a loader runs: all but the check cells."""
    return [
        (i, _source(c))
        for i, c in enumerate(nb.get("cells", []))
        if c.get("cell_type") == "code" and _role(c)[0] != "check"
    ]


class LoadError(Exception):
    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index


def load_code(code: list[tuple[int, str]], notebook: str) -> list[tuple[Authored, int]]:
    """Run a solution notebook's code (``notebook_code``) in a fresh namespace; its declared
    questions with the index of the cell that declared each. ``LoadError`` names the cell."""
    global _collecting
    import numpy as np

    ns: dict = {"__name__": f"__tensorlab_authored_{Path(notebook).stem}__"}
    found: list[tuple[Authored, int]] = []
    previous, _collecting = _collecting, []
    state = np.random.get_state()
    try:
        for index, source in code:
            before = len(_collecting)
            try:
                exec(compile(source, f"<{notebook}, cell {index}>", "exec"), ns)  # noqa: S102
            except Exception as e:  # noqa: BLE001 - reported with the notebook and cell
                raise LoadError(index, f"{type(e).__name__}: {e}") from None
            for q in _collecting[before:]:
                found.append((_with_notebook(q, notebook), index))
    finally:
        _collecting = previous
        np.random.set_state(state)
    return found


def _with_notebook(q: Authored, notebook: str) -> Authored:
    import dataclasses

    return dataclasses.replace(q, notebook=Path(notebook).stem)


_loaded: dict[str, str] = {}  # notebook -> digest of the code registered in this process


def ensure_registered(code: dict | None, public: dict | None) -> None:
    """Register the authored questions a release needs, in this process (a grading worker):
    the instructor's references when the grader has them (``code``: ``Release.authored_code``,
    read from the solutions), else the learner's public checks (``public``: ``tensorlab
    check``)."""
    from .registry import register

    code = code or {}
    for notebook, cells in code.items():
        digest = hashlib.sha256(json.dumps(cells).encode()).hexdigest()
        if _loaded.get(notebook) == digest:
            continue
        register([q for q, _ in load_code([tuple(c) for c in cells], notebook)])
        _loaded[notebook] = digest
    if public:
        register([public_question(qid, d) for qid, d in public.items() if qid not in _known()])


def _known() -> set:
    from .registry import _authored

    return set(_authored)


def read_solutions(info: dict | None, folder=None) -> dict | None:
    """``{notebook: [(index, source)]}`` of a release's authored notebooks (``info``:
    ``Release.authored``), read from the solutions ``folder`` (else the one an older release
    recorded); None if they are not there (a learner's machine). ``ValueError`` when a
    solution notebook there changed since ``assign``."""
    if not info:
        return None
    folder = Path(folder if folder is not None else info.get("solutions", "") or "\0")
    out = {}
    for name, digest in info.get("notebooks", {}).items():
        path = folder / name
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError(
                f"{path} changed since `tensorlab assign`: run `tensorlab assign` again"
            )
        out[name] = [list(c) for c in notebook_code(json.loads(data.decode("utf-8")))]
    return out


# ---------------------------------------------------------------------------- public checks
def public_question(qid: str, data: dict) -> PublicCheck:
    """The learner-side question of ``data`` (an entry of ``tensorlab-checks.json``)."""
    from .encode import decode_args

    cases = [c["args"] for c in data.get("cases", [])]
    e = data.get("expect", {})
    return PublicCheck(
        id=qid,
        notebook=data.get("notebook", ""),
        name=data["name"],
        kind=data["kind"],
        prompt="",
        todo=data.get("todo", ""),
        reference=_NoReference(data.get("params", ())),
        cases=(lambda rng: [decode_args(c)[0] for c in cases]) if data["kind"] != "value" else None,
        expect=Expect(
            arrays=tuple(e.get("arrays", ("ndarray", "tensor"))),
            rtol=e.get("rtol", 1e-7),
            atol=e.get("atol", 1e-9),
            layout=bool(e.get("layout")),
            numeric=bool(e.get("numeric")),
        ),
        misconceptions=tuple(
            Misconception(
                m["key"], m["message"], detail=m.get("hint", ""), credit=m.get("credit", 0.0)
            )
            for m in data.get("misconceptions", [])
        ),
        hints=tuple(data.get("hints", ())),
        points=float(data.get("points", 1.0)),
        forbidden=tuple(data.get("forbidden", ())),
        data=data,
        partial=bool(data.get("partial")),
    )


def find_checks(start: str | os.PathLike | None = None) -> Path | None:
    """``tensorlab-checks.json`` for a learner's kernel: ``$TENSORLAB_CHECKS``, else the
    current folder or one of its parents."""
    env = os.environ.get("TENSORLAB_CHECKS")
    if env:
        return Path(env)
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CHECKS_FILE).is_file():
            return folder / CHECKS_FILE
    return None


def lookup_public(qid: str) -> PublicCheck | None:
    path = find_checks()
    if path is None:
        return None
    try:
        checks = json.loads(path.read_text(encoding="utf-8")).get("questions", {})
    except (OSError, ValueError):
        return None
    return public_question(qid, checks[qid]) if qid in checks else None


def judge_public_value(q: PublicCheck, value) -> Any:
    """A value question's self-check: the answer's fingerprint against the shipped ones
    (``selfcheck``); "no self-check" when none shipped (never "passed")."""
    from .judge import Verdict, describe
    from .selfcheck import Unchecked, fingerprint

    own = q.data.get("self_check") or {}
    accepted = own.get("accepted")
    if not accepted:
        why = own.get("unchecked") or "this release ships no self-check for it"
        return Verdict(
            q.id,
            "unchecked",
            None,
            f"no self-check for this question ({why}): your value is checked when your "
            "notebook is graded",
        )
    try:
        mine = fingerprint(q.id, value, q.expect)
    except Unchecked:
        return Verdict(
            q.id, "failed", "type", f"{describe(value)} cannot be the answer to this question"
        )
    if mine in accepted:
        return Verdict(q.id, "passed", message="matches the expected value (by its fingerprint)")
    return Verdict(
        q.id,
        "failed",
        "values",
        "not the expected value (the self-check compares a fingerprint of your answer with "
        "the expected one's: it cannot say what differs)",
    )


def judge_public(q: PublicCheck, results) -> Any:
    """Judge decoded results on the public inputs against their shipped expected outputs."""
    from .encode import Raised, decode, decode_args
    from .judge import (
        Verdict,
        _matches,
        _not_attempted_message,
        attempted,
        compare,
        describe,
    )

    if q.kind == "value":
        if not attempted(results):
            return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, results))
        return judge_public_value(q, results)
    if not isinstance(results, list):
        if not attempted(results):
            return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, results))
        if isinstance(results, Raised):
            return Verdict(q.id, "error", "attempted", f"raised {results.type}: {results.message}")
        return Verdict(
            q.id, "failed", "type", f"expected a function `{q.name}`, got {describe(results)}"
        )
    cases = q.data.get("cases", [])
    if all(not attempted(r) for r in results):
        return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, results[0]))
    failures = []
    for i, (case, actual) in enumerate(zip(cases, results)):
        n_args = len(decode_args(case["args"])[1])
        expected = decode(case["expected"])
        failure = compare(actual, expected, q.expect, n_args)
        if failure is not None:
            failures.append((i, failure, expected, actual, n_args))
    n_passed = len(cases) - len(failures)
    if not failures:
        return Verdict(q.id, "passed", n_cases=len(cases), n_passed=n_passed)
    i, failure, expected, actual, n_args = failures[0]
    found = None
    for m in q.misconceptions:
        wrong = [decode(c["wrong"][m.key]) for c in cases if m.key in c.get("wrong", {})]
        if len(wrong) == len(cases) and all(
            _matches(a, w, len(decode_args(c["args"])[1]), q.expect)
            for a, w, c in zip(results, wrong, cases)
        ):
            found = m
            break
    stage, message = failure.stage, failure.message
    if stage == "attempted":
        stage, message = "values", "raised NotImplementedError on this input"
    elif isinstance(actual, Raised) and stage == "type":
        stage, message = "runs", f"your function raised {actual.type}: {actual.message}"
    return Verdict(
        q.id,
        "failed",
        stage,
        message,
        found,
        case_index=i,
        case_args=decode_args(cases[i]["args"])[0],
        expected=expected,
        actual=actual,
        n_cases=len(cases),
        n_passed=n_passed,
    )


# ---------------------------------------------------------------------------- assign
VALIDATION_SEEDS = (0, 1)


def _encoded_call(fn, args: tuple) -> dict:
    """``fn(*copies of args)`` encoded with storages numbered as the arguments' (JSON data)."""
    from .encode import encode, encode_args, encode_raised
    from .judge import copy_args

    fresh = copy_args(args)
    table = encode_args(fresh, with_data=False)[1]
    try:
        return encode(fn(*fresh), table)
    except Exception as exc:  # noqa: BLE001 - the call's error is its result
        return encode_raised(exc)


def _dump(x) -> str:
    return json.dumps(x, sort_keys=True)


def validate(q: Authored) -> str | None:
    """Why ``q`` cannot be released (its reference raises on its own inputs, a misconception
    equals it, its inputs or results are not reproducible for a seed), else None."""
    import numpy as np

    from .encode import decode, encode, encode_args
    from .judge import _matches, copy_args

    ns = getattr(q.reference, "ns", None) or getattr(q, "namespace", None)
    if isinstance(ns, dict) and q.name not in ns:
        return (
            f"your solution notebook defines no `{q.name}` (name={q.name!r}: the answer cell "
            "must define it, or fix the name)"
        )
    if q.kind != "value":
        problem = _check_weights(q)
        if problem:
            return problem
    elif q.weights is not None:
        return "weights= apply to a function's cases: a value question has none"
    if q.kind == "value":
        try:
            value = q.reference()
        except Exception as e:  # noqa: BLE001
            return f"the reference `{q.name}` cannot be read: {type(e).__name__}: {e}"
        expected = decode(encode(value))
        for m in q.misconceptions:
            for wrong in m.wrong_answers():
                if _matches(decode(encode(wrong)), expected, 0, q.expect):
                    return f"misconception {m.key!r} equals the reference"
        return None
    for seed in VALIDATION_SEEDS:
        first = [encode_args(c)[0] for c in q.cases(np.random.default_rng(seed))]
        again = [encode_args(c)[0] for c in q.cases(np.random.default_rng(seed))]
        if _dump(first) != _dump(again):
            return (
                "unseeded randomness: the inputs differ between two draws with the same seed "
                "(draw them from the rng argument, never from np.random or random)"
            )
    cases = q.cases(np.random.default_rng(VALIDATION_SEEDS[0]))
    if not cases:
        return "the question has no inputs (give public inputs, cases(rng) or a strategy)"
    results = []
    for i, args in enumerate(cases):
        out = _encoded_call(q.reference, args)
        if out.get("t") == "raised":
            return (
                f"the reference `{q.name}` raises {out.get('type')}: {out.get('message')} "
                f"on its own input #{i}"
            )
        if _dump(out) != _dump(_encoded_call(q.reference, args)):
            return (
                f"unseeded randomness: the reference `{q.name}` gives another result on the "
                f"same input #{i}"
            )
        results.append(out)
    for m in q.misconceptions:
        for wrong in m.wrong_answers():
            if not callable(wrong):
                return f"misconception {m.key!r}: the wrong answer of a {q.kind} question must be a function"
            if all(
                _matches(
                    decode(_encoded_call(wrong, args)),
                    decode(exp),
                    len(encode_args(copy_args(args), with_data=False)[1]),
                    q.expect,
                )
                for args, exp in zip(cases, results)
            ):
                return f"misconception {m.key!r} equals the reference on every input"
    return None


def case_weights(q, seed: int) -> list[float] | None:
    """The weight of each case ``q`` is judged on for ``seed`` (``question(weights=...)``)."""
    w = getattr(q, "weights", None)
    if w is None:
        return None
    from .model import make_cases

    cases = make_cases(q, seed)
    out = [float(w(*c)) for c in cases] if callable(w) else [float(x) for x in w]
    if len(out) != len(cases):
        raise ValueError(f"{q.id}: {len(out)} weights for {len(cases)} cases")
    return out


def _check_weights(q: Authored) -> str | None:
    import math

    if q.weights is None:
        return None
    for seed in VALIDATION_SEEDS:
        try:
            w = case_weights(q, seed)
        except Exception as e:  # noqa: BLE001 - reported with the notebook and cell
            return f"weights: {type(e).__name__}: {e}"
        if any(not math.isfinite(x) or x < 0 for x in w) or sum(w) <= 0:
            return "weights must be finite, >= 0, and not all 0"
    return None


def check_data(q: Authored) -> dict:
    """What a learner's self-check of ``q`` needs, as data: public inputs with the reference's
    and each misconception's outputs (no code, no hidden input)."""
    from .encode import encode_args

    data = {
        "name": q.name,
        "kind": q.kind,
        "notebook": q.notebook,
        "todo": q.todo,
        "points": q.points,
        "partial": q.partial,
        "forbidden": list(q.forbidden),
        "hints": list(q.hints),
        "expect": {
            "arrays": list(q.expect.arrays),
            "rtol": q.expect.rtol,
            "atol": q.expect.atol,
            "layout": q.expect.layout,
            "numeric": q.expect.numeric,
        },
        "misconceptions": [
            {"key": m.key, "message": m.message, "hint": m.detail}
            | ({"credit": m.credit} if m.credit else {})
            for m in q.misconceptions
        ],
        "cases": [],
    }
    if q.kind == "value":
        from .selfcheck import shipped

        data["self_check"] = shipped(q.id, q.reference(), q.expect)
    if q.kind != "value":
        import inspect

        try:
            data["params"] = list(inspect.signature(q.reference).parameters)
        except (TypeError, ValueError, KeyError):
            data["params"] = []
        for args in q.public:
            wrong = {}
            for m in q.misconceptions:
                if callable(m.answer):
                    wrong[m.key] = _encoded_call(m.answer, args)
            data["cases"].append(
                {
                    "args": encode_args(_fresh(args))[0],
                    "expected": _encoded_call(q.reference, args),
                    "wrong": wrong,
                }
            )
    return data
