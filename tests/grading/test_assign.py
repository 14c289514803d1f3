"""``tensorlab assign``: exercises regenerate exactly from the solutions; bad markers are refused."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from grading_cli import run_cli

from tensorlab.grading import all_questions
from tensorlab.grading.assign import AssignError, assign, replace_regions

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
STRIDES = "04_strides.ipynb"


def test_committed_exercises_do_not_drift(tmp_path):
    """Regenerate into a temporary directory: every byte must match the committed exercises."""
    assign(SOLUTIONS, tmp_path)
    ours = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in EXERCISES.iterdir() if not p.name.startswith("."))
    assert ours == committed, (
        "exercises/ has missing or extra files: run `tensorlab assign solutions exercises`"
    )
    for name in ours:
        assert (tmp_path / name).read_bytes() == (EXERCISES / name).read_bytes(), (
            f"exercises/{name} drifted from solutions/: run `tensorlab assign solutions exercises`"
        )


def test_exercises_content():
    manifest = json.loads((EXERCISES / "release.json").read_text())
    assert set(manifest["questions"]) == {q.id for q in all_questions()}
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        sol = nbformat.read(path, as_version=4)
        ex = nbformat.read(EXERCISES / path.name, as_version=4)
        nbformat.validate(ex)
        hidden = [c for c in sol.cells if c.metadata.get("tensorlab", {}).get("role") == "hidden"]
        assert hidden, "each solution notebook demonstrates a hidden cell"
        assert len(ex.cells) == len(sol.cells) - len(hidden)
        text = json.dumps(ex)
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
        for c in hidden:
            assert c.source not in text
        for cell in ex.cells:
            role = cell.metadata.get("tensorlab", {}).get("role")
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None
            if role == "answer":
                assert (
                    "# YOUR CODE HERE" in cell.source
                    and "raise NotImplementedError(" in cell.source
                )
                info = manifest["questions"][cell.metadata["tensorlab"]["question"]]
                assert info["cell_id"] == cell.id and info["notebook"] == path.name
            if role == "check":
                assert cell.metadata["editable"] is False and cell.metadata["deletable"] is False
                # a failing check does not stop Run All (the only cells tagged so)
                assert cell.metadata["tags"] == ["raises-exception"]
            else:
                assert "raises-exception" not in cell.metadata.get("tags", [])
        assert ex.metadata["tensorlab"]["assignment"] == path.stem


def test_generated_exercises_are_ruff_clean(tmp_path):
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    assign(SOLUTIONS, tmp_path)
    config = ["--config", str(ROOT / "pyproject.toml")]
    r = subprocess.run(
        [ruff, "format", "--check", *config, str(tmp_path)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([ruff, "check", *config, str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


# ---------------------------------------------------------------------------- markers
def test_replace_regions_keeps_indentation_and_removes_hidden_tests():
    src = "def f(x):\n    y = 1\n    ### BEGIN SOLUTION\n    return x + y\n    ### END SOLUTION\n"
    out, n = replace_regions(src, "nb, cell 0", "Write f.")
    assert n == 1
    assert (
        out
        == 'def f(x):\n    y = 1\n    # YOUR CODE HERE\n    raise NotImplementedError("Write f.")\n'
    )
    src = "a = 1\n### BEGIN HIDDEN TESTS\nassert a == 1\n### END HIDDEN TESTS\nb = 2"
    assert replace_regions(src, "nb", None) == ("a = 1\nb = 2", 0)
    long = "x" * 120
    out, _ = replace_regions("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", "nb", long)
    assert out.splitlines()[1:] == ["raise NotImplementedError(", f'    "{long}"', ")"]


def _broken_solutions(tmp_path: Path, edit) -> Path:
    src = tmp_path / "solutions"
    src.mkdir()
    nb = json.loads((SOLUTIONS / STRIDES).read_text())
    edit(nb["cells"])
    (src / STRIDES).write_text(json.dumps(nb))
    return src


def _answer(cells, qid="strides.transpose"):
    (cell,) = [
        c
        for c in cells
        if c.get("metadata", {}).get("tensorlab") == {"role": "answer", "question": qid}
    ]
    return cell


def _set(qid, source):
    def edit(cells):
        _answer(cells, qid)["source"] = source

    return edit


def _plain_code_with_markers(cells):
    cells.insert(
        3,
        {
            "cell_type": "code",
            "id": "extra",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "### BEGIN SOLUTION\nx = 1\n### END SOLUTION",
        },
    )


def _markdown_answer(cells):
    cell = _answer(cells)
    cell["cell_type"] = "markdown"
    del cell["outputs"], cell["execution_count"]


def _unknown_question(cells):
    _answer(cells)["metadata"]["tensorlab"]["question"] = "strides.nope"


def _no_answer(cells):
    cells.remove(_answer(cells))


def _bad_role(cells):
    _answer(cells)["metadata"]["tensorlab"]["role"] = "solution"


def _duplicate(cells):
    import copy

    dup = copy.deepcopy(_answer(cells))
    dup["id"] = "another"
    cells.append(dup)


def _check_cell(cells, qid="strides.transpose"):
    (cell,) = [
        c
        for c in cells
        if c.get("metadata", {}).get("tensorlab") == {"role": "check", "question": qid}
    ]
    return cell


def _tags(tags):
    def edit(cells):
        _check_cell(cells)["metadata"]["tags"] = tags

    return edit


BROKEN = {
    "end_without_begin": (
        _set("strides.transpose", "x = 1\n### END SOLUTION\n"),
        "line 2: '### END SOLUTION' without a matching '### BEGIN SOLUTION'",
    ),
    "never_closed": (
        _set("strides.transpose", "### BEGIN SOLUTION\nx = 1\n"),
        "line 1: '### BEGIN SOLUTION' is never closed",
    ),
    "nested": (
        _set("strides.transpose", "### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n"),
        "regions cannot be nested",
    ),
    "misspelled": (
        _set("strides.transpose", "### BEGIN SOLUTIONS\nx = 1\n### END SOLUTION\n"),
        "malformed marker '### BEGIN SOLUTIONS'",
    ),
    "two_hashes": (
        _set("strides.transpose", "## BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"),
        "malformed marker '## BEGIN SOLUTION'",
    ),
    "mismatched_kinds": (
        _set("strides.transpose", "### BEGIN SOLUTION\nx = 1\n### END HIDDEN TESTS\n"),
        "closes the '### BEGIN SOLUTION' region",
    ),
    "no_region": (
        _set("strides.transpose", "transposed_layout = None\n"),
        "has no '### BEGIN SOLUTION'",
    ),
    "markers_outside_answer": (_plain_code_with_markers, "not an answer cell"),
    "markdown_answer": (_markdown_answer, "answer cells must be code cells"),
    "unknown_question": (_unknown_question, "unknown question id 'strides.nope'"),
    "missing_answer": (_no_answer, "no answer cell for question(s) strides.transpose"),
    "bad_role": (_bad_role, "unknown tensorlab role 'solution'"),
    "duplicate_answer": (_duplicate, "a second answer cell for 'strides.transpose'"),
    "tags_not_a_list": (_tags("slow"), "'tags' in the cell's metadata must be a list of strings"),
    "tags_not_strings": (_tags([1]), "'tags' in the cell's metadata must be a list of strings"),
}


def test_a_check_cell_keeps_its_own_tags_and_is_tagged_once(tmp_path):
    src = _broken_solutions(tmp_path, _tags(["slow", "raises-exception"]))
    assign(src, tmp_path / "exercises")
    nb = json.loads((tmp_path / "exercises" / STRIDES).read_text())
    assert _check_cell(nb["cells"])["metadata"]["tags"] == ["slow", "raises-exception"]
    others = [
        c for c in nb["cells"] if c.get("metadata", {}).get("tensorlab", {}).get("role") == "check"
    ]
    assert all(
        c["metadata"]["tags"] == ["raises-exception"]
        for c in others
        if c["metadata"]["tensorlab"]["question"] != "strides.transpose"
    )


def test_run_all_goes_past_a_failing_check(tmp_path):
    """A learner's notebook with a wrong answer, run top to bottom as Run All does (nbclient,
    errors not allowed, in the exercises folder beside release.json): the failing check shows
    its failure and the cells after it still run. Without the tag, the run stops there."""
    pytest.importorskip("nbclient")
    from grading_class import TRANSPOSE_WRONG, submission
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    shutil.copy(EXERCISES / "release.json", tmp_path / "release.json")
    wrong = json.dumps(submission(STRIDES, {"strides.transpose": TRANSPOSE_WRONG}))
    learner = nbformat.reads(wrong, as_version=4)
    NotebookClient(learner, timeout=300, resources={"metadata": {"path": str(tmp_path)}}).execute()
    checks = {
        c.metadata["tensorlab"]["question"]: c
        for c in learner.cells
        if c.metadata.get("tensorlab", {}).get("role") == "check"
    }
    (error,) = [o for o in checks["strides.transpose"].outputs if o.output_type == "error"]
    assert error.ename == "CheckFailed"
    assert "strides.transpose" in json.dumps(checks["strides.transpose"].outputs)
    after = list(checks)[list(checks).index("strides.transpose") + 1 :]
    assert after, "the wrong answer is not the last question"
    for qid in after:  # run, and passed
        assert checks[qid].execution_count is not None, qid
        assert not [o for o in checks[qid].outputs if o.output_type == "error"], qid
    untagged = nbformat.reads(wrong, as_version=4)
    for c in untagged.cells:
        c.metadata.pop("tags", None)
    with pytest.raises(CellExecutionError, match="CheckFailed"):
        NotebookClient(
            untagged, timeout=300, resources={"metadata": {"path": str(tmp_path)}}
        ).execute()


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_malformed_solutions_are_refused_with_a_clear_message(tmp_path, case):
    edit, message = BROKEN[case]
    src = _broken_solutions(tmp_path, edit)
    out = tmp_path / "exercises"
    with pytest.raises(AssignError) as info:
        assign(src, out)
    assert message in str(info.value)
    assert STRIDES in str(info.value)
    assert not out.exists(), "nothing may be written when a notebook is invalid"


def test_cli_assign(tmp_path):
    run = lambda *a: run_cli("assign", *a)  # noqa: E731
    r = run(SOLUTIONS, tmp_path / "ok")
    assert r.returncode == 0, r.stderr
    assert f"({len(all_questions())} questions)" in r.stdout
    assert (tmp_path / "ok" / "release.json").read_bytes() == (
        EXERCISES / "release.json"
    ).read_bytes()
    src = _broken_solutions(tmp_path, BROKEN["never_closed"][0])
    r = run(src, tmp_path / "bad")
    assert r.returncode == 2  # a malformed input file, as for an authored question
    assert "error:" in r.stderr and "never closed" in r.stderr


def _texts(outputs) -> list[tuple[str, str]]:
    out = []
    for o in outputs:
        if o["output_type"] == "stream":
            out.append((o["name"], o["text"]))
        elif o["output_type"] in ("display_data", "execute_result"):
            out.append((o["output_type"], o["data"].get("text/plain", "")))
        else:
            out.append((o["output_type"], o.get("ename", "")))
    return out


def test_solutions_are_saved_executed(tmp_path):
    """The solution notebooks' saved outputs are what running them top to bottom gives now."""
    pytest.importorskip("nbclient")
    from tensorlab.grading.kernel import Kernel

    # one kernel for all of them, in a fresh namespace each (as the exercises' run-through in
    # test_grading_check.py): a kernel start costs seconds, and a notebook that leaked state
    # into the next one would show here as a difference, never hide one
    with Kernel(tmp_path, memory=0, grading=False) as kernel:
        for path in sorted(SOLUTIONS.glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            assert kernel.run("%reset -f", 60).status == "ok"
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                r = kernel.run(cell.source, 120)
                assert r.status == "ok", (path.name, cell.source[:40], r.ename, r.evalue)
                assert _texts(r.outputs) == _texts(cell.outputs), (path.name, cell.source[:40])
