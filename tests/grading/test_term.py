"""The term's pieces without a kernel: the late policy (hypothesis), overrides and written
scores applied to a grade file, the term files' errors, the graders' split and merge, the
learner's own error line, misconception credit and per-case weights, written cells in assign."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import nbformat
import pytest
from grading_cli import run_cli
from hypothesis import given
from hypothesis import strategies as st

from tensorlab.grading import term as T
from tensorlab.grading import written as W
from tensorlab.grading.errors import from_outputs, from_raised
from tensorlab.grading.records import verdict_record
from tensorlab.grading.verdict import Verdict

DAY = timedelta(days=1)


# ---------------------------------------------------------------------------- late policy
@pytest.mark.parametrize(
    ("late", "days"),
    [
        (timedelta(seconds=-1), 0),
        (timedelta(0), 0),
        (timedelta(seconds=1), 1),
        (DAY, 1),
        (DAY + timedelta(seconds=1), 2),
        (timedelta(hours=49), 3),
    ],
)
def test_started_days_late(late, days):
    assert T.LatePolicy(per_day=0.1).penalty(late, 10)[0] == days


def test_policy_examples():
    p = T.LatePolicy(per_day=0.1, cap=0.25)
    assert p.penalty(timedelta(hours=1), 6) == (1, 0.6)
    assert p.penalty(timedelta(days=5), 6) == (5, 1.5)  # capped at 25% of 6
    assert T.LatePolicy(zero=True).penalty(timedelta(minutes=1), 7) == (1, 7.0)
    grace = T.LatePolicy(per_day=0.5, grace_minutes=30)
    assert grace.penalty(timedelta(minutes=29), 4) == (0, 0.0)
    assert grace.penalty(timedelta(minutes=31), 4) == (1, 2.0)


@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.integers(-(10**7), 10**7),
    st.integers(0, 10**6),
    st.floats(0, 100),
)
def test_penalty_bounded_and_monotone(per_day, cap, seconds, more, top):
    p = T.LatePolicy(per_day=per_day, cap=cap)
    days, lost = p.penalty(timedelta(seconds=seconds), top)
    assert 0 <= lost <= cap * top + 1e-3 and days >= 0
    assert (days == 0) == (seconds <= 0)
    assert p.penalty(timedelta(seconds=seconds + more), top)[1] >= lost


# ---------------------------------------------------------------------------- final()
def _doc(points=(1.0, 0.0), maxes=(2.0, 3.0), submitted="2026-01-02T00:00:00Z"):
    qs = {
        f"q{i}": {"status": "failed", "points": p, "max_points": m}
        for i, (p, m) in enumerate(zip(points, maxes))
    }
    qs["w"] = {"status": "needs_grading", "points": 0.0, "max_points": 4.0, "answer": "x"}
    sub = {
        "notebook": "01.ipynb",
        "status": "graded",
        "score": sum(points),
        "max_score": sum(maxes) + 4,
        "questions": qs,
        "submitted_at": submitted,
        "submitted_from": "lms",
    }
    return {"student": "ann", "file": "ann.json", "score": sub["score"], "max_score": 9.0,
            "lost": 0.0, "submissions": [sub]}  # fmt: skip


def test_final_applies_each_decision_and_recomputes_totals():
    term = T.Term(
        overrides=[
            T.Override("ann", "q0", "5", "extra credit", "P", "t"),  # above the max of 2
            T.Override("ann", "q1", "excused", "ill", "P", "t"),
            T.Override("ann", "w", "-1", "late page", "P", "t"),
        ],
        written={("ann", "w"): {"points": 3.0, "comment": "good", "grader": "g1", "when": "t"}},
        due={"01.ipynb": datetime(2026, 1, 1, tzinfo=timezone.utc)},
        policy=T.LatePolicy(per_day=0.1),
    )
    doc = _doc()
    out = T.final(doc, term)
    q = out["submissions"][0]["questions"]
    assert q["q0"]["points"] == 5 and q["q0"]["override"]["graded_points"] == 1
    assert q["q1"]["excused"] and q["q1"]["max_points"] == 0
    assert q["w"]["status"] == "scored" and q["w"]["points"] == 2  # 3 written, then -1
    # 5 + 0 + 2 = 7 of 2 + 0 + 4 = 6, then 1 day late: 10% of 6 = 0.6
    assert out["submissions"][0]["late"]["days_late"] == 1
    assert out["score"] == pytest.approx(6.4) and out["max_score"] == 6
    assert doc["score"] == 1.0  # the grade file itself is left as it was


def test_the_last_override_counts():
    term = T.Term(
        overrides=[
            T.Override("ann", "q0", "2", "a", "P", "t1"),
            T.Override("ann", "q0", "+0.5", "b", "P", "t2"),
        ]
    )
    assert T.final(_doc(), term)["submissions"][0]["questions"]["q0"]["points"] == 1.5


def test_written_scores_are_capped_at_the_question_maximum():
    term = T.Term(written={("ann", "w"): {"points": 9.0, "comment": "", "grader": "", "when": ""}})
    assert T.final(_doc(), term)["submissions"][0]["questions"]["w"]["points"] == 4


# ---------------------------------------------------------------------------- term files
@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("overrides.csv", "student,question,points,why,by,when\nann,q,abc,x,y,z\n", "line 2"),
        ("overrides.csv", "student,question,points,why,by,when\nann,q,inf,x,y,z\n", "finite"),
        ("overrides.csv", "student,question,points,why,by,when\nann,q,3,,y,z\n", "why"),
        ("overrides.csv", "student,points\nann,3\n", "no column question"),
        ("written.csv", "student,question,points,comment,grader,when\nann,w,nan,,,\n", ">= 0"),
        ("late.json", '{"due": {"a.ipynb": "2026-11-20T23:59"}}', "no time zone"),
        ("late.json", '{"due": {}, "policy": {"per_day": 2}}', "fractions"),
        ("late.json", "[1,", "not valid JSON"),
        ("extensions.csv", "student,notebook,due,why,by,when\nann,*,tomorrow,x,y,z\n", "ISO"),
    ],
)
def test_malformed_term_files_are_named_with_their_line(tmp_path, name, text, words):
    (tmp_path / name).write_text(text)
    with pytest.raises(T.TermError, match=words) as e:
        T.load_term(tmp_path)
    assert name in str(e.value)


def test_submission_time_prefers_the_lms_and_falls_back_to_mtime(tmp_path):
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    import os

    os.utime(nb, (86400, 86400))
    assert T.submission_time(nb, tmp_path) == ("1970-01-02T00:00:00Z", "mtime")
    meta = {"submitted_at": "2026-03-01T10:00:00+01:00", "lms": "moodle"}
    (tmp_path / T.SUBMISSION_FILE).write_text(json.dumps(meta))
    assert T.submission_time(nb, tmp_path) == ("2026-03-01T09:00:00Z", "lms")
    (tmp_path / T.SUBMISSION_FILE).write_text('{"submitted_at": "yesterday"}')
    assert T.submission_time(nb, tmp_path)[1] == "mtime"  # unreadable: the file's time


# ---------------------------------------------------------------------------- graders
@given(st.lists(st.text(min_size=1), unique=True, max_size=40), st.integers(1, 7))
def test_split_is_a_partition_in_near_equal_blocks(students, n):
    blocks = W.split(students, n)
    assert len(blocks) == n
    assert sorted(s for b in blocks for s in b) == sorted(students)
    sizes = [len(b) for b in blocks]
    assert max(sizes) - min(sizes) <= 1


def _graded_dir(tmp_path: Path) -> Path:
    out = tmp_path / "out"
    out.mkdir()
    for student in ("ann", "bob"):
        doc = _doc()
        doc["student"], doc["file"] = student, f"{student}.json"
        (out / f"{student}.json").write_text(json.dumps(doc))
    (out / T.QUESTIONS_FILE).parent.mkdir()
    (out / T.QUESTIONS_FILE).write_text(json.dumps({"questions": {}}))
    return out


def _sheet(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["file", "question", "points", "comment"])
        w.writerows([(a, b, c, "") for a, b, c in rows])
    return path


def test_merge_checks_every_score(tmp_path):
    out = _graded_dir(tmp_path)
    bad = [
        ([("ann.json", "w", "5")], "between 0 and 4"),
        ([("zed.json", "w", "1")], "no grade file"),
        ([("ann.json", "q0", "1")], "no written answer"),
        ([("ann.json", "w", "one")], "not a number"),
    ]
    for rows, words in bad:
        with pytest.raises(T.TermError, match=words):
            W.merge(out, [_sheet(tmp_path / "s.csv", rows)])
    a = _sheet(tmp_path / "a.csv", [("ann.json", "w", "1")])
    b = _sheet(tmp_path / "b.csv", [("ann.json", "w", "2")])
    with pytest.raises(T.TermError, match="scored 2 here and 1"):
        W.merge(out, [a, b])
    assert not (out / T.WRITTEN_FILE).exists()  # nothing half-merged
    assert W.merge(out, [a, _sheet(tmp_path / "c.csv", [("bob.json", "w", "3")])]) == 2
    book = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert book["ann"]["w"] == "1" and book["bob"]["w"] == "3"
    assert W.merge(out, [_sheet(tmp_path / "d.csv", [("ann.json", "w", "4")])]) == 1
    book = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert book["ann"]["w"] == "4" and book["bob"]["w"] == "3"  # a later merge replaces


def test_override_command_refuses_what_it_cannot_apply(tmp_path):
    out = _graded_dir(tmp_path)
    base = ("override", out)
    r = run_cli(*base, "zed", "q0", "--points", "1", "--why", "x", "--by", "y")
    assert r.returncode == 2 and "no grade file for student 'zed'" in r.stderr
    r = run_cli(*base, "ann", "nope", "--points", "1", "--why", "x", "--by", "y")
    assert r.returncode == 2 and "no question 'nope'" in r.stderr
    r = run_cli(*base, "ann", "q0", "--points", "-1", "--why", "x", "--by", "y")
    assert r.returncode == 2 and "--add" in r.stderr  # a negative score is not a score
    r = run_cli(*base, "ann", "q0", "--points", "1", "--by", "y")
    assert r.returncode == 2  # --why is required
    assert not (out / T.OVERRIDES_FILE).exists()
    r = run_cli(*base, "ann", "q0", "--add", "2", "--why", "regrade", "--by", "TA")
    assert r.returncode == 0, r.stderr
    row = list(csv.DictReader((out / T.OVERRIDES_FILE).open()))[0]
    assert (row["points"], row["why"], row["by"]) == ("+2", "regrade", "TA")
    datetime.fromisoformat(row["when"].replace("Z", "+00:00"))  # when: an ISO time
    page = (out / "feedback" / "ann.html").read_text()
    assert "Changed by" in page and "regrade" in page


# ---------------------------------------------------------------------------- errors
def test_the_learners_line_is_read_from_their_own_source():
    from tensorlab.grading.encode import decode, encode_raised

    src = "def f(x):\n    y = 1\n    return x / 0\n"
    code = compile(src + "f(1)\n", "/tmp/ipykernel_7/123.py", "exec")
    try:
        exec(code, {})
    except ZeroDivisionError as e:
        raised = decode(encode_raised(e))
    assert (raised.line, raised.function, raised.first) == (3, "f", 1)
    assert from_raised([src], raised) == {
        "type": "ZeroDivisionError",
        "lineno": 3,
        "line": "return x / 0",
    }
    # a frame the answer cell does not define (another cell's helper): the type only
    assert from_raised(["def g(x):\n    return x\n"], raised) == {"type": "ZeroDivisionError"}


def test_a_cells_own_error_line_from_its_traceback():
    tb = [
        "\x1b[31m---------------------------------------------------------------\x1b[0m",
        "Cell \x1b[0;32mIn[4], line 2\x1b[0m\n      1 x = 1\n----> 2 y = x + 'a'",
        "File \x1b[0;32m/usr/lib/python3/site-packages/numpy/x.py:9\x1b[0m, in f",
    ]
    out = [{"output_type": "error", "ename": "TypeError", "evalue": "no", "traceback": tb}]
    assert from_outputs("x = 1\ny = x + 'a'\n", out) == {
        "type": "TypeError",
        "lineno": 2,
        "line": "y = x + 'a'",
    }


# ---------------------------------------------------------------------------- credit, weights
def test_misconception_credit_and_weights_in_the_record():
    from tensorlab.grading.model import Misconception

    m = Misconception("flip", "flipped", credit=0.5)
    v = Verdict("q", "failed", "values", "no", m, n_cases=4, n_passed=1)
    rec = verdict_record(v, 3.0)
    assert rec["points"] == 1.5 and rec["misconception_credit"] == 0.5
    # per-case weights: cases 0 and 2 failed of weights 1, 2, 3, 4 -> 6 of 10
    v = Verdict("q", "failed", "values", "no", n_cases=4, n_passed=2)
    v.details["failed_cases"] = [0, 2]
    assert verdict_record(v, 5.0, True, weights=[1, 2, 3, 4])["points"] == 3.0
    assert verdict_record(v, 5.0, True)["points"] == 2.5  # unweighted: 2 of 4
    assert verdict_record(Verdict("q", "passed"), 5.0, True, weights=[1, 2])["points"] == 5


@pytest.mark.parametrize("credit", [1.0, -0.1, float("nan"), "half"])
def test_misconception_credit_must_be_a_fraction(credit):
    from tensorlab.grading.authoring import misconception

    with pytest.raises((ValueError, TypeError), match="credit"):
        misconception("k", "m", answer=1, credit=credit)


def test_question_refuses_partial_on_a_value_and_weights_without_partial():
    from tensorlab.grading.authoring import question

    with pytest.raises(ValueError, match="value question has none"):
        question("x.v", name="v", kind="value", partial=True)
    with pytest.raises(ValueError, match="need partial=True"):
        question("x.f", name="f", public=[(1,)], weights=[1])


# ---------------------------------------------------------------------------- assign
def _solution(tmp_path: Path, cell) -> Path:
    from nbformat.v4 import new_notebook

    nb = new_notebook()
    nb.cells.append(cell)
    folder = tmp_path / "sol"
    folder.mkdir()
    nbformat.write(nb, folder / "01_x.ipynb")
    return folder


def test_a_written_cell_becomes_your_answer_here(tmp_path):
    from nbformat.v4 import new_markdown_cell

    from tensorlab.grading.assign import assign

    c = new_markdown_cell("Intro kept.\n### BEGIN SOLUTION\nThe model answer.\n### END SOLUTION")
    c.metadata["tensorlab"] = {"role": "written", "question": "x.why", "points": 3,
                               "rubric": ["clear", {"points": 2, "text": "correct"}]}  # fmt: skip
    release = assign(_solution(tmp_path, c), tmp_path / "ex")
    info = release.questions["x.why"]
    assert (info.kind, info.points, info.assessment) == ("written", 3.0, "written")
    assert info.rubric[1] == {"points": 2, "text": "correct"}
    text = (tmp_path / "ex" / "01_x.ipynb").read_text()
    assert "model answer" not in text and "YOUR ANSWER HERE" in text and "Intro kept." in text
    assert "rubric" not in text  # the rubric stays with the graders
    assert "3 points" in text and "scored by a person" in text


@pytest.mark.parametrize(
    ("cell_type", "meta", "words"),
    [
        ("code", {"role": "written", "question": "x.w"}, "must be a markdown cell"),
        ("markdown", {"role": "written"}, "needs a 'question' id"),
        ("markdown", {"role": "written", "question": "x.w", "points": -1}, "number >= 0"),
        ("markdown", {"role": "written", "question": "x.w", "rubric": "be good"}, "rubric"),
        ("markdown", {"role": "solution", "question": "x.w"}, "the roles are answer, check"),
    ],
)
def test_assign_refuses_malformed_written_cells(tmp_path, cell_type, meta, words):
    from nbformat.v4 import new_code_cell, new_markdown_cell

    from tensorlab.grading.assign import AssignError, assign

    c = (new_code_cell if cell_type == "code" else new_markdown_cell)("text")
    c.metadata["tensorlab"] = meta
    with pytest.raises(AssignError, match=words):
        assign(_solution(tmp_path, c), tmp_path / "ex")


# ---------------------------------------------------------------------------- small things
def test_a_wrong_name_says_the_solution_defines_no_such_name(tmp_path):
    from nbformat.v4 import new_code_cell

    from tensorlab.grading.assign import AuthoringError, assign

    nb = nbformat.v4.new_notebook()
    answer = new_code_cell(
        "def same_pad(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION"
    )
    answer.metadata["tensorlab"] = {"role": "answer", "question": "x.pad"}
    decl = new_code_cell(
        "from tensorlab.grading.authoring import question\n"
        'question("x.pad", name="same_padd", public=[(1,)])'
    )
    decl.metadata["tensorlab"] = {"role": "question", "question": "x.pad"}
    nb.cells += [answer, decl]
    (tmp_path / "sol").mkdir()
    nbformat.write(nb, tmp_path / "sol" / "01_x.ipynb")
    with pytest.raises(AuthoringError, match="defines no `same_padd`"):
        assign(tmp_path / "sol", tmp_path / "ex")


def test_grade_without_release_says_to_pass_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "class").mkdir()
    r = run_cli("grade", "class", "--out", "out", "--sandbox", "none")
    assert r.returncode == 2 and "pass --release DIR" in r.stderr
    assert "run `tensorlab assign" not in r.stderr


def test_grading_an_authored_course_needs_its_solutions(tmp_path):
    import shutil

    from tensorlab.grading.assign import assign

    solutions = Path(__file__).parents[2] / "tensorlab" / "examples" / "authoring" / "solutions"
    assign(solutions, tmp_path / "ex")  # not beside a folder named solutions
    (tmp_path / "class" / "ann").mkdir(parents=True)
    shutil.copy(tmp_path / "ex" / "01_my_questions.ipynb", tmp_path / "class" / "ann")
    args = ("grade", tmp_path / "class", "--out", tmp_path / "out", "--sandbox", "none")
    r = run_cli(*args, "--release", tmp_path / "ex")
    assert r.returncode == 1 and "pass --solutions DIR" in r.stderr
    assert not (tmp_path / "out").exists()
    release = json.loads((tmp_path / "ex" / "release.json").read_text())
    assert str(solutions) not in json.dumps(release)  # learners never get the path


def test_the_progress_line_shows_the_notebooks_own_time():
    import io

    from tensorlab.grading.grade import Progress

    stream = io.StringIO()
    p = Progress(2, stream=stream)
    p.update(
        {"student": "ann", "notebook": "a.ipynb", "score": 1, "max_score": 2, "duration_s": 2.5}
    )
    assert "ann/a.ipynb: 1/2 in 2.5s (" in stream.getvalue()


def test_questions_in_the_release_order_on_every_page():
    from tensorlab.grading.pages import student_page

    qs = {q: {"status": "passed", "points": 1, "max_points": 1} for q in ("a.z", "b.y", "c.x")}
    doc = {"student": "ann", "score": 3, "max_score": 3, "submissions": [
        {"notebook": "n.ipynb", "score": 3, "max_score": 3, "questions": qs}]}  # fmt: skip
    info = {"c.x": {"title": "Third"}, "a.z": {}, "b.y": {"title": "Second"}}
    page = student_page(doc, set(), info).decode()
    assert page.index("Third") < page.index("a.z") < page.index("Second")


def test_the_answers_page_shows_each_answer_escaped(tmp_path):
    out = _graded_dir(tmp_path)
    doc = json.loads((out / "ann.json").read_text())
    doc["submissions"][0]["questions"]["w"]["answer"] = "<script>alert(1)</script> my answer"
    (out / "ann.json").write_text(json.dumps(doc))
    assert W.write_page(out, tmp_path / "answers.html") == 2
    page = (tmp_path / "answers.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; my answer" in page and "<script" not in page


@pytest.mark.parametrize(
    ("rec", "shown", "not_shown"),
    [
        (  # a timeout is the learner's own: said as it is, never "failed at the checks stage"
            {"status": "timeout", "message": "the answer cell did not finish within the time limit"},
            "did not finish within the time limit",
            "checks stage",
        ),
        (  # their cell raised as it ran: type, message and their line
            {"status": "error", "message": "the answer cell raised TypeError: bad operand",
             "error": {"type": "TypeError", "lineno": 2, "line": "y = x + 'a'"}},
            "line 2:  y = x + 'a'",
            "runs stage",
        ),
        (  # their function raised on a hidden input: the type and line, never the message
            {"status": "failed", "stage": "runs", "cases": 9, "cases_passed": 1,
             "message": "your function raised IndexError: index 7 is out of bounds for size 5",
             "error": {"type": "IndexError", "lineno": 3, "line": "return x[7]"}},
            "raised IndexError on an input (1 of 9 inputs pass)",
            "out of bounds",
        ),
        (  # a value at a hidden input stays withheld
            {"status": "failed", "stage": "values", "message": "expected 3.25, yours 4.5"},
            "failed at the values stage",
            "3.25",
        ),
    ],
)  # fmt: skip
def test_feedback_shows_the_learners_own_error_never_a_hidden_value(rec, shown, not_shown):
    import html
    import re

    from tensorlab.grading.pages import student_page

    rec = {"points": 0, "max_points": 1, **rec}
    doc = {"student": "ann", "score": 0, "max_score": 1, "submissions": [
        {"notebook": "n.ipynb", "score": 0, "max_score": 1, "questions": {"q": rec}}]}  # fmt: skip
    page = html.unescape(re.sub(r"<[^>]+>", " ", student_page(doc, {"q"}).decode()))
    assert shown in page and not_shown not in page


def test_a_changed_answer_is_graded_again_never_given_the_old_score(tmp_path):
    out = _graded_dir(tmp_path)
    W.merge(out, [_sheet(tmp_path / "a.csv", [("ann.json", "w", "3")])])
    book = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert book["ann"]["w"] == "3"
    doc = json.loads((out / "ann.json").read_text())  # a regrade of a resubmission
    doc["submissions"][0]["questions"]["w"]["answer"] = "a new answer"
    (out / "ann.json").write_text(json.dumps(doc))
    T.refresh(out)
    book = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert book["ann"]["w"] == "0"
    assert "changed after" in (out / "feedback" / "ann.html").read_text()
    paths, n = W.write_sheets(out, tmp_path / "sheets")
    rows = list(csv.DictReader(paths[0].open()))
    assert n == 2 and {r["file"] for r in rows} == {"ann.json", "bob.json"}
    assert [r["points"] for r in rows if r["file"] == "ann.json"] == [""]


_POINTS = st.one_of(
    st.floats(0, 10).map(lambda x: f"{x:g}"),
    st.floats(-10, 10).map(lambda x: f"{x:+g}"),
    st.just("excused"),
)


@given(
    st.lists(st.tuples(st.floats(0, 5), st.floats(0.5, 5)), min_size=1, max_size=5),
    st.lists(st.tuples(st.integers(0, 4), _POINTS), max_size=6),
    st.integers(-3, 10),
)
def test_final_totals_are_the_sum_of_their_parts(questions, overrides, days_late):
    qs = {
        f"q{i}": {"status": "failed", "points": min(p, m), "max_points": m}
        for i, (p, m) in enumerate(questions)
    }
    due = datetime(2026, 1, 10, tzinfo=timezone.utc)
    sub = {"notebook": "n.ipynb", "status": "graded", "questions": qs,
           "submitted_at": T.iso(due + timedelta(days=days_late, seconds=1))}  # fmt: skip
    doc = {"student": "ann", "submissions": [sub]}
    term = T.Term(
        overrides=[T.Override("ann", f"q{i}", p, "w", "b", "t") for i, p in overrides],
        due={"n.ipynb": due},
        policy=T.LatePolicy(per_day=0.1, cap=0.5),
    )
    out = T.final(doc, term)
    s = out["submissions"][0]
    points = sum(r["points"] for r in s["questions"].values())
    top = sum(r["max_points"] for r in s["questions"].values())
    assert all(r["points"] >= 0 for r in s["questions"].values())
    assert s["max_score"] == pytest.approx(top) and out["max_score"] == pytest.approx(top)
    assert 0 <= s["score"] <= points + 1e-9
    assert s["score"] == pytest.approx(max(0.0, points - s["late"]["penalty"]), abs=1e-3)
    days = days_late + 1 if days_late >= 0 else 0  # started days after the due time
    assert s["late"]["days_late"] == days
    lost = min(0.5, 0.1 * days) * top
    assert s["late"]["penalty"] == pytest.approx(min(points, lost), abs=1e-3)
    assert out["score"] == s["score"]
