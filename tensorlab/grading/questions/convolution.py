"""Notebook 01: convolution by its definition, output sizes, scipy's modes, padding modes."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import (
    convolve_full,
    convolve_same,
    convolve_valid,
    correlate_full,
    correlate_valid,
    draw_ints,
    image_and_kernel_strategy,
    int_tuples,
    lecture_input,
    lecture_kernel,
    small_ints,
)
from ._rules import NUMPY_ONLY, WITH_CONV2D

NB = "01_convolution"


# ---------------------------------------------------------------------------- convo2d
def _image_kernel_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [
        (lecture_input(), lecture_kernel()),
        (np.arange(20, dtype=float).reshape(4, 5), np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])),
    ]
    for _ in range(6):
        H, W = rng.integers(3, 9, size=2)
        M, N = rng.integers(1, H + 1), rng.integers(1, W + 1)
        cases.append((small_ints(rng, (H, W)), small_ints(rng, (M, N))))
    return cases


def _flip_rows_only(x, k):
    return correlate_valid(x, np.asarray(k)[::-1, :])


def _flip_cols_only(x, k):
    return correlate_valid(x, np.asarray(k)[:, ::-1])


def _off_by_one(x, k):
    return convolve_valid(x, k)[:-1, :-1]


def _integer_output(x, k):
    return convolve_valid(x, k).astype(np.int64)


CONVO2D = Question(
    id="conv.convo2d",
    notebook=NB,
    name="convo2d",
    kind="function",
    assessment="implement",
    allowed=NUMPY_ONLY,
    prompt=(
        "Write convo2d(input, kernel): the 2-D convolution of a float64 array with a smaller "
        "kernel by its definition (flip the kernel, slide it over every valid position, sum the "
        "products). Return a float64 numpy array of shape (H - M + 1, W - N + 1)."
    ),
    todo=(
        "Write convo2d by the definition of convolution, with loops over the valid output "
        "positions."
    ),
    reference=convolve_valid,
    cases=_image_kernel_cases,
    strategy=image_and_kernel_strategy,
    misconceptions=(
        Misconception(
            "not_flipped",
            "this equals cross-correlation (what conv2d computes): you did not flip the kernel. "
            "Convolution flips it in both axes before sliding.",
            correlate_valid,
        ),
        Misconception(
            "flipped_one_axis",
            "you flipped the kernel along one axis only; convolution flips it upside down AND "
            "left to right (np.flip(kernel) with no axis, or kernel[::-1, ::-1]).",
            _flip_rows_only,
            variants=(_flip_cols_only,),
        ),
        Misconception(
            "full_size",
            "your output has the 'full' size (H + M - 1, W + N - 1): you padded the input. "
            "By the definition only valid positions count: (H - M + 1, W - N + 1).",
            convolve_full,
        ),
        Misconception(
            "same_size",
            "your output has the input's size: you padded the input ('same' mode). By the "
            "definition only valid positions count: (H - M + 1, W - N + 1).",
            convolve_same,
        ),
        Misconception(
            "off_by_one",
            "you dropped the last row and column of windows: there are H - M + 1 valid "
            "positions, so loop over range(H - M + 1).",
            _off_by_one,
        ),
        Misconception(
            "integer_output",
            "your output is an integer array (e.g. np.zeros(..., dtype=int)): products are "
            "truncated when stored. Use a float64 output.",
            _integer_output,
        ),
    ),
    hints=(
        "Convolution flips the kernel upside down AND left to right before sliding it: "
        "np.flip(kernel) with no axis does both.",
        "The output has one value per valid position of the kernel: make an array of "
        "(H - M + 1, W - N + 1) zeros and fill it with two loops.",
        "Each value is the sum of the products of one M x N window of the input with the "
        "flipped kernel; the window for out[i, j] starts at input[i, j].",
    ),
)


# ---------------------------------------------------------------------------- output size
def _valid_shape(image_shape, kernel_shape):
    (H, W), (M, N) = image_shape, kernel_shape
    return (H - M + 1, W - N + 1)


def _shape_pair_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((8, 8), (3, 3)), ((28, 28), (5, 3))]
    for H, W, M, N in draw_ints(rng, [(1, 40), (1, 40), (1, 9), (1, 9)], 8, _fits):
        cases.append(((H, W), (M, N)))
    return cases


def _fits(H, W, M, N):
    return M <= H and N <= W


def _shape_pair_strategy():
    return int_tuples((1, 12), (1, 12), (1, 6), (1, 6), where=_fits).map(
        lambda t: ((t[0], t[1]), (t[2], t[3]))
    )


VALID_SHAPE = Question(
    id="conv.valid_shape",
    notebook=NB,
    name="valid_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9), (3, 5)),),
    prompt=(
        "Write valid_shape(image_shape, kernel_shape): the shape of convo2d's output for an "
        "image of shape (H, W) and a kernel of shape (M, N), as a tuple (rows, columns). The "
        "grader calls it on shapes of its own."
    ),
    todo="Write valid_shape: how many valid positions does the kernel have along each axis?",
    reference=_valid_shape,
    cases=_shape_pair_cases,
    strategy=_shape_pair_strategy,
    misconceptions=(
        Misconception(
            "off_by_one",
            "there are H - M + 1 valid positions, not H - M: count the first position too.",
            lambda i, k: (i[0] - k[0], i[1] - k[1]),
            detail="A 5-row kernel fits 24 times in 28 rows (top row at 0, 1, ..., 23).",
        ),
        Misconception(
            "same_size",
            "valid convolution shrinks the image; keeping (H, W) would need padding.",
            lambda i, k: tuple(i),
        ),
        Misconception(
            "full_size",
            "that is the 'full' size (H + M - 1); convo2d keeps only valid positions.",
            lambda i, k: (i[0] + k[0] - 1, i[1] + k[1] - 1),
        ),
        Misconception(
            "kernel_axes_swapped",
            "the kernel has M rows and N columns: rows lose M - 1, columns lose N - 1.",
            lambda i, k: (i[0] - k[1] + 1, i[1] - k[0] + 1),
        ),
    ),
    hints=(
        "Count where the top-left corner of the kernel can go along the rows: 0, 1, ... up to "
        "the last row where the whole kernel still fits.",
        "Check your function on the lecture's 8x8 image and 3x3 kernel: it must give (6, 6).",
    ),
)


def _scipy_shapes(image_shape, kernel_shape):
    (H, W), (M, N) = image_shape, kernel_shape
    return ((H + M - 1, W + N - 1), (H, W), (H - M + 1, W - N + 1))


SCIPY_SHAPES = Question(
    id="conv.scipy_shapes",
    notebook=NB,
    name="scipy_shapes",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9), (4, 6)),),
    prompt=(
        "Write scipy_shapes(image_shape, kernel_shape): the output shapes of "
        "scipy.signal.convolve2d for mode='full', mode='same' and mode='valid', as a tuple of "
        "three (rows, cols) tuples. The kernel is never larger than the image."
    ),
    todo="Write scipy_shapes: return (full_shape, same_shape, valid_shape) for the two shapes.",
    reference=_scipy_shapes,
    cases=_shape_pair_cases,
    strategy=_shape_pair_strategy,
    misconceptions=(
        Misconception(
            "full_plus",
            "'full' keeps every position where kernel and image overlap by at least one pixel: "
            "H + M - 1, not H + M.",
            lambda i, k: ((i[0] + k[0], i[1] + k[1]),) + _scipy_shapes(i, k)[1:],
        ),
        Misconception(
            "valid_off_by_one",
            "'valid' has H - M + 1 positions per axis: don't forget the + 1.",
            lambda i, k: _scipy_shapes(i, k)[:2] + ((i[0] - k[0], i[1] - k[1]),),
        ),
        Misconception(
            "same_is_kernel",
            "'same' returns an array the size of the FIRST input (the image), not of the kernel.",
            lambda i, k: (_scipy_shapes(i, k)[0], tuple(k), _scipy_shapes(i, k)[2]),
        ),
    ),
    hints=(
        "'same' is the easy one: which of the two inputs does it take its size from?",
        "full: every overlap of at least one pixel; valid: only complete overlaps. Check with "
        "scipy.signal.convolve2d(np.zeros((7, 5)), np.zeros((3, 4)), mode=...).shape.",
    ),
)


# ---------------------------------------------------------------------------- padding modes
_TORCH_MODES = {"zeros", "reflect", "replicate", "circular"}


def _not_torch_name(actual, expected) -> bool:
    return isinstance(actual, (tuple, list)) and any(
        isinstance(a, str) and a.strip().lower() not in _TORCH_MODES for a in actual
    )


PADDING_MODES = Question(
    id="conv.padding_modes",
    notebook=NB,
    name="padding_modes",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "The row [1, 2, 3, 4, 5] was padded by 2 on each side four times: A, B, C and D. Which "
        "nn.Conv2d padding_mode produced each? Answer with PyTorch's names."
    ),
    todo="Set padding_modes = (mode_A, mode_B, mode_C, mode_D) using PyTorch's padding_mode names.",
    reference=lambda: ("replicate", "reflect", "zeros", "circular"),
    expect=Expect(casefold=True),
    misconceptions=(
        Misconception(
            "not_torch_names",
            "use PyTorch's padding_mode names: 'zeros', 'reflect', 'replicate', 'circular' "
            "(numpy.pad calls them constant/reflect/edge/wrap; scipy uses fill/symm/wrap).",
            ("edge", "reflect", "constant", "wrap"),
            variants=(("edge", "symm", "fill", "wrap"),),
            detect=_not_torch_name,
        ),
        Misconception(
            "reflect_vs_replicate",
            "'replicate' copies the edge value outwards (1, 1 | 1, 2, ...); 'reflect' mirrors "
            "around the edge value without repeating it (3, 2 | 1, 2, 3, ...).",
            ("reflect", "replicate", "zeros", "circular"),
        ),
        Misconception(
            "circular_vs_reflect",
            "'circular' wraps around: the values before the first element are the LAST ones "
            "(4, 5 | 1, 2, ...); 'reflect' mirrors the first ones.",
            ("replicate", "circular", "zeros", "reflect"),
        ),
    ),
    hints=(
        "Look at what appears left of the 1 in each row: copies of 1? a mirror (3, 2)? the end "
        "of the row (4, 5)? zeros?",
        "Try tensorlab.nn.functional.pad(x, (2, 2), mode=...) on a (1, 1, 5) tensor.",
    ),
)


# ---------------------------------------------------------------------------- scipy <-> conv2d
def _keep_4d(x, k):
    return convolve_full(x, k)[None, None]


def _float32(x, k):
    return convolve_full(x, k).astype(np.float32)


def _valid_only(x, k):
    return convolve_valid(x, k)


def _one_side_padding(x, k):
    H, W = np.shape(x)
    return convolve_full(x, k)[:H, :W]


def _half_padding(x, k):
    M, N = np.shape(k)
    from ._refs import zero_pad

    return convolve_valid(zero_pad(np.asarray(x, float), M // 2, M // 2, N // 2, N // 2), k)


FULL_WITH_CONV2D = Question(
    id="conv.full_with_conv2d",
    notebook=NB,
    name="full_convolve",
    kind="function",
    assessment="implement",
    allowed=WITH_CONV2D,
    prompt=(
        "Write full_convolve(x, k) with tensorlab.nn.functional.conv2d so that it returns "
        "exactly scipy.signal.convolve2d(x, k, mode='full') for 2-D float64 arrays x and k: "
        "a 2-D float64 array or tensor."
    ),
    todo=(
        "Write full_convolve with F.conv2d: mind the shapes conv2d expects, what it computes, "
        "and the padding that mode='full' needs."
    ),
    reference=convolve_full,
    cases=lambda rng: _image_kernel_cases(rng)[:5],
    strategy=image_and_kernel_strategy,
    misconceptions=(
        Misconception(
            "not_flipped",
            "this equals scipy.signal.correlate2d: conv2d does not flip the kernel, "
            "convolve2d does. Flip the kernel in both axes before calling conv2d.",
            correlate_full,
        ),
        Misconception(
            "valid_padding",
            "without padding conv2d gives mode='valid'; 'full' needs M - 1 rows and N - 1 "
            "columns of zeros on EACH side.",
            _valid_only,
        ),
        Misconception(
            "one_side_padding",
            "you padded only one side (top/left): 'full' needs M - 1 rows and N - 1 columns of "
            "zeros on BOTH sides; padding=(M - 1, N - 1) does that.",
            _one_side_padding,
        ),
        Misconception(
            "half_padding",
            "padding=(M // 2, N // 2) is what keeps the size ('same'-like); 'full' pads M - 1 "
            "and N - 1 on each side.",
            _half_padding,
        ),
        Misconception(
            "kept_4d",
            "you returned the (1, 1, H, W) batch: drop the batch and channel axes "
            "(out[0, 0] or squeeze).",
            _keep_4d,
        ),
        Misconception(
            "float32",
            "the result is float32: keep float64 (from_numpy keeps the array's dtype; do not "
            "call .float()).",
            _float32,
        ),
    ),
    hints=(
        "conv2d computes cross-correlation; convolution = cross-correlation with a flipped "
        "kernel (tensorlab.flip(w, (-2, -1))).",
        "'full' output is (H + M - 1, W + N - 1): padding=(M - 1, N - 1).",
        "Input and weight must be 4-D: x[None, None] and k[None, None] (or unsqueeze twice).",
    ),
)


def _same_padding(kernel_size, dilation):
    return dilation * (kernel_size - 1) // 2


def _padding_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(3, 1), (5, 2)]
    cases += draw_ints(rng, [(1, 11), (1, 5)], 8, lambda k, d: k % 2 == 1)
    return cases


SAME_PADDING = Question(
    id="conv.same_padding",
    notebook=NB,
    name="same_padding",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**9 + 1, 3),),
    prompt=(
        "Write same_padding(kernel_size, dilation): the padding (per side) that keeps an image's "
        "size with a square kernel of odd size kernel_size, this dilation and stride 1, as an "
        "int."
    ),
    todo="Write same_padding: how many pixels on each side keep H_out == H?",
    reference=_same_padding,
    cases=_padding_cases,
    strategy=lambda: int_tuples((1, 9), (1, 4), where=lambda k, d: k % 2 == 1),
    misconceptions=(
        Misconception(
            "ignored_dilation",
            "dilation spreads the kernel: it spans dilation * (kernel_size - 1) + 1 pixels, and "
            "the padding must cover that span, not kernel_size.",
            lambda k, d: k // 2,
            detail="A 5x5 kernel with dilation 2 spans 9 pixels: it needs 4 on each side.",
        ),
        Misconception(
            "both_sides",
            "padding is added on EACH side: split the extra pixels between top and bottom.",
            lambda k, d: d * (k - 1),
            detail="A 5x5 kernel with dilation 2 needs 8 extra pixels: 4 + 4.",
        ),
    ),
    hints=(
        "Start from the output size: floor((H + 2p - d(k - 1) - 1) / s) + 1 with s = 1.",
        "Set it equal to H and solve for p.",
    ),
)

QUESTIONS = [CONVO2D, VALID_SHAPE, SCIPY_SHAPES, PADDING_MODES, FULL_WITH_CONV2D, SAME_PADDING]
