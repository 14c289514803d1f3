"""The answer process: where the grader's answers come from (never the notebook's kernel).

``python -m tensorlab.grading._launch MEMORY --answers`` (in the same sandbox as the kernel) runs
``main``: a bare Python process, no IPython, no event loop, no comms. Before any learner code
runs it reads its whole request from stdin (a fresh HMAC key, then the cells to run and the
questions to ask; stdin is then closed), installs an audit hook (``sys.addaudithook``: it can
never be removed) and takes its references (``_Pristine``), and says it is ready. Then it runs
the rebuilt notebook's cells (the instructor's template cells and the learner's answer cells,
nothing else) in a fresh namespace, reporting each (ok, or the error's type, message and the
line of the cell it came from: the grader times each cell and records what it says, as a
kernel's outputs were read before), calls each answer on the grader's inputs and encodes what
it returned, and writes one signed line per step on a private copy of stdout. It is the only
interpreter a submission runs in.

Trust does not rest on a secret the learner's code can reach: the key lives only in ``main``'s
frame, and every way to a frame, to the garbage collector, to raw memory or to another
function's code passes through an audited event (``sys._getframe``, ``tb_frame``/``gi_frame``,
``gc.get_objects``, ``ctypes``, ``sys.settrace``, ``open('/proc/self/mem')``, ``__code__`` ...).
The hook refuses every such event coming from learner code (a frame whose file is not part of
the Python installation or tensorlab, or a frame-handing library such as ``inspect`` or
``traceback`` called from it) and records it: the grader then fails the question with "your
code uses X, which the grader cannot follow". What the audit hook cannot see (rebinding a
module's functions, threads, signal handlers, class attributes) is checked by ``_Pristine``
before every answer is encoded, and flagged the same way. Tensors are read only when their type
is exactly ``Tensor`` (or ``nn.Parameter``), through their instance fields.
"""

from __future__ import annotations

import _thread
import builtins as _builtins
import gc as _gc
import hmac as _hmac
import io as _io
import json as _json
import json.decoder as _json_decoder
import json.encoder as _json_encoder
import math as _math
import os as _os
import signal as _signal
import sys as _sys

import numpy as _np

from . import encode as _encode_module
from .encode import decode_args as _decode_args
from .encode import encode as _encode
from .encode import encode_raised as _encode_raised

KEY_BYTES = 64  # hex characters of the key, the first line of the request
MAX_PRINT_CHARS = 200_000

# events refused when learner code is anywhere on the stack
STRICT_EVENTS = frozenset(
    [
        "sys.settrace",
        "sys.setprofile",
        "sys._current_frames",
        "sys._current_exceptions",
        "sys.addaudithook",
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "code.__new__",
        "function.__new__",
        "cpython.PyInterpreterState_Clear",
        "cpython._PySys_ClearAuditHooks",
    ]
)
# events refused when learner code (or a frame-handing library it called) raised them
CALLER_EVENTS = frozenset(
    [
        "sys._getframe",
        "object.__getattr__",
        "object.__setattr__",
        "object.__delattr__",
        "marshal.loads",
        "marshal.load",
        "open",
    ]
)
# libraries that hand frames (or tracing) to whoever calls them
FRAME_LIBS = frozenset(
    ["inspect.py", "traceback.py", "pdb.py", "bdb.py", "trace.py", "profile.py", "cProfile.py"]
    + ["threading.py", "code.py", "doctest.py", "faulthandler.py", "tracemalloc.py"]
)
FRAME_ATTRS = frozenset(["tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back", "gi_code"])
CELL = "<cell "


def _trusted_roots() -> tuple[str, ...]:
    roots = {_sys.prefix, _sys.base_prefix, _sys.exec_prefix, _sys.base_exec_prefix}
    for entry in _sys.path:
        if entry.endswith(("site-packages", "dist-packages")):
            roots.add(entry)
    pkg = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    roots.add(pkg)
    return tuple(sorted(r.rstrip("/") + "/" for r in roots if r and r != "/"))


def _make_hook(state: dict, roots: tuple[str, ...]):
    """The audit hook: refuses and records the events of learner code that observe or rewrite
    other code. ``state`` (``phase``, ``events``) is shared with ``main`` only."""
    getframe = _sys._getframe
    basename = _os.path.basename
    busy = [False]
    strict, caller_events, frame_libs = STRICT_EVENTS, CALLER_EVENTS, FRAME_LIBS
    frame_attrs = FRAME_ATTRS
    runtime_error, str_ = RuntimeError, str
    is_instance, len_ = isinstance, len

    def trusted(filename: str) -> bool:
        return filename.startswith(roots) or filename.startswith("<frozen ")

    def describe(event: str, args: tuple) -> str | None:
        """What the event does when learner code caused it, else None."""
        frame = getframe(2)  # 0 describe, 1 hook, 2 the Python caller of the audited call
        caller = frame
        learner = False
        while frame is not None:
            if not trusted(frame.f_code.co_filename):
                learner = True
                break
            frame = frame.f_back
        if not learner:
            return None
        if event.startswith("ctypes."):
            return "ctypes"
        if event in strict:
            return {
                "gc.get_objects": "gc",
                "gc.get_referrers": "gc",
                "gc.get_referents": "gc",
            }.get(event, event)
        name = caller.f_code.co_filename if caller is not None else ""
        direct = not trusted(name)
        via_lib = basename(name) in frame_libs
        if event == "open":
            path = args[0] if args else None
            if is_instance(path, bytes):
                path = path.decode("utf-8", "replace")
            if is_instance(path, str_) and path.startswith("/proc/") and (direct or via_lib):
                return "reading the process's memory through /proc"
            return None
        if not (direct or via_lib):
            return None
        if event == "object.__getattr__":
            attr = args[1] if len_(args) > 1 else "?"
            if attr in frame_attrs or direct:
                return f"`{attr}`" if attr != "__code__" else "a function's `__code__`"
            return None
        if event in ("object.__setattr__", "object.__delattr__"):
            attr = args[1] if len_(args) > 1 else "?"
            return f"rewriting `{attr}` of a function or type"
        if event == "sys._getframe":
            return "sys._getframe (frames)"
        return event

    def hook(event: str, args: tuple) -> None:
        if not (event in strict or event in caller_events or event.startswith("ctypes.")):
            return
        if busy[0]:
            return
        busy[0] = True
        try:
            what = describe(event, args)
        finally:
            busy[0] = False
        if what is not None:
            state["events"].append([state["phase"], what])
            raise runtime_error(
                f"{what} is not allowed in graded code: the grader cannot follow code that "
                "observes or rewrites other code"
            )

    return hook


class _Pristine:
    """What learner code could change without an audit event, as it was before any ran: the
    globals of the modules the encoder uses (and their dicts, lists and sets), the classes of
    tensors and storages, the dtype table, signal handlers; ``problem()`` says what changed."""

    def __init__(self):
        from .. import _dtype, _storage, _tensor
        from ..nn import parameter as _parameter

        modules = [_encode_module, _json, _json_encoder, _json_decoder, _hmac, _builtins, _math]
        modules += [_np, _np.lib.stride_tricks, _tensor, _storage, _dtype, _parameter]
        modules += [_sys.modules[__name__]]
        import base64

        modules.append(base64)
        self.spaces = []
        for m in modules:
            space = vars(m)
            copies = [
                (k, type(v), tuple(v.items()) if type(v) is dict else tuple(v))
                for k, v in space.items()
                if type(v) in (dict, list, set) and len(v) < 10_000 and k != "__builtins__"
            ]
            self.spaces.append((m.__name__, space, tuple(space.items()), copies))
        self.classes = [
            (c.__name__, c, tuple(vars(c).items()))
            for c in (_tensor.Tensor, _storage.UntypedStorage, _parameter.Parameter)
        ]
        self.dtypes = tuple((d, d.name, d.np) for d in _encode_module._ALL_DTYPES)
        self.signals = {}
        for s in _signal.valid_signals():
            try:
                self.signals[s] = _signal.getsignal(s)
            except (ValueError, OSError):
                pass
        self.threads = _thread._count()

    def problem(self) -> str | None:
        # identity first (no builtin is called before the builtins themselves are checked)
        for name, space, items, _ in self.spaces:
            for k, v in items:
                if space.get(k, space) is not v:
                    return f"replacing `{name}.{k}`"
        for name, space, _, copies in self.spaces:
            for k, tp, copy in copies:
                v = space.get(k)
                if type(v) is not tp or len(v) != len(copy):
                    return f"modifying `{name}.{k}`"
                if tp is dict:
                    same = all(v.get(a, v) is b for a, b in copy)
                elif tp is set:
                    same = all(a in v for a in copy)
                else:
                    same = all(a is b for a, b in zip(v, copy))
                if not same:
                    return f"modifying `{name}.{k}`"
        for name, cls, items in self.classes:
            now = vars(cls)
            if len(now) != len(items) or any(now.get(k, now) is not v for k, v in items):
                return f"modifying the class `{name}`"
        for d, name, np_dtype in self.dtypes:
            if d.name is not name or d.np is not np_dtype:
                return "modifying a tensorlab dtype"
        if _thread._count() > self.threads:
            return "threads"
        for s, handler in self.signals.items():
            try:
                if _signal.getsignal(s) is not handler:
                    return "signal handlers"
            except (ValueError, OSError):
                pass
        if _signal.getitimer(_signal.ITIMER_REAL)[0] or _signal.alarm(0):
            return "signal timers"
        return None

    def restore(self) -> None:
        """Put back everything ``problem`` checks (after it found a change)."""
        for _, space, items, copies in self.spaces:
            space.update(items)
            for k, tp, copy in copies:
                v = space[k]
                v.clear()
                if tp is dict:
                    v.update(dict(copy))
                elif tp is list:
                    v.extend(copy)
                else:
                    v.update(copy)
        for _, cls, items in self.classes:
            for k in [k for k in vars(cls) if k not in dict(items)]:
                type.__delattr__(cls, k)
            for k, v in items:
                if k not in ("__dict__", "__weakref__", "__doc__") or vars(cls).get(k) is not v:
                    try:
                        type.__setattr__(cls, k, v)
                    except (AttributeError, TypeError):
                        pass
        for d, name, np_dtype in self.dtypes:
            object.__setattr__(d, "name", name)
            object.__setattr__(d, "np", np_dtype)
        self.restore_signals()

    def restore_signals(self) -> None:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        for s, handler in self.signals.items():
            try:
                _signal.signal(s, handler if handler is not None else _signal.SIG_DFL)
            except (ValueError, OSError, TypeError):
                pass


class _Sink(_io.TextIOBase):
    """Where the learner's prints go in this process: counted, never stored."""

    def write(self, s) -> int:
        return len(s) if type(s) is str else 0


class _NoIPython:
    """``get_ipython()`` in the answer process: magics and shell commands do nothing here."""

    def run_line_magic(self, *args, **kwargs):
        return None

    run_cell_magic = system = getoutput = run_line_magic


_TRACEBACK = BaseException.__traceback__.__get__  # not a subclass's own ``__traceback__``
_TYPE_NAME = type.__dict__["__name__"].__get__  # not a metaclass's own ``__name__``
_SYNTAX_LINE = SyntaxError.lineno.__get__
MAX_EVALUE_CHARS = 500


def _error_of(e: BaseException, filename: str) -> dict:
    """What the grader records of an exception a cell raised: its type, message (clipped) and
    the line of the cell it came from (the outermost frame of that cell, as IPython shows it;
    a syntax error's own line)."""
    lineno = None
    if type(e) in (SyntaxError, IndentationError, TabError):  # raised by ``compile``
        lineno = _SYNTAX_LINE(e)
    tb = _TRACEBACK(e)
    while lineno is None and tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            lineno = tb.tb_lineno
        tb = tb.tb_next
    try:  # the learner's own ``__str__`` may run here, still within the cell's time limit
        evalue = str(e)
    except BaseException:  # noqa: BLE001
        evalue = ""
    name = _TYPE_NAME(type(e))
    return {
        "status": "error",
        "ename": name[:100] if type(name) is str else "?",
        "evalue": evalue[:MAX_EVALUE_CHARS] if type(evalue) is str else "",
        "lineno": lineno if type(lineno) is int else None,
    }


def _no_display(*objs, **kwargs) -> None:
    """``display`` (IPython puts it in every notebook's builtins): nothing is shown here."""
    return None


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        b = _os.read(fd, 1 << 20)
        if not b:
            return b"".join(chunks)
        chunks.append(b)


def main() -> None:
    """Run the request on stdin; write signed lines on stdout; never return."""
    raw = _read_all(0)
    key, request = raw[:KEY_BYTES], _json.loads(raw[KEY_BYTES:].decode("utf-8"))
    del raw
    nonce = request["nonce"]
    out = _os.dup(1)  # the grader's pipe (fd 3 or above); fds 0, 1 and 2 go nowhere
    null = _os.open(_os.devnull, _os.O_WRONLY)
    for fd in (0, 1, 2):
        _os.dup2(null, fd)
    _os.close(null)
    write, dumps, sign = _os.write, _json.dumps, _hmac.new
    encode, encode_raised, decode_args = _encode, _encode_raised, _decode_args
    error_of = _error_of
    clear_tb = BaseException.with_traceback
    exc_types = (Exception, SystemExit, KeyboardInterrupt, GeneratorExit)
    gc_disable = _gc.disable
    exec_, compile_, type_, callable_, isinstance_, len_ = (
        exec,
        compile,
        type,
        callable,
        isinstance,
        len,
    )
    loads, dict_get = _json.loads, dict.get

    pristine = _Pristine()

    def send(obj: dict, where: list) -> None:
        problem = pristine.problem()  # learner code may have run while encoding: check last
        if problem is not None:
            pristine.restore()
            state["events"].append([where, problem])
            obj.setdefault("events", []).append([where, problem])
        obj["nonce"] = nonce
        body = dumps(obj, separators=(",", ":"))
        sig = sign(key, body.encode("utf-8"), "sha256").hexdigest()
        data = (dumps({"b": body, "s": sig}) + "\n").encode("utf-8")
        while data:
            data = data[write(out, data) :]

    state: dict = {"phase": None, "events": []}
    _sys.addaudithook(_make_hook(state, _trusted_roots()))
    _sys.stdout = _sys.stderr = _Sink()

    def events_since(n: int) -> list:
        return state["events"][n:]

    ns: dict = {"__name__": "__main__", "__builtins__": _builtins}
    ns.update(get_ipython=_NoIPython, display=_no_display)  # IPython's names, doing nothing
    send({"ev": "ready"}, ["ready", None, None])  # set up: from now on, each cell is timed
    for i, source, qid in request["cells"]:
        state["phase"] = ["cell", i, qid]
        n = len_(state["events"])
        msg = {"ev": "cell", "i": i, "status": "ok"}
        try:
            exec_(compile_(source, f"{CELL}{i}>", "exec"), ns)
        except exc_types as e:
            try:
                msg.update(error_of(e, f"{CELL}{i}>"))
            except BaseException:  # noqa: BLE001 - e.g. out of memory while reading it
                msg.update(status="error", ename="?", evalue="", lineno=None)
            clear_tb(e, None)
        except BaseException as e:  # noqa: BLE001 - e.g. a learner's own BaseException
            clear_tb(e, None)
            msg.update(status="error", ename="BaseException", evalue="")
        state["phase"] = None
        msg["events"] = events_since(n)
        send(msg, ["cell", i, qid])

    for q in request["questions"]:
        qid, name, kind = q["qid"], q["name"], q["kind"]
        send({"ev": "start", "qid": qid}, ["call", None, qid])
        n = len_(state["events"])
        value = dict_get(ns, name, ns) if type_(name) is str else ns
        kept = []  # arguments and results stay alive until encoded (no finalizer runs early)
        if value is ns:
            answer = {"t": "missing"}
        elif kind == "function" and callable_(value) and not isinstance_(value, type_):
            items = []
            for case in loads(q["payload"])["cases"]:
                args, table = decode_args(case)
                kept.append(args)
                state["phase"] = ["call", None, qid]
                try:
                    result = value(*args)
                except exc_types as e:
                    state["phase"] = None
                    items.append(encode_raised(e))  # reads the learner's cell frame first
                    clear_tb(e, None)
                    continue
                except BaseException as e:  # noqa: BLE001
                    clear_tb(e, None)
                    state["phase"] = None
                    items.append({"t": "raised", "type": "BaseException", "message": ""})
                    continue
                state["phase"] = None
                gc_disable()
                kept.append(result)
                problem = pristine.problem()
                if problem is not None:
                    state["events"].append([["call", None, qid], problem])
                    pristine.restore()
                    break
                items.append(encode(result, table))
            answer = {"t": "results", "items": items}
        else:
            problem = pristine.problem()
            answer = encode(value) if problem is None else {"t": "missing"}
            if problem is not None:
                state["events"].append([["call", None, qid], problem])
                pristine.restore()
        where = ["call", None, qid]
        send({"ev": "answer", "qid": qid, "answer": answer, "events": events_since(n)}, where)
        del kept
    send({"ev": "done", "events": events_since(0)}, ["done", None, None])
    _os._exit(0)


if __name__ == "__main__":
    main()
