"""An instructor's own questions: the shipped worked example assigned, checked, graded end to
end; what learners receive holds no reference; assign's validation names notebook and cell."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import nbformat
import numpy as np
import pytest
from grading_cli import run_cli

import tensorlab
from tensorlab.grading import authoring, registry
from tensorlab.grading.assign import assign

EXAMPLE = Path(tensorlab.__file__).parent / "examples" / "authoring" / "solutions"
NB = "01_my_questions.ipynb"
GOOD = {
    "example.repeat_rows": "def repeat_rows(x, n):\n    rows, cols = x.shape\n"
    "    return x.unsqueeze(1).expand(rows, n, cols).reshape(rows * n, cols)\n",
    "example.last_column": "def last_column(x):\n    return x[:, -1]\n",
}
TILED = "def repeat_rows(x, n):\n    return x.repeat(n, 1)\n"
COPIED = "def last_column(x):\n    return x[:, -1].clone()\n"
CHEAT = "def repeat_rows(x, n):\n    return x.repeat_interleave(n, 0)\n"
# wrong on the rows of the second half only: some inputs (n == 1, one row) still pass
HALF = (
    "def repeat_rows(x, n):\n    rows, cols = x.shape\n"
    "    if n == 1 or rows == 1:\n        return x.clone()\n    return x.repeat(n, 1)\n"
)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    base = tmp_path_factory.mktemp("authored")
    solutions = base / "solutions"
    shutil.copytree(EXAMPLE, solutions)
    assign(solutions, base / "exercises")
    return base


def _code_lines(nb_path: Path) -> set[str]:
    nb = json.loads(nb_path.read_text())
    lines = set()
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            lines |= {ln.strip() for ln in src.splitlines() if ln.strip()}
    return lines


def _learner_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.is_file()}


def test_what_learners_receive_holds_no_solution_line(released):
    """Every code line that exists only in the author's solutions (references, question cells,
    misconceptions, hidden-input generators) appears in no file assign gives learners."""
    exercises = released / "exercises"
    only_solution = _code_lines(released / "solutions" / NB) - _code_lines(exercises / NB)
    assert any("expand(rows, n, cols)" in ln for ln in only_solution)  # the reference
    assert any("x.repeat(n, 1)" in ln for ln in only_solution)  # a misconception
    assert any("rng.normal" in ln for ln in only_solution)  # the hidden inputs
    files = _learner_files(exercises)
    assert set(files) == {NB, "release.json", authoring.CHECKS_FILE}
    # (a line that is only a string literal, such as an id or a misconception's message, is
    # learner-facing text, not code)
    code = [ln for ln in only_solution if len(ln) > 3 and not re.fullmatch(r'"[^"]*",?', ln)]
    assert len(code) > 20
    for name, text in files.items():
        for line in code:
            assert line not in text, f"{name} holds the solution line {line!r}"


def test_no_hidden_expected_value_ships(released):
    """The learner's checks hold the public inputs only: the reference's outputs on the hidden
    inputs (drawn as the grader draws them) are nowhere in what learners receive."""
    from tensorlab.grading.encode import encode, encode_args

    found = authoring.load_code(
        authoring.notebook_code(nbformat.read(released / "solutions" / NB, as_version=4)), NB
    )
    checks = json.loads((released / "exercises" / authoring.CHECKS_FILE).read_text())
    text = "\n".join(_learner_files(released / "exercises").values())
    for q, _ in found:
        assert len(checks["questions"][q.id]["cases"]) == len(q.public) == 1
        for seed in (0, 1, 1234):
            cases = q.cases(np.random.default_rng(seed))[len(q.public) :]
            assert len(cases) >= 6
            for args in cases:
                table = encode_args(args, with_data=False)[1]
                out = encode(q.reference(*args), table)
                assert out["data"] not in text


def test_assign_is_deterministic_and_records_the_solutions(released, tmp_path):
    assign(released / "solutions", tmp_path)
    for name in (NB, "release.json", authoring.CHECKS_FILE):
        assert (tmp_path / name).read_bytes() == (released / "exercises" / name).read_bytes()
    manifest = json.loads((tmp_path / "release.json").read_text())
    # the instructor's folder is never written into what learners get (issue 35)
    assert "solutions" not in manifest["authored"]
    assert str(released) not in (tmp_path / "release.json").read_text()
    q = manifest["questions"]["example.repeat_rows"]
    assert q["partial"] is True and q["points"] == 2.0 and q["withheld"] is True
    ex = nbformat.read(tmp_path / NB, as_version=4)
    roles = [c.metadata.get("tensorlab", {}).get("role") for c in ex.cells]
    assert "question" not in roles and roles.count("check") == 2 and roles.count("answer") == 2


# ---------------------------------------------------------------------------- self-checks
@pytest.fixture
def learner(released, monkeypatch):
    """A learner's kernel: in the exercises folder, no instructor questions registered."""
    monkeypatch.chdir(released / "exercises")
    monkeypatch.delenv("TENSORLAB_GRADING", raising=False)
    monkeypatch.delenv("TENSORLAB_CHECKS", raising=False)
    monkeypatch.setattr(registry, "_authored", {})
    return released


def _define(src: str):
    ns: dict = {}
    exec(src, ns)  # noqa: S102
    return next(v for k, v in ns.items() if not k.startswith("__"))


def test_self_check_passes_the_reference_answer(learner):
    from tensorlab.grading import evaluate

    for qid, src in GOOD.items():
        v = evaluate(qid, _define(src))
        assert v.passed, (qid, v.message)


def test_self_check_names_misconceptions_and_rules(learner):
    from tensorlab.grading import evaluate

    v = evaluate("example.repeat_rows", _define(TILED))
    assert v.status == "failed" and v.misconception.key == "tiled"
    assert "unsqueeze" in v.misconception.detail  # the author's hint travels as data
    v = evaluate("example.last_column", _define(COPIED))
    assert v.status == "failed" and v.stage == "layout" and v.misconception.key == "copied"
    v = evaluate("example.repeat_rows", _define(CHEAT))
    assert v.status == "failed" and v.stage == "rules" and "repeat_interleave" in v.message


def test_inline_check_raises_with_feedback(learner, capsys):
    from tensorlab.grading import CheckFailed, check

    last_column = _define(COPIED)
    with pytest.raises(CheckFailed):
        check("example.last_column", last_column)
    assert "copy" in capsys.readouterr().out
    check("example.last_column", _define(GOOD["example.last_column"]))


def test_the_instructors_kernel_checks_with_the_full_reference(monkeypatch):
    """Running the solution notebook registers its questions in that kernel (hidden inputs
    too), so its own check cells pass there."""
    from tensorlab.grading import evaluate

    monkeypatch.setattr(registry, "_authored", {})
    monkeypatch.delenv("TENSORLAB_GRADING", raising=False)
    nb = nbformat.read(EXAMPLE / NB, as_version=4)
    ns: dict = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and "tensorlab.check" not in cell.source:
            exec(cell.source, ns)  # noqa: S102
    q = registry.get("example.repeat_rows")
    assert len(q.cases(np.random.default_rng(0))) == 9
    assert evaluate("example.repeat_rows", ns["repeat_rows"]).passed
    assert evaluate("example.repeat_rows", _define(TILED)).misconception.key == "tiled"


# ---------------------------------------------------------------------------- grading
def _submission(exercises: Path, answers: dict[str, str]) -> str:
    nb = json.loads((exercises / NB).read_text())
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer" and tl["question"] in answers:
            cell["source"] = answers[tl["question"]]
    return json.dumps(nb)


@pytest.fixture(scope="module")
def graded(released):
    from tensorlab.grading.grade import grade

    klass = released / "class"
    students = {
        "ann": GOOD,
        "bob": {"example.repeat_rows": TILED, "example.last_column": COPIED},
        "cy": {"example.repeat_rows": CHEAT},
        "dee": {**GOOD, "example.repeat_rows": HALF},
    }
    for student, answers in students.items():
        (klass / student).mkdir(parents=True)
        (klass / student / NB).write_text(_submission(released / "exercises", answers))
    out = released / "out"
    summary = grade([str(klass)], out, released / "exercises", jobs=2, seed=7, progress=False)
    return out, summary


def _questions(out: Path, student: str) -> dict:
    doc = json.loads((out / f"{student}.json").read_text())
    return doc["submissions"][0]["questions"]


def test_authored_questions_graded_end_to_end(graded):
    out, summary = graded
    assert summary["grader_errors"] == []
    ann = _questions(out, "ann")
    assert ann["example.repeat_rows"]["points"] == 2.0 and ann["example.last_column"]["points"] == 1
    assert ann["example.repeat_rows"]["cases"] == 9  # 1 public + 8 hidden
    bob = _questions(out, "bob")
    assert bob["example.repeat_rows"]["misconception"] == "tiled"
    assert "unsqueeze" in bob["example.repeat_rows"]["misconception_hint"]
    assert bob["example.last_column"]["misconception"] == "copied"
    assert bob["example.last_column"]["points"] == 0  # all or nothing without partial
    cy = _questions(out, "cy")["example.repeat_rows"]
    assert cy["status"] == "failed" and cy["stage"] == "rules" and cy["points"] == 0


def test_partial_credit_in_json_and_gradebook(graded):
    import csv

    out, _ = graded
    for student in ("bob", "dee"):
        rec = _questions(out, student)["example.repeat_rows"]
        assert rec["status"] == "failed" and rec["partial"] is True
        assert 0 < rec["cases_passed"] < rec["cases"]
        assert rec["points"] == pytest.approx(2 * rec["cases_passed"] / rec["cases"], abs=1e-4)
        row = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}[student]
        assert float(row["example.repeat_rows"]) == pytest.approx(rec["points"], abs=1e-4)
        assert float(row["score"]) == pytest.approx(
            rec["points"] + _questions(out, student)["example.last_column"]["points"], abs=1e-4
        )


def test_feedback_pages(graded):
    out, _ = graded
    assert sorted(p.name for p in (out / "feedback").iterdir()) == [
        "ann.html",
        "bob.html",
        "cy.html",
        "dee.html",
    ]
    bob = (out / "feedback" / "bob.html").read_text()
    rec = _questions(out, "bob")["example.repeat_rows"]
    assert rec["misconception_message"].split(":")[0] in bob
    assert "unsqueeze" in bob  # the hint
    assert "prefers-color-scheme: dark" in bob and "<script" not in bob
    assert "http://" not in bob and "https://" not in bob and "src=" not in bob
    # the grader's message names values at a hidden input: withheld by default
    assert "yours" in rec["message"] and "yours" not in bob
    assert "failed at the values stage" in bob


def test_tensorlab_check_on_a_learners_machine_uses_the_public_cases(released, tmp_path):
    """Without the instructor's solutions, `tensorlab check` judges on the public inputs."""
    folder = tmp_path / "mine"
    shutil.copytree(released / "exercises", folder)
    manifest = json.loads((folder / "release.json").read_text())
    manifest["authored"]["solutions"] = str(tmp_path / "elsewhere")
    (folder / "release.json").write_text(json.dumps(manifest))
    answers = {"example.repeat_rows": TILED, "example.last_column": GOOD["example.last_column"]}
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / NB).write_text(_submission(released / "exercises", answers))
    r = run_cli("check", tmp_path / "work" / NB, "--release", folder, "--sandbox", "none")
    assert r.returncode == 1, r.stderr  # a question failed
    assert "1 of 2 questions passed" in r.stdout
    assert "✓ example.last_column" in r.stdout
    assert "✗ example.repeat_rows" in r.stdout and "tiled" not in r.stdout
    assert "block repeated" in r.stdout  # the misconception, from the shipped data
    # answered in place, in the learner's copy of the exercises: no pristine copy anywhere
    (folder / NB).write_text((tmp_path / "work" / NB).read_text())
    r = run_cli("check", folder / NB, "--sandbox", "none")
    assert r.returncode == 1, r.stderr
    assert "✓ example.last_column" in r.stdout and "block repeated" in r.stdout


# ---------------------------------------------------------------------------- validation
def _authored_nb(tmp_path: Path, edit) -> Path:
    nb = nbformat.read(EXAMPLE / NB, as_version=4)
    nb = copy.deepcopy(nb)
    edit(nb)
    folder = tmp_path / "sol"
    folder.mkdir()
    nbformat.write(nb, folder / NB)
    return folder


def _cell(nb, role: str, qid: str) -> int:
    for i, c in enumerate(nb.cells):
        tl = c.metadata.get("tensorlab", {})
        if tl.get("role") == role and tl.get("question") == qid:
            return i
    raise KeyError


def _replace(role, qid, old, new):
    def edit(nb):
        cell = nb.cells[_cell(nb, role, qid)]
        assert old in cell.source
        cell.source = cell.source.replace(old, new)

    return edit


def _drop_check(nb):
    del nb.cells[_cell(nb, "check", "example.last_column")]


CASES = {
    "duplicate": (
        _replace(
            "question", "example.last_column", '"example.last_column"', '"example.repeat_rows"'
        ),
        "question",
        "example.last_column",
        "duplicate question id",
    ),
    "raises": (
        _replace(
            "answer",
            "example.repeat_rows",
            "rows, cols = x.shape",
            "rows, cols = x.shape\n    assert n < 3",
        ),
        "question",
        "example.repeat_rows",
        "raises AssertionError",
    ),
    "misconception": (
        _replace("question", "example.last_column", "x[:, -1].clone()", "x[:, -1]"),
        "question",
        "example.last_column",
        "misconception 'copied' equals the reference",
    ),
    "unseeded": (
        _replace(
            "question",
            "example.repeat_rows",
            "int(rng.integers(1, 4))",
            "int(np.random.randint(1, 4))",
        ),
        "question",
        "example.repeat_rows",
        "unseeded randomness",
    ),
    "no check": (_drop_check, "question", "example.last_column", "has no check cell"),
}


@pytest.mark.parametrize("flaw", list(CASES))
def test_assign_refuses_flawed_questions_naming_notebook_and_cell(tmp_path, flaw):
    edit, role, qid, message = CASES[flaw]
    if flaw == "unseeded":
        first = edit

        def edit(nb):
            first(nb)
            nb.cells[1].source += "\nimport numpy as np"

    folder = _authored_nb(tmp_path, edit)
    nb = nbformat.read(folder / NB, as_version=4)
    index = _cell(nb, role, qid) if flaw != "duplicate" else _cell(nb, "question", qid)
    r = run_cli("assign", folder, tmp_path / "ex")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1, r.stderr  # one line
    assert f"{NB}, cell {index}" in r.stderr and message in r.stderr, r.stderr
    assert not (tmp_path / "ex").exists()
