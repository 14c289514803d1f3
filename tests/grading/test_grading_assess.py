"""What a passing check proves (DESIGN.md 6b): every question has a kind; every derive and
rule-bearing question rejects at least one shortcut and accepts at least one unusual honest
answer, on the source as batch grading reads it (``rule_check``) and on the values.

Shortcuts "run it instead of deriving it" are real: they build tensors of the grader's sizes and
run the very op. The hidden inputs of derive questions have sizes no tensor can have, so such
a function fails them (named: "your function built a tensor of this size") even before the
allow-list names what it used."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from grading_class import solution_answers

from tensorlab.grading import all_questions, get
from tensorlab.grading.allow import DERIVE
from tensorlab.grading.judge import HUGE, collect_function_results, judge_function, largest_size
from tensorlab.grading.kinds import kind_note
from tensorlab.grading.model import make_cases
from tensorlab.grading.release import ASSESSMENTS
from tensorlab.grading.rules import has_rules, rule_check

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = all_questions()
TEMPLATE = "import numpy as np\n\nimport tensorlab\nimport tensorlab.nn.functional as F\n"
DERIVED = [q for q in QUESTIONS if q.assessment == "derive"]
RULED = [q for q in QUESTIONS if has_rules(q)]


def _solution(q) -> str:
    src = solution_answers(f"{q.notebook}.ipynb")[q.id]
    return re.sub(r"\s*### (BEGIN|END) SOLUTION", "", src)


def _judge_source(q, source: str):
    """(the rule message, the values verdict) of an answer written as ``source`` in a notebook
    whose first cell is ``TEMPLATE``."""
    ns: dict = {}
    exec(compile(TEMPLATE + source, f"<{q.id}>", "exec"), ns)
    fn = ns[q.name]
    broken = rule_check(q, source, [TEMPLATE, source])
    return broken, judge_function(q, collect_function_results(fn, q, 0), 0)


# ---------------------------------------------------------------------------- kinds
def test_every_question_has_a_kind_and_its_protection():
    for q in QUESTIONS:
        assert q.assessment in ASSESSMENTS, q.id
        if q.assessment == "derive":
            assert q.allowed is DERIVE, q.id
        if q.assessment == "implement":
            assert q.allowed is not None and q.allowed.says, q.id
        if q.assessment == "predict":
            assert q.kind == "value" and q.points == 0 and q.predict == "formative", q.id
        assert not q.forbidden, q.id  # rules are allow-lists now
    kinds = {q.assessment for q in QUESTIONS}
    assert kinds == {"derive", "implement", "predict", "free"}


def test_derive_questions_with_sized_inputs_have_inputs_no_tensor_can_have():
    without = {  # their output's length is the input's size: a huge one cannot be returned
        "autograd.repeat_sources",
        "autograd.forgot_zero_grad",
        "why.stamp_counts",
        "why.interior_pattern",
        "why.bilinear_taps",
    }
    for q in DERIVED:
        if q.id in without:
            continue
        assert q.huge, q.id
        for seed in (0, 1):
            cases = make_cases(q, seed)
            assert any(largest_size(c) >= HUGE for c in cases), q.id
            for args in cases:  # the reference is arithmetic: instant on every input
                q.reference(*args)


def test_every_notebook_states_each_question_kind():
    for q in QUESTIONS:
        nb = json.loads((ROOT / "exercises" / f"{q.notebook}.ipynb").read_text())
        cells = nb["cells"]
        (i,) = [
            k
            for k, c in enumerate(cells)
            if c.get("metadata", {}).get("tensorlab", {}) == {"question": q.id, "role": "answer"}
        ]
        md = next(c for c in reversed(cells[:i]) if c["cell_type"] == "markdown")
        text = " ".join("".join(md["source"]).split())
        assert " ".join(kind_note(q).split()) in text, q.id


# ---------------------------------------------------------------------------- derive: shortcuts
RUN_THE_OP = {
    "strides.contiguous": "def contiguous_strides(shape):\n"
    "    return tuple(tensorlab.zeros(shape).stride())\n",
    "strides.permute": "def permuted_layout(shape, dims):\n"
    "    y = tensorlab.zeros(shape).permute(*dims)\n"
    "    return (tuple(y.shape), y.stride(), y.storage_offset())\n",
    "strides.slice": "def sliced_layout(shape, index, start, step):\n"
    "    n = 1\n    for s in shape:\n        n *= s\n"
    "    y = tensorlab.arange(n).view(shape)[index, :, start::step]\n"
    "    return (tuple(y.shape), y.stride(), y.storage_offset())\n",
    "strides.expand": "def expanded(n, rows):\n"
    "    b = tensorlab.arange(n).view(1, n).expand(rows, n)\n"
    "    return (b.stride(), b.is_contiguous())\n",
    "conv.valid_shape": "def valid_shape(image_shape, kernel_shape):\n"
    "    y = F.conv2d(tensorlab.zeros(1, 1, *image_shape), tensorlab.zeros(1, 1, *kernel_shape))\n"
    "    return tuple(y.shape[2:])\n",
    "inputs.output_size": "def conv_output_size(size, kernel_size, stride, padding, dilation):\n"
    "    x, w = tensorlab.zeros(1, 1, size), tensorlab.zeros(1, 1, kernel_size)\n"
    "    return F.conv1d(x, w, stride=stride, padding=padding, dilation=dilation).shape[-1]\n",
    "inputs.shape_a": "def conv2d_shape(x_shape, w_shape, stride, padding):\n"
    "    y = F.conv2d(tensorlab.zeros(x_shape), tensorlab.zeros(w_shape), stride=stride,"
    " padding=padding)\n    return tuple(y.shape)\n",
    "strided.unfold_shape": "def unfold_shape(x_shape, kernel_size, stride, padding):\n"
    "    x = tensorlab.zeros(()).expand(*x_shape)  # no memory: every element is the same\n"
    "    return tuple(F.unfold(x, kernel_size, stride=stride, padding=padding).shape)\n",
    "strided.windows_layout": "def windows_layout(H, W, kH, kW, stride):\n"
    "    v = tensorlab.arange(H * W).view(H, W).unfold(0, kH, stride).unfold(1, kW, stride)\n"
    "    return (tuple(v.shape), v.stride())\n",
    "why.pooled_shape": "def pooled_shape(shape, kernel_size, stride):\n"
    "    return tuple(F.max_pool2d(tensorlab.zeros(shape), kernel_size, stride=stride).shape)\n",
    "pooling.pool_output_size": "def pool_output_size(size, kernel_size, stride, padding, "
    "ceil_mode):\n    x = tensorlab.zeros(1, 1, size)\n"
    "    return F.max_pool1d(x, kernel_size, stride, padding, ceil_mode=ceil_mode).shape[-1]\n",
    "channels.weight_shape": "def weight_shape(in_channels, out_channels, kernel_size, groups):\n"
    "    layer = tensorlab.nn.Conv2d(in_channels, out_channels, kernel_size, groups=groups)\n"
    "    return tuple(layer.weight.shape)\n",
    "cnn.in_features": "def in_features(c, h, w, layers):\n"
    "    x = tensorlab.zeros(1, c, h, w)\n    for layer in layers:\n"
    "        if layer[0] == 'conv':\n"
    "            _, o, k, s, p = layer\n"
    "            x = F.conv2d(x, tensorlab.zeros(o, x.shape[1], k, k), stride=s, padding=p)\n"
    "        else:\n            x = F.max_pool2d(x, layer[1], layer[2])\n"
    "    return x.numel()\n",
    "why.stack_vs_single": "def stack_vs_single(c, n):\n"
    "    K = 2 * n + 1\n    count = lambda m: sum(p.numel() for p in m.parameters())\n"
    "    stack = sum(count(tensorlab.nn.Conv2d(c, c, 3, bias=False)) for _ in range(n))\n"
    "    return (K, stack, count(tensorlab.nn.Conv2d(c, c, K, bias=False)))\n",
}


@pytest.mark.parametrize("qid", sorted(RUN_THE_OP))
def test_running_the_op_fails_a_derive_question(qid):
    q = get(qid)
    broken, verdict = _judge_source(q, RUN_THE_OP[qid])
    assert broken is not None and "Allowed: " + DERIVE.says in broken, broken
    assert "tensorlab." in broken or "F." in broken, broken  # names what it ran
    # on the values alone (the allow-list aside), the hidden huge inputs fail it
    assert verdict.status == "failed", qid
    assert largest_size(verdict.case_args) >= HUGE, (qid, verdict.case_args, verdict.message)
    assert "Write the formula" in verdict.message, verdict.message


@pytest.mark.parametrize("q", DERIVED, ids=lambda q: q.id)
def test_a_tensor_anywhere_in_a_derive_answer_breaks_its_rule(q):
    """The honest answer with one tensor built on the way (a helper that "checks" with the op):
    the allow-list names it, through the helper."""
    helper = "def _peek(*args):\n    return tensorlab.zeros(2, 2).shape\n\n\n"
    source = helper + _solution(q).replace('"""\n', '"""\n    _peek()\n', 1)
    broken = rule_check(q, source, [TEMPLATE, source])
    assert broken is not None and "`tensorlab.zeros`" in broken and "_peek" in broken, broken


# ---------------------------------------------------------------------------- honest answers
UNUSUAL = {
    "strides.contiguous": "import math\n\n\ndef contiguous_strides(shape):\n"
    "    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))\n",
    "strides.storage_index": "from functools import reduce\n\n\n"
    "def storage_index(index, stride, offset):\n"
    "    return reduce(lambda acc, p: acc + p[0] * p[1], zip(index, stride), offset)\n",
    "conv.valid_shape": "valid_shape = lambda img, k: tuple(a - b + 1 for a, b in zip(img, k))\n",
    "conv.same_padding": "def same_padding(kernel_size, dilation):\n"
    "    span = dilation * (kernel_size - 1) + 1\n    return (span - 1) // 2\n",
    "inputs.output_size": "import math\n\n\n"
    "def conv_output_size(size, kernel_size, stride, padding, dilation):\n"
    "    reach = dilation * (kernel_size - 1)\n"
    "    return math.floor((size + 2 * padding - reach - 1) / stride) + 1"
    " if size < 2**50 else (size + 2 * padding - reach - 1) // stride + 1\n",
    "channels.operator_count": "def operator_count(in_channels, out_channels, groups):\n"
    "    per_group_in = in_channels // groups\n    return per_group_in * out_channels\n",
    "channels.groups_legal": "def groups_legal(i, o, g):\n    return not (i % g or o % g)\n",
    "strides.expand": "def expanded(n, rows):\n"
    "    contiguous = rows == 1  # a repeated row (stride 0) never is\n"
    "    return ((n if contiguous else 0, 1), contiguous)\n",
    "strided.conv_cost": "def conv_cost(n, c_in, c_out, k, groups, h_out, w_out):\n"
    "    weights = c_out * (c_in // groups) * k * k\n"
    "    macs = n * h_out * w_out * weights\n    return (weights + c_out, macs)\n",
    "strided.channels_last_strides": "def channels_last_strides(shape):\n"
    "    N, C, H, W = shape\n    c, w = 1, C\n    h = w * W\n    n = h * H\n"
    "    return (n, c, h, w)\n",
    "why.stamp_counts": "def stamp_counts(n, k, s):\n"
    "    length = (n - 1) * s + k\n"
    "    return tuple(len([i for i in range(n) if 0 <= p - i * s < k]) for p in range(length))\n",
    "why.interior_pattern": "def interior_pattern(w, s):\n    out = [0.0] * s\n"
    "    for t, v in enumerate(w):\n        out[t % s] += v\n    return tuple(out)\n",
    "pooling.avg_pool_border": "def avg_pool_border(values, kernel_size, padding, "
    "count_include_pad):\n    padded = [None] * padding + list(values) + [None] * padding\n"
    "    out = []\n    for i in range(len(padded) - kernel_size + 1):\n"
    "        win = [v for v in padded[i : i + kernel_size] if v is not None]\n"
    "        out.append(sum(win) / (kernel_size if count_include_pad else len(win)))\n"
    "    return tuple(out)\n",
    "why.overlapping_max_pool": "def overlapping_max_pool(values, kernel_size, stride):\n"
    "    out, i = [], 0\n    while i + kernel_size <= len(values):\n"
    "        best = values[i]\n        for v in values[i : i + kernel_size]:\n"
    "            best = v if v > best else best\n"
    "        out.append(float(best))\n        i += stride\n    return tuple(out)\n",
    "conv.convo2d": "def convo2d(input, kernel):\n"
    "    windows = np.lib.stride_tricks.sliding_window_view(input, kernel.shape)\n"
    "    return np.einsum('ijkl,kl->ij', windows, kernel[::-1, ::-1]).astype(np.float64)\n",
    "channels.conv2d_loops": "def conv2d_loops(x, w, groups):\n"
    "    O, Cg, kH, kW = w.shape\n    per = O // groups\n"
    "    win = np.lib.stride_tricks.sliding_window_view(x, (kH, kW), axis=(2, 3))\n"
    "    outs = [np.einsum('nchwij,cij->nhw', win[:, (o // per) * Cg : (o // per + 1) * Cg],"
    " w[o]) for o in range(O)]\n"
    "    return np.stack(outs, axis=1).astype(np.float64)\n",
    "conv.full_with_conv2d": "def full_convolve(x, k):\n"
    "    M, N = k.shape\n    flipped = np.ascontiguousarray(k[::-1, ::-1])\n"
    "    xt = tensorlab.from_numpy(x).unsqueeze(0).unsqueeze(0)\n"
    "    kt = tensorlab.from_numpy(flipped).view(1, 1, M, N)\n"
    "    return F.conv2d(F.pad(xt, (N - 1, N - 1, M - 1, M - 1)), kt)[0, 0]\n",
    "pooling.receptive_field": "def receptive_field(layers):\n"
    "    span, jump = 1, 1\n    for kernel, stride, dilation in layers:\n"
    "        first, last = 0, dilation * (kernel - 1)\n"
    "        span += (last - first) * jump\n        jump = jump * stride\n    return span\n",
    "why.bilinear_taps": "def bilinear_taps(kernel_size):\n"
    "    f = (kernel_size + 1) // 2\n    c = (kernel_size - 1) / 2  # the tent's centre\n"
    "    return tuple(1 - abs(i - c) / f for i in range(kernel_size))\n",
    "views.interleave": "def interleave(x, r):\n"
    "    return x[:, None].repeat(1, r).view(x.numel() * r)\n",
    "cnn.cross_entropy": "def cross_entropy(logits, targets):\n"
    "    z = np.asarray(logits, dtype=np.float64)\n"
    "    lse = np.logaddexp.reduce(z, axis=1)\n"
    "    picked = z[np.arange(len(targets)), np.asarray(targets)]\n"
    "    return float(np.mean(lse - picked))\n",
}


def _alias_and_helper(q, source: str) -> str:
    """``source`` rewritten as a learner might: the work in a private helper with other names,
    the answer bound to it by an assignment in the same cell."""
    impl = "_my_" + q.name
    return re.sub(rf"\bdef {q.name}\(", f"def {impl}(", source, count=1) + (
        f"\n\n{q.name} = {impl}\n"
    )


@pytest.mark.parametrize("q", RULED, ids=lambda q: q.id)
def test_honest_answers_in_other_styles_pass(q):
    sources = [_alias_and_helper(q, _solution(q))]
    if q.id in UNUSUAL:
        sources.append(UNUSUAL[q.id])
    for source in sources:
        broken, verdict = _judge_source(q, source)
        assert broken is None, (q.id, broken)
        assert verdict.status == "passed", (q.id, verdict.message, verdict.case_args)


def test_enough_unusual_answers():
    assert len(UNUSUAL) >= 20
    assert all(get(q).assessment in ("derive", "implement") for q in UNUSUAL)


# ---------------------------------------------------------------------------- implement
SIBLINGS = [  # another dimensionality, a _with_indices variant, a general library, the explainers
    ("why.overlapping_max_pool", "def overlapping_max_pool(values, kernel_size, stride):\n"
     "    x = tensorlab.tensor([[list(values)]], dtype=tensorlab.float64)\n"
     "    y = F.max_pool2d(x[None], (1, kernel_size), (1, stride))\n"
     "    return tuple(y.flatten().tolist())\n", "F.max_pool2d"),
    ("why.overlapping_max_pool", "def overlapping_max_pool(values, kernel_size, stride):\n"
     "    x = tensorlab.tensor([[list(values)]], dtype=tensorlab.float64)\n"
     "    return tuple(F.max_pool1d_with_indices(x, kernel_size, stride)[0].flatten().tolist())\n",
     "F.max_pool1d_with_indices"),
    ("why.overlapping_max_pool", "def overlapping_max_pool(values, kernel_size, stride):\n"
     "    from scipy.ndimage import maximum_filter1d\n"
     "    m = maximum_filter1d(np.asarray(values, float), kernel_size, origin=-(kernel_size // 2))\n"
     "    return tuple(float(v) for v in m[: len(values) - kernel_size + 1 : stride])\n",
     "scipy.ndimage"),
    ("why.stamp_counts", "def stamp_counts(n, k, s):\n"
     "    y = F.conv_transpose3d(tensorlab.ones(1, 1, 1, 1, n), tensorlab.ones(1, 1, 1, 1, k),"
     " stride=(1, 1, s))\n    return tuple(int(v) for v in y.flatten().tolist())\n",
     "F.conv_transpose3d"),
    ("why.stamp_counts", "def stamp_counts(n, k, s):\n"
     "    up = np.zeros((n - 1) * s + 1)\n    up[::s] = 1\n"
     "    return tuple(int(v) for v in np.convolve(up, np.ones(k)))\n", "np.convolve"),
    ("why.bilinear_taps", "def bilinear_taps(kernel_size):\n"
     "    f = (kernel_size + 1) // 2\n"
     "    x = F.interpolate(tensorlab.tensor([[[0.0, 1.0, 0.0]]]), scale_factor=f, "
     "mode='linear')\n    return tuple(x.flatten().tolist())[:kernel_size]\n", "F.interpolate"),
    ("autograd.numerical_grad", "def numerical_grad(x, w, eps):\n"
     "    from scipy.optimize import approx_fprime\n"
     "    f = lambda v: float((np.asarray(v) ** 4).sum())\n"
     "    return approx_fprime(np.ravel(w), f, eps).reshape(np.shape(w))\n", "scipy.optimize"),
    ("pooling.avg_pool_border", "def avg_pool_border(values, kernel_size, padding, "
     "count_include_pad):\n    from tensorlab.explain import pooling\n"
     "    return pooling.avg_pool1d(values, kernel_size, padding, count_include_pad)\n",
     "tensorlab.explain"),
    ("conv.convo2d", "def convo2d(input, kernel):\n"
     "    import scipy.signal\n    return scipy.signal.convolve2d(input, kernel, mode='valid')\n",
     "scipy.signal"),
    ("conv.full_with_conv2d", "def full_convolve(x, k):\n"
     "    from scipy.signal import convolve2d\n    return convolve2d(x, k)\n", "scipy.signal"),
    ("channels.conv2d_loops", "def conv2d_loops(x, w, groups):\n"
     "    return F.conv2d(tensorlab.tensor(x), tensorlab.tensor(w), groups=groups).numpy()\n",
     "F.conv2d"),
    ("strided.conv2d_via_unfold", "def conv2d_via_unfold(x, w, stride, padding, groups):\n"
     "    xt, wt = tensorlab.tensor(x), tensorlab.tensor(w)\n"
     "    return F.conv_transpose2d(xt, wt.flip(2, 3).transpose(0, 1), stride=stride, "
     "padding=padding, groups=groups)\n", "F.conv_transpose2d"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("qid", "source", "construct"), SIBLINGS, ids=[f"{s[0]}:{s[2]}" for s in SIBLINGS]
)
def test_siblings_and_general_libraries_break_the_allow_list(qid, source, construct):
    q = get(qid)
    broken = rule_check(q, source, [TEMPLATE, source])
    assert broken is not None and construct in broken and q.allowed.says in broken, broken


def test_a_rule_message_names_the_construct_and_what_is_allowed():
    q = get("views.interleave")
    src = "def interleave(x, r):\n    return x.repeat_interleave(r)\n"
    broken = rule_check(q, src, [src])
    assert broken.startswith("your function uses `x.repeat_interleave`")
    assert broken.endswith("Allowed: " + q.allowed.says + ".")


def test_full_with_conv2d_must_use_conv2d():
    q = get("conv.full_with_conv2d")
    src = (
        "def full_convolve(x, k):\n    (H, W), (M, N) = x.shape, k.shape\n"
        "    out = np.zeros((H + M - 1, W + N - 1))\n"
        "    for i in range(H):\n        for j in range(W):\n"
        "            out[i : i + M, j : j + N] += x[i, j] * k\n    return out\n"
    )
    broken = rule_check(q, src, [TEMPLATE, src])
    assert broken is not None and "does not use `conv2d`" in broken


# ---------------------------------------------------------------------------- 3.2
def test_random_arrays_are_no_longer_an_experiment():
    from tensorlab.grading import evaluate

    rng = np.random.default_rng(0)
    v = evaluate("xcorr.experiment", (rng.random((5, 5)), rng.random((3, 3))))
    assert v.status == "failed" and "read by hand" in v.message
    impulse = np.zeros((5, 5))
    impulse[2, 2] = 1.0  # an unusual honest experiment: the output is the kernel, flipped
    assert evaluate("xcorr.experiment", (impulse, np.arange(9.0).reshape(3, 3))).passed
    row = np.zeros((4, 6))
    row[1] = 1.0
    assert evaluate("xcorr.experiment", (row, np.array([[1.0], [2.0]]))).passed


# ---------------------------------------------------------------------------- 7.5
@pytest.mark.oracle
def test_channels_last_reference_is_what_the_prompt_asks():
    torch = pytest.importorskip("torch")
    import itertools

    q = get("strided.channels_last_strides")
    for shape in itertools.product((1, 2, 3), (1, 2, 3), (1, 2), (1, 3)):
        want = torch.empty(shape, memory_format=torch.channels_last).stride()
        assert q.reference(shape) == tuple(want), shape
    # the route lesson 14 shows, x.contiguous(memory_format=...), differs exactly where the
    # prompt says: when x already counts as channels_last-contiguous
    x = torch.empty(2, 1, 3, 3)
    assert x.contiguous(memory_format=torch.channels_last).stride() == x.stride()
    assert q.reference((2, 1, 3, 3)) != x.stride()


def test_numpy_is_imported():  # (keeps the template's names honest for ruff)
    assert np.prod(()) == 1


# ---------------------------------------------------------------------------- numbers, self-checks
def _numeric(reference, **kw):
    from tensorlab.grading.model import Expect, Question

    expect = Expect(numeric=True, **kw)
    value = Question(id="t.num", notebook="t", name="n", kind="value", prompt="p", todo="t",
                     reference=lambda: reference, expect=expect)  # fmt: skip
    fn = Question(id="t.fn", notebook="t", name="f", kind="function", prompt="p", todo="t",
                  reference=lambda x: reference, cases=lambda rng: [(1,)], expect=expect)  # fmt: skip
    return value, fn


def test_a_tolerance_makes_a_question_numeric():
    from tensorlab.grading import evaluate

    value, fn = _numeric(23, atol=1e-6)
    assert evaluate(value, 23).passed and evaluate(value, 23.0).passed
    assert evaluate(value, np.float64(23.0000001)).passed
    v = evaluate(value, True)  # a bool is never a number here
    assert v.status == "failed" and v.stage == "type" and "expected a number" in v.message
    v = evaluate(value, 22.5)
    assert v.status == "failed" and "not close enough to the expected number" in v.message
    v = evaluate(fn, lambda x: 24.0)  # a function's inputs are public: the number is named
    assert v.status == "failed" and "expected a number close to 23" in v.message


def test_value_self_checks_never_pass_a_wrong_value():
    from tensorlab.grading.authoring import PublicCheck, judge_public_value
    from tensorlab.grading.encode import roundtrip
    from tensorlab.grading.model import Expect
    from tensorlab.grading.selfcheck import shipped

    def public(reference, expect):
        data = {"self_check": shipped("t.v", reference, expect)}
        return PublicCheck(id="t.v", notebook="t", name="v", kind="value", prompt="", todo="t",
                           judge=lambda a: None, expect=expect, data=data)  # fmt: skip

    exact = public(23, Expect(numeric=True, atol=1e-6))
    assert "23" not in json.dumps(exact.data)  # a fingerprint ships, not the value
    assert judge_public_value(exact, roundtrip(23.0)).passed
    wrong = judge_public_value(exact, roundtrip(10))
    assert wrong.status == "failed" and wrong.stage == "values"
    names = public(("b", "a"), Expect(unordered=True, casefold=True))
    assert judge_public_value(names, roundtrip(["A ", "b"])).passed
    assert judge_public_value(names, roundtrip(["a"])).status == "failed"
    for unfair in (public(0.1, Expect()), public(23, Expect(numeric=True, atol=2))):
        v = judge_public_value(unfair, roundtrip(5))
        assert v.status == "unchecked" and "no self-check for this question" in v.message
