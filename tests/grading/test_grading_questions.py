"""The question banks: every reference agrees with PyTorch (or scipy), every catalogued wrong
answer is rejected with its own misconception, and the solutions' answers pass."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from helpers import to_torch

import tensorlab as tl
from tensorlab.grading import all_questions, evaluate, get
from tensorlab.grading.judge import HUGE, collect_function_results, judge_function, largest_size
from tensorlab.grading.model import make_cases
from tensorlab.grading.rules import has_rules

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = all_questions()


def small_cases(q, seed: int) -> list[tuple]:
    """The cases a tensor can be built for (not a derive question's hidden huge sizes)."""
    return [c for c in make_cases(q, seed) if largest_size(c) < HUGE]


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
    if q.kind == "function" and has_rules(q) and m.key != "forbidden":  # grader's code, not a
        # learner's: judged on its values (the rules are tested on learners' code below)
        verdict = judge_function(q, collect_function_results(wrong, q, 0), 0)
    else:
        verdict = evaluate(q, wrong)
    assert verdict.status == "failed", (verdict.status, verdict.message)
    assert verdict.misconception is not None, verdict.message
    assert verdict.misconception.key == m.key


@pytest.mark.parametrize("q", [q for q in QUESTIONS if q.reference is not None], ids=lambda q: q.id)
def test_reference_passes_its_own_judge(q):
    if q.kind == "function":  # a reference that raises would make every answer "expected"
        for seed in (0, 1):
            for args in make_cases(q, seed):
                q.reference(*args)
    if q.kind == "function" and has_rules(q):  # a reference may use what the learner may not
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
        for x, k in small_cases(q, 7):
            np.testing.assert_allclose(q.reference(x, k), scipy.signal.convolve2d(x, k, mode=mode))
    q = get("conv.scipy_shapes")
    for image, kernel in small_cases(q, 7):
        a, b = np.zeros(image), np.zeros(kernel)
        modes = ("full", "same", "valid")
        shapes = tuple(scipy.signal.convolve2d(a, b, mode=m).shape for m in modes)
        assert q.reference(image, kernel) == shapes
        assert get("conv.valid_shape").reference(image, kernel) == shapes[2]


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
    q = get("conv.same_padding")
    for k, d in small_cases(q, 3):
        p = q.reference(k, d)
        out = F.conv2d(z(1, 1, 13, 13), z(1, 1, k, k), dilation=d, padding=p)
        assert out.shape[-2:] == (13, 13)
        assert tuple(
            F.conv2d(z(1, 1, 13, 13), z(1, 1, k, k), dilation=d, padding="same").shape[-2:]
        ) == (13, 13)
    q = get("inputs.shape_a")
    for xs, ws, s, p in small_cases(q, 3):
        assert q.reference(xs, ws, s, p) == tuple(
            F.conv2d(z(*xs), z(*ws), stride=s, padding=p).shape
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
    for n, k, s, p, d in small_cases(q, 3):
        out = F.conv2d(z(1, 1, n, 1), z(1, 1, k, 1), stride=(s, 1), padding=(p, 0), dilation=(d, 1))
        assert q.reference(n, k, s, p, d) == out.shape[2]


def test_input_repacking_matches_torch(torch):
    q = get("inputs.to_nchw")
    for (img,) in small_cases(q, 5):
        ours, theirs = q.reference(img), torch.from_numpy(img).unsqueeze(0).unsqueeze(0)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        assert ours.untyped_storage().data_ptr() == img.__array_interface__["data"][0]
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    q = get("inputs.repack")
    for (batch,) in small_cases(q, 5):
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
    for xs, ws, g in small_cases(q, 11):
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
    for i, o, k, g in small_cases(q, 2):
        assert q.reference(i, o, k, g) == tuple(torch.nn.Conv2d(i, o, k, groups=g).weight.shape)
    q = get("channels.operator_count")
    for i, o, g in small_cases(q, 2):
        w = torch.nn.Conv2d(i, o, 3, groups=g).weight
        assert q.reference(i, o, g) == w.shape[0] * w.shape[1]

    def legal(i, o, g):
        try:
            torch.nn.Conv2d(i, o, 3, groups=g)
        except ValueError:
            return False
        return True

    q = get("channels.groups_legal")
    for i, o, g in small_cases(q, 2):
        assert q.reference(i, o, g) == legal(i, o, g)
    q = get("channels.sources")
    for o, i, out, g in small_cases(q, 2):
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
    for (shape,) in small_cases(q, 4):
        assert q.reference(shape) == torch.zeros(shape).stride()
    q = get("strides.storage_index")
    storage = torch.arange(1000)
    for index, stride, offset in small_cases(q, 4):
        shape = tuple(i + 1 for i in index)
        view = torch.as_strided(storage, shape, stride, offset)
        assert q.reference(index, stride, offset) == view[index].item()

    def layout(t):
        return (tuple(t.shape), t.stride(), t.storage_offset())

    def fresh(shape):
        return torch.arange(int(np.prod(shape))).view(shape)

    assert get("strides.transpose").reference() == layout(fresh((2, 3, 4)).transpose(0, 2))
    q = get("strides.permute")
    for shape, dims in small_cases(q, 4):
        assert q.reference(shape, dims) == layout(fresh(shape).permute(*dims))
    q = get("strides.slice")
    for shape, i, start, step in small_cases(q, 4):
        assert q.reference(shape, i, start, step) == layout(fresh(shape)[i, :, start::step])
    q = get("strides.expand")
    for n, rows in small_cases(q, 4):
        b = torch.arange(n).view(1, n).expand(rows, n)
        assert q.reference(n, rows) == (b.stride(), b.is_contiguous())


def test_view_references_match_torch(torch):
    def strided(shape, stride):
        return torch.as_strided(torch.zeros(100), shape, stride)

    def works(shape, stride, new_shape):
        try:
            strided(shape, stride).view(new_shape)
        except RuntimeError:
            return False
        return True

    from tensorlab.grading.questions.views import SHARE_CONTEXT

    q = get("views.view_works")
    for seed in range(4):
        for shape, stride, new_shape in small_cases(q, seed):
            assert q.reference(shape, stride, new_shape) == works(shape, stride, new_shape)
    q = get("views.contiguous_flags")
    for seed in range(4):
        for shape, stride in small_cases(q, seed):
            assert q.reference(shape, stride) == strided(shape, stride).is_contiguous()
    ns = {"torch": torch}
    for line in SHARE_CONTEXT:
        exec(line.replace("tensorlab", "torch"), ns)
    base = ns["a"].untyped_storage().data_ptr()
    sharing = {n for n in "bcdefghi" if ns[n].untyped_storage().data_ptr() == base}
    assert get("views.share_storage").reference() == sharing
    q = get("views.flatten_hw")
    for (x,) in small_cases(q, 9):
        ours, theirs = q.reference(x), to_torch(torch, x).flatten(2)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        assert ours.storage_offset() == theirs.storage_offset()
        assert ours.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    q = get("views.interleave")
    for x, r in small_cases(q, 9):
        theirs = to_torch(torch, x).repeat_interleave(r)
        ours = q.reference(x, r)
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_array_equal(_np(ours), theirs.numpy())


# ---------------------------------------------------------------------------- lessons 12-16
def test_autograd_references_match_torch(torch):
    q = get("autograd.repeat_sources")
    for n, r, inter in small_cases(q, 6):
        x = torch.arange(n)
        y = x.repeat_interleave(r) if inter else x.repeat(r)
        assert q.reference(n, r, inter) == tuple(y.tolist())
    from tensorlab.grading.questions.autograd import LEAF_STATEMENTS

    def runs(stmt):
        w = torch.ones(3, requires_grad=True)
        try:
            exec(stmt.replace("tensorlab", "torch"), {"w": w, "torch": torch})
        except RuntimeError:
            return False
        return True

    assert get("autograd.leaf_writes").reference() == tuple(runs(s) for s in LEAF_STATEMENTS)
    F = torch.nn.functional
    q = get("autograd.numerical_grad")
    for x, k, eps in small_cases(q, 6):
        xt = torch.from_numpy(x)[None, None]

        def loss(kernel, xt=xt):
            return (F.conv2d(xt, torch.from_numpy(kernel)[None, None]) ** 4).sum().item()

        central = np.zeros_like(k)
        for idx in np.ndindex(k.shape):
            up, down = k.copy(), k.copy()
            up[idx] += eps
            down[idx] -= eps
            central[idx] = (loss(up) - loss(down)) / (2 * eps)
        np.testing.assert_allclose(q.reference(x, k, eps), central, rtol=1e-9, atol=1e-9)
        w = torch.from_numpy(k).requires_grad_()
        (F.conv2d(xt, w[None, None]) ** 4).sum().backward()
        # not quadratic: the central difference is not the exact gradient at eps = 0.5 ...
        if eps == 0.5 and np.abs(w.grad.numpy()).max() > 0:
            assert not np.allclose(central, w.grad.numpy(), rtol=1e-6, atol=1e-6)
        # ... and approaches it as eps shrinks
        np.testing.assert_allclose(q.reference(x, k, 1e-4), w.grad.numpy(), rtol=1e-6, atol=1e-5)
    q = get("autograd.sgd_steps")
    for x, y, w0, lr, steps in small_cases(q, 6):
        w = torch.from_numpy(w0.copy()).requires_grad_()
        for _ in range(steps):
            out = F.conv2d(torch.from_numpy(x)[None, None], w[None, None])[0, 0]
            ((out - torch.from_numpy(y)) ** 2).mean().backward()
            with torch.no_grad():
                w -= lr * w.grad
            w.grad.zero_()
        np.testing.assert_allclose(q.reference(x, y, w0, lr, steps), w.detach().numpy())
    q = get("autograd.forgot_zero_grad")
    for w0, t, lr, steps in small_cases(q, 6):
        w = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
        for _ in range(steps):
            ((w - t) ** 2).backward()
            with torch.no_grad():
                w -= lr * w.grad
        assert math.isclose(q.reference(w0, t, lr, steps), w.item(), rel_tol=1e-12, abs_tol=1e-12)


def test_strided_conv_references_match_torch(torch):
    F = torch.nn.functional
    q = get("strided.windows_layout")
    for H, W, kH, kW, s in small_cases(q, 8):
        v = torch.arange(H * W).view(H, W).unfold(0, kH, s).unfold(1, kW, s)
        assert q.reference(H, W, kH, kW, s) == (tuple(v.shape), v.stride())
    q = get("strided.unfold_shape")
    for xs, k, s, p in small_cases(q, 8):
        got = F.unfold(torch.zeros(xs), k, stride=s, padding=p).shape
        assert q.reference(xs, k, s, p) == tuple(got)
    q = get("strided.conv2d_via_unfold")
    for seed in (8, 9):
        for x, w, s, p, g in small_cases(q, seed):
            theirs = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), None, s, p, 1, g)
            np.testing.assert_allclose(q.reference(x, w, s, p, g), theirs.numpy(), atol=1e-9)
    q = get("strided.conv_cost")
    for n, ci, co, k, g, h, w in small_cases(q, 8):
        layer = torch.nn.Conv2d(ci, co, k, groups=g)
        params = sum(p.numel() for p in layer.parameters())
        per_output = layer.weight[0].numel()
        assert q.reference(n, ci, co, k, g, h, w) == (params, n * co * h * w * per_output)
    q = get("strided.channels_last_strides")
    for (shape,) in small_cases(q, 8):
        x = torch.zeros(shape).contiguous(memory_format=torch.channels_last)
        assert q.reference(shape) == x.stride()


def test_pooling_references_match_torch(torch):
    F = torch.nn.functional
    q = get("pooling.decoder_output_padding")
    for seed in (5, 6):
        for size, layers in small_cases(q, seed):
            lengths = [size]
            for k, s, p, d in layers:
                x = torch.zeros(1, 1, lengths[-1])
                lengths.append(F.conv1d(x, torch.zeros(1, 1, k), None, s, p, d).shape[-1])
            ops = q.reference(size, layers)
            assert len(ops) == len(layers)
            y = torch.zeros(1, 1, lengths[-1])
            for (k, s, p, d), op, want in zip(reversed(layers), ops, reversed(lengths[:-1])):
                y = F.conv_transpose1d(y, torch.zeros(1, 1, k), None, s, p, op, 1, d)
                assert y.shape[-1] == want, (size, layers, ops)
    q = get("pooling.pool_output_size")
    for n, k, s, p, c in small_cases(q, 5):
        out = F.max_pool1d(torch.zeros(1, 1, n), k, s, p, ceil_mode=c)
        assert q.reference(n, k, s, p, c) == out.shape[-1]
    q = get("pooling.avg_pool_border")
    for values, k, p, c in small_cases(q, 5):
        x = torch.tensor(values, dtype=torch.float64).view(1, 1, -1)
        out = F.avg_pool1d(x, k, stride=1, padding=p, count_include_pad=c)
        np.testing.assert_allclose(q.reference(values, k, p, c), out.flatten().numpy())
    q = get("pooling.receptive_field")
    for (layers,) in small_cases(q, 5):
        # by autograd, as lesson 15 does: input pixels with a non-zero gradient
        n = 200
        x = torch.ones(1, 1, n, requires_grad=True)
        y = x
        for k, s, d in layers:
            y = F.conv1d(y, torch.ones(1, 1, k, dtype=y.dtype), stride=s, dilation=d)
        y[0, 0, y.shape[-1] // 2].backward()
        hit = torch.nonzero(x.grad[0, 0]).flatten()
        assert q.reference(layers) == int(hit.max() - hit.min() + 1)
        # the "holes" misconception counts the pixels read (all-ones kernels: none cancel)
        (holes,) = [m for m in q.misconceptions if m.key == "holes"]
        assert holes.answer(layers) == len(hit)
    dilated = ((3, 1, 2), (3, 1, 2))
    assert q.reference(dilated) == 9 and holes.answer(dilated) == 5  # 9-pixel span, 5 read


def test_tiny_cnn_references_match_torch(torch):
    nn, F = torch.nn, torch.nn.functional

    def build(c, layers):
        mods, features = [], None
        for layer in layers:
            if layer[0] == "conv":
                mods.append(nn.Conv2d(c, layer[1], layer[2], layer[3], layer[4]))
                c = layer[1]
            elif layer[0] == "pool":
                mods.append(nn.MaxPool2d(layer[1], layer[2]))
            else:
                if features is None:
                    mods.append(nn.Flatten())
                    features = nn.LazyLinear(layer[1])
                    mods.append(features)
                else:
                    mods.append(nn.Linear(mods[-1].out_features, layer[1]))
        return nn.Sequential(*mods)

    q = get("cnn.in_features")
    for c, h, w, layers in small_cases(q, 3):
        out = build(c, layers)(torch.zeros(2, c, h, w))
        assert q.reference(c, h, w, layers) == out.view(2, -1).shape[1]
    q = get("cnn.count_parameters")
    for c, h, w, layers in small_cases(q, 3):
        model = build(c, layers)
        model(torch.zeros(1, c, h, w))  # materialise the lazy Linear
        assert q.reference(c, h, w, layers) == sum(p.numel() for p in model.parameters())
    q = get("cnn.mismatch_shapes")
    for b, c, h, w, i, o, flatten in small_cases(q, 3):
        x = torch.zeros(b, c, h, w)
        x = {"batch": x.view(b, -1), "all": x.view(-1), "none": x}[flatten]
        with pytest.raises(RuntimeError) as info:
            nn.Linear(i, o)(x)
        (m1, m2) = q.reference(b, c, h, w, i, o, flatten)
        assert str(info.value) == (
            f"mat1 and mat2 shapes cannot be multiplied ({m1[0]}x{m1[1]} and {m2[0]}x{m2[1]})"
        )
    q = get("cnn.flatten_for_linear")
    for (x,) in small_cases(q, 3):
        ours, theirs = q.reference(x), to_torch(torch, x).flatten(1)
        assert ours.shape == theirs.shape and ours.stride() == theirs.stride()
        np.testing.assert_array_equal(_np(ours), theirs.numpy())
        shares = ours.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert shares == x.is_contiguous()
    q = get("cnn.cross_entropy")
    for z, t in small_cases(q, 3):
        theirs = F.cross_entropy(torch.from_numpy(z), torch.tensor(t)).item()
        assert math.isclose(q.reference(z, t), theirs, rel_tol=1e-9, abs_tol=1e-12)


# ---------------------------------------------------------------------------- lessons and notebooks
_HEADING = re.compile(r"^## \S+ .* \(after lesson (\d\d)\)$", re.MULTILINE)

# the 19 value questions that could be answered by running code already in the notebook (before
# issue 14): at least half became function questions whose inputs the grader draws
_FORMER_VALUE_QUESTIONS = (
    "conv.valid_shape",
    "conv.scipy_shapes",
    "conv.padding_modes",
    "conv.same_padding",
    "inputs.lecture_unsqueeze",
    "inputs.kernel_spec",
    "inputs.shape_a",
    "inputs.shape_b",
    "xcorr.lecture_row",
    "xcorr.experiment",
    "channels.groups_legal",
    "channels.depthwise",
    "strides.transpose",
    "strides.permute",
    "strides.slice",
    "strides.expand",
    "views.view_works",
    "views.contiguous_flags",
    "views.share_storage",
)


def _question_lessons(path: Path) -> list[tuple[str, int]]:
    """(question id, lesson) for every answer cell, from the heading above it."""
    nb = json.loads(path.read_text())
    out, lesson = [], None
    for cell in nb["cells"]:
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if cell["cell_type"] == "markdown" and src.startswith("## "):
            m = _HEADING.match(src.splitlines()[0])
            assert m, f"{path.name}: question heading without '(after lesson NN)': {src[:60]!r}"
            lesson = int(m.group(1))
            assert f"../lessons/{lesson:02d}_" in src, f"{path.name}: no link to lesson {lesson}"
        role = cell.get("metadata", {}).get("tensorlab", {}).get("role")
        if role == "answer":
            out.append((cell["metadata"]["tensorlab"]["question"], lesson))
    return out


def test_every_question_says_its_lesson_and_questions_follow_the_lessons():
    by_lesson: dict[int, list[str]] = {}
    for folder in ("solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            pairs = _question_lessons(path)
            lessons = [n for _, n in pairs]
            assert lessons == sorted(lessons), f"{folder}/{path.name}: not in lesson order"
            assert all(1 <= n <= 21 for n in lessons)
            if folder == "solutions":
                for qid, n in pairs:
                    by_lesson.setdefault(n, []).append(qid)
    assert len(by_lesson[12]) >= 2 + 2 and len(by_lesson[13]) >= 3  # 12: + interleave, expand
    for lesson in (14, 15, 16, 18):
        assert len(by_lesson[lesson]) >= 3, lesson
    assert len(by_lesson[17]) + len(by_lesson[18]) >= 8  # issue 24: why convolution, going up
    new = [q for q in QUESTIONS if q.notebook[:2] in ("06", "07", "08", "09")]
    assert len(new) >= 18
    names = {q.name for q in QUESTIONS if q.kind == "function"}
    assert {"conv2d_via_unfold", "receptive_field", "decoder_output_padding"} <= names
    # the five original notebooks keep their names
    stems = {p.stem for p in (ROOT / "exercises").glob("*.ipynb")}
    assert {"01_convolution", "02_conv2d_inputs", "03_channels_groups", "04_strides"} <= stems
    assert "05_views" in stems


def test_most_former_value_questions_now_draw_their_inputs_at_grade_time():
    kinds = [get(qid).kind for qid in _FORMER_VALUE_QUESTIONS]
    assert kinds.count("function") * 2 >= len(_FORMER_VALUE_QUESTIONS)
    for qid in _FORMER_VALUE_QUESTIONS:
        q = get(qid)
        if q.kind == "function":  # hidden inputs: another seed, other cases
            assert make_cases(q, 1) != make_cases(q, 2) or len(make_cases(q, 1)) > 6, qid


def _numbers_in(v) -> list:
    if isinstance(v, (tuple, list, frozenset)):
        return [n for x in v for n in _numbers_in(x)]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [v]
    return []


def test_value_misconceptions_keep_the_answer_for_the_second_attempt():
    """A value question's misconception message never contains the expected answer's numbers
    (shape entries and the like); ``detail`` adds them from the second failed attempt."""
    for q in QUESTIONS:
        if q.kind != "value" or q.reference is None:
            continue
        flat = _numbers_in(q.reference())
        numbers = {str(int(v)) for v in flat if float(v).is_integer() and abs(v) >= 2}
        for m in q.misconceptions:
            said = set(re.findall(r"\d+", m.message))
            leaked = numbers & said
            assert len(leaked) < len(numbers) or not numbers, (q.id, m.key, leaked)


# ---------------------------------------------------------------------------- rules: skip the idea
# Each answer below gets the right values by calling what the exercise asks to rebuild; each must
# fail at the "rules" stage the same way inline (the live function, ``names_used``) and in batch
# grading (the source, ``answer_names``), also when the name is reached through an alias, a
# helper, or an import under another name.
_TEMPLATE = "import numpy as np\n\nimport tensorlab\nimport tensorlab.nn.functional as F\n"
_CONV = "def conv2d_via_unfold(x, w, stride, padding, groups):\n"
_CONV_ARGS = "tensorlab.tensor(x), tensorlab.tensor(w), None, stride, padding, 1, groups"
_GRAD = "def numerical_grad(x, w, eps):\n"
_GRAD_BODY = (
    "    wt = tensorlab.tensor(w, requires_grad=True)\n"
    "    (F.conv2d(tensorlab.tensor(x)[None, None], wt[None, None]) ** 4).sum().{}()\n"
    "    return wt.grad.numpy()\n"
)
_POOL = "def avg_pool_border(values, kernel_size, padding, count_include_pad):\n"
_POOL_CALL = (
    "    x = tensorlab.tensor([[list(values)]], dtype=tensorlab.float64)\n"
    "    out = {}(x, kernel_size, 1, padding, count_include_pad=count_include_pad)\n"
    "    return tuple(out.flatten().tolist())\n"
)
_CE = "def cross_entropy(logits, targets):\n"
_CE_CALL = "    return {}(tensorlab.tensor(logits), tensorlab.tensor(list(targets))).item()\n"

CHEATS = [
    # 7.3 conv2d_via_unfold through conv2d
    ("strided.conv2d_via_unfold", "direct", _CONV + f"    return F.conv2d({_CONV_ARGS})\n",
     "conv2d"),
    ("strided.conv2d_via_unfold", "alias",
     f"c2 = F.conv2d\n\n\n{_CONV}    return c2({_CONV_ARGS})\n", "conv2d"),
    ("strided.conv2d_via_unfold", "helper",
     f"def _windows(*a):\n    return F.conv2d(*a)\n\n\n{_CONV}    return _windows({_CONV_ARGS})\n",
     "conv2d"),
    ("strided.conv2d_via_unfold", "import as",
     f"from tensorlab.nn.functional import conv2d as mix\n\n\n{_CONV}    return mix({_CONV_ARGS})\n",
     "conv2d"),
    ("strided.conv2d_via_unfold", "a layer",
     _CONV + "    layer = tensorlab.nn.Conv2d(x.shape[1], w.shape[0], w.shape[-1], stride,"
     " padding, groups=groups, bias=False, dtype=tensorlab.float64)\n"
     "    layer.weight.data = tensorlab.tensor(w)\n"
     "    return layer(tensorlab.tensor(x)).detach()\n", "Conv2d"),
    ("strided.conv2d_via_unfold", "scipy",
     _CONV + "    import scipy.signal as ss\n    return ss.correlate(x, w)\n", "signal"),
    # 6.3 numerical_grad through autograd
    ("autograd.numerical_grad", "direct", _GRAD + _GRAD_BODY.format("backward"), "backward"),
    ("autograd.numerical_grad", "helper",
     "def _exact(x, w):\n" + _GRAD_BODY.format("backward") + f"\n\n{_GRAD}    return _exact(x, w)\n",
     "backward"),
    ("autograd.numerical_grad", "autograd.grad",
     _GRAD + "    wt = tensorlab.tensor(w, requires_grad=True)\n"
     "    loss = (F.conv2d(tensorlab.tensor(x)[None, None], wt[None, None]) ** 4).sum()\n"
     "    return tensorlab.autograd.grad(loss, wt)[0].numpy()\n", "autograd"),
    ("autograd.numerical_grad", "import as",
     "from tensorlab.autograd import grad as slope\n\n\n" + _GRAD
     + "    wt = tensorlab.tensor(w, requires_grad=True)\n"
     "    loss = (F.conv2d(tensorlab.tensor(x)[None, None], wt[None, None]) ** 4).sum()\n"
     "    return slope(loss, wt)[0].numpy()\n", "autograd"),
    # 8.3 avg_pool_border through avg_pool1d
    ("pooling.avg_pool_border", "direct", _POOL + _POOL_CALL.format("F.avg_pool1d"),
     "avg_pool1d"),
    ("pooling.avg_pool_border", "alias",
     "mean_of = F.avg_pool1d\n\n\n" + _POOL + _POOL_CALL.format("mean_of"), "avg_pool1d"),
    ("pooling.avg_pool_border", "import as",
     "from tensorlab.nn.functional import avg_pool1d as smooth\n\n\n" + _POOL
     + _POOL_CALL.format("smooth"), "avg_pool1d"),
    ("pooling.avg_pool_border", "a layer",
     _POOL + "    x = tensorlab.tensor([[list(values)]], dtype=tensorlab.float64)\n"
     "    pool = tensorlab.nn.AvgPool1d(kernel_size, 1, padding, "
     "count_include_pad=count_include_pad)\n"
     "    return tuple(pool(x).flatten().tolist())\n", "AvgPool1d"),
    # 9.5 cross_entropy "with numpy" through F.cross_entropy
    ("cnn.cross_entropy", "direct", _CE + _CE_CALL.format("F.cross_entropy"), "cross_entropy"),
    ("cnn.cross_entropy", "alias",
     "loss_fn = F.cross_entropy\n\n\n" + _CE + _CE_CALL.format("loss_fn"), "cross_entropy"),
    ("cnn.cross_entropy", "helper",
     "def _ce(z, t):\n    return F.cross_entropy(z, t)\n\n\n" + _CE + _CE_CALL.format("_ce"),
     "cross_entropy"),
    ("cnn.cross_entropy", "import as",
     "from tensorlab.nn.functional import cross_entropy as xent\n\n\n" + _CE
     + _CE_CALL.format("xent"), "cross_entropy"),
    ("cnn.cross_entropy", "log_softmax",
     _CE + "    logp = tensorlab.tensor(logits).log_softmax(1)\n"
     "    return -logp[list(range(len(targets))), list(targets)].mean().item()\n", "tensorlab"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("qid", "how", "source", "name"), CHEATS, ids=[f"{c[0]}:{c[1]}" for c in CHEATS]
)
def test_skipping_the_idea_breaks_the_rule_inline_and_in_batch(qid, how, source, name):
    from tensorlab.grading.judge import rule_check

    q = get(qid)
    ns: dict = {}
    exec(compile(_TEMPLATE + source, f"<{how}>", "exec"), ns)
    fn = ns[q.name]
    inline = evaluate(q, fn)
    assert inline.status == "failed", inline.message
    assert inline.misconception is not None and inline.misconception.key == "forbidden"
    assert inline.stage == "rules", (inline.stage, inline.message)
    assert "Allowed: " + q.allowed.says in inline.message
    batch = rule_check(q, source, [_TEMPLATE, source])
    assert batch is not None and name in batch and q.allowed.says in batch, batch
    # batch grading checks the rule once the values pass; 6.3's exact gradient fails them first
    # with the same misconception, so both paths score the cheat 0 and say why
    results = collect_function_results(fn, q, 0)
    judged = judge_function(q, results, 0)
    if qid == "autograd.numerical_grad":
        assert judged.stage == "values" and judged.misconception.key == "forbidden"
    elif how != "scipy":  # (that one only shows the module rule; its values are wrong anyway)
        assert judged.status == "passed"  # the values are right: only the rule catches it


@pytest.mark.parametrize("qid", sorted({c[0] for c in CHEATS}))
def test_the_solutions_keep_the_rules_inline_and_in_batch(qid):
    """The honest answers (the solution notebooks' cells, with their notebook's other cells as
    the context) break no rule on either path."""
    from tensorlab.grading.allow import names_violation
    from tensorlab.grading.judge import rule_check

    q = get(qid)
    nb = json.loads((ROOT / "solutions" / f"{q.notebook}.ipynb").read_text())
    cells = [
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in nb["cells"]
        if c["cell_type"] == "code"
    ]
    (own,) = [
        "".join(c["source"])
        for c in nb["cells"]
        if c.get("metadata", {}).get("tensorlab", {}) == {"question": qid, "role": "answer"}
    ]
    assert rule_check(q, own, cells) is None
    assert names_violation(q.allowed, _solution_answers()[qid]) is None
