"""Notebook 08: after lesson 15 - transposed convolution's output size, pooling's output size
with ceil_mode, average pooling at the border (count_include_pad), and the receptive field."""

from __future__ import annotations

import numpy as np

from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples

NB = "08_transposed_pooling"


# ---------------------------------------------------------------------------- transposed conv
def _ct_size(size, kernel_size, stride, padding, output_padding, dilation):
    return (size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + output_padding + 1


def _ct_ok(n, k, s, p, op, d):
    return op < max(s, d) and _ct_size(n, k, s, p, op, d) > 0


CT_SIZE = Question(
    id="pooling.conv_transpose_size",
    notebook=NB,
    name="conv_transpose_output_size",
    kind="function",
    prompt=(
        "Write conv_transpose_output_size(size, kernel_size, stride, padding, output_padding, "
        "dilation): the output length of F.conv_transpose2d along one axis, as an int."
    ),
    todo=(
        "Write conv_transpose_output_size: run conv2d's size formula backwards, then add "
        "output_padding."
    ),
    reference=_ct_size,
    cases=lambda rng: (
        [(3, 3, 2, 1, 1, 1), (4, 4, 2, 1, 0, 1), (5, 3, 1, 0, 0, 2)]
        + draw_ints(rng, [(1, 12), (1, 6), (1, 4), (0, 3), (0, 3), (1, 3)], 9, _ct_ok)
    ),
    strategy=lambda: int_tuples((1, 6), (1, 4), (1, 3), (0, 2), (0, 2), (1, 2), where=_ct_ok),
    misconceptions=(
        Misconception(
            "conv_formula",
            "that is conv2d's formula (which shrinks): a transposed convolution goes back UP, "
            "(size - 1) * stride - 2 * padding + dilation * (kernel_size - 1) + "
            "output_padding + 1.",
            lambda n, k, s, p, op, d: (n + 2 * p - d * (k - 1) - 1) // s + 1,
        ),
        Misconception(
            "no_output_padding",
            "output_padding adds that many rows/columns on one side: it picks which of the "
            "input sizes that conv2d maps to `size` you get back.",
            lambda n, k, s, p, op, d: _ct_size(n, k, s, p, 0, d),
        ),
        Misconception(
            "padding_adds",
            "in a transposed convolution padding REMOVES 2 * padding from the output (it undoes "
            "the padding the forward conv added).",
            lambda n, k, s, p, op, d: _ct_size(n, k, s, -p, op, d),
        ),
        Misconception(
            "stride_times_size",
            "the stride spaces the n input pixels: n - 1 gaps of stride, not n * stride.",
            lambda n, k, s, p, op, d: n * s - 2 * p + d * (k - 1) + op + 1,
        ),
    ),
    hints=(
        "conv2d maps L_in to floor((L_in + 2p - d(k - 1) - 1) / s) + 1. Solve for L_in.",
        "Without the floor there is one answer; output_padding chooses among the L_in that "
        "floor makes equal.",
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
    prompt=(
        "Write avg_pool_border(values, kernel_size, padding, count_include_pad): "
        "F.avg_pool1d(x, kernel_size, stride=1, padding=padding, "
        "count_include_pad=count_include_pad) for the 1-D signal `values` (a tuple of "
        "numbers), returned as a tuple of floats."
    ),
    todo=(
        "Write avg_pool_border: each window's sum divided by... how many? It depends on "
        "count_include_pad at the border."
    ),
    reference=_avg_border,
    cases=_avg_cases,
    strategy=_avg_strategy,
    expect=Expect(rtol=1e-6, atol=1e-6),
    misconceptions=(
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


def _rf_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(((3, 1, 1), (3, 1, 1)),), (((3, 2, 1), (3, 2, 1), (3, 1, 1)),), (((2, 2, 1),),)]
    cases.append((((3, 1, 2), (2, 2, 1), (3, 1, 1)),))
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
    prompt=(
        "Write receptive_field(layers): layers is a tuple of (kernel_size, stride, dilation) "
        "for a stack of conv or pooling layers along one axis, first layer first. Return how "
        "many input pixels one output pixel of the last layer depends on (along that axis)."
    ),
    todo=(
        "Write receptive_field: how much does each layer widen the field, measured in input pixels?"
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
        "Check with autograd: which input pixels get a non-zero gradient from one output pixel?",
    ),
)


def _jump(layers) -> int:
    j = 1
    for _, s, _ in layers:
        j *= s
    return j


QUESTIONS = [CT_SIZE, POOL_SIZE, AVG_BORDER, RECEPTIVE_FIELD]
