"""Notebook 08: after lesson 15 - the output_padding a decoder needs, pooling's output size
with ceil_mode, average pooling at the border (count_include_pad), and the receptive field's
span."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples

NB = "08_transposed_pooling"


# ---------------------------------------------------------------------------- transposed conv
def _conv_size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1


def _encoder_sizes(size, layers):
    sizes = [size]
    for k, s, p, d in layers:
        sizes.append(_conv_size(sizes[-1], k, s, p, d))
    return sizes


def _decoder_paddings(size, layers, *, order="decoder", rule="remainder"):
    """output_padding of each conv_transpose layer mirroring ``layers`` (decoder order) so the
    decoder gives back every length the encoder saw."""
    sizes = _encoder_sizes(size, layers)
    ops = []
    for i, (k, s, p, d) in enumerate(layers):
        if rule == "remainder":
            ops.append((sizes[i] + 2 * p - d * (k - 1) - 1) % s)
        elif rule == "size_mod_stride":
            ops.append(sizes[i] % s)
        elif rule == "output_side":
            ops.append((sizes[i + 1] + 2 * p - d * (k - 1) - 1) % s)
        else:
            ops.append(0)
    return tuple(reversed(ops)) if order == "decoder" else tuple(ops)


def _random_encoder(rng: np.random.Generator, size: int) -> tuple:
    layers, n = [], size
    for _ in range(int(rng.integers(1, 4))):
        k, s = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        p, d = int(rng.integers(0, (k + 1) // 2 + 1)), int(rng.integers(1, 3))
        if _conv_size(n, k, s, p, d) < 1:
            break
        layers.append((k, s, p, d))
        n = _conv_size(n, k, s, p, d)
    return tuple(layers) or ((3, 2, 1, 1),)


def _decoder_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [
        (28, ((3, 2, 1, 1), (3, 2, 1, 1))),
        (7, ((3, 2, 1, 1),)),
        (32, ((4, 2, 1, 1), (3, 3, 0, 1), (5, 2, 2, 2))),
    ]
    for _ in range(9):
        size = int(rng.integers(5, 60))
        cases.append((size, _random_encoder(rng, size)))
    return cases


def _decoder_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        size = draw(st.integers(1, 20))
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        return (size, _random_encoder(rng, size))

    return args()


DECODER_PADDING = Question(
    id="pooling.decoder_output_padding",
    notebook=NB,
    name="decoder_output_padding",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15, ((3, 2, 1, 1), (5, 3, 2, 1))),),
    prompt=(
        "An encoder applies conv layers to a length `size` along one axis: layers is a tuple "
        "of (kernel_size, stride, padding, dilation), first layer first. A decoder mirrors it "
        "with F.conv_transpose1d layers with the same settings in REVERSE order (the last "
        "encoder layer is undone first). Write decoder_output_padding(size, layers): the "
        "output_padding each decoder layer needs, in decoder order, as a tuple of ints, so "
        "that every decoder layer gives back exactly the length its encoder layer received."
    ),
    todo=(
        "Write decoder_output_padding: walk the lengths down through the encoder, then for "
        "each layer find what conv2d's floor threw away; list them in the decoder's order."
    ),
    reference=_decoder_paddings,
    cases=_decoder_cases,
    strategy=_decoder_strategy,
    misconceptions=(
        Misconception(
            "no_output_padding",
            "a stride-s conv maps s different input lengths to the same output length (the "
            "floor): without output_padding the decoder always returns the smallest of them.",
            lambda size, layers: _decoder_paddings(size, layers, rule="zero"),
        ),
        Misconception(
            "encoder_order",
            "the decoder undoes the LAST encoder layer first: list the paddings in reverse "
            "encoder order.",
            lambda size, layers: _decoder_paddings(size, layers, order="encoder"),
        ),
        Misconception(
            "size_mod_stride",
            "what the floor drops is (L_in + 2 * padding - dilation * (kernel_size - 1) - 1) "
            "mod stride, not L_in mod stride: padding and the kernel's span shift it.",
            lambda size, layers: _decoder_paddings(size, layers, rule="size_mod_stride"),
        ),
        Misconception(
            "output_side",
            "the remainder is taken on the length the encoder layer RECEIVED (its input), the "
            "one the decoder layer must give back, not on the length it produced.",
            lambda size, layers: _decoder_paddings(size, layers, rule="output_side"),
        ),
    ),
    hints=(
        "Without output_padding, conv_transpose1d maps L_out to (L_out - 1) * stride - "
        "2 * padding + dilation * (kernel_size - 1) + 1. Compare that with the L_in that "
        "conv1d turned into L_out.",
        "conv1d's floor((L_in + 2p - d(k - 1) - 1) / s) + 1 drops a remainder: that remainder "
        "is the output_padding. Check each layer with a real conv1d / conv_transpose1d pair.",
    ),
)


# ---------------------------------------------------------------------------- pooling size
def _pool_size(size, kernel_size, stride, padding, ceil_mode):
    span = size + 2 * padding - kernel_size
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def _pool_ok(n, k, s, p, c):
    return 2 * p <= k and n + 2 * p >= k


def _pool_args(n, k, s, p, c):
    return (n, k, s, p, bool(c))


def _ceil_no_rule(n, k, s, p, c):
    span = n + 2 * p - k
    return (span + (s - 1 if c else 0)) // s + 1


POOL_SIZE = Question(
    id="pooling.pool_output_size",
    notebook=NB,
    name="pool_output_size",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15 + 3, 4, 3, 1, True),),
    prompt=(
        "Write pool_output_size(size, kernel_size, stride, padding, ceil_mode): the output "
        "length of F.max_pool2d along one axis (dilation 1), as an int. ceil_mode is a bool."
    ),
    todo=(
        "Write pool_output_size: the conv formula, rounded up when ceil_mode - and mind the "
        "window that would start in the padding."
    ),
    reference=_pool_size,
    cases=lambda rng: (
        [(7, 3, 2, 1, True), (5, 2, 2, 1, True), (5, 2, 2, 0, True), (6, 3, 2, 0, False)]
        + [
            _pool_args(*t)
            for t in draw_ints(rng, [(1, 20), (1, 5), (1, 4), (0, 2), (0, 1)], 10, _pool_ok)
        ]
    ),
    strategy=lambda: int_tuples((1, 10), (1, 4), (1, 3), (0, 2), (0, 1), where=_pool_ok).map(
        lambda t: _pool_args(*t)
    ),
    misconceptions=(
        Misconception(
            "ceil_ignored",
            "ceil_mode=True rounds UP: a last, partial window still gives an output.",
            lambda n, k, s, p, c: _pool_size(n, k, s, p, False),
        ),
        Misconception(
            "ceil_no_rule",
            "with ceil_mode a last window that would START in the right padding is dropped: "
            "PyTorch removes it when (out - 1) * stride >= size + padding.",
            _ceil_no_rule,
        ),
        Misconception(
            "always_ceil",
            "without ceil_mode pooling rounds DOWN like conv2d: a partial window is dropped.",
            lambda n, k, s, p, c: _pool_size(n, k, s, p, True),
        ),
    ),
    hints=(
        "ceil_mode=False: floor((size + 2p - k) / s) + 1, as for conv2d.",
        "ceil_mode=True: round up instead, then check where the last window starts: it must "
        "start inside the input or the left padding.",
    ),
)


# ---------------------------------------------------------------------------- avg pool border
def _avg_border(values, kernel_size, padding, count_include_pad):
    n = len(values)
    out = []
    for start in range(-padding, n + padding - kernel_size + 1):
        inside = [values[i] for i in range(start, start + kernel_size) if 0 <= i < n]
        div = kernel_size if count_include_pad else len(inside)
        out.append(float(sum(inside)) / div)
    return tuple(out)


def _avg_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(tuple(range(10)), 3, 1, True), (tuple(range(10)), 3, 1, False)]
    for n, k, p, flag in draw_ints(rng, [(2, 8), (1, 4), (0, 2), (0, 1)], 8, _avg_ok):
        cases.append((tuple(int(v) for v in rng.integers(-5, 6, size=n)), k, p, bool(flag)))
    return cases


def _called_avg_pool(values, kernel_size, padding, count_include_pad):
    """The answer that skips the idea: tensorlab's own avg_pool1d."""
    import tensorlab
    import tensorlab.nn.functional as F

    x = tensorlab.tensor([[list(values)]], dtype=tensorlab.float64)
    out = F.avg_pool1d(x, kernel_size, 1, padding, count_include_pad=count_include_pad)
    return tuple(out.flatten().tolist())


def _avg_ok(n, k, p, flag):
    return 2 * p <= k <= n


def _avg_strategy():
    from hypothesis import strategies as st

    return int_tuples((1, 5), (1, 3), (0, 1), (0, 1), where=_avg_ok).flatmap(
        lambda t: st.tuples(
            st.lists(st.integers(-3, 3), min_size=t[0], max_size=t[0]).map(tuple),
            st.just(t[1]),
            st.just(t[2]),
            st.just(bool(t[3])),
        )
    )


AVG_BORDER = Question(
    id="pooling.avg_pool_border",
    notebook=NB,
    name="avg_pool_border",
    kind="function",
    assessment="implement",
    allowed=DERIVE,
    prompt=(
        "Write avg_pool_border(values, kernel_size, padding, count_include_pad): "
        "F.avg_pool1d(x, kernel_size, stride=1, padding=padding, "
        "count_include_pad=count_include_pad) for the 1-D signal `values` (a tuple of "
        "numbers), returned as a tuple of floats, without calling a pooling function: it "
        "predicts what avg_pool1d does."
    ),
    todo=(
        "Write avg_pool_border without avg_pool1d (or AvgPool1d): each window's sum divided "
        "by... how many? It depends on count_include_pad at the border."
    ),
    reference=_avg_border,
    cases=_avg_cases,
    strategy=_avg_strategy,
    expect=Expect(rtol=1e-6, atol=1e-6),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to work out the border divisor yourself: calling avg_pool1d (or "
            "AvgPool1d, or scipy's uniform_filter) only repeats what it should predict. Sum "
            "each window with a loop and divide.",
            lambda v, k, p, c: _called_avg_pool(v, k, p, c),
        ),
        Misconception(
            "flag_inverted",
            "count_include_pad=True counts the padded zeros in the divisor (always kernel_size); "
            "False divides by the number of real input values in the window.",
            lambda v, k, p, c: _avg_border(v, k, p, not c),
        ),
        Misconception(
            "padding_ignored",
            "padding adds windows at both ends: len(values) + 2 * padding - kernel_size + 1 "
            "outputs.",
            lambda v, k, p, c: _avg_border(v, k, 0, c),
        ),
    ),
    hints=(
        "Away from the border both settings agree: the mean of kernel_size values.",
        "At the border a window covers padding: does the divisor count those positions?",
    ),
)


# ---------------------------------------------------------------------------- receptive field
def _receptive_field(layers):
    r, jump = 1, 1
    for k, s, d in layers:
        r += d * (k - 1) * jump
        jump *= s
    return r


def _touched(layers):
    """How many distinct input pixels one output pixel reads (the holes left out)."""
    if any(k > 10**6 for k, s, d in layers):  # the hidden huge input: one dense layer first,
        return _receptive_field(layers)  # then strides 2 > 1 apart at most: no holes
    offsets, jump = {0}, 1
    for k, s, d in layers:
        offsets = {o + t * d * jump for o in offsets for t in range(k)}
        jump *= s
    return len(offsets)


def _rf_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(((3, 1, 1), (3, 1, 1)),), (((3, 2, 1), (3, 2, 1), (3, 1, 1)),), (((2, 2, 1),),)]
    cases.append((((3, 1, 2), (2, 2, 1), (3, 1, 1)),))
    cases.append((((3, 1, 2), (3, 1, 2)),))  # a 9-pixel span with holes
    for _ in range(6):
        n = int(rng.integers(1, 5))
        cases.append((tuple(draw_ints(rng, [(1, 5), (1, 3), (1, 3)], n)),))
    return cases


def _rf_strategy():
    from hypothesis import strategies as st

    return st.lists(int_tuples((1, 3), (1, 2), (1, 2)), min_size=1, max_size=3).map(
        lambda layers: (tuple(layers),)
    )


RECEPTIVE_FIELD = Question(
    id="pooling.receptive_field",
    notebook=NB,
    name="receptive_field",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((((10**9, 1, 1), (3, 2, 1)),),),
    prompt=(
        "Write receptive_field(layers): layers is a tuple of (kernel_size, stride, dilation) "
        "for a stack of conv or pooling layers along one axis, first layer first. Return the "
        "SPAN of the input pixels one output pixel of the last layer depends on (along that "
        "axis): from the first of them to the last, inclusive. With dilation some pixels "
        "inside the span are skipped (holes): they still count in the span."
    ),
    todo=(
        "Write receptive_field: how much does each layer widen the span, measured in input pixels?"
    ),
    reference=_receptive_field,
    cases=_rf_cases,
    strategy=_rf_strategy,
    misconceptions=(
        Misconception(
            "strides_ignored",
            "a stride spreads every later layer over more input: after a stride-2 layer, one "
            "step of the next kernel covers 2 input pixels.",
            lambda layers: 1 + sum(d * (k - 1) for k, s, d in layers),
        ),
        Misconception(
            "own_stride_counted",
            "a layer's OWN stride does not widen its own window; only the strides of the "
            "layers BEFORE it scale it.",
            lambda layers: (
                _receptive_field(tuple((k, s, d) for k, s, d in layers))
                + sum(
                    d * (k - 1) * (_jump(layers[:i]) * s - _jump(layers[:i]))
                    for i, (k, s, d) in enumerate(layers)
                )
            ),
        ),
        Misconception(
            "dilation_ignored",
            "dilation spreads a kernel: it spans dilation * (kernel_size - 1) + 1 pixels.",
            lambda layers: _receptive_field(tuple((k, s, 1) for k, s, d in layers)),
        ),
        Misconception(
            "holes",
            "that counts only the input pixels actually read; the question asks for the span, "
            "first to last. With dilation (or a stride larger than the next kernel) the field "
            "has holes: two dilation-2 3-wide layers read 5 pixels (every other one) spread over a span of 9.",
            _touched,
        ),
        Misconception(
            "kernels_multiplied",
            "fields do not multiply: each layer ADDS (its span - 1) times the product of the "
            "earlier strides.",
            lambda layers: int(np.prod([d * (k - 1) + 1 for k, s, d in layers])),
        ),
    ),
    hints=(
        "Two 3-wide stride-1 layers see 5 pixels: each adds kernel_size - 1.",
        "After a stride-2 layer, neighbouring pixels are 2 input pixels apart: keep the "
        "product of the strides so far, and measure each later kernel's span in input pixels.",
        "Check with autograd: the FIRST and the LAST input pixel with a non-zero gradient from "
        "one output pixel (with dilation, pixels in between can have a zero gradient).",
    ),
)


def _jump(layers) -> int:
    j = 1
    for _, s, _ in layers:
        j *= s
    return j


QUESTIONS = [DECODER_PADDING, POOL_SIZE, AVG_BORDER, RECEPTIVE_FIELD]
