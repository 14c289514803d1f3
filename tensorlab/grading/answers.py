"""Running a submission and asking for its answers (grader side of ``_answers``), and what in
a submission the grader cannot follow.

One answer process (``_answers``) per submission runs the rebuilt cells (only the instructor's
template cells and the learner's answer cells; no IPython, the audit hook in place before any
of them), reporting how each cell ran (``run``: per-cell time limits, errors with the learner's
line, a fresh process around a cell that hangs, crashes or runs out of memory), then calls each
answer on the grader's inputs. Each line it writes is signed with a key it read before any
learner code ran and that no learner code can reach (see ``_answers``); an unsigned line is a
forgery.

``scan`` reads an answer cell's source for the same constructs the audit hook refuses at run
time, plus those it cannot see (a function's ``__closure__`` or ``__globals__``, IPython's own
machinery, threads, signal handlers): a question whose answer cell uses one, or whose code
triggered a refused event, fails with "your code uses X, which the grader cannot follow".
"""

from __future__ import annotations

import ast
import hmac
import json
import os
import re
import secrets
import selectors
import time
from dataclasses import dataclass, field

MAX_LINE_BYTES = 600 * 2**20
MAX_RESTARTS = 3
STARTUP_SECONDS = 60  # an answer process's start (interpreter, numpy, tensorlab) on a busy machine

# modules whose import the grader cannot follow (they observe or rewrite other code)
# (threads, signal handlers, builtins and module attributes are checked at run time instead)
FORBIDDEN_MODULES = frozenset(
    ["gc", "inspect", "ctypes", "_ctypes", "importlib", "tracemalloc", "pdb", "bdb", "trace"]
    + ["ipykernel", "sys.monitoring"]
)
# (code built at run time, eval/exec, runs under the same audit hook: it is followed)
FORBIDDEN_NAMES = frozenset(["__import__", "breakpoint"])
_GET_IPYTHON = re.compile(r"\bget_ipython\b")
FORBIDDEN_ATTRS = frozenset(
    ["__code__", "__closure__", "__globals__", "__defaults__", "__kwdefaults__", "__builtins__"]
    + ["__subclasses__", "__traceback__", "tb_frame", "tb_next", "f_back", "f_locals"]
    + ["f_globals", "f_code", "gi_frame", "gi_code", "cr_frame", "ag_frame", "cell_contents"]
    + ["settrace", "setprofile", "_getframe", "_current_frames", "addaudithook"]
    + ["__setattr__", "__getattribute__", "__delattr__", "__class__", "__dict__", "__mro__"]
    + ["__bases__", "__self__", "__func__", "__wrapped__", "__reduce__", "__reduce_ex__"]
)


_TRANSFORMER: list = []


def _ipython_free(source: str) -> str:
    """``source`` with IPython syntax (magics, ``!cmd``) turned into plain Python calls."""
    if "%" not in source and "!" not in source and "?" not in source:
        return source  # nothing IPython would rewrite
    if not _TRANSFORMER:
        try:
            from IPython.core.inputtransformer2 import TransformerManager
        except ImportError:  # pragma: no cover - IPython comes with the grading extras
            return source
        _TRANSFORMER.append(TransformerManager())
    try:
        return _TRANSFORMER[0].transform_cell(source)
    except Exception:  # noqa: BLE001 - left as is: the cell then fails as it would
        return source


def scan(source: str) -> list[str]:
    """What in ``source`` (one answer cell) the grader cannot follow, in order, each once."""
    try:
        tree = ast.parse(_ipython_free(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: list[str] = []

    def add(what: str) -> None:
        if what not in found:
            found.append(what)

    # IPython's own machinery (events, AST and input transformers, the kernel): named in the
    # learner's own lines, not in the calls IPython makes of %magic and !command lines
    own = "\n".join(
        line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))
    )
    if _GET_IPYTHON.search(own):
        add("`get_ipython`")

    todo = [tree]
    while todo:
        node = todo.pop()
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in FORBIDDEN_MODULES or a.name.split(".")[0] in FORBIDDEN_MODULES:
                    add(f"the module `{a.name}`")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if mod in FORBIDDEN_MODULES or mod.split(".")[0] in FORBIDDEN_MODULES:
                add(f"the module `{mod}`")
            for a in node.names:
                if a.name in FORBIDDEN_NAMES | FORBIDDEN_ATTRS:
                    add(f"`{a.name}`")
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            add(f"`{node.id}`")
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRS:
            if node.attr == "__class__" or node.attr == "__dict__":
                # ``self.__class__.__name__`` style reads are common and harmless; assignments
                # (rewriting an object's class or namespace) are not
                if not isinstance(node.ctx, (ast.Store, ast.Del)):
                    continue
            add(f"`{node.attr}`")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "modules"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
        ):
            add("`sys.modules`")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in FORBIDDEN_ATTRS - {"__class__", "__dict__"}:
                add(f"`{node.value}`")
    return found


def sign(key: bytes, body: str) -> str:
    return hmac.new(key, body.encode("utf-8"), "sha256").hexdigest()


@dataclass
class Asked:
    """What the answer process said about one submission: how each cell ran, and the answers."""

    answers: dict = field(default_factory=dict)  # qid -> encoded answer
    failed: dict = field(default_factory=dict)  # qid -> (status, reason): timeout, lost
    events: dict = field(default_factory=dict)  # qid -> [what, ...] the grader cannot follow
    everywhere: list = field(default_factory=list)  # events of template cells: every question
    restarts: int = 0  # answer processes started again after one died or hung
    poisoned: dict = field(default_factory=dict)  # cell index -> timeout | kernel_died | memory
    errors: dict = field(default_factory=dict)  # cell index -> (ename, evalue)
    lines: dict = field(default_factory=dict)  # cell index -> the line it raised at (or None)

    def note(self, qid, what: str) -> None:
        target = self.everywhere if qid is None else self.events.setdefault(qid, [])
        if what not in target:
            target.append(what)

    def cannot_follow(self, qid: str) -> list[str]:
        out = list(self.everywhere)
        out += [w for w in self.events.get(qid, []) if w not in out]
        return out


class GiveUp(Exception):
    """The notebook's cells kept killing or hanging the answer process: grading stops."""


class _Reader:
    """Signed lines from the answer process, each within a deadline."""

    def __init__(self, proc, key: bytes, nonce: str):
        self.proc, self.key, self.nonce = proc, key, nonce
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(proc.stdout, selectors.EVENT_READ)
        self.forged = 0
        self.eof = False  # the process closed its output: it died (its exit may not be reaped yet)

    def died(self) -> bool:
        """Did the process die (rather than hang)? Its output's end says so before ``poll()``
        can: bwrap and the kernel may not have reaped it yet."""
        return self.eof or self.proc.poll() is not None

    def next(self, timeout: float) -> dict | None:
        """The next signed message; None at a timeout or when the process is gone."""
        deadline = time.monotonic() + timeout
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line, self.buf = self.buf[:nl], self.buf[nl + 1 :]
                msg = self._verify(line)
                if msg is None:
                    self.forged += 1
                    continue
                return msg
            if len(self.buf) > MAX_LINE_BYTES:
                return None
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                self.eof = True
                return None
            self.buf += chunk

    def _verify(self, line: bytes) -> dict | None:
        try:
            outer = json.loads(line)
            body, sig = outer["b"], outer["s"]
            if not (isinstance(body, str) and isinstance(sig, str)):
                return None
            if not hmac.compare_digest(sign(self.key, body), sig):
                return None
            msg = json.loads(body)
        except (ValueError, KeyError, TypeError, RecursionError):
            return None
        if not isinstance(msg, dict) or msg.get("nonce") != self.nonce:
            return None
        return msg

    def close(self) -> None:
        self.sel.close()


def _stop(proc) -> None:
    try:
        proc.kill()
    except OSError:
        pass
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        pass
    try:
        proc.wait(timeout=10)
    except Exception:  # noqa: BLE001
        pass
    for f in (proc.stdin, proc.stdout):
        try:
            if f is not None:
                f.close()
        except OSError:
            pass


def _cell_qid(cells: list, i) -> str | None:
    return cells[i].qid if isinstance(i, int) and 0 <= i < len(cells) else None


def _clip(text, n: int) -> str:
    text = text if isinstance(text, str) else ""
    return text if len(text) <= n else text[: n - 1] + "…"


def run(spawn, cells: list, questions: list, budget, cell_timeout: float, early=None) -> Asked:
    """Run the rebuilt notebook ``cells`` (``ExecCell``) in answer processes from ``spawn()``
    (each sandboxed) and ask each of ``questions`` (``(qid, name, kind, payload)``) for its
    answer: the one interpreter a submission costs.

    Each cell has ``cell_timeout`` seconds; ``budget()`` is the notebook's time left (it raises
    when there is none). A cell that hangs, kills the process or runs out of memory is recorded
    (``poisoned``) and left out of a fresh process that runs the others again, as a kernel is
    restarted around a fatal cell; an error is recorded with the line of the cell it came from.
    More than ``MAX_RESTARTS`` such restarts raise ``GiveUp``. A question whose call hangs or
    kills the process fails alone; the others are asked in a fresh process. ``early``: a process
    started in advance (its imports done), used first if it is still waiting."""
    out = Asked()
    for cell in cells:
        if cell.qid is not None:
            for what in scan(cell.source):
                out.note(cell.qid, f"{what}")
    todo = list(questions)
    sources = [_ipython_free(c.source) for c in cells]
    cell_restarts = question_restarts = started = 0
    while True:
        runs = [(i, sources[i], c.qid) for i, c in enumerate(cells) if i not in out.poisoned]
        started += 1
        out.restarts = started - 1
        key, nonce = secrets.token_hex(32).encode("ascii"), secrets.token_hex(16)
        request = {
            "nonce": nonce,
            "cells": runs,
            "questions": [{"qid": q, "name": n, "kind": k, "payload": p} for q, n, k, p in todo],
        }
        if early is not None and early.poll() is None:
            proc, early = early, None
        else:
            proc = spawn()
        reader = _Reader(proc, key, nonce)
        current = None
        try:
            try:
                proc.stdin.write(key + json.dumps(request).encode("utf-8"))
                proc.stdin.close()
            except OSError:
                pass
            # the process's start (interpreter and imports, under load) is not a cell's time
            msg = reader.next(min(STARTUP_SECONDS, budget()))
            again = msg is None or msg.get("ev") != "ready"  # it did not start: once more
            for i, _, _ in runs if not again else ():
                msg = reader.next(min(cell_timeout, budget()))
                if msg is None or msg.get("ev") != "cell" or msg.get("i") != i:
                    out.poisoned[i] = "kernel_died" if reader.died() else "timeout"
                    again = True
                    break
                for where, what in msg.get("events") or []:
                    out.note(where[2] if isinstance(where, list) else None, what)
                if reader.forged:  # written while this cell ran
                    out.note(cells[i].qid, "writing its own messages to the grader")
                    reader.forged = 0
                out.errors.pop(i, None)
                out.lines.pop(i, None)
                if msg.get("status") != "error":
                    continue
                ename = _clip(msg.get("ename"), 100)
                lineno = msg.get("lineno")
                out.errors[i] = (ename, _clip(msg.get("evalue"), 500))
                out.lines[i] = lineno if type(lineno) is int else None
                if ename == "MemoryError":
                    # whatever the cell allocated may still be held: go on in a fresh process
                    out.errors[i] = ("MemoryError", "the cell ran out of memory")
                    out.poisoned[i] = "memory"
                    again = True
                    break
            if again:
                cell_restarts += 1
                if cell_restarts > MAX_RESTARTS:
                    raise GiveUp(started)
                continue
            while todo:
                q = todo[0]
                current = q[0]
                start = reader.next(min(cell_timeout, budget()))
                msg = reader.next(min(cell_timeout, budget())) if start is not None else None
                if msg is None or msg.get("ev") != "answer" or msg.get("qid") != current:
                    if not reader.died():
                        out.failed[current] = (
                            "timeout",
                            "calling your answer did not finish within the time limit",
                        )
                    else:
                        out.failed[current] = ("kernel_died", "calling your answer killed it")
                    todo.pop(0)
                    break
                for _where, what in msg.get("events") or []:
                    out.note(current, what)
                if reader.forged:
                    out.note(current, "writing its own messages to the grader")
                    reader.forged = 0
                out.answers[current] = msg.get("answer")
                todo.pop(0)
        finally:
            if reader.forged and current is not None:
                out.note(current, "writing its own messages to the grader")
            reader.close()
            _stop(proc)
        if not todo:
            break
        question_restarts += 1
        if question_restarts > MAX_RESTARTS:
            break
    if early is not None:
        _stop(early)
    for q in todo:
        out.failed.setdefault(q[0], ("kernel_died", "the answer process kept dying"))
    return out
