"""Grades no submission can bend (issue 21): the judge, the kernel-side harness, the outputs and
the host disk, against answers written as a hostile or merely careless student would.

The unit tests call the judge and the rule check directly; one grading run (module fixture, real
sandboxed kernels, 2 workers) grades a class of such students, and one inline check runs in a
real kernel to show that batch grading and ``check`` give the same verdict on the same source.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from grading_class import (
    EXERCISES,
    STRIDES,
    VIEWS,
    grade_class,
    questions,
    solution_answers,
    submission,
)

from tensorlab.grading import Expect, Question, evaluate, get
from tensorlab.grading.encode import encode
from tensorlab.grading.judge import judge_encoded, rule_check

CHANNELS = "03_channels_groups.ipynb"
SOLUTION_INTERLEAVE = solution_answers(VIEWS)["views.interleave"]


# ---------------------------------------------------------------------------- NaN
def _nan_question(expect=None):
    return Question(
        id="t.nan",
        notebook="t",
        name="v",
        kind="value",
        prompt="",
        todo="",
        reference=lambda: (float("nan"), np.array([1.0, np.nan])),
        expect=expect or Expect(),
    )


def test_a_constant_nan_answer_does_not_match_a_nan_reference():
    q = _nan_question()
    v = evaluate(q, (float("nan"), np.array([1.0, np.nan])))
    assert v.status == "failed" and v.stage == "values", v
    v = evaluate(q, (float("nan"), np.full(2, np.nan)))
    assert v.status == "failed"
    # unless the question says NaN is a right answer there
    assert evaluate(_nan_question(Expect(equal_nan=True)), (np.nan, np.array([1.0, np.nan]))).passed


# ---------------------------------------------------------------------------- the judge's guard
def test_an_int_too_large_for_a_float_fails_only_its_question():
    q = get("xcorr.lecture_row")  # a tuple of 6 numbers
    v = judge_encoded(q, encode((2**1100, 0.0, 9.0, 6.0, 3.0, 0.0)), 0)
    assert v.status == "failed" and "too large" in v.message, v
    v = evaluate(q, (2**1100, 0.0, 9.0, 6.0, 3.0, 0.0))  # inline: the same, no OverflowError
    assert v.status == "failed" and "too large" in v.message, v


def test_answers_nested_or_sized_beyond_the_budget_are_errors_not_crashes():
    q = get("xcorr.lecture_row")
    root = node = {"t": "list", "items": []}
    for _ in range(100_000):  # what a forged answer could claim: no recursion, no crash
        child = {"t": "list", "items": []}
        node["items"].append(child)
        node = child
    v = judge_encoded(q, root, 0)
    assert v.status == "error" and "nested too deeply" in v.message
    many = {"t": "tuple", "items": [encode(np.zeros(10**6)) for _ in range(9)]}
    v = judge_encoded(q, many, 0)
    assert v.status == "error" and "array elements" in v.message
    deep = []
    for _ in range(5000):  # a careless answer: a list nested 5,000 deep
        deep = [deep]
    assert evaluate(q, deep).status == "failed"


def test_a_judge_step_has_a_time_budget(monkeypatch):
    import tensorlab.grading.judge as judge

    monkeypatch.setattr(judge, "JUDGE_SECONDS", 2.0)
    q = get("xcorr.experiment")  # the question's own judge loops over the output positions
    empty = (np.zeros((10**6, 0)), np.zeros((5, 0)))
    v = judge_encoded(q, encode(empty), 0)
    assert v.status == "failed" and "within 2 s" in v.message, v
    assert evaluate(q, empty).status == "failed"


def test_anything_a_detector_or_reference_raises_is_a_failure():
    def boom(actual, expected):
        raise RecursionError

    q = Question(
        id="t.boom",
        notebook="t",
        name="v",
        kind="value",
        prompt="",
        todo="",
        judge=lambda actual: 1 / 0,
    )
    v = evaluate(q, 3)
    assert v.status == "failed" and "ZeroDivisionError" in v.message


# ---------------------------------------------------------------------------- the rule check
TEMPLATE = [
    "import numpy as np  # noqa: F401\n\nimport tensorlab\nimport tensorlab.nn.functional as F\n"
]
OK = "def interleave(x, r):\n    return x.view(-1, 1).repeat(1, r).view(-1)\n"
CHEATS = {
    # IPython syntax in the answer cell: read as IPython runs it
    "magic line": "%time t = tensorlab.arange(3)\ndef interleave(x, r):\n    return x.repeat_interleave(r)\n",
    "cell magic": "%%time\ndef interleave(x, r):\n    return x.repeat_interleave(r)\n",
    "shell line": "!echo hi\ndef interleave(x, r):\n    return x.repeat_interleave(r)\n",
    # the answer rebound after its honest def
    "globals()": OK + "globals()['interle' + 'ave'] = lambda x, r: x.repeat_interleave(r)\n",
    "loop target": OK + "for interleave in [tensorlab.Tensor.repeat_interleave]:\n    pass\n",
    "walrus": OK + "(interleave := tensorlab.Tensor.repeat_interleave)\n",
    "exec": OK + "exec('interleave = tensorlab.Tensor.' + 'repeat_interleave')\n",
    "getattr": "def interleave(x, r):\n    return getattr(x, 'repeat_' + 'interleave')(r)\n",
    "global in a function": OK
    + "def _swap():\n    global interleave\n    interleave = tensorlab.Tensor.repeat_interleave\n_swap()\n",
    "helper by a loop": "for _h in [tensorlab.Tensor.repeat_interleave]:\n    pass\n"
    "def interleave(x, r):\n    return _h(x, r)\n",
    "patched method": "tensorlab.Tensor.view = tensorlab.Tensor.repeat_interleave\n" + OK,
    "methodcaller": "from operator import methodcaller\n"
    "def interleave(x, r):\n    return methodcaller('repeat_' 'interleave', r)(x)\n",
    "own module": "import mymod\ninterleave = mymod.f\n",
    "isolated eval": "def interleave(x, r):\n"
    "    return eval('x.repeat_' + 'interleave(r)', {'x': x, 'r': r})\n",
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_the_rule_check_sees_through_ipython_syntax_and_rebinding(name):
    q = get("views.interleave")
    source = CHEATS[name]
    message = rule_check(q, source, [*TEMPLATE, source])
    assert message is not None, name
    assert "repeat_interleave" in message or "cannot check" in message, message


@pytest.mark.parametrize(
    "source",
    [
        OK,
        SOLUTION_INTERLEAVE,
        # IPython syntax in an honest cell is fine
        "%time t = tensorlab.arange(3)\n" + OK + "%timeit interleave(t, 2)\n",
        "%matplotlib inline\n" + OK + "interleave?\n",
        # code run in a namespace of its own, not reached from the answer (notebook 06 does so)
        OK + "def runs(s):\n    exec(s, {'tensorlab': tensorlab})\nruns('1 + 1')\n",
        # a self-test with a loop and the forbidden name in an assert
        OK + "for r in (1, 2):\n    t = tensorlab.arange(3)\n"
        "    assert interleave(t, r).equal(t.repeat_interleave(r))\n",
    ],
)
def test_honest_answers_keep_the_rules(source):
    q = get("views.interleave")
    assert rule_check(q, source, [*TEMPLATE, source]) is None


def test_every_released_notebook_with_rules_keeps_them_in_its_solution():
    """The templates' own cells never make a rule unverifiable (for rules added later, too)."""
    from tensorlab.grading.registry import all_questions
    from tensorlab.grading.rules import has_rules

    ruled = [q for q in all_questions() if has_rules(q)]
    assert ruled
    for q in ruled:
        nb = json.loads((EXERCISES.parent / "solutions" / f"{q.notebook}.ipynb").read_text())
        cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        source = solution_answers(f"{q.notebook}.ipynb")[q.id]
        assert rule_check(q, source, cells) is None, q.id


# ---------------------------------------------------------------------------- the host disk
def test_cleanup_never_recurses_on_learner_made_depth():
    from tensorlab.grading.kernel import WorkDir

    work = WorkDir()
    here = os.getcwd()
    try:
        os.chdir(work.name)
        for i in range(5000):  # deeper than Python's recursion limit and than PATH_MAX
            os.mkdir("deep")
            os.chdir("deep")
            if i % 500 == 0:
                Path("f").write_text("x")
                os.symlink("/etc/hostname", "link")
        os.chmod(".", 0)
    finally:
        os.chdir(here)
    work.cleanup()
    assert not os.path.exists(work.name)
    assert Path("/etc/hostname").exists()


# ---------------------------------------------------------------------------- a hostile class
HARNESS = "import tensorlab.grading._harness as h\n"
FORGE = (
    "from IPython.display import display\n\n\n"
    "def fake(nonce, qid, name, kind, payload):\n"
    "    answer = {'t': 'results', 'items': []} if kind == 'function' else {'t': 'int', 'v': 1}\n"
    "    display({'application/x.tensorlab-answer+json': {'nonce': nonce, 'qid': qid,"
    " 'answer': answer}}, raw=True)\n\n\n"
)
NOISE = (
    "from IPython.display import display\n"
    "for i in range(100):\n"
    "    display({'application/x.tensorlab-answer+json': {'pad': 'x' * 100_000}}, raw=True)\n"
    "    display({'text/html': 'y' * 10_000, 'application/x.tensorlab-answer+json': {}}, raw=True)\n"
    "    print('z' * 100_000)\n"
    "import ipywidgets\n"
    "s = ipywidgets.IntSlider()\n"
    "for i in range(50):\n"
    "    s.description = 'w' * 100_000\n"
)
DISK = (
    "import json, os\n"
    "from ipykernel.connect import get_connection_info\n"
    "ipc = os.path.dirname(json.loads(get_connection_info())['ip'])\n"
    "ipc_refused = []\n"
    "for attempt in ('file', 'tree'):\n"
    "    try:\n"
    "        if attempt == 'file':\n"
    "            with open(os.path.join(ipc, 'fill'), 'wb') as f:\n"
    "                f.write(b'x' * 2**20)\n"
    "        else:\n"
    "            os.makedirs(os.path.join(ipc, *['d'] * 100))\n"
    "    except OSError:\n"
    "        ipc_refused.append(attempt)\n"
    "here = os.getcwd()\n"
    "for i in range(3000):\n"
    "    os.mkdir('deep')\n"
    "    os.chdir('deep')\n"
    "os.chdir(here)\n"
    "assert ipc_refused == ['file', 'tree'], ipc_refused\n"
)
HOSTILE = {
    # student -> (notebook, answers replaced)
    "overflow": (
        CHANNELS,
        {
            "xcorr.lecture_row": "predicted_row = (2**1100, 0.0, 9.0, 6.0, 3.0, 0.0)\n",
            "xcorr.experiment": "import numpy as np\n\nexperiment = (np.zeros((10**6, 0)), np.zeros((5, 0)))\n",
            "channels.depthwise": "depthwise = [[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]\n",
        },
    ),
    "magic": (VIEWS, {"views.interleave": CHEATS["magic line"]}),
    "rebinder": (VIEWS, {"views.interleave": CHEATS["loop target"]}),
    "harness_swap": (
        STRIDES,
        {"strides.transpose": HARNESS + FORGE + "h.respond = fake\ntransposed_layout = 0\n"},
    ),
    "helper_swap": (
        STRIDES,
        {
            "strides.transpose": HARNESS + "import tensorlab.grading.encode as e\n\n"
            "e.encode = lambda *a, **k: {'t': 'tuple', 'items': []}\ntransposed_layout = 0\n"
        },
    ),
    "noisy": (
        STRIDES,
        {"strides.transpose": NOISE + solution_answers(STRIDES)["strides.transpose"]},
    ),
    "disk": (STRIDES, {"strides.transpose": DISK + solution_answers(STRIDES)["strides.transpose"]}),
}


def _leaked_mounts() -> list[str]:
    """IPC tmpfs mounts whose grading process is gone (those of other live runs are theirs)."""
    import re

    from tensorlab.grading.sandbox import _alive

    found = re.findall(r"tensorlab-kernel-(\d+)-\S*/ipc", Path("/proc/mounts").read_text())
    return [pid for pid in found if not _alive(int(pid))]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    pytest.importorskip("nbclient")
    from tensorlab.grading.sandbox import probe

    if probe() is not None:
        pytest.skip(probe())
    base = tmp_path_factory.mktemp("hostile")
    subs = base / "submissions"
    paths = []
    for student, (nb, replace) in HOSTILE.items():
        p = subs / student / nb
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(submission(nb, replace), indent=1))
        paths.append(p)
    before = None
    tmp_before = set(Path(tempfile.gettempdir()).glob("tensorlab-*"))
    out, summary, _ = grade_class(subs, paths, base / "out")
    return out, summary, before, tmp_before


def _points(qs: dict) -> float:
    return sum(q["points"] for q in qs.values())


def test_no_answer_costs_the_notebook(hostile):
    out, summary, _, _ = hostile
    assert not summary["grader_errors"], summary["grader_errors"]
    qs = questions(out, "overflow", CHANNELS)
    assert qs["xcorr.lecture_row"]["status"] == "failed"
    assert "too large" in qs["xcorr.lecture_row"]["message"]
    assert qs["xcorr.experiment"]["status"] == "failed"
    assert qs["channels.depthwise"]["status"] == "failed"
    others = {
        k: v for k, v in qs.items() if not k.startswith("xcorr") and k != "channels.depthwise"
    }
    assert all(v["status"] == "passed" for v in others.values()), others


def test_batch_rules_read_ipython_syntax_and_follow_rebinding(hostile):
    out = hostile[0]
    for student in ("magic", "rebinder"):
        q = questions(out, student, VIEWS)["views.interleave"]
        assert q["status"] == "failed" and q["stage"] == "rules" and q["points"] == 0, (student, q)


def test_another_cell_cannot_replace_the_harness_or_its_helpers(hostile):
    """The answers do not come from the kernel (issue 37): a replaced ``respond`` there is never
    asked, so each question is judged on what its own code returns (the swapping cell's value,
    0, fails; the other, right, answers pass); a replaced encoder is caught in the answer
    process and fails the question whose cell replaced it, as code the grader cannot follow."""
    out = hostile[0]
    qs = questions(out, "harness_swap")
    assert qs["strides.transpose"]["status"] == "failed", qs["strides.transpose"]
    assert qs["strides.transpose"]["points"] == 0
    qs = questions(out, "helper_swap")
    q = qs["strides.transpose"]
    assert q["status"] == "failed" and q["points"] == 0, q
    assert "cannot follow" in q["message"] and "encode" in q["message"], q
    for student in ("harness_swap", "helper_swap"):
        others = [q for qid, q in questions(out, student).items() if qid != "strides.transpose"]
        assert all(q["status"] == "passed" for q in others), (student, others)


def test_outputs_of_every_kind_are_capped_and_the_answers_still_graded(hostile):
    qs = questions(hostile[0], "noisy")
    assert all(q["status"] == "passed" for q in qs.values()), qs


def test_the_kernel_cannot_fill_the_ipc_folder_nor_defeat_cleanup(hostile):
    out, _, mounts_before, tmp_before = hostile
    qs = questions(out, "disk")
    # the answer cell reaches into the kernel's own machinery (ipykernel): its answer is not
    # followed (issue 37); every other answer of the notebook is graded as usual
    q = qs.pop("strides.transpose")
    assert q["status"] == "failed" and "ipykernel" in q["message"], q
    assert all(q["status"] == "passed" for q in qs.values()), qs
    assert not _leaked_mounts()  # every IPC tmpfs unmounted
    from tensorlab.grading.sandbox import _alive

    left = set(Path(tempfile.gettempdir()).glob("tensorlab-kernel-*-*")) - tmp_before
    pids = [p.name.split("-")[2] for p in left]
    assert not [pid for pid in pids if pid.isdigit() and not _alive(int(pid))]  # none left


# ---------------------------------------------------------------------------- inline = batch
def test_inline_check_gives_the_batch_verdict_on_the_same_source(hostile):
    """The views notebook run in a real kernel as a learner would, with the answer cell that
    batch grading failed on the rules: ``check`` fails it on the rules too."""
    from tensorlab.grading.kernel import Kernel

    nb = submission(VIEWS, {"views.interleave": CHEATS["magic line"]})
    cells = []
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            cells.append("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            tl = c.get("metadata", {}).get("tensorlab", {})
            if tl == {"question": "views.interleave", "role": "check"}:
                break
    with tempfile.TemporaryDirectory() as work, Kernel(work, 2 * 2**30, grading=False) as k:
        for src in cells[:-1]:
            assert k.run(src, 60).status in ("ok", "error")
        r = k.run(cells[-1], 60)
    assert r.status == "error" and r.ename == "CheckFailed", (r.status, r.ename, r.evalue)
    text = json.dumps(r.outputs)
    assert "repeat_interleave" in text and "rules" in text.lower()
    batch = questions(hostile[0], "magic", VIEWS)["views.interleave"]
    assert batch["stage"] == "rules" and "repeat_interleave`" in batch["message"]
    assert batch["message"] in text


def test_outputs_are_capped_in_the_worker_before_they_are_stored():
    from tensorlab.grading import kernel as K

    with tempfile.TemporaryDirectory() as work, K.Kernel(work, 2 * 2**30) as k:
        r = k.run(NOISE + "for i in range(600):\n    print(i, flush=True)\n", 60)
        assert r.status == "ok"
        answers = [o for o in r.outputs if K._harness_mime() in o.get("data", {})]
        assert len(answers) <= K.MAX_ANSWER_OUTPUTS
        assert len(r.outputs) <= K.MAX_OUTPUTS
        size = len(json.dumps(r.outputs))
        assert size <= K.MAX_OUTPUT_CHARS + K.MAX_ANSWER_CHARS + 10_000
        assert not k._client.widget_state and not k._client.widget_buffers
        total = k.notebook_outputs["chars"]
        assert total > K.MAX_OUTPUT_CHARS  # seen and counted, not stored
        r = k.run("raise ValueError('v' * 10**6)", 30)
        assert r.ename == "ValueError" and len(r.evalue) <= K.MAX_ERROR_CHARS


# ---------------------------------------------------------------------------- the files
def _manifest():
    from tensorlab.grading.assign import load_release

    return load_release(EXERCISES)


def test_only_released_names_are_read_once_and_the_rest_is_sized(tmp_path, monkeypatch):
    """Copies and links to one big file: one read per student and notebook, the rest recorded
    by name and size without being read."""
    from tensorlab.grading import collect as C

    alice = tmp_path / "alice"
    alice.mkdir()
    with open(alice / "big.ipynb", "wb") as f:
        f.truncate(15 * 2**20)
    (alice / STRIDES).symlink_to(alice / "big.ipynb")
    for i in range(50):
        (alice / f"copy{i}.ipynb").symlink_to(alice / "big.ipynb")
        (alice / f"d{i}").mkdir()
        (alice / f"d{i}" / STRIDES).symlink_to(alice / "big.ipynb")
    reads = []
    real = C.read_submission
    monkeypatch.setattr(C, "read_submission", lambda p, r: reads.append(p) or real(p, r))
    jobs = C.collect([str(tmp_path)], _manifest())
    assert reads == [alice / STRIDES]
    graded = [j for j in jobs if j.data is not None]
    assert len(graded) == 1 and graded[0].path == str(alice / STRIDES)
    unread = [j for j in jobs if j.data is None]
    assert len(unread) == 101 and all("bytes" in j.problem for j in unread)
    assert {j.status for j in unread} == {"unknown", "duplicate"}


def test_check_and_grade_agree_on_a_copy_and_name_the_graded_file(tmp_path):
    from grading_cli import run_cli

    from tensorlab.grading.collect import collect

    for student in ("ann", "bob"):
        (tmp_path / student).mkdir()
        (tmp_path / student / "04_strides-Copy1.ipynb").write_text("{}")
    (tmp_path / "ann" / STRIDES).write_text("{}")
    jobs = {j.path: j for j in collect([str(tmp_path)], _manifest())}
    ann = jobs[str(tmp_path / "ann" / "04_strides-Copy1.ipynb")]
    assert "copy of 04_strides.ipynb" in ann.problem
    assert f"the graded file is {tmp_path / 'ann' / STRIDES}" in ann.problem
    bob = jobs[str(tmp_path / "bob" / "04_strides-Copy1.ipynb")]
    assert "rename it to 04_strides.ipynb" in bob.problem and bob.data is None
    # check on the copy says the same: not graded, and which name is
    r = run_cli("check", tmp_path / "bob" / "04_strides-Copy1.ipynb", "--release", EXERCISES)
    assert r.returncode == 1, r.stderr  # nothing was graded: not a pass
    assert "copy of 04_strides.ipynb" in r.stdout and "rename it to 04_strides.ipynb" in r.stdout
    (single,) = collect([str(tmp_path / "bob" / "04_strides-Copy1.ipynb")], _manifest())
    assert single.problem.split(" (")[0] == bob.problem.split(" (")[0]


def _grade_without_kernels(klass: Path, out: Path, progress=False):
    from tensorlab.grading.grade import grade

    return grade([str(klass)], out, EXERCISES, progress=progress, sandbox="none")


FORMULAS = ['=HYPERLINK("evil.example","click")', "+1+2", "-2+3", "@SUM(A1)", "\tTAB", "\rCR"]


def test_gradebook_cells_never_start_a_formula(tmp_path):
    import csv

    klass = tmp_path / "class"
    for name in [*FORMULAS, "plain"]:
        (klass / name).mkdir(parents=True)
        (klass / name / STRIDES).write_text("{not json")
    _grade_without_kernels(klass, tmp_path / "out")
    rows = list(csv.reader((tmp_path / "out" / "gradebook.csv").open(encoding="utf-8", newline="")))
    students = [r[0] for r in rows[1:]]
    # a carriage return is a control character: shown as \x0d (its grade file named after
    # the cell, so the row stays the student's own); the others are neutralised with '
    expected = ["'" + n for n in FORMULAS if n != "\rCR"] + ["plain"]
    assert sorted(s for s in students if not s.startswith("\\x0dCR")) == sorted(expected)
    assert [s for s in students if s.startswith("\\x0dCR [cr~")]
    for row in rows[1:]:
        assert not any(cell.startswith(("=", "+", "@", "\t", "\r")) for cell in row), row


def test_names_reach_the_terminal_escaped(tmp_path, capsys):
    from grading_cli import run_cli

    klass = tmp_path / "class"
    evil = "\x1b[2J\x1b]0;owned\x07\x1b[31mmallory\u202e"
    (klass / evil).mkdir(parents=True)
    (klass / evil / STRIDES).write_text("{not json")
    _grade_without_kernels(klass, tmp_path / "out", progress=True)
    err = capsys.readouterr().err
    assert "mallory" in err and "\x1b" not in err and "\x07" not in err and "\u202e" not in err
    assert "\\x1b[2J" in err
    r = run_cli("check", klass / evil / STRIDES, "--release", EXERCISES, "--sandbox", "none")
    assert "mallory" in r.stdout and "\x1b" not in r.stdout and "\u202e" not in r.stdout


def test_undecodable_bytes_keep_students_apart(tmp_path):
    import csv

    klass = tmp_path / "class"
    klass.mkdir()
    names = [b"st\xff", b"st\xfe", b"st\\xff"]  # the last one is the text an escape would show
    for raw in names:
        os.makedirs(os.path.join(os.fsencode(klass), raw))
        with open(os.path.join(os.fsencode(klass), raw, STRIDES.encode()), "w") as f:
            f.write("{not json")
    _grade_without_kernels(klass, tmp_path / "out")
    docs = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")]
    assert len(docs) == 3
    assert sorted(os.fsencode(d["student"]) for d in docs) == sorted(names)
    rows = list(csv.reader((tmp_path / "out" / "gradebook.csv").open(encoding="utf-8", newline="")))
    assert len(rows) == 4 and len({r[0] for r in rows[1:]}) == 3


def test_an_answer_cell_run_again_replaces_its_earlier_runs_inline():
    """A learner who fixes their answer and runs the cell again is judged on the fix; a later
    cell that rebinds the answer is still followed."""
    from tensorlab.grading.judge import latest_cells

    q = get("views.interleave")
    bad = "def interleave(x, r):\n    return x.repeat_interleave(r)\n"
    history = [*TEMPLATE, bad, "t = tensorlab.arange(3)\n", OK]
    assert rule_check(q, OK, latest_cells(history)) is None
    later = [*TEMPLATE, OK, "interleave = tensorlab.Tensor.repeat_interleave\n"]
    assert "repeat_interleave" in rule_check(q, OK, latest_cells(later))
    # a cell that did not parse never ran: it does not count
    assert rule_check(q, OK, [*TEMPLATE, "def interleave(x, r:\n", OK]) is None


def test_inline_check_reports_hostile_data_as_feedback(capsys):
    from tensorlab.grading import CheckFailed, check

    for question, answer in (
        ("xcorr.lecture_row", (2**1100, 0.0, 9.0, 6.0, 3.0, 0.0)),
        ("views.interleave", lambda x, r: 2**1100),
    ):
        with pytest.raises(CheckFailed):
            check(question, answer)
    assert "Traceback" not in capsys.readouterr().out


def test_the_time_budget_holds_in_a_worker_thread(monkeypatch):
    """Dask workers judge in threads: the budget is an asynchronous exception there."""
    import threading

    import tensorlab.grading.judge as judge

    monkeypatch.setattr(judge, "JUDGE_SECONDS", 1.0)
    empty = encode((np.zeros((10**6, 0)), np.zeros((5, 0))))
    out = []
    t = threading.Thread(
        target=lambda: out.append(judge_encoded(get("xcorr.experiment"), empty, 0))
    )
    t.start()
    t.join(30)
    assert out and out[0].status == "failed" and "within 1 s" in out[0].message
