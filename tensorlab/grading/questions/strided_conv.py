"""Notebook 07: after lesson 14 - convolution as a strided view: window strides, im2col shapes,
conv2d as unfold -> matmul -> view (with stride, padding and groups), counting its cost."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Misconception, Question
from ._refs import draw_ints, int_tuples, small_ints
from ._rules import IM2COL

NB = "07_strided_conv"


def conv2d_general(x, w, stride=1, padding=0, groups=1) -> np.ndarray:
    """PyTorch's conv2d (cross-correlation, zero padding, no bias) by loops, float64."""
    x, w = np.asarray(x, np.float64), np.asarray(w, np.float64)
    N, C, H, W = x.shape
    O, Cg, kH, kW = w.shape
    xp = np.zeros((N, C, H + 2 * padding, W + 2 * padding))
    xp[:, :, padding : padding + H, padding : padding + W] = x
    Ho, Wo = (H + 2 * padding - kH) // stride + 1, (W + 2 * padding - kW) // stride + 1
    per_out = O // groups
    out = np.zeros((N, O, Ho, Wo))
    for n in range(N):
        for o in range(O):
            g = o // per_out
            for c in range(Cg):
                for i in range(Ho):
                    for j in range(Wo):
                        win = xp[n, g * Cg + c, i * stride : i * stride + kH]
                        out[n, o, i, j] += np.sum(win[:, j * stride : j * stride + kW] * w[o, c])
    return out


# ---------------------------------------------------------------------------- window strides
def _windows_layout(H, W, kH, kW, stride):
    Ho, Wo = (H - kH) // stride + 1, (W - kW) // stride + 1
    return ((Ho, Wo, kH, kW), (stride * W, stride, W, 1))


def _fits(H, W, kH, kW, s):
    return kH <= H and kW <= W


def _fresh(shape):
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


WINDOWS = Question(
    id="strided.windows_layout",
    notebook=NB,
    name="windows_layout",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**9, 10**9, 3, 3, 2),),
    prompt=(
        "x = tensorlab.arange(H * W).view(H, W) (contiguous). Its sliding windows for a "
        "(kH, kW) kernel and this stride, as a view, are x.unfold(0, kH, stride).unfold(1, kW, "
        "stride) (or the equivalent as_strided). Write windows_layout(H, W, kH, kW, stride) "
        "returning (shape, strides) of that view, both tuples of 4 ints."
    ),
    todo=(
        "Write windows_layout: one step to the next window, one step inside a window - how "
        "far apart are they in memory?"
    ),
    reference=_windows_layout,
    cases=lambda rng: (
        [(8, 8, 3, 3, 1), (5, 7, 2, 3, 2)]
        + draw_ints(rng, [(1, 12), (1, 12), (1, 5), (1, 5), (1, 3)], 8, _fits)
    ),
    strategy=lambda: int_tuples((1, 6), (1, 6), (1, 3), (1, 3), (1, 3), where=_fits),
    misconceptions=(
        Misconception(
            "fresh_strides",
            "those are the strides of a NEW contiguous (H_out, W_out, kH, kW) tensor (what "
            "F.unfold's copy would hold). The windows view copies nothing: its strides point "
            "into x's own memory.",
            lambda H, W, kH, kW, s: (
                _windows_layout(H, W, kH, kW, s)[0],
                _fresh(_windows_layout(H, W, kH, kW, s)[0]),
            ),
        ),
        Misconception(
            "stride_not_scaled",
            "moving to the next window moves `stride` pixels: the window axes have strides "
            "stride * W and stride, not W and 1.",
            lambda H, W, kH, kW, s: (_windows_layout(H, W, kH, kW, s)[0], (W, 1, W, 1)),
        ),
        Misconception(
            "axes_swapped",
            "the two window-position axes come first (H_out, W_out), the two axes inside a "
            "window last (kH, kW): strides (stride * W, stride, W, 1).",
            lambda H, W, kH, kW, s: (_windows_layout(H, W, kH, kW, s)[0], (W, 1, s * W, s)),
        ),
    ),
    hints=(
        "Inside a window, one row down is W elements in memory and one column right is 1.",
        "From one window to the next: stride rows down or stride columns right.",
    ),
)


# ---------------------------------------------------------------------------- im2col shape
def _unfold_shape(x_shape, kernel_size, stride, padding):
    N, C, H, W = x_shape
    k = kernel_size
    L = ((H + 2 * padding - k) // stride + 1) * ((W + 2 * padding - k) // stride + 1)
    return (N, C * k * k, L)


def _unfold_args(N, C, H, W, k, s, p):
    return ((N, C, H, W), k, s, p)


def _unfold_fits(N, C, H, W, k, s, p):
    return k <= H + 2 * p and k <= W + 2 * p


UNFOLD_SHAPE = Question(
    id="strided.unfold_shape",
    notebook=NB,
    name="unfold_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((2, 3, 10**9, 10**9), 3, 2, 1),),
    prompt=(
        "Write unfold_shape(x_shape, kernel_size, stride, padding): the shape of "
        "F.unfold(x, kernel_size, stride=stride, padding=padding) (im2col) for x of shape "
        "(N, C, H, W) and a square kernel, as a tuple of three ints."
    ),
    todo=("Write unfold_shape: one column per window position; how long is each column?"),
    reference=_unfold_shape,
    cases=lambda rng: (
        [((1, 1, 8, 8), 3, 1, 0), ((2, 3, 32, 32), 5, 2, 1)]
        + [
            _unfold_args(*t)
            for t in draw_ints(
                rng, [(1, 3), (1, 4), (1, 12), (1, 12), (1, 4), (1, 3), (0, 2)], 8, _unfold_fits
            )
        ]
    ),
    strategy=lambda: int_tuples(
        (1, 2), (1, 3), (1, 6), (1, 6), (1, 3), (1, 2), (0, 1), where=_unfold_fits
    ).map(lambda t: _unfold_args(*t)),
    misconceptions=(
        Misconception(
            "transposed",
            "F.unfold puts the window contents on axis 1 and the window positions last: "
            "(N, C * kH * kW, L), ready for weight.view(O, -1) @ cols.",
            lambda xs, k, s, p: tuple(_unfold_shape(xs, k, s, p)[i] for i in (0, 2, 1)),
        ),
        Misconception(
            "no_channels",
            "each column holds the window of EVERY input channel: C * kH * kW values, not kH * kW.",
            lambda xs, k, s, p: (xs[0], k * k, _unfold_shape(xs, k, s, p)[2]),
        ),
        Misconception(
            "padding_ignored",
            "padding adds 2 * padding rows and columns before the windows are counted.",
            lambda xs, k, s, p: (
                _unfold_shape(xs, k, s, 0) if k <= min(xs[2:]) else (xs[0], xs[1] * k * k, 0)
            ),
        ),
    ),
    hints=(
        "L is the number of window positions: H_out * W_out, with the output-size formula.",
        "Each column is one window, flattened over (C, kH, kW).",
    ),
)


# ---------------------------------------------------------------------------- conv via unfold
def _conv_unfold_cases(rng: np.random.Generator) -> list[tuple]:
    x = np.zeros((1, 1, 8, 8))
    x[0, 0, :, 4] = 1.0
    cases = [(x, np.array([[1.0, 2.0, 3.0]] * 3)[None, None], 1, 0, 1)]
    for g, cin, cout, s, p in ((1, 2, 3, 2, 1), (2, 4, 4, 1, 0), (2, 2, 4, 2, 2), (3, 3, 6, 1, 1)):
        H, W = (int(v) for v in rng.integers(4, 8, size=2))
        k = int(rng.integers(1, 4))
        n = int(rng.integers(1, 3))
        w = small_ints(rng, (cout, cin // g, k, k))
        cases.append((small_ints(rng, (n, cin, H, W)), w, s, p, g))
    return cases


def _conv_unfold_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        g = draw(st.integers(1, 2))
        cin, cout = g * draw(st.integers(1, 2)), g * draw(st.integers(1, 2))
        H, W = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        p = draw(st.integers(0, 1))
        k = draw(st.integers(1, min(H, W) + 2 * p))
        s = draw(st.integers(1, 2))

        def arr(shape):
            n = int(np.prod(shape))
            vals = draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
            return np.array(vals, dtype=np.float64).reshape(shape)

        return (arr((1, cin, H, W)), arr((cout, cin // g, k, k)), s, p, g)

    return args()


# names a conv2d-from-windows answer must not reach, directly or through an alias or helper
CONVOLUTIONS = (
    "conv1d",
    "conv2d",
    "conv3d",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "LazyConv2d",
    "conv_transpose2d",
    "ConvTranspose2d",
    "correlate2d",
    "convolve2d",
    "fftconvolve",
    "oaconvolve",
    "signal",
)


def _called_conv2d(x, w, s, p, g):
    """The answer that skips the idea: tensorlab's own conv2d."""
    import tensorlab
    import tensorlab.nn.functional as F

    xt, wt = tensorlab.tensor(np.asarray(x)), tensorlab.tensor(np.asarray(w))
    return F.conv2d(xt, wt, None, s, p, 1, g).numpy()


def _first_block(x, w, s, p, g):
    O, Cg = w.shape[:2]
    x = np.asarray(x)[:, :Cg]
    return conv2d_general(np.concatenate([x] * g, axis=1), w, s, p, g)


CONV_VIA_UNFOLD = Question(
    id="strided.conv2d_via_unfold",
    notebook=NB,
    name="conv2d_via_unfold",
    kind="function",
    assessment="implement",
    allowed=IM2COL,
    prompt=(
        "Write conv2d_via_unfold(x, w, stride, padding, groups) the way lesson 14 builds "
        "conv2d: cut every window out of the zero-padded input (im2col), multiply by the "
        "weight as a matrix, and view the result as an image. x: float64 array (N, C, H, W); "
        "w: float64 array (O, C // groups, k, k). Return F.conv2d(x, w, stride=stride, "
        "padding=padding, groups=groups) as a float64 array or tensor (N, O, H_out, W_out), "
        "without calling a convolution (no conv2d, nn.Conv2d or scipy.signal): F.unfold, "
        "slicing, matmul and einsum are fine."
    ),
    todo=(
        "Write conv2d_via_unfold without a convolution function (no conv2d, Conv2d or "
        "scipy.signal): pad, collect the windows as columns, one matrix product per group, "
        "then reshape to (N, O, H_out, W_out)."
    ),
    reference=conv2d_general,
    cases=_conv_unfold_cases,
    strategy=_conv_unfold_strategy,
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to BUILD conv2d from windows and a matrix product: calling a "
            "convolution (F.conv2d, nn.Conv2d, scipy.signal.correlate) skips the point. Use "
            "F.unfold (or slices) and matmul.",
            lambda x, w, s, p, g: _called_conv2d(x, w, s, p, g),
        ),
        Misconception(
            "flipped_kernel",
            "this is true convolution: conv2d does not flip the kernel; windows and weights "
            "are multiplied entry by entry as they are.",
            lambda x, w, s, p, g: conv2d_general(x, np.asarray(w)[:, :, ::-1, ::-1], s, p, g),
        ),
        Misconception(
            "first_block_only",
            "with groups, group g multiplies ITS OWN block of input channels (channels "
            "g * C // groups onward) by its block of filters, not always the first block.",
            _first_block,
        ),
        Misconception(
            "stride_ignored",
            "stride picks every stride-th window: keep only the windows starting at "
            "multiples of stride.",
            lambda x, w, s, p, g: conv2d_general(x, w, 1, p, g),
        ),
        Misconception(
            "padding_ignored",
            "pad the input with `padding` zeros on every side before cutting the windows.",
            lambda x, w, s, p, g: (
                conv2d_general(x, w, s, 0, g)
                if w.shape[-1] <= min(x.shape[-2:])
                else np.zeros((x.shape[0], w.shape[0], 0, 0))
            ),
        ),
    ),
    hints=(
        "Start without groups and stride: the windows of a padded (C, H, W) image as the "
        "columns of a (C * k * k, H_out * W_out) matrix; w.reshape(O, -1) @ columns.",
        "Stride: keep windows at rows 0, s, 2s, ...; groups: split the columns' channel block "
        "and w's output channels into `groups` pieces and multiply piece by piece.",
        "Build the columns with stacked slices: xp[:, :, a : a + s * H_out : s, "
        "b : b + s * W_out : s] for every (a, b) in the kernel.",
    ),
)


# ---------------------------------------------------------------------------- counting
def _conv_cost(n, c_in, c_out, k, groups, h_out, w_out):
    per = (c_in // groups) * k * k
    return (c_out * per + c_out, n * c_out * h_out * w_out * per)


def _cost_ok(n, c_in, c_out, k, g, h, w):
    return c_in % g == 0 and c_out % g == 0


CONV_COST = Question(
    id="strided.conv_cost",
    notebook=NB,
    name="conv_cost",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((3, 2 * 10**12, 4 * 10**12, 3, 10**12, 5, 7),),
    prompt=(
        "Write conv_cost(n, c_in, c_out, k, groups, h_out, w_out) for nn.Conv2d(c_in, c_out, k, "
        "groups=groups) (with its bias) applied to a batch of n images giving (n, c_out, h_out, "
        "w_out): return (number of parameters, number of multiply-adds), two ints."
    ),
    todo=(
        "Write conv_cost: parameters are the weight's entries plus the bias; every output "
        "value costs one multiply-add per weight it reads."
    ),
    reference=_conv_cost,
    cases=lambda rng: (
        [(1, 16, 64, 3, 4, 6, 6), (8, 3, 128, 5, 1, 28, 28)]
        + draw_ints(rng, [(1, 8), (1, 16), (1, 16), (1, 5), (1, 4), (1, 30), (1, 30)], 8, _cost_ok)
    ),
    strategy=lambda: int_tuples(
        (1, 3), (1, 4), (1, 4), (1, 3), (1, 2), (1, 4), (1, 4), where=_cost_ok
    ),
    misconceptions=(
        Misconception(
            "ignored_groups",
            "with groups each filter reads only c_in // groups channels: both the weight and "
            "the work shrink by the factor groups.",
            lambda n, ci, co, k, g, h, w: _conv_cost(n, ci, co, k, 1, h, w),
        ),
        Misconception(
            "no_bias",
            "nn.Conv2d has a bias by default: one more parameter per output channel.",
            lambda n, ci, co, k, g, h, w: (
                _conv_cost(n, ci, co, k, g, h, w)[0] - co,
                _conv_cost(n, ci, co, k, g, h, w)[1],
            ),
        ),
        Misconception(
            "one_image",
            "the batch multiplies the work (not the parameters): N * C_out * H_out * W_out * "
            "(C_in / groups) * kH * kW.",
            lambda n, ci, co, k, g, h, w: _conv_cost(1, ci, co, k, g, h, w),
        ),
    ),
    hints=(
        "Parameters: what is the shape of the weight (mind groups), and how many numbers does "
        "the bias hold?",
        "Multiply-adds: (number of output values in the batch) times (weights each output "
        "value reads).",
    ),
)


# ---------------------------------------------------------------------------- channels_last
def _channels_last_strides(shape):
    N, C, H, W = shape
    return (H * W * C, 1, W * C, C)


def _nhwc_order(shape):
    N, C, H, W = shape
    return (H * W * C, W * C, C, 1)


CHANNELS_LAST = Question(
    id="strided.channels_last_strides",
    notebook=NB,
    name="channels_last_strides",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((2, 3, 10**9, 10**9),),),
    prompt=(
        "Write channels_last_strides(shape): the strides of a tensor of shape (N, C, H, W) in "
        "the channels_last memory format, torch.empty(shape, memory_format=torch.channels_last)"
        ".stride(): the same shape and values, stored pixel by pixel with the C channels of a "
        "pixel side by side. (x.contiguous(memory_format=torch.channels_last) returns x itself "
        "when x already counts as channels_last-contiguous: C == 1 or H == W == 1.)"
    ),
    todo=(
        "Write channels_last_strides: in memory the order is N, H, W, C; the strides are "
        "still listed in the (N, C, H, W) order of the shape."
    ),
    reference=_channels_last_strides,
    cases=lambda rng: (
        [((1, 3, 4, 5),), ((2, 8, 7, 7),)]
        + [(t,) for t in draw_ints(rng, [(1, 4), (1, 16), (1, 9), (1, 9)], 8)]
    ),
    strategy=lambda: int_tuples((1, 3), (1, 4), (1, 4), (1, 4)).map(lambda t: (t,)),
    misconceptions=(
        Misconception(
            "nhwc_order",
            "those strides are listed in memory order (N, H, W, C); stride() follows the SHAPE, "
            "which stays (N, C, H, W): the channel stride comes second.",
            _nhwc_order,
        ),
        Misconception(
            "contiguous",
            "those are the ordinary (channels-first) strides: channels_last stores the C values "
            "of one pixel next to each other, so the channel stride is 1.",
            lambda shape: _fresh(tuple(shape)),
        ),
        Misconception(
            "channel_stride_hw",
            "in channels_last the channels are the innermost axis in memory: stride 1 for C, "
            "and C for W (one pixel further is C values further).",
            lambda shape: (shape[1] * shape[2] * shape[3], 1, shape[3], 1),
        ),
    ),
    hints=(
        "Write the memory order as a shape, (N, H, W, C), and compute its contiguous strides.",
        "Then give each stride to its axis in the (N, C, H, W) order of the shape.",
    ),
)

QUESTIONS = [WINDOWS, UNFOLD_SHAPE, CONV_VIA_UNFOLD, CONV_COST, CHANNELS_LAST]
