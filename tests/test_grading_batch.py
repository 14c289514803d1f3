"""Batch grading end to end: real kernels, the released exercises, adversarial submissions.

One grading run (module fixture, 2 workers) grades the solutions, the blank exercises and a set
of hostile or broken submissions; the tests then read the grade files. Each adversarial student
answers most questions correctly and attacks one or two, so the tests also show that one bad
answer never sinks the rest of a notebook, nor one bad notebook the rest of the class.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest
from grading_cli import run_cli

import tensorlab
from tensorlab.grading.assign import load_release
from tensorlab.grading.grade import grade

pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = sorted(p.name for p in SOLUTIONS.glob("*.ipynb"))
STRIDES = "04_strides.ipynb"
VIEWS = "05_views.ipynb"


def _answers(notebook: str) -> dict[str, str]:
    nb = json.loads((SOLUTIONS / notebook).read_text())
    out = {}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            src = cell["source"]
            out[tl["question"]] = "".join(src) if isinstance(src, list) else src
    return out


def _submission(notebook: str, replace: dict[str, str] | None = None, *, mutate=None) -> dict:
    """The released exercise with the solution's answers, some replaced, optionally mutated."""
    nb = json.loads((EXERCISES / notebook).read_text())
    answers = {**_answers(notebook), **(replace or {})}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            cell["source"] = answers[tl["question"]]
    if mutate is not None:
        mutate(nb)
    return nb


def _drop(role: str, question: str | None = None):
    def mutate(nb):
        nb["cells"] = [
            c
            for c in nb["cells"]
            if not (
                c.get("metadata", {}).get("tensorlab", {}).get("role") == role
                and question in (None, c["metadata"]["tensorlab"].get("question"))
            )
        ]

    return mutate


def _edit_checks(nb):
    """Check cells rewritten to claim success, duplicated, and one that would kill the kernel."""
    cells = []
    for c in nb["cells"]:
        cells.append(c)
        if c.get("metadata", {}).get("tensorlab", {}).get("role") == "check":
            c["source"] = "print('passed!')\nimport os\nos._exit(0)"
            dup = copy.deepcopy(c)
            dup["id"] = c["id"] + "-copy"
            cells.append(dup)
    nb["cells"] = cells


TRANSPOSE_WRONG = "transposed_layout = ((4, 3, 2), (6, 2, 1), 0)\n"

SCENARIOS = {
    # student -> (notebook, answers replaced, mutation)
    "loop": (
        STRIDES,
        {
            "strides.transpose": "while True:\n    pass\n",
            "strides.contiguous": "def contiguous_strides(shape):\n    while True:\n        pass\n",
        },
        None,
    ),
    "membomb": (
        STRIDES,
        {
            # 4 GiB: fine without a cap on this machine class, refused under the 2 GiB cap
            "strides.permute": "import numpy as np\n\nblock = np.ones(2**29)\npermuted_layout = block\n",
            "strides.storage_index": (
                "import numpy as np\n\n\ndef storage_index(index, stride, offset):\n"
                "    return np.ones(10**11).sum()\n"
            ),
        },
        None,
    ),
    "exits": (
        STRIDES,
        {
            "strides.slice": "import os\n\nos._exit(3)\n",
            "strides.contiguous": "import os\n\n\ndef contiguous_strides(shape):\n    os._exit(0)\n",
        },
        None,
    ),
    "patched_check": (
        STRIDES,
        {
            "strides.transpose": (
                "import tensorlab\nimport tensorlab.grading\n\n"
                "tensorlab.check = tensorlab.grading.check = lambda *a, **k: None\n"
                + TRANSPOSE_WRONG
            ),
        },
        _edit_checks,
    ),
    "patched_numpy": (
        STRIDES,
        {
            "strides.contiguous": (
                "import base64\n\nimport numpy as np\n\n"
                "np.array_equal = np.allclose = np.isclose = lambda *a, **k: True\n"
                "np.testing.assert_array_equal = lambda *a, **k: None\n"
                "base64.b64encode = lambda *a, **k: b'AAAA'\n\n\n"
                "def contiguous_strides(shape):\n    return np.zeros(len(shape), dtype=int)\n"
            ),
            "strides.transpose": (
                "import tensorlab\n\ntensorlab.Tensor.stride = lambda self, *a: (6, 2, 1)\n"
                + TRANSPOSE_WRONG
            ),
        },
        None,
    ),
    "always_equal": (
        STRIDES,
        {
            "strides.transpose": (
                "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = object.__hash__\n\n\ntransposed_layout = Anything()\n"
            ),
            "strides.permute": (
                "class Tup(tuple):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = tuple.__hash__\n\n\npermuted_layout = Tup((1, 2, 3))\n"
            ),
            "strides.storage_index": (
                "class Int(int):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = int.__hash__\n\n\n"
                "def storage_index(index, stride, offset):\n    return Int(-1)\n"
            ),
        },
        None,
    ),
    "forger": (
        STRIDES,
        {
            "strides.transpose": (
                "from IPython.display import display\n\n"
                "fake = {'nonce': 'x', 'qid': 'strides.transpose', 'answer': {'t': 'int', 'v': 1}}\n"
                "display({'application/x.tensorlab-answer+json': fake}, raw=True)\n"
                'print(\'{"strides.transpose": "passed"}\')\n' + TRANSPOSE_WRONG
            ),
        },
        None,
    ),
    "deleted": (
        STRIDES,
        {},
        lambda nb: (_drop("check")(nb), _drop("answer", "strides.expand")(nb)),
    ),
    "misconceived": (STRIDES, {"strides.transpose": TRANSPOSE_WRONG}, None),
    # "using only view and repeat": right values, broken rule (and a helper to hide it)
    "rule_breaker": (
        VIEWS,
        {
            "views.interleave": (
                "def _spread(x, r):\n    return x.repeat_interleave(r)\n\n\n"
                "def interleave(x, r):\n    return _spread(x, r)\n"
            )
        },
        None,
    ),
    # the rule kept; the learner's own test in the cell may use repeat_interleave
    "rule_keeper": (
        VIEWS,
        {
            "views.interleave": (
                "def interleave(x, r):\n    return x.view(-1, 1).repeat(1, r).view(-1)\n\n\n"
                "t = tensorlab.arange(4)\nassert interleave(t, 3).equal(t.repeat_interleave(3))\n"
            )
        },
        None,
    ),
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade everything once; returns (out_dir, summary, submission paths)."""
    base = tmp_path_factory.mktemp("grading")
    subs = base / "submissions"
    paths = []
    for nb in NOTEBOOKS:
        for student, src in (("solution", SOLUTIONS), ("blank", EXERCISES)):
            p = subs / student / nb
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes((src / nb).read_bytes())
            paths.append(p)
    for student, (nb, replace, mutate) in SCENARIOS.items():
        p = subs / student / nb
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(_submission(nb, replace, mutate=mutate), indent=1))
        paths.append(p)
    broken = subs / "broken" / STRIDES
    broken.parent.mkdir(parents=True)
    broken.write_text('{"cells": [{"cell_type": "code", "source": ')
    paths.append(broken)
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths}
    out = base / "out"
    summary = grade(
        [str(subs)],
        out,
        EXERCISES,
        jobs=2,
        cell_timeout=5,
        timeout=150,
        memory=2 * 2**30,
        seed=1234,
        progress=False,
    )
    return out, summary, before


def _student(out: Path, student: str) -> dict:
    return json.loads((out / f"{student}.json").read_text())


def _questions(out: Path, student: str, notebook: str = STRIDES) -> dict:
    doc = _student(out, student)
    (sub,) = [s for s in doc["submissions"] if s["notebook"] == notebook]
    return sub["questions"]


def test_solutions_score_full_marks(graded):
    out, summary, _ = graded
    assert not summary["grader_errors"]
    doc = _student(out, "solution")
    n = len(load_release(EXERCISES)["questions"])
    assert doc["score"] == doc["max_score"] == n >= 30
    for sub in doc["submissions"]:
        assert sub["status"] == "graded" and sub["restarts"] == 0
        assert all(q["status"] == "passed" for q in sub["questions"].values()), sub["questions"]


def test_exercises_score_zero_and_only_not_attempted(graded):
    out, _, _ = graded
    doc = _student(out, "blank")
    assert doc["score"] == 0 and doc["max_score"] == len(load_release(EXERCISES)["questions"])
    for sub in doc["submissions"]:
        assert sub["restarts"] == 0
        statuses = {qid: q["status"] for qid, q in sub["questions"].items()}
        assert set(statuses.values()) == {"not_attempted"}, statuses


def test_grade_files_and_gradebook(graded):
    out, summary, before = graded
    doc = _student(out, "solution")
    assert doc["tensorlab_version"] == tensorlab.__version__
    assert doc["grader"]["seed"] == 1234
    for sub in doc["submissions"]:
        path = Path(sub["path"])
        assert sub["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    rows = list(csv.DictReader((out / "gradebook.csv").open()))
    by_student = {r["student"]: r for r in rows}
    assert set(by_student) == {"solution", "blank", "broken", *SCENARIOS}
    assert float(by_student["solution"]["score"]) == float(by_student["solution"]["max_score"])
    assert by_student["solution"]["views.flatten_hw"] == "1"
    assert by_student["blank"]["conv.convo2d"] == "0"
    # students who only submitted 04_strides get "missing" for the other notebooks
    loop = _student(out, "loop")
    missing = [s for s in loop["submissions"] if s["status"] == "missing"]
    assert len(missing) == len(NOTEBOOKS) - 1
    assert not any(p.name.startswith(".") for p in out.iterdir()), "temporary files left"


def test_submissions_are_never_modified(graded):
    _, _, before = graded
    for p, (digest, mtime) in before.items():
        assert hashlib.sha256(p.read_bytes()).hexdigest() == digest
        assert p.stat().st_mtime_ns == mtime


def _points(qs: dict) -> dict:
    return {qid: q["points"] for qid, q in qs.items()}


def test_infinite_loops_time_out_and_the_rest_is_graded(graded):
    qs = _questions(graded[0], "loop")
    assert qs["strides.transpose"]["status"] == "timeout"
    assert qs["strides.contiguous"]["status"] == "timeout"
    for qid in ("strides.storage_index", "strides.permute", "strides.slice", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])


def test_memory_bombs_are_contained(graded):
    qs = _questions(graded[0], "membomb")
    assert qs["strides.permute"]["status"] == "error"
    assert "ran out of memory" in qs["strides.permute"]["message"]
    assert qs["strides.storage_index"]["status"] == "failed"
    assert "MemoryError" in qs["strides.storage_index"]["message"]
    assert qs["strides.permute"]["points"] == qs["strides.storage_index"]["points"] == 0
    for qid in ("strides.contiguous", "strides.transpose", "strides.slice", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])


def test_os_exit_kills_only_its_own_question(graded):
    out = graded[0]
    qs = _questions(out, "exits")
    assert qs["strides.slice"]["status"] == "kernel_died"
    assert qs["strides.contiguous"]["status"] == "kernel_died"
    for qid in ("strides.storage_index", "strides.transpose", "strides.permute", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])
    (sub,) = [s for s in _student(out, "exits")["submissions"] if s["notebook"] == STRIDES]
    assert sub["restarts"] >= 2


def test_patched_check_and_edited_check_cells_gain_nothing(graded):
    qs = _questions(graded[0], "patched_check")
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.transpose"]["misconception"] == "fresh_strides"
    assert sum(q["points"] for q in qs.values()) == 5  # the other answers are right


def test_patched_numpy_and_tensorlab_gain_nothing(graded):
    qs = _questions(graded[0], "patched_numpy")
    assert qs["strides.contiguous"]["status"] == "failed"
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.contiguous"]["points"] == qs["strides.transpose"]["points"] == 0


def test_always_true_eq_gains_nothing(graded):
    qs = _questions(graded[0], "always_equal")
    for qid in ("strides.transpose", "strides.permute", "strides.storage_index"):
        assert qs[qid]["status"] == "failed", (qid, qs[qid])
        assert qs[qid]["points"] == 0
    assert "Anything" in qs["strides.transpose"]["message"]


def test_forged_outputs_gain_nothing(graded):
    qs = _questions(graded[0], "forger")
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.transpose"]["points"] == 0


def test_deleted_cells(graded):
    qs = _questions(graded[0], "deleted")
    assert qs["strides.expand"]["status"] == "missing"
    assert qs["strides.expand"]["message"]
    assert sum(q["points"] for q in qs.values()) == 5


def test_misconception_reaches_the_grade_file(graded):
    qs = _questions(graded[0], "misconceived")
    t = qs["strides.transpose"]
    assert t["status"] == "failed" and t["stage"] == "values"
    assert (
        t["misconception"] == "fresh_strides" and "swaps the strides" in t["misconception_message"]
    )


def test_a_broken_rule_scores_zero_and_is_named(graded):
    """Exercise 5.5 says "using only view and repeat": right values through repeat_interleave
    score 0 for that question, with the rule named; the rest of the notebook is unaffected."""
    out = graded[0]
    qs = _questions(out, "rule_breaker", VIEWS)
    q = qs["views.interleave"]
    assert q["status"] == "failed" and q["stage"] == "rules" and q["points"] == 0, q
    assert "`repeat_interleave`" in q["message"] and "view and repeat only" in q["message"]
    assert q["misconception"] == "forbidden"
    others = [v for k, v in qs.items() if k != "views.interleave"]
    assert others and all(v["status"] == "passed" for v in others)
    kept = _questions(out, "rule_keeper", VIEWS)
    assert all(v["status"] == "passed" for v in kept.values()), kept
    row = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert row["rule_breaker"]["views.interleave"] == "0"
    assert row["rule_keeper"]["views.interleave"] == "1"


def test_invalid_json_is_recorded(graded):
    out = graded[0]
    (sub,) = [s for s in _student(out, "broken")["submissions"] if s["notebook"] == STRIDES]
    assert sub["status"] == "error" and "not a valid notebook" in sub["reason"]
    assert {q["status"] for q in sub["questions"].values()} == {"error"}
    assert sub["score"] == 0


# ---------------------------------------------------------------------------- the command line
def _cli(*args):
    return run_cli(*args)


def test_cli_grade_broken_batch_exits_zero(tmp_path):
    """Broken submissions never make the grader fail (no kernel needed for these)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / STRIDES).write_text("not json at all")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "mystery.ipynb").write_text('{"cells": [], "metadata": {}}')
    r = _cli(
        "grade",
        str(tmp_path / "a"),
        str(tmp_path / "m" / "mystery.ipynb"),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(EXERCISES),
        "--quiet",
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "out" / "m.json").read_text())
    assert doc["submissions"][0]["status"] == "error"
    assert "which exercise" in doc["submissions"][0]["reason"]
    assert (tmp_path / "out" / "gradebook.csv").is_file()


def test_cli_check_prints_the_verdicts(graded):
    """``tensorlab check`` grades notebooks in a kernel and prints each question (two at once:
    one kernel process start for both)."""
    path = next(Path(p) for p in graded[2] if p.parent.name == "misconceived")
    rule = next(Path(p) for p in graded[2] if p.parent.name == "rule_breaker")
    r = _cli("check", str(path), str(rule), "--release", str(EXERCISES), "--cell-timeout", "20")
    assert r.returncode == 0, r.stderr
    mine, theirs = r.stdout.split(f"{rule}:")
    assert "5/6" in mine
    assert "✗ strides.transpose" in mine and "✓ strides.slice" in mine
    assert "likely misconception: those are the strides a NEW contiguous tensor" in mine
    assert "✗ views.interleave" in theirs and "`repeat_interleave`" in theirs
    assert "likely misconception: the exercise is to build repeat_interleave" in theirs


def test_cli_grade_fails_without_release(tmp_path):
    r = _cli(
        "grade",
        str(tmp_path),
        "--out",
        str(tmp_path / "out"),
        "--release",
        str(tmp_path / "nothing"),
    )
    assert r.returncode == 1
    assert "release.json" in r.stderr


def test_cli_grade_refuses_a_tampered_release(tmp_path):
    release = tmp_path / "release"
    shutil.copytree(EXERCISES, release)
    nb = release / STRIDES
    nb.write_text(nb.read_text().replace("YOUR CODE HERE", "your code here"))
    r = _cli("grade", str(tmp_path), "--out", str(tmp_path / "out"), "--release", str(release))
    assert r.returncode == 1
    assert "does not match release.json" in r.stderr


def test_cli_usage_errors():
    assert _cli("grade", "x").returncode == 2  # --out is required
    assert _cli("grade", "x", "--out", "y", "--memory", "lots").returncode == 2
    # `tensorlab start` is tested in tests/test_start.py
