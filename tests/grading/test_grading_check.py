"""``tensorlab.check``: staged feedback, named misconceptions, growing hints, shrunk
counterexamples, tidy display in a real kernel, and a failed cell that nbval would see."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab
from tensorlab.grading import CheckFailed, check, evaluate, get
from tensorlab.grading import inline as check_module
from tensorlab.grading.feedback import smallest_failing_input
from tensorlab.grading.judge import collect_function_results, judge_function
from tensorlab.grading.questions._refs import convolve_valid, correlate_valid

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def fresh_attempts(monkeypatch):
    monkeypatch.delenv("TENSORLAB_GRADING", raising=False)
    check_module._FAILURES.clear()
    yield
    check_module._FAILURES.clear()


def test_check_is_tensorlab_check():
    assert tensorlab.check is check


def test_passing_check_prints_and_returns_none(capsys):
    assert check("inputs.kernel_spec", (128, 3, 5, 5)) is None
    out = capsys.readouterr().out
    assert out.startswith("✓ inputs.kernel_spec: passed")


def test_not_attempted_looks_up_the_name_in_the_caller(capsys):
    with pytest.raises(CheckFailed) as info:
        check("conv.valid_shape")  # `valid_shape` is not defined here
    assert "not attempted" in info.value.feedback.headline()
    assert "`valid_shape` is not defined yet" in capsys.readouterr().out
    # a notebook's answer lives in the caller's globals
    globals()["valid_shape"] = lambda i, k: (i[0] - k[0] + 1, i[1] - k[1] + 1)
    try:
        assert check("conv.valid_shape") is None
    finally:
        del globals()["valid_shape"]


def test_not_implemented_function_is_not_attempted():
    def convo2d(input, kernel):
        raise NotImplementedError("write me")

    v = evaluate("conv.convo2d", convo2d)
    assert v.status == "not_attempted"


def test_failure_names_the_misconception_and_hints_grow(capsys):
    texts = []
    for _ in range(4):
        with pytest.raises(CheckFailed) as info:
            check("xcorr.lecture_row", (0, 0, 3, 2, 1, 0))
        texts.append(info.value.feedback.text())
    first, second, third, fourth = texts
    assert "Likely misconception: each output sums all 3 kernel rows" in first
    assert "Hint:" in first and "Hint 2" not in first
    assert "Hint 1:" in second and "Hint 2:" in second
    q = get("xcorr.lecture_row")
    assert third.count("Hint") == fourth.count("Hint") == len(q.hints)  # capped
    assert "9" not in first  # neither the message nor the misconception gives the answer away
    assert "3 + 3 + 3 = 9" in second  # the number comes with the second attempt


def test_feedback_order_headline_misconception_input_hint():
    def convo2d(x, k):  # cross-correlation, by loops in numpy (the exercise's rules)
        (H, W), (M, N) = x.shape, k.shape
        out = np.zeros((H - M + 1, W - N + 1))
        for i in range(H - M + 1):
            for j in range(W - N + 1):
                out[i, j] = np.sum(x[i : i + M, j : j + N] * k)
        return out

    with pytest.raises(CheckFailed) as info:
        check("conv.convo2d", convo2d)
    labels = [label.strip() for label, _ in info.value.feedback._lines()]
    assert labels[0].startswith("Failed at")
    order = [labels.index(x) for x in ("Likely misconception", "Smallest failing input", "Hint")]
    assert order == sorted(order)
    assert labels.index("expected") < labels.index("yours") < labels.index("Hint")


def test_big_arrays_are_summarised_and_rows_align():
    """channels.conv2d_loops fails on the lecture's 8x8 input first: the feedback shows shapes
    and a 6x6 window around the first difference, not every entry; expected/yours line up."""
    from tensorlab.grading.inline import feedback_for
    from tensorlab.grading.questions._refs import conv2d_loops

    def off_in_the_corner(x, w, groups):
        out = conv2d_loops(x, w, groups)
        out[..., -1, -1] += 1
        return out

    q = get("channels.conv2d_loops")  # (judged on its values: the helper is the grader's)
    verdict = judge_function(q, collect_function_results(off_in_the_corner, q, 0), 0)
    fb = feedback_for(q, off_in_the_corner, verdict, search=False)
    text = fb.text()
    assert len(text) < 2500, len(text)
    assert "array of shape (1, 1, 8, 8), dtype=float64" in text
    lines = text.splitlines()
    exp = next(i for i, line in enumerate(lines) if line.strip().startswith("expected:"))
    yours = next(i for i, line in enumerate(lines) if line.strip().startswith("yours:"))
    block_e, block_y = lines[exp + 1 : yours], lines[yours + 1 : yours + 1 + (yours - exp - 1)]
    starts = {len(line) - len(line.lstrip()) for line in block_e + block_y if "[" in line}
    assert len(starts) == 2  # "[[" on the first row, " [" on the others: one column
    assert [len(line) for line in block_e] == [len(line) for line in block_y]  # rows line up


def test_tuple_answers_accept_1d_tensors_and_arrays():
    row = (0.0, 0.0, 9.0, 6.0, 3.0, 0.0)
    assert evaluate("xcorr.lecture_row", tensorlab.tensor(row)).status == "passed"
    assert evaluate("xcorr.lecture_row", np.array(row)).status == "passed"
    v = evaluate("xcorr.lecture_row", tensorlab.tensor([0.0, 0, 3, 6, 9, 0]))
    assert v.misconception.key == "true_convolution"
    v = evaluate("xcorr.lecture_row", "nine")
    assert "a tuple of 6 numbers" in v.message and "a numbers" not in v.message


def test_interleave_rule_is_enforced():
    def interleave(x, r):
        return x.repeat_interleave(r)

    v = evaluate("views.interleave", interleave)
    assert v.status == "failed" and v.stage == "rules" and v.misconception.key == "forbidden"
    assert "`repeat_interleave`" in v.message

    def helper(x, r):
        return x.numpy().repeat(r)

    def interleave2(x, r):
        return tensorlab.from_numpy(helper(x, r))

    assert evaluate("views.interleave", interleave2).stage == "rules"

    def interleave3(x, r):
        return x.view(-1, 1).repeat(1, r).view(-1)

    assert evaluate("views.interleave", interleave3).status == "passed"

    import numpy as np

    ri = tensorlab.Tensor.repeat_interleave

    def interleave4(x, r):  # an alias
        return ri(x, r)

    def interleave5(x, r):  # through numpy by its usual alias
        return tensorlab.tensor(np.repeat(np.asarray(x), r))

    for fn, name in ((interleave4, "repeat_interleave"), (interleave5, "import numpy")):
        v = evaluate("views.interleave", fn)
        assert v.stage == "rules" and name in v.message, (fn, v.message)
        assert "Allowed: the tensor methods view and repeat" in v.message
    from tensorlab.grading.judge import rule_check

    src = "def interleave(x, r):\n    return getattr(x, 'repeat_interleave')(r)\n"
    assert "repeat_interleave" in rule_check(get("views.interleave"), src, [src])


def test_function_feedback_shows_the_first_failing_input_and_smallest_one(capsys):
    with pytest.raises(CheckFailed) as info:
        check("conv.convo2d", correlate_valid)
    fb = info.value.feedback
    text = fb.text()
    assert "0 of 8 inputs pass" in text
    assert "this equals cross-correlation" in text
    c = fb.counterexample
    assert c is not None
    x, k = c.args
    assert x.size <= 2 and k.size <= 2  # shrunk to a tiny input
    assert not np.allclose(correlate_valid(x, k), convolve_valid(x, k))
    again = smallest_failing_input(get("conv.convo2d"), correlate_valid)
    assert all(np.array_equal(a, b) for a, b in zip(again.args, c.args))  # derandomised


def test_counterexample_search_writes_no_database(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    smallest_failing_input(get("strides.contiguous"), lambda shape: tuple(reversed(shape)))
    assert not (tmp_path / ".hypothesis").exists()
    assert list(tmp_path.iterdir()) == []


def test_copy_instead_of_view_is_named():
    def flatten_hw(x):
        return x.contiguous().view(x.shape[0], x.shape[1], -1)

    v = evaluate("views.flatten_hw", flatten_hw)
    assert v.status == "failed" and v.stage == "layout"
    assert v.misconception.key == "contiguous_first"
    assert "this is a copy, not a view" in v.misconception.message


def test_html_rendering_is_escaped_and_complete():
    with pytest.raises(CheckFailed) as info:
        check("conv.padding_modes", ("<b>edge</b>", "reflect", "zeros", "circular"))
    html = info.value.feedback._repr_html_()
    assert "&lt;b&gt;" in html and "<b>edge" not in html
    assert "Likely misconception" in html and "numpy.pad" in html


def test_check_is_silent_inside_a_grading_kernel(monkeypatch):
    monkeypatch.setenv("TENSORLAB_GRADING", "1")
    assert check("conv.valid_shape", "nonsense") is None  # not even judged


def test_render_traceback_is_one_tidy_line():
    with pytest.raises(CheckFailed) as info:
        check("inputs.kernel_spec", (3, 128, 5, 5))
    lines = info.value._render_traceback_()
    assert len(lines) == 1 and "inputs.kernel_spec" in lines[0]


def test_in_a_real_kernel_check_shows_html_and_fails_the_cell(tmp_path):
    """The display is tidy HTML, the error output is one line, and the cell counts as failed."""
    pytest.importorskip("nbclient")
    from tensorlab.grading.kernel import Kernel

    with Kernel(tmp_path, memory=0, grading=False) as kernel:
        failed = kernel.run(
            "import tensorlab\ntensorlab.check('inputs.kernel_spec', (3, 128, 5, 5))", 60
        )
        passed = kernel.run("tensorlab.check('inputs.kernel_spec', (128, 3, 5, 5))", 60)
    assert failed.status == "error" and failed.ename == "CheckFailed"
    (error,) = [o for o in failed.outputs if o.output_type == "error"]
    assert len(error.traceback) == 1  # no Python traceback: the cell is failed, tidily
    (display,) = [o for o in failed.outputs if o.output_type == "display_data"]
    assert "Likely misconception" in display.data["text/html"]
    assert "✗ inputs.kernel_spec: not yet" in display.data["text/plain"]
    assert passed.status == "ok"
    assert "passed" in passed.outputs[0].data["text/plain"]


def test_exercises_run_top_to_bottom_raise_only_not_attempted(tmp_path):
    """A learner running a fresh exercise: answer cells raise NotImplementedError, check cells
    say "not attempted" (and fail the cell), every other cell runs cleanly."""
    pytest.importorskip("nbclient")
    import nbformat

    from tensorlab.grading.kernel import Kernel

    with Kernel(tmp_path, memory=0, grading=False) as kernel:
        for path in sorted((ROOT / "exercises").glob("*.ipynb")):
            nb = nbformat.read(path, as_version=4)
            for cell in nb.cells:
                if cell.cell_type != "code":
                    continue
                role = cell.metadata.get("tensorlab", {}).get("role")
                r = kernel.run(cell.source, 60)
                where = f"{path.name}: {cell.source[:40]!r}"
                if role == "answer" and r.status == "error":
                    assert r.ename == "NotImplementedError", where
                elif role == "check":
                    assert r.status == "error" and r.ename == "CheckFailed", where
                    (display,) = [o for o in r.outputs if o.output_type == "display_data"]
                    assert "not attempted" in display.data["text/plain"], where
                else:
                    assert r.status == "ok", (where, r.ename, r.evalue)


@settings(max_examples=40, deadline=None)
@given(
    shape=st.lists(st.integers(0, 9), min_size=0, max_size=4),
    how=st.sampled_from(["array", "tensor", "transposed", "sliced", "expanded"]),
    data=st.data(),
)
def test_summaries_are_bounded_and_expected_yours_line_up(shape, how, data):
    """Any shape, contiguous or not: the rendering is short, and expected/yours of one shape
    take the same lines, each row starting in the same column."""
    from tensorlab.grading.encode import decode, encode
    from tensorlab.grading.feedback import MAX_PLANES, WINDOW, format_pair, format_value

    arr = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    t = tensorlab.from_numpy(arr)
    if how == "transposed" and t.dim() >= 2:
        t = t.transpose(0, -1)
    elif how == "sliced" and t.dim() >= 1 and t.shape[-1] > 1:
        t = t[..., ::2]
    elif how == "expanded":
        t = tensorlab.zeros(1, *shape[1:], dtype=tensorlab.float64).expand(3, *shape[1:])
    value = arr if how == "array" else t
    text = format_value(value)
    assert len(text.splitlines()) <= 2 + MAX_PLANES * (WINDOW + 1) + 2
    assert max(len(line) for line in text.splitlines()) <= 160
    actual = decode(encode(value))
    other = np.array(actual.array)
    if other.size:
        other.flat[data.draw(st.integers(0, other.size - 1))] += 1
    e, a = format_pair(actual, decode(encode(other)))
    assert [len(line) for line in e.splitlines()[1:]] == [len(line) for line in a.splitlines()[1:]]


def test_counterexample_search_stops_tidily_when_out_of_time():
    """A search that runs out of time keeps the smallest failing input found so far (or none):
    it never raises (hypothesis would call a half-finished search flaky)."""
    from tensorlab.grading.questions.strided_conv import conv2d_general

    def flipped(x, w, s, p, g):
        return conv2d_general(x, np.asarray(w)[:, :, ::-1, ::-1], s, p, g)

    q = get("strided.conv2d_via_unfold")
    for budget in (0.0, 0.05, 0.3):
        c = smallest_failing_input(q, flipped, budget_s=budget)
        assert c is None or c.message.startswith("values differ")


def test_a_lambda_given_to_check_is_read_alone():
    """``tensorlab.check("id", lambda ...)``: the rules read the lambda, not the call around it
    (the call's own ``tensorlab.check`` is not the learner's answer)."""
    import ast

    from tensorlab.grading.inline import _lambda_source

    cell = 'import tensorlab\ntensorlab.check("conv.valid_shape", lambda i, k: (i[0] - k[0] + 1,\n i[1]))\n'
    assert _lambda_source(cell, ast.parse(cell), 2) == "lambda i, k: (i[0] - k[0] + 1,\n i[1])"
    two = "f, g = lambda x: x, lambda y: y\n"
    assert _lambda_source(two, ast.parse(two), 1) is None  # which one is ambiguous: whole cell
