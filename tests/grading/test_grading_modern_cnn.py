"""Exercises 11 (lesson 20, the modern CNN block): every reference agrees with real torch 2.13 on
the cases the grader draws, and every question is protected as DESIGN.md 6b asks: the shortcuts
(running the library op, brute force on dummy tensors, a tensor built by a helper elsewhere in the
notebook) are named by the allow-list and, for derive questions, fail the hidden huge inputs on
their values alone; honest answers in unusual styles pass."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from grading_class import solution_answers

from tensorlab.grading import get
from tensorlab.grading.allow import DERIVE
from tensorlab.grading.judge import HUGE, collect_function_results, judge_function, largest_size
from tensorlab.grading.model import make_cases
from tensorlab.grading.rules import rule_check

SEEDS = (0, 1, 2)
TEMPLATE = "import numpy as np\n\nimport tensorlab\nimport tensorlab.nn.functional as F\n"
QIDS = (
    "modern.bn_counts",
    "modern.stage_macs",
    "modern.conv_head",
    "modern.init_stds",
    "modern.batchnorm_train",
)


def _cases(qid: str):
    return [
        args for seed in SEEDS for args in make_cases(get(qid), seed) if largest_size(args) < HUGE
    ]


def _judge(qid: str, source: str, context: tuple[str, ...] = ()):
    """(the rule message, the values verdict) of ``source`` as an answer cell of a notebook whose
    cells before it are ``TEMPLATE`` and ``context``."""
    q = get(qid)
    ns: dict = {}
    for cell in (TEMPLATE, *context, source):
        exec(compile(cell, f"<{qid}>", "exec"), ns)
    broken = rule_check(q, source, [TEMPLATE, *context, source])
    return broken, judge_function(q, collect_function_results(ns[q.name], q, 0), 0)


def _huge_cases_failed(qid: str, verdict) -> bool:
    """Every hidden huge input (the last cases of seed 0) is among the failed cases."""
    cases = make_cases(get(qid), 0)
    huge = {i for i, args in enumerate(cases) if largest_size(args) >= HUGE}
    return bool(huge) and huge <= set(verdict.details.get("failed_cases", ()))


def _solution(qid: str) -> str:
    src = solution_answers(f"{get(qid).notebook}.ipynb")[qid]
    return re.sub(r"\s*### (BEGIN|END) SOLUTION", "", src)


# ---------------------------------------------------------------------------- vs torch
def test_bn_counts_match_torch(torch):
    q = get("modern.bn_counts")
    for (shape,) in _cases(q.id):
        n, c, h, w = shape
        bn = torch.nn.BatchNorm2d(c)
        params = sum(p.numel() for p in bn.parameters())
        buffers = sum(b.numel() for b in bn.buffers())
        assert q.reference(shape)[:2] == (params, buffers)
    # the values per mean, from what BatchNorm computes: the mean over (0, 2, 3) of a batch
    x = torch.randn(3, 2, 4, 5, dtype=torch.float64)
    bn = torch.nn.BatchNorm2d(2, momentum=1.0, dtype=torch.float64)
    bn(x)
    per_mean = q.reference((3, 2, 4, 5))[2]
    want = x.transpose(0, 1).reshape(2, per_mean).mean(dim=1)
    torch.testing.assert_close(bn.running_mean, want)


def _stage_net(torch, c, stages):
    layers = []
    for _ in range(stages):
        layers += [
            torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1, bias=False),
            torch.nn.Conv2d(2 * c, 2 * c, 3, padding=1, bias=False),
        ]
        c *= 2
    return torch.nn.Sequential(*layers)


def test_stage_macs_match_torch_hooks(torch):
    q = get("modern.stage_macs")
    for c, h, w, stages in _cases(q.id):
        if c * h * w * 4**stages > 2 * 10**6:
            continue
        net = _stage_net(torch, c, stages)
        counted: list[int] = []

        def count(m, inputs, output, counted=counted):
            counted.append(output.numel() * m.weight[0].numel())

        for m in net:
            m.register_forward_hook(count)
        with torch.no_grad():
            net(torch.zeros(1, c, h, w))
        assert q.reference(c, h, w, stages) == tuple(counted), (c, h, w, stages)


def test_stage_macs_match_a_counting_loop():
    """The MACs of one small strided convolution, counted one multiply-add at a time."""
    q = get("modern.stage_macs")

    def counted(c_in, c_out, h, w, stride):
        hp, wp = h + 2, w + 2
        n = 0
        for _ in range(c_out):
            rows = len(range(0, hp - 3 + 1, stride))
            for _row in range(rows):
                for _col in range(0, wp - 3 + 1, stride):
                    n += c_in * 9  # one output value: c_in * 3 * 3 multiply-adds
        return n

    for c, h, w in ((1, 5, 7), (2, 4, 3), (3, 6, 6)):
        first, second = q.reference(c, h, w, 1)
        h2, w2 = (h + 1) // 2, (w + 1) // 2
        assert first == counted(c, 2 * c, h, w, 2)
        assert second == counted(2 * c, 2 * c, h2, w2, 1)


def test_conv_head_matches_torch(torch):
    q = get("modern.conv_head")
    for c, h, w, out, H, W in _cases(q.id):
        if c * H * W * out > 10**6:
            continue
        linear = torch.nn.Linear(c * h * w, out, dtype=torch.float64)
        weight_shape, out_shape = q.reference(c, h, w, out, H, W)
        conv = torch.nn.Conv2d(c, out, (h, w), dtype=torch.float64)
        assert tuple(conv.weight.shape) == weight_shape
        with torch.no_grad():
            conv.weight.copy_(linear.weight.view(weight_shape))
            conv.bias.copy_(linear.bias)
            x = torch.randn(2, c, h, w, dtype=torch.float64)
            torch.testing.assert_close(conv(x).flatten(1), linear(x.flatten(1)))
            assert tuple(conv(torch.zeros(1, c, H, W, dtype=torch.float64)).shape[1:]) == out_shape


def test_init_stds_are_torchs_formulas(torch):
    q = get("modern.init_stds")
    init = torch.nn.init
    for c_in, c_out, k, mode in _cases(q.id):
        w = torch.empty(c_out, c_in, k, k)
        fan_in, fan_out = init._calculate_fan_in_and_fan_out(w)
        fan = fan_in if mode == "fan_in" else fan_out
        he = init.calculate_gain("relu") / math.sqrt(fan)
        # the default: kaiming_uniform_(a=sqrt(5)) draws from U(-b, b), b = gain * sqrt(3 / fan_in)
        b = init.calculate_gain("leaky_relu", math.sqrt(5)) * math.sqrt(3 / fan_in)
        got = q.reference(c_in, c_out, k, mode)
        assert math.isclose(got[0], he, rel_tol=1e-12) and math.isclose(got[1], b / math.sqrt(3))


def test_init_stds_match_torchs_draws(torch):
    q = get("modern.init_stds")
    torch.manual_seed(0)
    for c_in, c_out, k, mode in (
        (64, 128, 3, "fan_in"),
        (64, 128, 3, "fan_out"),
        (32, 16, 5, "fan_in"),
    ):
        he, default = q.reference(c_in, c_out, k, mode)
        w = torch.empty(c_out, c_in, k, k)
        torch.nn.init.kaiming_normal_(w, mode=mode, nonlinearity="relu")
        assert abs(w.std().item() / he - 1) < 0.02
        conv = torch.nn.Conv2d(c_in, c_out, k)
        assert abs(conv.weight.std().item() / default - 1) < 0.02


def test_batchnorm_train_matches_torch(torch):
    q = get("modern.batchnorm_train")
    for x, weight, bias, rm, rv, momentum, eps in _cases(q.id):
        c = x.shape[1]
        bn = torch.nn.BatchNorm2d(c, eps=eps, momentum=momentum, dtype=torch.float64)
        with torch.no_grad():
            bn.weight.copy_(torch.from_numpy(weight))
            bn.bias.copy_(torch.from_numpy(bias))
            bn.running_mean.copy_(torch.from_numpy(rm))
            bn.running_var.copy_(torch.from_numpy(rv))
            y = bn(torch.from_numpy(x))
        want = (y.numpy(), bn.running_mean.numpy(), bn.running_var.numpy())
        for got, expected in zip(q.reference(x, weight, bias, rm, rv, momentum, eps), want):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_batchnorm_train_matches_tensorlab():
    """The engine's BatchNorm2d (what the notebook's hidden test uses) agrees too."""
    import tensorlab

    q = get("modern.batchnorm_train")
    for x, weight, bias, rm, rv, momentum, eps in _cases(q.id)[:10]:
        rm_t, rv_t = tensorlab.tensor(rm.copy()), tensorlab.tensor(rv.copy())
        y = tensorlab.nn.functional.batch_norm(
            tensorlab.tensor(x), rm_t, rv_t, tensorlab.tensor(weight), tensorlab.tensor(bias),
            training=True, momentum=momentum, eps=eps,
        )  # fmt: skip
        want = (y.numpy(), rm_t.numpy(), rv_t.numpy())
        for got, expected in zip(q.reference(x, weight, bias, rm, rv, momentum, eps), want):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("qid", QIDS)
def test_hidden_inputs_are_drawn_at_grade_time(qid):
    q = get(qid)
    assert repr(make_cases(q, 1)) != repr(make_cases(q, 2))


# ---------------------------------------------------------------------------- shortcuts
RUN_THE_OP = {  # the library op, on tensors of the grader's sizes
    "modern.bn_counts": "def batchnorm_counts(shape):\n"
    "    bn = tensorlab.nn.BatchNorm2d(shape[1])\n"
    "    x = tensorlab.zeros(shape)\n"
    "    return (sum(p.numel() for p in bn.parameters()),\n"
    "            sum(b.numel() for b in bn.buffers()), x.numel() // shape[1])\n",
    "modern.stage_macs": "def stage_macs(c, h, w, stages):\n"
    "    x, out = tensorlab.zeros(1, c, h, w), []\n"
    "    for _ in range(stages):\n"
    "        for conv in (tensorlab.nn.Conv2d(c, 2 * c, 3, 2, 1), tensorlab.nn.Conv2d(2 * c, 2 * c,"
    " 3, 1, 1)):\n"
    "            x = conv(x)\n"
    "            out.append(x.numel() * conv.weight[0].numel())\n"
    "        c = 2 * c\n"
    "    return tuple(out)\n",
    "modern.conv_head": "def conv_head(c, h, w, out, H, W):\n"
    "    lin = tensorlab.nn.Linear(c * h * w, out)\n"
    "    conv = tensorlab.nn.Conv2d(c, out, (h, w))\n"
    "    y = F.conv2d(tensorlab.zeros(1, c, H, W), lin.weight.view(out, c, h, w))\n"
    "    return tuple(conv.weight.shape), tuple(y.shape[1:])\n",
    "modern.init_stds": "def init_stds(c_in, c_out, k, mode):\n"
    "    w = tensorlab.empty(c_out, c_in, k, k)\n"
    "    tensorlab.nn.init.kaiming_normal_(w, mode=mode, nonlinearity='relu')\n"
    "    conv = tensorlab.nn.Conv2d(c_in, c_out, k)\n"
    "    return w.std().item(), conv.weight.std().item()\n",
}


@pytest.mark.parametrize("qid", sorted(RUN_THE_OP))
def test_running_the_op_fails_a_derive_question(qid):
    broken, verdict = _judge(qid, RUN_THE_OP[qid])
    assert broken is not None and "Allowed: " + DERIVE.says in broken, broken
    assert "tensorlab." in broken or "F." in broken, broken  # names what it ran
    assert verdict.status == "failed", qid  # the values alone fail too: the huge inputs
    assert _huge_cases_failed(qid, verdict), (qid, verdict.details, verdict.message)


BRUTE_FORCE = {  # dummy tensors instead of the rule: expand costs no memory, numpy arrays do
    "modern.bn_counts": "def batchnorm_counts(shape):\n"
    "    x = tensorlab.zeros(()).expand(*shape)  # no memory: one value, repeated\n"
    "    mean = x.mean(dim=(0, 2, 3))\n"
    "    return 2 * mean.numel(), 2 * mean.numel() + 1, x.numel() // mean.numel()\n",
    "modern.conv_head": "def conv_head(c, h, w, out, H, W):\n"
    "    probe = np.zeros((H, W))\n"
    "    windows = np.lib.stride_tricks.sliding_window_view(probe, (h, w))\n"
    "    return (out, c, h, w), (out,) + windows.shape[:2]\n",
    "modern.stage_macs": "def stage_macs(c, h, w, stages):\n"
    "    out = []\n"
    "    for _ in range(stages):\n"
    "        y = np.zeros((h + 2, w + 2))[::2, ::2][: (h - 1) // 2 + 1, : (w - 1) // 2 + 1]\n"
    "        h, w = y.shape\n"
    "        out += [2 * c * c * 9 * y.size, 4 * c * c * 9 * y.size]\n"
    "        c *= 2\n"
    "    return tuple(out)\n",
}


@pytest.mark.parametrize("qid", sorted(BRUTE_FORCE))
def test_brute_force_on_dummy_tensors_fails(qid):
    broken, verdict = _judge(qid, BRUTE_FORCE[qid])
    assert broken is not None and "Allowed: " + DERIVE.says in broken, broken
    if qid != "modern.bn_counts":  # (expand builds no memory: only the allow-list stops it)
        assert verdict.status == "failed" and _huge_cases_failed(qid, verdict), verdict.message


@pytest.mark.parametrize("qid", QIDS)
def test_a_tensor_built_by_a_helper_in_another_cell_breaks_the_rule(qid):
    """The honest answer calling a helper defined in an earlier cell, which builds a tensor (as
    a "check" against the op): the rule follows the helper and names it."""
    helper = "def _probe(*args):\n    return tensorlab.ones(3).sum().item()\n"
    source = _solution(qid).replace('"""\n', '"""\n    _probe()\n', 1)
    broken, _ = _judge(qid, source, (helper,))
    assert broken is not None and "`tensorlab.ones`" in broken and "_probe" in broken, broken


BN_SHORTCUTS = [  # the implement question: the op itself, its siblings, other libraries
    ("def batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps):\n"
     "    rm, rv = tensorlab.tensor(running_mean.copy()), tensorlab.tensor(running_var.copy())\n"
     "    y = F.batch_norm(tensorlab.tensor(x), rm, rv, tensorlab.tensor(weight),"
     " tensorlab.tensor(bias), training=True, momentum=momentum, eps=eps)\n"
     "    return y.numpy(), rm.numpy(), rv.numpy()\n", "F.batch_norm"),
    ("def batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps):\n"
     "    bn = tensorlab.nn.BatchNorm2d(x.shape[1], eps=eps, momentum=momentum,"
     " dtype=tensorlab.float64)\n"
     "    bn.running_mean.copy_(tensorlab.tensor(running_mean))\n"
     "    bn.running_var.copy_(tensorlab.tensor(running_var))\n"
     "    y = bn(tensorlab.tensor(x)).detach() * tensorlab.tensor(weight).view(1, -1, 1, 1)\n"
     "    y = y + tensorlab.tensor(bias).view(1, -1, 1, 1)\n"
     "    return y.numpy(), bn.running_mean.numpy(), bn.running_var.numpy()\n",
     "tensorlab.nn.BatchNorm2d"),
    ("def batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps):\n"
     "    n = x.shape[0] * x.shape[2] * x.shape[3]\n"
     "    t = tensorlab.tensor(x).transpose(0, 1).reshape(x.shape[1], 1, -1)\n"
     "    y = F.group_norm(t, 1, eps=eps).reshape(x.shape[1], x.shape[0], *x.shape[2:])\n"
     "    y = y.transpose(0, 1).numpy() * weight[:, None, None] + bias[:, None, None]\n"
     "    m, v = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3)) * n / (n - 1)\n"
     "    return y, (1 - momentum) * running_mean + momentum * m,"
     " (1 - momentum) * running_var + momentum * v\n", "F.group_norm"),
    ("def batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps):\n"
     "    import torch\n"
     "    bn = torch.nn.BatchNorm2d(x.shape[1], eps=eps, momentum=momentum).double()\n"
     "    return bn(torch.from_numpy(x)).detach().numpy(), None, None\n", "import torch"),
    ("def batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps):\n"
     "    from sklearn.preprocessing import StandardScaler\n"
     "    return StandardScaler().fit_transform(x), None, None\n", "sklearn.preprocessing"),
]  # fmt: skip


@pytest.mark.parametrize(("source", "construct"), BN_SHORTCUTS, ids=[c for _, c in BN_SHORTCUTS])
def test_batchnorm_shortcuts_break_the_allow_list(source, construct):
    q = get("modern.batchnorm_train")
    broken = rule_check(q, source, [TEMPLATE, source])
    assert broken is not None and construct in broken and q.allowed.says in broken, broken


def test_the_library_shortcut_is_caught_inline_too():
    """``tensorlab.check`` in the notebook (``evaluate`` on a live function): the shortcut's
    values are right, so only the rule can fail it, and it does, naming the misconception."""
    from tensorlab.grading import evaluate

    ns: dict = {}
    source = BN_SHORTCUTS[0][0]
    exec(compile(TEMPLATE + source, "<shortcut>", "exec"), ns)
    verdict = evaluate("modern.batchnorm_train", ns["batchnorm2d_train"])
    assert verdict.status == "failed", verdict.message
    assert "batch_norm" in verdict.message, verdict.message


# ---------------------------------------------------------------------------- honest answers
UNUSUAL = {
    "modern.bn_counts": "import math\n\n\ndef batchnorm_counts(shape):\n"
    "    n, c, *spatial = shape\n"
    "    per_channel = ['weight', 'bias']\n"
    "    kept = ['running_mean', 'running_var']\n"
    "    return len(per_channel) * c, len(kept) * c + 1, n * math.prod(spatial)\n",
    "modern.stage_macs": "def stage_macs(c, h, w, stages):\n"
    "    if stages == 0:\n        return ()\n"
    "    h, w = -(-h // 2), -(-w // 2)  # kernel 3, stride 2, padding 1: ceil(h / 2)\n"
    "    head = (2 * c * c * 9 * h * w, 4 * c * c * 9 * h * w)\n"
    "    return head + stage_macs(2 * c, h, w, stages - 1)\n",
    "modern.conv_head": "def conv_head(c, h, w, out, H, W):\n"
    "    positions = [len(range(0, n - k + 1)) for n, k in ((H, h), (W, w))]\n"
    "    return (out, c, h, w), (out, *positions)\n",
    "modern.init_stds": "from fractions import Fraction\n\n\n"
    "def init_stds(c_in, c_out, k, mode):\n"
    "    fan = {'fan_in': c_in, 'fan_out': c_out}[mode] * k * k\n"
    "    var_he = Fraction(2, fan)\n"
    "    var_default = Fraction(1, c_in * k * k) / 3  # (2b)^2 / 12 for U(-b, b)\n"
    "    return float(var_he) ** 0.5, float(var_default) ** 0.5\n",
    "modern.batchnorm_train": "def batchnorm2d_train(x, weight, bias, running_mean, running_var,"
    " momentum, eps):\n"
    "    N, C, H, W = x.shape\n"
    "    cols = np.moveaxis(x, 1, 0).reshape(C, -1)  # one row per channel\n"
    "    mean = np.einsum('cn->c', cols) / cols.shape[1]\n"
    "    centred = cols - mean[:, None]\n"
    "    var = (centred**2).sum(axis=1) / cols.shape[1]\n"
    "    y = centred / np.sqrt(var + eps)[:, None] * weight[:, None] + bias[:, None]\n"
    "    y = np.moveaxis(y.reshape(C, N, H, W), 0, 1)\n"
    "    unbiased = var * cols.shape[1] / (cols.shape[1] - 1)\n"
    "    return (y, running_mean + momentum * (mean - running_mean),\n"
    "            running_var + momentum * (unbiased - running_var))\n",
}


@pytest.mark.parametrize("qid", QIDS)
def test_honest_unusual_answers_pass(qid):
    broken, verdict = _judge(qid, UNUSUAL[qid])
    assert broken is None, (qid, broken)
    assert verdict.status == "passed", (qid, verdict.message, verdict.case_args)


@pytest.mark.parametrize("qid", QIDS)
def test_the_solution_passes_rule_and_values(qid):
    broken, verdict = _judge(qid, _solution(qid))
    assert broken is None, (qid, broken)
    assert verdict.status == "passed", (qid, verdict.message)
