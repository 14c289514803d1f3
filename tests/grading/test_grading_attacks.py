"""Batch grading against wrong, broken and hostile submissions (real answer processes).

One grading run (module fixture, 2 workers) grades the class of ``grading_class.SCENARIOS``;
the tests then read the grade files. Each adversarial student answers most questions correctly
and attacks one or two, so the tests also show that one bad answer never sinks the rest of a
notebook, nor one bad notebook the rest of the class.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
from grading_class import (
    EXERCISES,
    SCENARIOS,
    STRIDES,
    VIEWS,
    grade_class,
    questions,
    student_doc,
    submission,
)
from grading_cli import run_cli

pytest.importorskip("nbclient")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Grade the class once; (out_dir, summary, submissions)."""
    base = tmp_path_factory.mktemp("attacks")
    subs = base / "submissions"
    paths = []
    for student, (nb, replace, mutate) in SCENARIOS.items():
        p = subs / student / nb
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(submission(nb, replace, mutate=mutate), indent=1))
        paths.append(p)
    broken = subs / "broken" / STRIDES
    broken.parent.mkdir(parents=True)
    broken.write_text('{"cells": [{"cell_type": "code", "source": ')
    paths.append(broken)
    return grade_class(subs, paths, base / "out")


def test_nobody_is_lost_and_the_gradebook_has_everyone(graded):
    out, summary, _ = graded
    assert not summary["grader_errors"]
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert set(rows) == {"broken", *SCENARIOS}
    # students who only submitted 04_strides get "missing" for the class's other notebook
    loop = student_doc(out, "loop")
    assert [s["notebook"] for s in loop["submissions"] if s["status"] == "missing"] == [VIEWS]
    assert not any(p.name.startswith(".") for p in out.iterdir()), "temporary files left"


def test_submissions_are_never_modified(graded):
    _, _, before = graded
    for p, (digest, mtime) in before.items():
        assert hashlib.sha256(p.read_bytes()).hexdigest() == digest
        assert p.stat().st_mtime_ns == mtime


def _points(qs: dict) -> dict:
    return {qid: q["points"] for qid, q in qs.items()}


def test_infinite_loops_time_out_and_the_rest_is_graded(graded):
    qs = questions(graded[0], "loop")
    assert qs["strides.transpose"]["status"] == "timeout"
    assert qs["strides.contiguous"]["status"] == "timeout"
    for qid in ("strides.storage_index", "strides.permute", "strides.slice", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])


def test_memory_bombs_are_contained(graded):
    qs = questions(graded[0], "membomb")
    assert qs["strides.permute"]["status"] == "error"
    assert "ran out of memory" in qs["strides.permute"]["message"]
    assert qs["strides.storage_index"]["status"] == "failed"
    message = qs["strides.storage_index"]["message"]  # it built an array: the rule says so
    assert "MemoryError" in message or "`np.ones`" in message, message
    assert qs["strides.permute"]["points"] == qs["strides.storage_index"]["points"] == 0
    for qid in ("strides.contiguous", "strides.transpose", "strides.slice", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])


def test_os_exit_kills_only_its_own_question(graded):
    out = graded[0]
    qs = questions(out, "exits")
    assert qs["strides.slice"]["status"] == "kernel_died"
    assert qs["strides.contiguous"]["status"] == "kernel_died"
    for qid in ("strides.storage_index", "strides.transpose", "strides.permute", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])
    (sub,) = [s for s in student_doc(out, "exits")["submissions"] if s["notebook"] == STRIDES]
    assert sub["restarts"] >= 2


def test_an_answer_cell_that_raises_names_the_learners_own_line(graded):
    """Recorded by the one interpreter a notebook runs in: the error's type and message, and
    the line of the learner's cell it came from (the cell's outermost frame, as IPython shows
    it; a syntax error's own line), read from the source the grader spliced in."""
    qs = questions(graded[0], "raises")
    transpose, permute, sliced = (qs[f"strides.{k}"] for k in ("transpose", "permute", "slice"))
    assert transpose["status"] == "error" and transpose["points"] == 0
    assert transpose["message"] == (
        'the answer cell raised TypeError: can only concatenate tuple (not "str") to tuple'
    )
    assert transpose["error"] == {
        "type": "TypeError",
        "lineno": 2,
        "line": "transposed_layout = shape + 'a'",
    }
    assert permute["status"] == "error" and permute["error"]["type"] == "SyntaxError"
    assert permute["error"]["lineno"] == 1
    assert permute["error"]["line"] == "def permuted_layout(shape, dims:"
    assert sliced["message"] == "the answer cell raised ValueError: boom"
    assert sliced["error"] == {"type": "ValueError", "lineno": 5, "line": "_boom()"}
    for qid in ("strides.contiguous", "strides.storage_index", "strides.expand"):
        assert qs[qid]["status"] == "passed", (qid, qs[qid])


def test_patched_check_and_edited_check_cells_gain_nothing(graded):
    qs = questions(graded[0], "patched_check")
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.transpose"]["misconception"] == "fresh_strides"
    assert sum(q["points"] for q in qs.values()) == 5  # the other answers are right


def test_patched_numpy_and_tensorlab_gain_nothing(graded):
    qs = questions(graded[0], "patched_numpy")
    assert qs["strides.contiguous"]["status"] == "failed"
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.contiguous"]["points"] == qs["strides.transpose"]["points"] == 0


def test_always_true_eq_gains_nothing(graded):
    qs = questions(graded[0], "always_equal")
    for qid in ("strides.transpose", "strides.permute", "strides.storage_index"):
        assert qs[qid]["status"] == "failed", (qid, qs[qid])
        assert qs[qid]["points"] == 0
    assert "Anything" in qs["strides.transpose"]["message"]


def test_forged_outputs_gain_nothing(graded):
    qs = questions(graded[0], "forger")
    assert qs["strides.transpose"]["status"] == "failed"
    assert qs["strides.transpose"]["points"] == 0


def test_deleted_cells(graded):
    qs = questions(graded[0], "deleted")
    assert qs["strides.expand"]["status"] == "missing"
    assert qs["strides.expand"]["message"]
    assert sum(q["points"] for q in qs.values()) == 4  # (4.3 is a formative prediction: 0)


def test_misconception_reaches_the_grade_file(graded):
    qs = questions(graded[0], "misconceived")
    t = qs["strides.transpose"]
    assert t["status"] == "failed" and t["stage"] == "values"
    assert (
        t["misconception"] == "fresh_strides" and "swaps the strides" in t["misconception_message"]
    )


def test_a_broken_rule_scores_zero_and_is_named(graded):
    """Exercise 5.5 says "using only view and repeat": right values through repeat_interleave
    score 0 for that question, with the rule named; the rest of the notebook is unaffected."""
    out = graded[0]
    qs = questions(out, "rule_breaker", VIEWS)
    q = qs["views.interleave"]
    assert q["status"] == "failed" and q["stage"] == "rules" and q["points"] == 0, q
    assert "repeat_interleave`" in q["message"] and "view and repeat" in q["message"]
    assert "in `_spread`" in q["message"]  # the helper it went through
    assert q["misconception"] == "forbidden"
    others = [v for k, v in qs.items() if k != "views.interleave"]
    assert others and all(v["status"] == "passed" for v in others)
    kept = questions(out, "rule_keeper", VIEWS)
    assert all(v["status"] == "passed" for v in kept.values()), kept
    row = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert row["rule_breaker"]["views.interleave"] == "0"
    assert row["rule_keeper"]["views.interleave"] == "1"


def test_invalid_json_is_recorded(graded):
    out = graded[0]
    (sub,) = [s for s in student_doc(out, "broken")["submissions"] if s["notebook"] == STRIDES]
    assert sub["status"] == "error" and "not a valid notebook" in sub["reason"]
    assert {q["status"] for q in sub["questions"].values()} == {"error"}
    assert sub["score"] == 0


def _cli(*args):
    return run_cli(*args)


def test_cli_check_prints_the_verdicts(graded):
    """``tensorlab check`` grades notebooks in a kernel and prints each question (two at once:
    one kernel process start for both)."""
    path = next(Path(p) for p in graded[2] if p.parent.name == "misconceived")
    rule = next(Path(p) for p in graded[2] if p.parent.name == "rule_breaker")
    r = _cli("check", str(path), str(rule), "--release", str(EXERCISES), "--cell-timeout", "20")
    assert r.returncode == 1, r.stderr  # questions failed: exit 1 (0 only when all pass)
    mine, theirs = r.stdout.split(f"{rule}:")
    assert "5/5" in mine  # 4.3 is a formative prediction (0 points), failed here
    assert "✗ strides.transpose" in mine and "✓ strides.slice" in mine
    assert "likely misconception: those are the strides a NEW contiguous tensor" in mine
    assert "✗ views.interleave" in theirs and "repeat_interleave`" in theirs
    assert "likely misconception: the exercise is to build repeat_interleave" in theirs
