"""The question banks: every reference agrees with PyTorch (or scipy), every catalogued wrong
answer is rejected with its own misconception, and the solutions' answers pass."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers import to_torch

import tensorlab as tl
from tensorlab.grading import all_questions, evaluate, get
from tensorlab.grading.judge import collect_function_results, judge_function
from tensorlab.grading.model import make_cases

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = all_questions()
CATALOGUE = [
    pytest.param(q, m, k, id=f"{q.id}:{m.key}:{k}")
    for q in QUESTIONS
    for m in q.misconceptions
    for k, _ in enumerate(m.wrong_answers())
]


def test_enough_questions_with_catalogues():
    assert len(QUESTIONS) >= 30
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    for q in QUESTIONS:
        assert q.misconceptions, f"{q.id} has no misconception catalogue"
        assert q.hints and q.todo and q.prompt
        if q.kind == "function":
            assert q.strategy is not None, f"{q.id}: no counterexample strategy"


@pytest.mark.parametrize("q,m,k", CATALOGUE)
def test_catalogued_wrong_answer_is_rejected_with_its_misconception(q, m, k):
    wrong = m.wrong_answers()[k]
    verdict = evaluate(q, wrong)
    assert verdict.status == "failed", (verdict.status, verdict.message)
    assert verdict.misconception is not None, verdict.message
    assert verdict.misconception.key == m.key


@pytest.mark.parametrize("q", [q for q in QUESTIONS if q.reference is not None], ids=lambda q: q.id)
def test_reference_passes_its_own_judge(q):
    if q.kind == "function" and q.forbidden:  # a reference may use what the learner may not
        results = collect_function_results(q.reference, q, 0)
        assert judge_function(q, results, 0).status == "passed"
        return
    answer = q.reference if q.kind == "function" else q.reference()
    assert evaluate(q, answer).status == "passed"


def _solution_answers() -> dict[str, object]:
    """Run every solution answer cell (in order, with its notebook's context) in-process."""
    import os

    out = {}
    os.environ.pop("TENSORLAB_GRADING", None)
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        nb = json.loads(path.read_text())
        ns: dict = {}
        for cell in nb["cells"]:
            role = cell.get("metadata", {}).get("tensorlab", {}).get("role")
            if cell["cell_type"] != "code" or role in ("check", "hidden"):
                continue
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            exec(compile(src, str(path), "exec"), ns)
            if role == "answer":
                q = get(cell["metadata"]["tensorlab"]["question"])
                out[q.id] = ns[q.name]
    return out


def test_solution_answers_pass_inline():
    answers = _solution_answers()
    assert set(answers) == {q.id for q in QUESTIONS}
    for qid, answer in answers.items():
        verdict = evaluate(qid, answer)
        assert verdict.status == "passed", (qid, verdict.message)


# ---------------------------------------------------------------------------- references vs oracles
def _np(t):
    return t._np() if isinstance(t, tl.Tensor) else np.asarray(t)


def test_convolution_references_match_scipy():
    import scipy.signal

    for name, mode in (("conv.convo2d", "valid"), ("conv.full_with_conv2d", "full")):
        q = get(name)
        for x, k in make_cases(q, 7):
            np.testing.assert_allclose(q.reference(x, k), scipy.signal.convolve2d(x, k, mode=mode))
    a, b = np.zeros((7, 5)), np.zeros((3, 4))
    shapes = tuple(scipy.signal.convolve2d(a, b, mode=m).shape for m in ("full", "same", "valid"))
    assert get("conv.scipy_shapes").reference() == shapes
    valid = scipy.signal.convolve2d(np.zeros((28, 28)), np.zeros((5, 3)), mode="valid").shape
    assert get("conv.valid_shape").reference() == valid


def test_padding_modes_match_torch(torch):
    rows = [
        [1, 1, 1, 2, 3, 4, 5, 5, 5],
        [3, 2, 1, 2, 3, 4, 5, 4, 3],
        [0, 0, 1, 2, 3, 4, 5, 0, 0],
        [4, 5, 1, 2, 3, 4, 5, 1, 2],
    ]
    x = torch.arange(1.0, 6.0).view(1, 1, 5)
    for mode, row in zip(get("conv.padding_modes").reference(), rows):
        if mode == "zeros":
            got = torch.nn.functional.pad(x, (2, 2))
            conv = torch.nn.Conv1d(1, 1, 1, padding=2, padding_mode="zeros")
        else:
            got = torch.nn.functional.pad(x, (2, 2), mode=mode)
            conv = torch.nn.Conv1d(1, 1, 1, padding=2, padding_mode=mode)
        assert got.flatten().tolist() == row
        assert conv.padding_mode == mode


def test_shape_references_match_torch(torch):
    F = torch.nn.functional
    z = torch.zeros
    assert get("conv.same_padding").reference() == 4
    out = F.conv2d(z(1, 1, 32, 32), z(1, 1, 5, 5), dilation=2, padding=4)
    assert out.shape[-2:] == (32, 32)
    assert get("inputs.shape_a").reference() == tuple(
        F.conv2d(z(2, 3, 32, 32), z(8, 3, 5, 5), stride=2, padding=1).shape
    )
    out = F.conv2d(
        z(1, 4, 10, 12), z(6, 2, 3, 3), groups=2, stride=(1, 3), padding=(1, 2), dilation=2
    )
    assert get("inputs.shape_b").reference() == tuple(out.shape)
    assert get("inputs.kernel_spec").reference() == tuple(torch.nn.Conv2d(3, 128, 5).weight.shape)
    tsr_arr = torch.from_numpy(np.zeros((8, 8)))
    tensor_arr = torch.unsqueeze(tsr_arr, 0)
    tensor_arr = torch.unsqueeze(tsr_arr, 0)
    assert get("inputs.lecture_unsqueeze").reference() == tuple(tensor_arr.shape)
    q = get("inputs.output_size")
    for n, k, s, p, d in make_cases(q, 3):
        out = F.conv2d(z(1, 1, n, 1), z(1, 1, k, 1), stride=(s, 1), padding=(p, 0), dilation=(d, 1))
        assert q.reference(n, k, s, p, d) == out.shape[2]


def test_input_repacking_matches_torch(torch):
    q = get("inputs.to_nchw")
    for (img,) in make_cases(q, 5):
        ours, theirs = q.reference(img), torch.from_numpy(img).unsqueeze(0).unsqueeze(0)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        assert ours.untyped_storage().data_ptr() == img.__array_interface__["data"][0]
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    q = get("inputs.repack")
    for (batch,) in make_cases(q, 5):
        theirs = torch.from_numpy(batch).permute(0, 3, 1, 2).float()
        ours = q.reference(batch)
        assert ours.dtype is tl.float32
        np.testing.assert_array_equal(_np(ours), theirs.numpy())


def test_cross_correlation_references_match_torch(torch):
    x = torch.zeros(1, 1, 8, 8, dtype=torch.float64)
    x[0, 0, :, 4] = 1
    w = torch.tensor([[1.0, 2.0, 3.0]] * 3, dtype=torch.float64)[None, None]
    row = torch.nn.functional.conv2d(x, w)[0, 0, 0].tolist()
    assert get("xcorr.lecture_row").reference() == tuple(row)
    q = get("channels.conv2d_loops")
    for xs, ws, g in make_cases(q, 11):
        theirs = torch.nn.functional.conv2d(torch.from_numpy(xs), torch.from_numpy(ws), groups=g)
        np.testing.assert_allclose(q.reference(xs, ws, g), theirs.numpy(), atol=1e-9)


def test_experiment_judge(torch):
    q = get("xcorr.experiment")
    line = np.zeros((5, 5))
    line[:, 2] = 1
    good = (line, np.array([[1.0, 2.0, 3.0]] * 3))
    conv = torch.nn.functional.conv2d(
        torch.from_numpy(good[0])[None, None], torch.from_numpy(good[1])[None, None]
    )
    flipped = torch.nn.functional.conv2d(
        torch.from_numpy(good[0])[None, None],
        torch.from_numpy(good[1][::-1, ::-1].copy())[None, None],
    )
    assert not torch.allclose(conv, flipped)  # the pair really distinguishes them in torch
    assert evaluate(q, good).status == "passed"
    assert evaluate(q, (tl.from_numpy(line), tl.tensor([[1.0, 2.0, 3.0]] * 3))).status == "passed"
    for bad in ((line,), (line, np.ones((1, 1))), (np.ones((2, 2)), np.ones((3, 3)) * [1, 2, 3])):
        assert evaluate(q, bad).status == "failed"


def test_group_references_match_torch(torch):
    q = get("channels.weight_shape")
    for i, o, k, g in make_cases(q, 2):
        assert q.reference(i, o, k, g) == tuple(torch.nn.Conv2d(i, o, k, groups=g).weight.shape)
    q = get("channels.operator_count")
    for i, o, g in make_cases(q, 2):
        w = torch.nn.Conv2d(i, o, 3, groups=g).weight
        assert q.reference(i, o, g) == w.shape[0] * w.shape[1]

    def legal(i, o, g):
        try:
            torch.nn.Conv2d(i, o, 3, groups=g)
        except ValueError:
            return False
        return True

    from tensorlab.grading.questions.channels import _CONFIGS

    assert get("channels.groups_legal").reference() == tuple(legal(*c) for c in _CONFIGS)
    q = get("channels.sources")
    for o, i, out, g in make_cases(q, 2):
        conv = torch.nn.Conv2d(i, out, 1, groups=g, bias=False)
        torch.nn.init.ones_(conv.weight)
        reads = tuple(
            c for c in range(i) if conv(torch.eye(i)[c].view(1, i, 1, 1))[0, o, 0, 0].item() != 0
        )
        assert q.reference(o, i, out, g) == reads
    layer = torch.nn.Conv2d(8, 16, 3, groups=8)
    assert get("channels.depthwise").reference() == (tuple(layer.weight.shape), 2)


def test_stride_references_match_torch(torch):
    q = get("strides.contiguous")
    for (shape,) in make_cases(q, 4):
        assert q.reference(shape) == torch.zeros(shape).stride()
    q = get("strides.storage_index")
    storage = torch.arange(1000)
    for index, stride, offset in make_cases(q, 4):
        shape = tuple(i + 1 for i in index)
        view = torch.as_strided(storage, shape, stride, offset)
        assert q.reference(index, stride, offset) == view[index].item()
    x = torch.arange(24).view(2, 3, 4)

    def layout(t):
        return (tuple(t.shape), t.stride(), t.storage_offset())

    assert get("strides.transpose").reference() == layout(x.transpose(0, 2))
    assert get("strides.permute").reference() == layout(x.permute(2, 0, 1))
    assert get("strides.slice").reference() == layout(x[1, :, 1::2])
    b = torch.arange(4).view(1, 4).expand(3, 4)
    assert get("strides.expand").reference() == (b.stride(), b.is_contiguous())


def test_view_references_match_torch(torch):
    a = torch.arange(12).view(3, 4)

    def works(expr):
        try:
            eval(expr, {"a": a, "torch": torch})
        except RuntimeError:
            return False
        return True

    from tensorlab.grading.questions.views import CONTIGUOUS_TENSORS, SHARE_CONTEXT, VIEW_ATTEMPTS

    assert get("views.view_works").reference() == tuple(works(e) for e in VIEW_ATTEMPTS)
    flags = tuple(
        eval(e.replace("tensorlab", "torch"), {"a": a, "torch": torch}).is_contiguous()
        for e in CONTIGUOUS_TENSORS
    )
    assert get("views.contiguous_flags").reference() == flags
    ns = {"torch": torch}
    for line in SHARE_CONTEXT:
        exec(line.replace("tensorlab", "torch"), ns)
    base = ns["a"].untyped_storage().data_ptr()
    sharing = {n for n in "bcdefghi" if ns[n].untyped_storage().data_ptr() == base}
    assert get("views.share_storage").reference() == sharing
    q = get("views.flatten_hw")
    for (x,) in make_cases(q, 9):
        ours, theirs = q.reference(x), to_torch(torch, x).flatten(2)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        assert ours.storage_offset() == theirs.storage_offset()
        assert ours.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    q = get("views.interleave")
    for x, r in make_cases(q, 9):
        theirs = to_torch(torch, x).repeat_interleave(r)
        ours = q.reference(x, r)
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(_np(ours), theirs.numpy())
