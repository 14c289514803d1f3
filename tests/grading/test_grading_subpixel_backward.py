"""Exercises 12 (lesson 21): every reference agrees with real torch 2.13 on the cases the grader
draws, and each question holds against the attacks of the assessment issue (33): a library op as
a shortcut, a dummy tensor to brute-force a derive question, a tensor built in a helper. Honest
answers written in unusual styles pass."""

from __future__ import annotations

import re

import numpy as np
import pytest
from grading_class import solution_answers

from tensorlab.grading import for_notebook, get
from tensorlab.grading.allow import DERIVE
from tensorlab.grading.judge import HUGE, collect_function_results, judge_function, largest_size
from tensorlab.grading.model import make_cases
from tensorlab.grading.rules import rule_check

NB = "12_subpixel_kernels_backward"
SEEDS = (0, 1, 2)
TEMPLATE = "import numpy as np\n\nimport tensorlab\nimport tensorlab.nn.functional as F\n"


def _cases(qid: str):
    return [
        args for seed in SEEDS for args in make_cases(get(qid), seed) if largest_size(args) < HUGE
    ]


def _judge_source(q, source: str):
    """(the rule message or None, the values verdict) of ``source`` in a notebook whose first
    cell is ``TEMPLATE``: what batch grading reads and what it computes."""
    ns: dict = {}
    exec(compile(TEMPLATE + source, f"<{q.id}>", "exec"), ns)
    broken = rule_check(q, source, [TEMPLATE, source])
    return broken, judge_function(q, collect_function_results(ns[q.name], q, 0), 0)


def test_the_notebook_has_its_questions_and_kinds():
    qs = for_notebook(NB)
    assert len(qs) >= 4
    assert {q.assessment for q in qs} == {"derive", "implement"}
    for q in qs:
        assert q.misconceptions and q.hints
        if q.assessment == "derive":
            assert q.allowed is DERIVE and q.huge
            for seed in (0, 1):
                assert any(largest_size(c) >= HUGE for c in make_cases(q, seed))


# ---------------------------------------------------------------------------- references vs torch
def test_shuffle_shape_and_views_match_torch(torch):
    F = torch.nn.functional
    q = get("shuffle.output_shape")
    for shape, r in _cases(q.id):
        assert q.reference(shape, r) == tuple(F.pixel_shuffle(torch.zeros(shape), r).shape)
    q = get("shuffle.by_views")
    for x, r in _cases(q.id):
        want = F.pixel_shuffle(torch.from_numpy(x.numpy().copy()), r).numpy()
        np.testing.assert_array_equal(q.reference(x, r).numpy(), want)


def test_shuffle_source_matches_torch(torch):
    q = get("shuffle.source_index")
    for c, i, j, r in _cases(q.id):
        shape = (1, (c + 1) * r * r, i // r + 1, j // r + 1)
        x = torch.arange(int(np.prod(shape))).view(shape)
        flat = torch.nn.functional.pixel_shuffle(x, r)[0, c, i, j].item()
        want = tuple(int(v) for v in np.unravel_index(flat, shape[1:]))
        assert q.reference(c, i, j, r) == want


def _kernel(torch, family, k):
    a = torch.arange(k).view(-1, 1)
    b = torch.arange(k).view(1, -1)
    if family == "box":
        return torch.ones(k, k)
    if family == "checkerboard":
        return ((a + b) % 2 * -2 + 1).double()
    if family == "diagonal":
        return torch.eye(k)
    if family == "cross":
        m = k // 2
        return ((a == m) | (b == m)).double()
    return ((a == 0) | (a == k - 1) | (b == 0) | (b == k - 1)).double()


def test_kernel_ranks_match_torch(torch):
    q = get("kernels.rank")
    for family, k in _cases(q.id):
        K = _kernel(torch, family, k)
        assert q.reference(family, k) == torch.linalg.matrix_rank(K).item(), (family, k)
    for family in ("box", "checkerboard"):  # rank 1: two 1-D convolutions compute it
        K = _kernel(torch, family, 5).double()
        U, S, Vh = torch.linalg.svd(K)
        x = torch.randn(1, 1, 9, 9, dtype=torch.float64)
        col, row = (S[0] * U[:, 0]).view(1, 1, 5, 1), Vh[0].view(1, 1, 1, 5)
        F = torch.nn.functional
        torch.testing.assert_close(F.conv2d(F.conv2d(x, col), row), F.conv2d(x, K.view(1, 1, 5, 5)))


def test_output_padding_gives_the_input_gradient_its_size(torch):
    F = torch.nn.functional
    q = get("backward.output_padding")
    for size, k, s, p, d in _cases(q.id):
        x = torch.zeros(1, 1, size, 3, requires_grad=True)
        w = torch.randn(1, 1, k, 1)
        y = F.conv2d(x, w, stride=(s, 1), padding=(p, 0), dilation=(d, 1))
        g = torch.randn(y.shape)
        y.backward(g)
        op = q.reference(size, k, s, p, d)
        back = F.conv_transpose2d(
            g, w, stride=(s, 1), padding=(p, 0), output_padding=(op, 0), dilation=(d, 1)
        )
        assert back.shape == x.shape
        torch.testing.assert_close(back, x.grad)


def test_input_gradient_matches_autograd(torch):
    q = get("backward.input_grad")
    for g, w, s, p, size in _cases(q.id):
        x = torch.zeros(g.shape[0], w.shape[1], *size, dtype=torch.float64, requires_grad=True)
        y = torch.nn.functional.conv2d(x, torch.from_numpy(w), stride=s, padding=p)
        assert y.shape == g.shape
        y.backward(torch.from_numpy(g))
        np.testing.assert_allclose(q.reference(g, w, s, p, size), x.grad.numpy(), atol=1e-12)


# ---------------------------------------------------------------------------- attacks
SHORTCUTS = [  # a library op (or its layer, or its sibling) instead of the idea
    ("shuffle.by_views", "def pixel_shuffle_views(x, r):\n    return F.pixel_shuffle(x, r)\n",
     "F.pixel_shuffle"),
    ("shuffle.by_views", "def pixel_shuffle_views(x, r):\n"
     "    return tensorlab.nn.PixelShuffle(r)(x)\n", "PixelShuffle"),
    ("shuffle.by_views", "from tensorlab import pixel_shuffle as ps\n\n\n"
     "def pixel_shuffle_views(x, r):\n    return ps(x, r)\n", "pixel_shuffle"),
    ("shuffle.by_views", "def pixel_shuffle_views(x, r):\n"
     "    n, c, h, w = x.shape\n    k = c // (r * r)\n"
     "    y = tensorlab.from_numpy(np.zeros((n, k, h * r, w * r)))\n"
     "    return F.pixel_unshuffle(y, r) if False else tensorlab.pixel_shuffle(x, r)\n",
     "pixel_shuffle"),
    ("backward.input_grad", "def conv_input_grad(g, w, stride, padding, in_size):\n"
     "    op = tuple((n + 2 * padding - w.shape[-1]) % stride for n in in_size)\n"
     "    return F.conv_transpose2d(tensorlab.tensor(g), tensorlab.tensor(w), stride=stride,"
     " padding=padding, output_padding=op).numpy()\n", "F.conv_transpose2d"),
    ("backward.input_grad", "def conv_input_grad(g, w, stride, padding, in_size):\n"
     "    x = tensorlab.zeros(g.shape[0], w.shape[1], *in_size, dtype=tensorlab.float64,"
     " requires_grad=True)\n"
     "    F.conv2d(x, tensorlab.tensor(w), stride=stride, padding=padding)"
     ".backward(tensorlab.tensor(g))\n    return x.grad.numpy()\n", "x.grad"),
    ("backward.input_grad", "def conv_input_grad(g, w, stride, padding, in_size):\n"
     "    from scipy.signal import correlate\n    return correlate(g, w)\n", "scipy"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("qid", "source", "construct"), SHORTCUTS, ids=[f"{s[0]}:{s[2]}" for s in SHORTCUTS]
)
def test_a_library_shortcut_breaks_the_allow_list(qid, source, construct):
    q = get(qid)
    broken = rule_check(q, source, [TEMPLATE, source])
    assert broken is not None and construct in broken, broken
    assert "Allowed: " + q.allowed.says in broken


BRUTE_FORCE = {  # run the op on a dummy tensor of the asked size, or search a built one
    "shuffle.output_shape": "def pixel_shuffle_shape(shape, r):\n"
    "    x = tensorlab.zeros(()).expand(*shape)  # no memory: every element the same\n"
    "    return tuple(F.pixel_shuffle(x, r).shape)\n",
    "shuffle.source_index": "def shuffle_source(c, i, j, r):\n"
    "    shape = ((c + 1) * r * r, i // r + 1, j // r + 1)\n"
    "    x = tensorlab.arange(shape[0] * shape[1] * shape[2]).view(shape)\n"
    "    flat = F.pixel_shuffle(x, r)[c, i, j].item()\n"
    "    return tuple(int(v) for v in np.unravel_index(flat, shape))\n",
    "kernels.rank": "def kernel_rank(family, k):\n"
    "    a, b = np.arange(k)[:, None], np.arange(k)[None, :]\n"
    "    K = {'box': np.ones((k, k)), 'checkerboard': (-1.0) ** (a + b), 'diagonal': np.eye(k),\n"
    "         'cross': ((a == k // 2) | (b == k // 2)) * 1.0,\n"
    "         'border': ((a == 0) | (a == k - 1) | (b == 0) | (b == k - 1)) * 1.0}[family]\n"
    "    return int(np.linalg.matrix_rank(K))\n",
    "backward.output_padding": "def grad_output_padding(size, kernel_size, stride, padding,"
    " dilation):\n"
    "    x = tensorlab.zeros(1, 1, size, 1)\n"
    "    y = F.conv2d(x, tensorlab.zeros(1, 1, kernel_size, 1), stride=(stride, 1),"
    " padding=(padding, 0), dilation=(dilation, 1))\n"
    "    back = F.conv_transpose2d(y, tensorlab.zeros(1, 1, kernel_size, 1), stride=(stride, 1),"
    " padding=(padding, 0), dilation=(dilation, 1))\n"
    "    return size - back.shape[2]\n",
}


@pytest.mark.parametrize("qid", sorted(BRUTE_FORCE))
def test_brute_force_on_a_dummy_tensor_fails_a_derive_question(qid):
    q = get(qid)
    broken, verdict = _judge_source(q, BRUTE_FORCE[qid])
    assert broken is not None and "Allowed: " + DERIVE.says in broken, broken
    # on the values alone (the allow-list aside), the hidden huge inputs fail it
    assert verdict.status == "failed", (qid, verdict.message)
    assert largest_size(verdict.case_args) >= HUGE, (qid, verdict.case_args, verdict.message)


def _solution(q) -> str:
    src = solution_answers(f"{q.notebook}.ipynb")[q.id]
    return re.sub(r"\s*### (BEGIN|END) SOLUTION", "", src)


@pytest.mark.parametrize("qid", [q.id for q in for_notebook(NB)])
def test_a_tensor_built_in_a_helper_is_followed(qid):
    """The honest answer, plus a helper that "checks" something with a tensor (for the
    implement questions: with the very op): the allow-list names it, through the helper."""
    q = get(qid)
    helper = "def _peek(*args):\n    return F.pixel_shuffle(tensorlab.zeros(1, 4, 1, 1), 2)\n\n\n"
    source = helper + _solution(q).replace('"""\n', '"""\n    _peek()\n', 1)
    broken = rule_check(q, source, [TEMPLATE, source])
    assert broken is not None and "_peek" in broken, broken
    assert "tensorlab.zeros" in broken or "F.pixel_shuffle" in broken, broken


UNUSUAL = {  # honest answers a reviewer might not expect: they must pass
    "shuffle.output_shape": "def pixel_shuffle_shape(shape, r):\n"
    "    head, (c, h, w) = list(shape[:-3]), shape[-3:]\n"
    "    return tuple(head + [c // r // r, h * r, w * r])\n",
    "shuffle.source_index": "def shuffle_source(c, i, j, r):\n"
    "    offset = (i - i // r * r) * r + j - j // r * r\n"
    "    return (c * r**2 + offset, (i - i % r) // r, (j - j % r) // r)\n",
    "shuffle.by_views": "def pixel_shuffle_views(x, r):\n"
    "    n, crr, h, w = x.size()\n    c = crr // r // r\n"
    "    t = x.reshape(n, c, r, r, h, w).transpose(3, 4).transpose(2, 3)  # (n, c, h, r, r, w)\n"
    "    t = t.transpose(4, 5)  # (n, c, h, r, w, r)\n"
    "    return t.contiguous().view(n, c, h * r, w * r)\n",
    "kernels.rank": "import math\n\n\n"
    "def kernel_rank(family, k):\n"
    "    two_kinds_of_rows = {'cross': k > 1, 'border': k > 2}\n"
    "    if family == 'diagonal':\n        return math.prod([k])\n"
    "    return 2 if two_kinds_of_rows.get(family, False) else 1\n",
    "backward.output_padding": "def grad_output_padding(size, kernel_size, stride, padding,"
    " dilation):\n"
    "    out = (size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1\n"
    "    back = (out - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + 1\n"
    "    return size - back\n",
    "backward.input_grad": "def conv_input_grad(g, w, stride, padding, in_size):\n"
    "    # the full correlation of the zero-spread gradient with the flipped kernel\n"
    "    g, w = np.asarray(g, float), np.asarray(w, float)\n"
    "    n, o, ho, wo = g.shape\n    k = w.shape[-1]\n    h, wd = in_size\n"
    "    spread = np.zeros((n, o, h + 2 * padding - k + 1, wd + 2 * padding - k + 1))\n"
    "    spread[:, :, : (ho - 1) * stride + 1 : stride, : (wo - 1) * stride + 1 : stride] = g\n"
    "    q = k - 1\n    padded = np.pad(spread, ((0, 0), (0, 0), (q, q), (q, q)))\n"
    "    flipped = w[:, :, ::-1, ::-1]\n"
    "    win = np.lib.stride_tricks.sliding_window_view(padded, (k, k), axis=(2, 3))\n"
    "    full = np.einsum('nohwab,ocab->nchw', win, flipped)\n"
    "    return full[:, :, padding : padding + h, padding : padding + wd]\n",
}


@pytest.mark.parametrize("qid", sorted(UNUSUAL))
def test_honest_unusual_answers_pass(qid):
    q = get(qid)
    broken, verdict = _judge_source(q, UNUSUAL[qid])
    assert broken is None, (qid, broken)
    assert verdict.status == "passed", (qid, verdict.message, verdict.case_args)


def test_every_catalogued_misconception_is_told_apart():
    """Each wrong answer of the catalogue fails on the grader's own cases with its own message
    (the catalogue test of test_grading_questions runs the same for every notebook; this one
    keeps notebook 12's count visible)."""
    n = 0
    for q in for_notebook(NB):
        for m in q.misconceptions:
            if m.key == "forbidden":
                continue
            for wrong in m.wrong_answers():
                verdict = judge_function(q, collect_function_results(wrong, q, 0), 0)
                assert verdict.status == "failed", (q.id, m.key)
                assert verdict.misconception is not None and verdict.misconception.key == m.key
                n += 1
    assert n >= 15
