"""Kernel side of batch grading: hands the learner's answers to the grader, nothing more.

Imported by the first cell of a grading notebook, before any learner code runs, so that the
functions it keeps (the namespace, the display publisher, the encoder) are the original ones.
For each question the grader runs one cell calling ``respond``: it looks the answer up by name,
calls it on the grader's inputs when it is a function, and publishes the encoded result as one
display output of MIME type ``MIME``. No reference, expected value or judgement ever exists in
the kernel; whatever is published is judged by the grader in its own process.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys

from .encode import decode_args, encode, encode_raised

MIME = "application/x.tensorlab-answer+json"
MAX_STREAM_CHARS = 200_000

_state: dict = {}
_loads = json.loads
_redirect_stdout = contextlib.redirect_stdout
_redirect_stderr = contextlib.redirect_stderr
_callable = callable


class _CappedStream(io.TextIOBase):
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
        with contextlib.suppress(Exception):
            self._target.flush()


def install() -> None:
    """Remember the user namespace and the display publisher; cap printed output."""
    from IPython import get_ipython

    shell = get_ipython()
    _state["ns"] = shell.user_ns
    _state["publish"] = shell.display_pub.publish
    sys.stdout = _CappedStream(sys.stdout, MAX_STREAM_CHARS)
    sys.stderr = _CappedStream(sys.stderr, MAX_STREAM_CHARS)


def _call_all(fn, payload: dict) -> dict:
    sink = io.StringIO()
    results = []
    for case in payload["cases"]:
        args, table = decode_args(case)
        try:
            with _redirect_stdout(sink), _redirect_stderr(sink):
                value = fn(*args)
            results.append(encode(value, table))
        except (Exception, SystemExit) as exc:  # KeyboardInterrupt (a timeout) propagates
            results.append(encode_raised(exc))
        sink.seek(0)
        sink.truncate()
    return {"t": "results", "items": results}


def respond(nonce: str, qid: str, name: str, kind: str, payload: str) -> None:
    """Publish the answer bound to ``name`` (called on the grader's inputs for functions)."""
    ns = _state["ns"]
    if name not in ns:
        answer = {"t": "missing"}
    else:
        value = ns[name]
        if kind == "function" and _callable(value) and not isinstance(value, type):
            answer = _call_all(value, _loads(payload))
        else:
            answer = encode(value)
    _state["publish"](data={MIME: {"nonce": nonce, "qid": qid, "answer": answer}}, metadata={})
