"""Judging an answer: a staged comparison that stops at the first failing stage.

Stages, in order: attempted -> type -> dtype -> shape (exact, never broadcast) -> values
(max error, first bad index) -> layout (strides, storage offset, storage sharing; only for
questions about views). Every function here is pure and works on *decoded* values
(see ``encode.decode``), so the same code judges an inline check and a batch submission.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
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
from .rules import (
    RULE_IMPORTS,
    answer_names,
    latest_cells,
    names_in_source,
    names_used,
    rule_check,
    rule_verdict,
    rule_violation,
    transform,
    with_rules,
)
from .verdict import STAGES, Failure, Verdict

JUDGE_SECONDS = 10.0  # every judge step of one question (decode, references, comparisons)


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


MEMORY_BYTES = 2 * 2**30  # what one call of an answer may allocate (address space) when judged


@contextlib.contextmanager
def memory_budget(extra: int = MEMORY_BYTES):
    """Let this process grow by at most ``extra`` bytes of address space (``RLIMIT_AS``) while
    the block runs, so an answer that builds a huge list or tensor gets a ``MemoryError`` at
    once instead of swapping the machine (a derive question's hidden sizes). A limit already
    tighter (a sandboxed kernel's) is kept; nothing happens where the limit cannot be read."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError, AttributeError):
        yield
        return
    infinity = resource.RLIM_INFINITY
    limit = vm + extra
    if hard != infinity:
        limit = min(limit, hard)
    if soft != infinity and soft <= limit:
        yield
        return
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


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
    if isinstance(e, int) and not expect.numeric:
        return "an int"
    if isinstance(e, (int, float)):
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
    elif isinstance(e, (int, float)) and expect.numeric:
        ok = isinstance(a, (int, float)) and not isinstance(a, bool)
        if not ok:
            return f"expected a number{_at(path)}, got {describe(a)}"
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


def _tolerance(e, expect: Expect) -> str:
    return f"{expect.atol + expect.rtol * abs(e):.3g}"


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
    if isinstance(e, (int, float)) and not isinstance(e, bool) and expect.numeric:
        if math.isclose(a, e, rel_tol=expect.rtol, abs_tol=expect.atol):
            return None
        if not reveal:
            return f"{_fmt_number(a)}{_at(path)} is not close enough to the expected number"
        return (
            f"value{_at(path)} is {_fmt_number(a)}, expected a number close to "
            f"{_fmt_number(e)} (within {_tolerance(e, expect)})"
        )
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
        with memory_budget():
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
        if isinstance(answer, dict) and answer.get("t") == "cannot_follow":
            what = _clip(answer.get("what", "?"), 300)
            return Verdict(
                q.id,
                "failed",
                None,
                f"your code uses {what}, which the grader cannot follow (code that observes or "
                "rewrites other code); remove it to be graded",
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
    huge = largest_size(cases[i])
    if huge >= HUGE and (isinstance(actual, Raised) or not attempted(actual)):
        stage, message = "values", huge_message(huge, actual)
    elif stage == "attempted":
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
        details={"failed_cases": [f[0] for f in failures]},  # per-case weights (records)
    )


HUGE = 10**4  # an input size no tensor of the grading kernel can have (derive questions)
_MEMORY = ("MemoryError", "TimeoutError", "OverflowError")


def largest_size(args) -> int:
    """The largest int among the (nested) arguments of a case (0 when there is none)."""
    if isinstance(args, bool):
        return 0
    if isinstance(args, int):
        return args
    if isinstance(args, (tuple, list)):
        return max((largest_size(a) for a in args), default=0)
    return 0


def huge_message(size: int, actual) -> str:
    """The message for a function that fails on an input no tensor can have (a derive
    question's hidden size): it ran the operation instead of writing the rule."""
    what = f"raised {actual.type}" if isinstance(actual, Raised) else "did not return"
    memory = isinstance(actual, Raised) and (
        actual.type in _MEMORY or "too big" in actual.message or "allocate" in actual.message
    )
    built = (
        "your function built a tensor of this size"
        if memory
        else "a tensor of this size cannot exist, so running the operation cannot answer"
    )
    return (
        f"on an input with a size of {size:,} (no tensor this large fits in memory) your "
        f"function {what}: {built}. Write the formula: compute the answer from the sizes with "
        "arithmetic, without building a tensor."
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


CALL_SECONDS = 10.0  # one call of a learner's function in the inline check


def collect_function_results(fn, q: Question, seed: int) -> list:
    """Call ``fn`` here on the question's cases and decode each result (the inline path). A
    call that outlives ``CALL_SECONDS`` is stopped (a ``TimeoutError`` result), so a function
    that loops over a hidden size of 10**15 cannot hang the learner's kernel."""
    out = []
    for args in make_cases(q, seed):
        try:
            with time_budget(CALL_SECONDS):
                out.append(call_encoded(fn, args)[0])
        except JudgeTimeout:
            out.append(Raised("TimeoutError", f"did not finish within {CALL_SECONDS:g} s"))
    return out


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
    "RULE_IMPORTS",
    "names_in_source",
    "names_used",
    "rule_check",
    "with_rules",
    "rule_verdict",
    "rule_violation",
    "transform",
    "which_misconception",
]
