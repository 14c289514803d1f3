"""Notebook 11: after lesson 20 - the modern CNN block (what BatchNorm2d computes, learns and
keeps; the multiply-adds of stride-2 stages that double their channels; a final Linear layer as a
convolution; He initialisation against PyTorch's default), and BatchNorm2d's training-mode
forward written with numpy."""

from __future__ import annotations

import math

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples
from ._rules import NUMPY_ONLY

NB = "11_modern_cnn"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- BN counts
def _bn_counts(shape):
    n, c, h, w = shape
    return (2 * c, 2 * c + 1, n * h * w)


def _bn_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((8, 3, 5, 5),), ((64, 16, 32, 32),), ((1, 4, 7, 3),)]
    cases += [(t,) for t in draw_ints(rng, [(1, 64), (1, 256), (1, 40), (1, 40)], 7)]
    return cases


BN_COUNTS = Question(
    id="modern.bn_counts",
    notebook=NB,
    name="batchnorm_counts",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 512, 10**9, 10**9),),),
    prompt=(
        "x has shape (N, C, H, W) and goes through bn = nn.BatchNorm2d(C) in training mode. "
        "Write batchnorm_counts(shape), with shape = (N, C, H, W): return (the number of "
        "parameters bn learns, the number of values in its buffers (everything "
        "bn.named_buffers() gives, counted with numel), how many values of x each of its means "
        "averages), three ints."
    ),
    todo=(
        "Write batchnorm_counts: which axes does BatchNorm2d average over, and what does it keep "
        "per channel?"
    ),
    reference=_bn_counts,
    cases=_bn_cases,
    strategy=lambda: int_tuples((1, 4), (1, 4), (1, 4), (1, 4)).map(lambda t: (t,)),
    misconceptions=(
        Misconception(
            "per_pixel",
            "BatchNorm2d keeps one statistic (and one gamma, one beta) per CHANNEL, shared by "
            "all positions, as a convolution shares its kernel: not one per (channel, row, "
            "column).",
            lambda s: (2 * s[1] * s[2] * s[3], 2 * s[1] * s[2] * s[3] + 1, s[0]),
        ),
        Misconception(
            "per_image",
            "in training the mean is over the whole batch and both spatial axes, dim=(0, 2, 3): "
            "N * H * W values, not the H * W of one image (that would be InstanceNorm).",
            lambda s: (2 * s[1], 2 * s[1] + 1, s[2] * s[3]),
        ),
        Misconception(
            "no_counter",
            "the buffers are running_mean, running_var AND num_batches_tracked (one value): "
            "2 * C + 1.",
            lambda s: (2 * s[1], 2 * s[1], s[0] * s[2] * s[3]),
        ),
        Misconception(
            "stats_learned",
            "the running statistics are buffers, not parameters: bn learns only weight (gamma) "
            "and bias (beta), C each.",
            lambda s: (4 * s[1], 2 * s[1] + 1, s[0] * s[2] * s[3]),
        ),
    ),
    hints=(
        "Lesson 20, section 1: print bn.named_parameters() and bn.named_buffers() for a small "
        "BatchNorm2d.",
        "mean = x.mean(dim=(0, 2, 3)): one value per channel, each over N * H * W values.",
    ),
)


# ---------------------------------------------------------------------------- stage MACs
def _half(n):
    return (n + 2 - 3) // 2 + 1  # Conv2d(k=3, stride=2, padding=1)


def _stage_macs(c, h, w, stages):
    out = []
    for _ in range(stages):
        h, w = _half(h), _half(w)
        out.append(2 * c * h * w * c * 9)  # Conv2d(c, 2c, 3, stride=2, padding=1)
        c *= 2
        out.append(c * h * w * c * 9)  # Conv2d(2c, 2c, 3, padding=1)
    return tuple(out)


def _stage_ok(c, h, w, stages):
    return min(h, w) >= 2 ** (stages - 1)


STAGE_MACS = Question(
    id="modern.stage_macs",
    notebook=NB,
    name="stage_macs",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((64, 10**9, 10**9, 3), (3, 10**8 + 1, 7 * 10**7, 2)),
    prompt=(
        "A network downsamples in `stages` stages. Each stage is nn.Conv2d(c, 2 * c, 3, "
        "stride=2, padding=1, bias=False) followed by nn.Conv2d(2 * c, 2 * c, 3, padding=1, "
        "bias=False), and the next stage starts with the 2 * c channels it leaves. Write "
        "stage_macs(c, h, w, stages): the multiply-adds of each of the 2 * stages convolutions "
        "for ONE image of shape (c, h, w), in order, as a tuple of ints (h and w may be odd)."
    ),
    todo=(
        "Write stage_macs: walk the shape through the stages; each convolution costs one "
        "multiply-add per (output value, weight it reads)."
    ),
    reference=_stage_macs,
    cases=lambda rng: (
        [(16, 32, 32, 3), (3, 224, 224, 2), (8, 15, 9, 2)]
        + draw_ints(rng, [(1, 64), (2, 80), (2, 80), (1, 3)], 7, _stage_ok)
    ),
    strategy=lambda: int_tuples((1, 4), (1, 9), (1, 9), (1, 3), where=_stage_ok),
    misconceptions=(
        Misconception(
            "input_pixels",
            "a convolution costs one multiply-add per OUTPUT value and weight: the stride-2 "
            "convolution computes only the (about) h/2 x w/2 positions it keeps.",
            lambda c, h, w, s: _stage_macs_variant(c, h, w, s, strided_at_input=True),
        ),
        Misconception(
            "floor_half",
            "with kernel 3, stride 2 and padding 1 an odd side rounds UP: floor((h + 2 - 3) / 2) "
            "+ 1 = (h + 1) // 2, not h // 2.",
            lambda c, h, w, s: _stage_macs_variant(c, h, w, s, half=lambda n: n // 2),
        ),
        Misconception(
            "one_input_channel",
            "every output value reads c_in * 3 * 3 weights (all its input channels), not 3 * 3.",
            lambda c, h, w, s: _stage_macs_variant(c, h, w, s, per_channel=True),
        ),
        Misconception(
            "old_channels",
            "the stride-2 convolution already makes 2 * c channels, and the second convolution "
            "reads and writes 2 * c channels.",
            lambda c, h, w, s: _stage_macs_variant(c, h, w, s, no_doubling=True),
        ),
    ),
    hints=(
        "Lesson 20, section 2: MACs = C_out * H_out * W_out * C_in * k * k.",
        "H_out of the stride-2 convolution = floor((H + 2 * 1 - 3) / 2) + 1.",
    ),
)


def _stage_macs_variant(
    c, h, w, stages, strided_at_input=False, half=_half, per_channel=False, no_doubling=False
):
    out = []
    for _ in range(stages):
        h2, w2 = half(h), half(w)
        c2 = c if no_doubling else 2 * c
        first_pixels = h * w if strided_at_input else h2 * w2
        out.append(c2 * first_pixels * (1 if per_channel else c) * 9)
        out.append(c2 * h2 * w2 * (1 if per_channel else c2) * 9)
        c, h, w = c2, h2, w2
    return tuple(out)


# ---------------------------------------------------------------------------- Linear as conv
def _conv_head(c, h, w, out, H, W):
    return ((out, c, h, w), (out, H - h + 1, W - w + 1))


def _head_ok(c, h, w, out, H, W):
    return H >= h and W >= w


def _head_args(rng):
    c, h, w, out = (int(v) for v in rng.integers([1, 1, 1, 1], [65, 8, 8, 1001]))
    return (c, h, w, out, h + int(rng.integers(0, 30)), w + int(rng.integers(0, 30)))


CONV_HEAD = Question(
    id="modern.conv_head",
    notebook=NB,
    name="conv_head",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((512, 7, 7, 1000, 10**9, 10**9),),
    prompt=(
        "A classifier ends with nn.Flatten() and nn.Linear(c * h * w, out) on feature maps of "
        "shape (c, h, w). Its Linear layer is rewritten as an nn.Conv2d with the same weights, "
        "reshaped (no padding, stride 1), so that the network gives the same logits on images "
        "of the training size. Write conv_head(c, h, w, out, H, W): return (the shape of that "
        "Conv2d's weight, the shape (channels, rows, columns) of its output for ONE image whose "
        "feature maps are (c, H, W) with H >= h and W >= w), two tuples of ints."
    ),
    todo=(
        "Write conv_head: which kernel covers a whole (c, h, w) map at one position, and at how "
        "many positions does it fit on a larger map?"
    ),
    reference=_conv_head,
    cases=lambda rng: (
        [(12, 2, 2, 4, 2, 2), (12, 2, 2, 4, 6, 6), (512, 7, 7, 1000, 14, 14)]
        + [_head_args(rng) for _ in range(7)]
    ),
    strategy=lambda: int_tuples((1, 3), (1, 3), (1, 3), (1, 3), (1, 6), (1, 6), where=_head_ok),
    misconceptions=(
        Misconception(
            "one_by_one",
            "a 1x1 convolution would read one position only; the Linear layer reads the whole "
            "(c, h, w) map, so the kernel is h x w with c input channels: (out, c, h, w).",
            lambda c, h, w, o, H, W: ((o, c * h * w, 1, 1), (o, H, W)),
        ),
        Misconception(
            "transposed_layout",
            "a Conv2d weight is (out_channels, in_channels, kH, kW); (in, out, kH, kW) is the "
            "layout of ConvTranspose2d.",
            lambda c, h, w, o, H, W: ((c, o, h, w), (o, H - h + 1, W - w + 1)),
        ),
        Misconception(
            "tiled_windows",
            "the kernel slides with stride 1 over the feature map: H - h + 1 positions, not "
            "H // h non-overlapping ones.",
            lambda c, h, w, o, H, W: ((o, c, h, w), (o, H // h, W // w)),
        ),
        Misconception(
            "no_plus_one",
            "a kernel of size h fits at H - h + 1 positions (at H = h it fits once).",
            lambda c, h, w, o, H, W: ((o, c, h, w), (o, H - h, W - w)),
        ),
    ),
    hints=(
        "Lesson 20, section 3: linear.weight.view(out, c, h, w) became the kernel.",
        "Output size of a valid convolution: H - kH + 1.",
    ),
)


# ---------------------------------------------------------------------------- He init
def _init_stds(c_in, c_out, k, mode):
    fan = (c_in if mode == "fan_in" else c_out) * k * k
    return (math.sqrt(2.0 / fan), 1.0 / math.sqrt(3.0 * c_in * k * k))


def _init_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(32, 64, 3, "fan_in"), (32, 64, 3, "fan_out"), (3, 64, 7, "fan_in")]
    for c_in, c_out, k in draw_ints(rng, [(1, 512), (1, 512), (1, 7)], 7):
        cases.append((c_in, c_out, k, "fan_in" if rng.random() < 0.5 else "fan_out"))
    return cases


def _init_strategy():
    from hypothesis import strategies as st

    return st.tuples(
        st.integers(1, 8),
        st.integers(1, 8),
        st.integers(1, 3),
        st.sampled_from(("fan_in", "fan_out")),
    )


INIT_STDS = Question(
    id="modern.init_stds",
    notebook=NB,
    name="init_stds",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**9, 10**9, 3, "fan_out"), (10**12, 1, 5, "fan_in")),
    prompt=(
        "w is the weight of nn.Conv2d(c_in, c_out, k). Write init_stds(c_in, c_out, k, mode), "
        "mode being 'fan_in' or 'fan_out': return (the standard deviation that "
        "nn.init.kaiming_normal_(w, mode=mode, nonlinearity='relu') draws with, the standard "
        "deviation of PyTorch's default initialisation of w), two floats."
    ),
    todo=(
        "Write init_stds: what are fan_in and fan_out of a (c_out, c_in, k, k) weight, and "
        "what variance do He's rule and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) give?"
    ),
    reference=_init_stds,
    cases=_init_cases,
    strategy=_init_strategy,
    expect=Expect(rtol=1e-9, atol=0.0),
    misconceptions=(
        Misconception(
            "no_kernel_area",
            "fan_in counts every input of one output value: c_in * k * k, not c_in.",
            lambda ci, co, k, m: (
                math.sqrt(2.0 / (ci if m == "fan_in" else co)),
                1.0 / math.sqrt(3.0 * ci),
            ),
        ),
        Misconception(
            "mode_ignored",
            "mode='fan_out' uses fan_out = c_out * k * k (it keeps the backward pass's gradients "
            "steady), not fan_in.",
            lambda ci, co, k, m: _init_stds(ci, co, k, "fan_in"),
        ),
        Misconception(
            "no_relu_gain",
            "for ReLU the gain is sqrt(2): the ReLU halves the mean square, so Var(w) = "
            "2 / fan, std = sqrt(2 / fan).",
            lambda ci, co, k, m: (
                _init_stds(ci, co, k, m)[0] / math.sqrt(2.0),
                _init_stds(ci, co, k, m)[1],
            ),
        ),
        Misconception(
            "bound_not_std",
            "the default draws from U(-b, b) with b = 1 / sqrt(fan_in); a uniform's standard "
            "deviation is b / sqrt(3), not b.",
            lambda ci, co, k, m: (_init_stds(ci, co, k, m)[0], 1.0 / math.sqrt(ci * k * k)),
        ),
        Misconception(
            "variance_not_std",
            "that is the variance; the standard deviation is its square root.",
            lambda ci, co, k, m: tuple(v * v for v in _init_stds(ci, co, k, m)),
        ),
    ),
    hints=(
        "Lesson 20, section 4: fan_in = c_in * k * k, fan_out = c_out * k * k.",
        "He: std = sqrt(2 / fan). A uniform U(-b, b) has variance b * b / 3.",
    ),
)


# ---------------------------------------------------------------------------- BN forward
def _bn_train(x, weight, bias, running_mean, running_var, momentum, eps):
    x = np.asarray(x, np.float64)
    n = x.shape[0] * x.shape[2] * x.shape[3]
    mean = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))  # biased: divide by n
    y = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + eps)
    y = y * np.asarray(weight)[None, :, None, None] + np.asarray(bias)[None, :, None, None]
    new_mean = (1 - momentum) * np.asarray(running_mean) + momentum * mean
    new_var = (1 - momentum) * np.asarray(running_var) + momentum * var * n / (n - 1)
    return (y, new_mean, new_var)


def _bn_args(rng: np.random.Generator, shape, momentum=0.1, eps=1e-5):
    c = shape[1]
    x = rng.standard_normal(shape) * rng.uniform(0.5, 3.0) + rng.uniform(-2, 2)
    weight, bias = rng.uniform(0.5, 2.0, size=c), rng.uniform(-1, 1, size=c)
    running_mean, running_var = rng.uniform(-1, 1, size=c), rng.uniform(0.5, 2.0, size=c)
    return (x, weight, bias, running_mean, running_var, momentum, eps)


def _bn_forward_cases(rng: np.random.Generator) -> list[tuple]:
    c = 3
    first = (
        np.arange(2 * c * 2 * 2, dtype=np.float64).reshape(2, c, 2, 2),
        np.ones(c),
        np.zeros(c),
        np.zeros(c),
        np.ones(c),
        0.1,
        1e-5,
    )
    cases = [first, _bn_args(rng, (8, 3, 5, 5)), _bn_args(rng, (1, 2, 3, 4), 0.5, 1e-3)]
    while len(cases) < 10:
        shape = tuple(int(v) for v in rng.integers([1, 1, 1, 1], [6, 5, 6, 6]))
        if shape[0] * shape[2] * shape[3] > 1:
            cases.append(_bn_args(rng, shape, float(rng.choice([0.1, 0.3, 0.9])), 1e-5))
    return cases


def _bn_forward_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        shape = (draw(st.integers(1, 3)), draw(st.integers(1, 2)), 1, draw(st.integers(2, 3)))
        n = int(np.prod(shape))
        vals = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
        c = shape[1]
        x = np.array(vals, dtype=np.float64).reshape(shape)
        return (x, np.ones(c), np.zeros(c), np.zeros(c), np.ones(c), 0.1, 1e-5)

    return args()


def _bn_forbidden(x, weight, bias, running_mean, running_var, momentum, eps):
    tl = _tl()
    rm, rv = tl.tensor(np.array(running_mean)), tl.tensor(np.array(running_var))
    y = tl.nn.functional.batch_norm(
        tl.tensor(np.asarray(x, np.float64)),
        rm,
        rv,
        tl.tensor(np.asarray(weight, np.float64)),
        tl.tensor(np.asarray(bias, np.float64)),
        training=True,
        momentum=momentum,
        eps=eps,
    )
    return (y.numpy(), rm.numpy(), rv.numpy())


def _bn_variant(
    x, weight, bias, running_mean, running_var, momentum, eps, axes=(0, 2, 3), unbiased=True,
    swap_momentum=False, eps_outside=False,
):  # fmt: skip
    x = np.asarray(x, np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    std = np.sqrt(var) + eps if eps_outside else np.sqrt(var + eps)
    y = (x - mean) / std * np.asarray(weight)[None, :, None, None]
    y = y + np.asarray(bias)[None, :, None, None]
    m, v = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    n = x.shape[0] * x.shape[2] * x.shape[3]
    if unbiased:
        v = v * n / (n - 1)
    a, b = (momentum, 1 - momentum) if swap_momentum else (1 - momentum, momentum)
    return (y, a * np.asarray(running_mean) + b * m, a * np.asarray(running_var) + b * v)


BN_FORWARD = Question(
    id="modern.batchnorm_train",
    notebook=NB,
    name="batchnorm2d_train",
    kind="function",
    assessment="implement",
    allowed=NUMPY_ONLY,
    prompt=(
        "Write batchnorm2d_train(x, weight, bias, running_mean, running_var, momentum, eps) "
        "with numpy only: what nn.BatchNorm2d computes in training mode for x of shape (N, C, "
        "H, W) (float64 arrays; weight, bias, running_mean and running_var have C values each). "
        "Return (the output, the updated running_mean, the updated running_var) as three float64 "
        "arrays, without changing the arrays you are given."
    ),
    todo=(
        "Write batchnorm2d_train with numpy: per-channel statistics over (N, H, W), normalise, "
        "scale and shift, then update the running statistics as PyTorch does."
    ),
    reference=_bn_train,
    cases=_bn_forward_cases,
    strategy=_bn_forward_strategy,
    expect=Expect(arrays=("ndarray",), rtol=1e-7, atol=1e-9),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to write BatchNorm yourself: calling PyTorch's batch_norm skips "
            "the point.",
            _bn_forbidden,
        ),
        Misconception(
            "biased_running_var",
            "BatchNorm normalises with the biased variance (divide by n) but stores the "
            "UNBIASED one (divide by n - 1) in running_var, n = N * H * W.",
            lambda *a: _bn_variant(*a, unbiased=False),
        ),
        Misconception(
            "per_image",
            "the statistics are over the batch too, axes (0, 2, 3), not per image over (2, 3).",
            lambda *a: _bn_variant(*a, axes=(2, 3)),
        ),
        Misconception(
            "per_pixel",
            "the statistics are per channel over (N, H, W), not per pixel over the batch only.",
            lambda *a: _bn_variant(*a, axes=(0,)),
        ),
        Misconception(
            "momentum_swapped",
            "PyTorch's momentum weighs the NEW statistic: running = (1 - momentum) * running + "
            "momentum * batch_statistic (the opposite of an optimiser's momentum).",
            lambda *a: _bn_variant(*a, swap_momentum=True),
        ),
        Misconception(
            "eps_outside",
            "eps goes inside the square root: (x - mean) / sqrt(var + eps).",
            lambda *a: _bn_variant(*a, eps_outside=True),
        ),
    ),
    hints=(
        "x.mean(axis=(0, 2, 3)) gives one mean per channel; reshape to (1, C, 1, 1) to "
        "broadcast against x.",
        "Lesson 20, section 1: running_var takes the variance times n / (n - 1).",
    ),
)

QUESTIONS = [BN_COUNTS, STAGE_MACS, CONV_HEAD, INIT_STDS, BN_FORWARD]
