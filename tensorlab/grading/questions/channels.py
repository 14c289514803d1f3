"""Notebook 03: cross-correlation versus convolution, channels and groups."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..encode import ArrayAnswer
from ..model import Misconception, Question
from ._refs import (
    conv2d_loops,
    convolve_valid,
    correlate_valid,
    draw_ints,
    int_tuples,
    lecture_input,
    small_ints,
)
from ._rules import NUMPY_ONLY

NB = "03_channels_groups"


# ---------------------------------------------------------------------------- the lecture's test
XCORR_ROW = Question(
    id="xcorr.lecture_row",
    notebook=NB,
    name="predicted_row",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "The lecture's test: an 8x8 input, zero except for column 4 which is all ones, and a 3x3 "
        "kernel whose every row is [1, 2, 3]. Predict the first row of conv2d's (6, 6) output "
        "as a tuple of 6 numbers."
    ),
    todo="Set predicted_row to the first output row as a tuple of 6 numbers.",
    reference=lambda: (0.0, 0.0, 9.0, 6.0, 3.0, 0.0),
    misconceptions=(
        Misconception(
            "true_convolution",
            "this equals true convolution: your kernel is flipped. conv2d slides the kernel as "
            "it is (cross-correlation), so the column of ones meets the 3s first.",
            (0, 0, 3, 6, 9, 0),
        ),
        Misconception(
            "one_row_only",
            "each output sums all 3 kernel rows: the column of ones meets every row of the "
            "kernel, not only one.",
            (0, 0, 3, 2, 1, 0),
            variants=((0, 0, 1, 2, 3, 0),),
            detail="Where the ones meet the kernel's 3s, that is 3 + 3 + 3 = 9, not 3.",
        ),
    ),
    hints=(
        "Output column j looks at input columns j, j + 1, j + 2 with weights 1, 2, 3.",
        "The ones are in input column 4: which j has 4 = j + 2 (weight 3)?",
    ),
)


def _as_matrix(v) -> np.ndarray | None:
    if isinstance(v, ArrayAnswer) and v.array.ndim == 2 and v.array.dtype.kind in "iuf":
        return v.array.astype(np.float64)
    return None


def _pair(actual) -> tuple[np.ndarray, np.ndarray] | None:
    if not isinstance(actual, (tuple, list)) or len(actual) != 2:
        return None
    x, k = _as_matrix(actual[0]), _as_matrix(actual[1])
    if x is None or k is None:
        return None
    return x, k


def _judge_experiment(actual) -> str | None:
    pair = _pair(actual)
    if pair is None:
        return "expected a pair (input, kernel) of 2-D numpy arrays or tensors"
    x, k = pair
    if k.shape[0] < 2 and k.shape[1] < 2:
        return "the kernel must be larger than 1x1 (a 1x1 kernel cannot be flipped)"
    if x.shape[0] < k.shape[0] or x.shape[1] < k.shape[1]:
        return f"the input {x.shape} must be at least as large as the kernel {k.shape}"
    if x.size > 400:
        return "keep the experiment small: at most 400 input pixels"
    if not (np.isfinite(x).all() and np.isfinite(k).all()):
        # NaN differs from everything, itself included: a NaN "difference" proves nothing
        return (
            "use finite numbers: with NaN or infinity every output differs, whatever the operation"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        corr, conv = correlate_valid(x, k), convolve_valid(x, k)
    if not (np.isfinite(corr).all() and np.isfinite(conv).all()):
        return "use smaller numbers: the outputs overflow to infinity, which proves nothing"
    if np.allclose(corr, conv):
        return (
            "your experiment cannot tell them apart: conv2d and true convolution give the same "
            "output on it"
        )
    if not _readable(x):
        return (
            "make an experiment you can read by hand: an input of 0s with ones on one pixel, "
            "one row or one column only (an impulse or a line), so that conv2d's output shows "
            "the kernel's weights in their order, flipped or not"
        )
    return None


def _readable(x: np.ndarray) -> bool:
    """0s and 1s, the ones on a single pixel, row or column: what conv2d does to it can be
    worked out by hand (random arrays prove the point without anyone seeing it)."""
    if not np.isin(x, (0.0, 1.0)).all() or not x.any():
        return False
    rows, cols = np.nonzero(x)
    return len(set(rows.tolist())) == 1 or len(set(cols.tolist())) == 1


def _symmetric_kernel(actual, expected) -> bool:
    pair = _pair(actual)
    return pair is not None and np.array_equal(pair[1], pair[1][::-1, ::-1])


def _constant_input(actual, expected) -> bool:
    pair = _pair(actual)
    return pair is not None and np.ptp(pair[0]) == 0


def _lecture_kernel_rows() -> np.ndarray:
    return np.array([[1.0, 2.0, 3.0]] * 3)


def _flip_symmetric() -> np.ndarray:
    return np.array([[1.0, 2.0, 1.0], [0.0, 5.0, 0.0], [1.0, 2.0, 1.0]])


EXPERIMENT = Question(
    id="xcorr.experiment",
    notebook=NB,
    name="experiment",
    kind="value",
    assessment="free",
    prompt=(
        "Design an experiment that proves conv2d computes cross-correlation: give a pair "
        "(input, kernel) of small 2-D arrays for which conv2d's output differs from true "
        "convolution's, with an input you can work through by hand: 0s, and ones on a single "
        "pixel, row or column."
    ),
    todo="Set experiment = (input, kernel): two small 2-D arrays that tell the two operations apart.",
    judge=_judge_experiment,
    misconceptions=(
        Misconception(
            "symmetric_kernel",
            "your kernel is unchanged by a 180-degree flip (kernel[::-1, ::-1]), so convolution "
            "and cross-correlation agree on every input: the test proves nothing. Use a kernel "
            "like rows of [1, 2, 3].",
            (lecture_input(), _flip_symmetric()),
            variants=((lecture_input(), np.ones((3, 3))),),
            detect=_symmetric_kernel,
        ),
        Misconception(
            "constant_input",
            "on a constant input every window is the same, so the order of the kernel's weights "
            "does not matter: both operations agree. Use an input with an edge or a line.",
            (np.ones((8, 8)), _lecture_kernel_rows()),
            detect=_constant_input,
        ),
    ),
    hints=(
        "Convolution = cross-correlation with the kernel flipped. Make the flip visible.",
        "An asymmetric kernel (rows [1, 2, 3]) on an input with a single line of ones shows the "
        "kernel's weights in order, or reversed.",
    ),
)


# ---------------------------------------------------------------------------- weights and groups
def _weight_shape(in_channels, out_channels, kernel_size, groups):
    kh, kw = kernel_size if isinstance(kernel_size, tuple) else (kernel_size, kernel_size)
    return (out_channels, in_channels // groups, kh, kw)


def _group_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(3, 128, 3, 1), (4, 4, 3, 4), (4, 4, 3, 2), (16, 64, (3, 5), 4), (2, 3, 3, 1)]
    while len(cases) < 12:
        g = int(rng.integers(1, 5))
        cin, cout = g * int(rng.integers(1, 5)), g * int(rng.integers(1, 5))
        k = (
            int(rng.integers(1, 6))
            if rng.random() < 0.5
            else tuple(int(v) for v in rng.integers(1, 6, 2))
        )
        cases.append((cin, cout, k, g))
    return cases


def _swapped(i, o, k, g):
    kh, kw = k if isinstance(k, tuple) else (k, k)
    return (i, o // g, kh, kw)


def _ignored_groups(i, o, k, g):
    kh, kw = k if isinstance(k, tuple) else (k, k)
    return (o, i, kh, kw)


def _out_divided(i, o, k, g):
    kh, kw = k if isinstance(k, tuple) else (k, k)
    return (o // g, i, kh, kw)


def _groups_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        g = draw(st.integers(1, 4))
        cin, cout = g * draw(st.integers(1, 4)), g * draw(st.integers(1, 4))
        k = draw(st.one_of(st.integers(1, 5), st.tuples(st.integers(1, 5), st.integers(1, 5))))
        return (cin, cout, k, g)

    return args()


WEIGHT_SHAPE = Question(
    id="channels.weight_shape",
    notebook=NB,
    name="weight_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15, 2 * 10**15, 3, 10**15), (4 * 10**15, 6 * 10**15, (3, 5), 2 * 10**15)),
    prompt=(
        "Write weight_shape(in_channels, out_channels, kernel_size, groups): the shape of "
        "nn.Conv2d(in_channels, out_channels, kernel_size, groups=groups).weight as a tuple "
        "(kernel_size is an int or a pair)."
    ),
    todo=(
        "Write weight_shape: return the weight's shape as a tuple. Which axis holds the output "
        "channels, and how many input channels does each filter see?"
    ),
    reference=_weight_shape,
    cases=_group_cases,
    strategy=_groups_strategy,
    misconceptions=(
        Misconception(
            "swapped_in_out",
            "you swapped in and out channels: the weight's first axis is out_channels (one "
            "filter per output channel), the second is in_channels // groups.",
            _swapped,
        ),
        Misconception(
            "ignored_groups",
            "with groups, each filter only sees the in_channels // groups input channels of its "
            "group: the second axis is in_channels // groups.",
            _ignored_groups,
        ),
        Misconception(
            "divided_out_channels",
            "groups divides the INPUT channels each filter sees; there is still one filter per "
            "output channel: (out_channels, in_channels // groups, kH, kW).",
            _out_divided,
        ),
    ),
    hints=(
        "Print nn.Conv2d(4, 4, 3, groups=2).weight.shape and compare with groups=1 and 4.",
        "kernel_size may be a pair (kH, kW): don't assume a square kernel.",
    ),
)


def _operator_count(in_channels, out_channels, groups):
    return out_channels * (in_channels // groups)


def _count_cases(rng: np.random.Generator) -> list[tuple]:
    return [(i, o, g) for i, o, _, g in _group_cases(rng)]


def _count_strategy():
    return _groups_strategy().map(lambda t: (t[0], t[1], t[3]))


OPERATOR_COUNT = Question(
    id="channels.operator_count",
    notebook=NB,
    name="operator_count",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15, 2 * 10**15, 10**15),),
    prompt=(
        "Write operator_count(in_channels, out_channels, groups): how many 2-D kernels "
        "(kH x kW operators) an nn.Conv2d layer holds."
    ),
    todo="Write operator_count: count the 2-D kernels stored in the layer's weight tensor.",
    reference=_operator_count,
    cases=_count_cases,
    strategy=_count_strategy,
    misconceptions=(
        Misconception(
            "out_channels_only",
            "each output channel has in_channels // groups operators, not one: the lecture's "
            "in=16, out=64, groups=4 layer holds 64 * 4 = 256 operators, not 64.",
            lambda i, o, g: o,
        ),
        Misconception(
            "ignored_groups",
            "with groups each output channel only connects to in_channels // groups inputs: "
            "out * in / groups.",
            lambda i, o, g: i * o,
        ),
        Misconception(
            "one_group",
            "you counted the operators of ONE group: multiply by the number of groups.",
            lambda i, o, g: (i // g) * (o // g),
        ),
    ),
    hints=("Count the entries of weight.shape[:2]: (out_channels, in_channels // groups).",),
)

_CONFIGS = ((2, 3, 2), (4, 4, 2), (16, 64, 4), (6, 4, 3), (3, 6, 2), (3, 6, 3))


def _legal(in_channels, out_channels, groups):
    return in_channels % groups == 0 and out_channels % groups == 0


def _legal_cases(rng: np.random.Generator) -> list[tuple]:
    return list(_CONFIGS) + draw_ints(rng, [(1, 12), (1, 12), (1, 6)], 10)


GROUPS_LEGAL = Question(
    id="channels.groups_legal",
    notebook=NB,
    name="groups_legal",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((4 * 10**15, 6 * 10**15, 2 * 10**15), (10**15, 10**15, 3)),
    prompt=(
        "Write groups_legal(in_channels, out_channels, groups): can "
        "nn.Conv2d(in_channels, out_channels, 3, groups=groups) be built (True) or does it "
        "raise ValueError (False)? The grader tries configurations of its own."
    ),
    todo="Write groups_legal: what must be true of in_channels, out_channels and groups?",
    reference=_legal,
    cases=_legal_cases,
    strategy=lambda: int_tuples((1, 8), (1, 8), (1, 4)),
    misconceptions=(
        Misconception(
            "only_in_channels",
            "out_channels must ALSO be divisible by groups: every group gets the same number of "
            "output channels.",
            lambda i, o, g: i % g == 0,
        ),
        Misconception(
            "only_out_channels",
            "in_channels must ALSO be divisible by groups: every group reads the same number of "
            "input channels.",
            lambda i, o, g: o % g == 0,
        ),
        Misconception(
            "groups_at_most_in",
            "groups <= in_channels is not the rule: the channels must split EVENLY into the "
            "groups, both on the input and on the output side.",
            lambda i, o, g: g <= i and g <= o,
        ),
    ),
    hints=(
        "Try a few: nn.Conv2d(i, o, 3, groups=g) raises ValueError when it is illegal; read "
        "the message.",
        "Each group reads in_channels / groups inputs and writes out_channels / groups outputs.",
    ),
)


def _sources(o, in_channels, out_channels, groups):
    per_in, per_out = in_channels // groups, out_channels // groups
    g = o // per_out
    return tuple(range(g * per_in, (g + 1) * per_in))


def _source_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(0, 4, 4, 4), (3, 4, 4, 2), (5, 4, 6, 2), (1, 6, 6, 3)]
    for i, o, _, g in _group_cases(rng)[5:]:
        cases.append((int(rng.integers(0, o)), i, o, g))
    return cases


def _modulo(o, i, out, g):
    per_in = i // g
    grp = o % g
    return tuple(range(grp * per_in, (grp + 1) * per_in))


def _source_strategy():
    from hypothesis import strategies as st

    return _groups_strategy().flatmap(
        lambda t: st.integers(0, t[1] - 1).map(lambda o: (o, t[0], t[1], t[3]))
    )


SOURCES = Question(
    id="channels.sources",
    notebook=NB,
    name="input_channels_for",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15 + 7, 3 * 10**15, 2 * 10**15, 10**15),),
    prompt=(
        "Write input_channels_for(o, in_channels, out_channels, groups): the input channels that "
        "output channel o reads, as a tuple of ints in increasing order."
    ),
    todo=(
        "Write input_channels_for: which group does output channel o belong to, and which input "
        "channels does that group read?"
    ),
    reference=_sources,
    cases=_source_cases,
    strategy=_source_strategy,
    misconceptions=(
        Misconception(
            "round_robin",
            "output channels are split into CONSECUTIVE blocks: channel o is in group "
            "o // (out_channels // groups), not o % groups.",
            _modulo,
        ),
        Misconception(
            "all_inputs",
            "with groups > 1 an output channel reads only the in_channels // groups channels of "
            "its group, not all of them.",
            lambda o, i, out, g: tuple(range(i)),
        ),
        Misconception(
            "same_index",
            "output channel o does not read input channel o only (that is groups == in == out); "
            "it reads its whole group's block.",
            lambda o, i, out, g: (o,),
        ),
    ),
    hints=(
        "nn.Conv2d(4, 4, 3, groups=2): output channels 0, 1 read inputs 0, 1; outputs 2, 3 read "
        "inputs 2, 3.",
    ),
)


# ---------------------------------------------------------------------------- conv2d from loops
def _conv_cases(rng: np.random.Generator) -> list[tuple]:
    x = np.zeros((1, 1, 8, 8))
    x[0, 0, :, 4] = 1.0
    w = np.array([[1.0, 2.0, 3.0]] * 3)[None, None]
    cases = [(x, w, 1)]
    for g, cin, cout, n in ((1, 2, 3, 1), (2, 4, 4, 2), (2, 2, 4, 1), (3, 3, 6, 1), (2, 4, 2, 1)):
        H, W = rng.integers(3, 7, size=2)
        kh, kw = rng.integers(1, 4, size=2)
        cases.append(
            (small_ints(rng, (n, cin, H, W)), small_ints(rng, (cout, cin // g, kh, kw)), g)
        )
    return cases


def _conv_flipped(x, w, groups):
    return conv2d_loops(x, np.asarray(w)[:, :, ::-1, ::-1], groups)


def _conv_round_robin(x, w, groups):
    N, C, H, W = x.shape
    O, Cg, kH, kW = w.shape
    out = np.zeros((N, O, H - kH + 1, W - kW + 1))
    for n in range(N):
        for o in range(O):
            g = o % groups
            for c in range(Cg):
                out[n, o] += correlate_valid(x[n, g * Cg + c], w[o, c])
    return out


def _conv_first_block(x, w, groups):
    N, C, H, W = x.shape
    O, Cg, kH, kW = w.shape
    out = np.zeros((N, O, H - kH + 1, W - kW + 1))
    for n in range(N):
        for o in range(O):
            for c in range(Cg):
                out[n, o] += correlate_valid(x[n, c], w[o, c])
    return out


def _conv_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        g = draw(st.integers(1, 2))
        cin, cout = g * draw(st.integers(1, 2)), g * draw(st.integers(1, 2))
        H, W = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        kh, kw = draw(st.integers(1, H)), draw(st.integers(1, W))

        def arr(shape):
            n = int(np.prod(shape))
            vals = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
            return np.array(vals, dtype=np.float64).reshape(shape)

        return (arr((1, cin, H, W)), arr((cout, cin // g, kh, kw)), g)

    return args()


CONV_LOOPS = Question(
    id="channels.conv2d_loops",
    notebook=NB,
    name="conv2d_loops",
    kind="function",
    assessment="implement",
    allowed=NUMPY_ONLY,
    prompt=(
        "Write conv2d_loops(x, w, groups) with numpy only: PyTorch's conv2d (stride 1, no "
        "padding, no bias) for x of shape (N, C, H, W) and w of shape (O, C // groups, kH, kW). "
        "Return a float64 array (N, O, H - kH + 1, W - kW + 1)."
    ),
    todo=(
        "Write conv2d_loops with numpy and loops over samples, output channels, the input "
        "channels of each output channel's group, and output positions."
    ),
    reference=conv2d_loops,
    cases=_conv_cases,
    strategy=_conv_strategy,
    misconceptions=(
        Misconception(
            "true_convolution",
            "this equals true convolution: your kernel is flipped. conv2d slides w as it is "
            "(cross-correlation).",
            _conv_flipped,
        ),
        Misconception(
            "round_robin_groups",
            "output channel o belongs to group o // (O // groups) (consecutive blocks), not "
            "o % groups.",
            _conv_round_robin,
        ),
        Misconception(
            "first_block_only",
            "every group reads its OWN block of input channels: group g uses channels "
            "g * C // groups ... (g + 1) * C // groups - 1, not always the first block.",
            _conv_first_block,
        ),
    ),
    hints=(
        "Start with the single-channel case: out[i, j] = np.sum(x[i:i+kH, j:j+kW] * w).",
        "Cg = w.shape[1] input channels per group; O // groups output channels per group.",
        "Output channel o belongs to group g = o // (O // groups), and that group's input "
        "channels start at g * Cg.",
    ),
)


DEPTHWISE = Question(
    id="channels.depthwise",
    notebook=NB,
    name="depthwise",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "nn.Conv2d(8, 16, 3, groups=8): give (the weight's shape, how many output channels each "
        "input channel feeds)."
    ),
    todo="Set depthwise = (weight_shape, outputs_per_input).",
    reference=lambda: ((16, 1, 3, 3), 2),
    misconceptions=(
        Misconception(
            "ignored_groups",
            "with groups each filter reads only in_channels // groups input channels, and each "
            "input channel feeds only the output channels of its own group.",
            ((16, 8, 3, 3), 16),
            detail="Here: 8 // 8 = 1 input channel per filter, 16 // 8 = 2 outputs per group.",
        ),
        Misconception(
            "swapped_in_out",
            "the weight is (out_channels, in_channels // groups, kH, kW): 16 filters of 1 "
            "channel each.",
            ((8, 2, 3, 3), 2),
            variants=(((1, 16, 3, 3), 2),),
        ),
    ),
    hints=(
        "With groups=8, how many input channels does each filter read, and how many output "
        "channels does each group hold?",
        "8 groups: each group has 1 input channel and 16 / 8 output channels.",
    ),
)

QUESTIONS = [
    XCORR_ROW,
    EXPERIMENT,
    WEIGHT_SHAPE,
    OPERATOR_COUNT,
    GROUPS_LEGAL,
    SOURCES,
    CONV_LOOPS,
    DEPTHWISE,
]
