"""Kernel side of batch grading: hands the learner's answers to the grader, nothing more.

Imported by the kernel launcher and by the first cell of a grading notebook, before any learner
code runs: everything ``respond`` calls (the encoder, ``json``, ``hmac``, the namespace, the
display publisher) is bound then, in a closure, never looked up as a module global at call time.
``install(key)`` (the prelude cell) makes that closure with the grader's secret ``key``; for each
question the grader then runs one cell calling ``respond``: it verifies that nothing it relies on
was replaced since import (functions, their code objects, the encoder's and ``json``'s module
globals, the dtype table), looks the answer up by name, calls it on the grader's inputs when it
is a function, and publishes the encoded result as one display output of MIME type ``MIME``:
``{"body": json, "sig": HMAC-SHA256(key, json)}``. The grader accepts only a body whose
signature checks, so a ``respond`` replaced by another answer cell, a display hook or a patched
``session.send`` cannot forge an answer. A notebook that reads the key out of the interpreter's
memory could still forge one (it runs in the same process); that is a deliberate attack, and
its source is in the graded notebook. No reference, expected value or judgement ever exists in
the kernel; whatever is published is judged by the grader in its own process.
"""

from __future__ import annotations

import hmac as _hmac
import io as _io
import json as _json
import json.encoder as _json_encoder
import sys as _sys
import types as _types

from . import encode as _encode_module
from .encode import decode_args, encode, encode_raised

MIME = "application/x.tensorlab-answer+json"
MAX_STREAM_CHARS = 200_000

_state: dict = {}


class _CappedStream(_io.TextIOBase):
    """A text stream that forwards at most ``limit`` characters, then drops the rest."""

    def __init__(self, target, limit: int):
        self._target, self._left = target, limit

    def write(self, s) -> int:
        s = str(s)
        if self._left > 0:
            part = s[: self._left]
            self._left -= len(part)
            self._target.write(part)
        return len(s)

    def flush(self) -> None:
        try:
            self._target.flush()
        except Exception:  # noqa: BLE001
            pass


def _snapshot() -> list[tuple]:
    """(namespace dict, name, value, code, defaults, kwdefaults) for every global of the modules
    ``respond`` relies on: the encoder, this module, ``json`` and ``json.encoder``, ``hmac``."""
    out = []
    for module in (_encode_module, _sys.modules[__name__], _json, _json_encoder, _hmac):
        for name, value in list(vars(module).items()):
            if name in ("_state", "respond", "__builtins__", "__loader__", "__spec__"):
                continue
            if isinstance(value, _types.FunctionType):
                out.append(
                    (
                        vars(module),
                        name,
                        value,
                        value.__code__,
                        value.__defaults__,
                        value.__kwdefaults__,
                    )
                )
            else:
                out.append((vars(module), name, value, None, None, None))
    return out


def _dtype_table() -> list[tuple]:
    return [(d, d.name, d.np) for d in _encode_module._ALL_DTYPES]


def _make_respond(key: bytes, ns: dict, publish):
    """``respond`` with everything it calls bound in its closure (see the module docstring)."""
    b = _BOUND
    dumps, loads, hmac_new = b["dumps"], b["loads"], b["hmac_new"]
    enc, enc_raised, dec_args = b["encode"], b["encode_raised"], b["decode_args"]
    string_io, sys_mod, is_callable = b["StringIO"], b["sys"], b["callable"]
    is_instance, type_ = b["isinstance"], b["type"]
    exception, system_exit = b["Exception"], b["SystemExit"]
    vars_, getattr_, modules = b["vars"], b["getattr"], b["sys"].modules
    snapshot, dtypes, numpy_attrs, np = b["snapshot"], b["dtypes"], b["numpy"], b["np"]
    me: list = []

    def tampered() -> str | None:
        for space, name, value, code, defaults, kwdefaults in snapshot:
            if space.get(name) is not value:
                return f"`{name}` of the grading code was replaced"
            if code is not None and (
                value.__code__ is not code
                or value.__defaults__ is not defaults
                or value.__kwdefaults__ is not kwdefaults
            ):
                return f"the code of `{name}` in the grading code was replaced"
        for d, name, np_dtype in dtypes:
            if d.name is not name or d.np is not np_dtype:
                return "a tensorlab dtype was modified"
        for name, value in numpy_attrs:
            if getattr_(np, name) is not value:
                return f"numpy.{name} was replaced"
        harness = modules.get(__name__)
        if harness is None or vars_(harness).get("respond") is not me[0]:
            return "`respond` of the grading code was replaced"
        return None

    def call_all(fn, payload: dict) -> dict:
        sink = string_io()
        results = []
        for case in payload["cases"]:
            args, table = dec_args(case)
            out, err = sys_mod.stdout, sys_mod.stderr
            sys_mod.stdout = sys_mod.stderr = sink
            try:
                value = fn(*args)
                results.append(enc(value, table))
            except (exception, system_exit) as exc:  # KeyboardInterrupt (a timeout) propagates
                results.append(enc_raised(exc))
            finally:
                sys_mod.stdout, sys_mod.stderr = out, err
            sink.seek(0)
            sink.truncate()
        return {"t": "results", "items": results}

    def respond(nonce: str, qid: str, name: str, kind: str, payload: str) -> None:
        """Publish the answer bound to ``name`` (called on the grader's inputs for functions)."""
        problem = tampered()
        if problem is not None:
            answer = {"t": "tampered", "what": problem}
        elif name not in ns:
            answer = {"t": "missing"}
        else:
            value = ns[name]
            if kind == "function" and is_callable(value) and not is_instance(value, type_):
                answer = call_all(value, loads(payload))
            else:
                answer = enc(value)
        body = dumps({"nonce": nonce, "qid": qid, "answer": answer}, separators=(",", ":"))
        sig = hmac_new(key, body.encode("utf-8"), "sha256").hexdigest()
        publish(data={MIME: {"body": body, "sig": sig}}, metadata={})

    me.append(respond)
    return respond


def install(key: str = "") -> None:
    """Remember the user namespace and the display publisher, make ``respond`` with the
    grader's ``key``; cap printed output. Run once, before any learner code."""
    from IPython import get_ipython

    if "installed" in _state:
        return
    shell = get_ipython()
    _state["installed"] = True
    publish = shell.display_pub.publish
    globals()["respond"] = _make_respond(key.encode("utf-8"), shell.user_ns, publish)
    _sys.stdout = _CappedStream(_sys.stdout, MAX_STREAM_CHARS)
    _sys.stderr = _CappedStream(_sys.stderr, MAX_STREAM_CHARS)


def sign(key: str, body: str) -> str:
    """The signature ``respond`` puts on ``body`` (the grader checks it with this)."""
    return _hmac.new(key.encode("utf-8"), body.encode("utf-8"), "sha256").hexdigest()


def respond(nonce: str, qid: str, name: str, kind: str, payload: str) -> None:  # noqa: F811
    """Replaced by ``install``; before it, nothing can be answered."""
    raise RuntimeError("the grading harness is not installed")


# Bound at import: the kernel launcher imports this module before any learner code runs.
_SNAPSHOT = tuple(_snapshot())
_BOUND = {
    "dumps": _json.dumps,
    "loads": _json.loads,
    "hmac_new": _hmac.new,
    "encode": encode,
    "encode_raised": encode_raised,
    "decode_args": decode_args,
    "StringIO": _io.StringIO,
    "sys": _sys,
    "callable": callable,
    "isinstance": isinstance,
    "type": type,
    "vars": vars,
    "getattr": getattr,
    "Exception": Exception,
    "SystemExit": SystemExit,
    "snapshot": _SNAPSHOT,
    "dtypes": tuple(_dtype_table()),
    "numpy": tuple(
        (n, getattr(_encode_module._np, n)) for n in ("bool_", "True_", "empty", "dtype")
    ),
    "np": _encode_module._np,
}
