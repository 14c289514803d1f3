"""Judging an answer: a staged comparison that stops at the first failing stage.

Stages, in order: attempted -> type -> dtype -> shape (exact, never broadcast) -> values
(max error, first bad index) -> layout (strides, storage offset, storage sharing; only for
questions about views). Every function here is pure and works on *decoded* values
(see ``encode.decode``), so the same code judges an inline check and a batch submission.
"""

from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .encode import (
    MISSING,
    ArrayAnswer,
    DecodeError,
    Missing,
    Opaque,
    Raised,
    check_size,
    decode,
    encode,
)
from .model import Expect, Misconception, Question, make_cases

STAGES = ("attempted", "rules", "type", "dtype", "shape", "values", "layout")
JUDGE_SECONDS = 10.0  # every judge step of one question (decode, references, comparisons)


@dataclass(frozen=True)
class Failure:
    """Where and why an answer differs from the reference."""

    stage: str
    message: str


@dataclass
class Verdict:
    """The outcome of judging one question.

    ``status``: passed | failed | not_attempted | error (plus, in batch grading, timeout |
    kernel_died | missing). ``case``: for function questions, the index of the first failing
    call and a description of its arguments.
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

    def as_record(self, points: float, partial: bool = False) -> dict:
        """The JSON-able summary stored in a grade file (its layout: ``records``)."""
        from .records import verdict_record

        return verdict_record(self, points, partial)


# ---------------------------------------------------------------------------- the guard
class JudgeTimeout(BaseException):
    """A judge step ran out of its time budget (a BaseException: no ``except Exception`` in a
    question's own judge or detector swallows it)."""


@contextlib.contextmanager
def time_budget(seconds: float):
    """Raise ``JudgeTimeout`` in this thread after ``seconds`` (SIGALRM in the main thread, an
    asynchronous exception in any other: a Dask worker's thread)."""
    if seconds is None or seconds <= 0:
        yield
        return
    import signal

    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def ring(signum, frame):
            raise JudgeTimeout

        previous = signal.signal(signal.SIGALRM, ring)
        old = signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if old[0] > 0:  # someone else's timer: give it back what is left of it
                signal.setitimer(signal.ITIMER_REAL, old[0], old[1])
        return
    import ctypes

    ident = threading.get_ident()
    done = threading.Event()

    def ring_thread():
        if not done.wait(seconds):
            ctypes.pythonapi.PyThreadState_SetAsyncExc(
                ctypes.c_ulong(ident), ctypes.py_object(JudgeTimeout)
            )

    timer = threading.Thread(target=ring_thread, daemon=True)
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.join()


def _clip(text: Any, n: int = 300) -> str:
    text = str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def guarded(qid: str, step, *args, seconds: float | None = None) -> Verdict:
    """``step(*args)`` (which returns a Verdict) under one guard: whatever the submission's data
    makes it raise (OverflowError, RecursionError, MemoryError, anything) is this question's
    failure with a clear message, never an exception out of the grader; so is a step that
    outlives its time budget (``JUDGE_SECONDS``). A malformed answer (``DecodeError``: the
    kernel sent what ``encode`` never writes) is an error."""
    seconds = JUDGE_SECONDS if seconds is None else seconds
    try:
        with time_budget(seconds):
            return step(*args)
    except JudgeTimeout:
        return Verdict(
            qid,
            "failed",
            "values",
            f"your answer could not be judged within {seconds:g} s (judging stopped; e.g. an "
            "empty or huge array where a small one is expected)",
        )
    except DecodeError as e:
        return Verdict(qid, "error", None, f"the kernel sent a malformed answer: {_clip(e, 200)}")
    except RecursionError:
        return Verdict(qid, "failed", "values", "your answer is nested too deeply to be compared")
    except OverflowError as e:
        return Verdict(
            qid,
            "failed",
            "values",
            f"your answer holds a number too large to compare ({_clip(e, 200)})",
        )
    except MemoryError:
        return Verdict(qid, "failed", "values", "your answer is too large to be compared")
    except Exception as e:  # noqa: BLE001 - the submission's data must never break the grader
        return Verdict(
            qid,
            "failed",
            "values",
            f"your answer could not be compared ({type(e).__name__}: {_clip(e, 200)})",
        )


def _safely(fn, *args, default=None):
    """``fn(*args)``, or ``default`` when it raises (naming a misconception is best effort)."""
    try:
        return fn(*args)
    except Exception:  # noqa: BLE001
        return default


# ---------------------------------------------------------------------------- descriptions
def describe(v: Any) -> str:
    """A short name for the type of a decoded value, for messages."""
    if isinstance(v, ArrayAnswer):
        what = "tensor" if v.kind == "tensor" else "numpy array"
        return f"a {what} of shape {v.shape} and dtype {v.dtype}"
    if v is None:
        return "None"
    if isinstance(v, bool):
        return f"the bool {v}"
    if isinstance(v, int):
        return f"the int {v}"
    if isinstance(v, float):
        return f"the float {v!r}"
    if isinstance(v, str):
        return f"the string {v!r}" if len(v) < 40 else "a string"
    if isinstance(v, tuple):
        return f"a tuple of {len(v)}"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, frozenset):
        return f"a set of {len(v)}"
    if isinstance(v, dict):
        return "a dict"
    if isinstance(v, Opaque):
        if v.what == "function":
            return "a function"
        if v.what == "toolarge":
            return f"a {v.type} too large to grade"
        return f"an object of type {v.type}"
    if isinstance(v, Raised):
        return f"an exception {v.type}"
    return type(v).__name__


def _expected_kind(e: Any, expect: Expect) -> str:
    if isinstance(e, ArrayAnswer):
        kinds = [k for k in expect.arrays]
        names = {"ndarray": "numpy array", "tensor": "tensorlab tensor"}
        return " or ".join(names[k] for k in kinds)
    if isinstance(e, bool):
        return "a bool (True or False)"
    if isinstance(e, int):
        return "an int"
    if isinstance(e, float):
        return "a number"
    if isinstance(e, str):
        return "a string"
    if e is None:
        return "None"
    if isinstance(e, (tuple, list)):
        inner = {_plural(_expected_kind(x, expect)) for x in e}
        of = f" of {len(e)} {inner.pop()}" if len(inner) == 1 else f" of {len(e)}"
        return f"a tuple{of}"
    if isinstance(e, frozenset):
        return "a tuple, list or set of names"
    return type(e).__name__


def _plural(kind: str) -> str:
    """'a number' -> 'numbers', 'an int' -> 'ints', 'a tuple of 2 ints' -> 'tuples of 2 ints'."""
    for article in ("a ", "an "):
        if kind.startswith(article):
            kind = kind[len(article) :]
            break
    head, sep, tail = kind.partition(" ")
    if head == "bool":
        return "bools" + (" " + tail if tail else "")
    return head + "s" + sep + tail


def as_sequence(actual: Any, expected: Any) -> Any:
    """A 1-D array or tensor given where a tuple of numbers is expected, as that tuple (so
    ``tensor([0., 9., ...])`` answers "a tuple of 6 numbers"), and a 0-dim one where a number
    is expected, as that number (``w`` for ``w.item()``); anything else unchanged."""
    if (
        isinstance(expected, (int, float))
        and not isinstance(expected, bool)
        and isinstance(actual, ArrayAnswer)
        and actual.array.ndim == 0
        and actual.array.dtype.kind in "iuf"
    ):
        return actual.array.item()
    if (
        _seq(expected)
        and expected
        and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in expected)
        and isinstance(actual, ArrayAnswer)
        and actual.array.ndim == 1
        and actual.array.dtype.kind in "iuf"
    ):
        return tuple(actual.array.tolist())
    return actual


def _at(path: tuple) -> str:
    return "" if not path else " at item " + "][".join(str(p) for p in path).join("[]")


def _fmt_index(idx: tuple) -> str:
    return "(" + ", ".join(str(int(i)) for i in idx) + ("," if len(idx) == 1 else "") + ")"


def _fmt_number(x) -> str:
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    return str(x)


# ---------------------------------------------------------------------------- stages
def _seq(v) -> bool:
    return isinstance(v, (tuple, list))


def _stage_type(a, e, expect: Expect, path=()) -> str | None:
    if isinstance(e, ArrayAnswer):
        if isinstance(a, ArrayAnswer) and a.kind in expect.arrays:
            return None
        msg = f"expected {_expected_kind(e, expect)}{_at(path)}, got {describe(a)}"
        if isinstance(a, ArrayAnswer) and a.kind == "ndarray":
            msg += " (tensorlab.from_numpy(...) turns it into a tensor)"
        elif isinstance(a, ArrayAnswer):
            msg += " (.numpy() turns a tensor into an array)"
        return msg
    if isinstance(e, bool):
        ok = isinstance(a, bool)
    elif isinstance(e, int):
        ok = isinstance(a, int) and not isinstance(a, bool)
        if isinstance(a, float) and not ok:
            hint = " (use // for floor division, or int(...))" if a.is_integer() else ""
            return f"expected an int{_at(path)}, got {describe(a)}{hint}"
    elif isinstance(e, float):
        ok = isinstance(a, (int, float)) and not isinstance(a, bool)
    elif isinstance(e, str):
        ok = isinstance(a, str)
    elif e is None:
        ok = a is None
    elif isinstance(e, frozenset):
        if not isinstance(a, (tuple, list, frozenset)):
            return f"expected {_expected_kind(e, expect)}{_at(path)}, got {describe(a)}"
        bad = [x for x in a if not isinstance(x, str)]
        if bad:
            return f"expected names (strings){_at(path)}, got {describe(bad[0])} among them"
        return None
    elif _seq(e):
        if not _seq(a):
            return f"expected {_expected_kind(e, expect)}{_at(path)}, got {describe(a)}"
        for i, (x, y) in enumerate(zip(a, e)):
            msg = _stage_type(x, y, expect, path + (i,))
            if msg:
                return msg
        return None
    elif isinstance(e, dict):
        ok = isinstance(a, dict)
    else:
        ok = type(a) is type(e)
    if ok:
        return None
    return f"expected {_expected_kind(e, expect)}{_at(path)}, got {describe(a)}"


def _stage_dtype(a, e, expect: Expect, path=()) -> str | None:
    if isinstance(e, ArrayAnswer):
        if a.dtype != e.dtype:
            return f"dtype{_at(path)} is {a.dtype}, expected {e.dtype}"
        return None
    if _seq(e):
        for i, (x, y) in enumerate(zip(a, e)):
            msg = _stage_dtype(x, y, expect, path + (i,))
            if msg:
                return msg
    return None


def _stage_shape(a, e, expect: Expect, path=()) -> str | None:
    if isinstance(e, ArrayAnswer):
        if a.shape != e.shape:
            return (
                f"shape{_at(path)} is {a.shape}, expected {e.shape} "
                "(shapes must match exactly; nothing is broadcast)"
            )
        return None
    if _seq(e) and not expect.unordered:
        if len(a) != len(e):
            items = "item" if len(e) == 1 else "items"
            return f"expected {len(e)} {items}{_at(path)}, got {len(a)}"
        for i, (x, y) in enumerate(zip(a, e)):
            msg = _stage_shape(x, y, expect, path + (i,))
            if msg:
                return msg
    return None


def _array_values(a: ArrayAnswer, e: ArrayAnswer, expect: Expect, path, reveal: bool) -> str | None:
    x, y = a.array, e.array
    if x.size == 0:
        return None
    if np.issubdtype(y.dtype, np.floating) or np.issubdtype(y.dtype, np.complexfloating):
        xf, yf = x.astype(np.complex128), y.astype(np.complex128)
        close = np.isclose(xf, yf, rtol=expect.rtol, atol=expect.atol)
        if expect.equal_nan:
            close |= np.isnan(xf) & np.isnan(yf)
    else:
        close = x == y
    if bool(np.all(close)):
        return None
    bad = np.argwhere(~close)
    first = tuple(bad[0])
    msg = (
        f"values differ{_at(path)} at {len(bad)} of {x.size} positions; first at index "
        f"{_fmt_index(first)}: yours {_fmt_number(x[first])}"
    )
    if not reveal:
        return msg
    msg += f", expected {_fmt_number(y[first])}"
    if x.dtype.kind in "iufcb" and y.dtype.kind in "iufcb":
        with np.errstate(all="ignore"):
            diff = np.abs(x.astype(np.complex128) - y.astype(np.complex128))
        if np.isfinite(diff).all():
            msg += f"; max error {float(diff.max()):.4g}"
    return msg


def _norm_str(s: str, expect: Expect) -> str:
    return s.strip().casefold() if expect.casefold else s


def _stage_values(a, e, expect: Expect, path=(), reveal: bool = True) -> str | None:
    if isinstance(e, ArrayAnswer):
        return _array_values(a, e, expect, path, reveal)
    if isinstance(e, frozenset) or (expect.unordered and _seq(e)):
        got = {_norm_str(x, expect) if isinstance(x, str) else x for x in a}
        want = {_norm_str(x, expect) if isinstance(x, str) else x for x in e}
        if got == want:
            return None
        if not reveal:
            return f"not the right set{_at(path)}: {len(got & want)} of your {len(got)} are right"
        parts = []
        if want - got:
            parts.append("missing " + ", ".join(repr(v) for v in sorted(want - got, key=repr)))
        if got - want:
            parts.append(
                "should not include " + ", ".join(repr(v) for v in sorted(got - want, key=repr))
            )
        return f"not the right set{_at(path)}: " + "; ".join(parts)
    if _seq(e):
        for i, (x, y) in enumerate(zip(a, e)):
            msg = _stage_values(x, y, expect, path + (i,), reveal)
            if msg:
                return msg
        return None
    if isinstance(e, float) and not isinstance(e, bool):
        if expect.equal_nan and math.isnan(e) and isinstance(a, float) and math.isnan(a):
            return None
        if math.isclose(a, e, rel_tol=expect.rtol, abs_tol=expect.atol):
            return None
        got = f"{_fmt_number(a)}{_at(path)} is not right"
        return (
            got
            if not reveal
            else f"value{_at(path)} is {_fmt_number(a)}, expected {_fmt_number(e)}"
        )
    if isinstance(e, str):
        if _norm_str(a, expect) == _norm_str(e, expect):
            return None
        return (
            f"{a!r}{_at(path)} is not right"
            if not reveal
            else f"got {a!r}{_at(path)}, expected {e!r}"
        )
    if isinstance(e, dict):
        if a == e:
            return None
        return f"the dict{_at(path)} differs from the expected one"
    if a == e and type(a) is type(e):
        return None
    if not reveal:
        return f"{_fmt_number(a)}{_at(path)} is not right"
    return f"got {_fmt_number(a)}{_at(path)}, expected {_fmt_number(e)}"


def _relation(storage: int | None, n_args: int) -> str:
    if storage is None or storage >= n_args:
        return "new"
    return f"arg{storage}"


def _stage_layout(a, e, expect: Expect, n_args: int, path=()) -> str | None:
    if not expect.layout:
        return None
    if isinstance(e, ArrayAnswer):
        ra, re_ = _relation(a.storage, n_args), _relation(e.storage, n_args)
        if ra != re_:
            if re_ != "new" and ra == "new":
                return (
                    f"the values are right{_at(path)}, but this is a copy, not a view: it does not "
                    "share storage with the input"
                )
            if re_ == "new":
                return (
                    f"this shares memory with the input{_at(path)}; a new tensor was expected "
                    "(writing to it would change the input)"
                )
            return f"this shares storage with the wrong argument{_at(path)}"
        if e.kind == "tensor" and a.kind == "tensor" and a.stride != e.stride:
            return f"strides{_at(path)} are {a.stride}, expected {e.stride}"
        if re_ != "new" and a.pos != e.pos:
            return (
                f"the result starts at another place in the input's memory{_at(path)} "
                "(wrong storage offset)"
            )
        return None
    if _seq(e):
        for i, (x, y) in enumerate(zip(a, e)):
            msg = _stage_layout(x, y, expect, n_args, path + (i,))
            if msg:
                return msg
    return None


def attempted(actual: Any) -> bool:
    """False for a missing name or a NotImplementedError (the exercise placeholder)."""
    if isinstance(actual, Missing):
        return False
    if isinstance(actual, Raised) and actual.not_implemented:
        return False
    return not (isinstance(actual, Opaque) and actual.type == "ellipsis")


def compare(
    actual: Any, expected: Any, expect: Expect, n_args: int = 0, *, reveal: bool = True
) -> Failure | None:
    """The first stage at which ``actual`` differs from ``expected`` (both decoded), or None.

    ``reveal=False`` keeps expected values out of the messages (value questions: the message
    must not give the answer away).
    """
    if not attempted(actual):
        return Failure("attempted", "not attempted yet")
    if isinstance(expected, Raised):
        if isinstance(actual, Raised) and actual.type == expected.type:
            return None
        return Failure("values", f"expected {expected.type} to be raised, got {describe(actual)}")
    if isinstance(actual, Raised):
        return Failure("type", f"raised {actual.type}: {actual.message}")
    actual = as_sequence(actual, expected)
    for stage, fn in (
        ("type", _stage_type),
        ("dtype", _stage_dtype),
        ("shape", _stage_shape),
    ):
        msg = fn(actual, expected, expect)
        if msg:
            return Failure(stage, msg)
    msg = _stage_values(actual, expected, expect, reveal=reveal)
    if msg:
        return Failure("values", msg)
    msg = _stage_layout(actual, expected, expect, n_args)
    if msg:
        return Failure("layout", msg)
    return None


# ---------------------------------------------------------------------------- questions
def _numbers(v: Any) -> tuple | None:
    if _seq(v) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return tuple(float(x) for x in v)
    return None


def _matches(actual: Any, wrong: Any, n_args: int, expect: Expect) -> bool:
    if isinstance(wrong, Raised):
        return isinstance(actual, Raised) and actual.type == wrong.type
    if compare(actual, wrong, expect, n_args) is None:
        return True
    a, w = _numbers(actual), _numbers(wrong)  # (0, 0, 3) and (0.0, 0.0, 3.0): the same mistake
    return (
        a is not None
        and w is not None
        and len(a) == len(w)
        and all(math.isclose(x, y, rel_tol=expect.rtol, abs_tol=expect.atol) for x, y in zip(a, w))
    )


def which_misconception(
    q: Question, actual: Any, expected: Any, args: tuple | None = None
) -> Misconception | None:
    """The first catalogued misconception that explains ``actual`` (for one case)."""
    for m in q.misconceptions:
        if m.detect is not None:
            try:
                if m.detect(actual, expected):
                    return m
            except Exception:  # noqa: BLE001 - a detector must never break judging
                pass
        for answer in m.wrong_answers():
            if q.kind == "value":
                wrong = decode(encode(answer))
                if _matches(actual, wrong, 0, q.expect):
                    return m
            elif args is not None:
                wrong, n_args = call_encoded(answer, copy_args(args))
                if _matches(actual, wrong, n_args, q.expect):
                    return m
    return None


def copy_args(args: tuple) -> tuple:
    """A deep copy of call arguments that keeps every tensor's layout (strides, offset)."""
    from .._storage import UntypedStorage
    from .._tensor import Tensor

    memo: dict[int, Any] = {}

    def cp(x):
        if isinstance(x, Tensor):
            key = id(x._storage._array)
            if key not in memo:
                memo[key] = UntypedStorage(np.array(x._storage._array))
            return Tensor(memo[key], x._shape, x._stride, x._offset, x._dtype)
        if isinstance(x, np.ndarray):
            return np.array(x)
        if isinstance(x, tuple):
            return tuple(cp(v) for v in x)
        if isinstance(x, list):
            return [cp(v) for v in x]
        return x

    return tuple(cp(a) for a in args)


def _arg_table(args: tuple) -> list:
    from .encode import encode_args

    return encode_args(args, with_data=False)[1]


def call_encoded(fn, args: tuple) -> tuple[Any, int]:
    """Call ``fn(*args)`` here and return (decoded result, number of argument storages)."""
    table = _arg_table(args)
    n = len(table)
    try:
        result = fn(*args)
    except Exception as exc:  # noqa: BLE001 - any error is part of the answer
        from .encode import encode_raised

        return decode(encode_raised(exc)), n
    return decode(encode(result, table)), n


def judge_value(q: Question, actual: Any) -> Verdict:
    """Judge a decoded value answer."""
    if not attempted(actual):
        return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, actual))
    if isinstance(actual, Raised):
        return Verdict(q.id, "error", "attempted", f"raised {actual.type}: {actual.message}")
    if q.judge is not None:
        message = q.judge(actual)
        failure = Failure("values", message) if message else None
        expected = None
    else:
        expected = decode(encode(q.reference()))
        actual = as_sequence(actual, expected)
        failure = compare(actual, expected, q.expect, reveal=False)
    if failure is None:
        return Verdict(q.id, "passed", actual=actual, expected=expected)
    m = _safely(which_misconception, q, actual, expected)
    return Verdict(
        q.id, "failed", failure.stage, failure.message, m, expected=expected, actual=actual
    )


def judge_encoded(q: Question, answer: Any, seed: int) -> Verdict:
    """Judge an answer as the kernel sent it (batch grading): sized, decoded and judged under
    one guard (``guarded``), so nothing in it can raise out of the grader or stall it."""

    def step() -> Verdict:
        if isinstance(answer, dict) and answer.get("t") == "tampered":
            what = _clip(answer.get("what", "?"), 200)
            return Verdict(
                q.id,
                "error",
                None,
                f"the notebook modified the grader's harness ({what}): no answer can be trusted",
            )
        check_size(answer)
        if q.kind == "function" and isinstance(answer, dict) and answer.get("t") == "results":
            items = answer.get("items")
            if not isinstance(items, list):
                raise DecodeError("malformed results")
            return judge_function(q, [decode(x) for x in items], seed)
        value = decode(answer)
        return judge_value(q, value) if q.kind == "value" else judge_function(q, value, seed)

    return guarded(q.id, step)


def _not_attempted_message(q: Question, actual: Any) -> str:
    if isinstance(actual, Missing):
        return f"not attempted: `{q.name}` is not defined yet"
    return f"not attempted: `{q.name}` still raises NotImplementedError"


def judge_function(q: Question, results: list, seed: int) -> Verdict:
    """Judge the decoded results of calling the learner's function on ``make_cases(q, seed)``.

    ``results`` is a list aligned with the cases (or a single decoded non-function answer,
    e.g. ``MISSING``). A misconception is named when the answer agrees with its catalogued wrong
    function on every input (else on the first failing input).
    """
    if not isinstance(results, list):
        actual = results
        if not attempted(actual):
            return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, actual))
        if isinstance(actual, Raised):
            return Verdict(q.id, "error", "attempted", f"raised {actual.type}: {actual.message}")
        return Verdict(
            q.id, "failed", "type", f"expected a function `{q.name}`, got {describe(actual)}"
        )
    cases = make_cases(q, seed)
    if len(results) != len(cases):
        return Verdict(q.id, "error", None, "the kernel returned the wrong number of results")
    if all(not attempted(r) for r in results):
        return Verdict(q.id, "not_attempted", "attempted", _not_attempted_message(q, results[0]))
    failures: list[tuple[int, Failure, Any, Any]] = []
    for i, (args, actual) in enumerate(zip(cases, results)):
        expected, n_args = call_encoded(q.reference, copy_args(args))
        failure = compare(actual, expected, q.expect, n_args)
        if failure is not None:
            failures.append((i, failure, expected, actual))
    n_passed = len(cases) - len(failures)
    if not failures:
        return Verdict(q.id, "passed", n_cases=len(cases), n_passed=n_passed)
    i, failure, expected, actual = failures[0]
    m = _safely(_misconception_everywhere, q, cases, results) or _safely(
        which_misconception, q, actual, expected, cases[i]
    )
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
        m,
        case_index=i,
        case_args=cases[i],
        expected=expected,
        actual=actual,
        n_cases=len(cases),
        n_passed=n_passed,
    )


def _misconception_everywhere(q: Question, cases: list, results: list) -> Misconception | None:
    """The first misconception whose wrong function gives the learner's result on every case."""
    for m in q.misconceptions:
        for answer in m.wrong_answers():
            if all(
                _matches(actual, *call_encoded(answer, copy_args(args)), q.expect)
                for args, actual in zip(cases, results)
            ):
                return m
    return None


# ---------------------------------------------------------------------------- rules
def _names_in_code(code, seen: set) -> set[str]:
    """Every global, attribute and method name a code object (and its nested code) uses."""
    if id(code) in seen:
        return set()
    seen.add(id(code))
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_in_code(const, seen)
    return names


def names_used(fn) -> set[str]:
    """The names a learner's function uses, following helper functions it calls (defined in
    the same namespace, or in its closure) so a rule cannot be dodged by a helper; a global
    module counts as its name (``np`` -> ``numpy``), another global callable as its
    ``__name__`` (an alias)."""
    import types

    seen: set = set()
    names: set[str] = set()
    todo = [fn]
    done: set[int] = set()
    while todo:
        f = todo.pop()
        f = getattr(f, "__func__", f)
        code = getattr(f, "__code__", None)
        if code is None or id(f) in done:
            continue
        done.add(id(f))
        found = _names_in_code(code, seen)
        names |= found
        if f is not getattr(fn, "__func__", fn) and isinstance(f.__name__, str):
            names.add(f.__name__)  # a helper or an alias: ri = tensorlab.Tensor.repeat_interleave
        scope = dict(getattr(f, "__globals__", {}) or {})
        for cell in getattr(f, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            if isinstance(value, types.FunctionType):
                todo.append(value)
            elif isinstance(value, types.ModuleType):
                names.update(value.__name__.split("."))
            elif callable(value) and isinstance(getattr(value, "__name__", None), str):
                names.add(value.__name__)
        for name in found:
            value = scope.get(name)
            if isinstance(value, types.FunctionType) and value.__globals__ is f.__globals__:
                todo.append(value)
            elif isinstance(value, types.ModuleType):  # np.repeat goes through numpy
                names.update(value.__name__.split("."))
            elif callable(value) and isinstance(getattr(value, "__name__", None), str):
                names.add(value.__name__)  # ri = tensorlab.Tensor.repeat_interleave
    return names


def _node_names(node) -> tuple[set[str], set[str]]:
    """(every name, attribute, import and string constant ``node`` mentions; its free variable
    names). Free: read and not bound inside ``node`` (parameters, assignments, loop and
    comprehension variables are local), so a helper's local ``x`` is never taken for a global."""
    import ast

    used: set[str] = set()
    loaded: set[str] = set()
    local: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            used.add(sub.id)
            (loaded if isinstance(sub.ctx, ast.Load) else local).add(sub.id)
        elif isinstance(sub, ast.Attribute):
            used.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            used.add(sub.value)  # getattr(x, "repeat_interleave")
        elif isinstance(sub, ast.arg):
            local.add(sub.arg)
        elif isinstance(sub, ast.Call) and _code_magic(sub) is not None:
            for text in _code_magic(sub):  # x = %time f(x)
                used |= names_in_source(text)
        elif (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Name)
            and sub.func.id in ("exec", "eval", "compile")
        ):
            for arg in sub.args[:1]:  # exec("x.repeat_interleave(r)")
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    used |= names_in_source(arg.value)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            if isinstance(sub, ast.ImportFrom) and sub.module:
                used.update(sub.module.split("."))
            for alias in sub.names:
                used.update(alias.name.split("."))
                local.add(alias.asname or alias.name.split(".")[0])
    return used, loaded - local


def transform(source: str) -> str:
    """``source`` as IPython runs it: magics, ``!shell`` lines and ``?help`` turned into Python
    by IPython's own input transformer (unchanged when IPython is not installed)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython comes with ipykernel and nbclient
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:  # noqa: BLE001 - what IPython cannot transform it cannot run either
        return source


def _parse(source: str):
    """The AST of a cell as IPython would run it (``transform``, then parse), or None."""
    import ast

    if not isinstance(source, str):
        return None
    try:
        tree = ast.parse(transform(source))
        return _expand_code_magics(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _code_magic(node) -> list[str] | None:
    """The code strings of a ``%time``/``%%time``-like magic call (transformed), else None."""
    import ast

    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("run_line_magic", "run_cell_magic")
        and isinstance(node.func.value, ast.Call)
        and isinstance(node.func.value.func, ast.Name)
        and node.func.value.func.id == "get_ipython"
    ):
        return None
    args = [_const_str(a) for a in node.args]
    if not args or args[0] not in _CODE_MAGICS or None in args:
        return None
    return [a for a in args[1:] if a]


def _expand_code_magics(tree):
    """Top-level ``%time x = f()`` / ``%%time`` cells replaced by the code they run (so what
    that code binds is seen as the cell's own top-level bindings)."""
    import ast

    body = []
    for stmt in tree.body:
        code = _code_magic(stmt.value) if isinstance(stmt, ast.Expr) else None
        if code is None:
            body.append(stmt)
            continue
        for text in code:
            try:
                body.extend(_expand_code_magics(ast.parse(transform(text))).body)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                body.append(stmt)
    tree.body = body
    return tree


def names_in_source(source: str) -> set[str]:
    """Every name, attribute, imported module and string constant a source mentions."""
    tree = _parse(source)
    return set() if tree is None else _node_names(tree)[0]


def _top_statements(tree) -> list:
    """The statements that run at a cell's top level: its body and, inside it, the bodies of
    ``if``/``try``/``with`` blocks (never a function, a class or a loop)."""
    import ast

    out = []
    todo = list(reversed(tree.body))
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If):
            todo.extend(reversed(node.body + node.orelse))
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            blocks = node.body + [s for h in node.handlers for s in h.body]
            todo.extend(reversed(blocks + node.orelse + node.finalbody))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            todo.extend(reversed(node.body))
    return out


def _top_level(tree) -> dict[str, list]:
    """What each module-level name of a cell is bound by: def, class, assignment or import."""
    import ast

    bound: dict[str, list] = {}
    for node in _top_statements(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.setdefault(node.name, []).append(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name) and node.value is not None:
                        bound.setdefault(sub.id, []).append(node.value)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.setdefault(alias.asname or alias.name.split(".")[0], []).append(node)
    return bound


def _stray_bindings(tree) -> set[str]:
    """Module-level names a cell binds other than by what ``_top_level`` follows: a loop target,
    ``with ... as``, ``except ... as``, ``:=``, ``del``, a ``global`` in a function."""
    import ast

    followed: set[int] = set()
    for node in _top_statements(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                followed.update(id(sub) for sub in ast.walk(t) if isinstance(sub, ast.Name))
    comps = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
    out: set[str] = set()
    stack: list = [(tree, False, frozenset())]
    while stack:
        node, in_scope, declared = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            declared = frozenset(
                n for sub in ast.walk(node) if isinstance(sub, ast.Global) for n in sub.names
            )
            in_scope = True
        local: set[int] = set()
        if isinstance(node, comps):
            for gen in node.generators:
                local.update(id(sub) for sub in ast.walk(gen.target))
        if isinstance(node, ast.NamedExpr) and (not in_scope or node.target.id in declared):
            out.add(node.target.id)
        elif isinstance(node, ast.NamedExpr):
            out.add(node.target.id)  # := in a comprehension binds the enclosing scope
        elif (
            isinstance(node, ast.Name)
            and isinstance(node.ctx, (ast.Store, ast.Del))
            and id(node) not in followed
            and (not in_scope or node.id in declared)
        ):
            out.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name and not in_scope:
            out.add(node.name)
        for child in ast.iter_child_nodes(node):
            if id(child) not in local:
                stack.append((child, in_scope, declared))
    return out


def answer_names(name: str, source: str, context: list[str] | tuple[str, ...] = ()) -> set[str]:
    """The names the learner's ``name`` uses, from source code only (batch grading: the grader
    reads the answer cell it spliced in, it never asks the kernel).

    The definition of ``name`` in the answer cell ``source`` (a ``def``, or an assignment such
    as a lambda), else the whole cell; then, transitively, what each free name it reads is bound
    to at the top level of the notebook's cells (``context``: every cell that ran, in order;
    helpers, aliases such as ``ri = tensorlab.Tensor.repeat_interleave``, imports such as
    ``np`` -> ``numpy``). The batch counterpart of ``names_used`` (which follows the live
    function), so a rule cannot be dodged by a helper or an alias; a test the learner wrote
    in the same cell (``assert interleave(x, 2).equal(x.repeat_interleave(2))``) is not counted.
    """
    return _follow(name, source, context)[0]


def _follow(name: str, source: str, context) -> tuple[set[str], set[str]]:
    """(what ``answer_names`` returns, the global names followed on the way, ``name`` first)."""
    tree = _parse(source)
    bound: dict[str, list] = {}
    for text in (*context, source):
        other = _parse(text)
        if other is not None:
            for key, nodes in _top_level(other).items():
                bound.setdefault(key, []).extend(nodes)
    own = _top_level(tree).get(name) if tree is not None else None
    start = own or ([tree] if tree is not None else [])
    # every other top-level binding of the answer's name in the cells is followed too (a later
    # cell's `interleave = ...` replaces the answer cell's own)
    start = start + [n for n in bound.get(name, ()) if not any(n is m for m in start)]
    used: set[str] = set()
    todo: list[str] = []
    for node in start:
        u, free = _node_names(node)
        used |= u
        todo.extend(free)
    seen = {name}
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for node in bound.get(n, ()):
            u, free = _node_names(node)
            used |= u
            todo.extend(free)
    return used, seen


# Modules a learner's cell may import when a question has rules: anything else (importlib,
# operator.methodcaller, ctypes, a module the notebook wrote itself...) can run code the
# grader cannot read, so the rules cannot be verified.
RULE_IMPORTS = frozenset(
    "numpy tensorlab math cmath random itertools functools collections typing dataclasses "
    "fractions decimal statistics time timeit matplotlib scipy torch IPython ipywidgets "
    "warnings copy pprint textwrap string re json enum abc contextlib __future__ os sys pathlib "
    "glob csv operator heapq bisect array".split()
)
# Calls and attributes through which a name is looked up or bound at run time.
_DYNAMIC_CALLS = frozenset(
    "globals vars locals exec eval compile __import__ setattr delattr getattr "
    "methodcaller attrgetter".split()
)
_DYNAMIC_ATTRS = frozenset(
    "__dict__ __globals__ __code__ __closure__ __builtins__ __getattribute__ __setattr__ "
    "__getattr__ __defaults__ __kwdefaults__ modules user_ns user_global_ns run_cell "
    "run_code push ex ev f_globals f_locals f_back".split()
)
# IPython magics (after IPython's transformation: get_ipython().run_line_magic(...)): those
# whose argument is code are read as code, harmless ones are allowed, any other is not.
_CODE_MAGICS = frozenset({"time", "timeit", "prun", "capture"})
_SAFE_MAGICS = frozenset(
    "matplotlib pinfo pinfo2 psearch pdoc pdef psource who whos who_ls pwd precision "
    "config autosave pprint reset reset_selective xdel history hist lsmagic magic page pdb "
    "debug tb xmode env cd ls pip conda".split()
)
_SAFE_IPYTHON_CALLS = frozenset({"system", "getoutput"})


def _const_str(node) -> str | None:
    import ast

    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _magic_code(call) -> tuple[list[str], str | None]:
    """(code strings run by an IPython magic call, why it cannot be verified) for a
    ``get_ipython().run_line_magic/run_cell_magic/system/getoutput(...)`` call node."""
    method = call.func.attr
    if method in _SAFE_IPYTHON_CALLS:
        return [], None
    args = [_const_str(a) for a in call.args]
    if method not in ("run_line_magic", "run_cell_magic") or not args or None in args:
        return [], f"`get_ipython().{method}` is used"
    magic = args[0]
    if magic in _SAFE_MAGICS:
        return [], None
    if magic in _CODE_MAGICS:
        return [a for a in args[1:] if a], None
    return [], f"the magic `%{magic}` is used"


def _module_names(trees: list) -> set[str]:
    """Names bound to imported modules at the top level of the cells."""
    import ast

    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def _unverifiable(name: str, sources: list[str]) -> str | None:
    """Why the grader cannot follow what the cells bind at run time (None when it can): a name
    bound or looked up at run time (``globals()``, ``exec`` of a built string, a string-built
    ``getattr``, ``sys.modules``), a library attribute reassigned (``tensorlab.Tensor.view =
    ...``), an import of a module that is not a known library, an IPython magic that runs code
    the grader cannot read, a cell mentioning ``name`` that does not parse; the names
    ``rule_check`` follows must also not be bound by a loop, ``with``, ``:=``, ``global``...
    (``_stray_bindings``). Exec'd constant strings and ``%time`` code are read as cells."""
    import ast

    todo = list(sources)
    trees = []
    while todo:
        text = todo.pop(0)
        tree = _parse(text)
        if tree is None:  # a cell IPython cannot parse never runs: it binds nothing
            continue
        trees.append(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if (
                isinstance(f, ast.Attribute)
                and isinstance(f.value, ast.Call)
                and isinstance(f.value.func, ast.Name)
                and f.value.func.id == "get_ipython"
            ):
                code, why = _magic_code(node)
                if why:
                    return why
                todo.extend(code)
            elif isinstance(f, ast.Name) and f.id in ("exec", "eval", "compile"):
                text = _const_str(node.args[0]) if node.args else None
                if text is None:
                    return f"`{f.id}` runs code built at run time"
                todo.append(text)
    modules = _module_names(trees)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Name) and f.id in ("exec", "eval", "compile"):
                    continue
                fname = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                if fname == "getattr" and len(node.args) >= 2 and _const_str(node.args[1]):
                    continue
                if fname in _DYNAMIC_CALLS:
                    return f"`{fname}` looks a name up at run time"
            elif isinstance(node, ast.Name) and node.id in _DYNAMIC_CALLS | {"__builtins__"}:
                if isinstance(node.ctx, ast.Load) and node.id not in ("exec", "eval", "compile"):
                    if not _called_directly(node, tree):
                        return f"`{node.id}` is passed around"
            elif isinstance(node, ast.Attribute):
                if node.attr in _DYNAMIC_ATTRS:
                    return f"`{node.attr}` is used"
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    root = node.value
                    while isinstance(root, ast.Attribute):
                        root = root.value
                    if isinstance(root, ast.Name) and root.id in modules:
                        return f"an attribute of the module `{root.id}` is reassigned"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                )
                for m in mods:
                    if isinstance(node, ast.ImportFrom) and node.level:
                        return "a relative import is used"
                    if m.split(".")[0] not in RULE_IMPORTS:
                        return f"the module `{m}` is imported"
    return None


def _called_directly(name_node, tree) -> bool:
    """Whether this Name node is the function of a call (``getattr(x, 'a')`` is read apart)."""
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.func is name_node:
            return True
    return False


def latest_cells(history: list[str]) -> list[str]:
    """An input history (IPython's ``In``) reduced to what still counts, in order: a cell is
    dropped when every name it binds at the top level is bound again by a later cell (an answer
    cell edited and run again replaces its earlier runs). For a notebook run once from top to
    bottom, the cells themselves: the inline check then reads what batch grading reads."""
    kept: list[str] = []
    later: set[str] = set()
    for text in reversed(history):
        tree = _parse(text)
        if tree is None:
            continue
        names = set(_top_level(tree))
        if names and names <= later:
            continue
        later |= names
        kept.append(text)
    return kept[::-1]


def rule_check(
    q: Question, source: str, context: list[str] | tuple[str, ...] = (), name: str | None = None
) -> str | None:
    """The message for an answer that breaks ``q``'s rules, else None: THE rule check, used by
    both batch grading and the inline ``check`` (same source, same verdict).

    ``source``: the cell that defines the answer; ``context``: every cell that ran, in order
    (it may include ``source``); ``name``: the answer's name (``q.name``). Cells are read as
    IPython runs them (``transform``). An answer whose binding the grader cannot follow
    (``_unverifiable``) breaks the rules too: they cannot be checked."""
    if not q.forbidden:
        return None
    name = name or q.name
    cells = [*context, source] if source not in context else list(context)
    why = _unverifiable(name, cells)
    if why is None:
        _, followed = _follow(name, source, context)
        stray: set[str] = set()
        for text in cells:
            tree = _parse(text)
            if tree is not None:
                stray |= _stray_bindings(tree)
        bad = sorted(followed & stray, key=lambda n: (n != name, n))
        if bad:
            why = f"`{bad[0]}` is bound by a loop, `with`, `:=`, `del` or a `global` statement"
    if why is not None:
        return (
            f"the grader cannot check this exercise's rules on your code: {why}. Define "
            f"`{name}` with a plain `def` and call only what the exercise allows: {q.todo}"
        )
    return rule_violation(q, answer_names(name, source, context))


def rule_violation(q: Question, used: set[str]) -> str | None:
    """The message for an answer that uses a name the question forbids (None when it keeps the
    rules). ``used``: ``names_used(fn)`` inline, ``answer_names(...)`` in batch grading."""
    bad = sorted(n for n in q.forbidden if n in used)
    if not bad:
        return None
    listed = ", ".join(f"`{n}`" for n in bad)
    return f"your function uses {listed}, which this exercise rules out: {q.todo}"


def with_rules(q: Question, verdict: Verdict, broken: str | None) -> Verdict:
    """``verdict``, or the rules' failed verdict when the answer breaks ``q``'s rules
    (``broken``: ``rule_check``'s message) and was judged at all (batch and inline alike)."""
    if broken and verdict.status in ("passed", "failed"):
        return rule_verdict(q, broken)
    return verdict


def rule_verdict(q: Question, message: str) -> Verdict:
    """A failed verdict for a broken rule, attributed to the ``forbidden`` misconception."""
    m = next((m for m in q.misconceptions if m.key == "forbidden"), None)
    return Verdict(q.id, "failed", "rules", message, m)


def collect_function_results(fn, q: Question, seed: int) -> list:
    """Call ``fn`` here on the question's cases and decode each result (the inline path)."""
    return [call_encoded(fn, args)[0] for args in make_cases(q, seed)]


__all__ = [
    "MISSING",
    "STAGES",
    "Failure",
    "Verdict",
    "answer_names",
    "attempted",
    "collect_function_results",
    "compare",
    "copy_args",
    "guarded",
    "judge_encoded",
    "judge_function",
    "judge_value",
    "latest_cells",
    "names_in_source",
    "names_used",
    "rule_check",
    "with_rules",
    "rule_verdict",
    "rule_violation",
    "transform",
    "which_misconception",
]
