"""Trust inside the sandbox (issue 37, class 1): no code in a submission can make the grader
record an answer its functions did not return, or a layout the returned tensor does not have.

One grading run (real bubblewrap kernels, 2 workers) grades students who each attack one or two
questions whose honest answer is wrong (a copy where a view is asked for, a wrong layout) with
a facility that observes or rewrites other code: tracing and profiling hooks, IPython's own
event and AST-transformer machinery, swapped ``__code__``/``__defaults__``, monkeypatched
encoder/``json``/numpy functions, a Tensor subclass lying about its layout, frames and ``gc``
to find the grader's secret, fake answer messages. Most attacks hide their names from a static
reading (``vars(sys)["set" + "trace"]``) so the run-time audit is what stops them. Every
attacked question must score 0, failed, with "cannot follow" naming what was used; the other
answers of the same notebook are graded normally. A student using ordinary library features
that look at frames on their own account (warnings, namedtuple, dataclasses) is not flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from grading_class import EXERCISES, STRIDES, VIEWS, questions, submission

pytest.importorskip("nbclient")

# the honest (wrong) answers the attacks try to turn into passes
COPY = (
    "def flatten_hw(x):\n    N, C, H, W = x.shape\n"
    "    return x.contiguous().clone().view(N, C, H * W)  # a copy: not what is asked\n"
)
WRONG_LAYOUT = "transposed_layout = ((4, 3, 2), (6, 2, 1), 0)\n"

TRACER = (
    COPY + "\nimport sys\n\n\n"
    "def _tracer(frame, event, arg):\n"
    "    # once flatten_hw returns, put a view of the argument where the grader keeps the result\n"
    "    if event == 'return' and frame.f_code.co_name == 'flatten_hw':\n"
    "        x = frame.f_locals['x']\n"
    "        N, C, H, W = x.shape\n"
    "        caller = frame.f_back\n"
    "        for k, v in caller.f_locals.items():\n"
    "            if v is arg:\n"
    "                caller.f_locals[k] = x.view(N, C, H * W)\n"
    "    return _tracer\n\n\n"
    'vars(sys)["set" + "trace"](_tracer)\n'
    'vars(sys)["set" + "profile"](_tracer)\n'
)

LIAR = (
    "import tensorlab\n\n\n"
    "class Liar(tensorlab.Tensor):\n"
    "    # a copy that reports the layout (and memory) of the view it should have been\n"
    "    _storage = property(lambda s: s.__dict__['src']._storage, lambda s, v: None)\n"
    "    _offset = property(lambda s: s.__dict__['src']._offset, lambda s, v: None)\n"
    "    _stride = property(lambda s: s.__dict__['view']._stride, lambda s, v: None)\n"
    "    def stride(self, *a):\n        return self.__dict__['view'].stride(*a)\n"
    "    def data_ptr(self):\n        return self.__dict__['src'].data_ptr()\n\n\n"
    "def flatten_hw(x):\n"
    "    N, C, H, W = x.shape\n"
    "    copy = x.contiguous().clone().view(N, C, H * W)\n"
    "    out = Liar(copy._storage, copy._shape, copy._stride, copy._offset, copy._dtype)\n"
    "    out.__dict__.update(src=x, view=x.view(N, C, H * W))\n"
    "    return out\n"
)

CODE_SWAP = (
    "def _honest(x):\n    N, C, H, W = x.shape\n    return x.view(N, C, H * W)\n\n\n"
    + COPY
    + "\n\n"
    "# the source above is what a reader checks; what runs is swapped in afterwards\n"
    'setattr(flatten_hw, "__co" + "de__", getattr(_honest, "__co" + "de__"))\n'
)
DEFAULTS_SWAP = (
    "def flatten_hw(x, _f=None):\n"
    "    N, C, H, W = x.shape\n"
    "    return _f(x) if _f else x.contiguous().clone().view(N, C, H * W)\n\n\n"
    'setattr(flatten_hw, "__defa" + "ults__", (lambda x: x.view(*x.shape[:2], -1),))\n'
)

ENCODER_PATCH = (
    "import json\n\nimport tensorlab.grading.encode as enc\n\n"
    "_real = enc.encode\n\n\n"
    "def _fake(obj, table=None, depth=0):\n"
    "    out = _real(obj, table, depth)\n"
    "    if isinstance(out, dict) and out.get('t') == 'tensor':\n"
    "        out['storage'] = 0\n"
    "    return out\n\n\n"
    "vars(enc)['enc' + 'ode'] = _fake\n"
    "json.dumps = json.dumps\n" + COPY
)
JSON_PATCH = (
    "import json\n\n_dumps = json.dumps\n\n\n"
    "def _lying_dumps(obj, *a, **k):\n"
    "    s = _dumps(obj, *a, **k)\n"
    "    return s.replace('((4, 3, 2), (6, 2, 1), 0)', '((4, 3, 2), (1, 2, 6), 0)')\n\n\n"
    "vars(json)['du' + 'mps'] = _lying_dumps\n" + WRONG_LAYOUT
)
NUMPY_PATCH = (
    "import numpy as np\n\n"
    "vars(np)['ascontiguous' + 'array'] = lambda a, *k, **kw: a\n"
    "vars(np)['frombuffer'] = lambda *a, **k: None\n" + COPY
)

FRAMES = (
    "import sys\n\n"
    "found = []\n"
    "try:\n"
    '    f = vars(sys)["_get" + "frame"](0)\n'
    "    while f is not None:\n"
    "        found.append(dict(f.f_locals))\n"
    "        f = f.f_back\n"
    "except Exception:\n"
    "    pass\n\n\n" + COPY
)
TRACEBACK_FRAMES = (
    "def flatten_hw(x):\n"
    "    try:\n"
    "        raise ValueError\n"
    "    except ValueError as e:\n"
    "        tb = getattr(e, '__trace' + 'back__')\n"
    "        f = getattr(tb, 'tb_' + 'frame')\n"
    "        secrets = dict(f.f_back.f_locals)\n"
    "    N, C, H, W = x.shape\n"
    "    return x.contiguous().clone().view(N, C, H * W)\n"
)
GC_SECRET = (
    "import sys\n\n"
    "_import = vars(vars(sys)['mod' + 'ules']['builtins'])['__imp' + 'ort__']\n"
    "_gc = _import('g' + 'c')\n"
    "keys = [o for o in _gc.get_objects() if isinstance(o, bytes) and len(o) == 64]\n"
    + WRONG_LAYOUT
)
IPYTHON_HOOKS = (
    "ip = get_ipython()\n\n\n"
    "class _Rewrite:\n    def visit(self, tree):\n        return tree\n\n\n"
    "ip.ast_transformers.append(_Rewrite())\n"
    "ip.events.register('post_run_cell', lambda *a: None)\n" + WRONG_LAYOUT
)
FAKE_LINES = (
    "import os\n\n"
    '_line = b\'{"b": "{\\\\"ev\\\\": \\\\"answer\\\\"}", "s": "00"}\\n\'\n'
    "for _fd in range(3, 40):\n"
    "    try:\n"
    "        os.write(_fd, _line)\n"
    "    except OSError:\n"
    "        pass\n" + WRONG_LAYOUT
)
PROC_MEM = (
    "try:\n"
    "    with open('/proc/self/mem', 'rb') as f:\n"
    "        f.read(1)\n"
    "except Exception:\n"
    "    pass\n" + WRONG_LAYOUT
)
ORDINARY = (
    "import warnings\nfrom collections import namedtuple\nfrom dataclasses import dataclass\n\n"
    "Pair = namedtuple('Pair', 'a b')\n\n\n"
    "@dataclass\nclass Box:\n    n: int\n\n\n"
    "def flatten_hw(x):\n"
    "    warnings.warn('checking')\n"
    "    N, C, H, W = x.shape\n"
    "    assert Box(Pair(N, C).a).n == N\n"
    "    return x.view(N, C, H * W)\n"
)

ATTACKS = {
    # student -> (notebook, {question: answer cell}, words the feedback must contain)
    "tracer": (VIEWS, {"views.flatten_hw": TRACER}, ["sys.settrace"]),
    "liar": (VIEWS, {"views.flatten_hw": LIAR}, None),
    "code_swap": (VIEWS, {"views.flatten_hw": CODE_SWAP}, ["__code__"]),
    "defaults_swap": (VIEWS, {"views.flatten_hw": DEFAULTS_SWAP}, ["__defaults__"]),
    "encoder_patch": (VIEWS, {"views.flatten_hw": ENCODER_PATCH}, ["encode"]),
    "numpy_patch": (VIEWS, {"views.flatten_hw": NUMPY_PATCH}, ["numpy"]),
    "frames": (VIEWS, {"views.flatten_hw": FRAMES}, ["sys._getframe"]),
    "traceback_frames": (VIEWS, {"views.flatten_hw": TRACEBACK_FRAMES}, ["tb_frame"]),
    "json_patch": (STRIDES, {"strides.transpose": JSON_PATCH}, ["json"]),
    "gc_secret": (STRIDES, {"strides.transpose": GC_SECRET}, ["gc"]),
    "ipython_hooks": (STRIDES, {"strides.transpose": IPYTHON_HOOKS}, ["get_ipython"]),
    "fake_lines": (STRIDES, {"strides.transpose": FAKE_LINES}, ["its own messages"]),
    "proc_mem": (STRIDES, {"strides.transpose": PROC_MEM}, ["/proc"]),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    from tensorlab.grading.grade import grade

    base = tmp_path_factory.mktemp("trust")
    subs = base / "submissions"
    for student, (nb, replace, _) in {**ATTACKS, "ordinary": (VIEWS, {}, None)}.items():
        if student == "ordinary":
            replace = {"views.flatten_hw": ORDINARY}
        p = subs / student / nb
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(submission(nb, replace)))
    summary = grade(
        [str(subs)],
        base / "out",
        EXERCISES,
        jobs=2,
        cell_timeout=10,
        timeout=150,
        memory=2 * 2**30,
        seed=7,
        progress=False,
        sandbox="bwrap",
    )
    return base / "out", summary


def _message(q: dict) -> str:
    return " ".join(str(q.get(k) or "") for k in ("message", "reason", "feedback"))


@pytest.mark.parametrize("student", sorted(ATTACKS))
def test_an_attack_earns_nothing_and_is_named(graded, student):
    out, summary = graded
    assert not summary["grader_errors"]
    nb, replace, words = ATTACKS[student]
    qs = questions(out, student, nb)
    for qid in replace:
        q = qs[qid]
        assert q["points"] == 0, (student, q)
        if q["max_points"] == 0:  # a formative (predict) question since issue 33: nothing to earn
            continue
        assert q["status"] == "failed", (student, q)
        if words is not None:
            text = _message(q)
            assert "cannot follow" in text, (student, q)
            for w in words:
                assert w in text, (student, w, q)
    # the notebook's other (honest, right) answers are graded as usual (but a question with
    # rules reads the whole notebook: there, the attack's code breaks them)
    others = [q for qid, q in qs.items() if qid not in replace and qid != "views.interleave"]
    # a notebook cell the rules cannot follow costs the rule-bearing questions too (issue 33),
    # with the rules' message; every other question still passes
    assert others and all(
        q["status"] == "passed" or (q["stage"] == "rules" and "cannot check" in q["message"])
        for q in others
    ), (student, qs)


def test_ordinary_library_features_are_not_flagged(graded):
    qs = questions(graded[0], "ordinary", VIEWS)
    assert all(q["status"] == "passed" for q in qs.values()), qs


def test_the_answer_process_refuses_frames_without_the_grader(tmp_path: Path):
    """The audit hook on its own, in an unsandboxed answer process: an attempt is refused
    (the cell goes on after catching it) and recorded against the cell's question."""
    import subprocess
    import sys

    key = b"k" * 64
    cell = (
        "import sys\ntry:\n"
        '    vars(sys)["_getframe"](0)\n    got = "frame"\n'
        "except RuntimeError as e:\n    got = str(e)\n"
    )
    request = {
        "nonce": "n",
        "cells": [[0, cell, "q"]],
        "questions": [{"qid": "q", "name": "got", "kind": "value", "payload": "{}"}],
    }
    r = subprocess.run(
        [sys.executable, "-m", "tensorlab.grading._launch", "0", "--answers"],
        input=key + json.dumps(request).encode(),
        capture_output=True,
        timeout=60,
        cwd=tmp_path,
    )
    lines = [json.loads(json.loads(x)["b"]) for x in r.stdout.decode().splitlines()]
    assert lines[0]["ev"] == "ready"  # set up before any cell ran: from now on each is timed
    cell_msg = lines[1]
    assert cell_msg["ev"] == "cell" and cell_msg["status"] == "ok"
    assert cell_msg["events"] == [[["cell", 0, "q"], "sys._getframe (frames)"]]
    answer = [m for m in lines if m["ev"] == "answer"][0]["answer"]
    assert answer["t"] == "str" and "not allowed" in answer["v"]
