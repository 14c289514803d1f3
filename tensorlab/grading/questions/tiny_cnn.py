"""Notebook 09: after lesson 16 - a tiny CNN end to end: the shape walk to Linear's
in_features, flattening a batch, the shapes in the in_features error, counting parameters, and the
cross-entropy loss it trains on."""

from __future__ import annotations

import math

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._rules import NUMPY_ONLY

NB = "09_tiny_cnn"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- shape walk
def _walk(c, h, w, layers, *, skip_pool=False):
    for layer in layers:
        if layer[0] == "conv":
            _, out, k, s, p = layer
            c, h, w = out, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        elif layer[0] == "pool" and not skip_pool:
            _, k, s = layer
            h, w = (h - k) // s + 1, (w - k) // s + 1
    return c, h, w


def _in_features(c, h, w, layers):
    c, h, w = _walk(c, h, w, layers)
    return c * h * w


def _random_stack(rng: np.random.Generator, h: int) -> tuple:
    layers = []
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(1, 4))
        p = int(rng.integers(0, k // 2 + 1))
        s = int(rng.integers(1, 3))
        if (h + 2 * p - k) // s + 1 < 2:
            break
        layers.append(("conv", int(rng.integers(1, 17)), k, s, p))
        h = (h + 2 * p - k) // s + 1
        if rng.random() < 0.7 and h >= 2:
            layers.append(("pool", 2, 2))
            h = (h - 2) // 2 + 1
    return tuple(layers) or (("conv", 4, 1, 1, 0),)


LENET_ISH = (("conv", 8, 3, 1, 1), ("pool", 2, 2), ("conv", 16, 3, 1, 1), ("pool", 2, 2))


def _features_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(1, 28, 28, LENET_ISH), (3, 32, 32, (("conv", 6, 5, 1, 0), ("pool", 2, 2)))]
    for _ in range(8):
        c, h = int(rng.integers(1, 4)), int(rng.integers(8, 33))
        cases.append((c, h, h, _random_stack(rng, h)))
    return cases


def _features_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        seed = draw(st.integers(0, 2**16))
        rng = np.random.default_rng(seed)
        h = draw(st.integers(4, 12))
        return (draw(st.integers(1, 3)), h, h, _random_stack(rng, h))

    return args()


LAYERS_DOC = (
    "layers is a tuple of ('conv', out_channels, kernel_size, stride, padding) and "
    "('pool', kernel_size, stride) entries (square kernels, max pooling, no ceil_mode)"
)

IN_FEATURES = Question(
    id="cnn.in_features",
    notebook=NB,
    name="in_features",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((3, 10**9, 10**9, (("conv", 8, 5, 2, 1), ("pool", 2, 2))),),
    prompt=(
        "Write in_features(c, h, w, layers): the in_features of the nn.Linear that follows "
        "x.view(batch, -1) after a stack of layers applied to images of shape (c, h, w); "
        f"{LAYERS_DOC}."
    ),
    todo=(
        "Write in_features: walk the shape (C, H, W) through every layer, then count what "
        "view(batch, -1) puts in one row."
    ),
    reference=_in_features,
    cases=_features_cases,
    strategy=_features_strategy,
    misconceptions=(
        Misconception(
            "spatial_only",
            "view(batch, -1) flattens the channels too: in_features = C * H * W, not H * W.",
            lambda c, h, w, layers: math.prod(_walk(c, h, w, layers)[1:]),
        ),
        Misconception(
            "input_channels",
            "after the convolutions the channel count is the LAST conv's out_channels, not the "
            "image's c.",
            lambda c, h, w, layers: c * math.prod(_walk(c, h, w, layers)[1:]),
        ),
        Misconception(
            "pool_ignored",
            "each pooling layer shrinks H and W too (a 2x2, stride-2 pool halves them, "
            "rounding down).",
            lambda c, h, w, layers: math.prod(_walk(c, h, w, layers, skip_pool=True)),
        ),
    ),
    hints=(
        "Write down (C, H, W) after each layer: conv uses the output-size formula, pool too "
        "(without padding).",
        "Check on a real stack: build it with nn.Conv2d and max pooling, run a zeros batch "
        "through it and print the shape before the view.",
    ),
)


# ---------------------------------------------------------------------------- flatten the batch
def _flatten_cases(rng: np.random.Generator) -> list[tuple]:
    tl = _tl()
    cases = [(tl.arange(2 * 3 * 4 * 4, dtype=tl.float32).view(2, 3, 4, 4),)]
    cases.append((tl.arange(2 * 3 * 2 * 2, dtype=tl.float32).view(2, 2, 2, 3).permute(0, 3, 1, 2),))
    for _ in range(4):
        N, C, H, W = (int(v) for v in rng.integers(1, 4, size=4))
        cases.append((tl.from_numpy(rng.integers(-9, 10, size=(N, C, H, W)).astype(np.float32)),))
    return cases


def _flatten(x):
    return x.reshape(x.shape[0], -1)


def _flatten_strategy():
    from hypothesis import strategies as st

    @st.composite
    def tensor(draw):
        tl = _tl()
        N, C, H, W = (draw(st.integers(1, 3)) for _ in range(4))
        x = tl.arange(N * C * H * W, dtype=tl.float32)
        if draw(st.booleans()):
            return (x.view(N, H, W, C).permute(0, 3, 1, 2),)
        return (x.view(N, C, H, W),)

    return tensor()


FLATTEN = Question(
    id="cnn.flatten_for_linear",
    notebook=NB,
    name="flatten_for_linear",
    kind="function",
    assessment="free",
    prompt=(
        "Write flatten_for_linear(x): x is a batch of feature maps (N, C, H, W). Return the "
        "(N, C * H * W) matrix nn.Linear needs, each row one sample in (C, H, W) order, as a "
        "view of x whenever that is possible (a copy only when it is not)."
    ),
    todo="Write flatten_for_linear: keep the batch axis, flatten the rest, copy only if needed.",
    reference=_flatten,
    cases=_flatten_cases,
    strategy=_flatten_strategy,
    expect=Expect(arrays=("tensor",), layout=True),
    misconceptions=(
        Misconception(
            "flattened_batch",
            "view(-1) flattens the batch too: Linear needs one row per sample, x.view(batch, -1).",
            lambda x: x.reshape(-1),
        ),
        Misconception(
            "channels_last_order",
            "the rows must list the values in (C, H, W) order, the order the Linear layer was "
            "trained with; permuting to (N, H, W, C) first scrambles the features.",
            lambda x: x.permute(0, 2, 3, 1).reshape(x.shape[0], -1),
        ),
        Misconception(
            "cloned",
            "clone() always copies: on a contiguous batch view(batch, -1) shares memory, and "
            "reshape copies only when it must.",
            lambda x: x.clone().reshape(x.shape[0], -1),
        ),
    ),
    hints=(
        "x.view(x.shape[0], -1) keeps the batch axis. Does it work on a permuted x?",
        "reshape returns a view when view would work and copies otherwise.",
    ),
)


# ---------------------------------------------------------------------------- the error message
FLATTENS = {
    "batch": "x.view(batch, -1)",
    "all": "x.view(-1)",
    "none": "x itself (no flatten)",
}


def _mismatch_shapes(batch, c, h, w, in_features, out_features, flatten, *, linear_flattens=False):
    """The (mat1, mat2) shapes in "mat1 and mat2 shapes cannot be multiplied (AxB and CxD)"."""
    if flatten == "batch" or linear_flattens:
        mat1 = (batch, c * h * w)
    elif flatten == "all":
        mat1 = (1, batch * c * h * w)  # a 1-D input is one row
    else:
        mat1 = (batch * c * h, w)  # Linear multiplies the LAST axis; the others are rows
    return (mat1, (in_features, out_features))


def _mismatch_ok(b, c, h, w, i, o, flatten):
    a = _mismatch_shapes(b, c, h, w, i, o, flatten)[0][1]
    return a != i


def _mismatch_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(4, 32, 3, 3, 512, 10, "batch"), (4, 32, 3, 3, 288, 10, "none")]
    cases.append((2, 8, 7, 7, 392, 10, "all"))
    modes = ("batch", "all", "none")
    while len(cases) < 12:
        b, c, h, w, i, o = (
            int(v) for v in rng.integers((1, 1, 1, 1, 1, 1), (9, 17, 9, 9, 600, 20))
        )
        flatten = modes[len(cases) % 3]
        if _mismatch_ok(b, c, h, w, i, o, flatten):
            cases.append((b, c, h, w, i, o, flatten))
    return cases


def _mismatch_strategy():
    from hypothesis import strategies as st

    return st.tuples(
        *(st.integers(1, 4) for _ in range(6)), st.sampled_from(("batch", "all", "none"))
    ).filter(lambda t: _mismatch_ok(*t))


MISMATCH = Question(
    id="cnn.mismatch_shapes",
    notebook=NB,
    name="mismatch_shapes",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((2, 3, 10**9, 10**9, 10, 4, "batch"),),
    prompt=(
        "A batch x of feature maps (batch, c, h, w) goes into nn.Linear(in_features, "
        "out_features) after a flatten that may be wrong: flatten is 'batch' "
        f"({FLATTENS['batch']}), 'all' ({FLATTENS['all']}) or 'none' ({FLATTENS['none']}). "
        "The sizes do not fit, so PyTorch raises RuntimeError: mat1 and mat2 shapes cannot be "
        "multiplied (AxB and CxD). Write mismatch_shapes(batch, c, h, w, in_features, "
        "out_features, flatten) returning ((A, B), (C, D)), so that you can read from the "
        "message which number is wrong and why."
    ),
    todo=(
        "Write mismatch_shapes: which two matrices does Linear multiply, what does each "
        "flatten hand it, and in which layout is the weight used?"
    ),
    reference=_mismatch_shapes,
    cases=_mismatch_cases,
    strategy=_mismatch_strategy,
    misconceptions=(
        Misconception(
            "weight_as_stored",
            "Linear stores its weight as (out_features, in_features) but multiplies by its "
            "transpose: mat2 is (in_features x out_features).",
            lambda b, c, h, w, i, o, f: (_mismatch_shapes(b, c, h, w, i, o, f)[0], (o, i)),
        ),
        Misconception(
            "mat_order",
            "mat1 is the input, mat2 the transposed weight: the input comes first.",
            lambda b, c, h, w, i, o, f: tuple(reversed(_mismatch_shapes(b, c, h, w, i, o, f))),
        ),
        Misconception(
            "linear_flattens",
            "Linear does not flatten anything: it multiplies the LAST axis by the weight and "
            "treats every other axis as rows (a 4-D x gives batch * c * h rows of w numbers; "
            "a 1-D x is a single row).",
            lambda b, c, h, w, i, o, f: _mismatch_shapes(b, c, h, w, i, o, f, linear_flattens=True),
        ),
    ),
    hints=(
        "Linear computes x @ weight.T + bias with weight of shape (out_features, in_features): "
        "mat1 is x seen as a matrix, mat2 is weight.T.",
        "Linear works on the last axis only: x of shape (..., n) is multiplied as a matrix with "
        "n columns and one row per position of the other axes. Produce each error with a small "
        "Linear of your own and read it.",
    ),
)


# ---------------------------------------------------------------------------- parameters
def _count(c, h, w, layers, *, bias=True, conv_in=True):
    total, features = 0, None
    for layer in layers:
        if layer[0] == "conv":
            _, out, k, s, p = layer
            total += out * (c if conv_in else 1) * k * k + (out if bias else 0)
            c, h, w = out, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        elif layer[0] == "pool":
            _, k, s = layer
            h, w = (h - k) // s + 1, (w - k) // s + 1
        else:
            _, out = layer
            features = c * h * w if features is None else features
            total += features * out + (out if bias else 0)
            features = out
    return total


def _params_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(1, 28, 28, LENET_ISH + (("linear", 10),))]
    cases.append((3, 32, 32, (("conv", 6, 5, 1, 0), ("pool", 2, 2), ("linear", 32), ("linear", 4))))
    for c, h, w, layers in _features_cases(rng)[2:]:
        tail = (("linear", int(rng.integers(2, 20))),)
        if rng.random() < 0.5:
            tail = (("linear", int(rng.integers(2, 40))),) + tail
        cases.append((c, h, w, layers + tail))
    return cases


def _params_strategy():
    return _features_strategy().map(lambda t: t[:3] + (t[3] + (("linear", 3),),))


COUNT_PARAMS = Question(
    id="cnn.count_parameters",
    notebook=NB,
    name="count_parameters",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((1, 10**8, 10**8, (("conv", 2, 3, 1, 1), ("pool", 2, 2), ("linear", 10))),),
    prompt=(
        "Write count_parameters(c, h, w, layers): sum(p.numel() for p in model.parameters()) "
        f"for a tiny CNN on (c, h, w) images; {LAYERS_DOC}, followed by ('linear', "
        "out_features) entries (the first one after an implicit flatten). Every layer has its "
        "bias."
    ),
    todo=(
        "Write count_parameters: each conv and linear layer has a weight and a bias; pooling "
        "has none. The first Linear's in_features comes from the shape walk."
    ),
    reference=_count,
    cases=_params_cases,
    strategy=_params_strategy,
    misconceptions=(
        Misconception(
            "no_biases",
            "every nn.Conv2d and nn.Linear has a bias by default: out_channels (or "
            "out_features) more parameters each.",
            lambda c, h, w, layers: _count(c, h, w, layers, bias=False),
        ),
        Misconception(
            "conv_one_input_channel",
            "a conv filter spans ALL its input channels: its weight is (out_channels, "
            "in_channels, k, k).",
            lambda c, h, w, layers: _count(c, h, w, layers, conv_in=False),
        ),
    ),
    hints=(
        "Conv2d(c_in, c_out, k): c_out * c_in * k * k + c_out. Linear(i, o): i * o + o.",
        "Walk the shape as for in_features to find the first Linear's in_features.",
    ),
)


# ---------------------------------------------------------------------------- the loss
def _cross_entropy(logits, targets):
    z = np.asarray(logits, np.float64)
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-np.mean(logp[np.arange(len(targets)), np.asarray(targets)]))


def _ce_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(np.array([[2.0, 0.0, -1.0], [0.5, 0.5, 3.0]]), (0, 2))]
    for _ in range(6):
        n, k = int(rng.integers(1, 6)), int(rng.integers(2, 6))
        logits = rng.integers(-40, 41, size=(n, k)) / 10
        cases.append((logits, tuple(int(t) for t in rng.integers(0, k, size=n))))
    cases.append((np.array([[1000.0, 0.0], [0.0, 1000.0]]), (0, 0)))
    return cases


def _ce_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        n, k = draw(st.integers(1, 3)), draw(st.integers(2, 3))
        vals = draw(st.lists(st.integers(-3, 3), min_size=n * k, max_size=n * k))
        t = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
        return (np.array(vals, dtype=np.float64).reshape(n, k), tuple(t))

    return args()


def _called_cross_entropy(logits, targets):
    """The answer that skips the idea: tensorlab's own cross_entropy."""
    tl = _tl()
    import tensorlab.nn.functional as F

    return F.cross_entropy(tl.tensor(np.asarray(logits)), tl.tensor(list(targets))).item()


def _softmax_prob(logits, targets):
    z = np.asarray(logits, np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return float(-np.mean(p[np.arange(len(targets)), np.asarray(targets)]))


CROSS_ENTROPY = Question(
    id="cnn.cross_entropy",
    notebook=NB,
    name="cross_entropy",
    kind="function",
    assessment="implement",
    allowed=NUMPY_ONLY,
    prompt=(
        "Write cross_entropy(logits, targets) with numpy: what F.cross_entropy(logits, "
        "targets) returns for a float64 array of logits (N, classes) and a tuple of N class "
        "indices, as a float, with numpy only (no tensorlab, torch or scipy). It must not "
        "overflow for large logits."
    ),
    todo=(
        "Write cross_entropy with numpy only (no F.cross_entropy, tensorlab, torch or scipy): "
        "the mean over samples of minus the log of the softmax probability of the right "
        "class, computed stably."
    ),
    reference=_cross_entropy,
    cases=_ce_cases,
    strategy=_ce_strategy,
    expect=Expect(rtol=1e-6, atol=1e-9),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to compute the loss with numpy: calling F.cross_entropy (or any "
            "tensorlab, torch or scipy function) only repeats what you should derive. Use "
            "np.exp, np.log and a max subtracted per row.",
            lambda z, t: _called_cross_entropy(z, t),
        ),
        Misconception(
            "sum_not_mean",
            "F.cross_entropy averages over the batch by default (reduction='mean').",
            lambda z, t: _cross_entropy(z, t) * len(t),
        ),
        Misconception(
            "no_log",
            "cross-entropy is minus the LOG of the probability of the right class, not minus "
            "the probability.",
            _softmax_prob,
        ),
        Misconception(
            "raw_logit",
            "the logits are not probabilities: take log-softmax first (subtract the log of the "
            "sum of exps), then pick the right class.",
            lambda z, t: float(-np.mean(np.asarray(z)[np.arange(len(t)), np.asarray(t)])),
        ),
    ),
    hints=(
        "log_softmax(z) = z - log(sum(exp(z))) along the class axis.",
        "Subtract each row's max before exp: the result does not change and exp cannot overflow.",
    ),
)

QUESTIONS = [IN_FEATURES, FLATTEN, MISMATCH, COUNT_PARAMS, CROSS_ENTROPY]
