"""Notebook 01: convolution by its definition, output sizes, scipy's modes, padding modes."""

from __future__ import annotations

import numpy as np

from ..model import Expect, Misconception, Question
from ._refs import (
    convolve_full,
    convolve_same,
    convolve_valid,
    correlate_full,
    correlate_valid,
    image_and_kernel_strategy,
    lecture_input,
    lecture_kernel,
    small_ints,
)

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
        "Start with out = np.zeros((H - M + 1, W - N + 1)) and two loops over i and j.",
        "Flip first: flipped = np.flip(kernel) flips BOTH axes. Then "
        "out[i, j] = np.sum(input[i:i+M, j:j+N] * flipped).",
        "Compare with scipy.signal.convolve2d(input, kernel, mode='valid') on a small example.",
    ),
)


# ---------------------------------------------------------------------------- output size
VALID_SHAPE = Question(
    id="conv.valid_shape",
    notebook=NB,
    name="valid_shape",
    kind="value",
    prompt="convo2d of a (28, 28) image with a (5, 3) kernel: what is the output shape?",
    todo="Set valid_shape to the output shape as a tuple (rows, columns).",
    reference=lambda: (24, 26),
    misconceptions=(
        Misconception(
            "off_by_one",
            "there are H - M + 1 valid positions, not H - M: a 5-row kernel fits 24 times in "
            "28 rows.",
            (23, 25),
        ),
        Misconception(
            "same_size",
            "valid convolution shrinks the image; (28, 28) would need padding.",
            (28, 28),
        ),
        Misconception(
            "full_size",
            "that is the 'full' size (H + M - 1); convo2d keeps only valid positions.",
            (32, 30),
        ),
        Misconception(
            "kernel_axes_swapped",
            "the kernel is 5 rows by 3 columns: rows lose 5 - 1, columns lose 3 - 1.",
            (26, 24),
        ),
    ),
    hints=(
        "Count where the top-left corner of the kernel can go: rows 0 .. H - M.",
        "Rows: 28 - 5 + 1. Columns: 28 - 3 + 1.",
    ),
)

SCIPY_SHAPES = Question(
    id="conv.scipy_shapes",
    notebook=NB,
    name="scipy_shapes",
    kind="value",
    prompt=(
        "scipy.signal.convolve2d of a (7, 5) array with a (3, 4) kernel: give the output shapes "
        "for mode='full', mode='same' and mode='valid', as a tuple of three shapes."
    ),
    todo="Set scipy_shapes = (full_shape, same_shape, valid_shape), each a tuple (rows, cols).",
    reference=lambda: ((9, 8), (7, 5), (5, 2)),
    misconceptions=(
        Misconception(
            "full_plus",
            "'full' keeps every position where kernel and image overlap by at least one pixel: "
            "H + M - 1, not H + M.",
            ((10, 9), (7, 5), (5, 2)),
        ),
        Misconception(
            "valid_off_by_one",
            "'valid' has H - M + 1 positions per axis: don't forget the + 1.",
            ((9, 8), (7, 5), (4, 1)),
        ),
        Misconception(
            "same_is_kernel",
            "'same' returns an array the size of the FIRST input (the image), not of the kernel.",
            ((9, 8), (3, 4), (5, 2)),
        ),
    ),
    hints=(
        "full: H + M - 1; same: H; valid: H - M + 1 (and the same for the columns).",
        "Check your numbers by running scipy.signal.convolve2d on np.zeros((7, 5)).",
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


SAME_PADDING = Question(
    id="conv.same_padding",
    notebook=NB,
    name="same_padding",
    kind="value",
    prompt=(
        "A 5x5 kernel with dilation=2 and stride 1: which padding (per side) keeps a 32x32 image "
        "32x32?"
    ),
    todo="Set same_padding to an int: the padding on each side.",
    reference=lambda: 4,
    misconceptions=(
        Misconception(
            "ignored_dilation",
            "dilation spreads the kernel: a 5x5 kernel with dilation 2 spans 2 * (5 - 1) + 1 = 9 "
            "pixels, so it needs 4 pixels on each side.",
            2,
        ),
        Misconception(
            "both_sides",
            "padding is added on EACH side: the 8 extra pixels are split 4 + 4.",
            8,
        ),
    ),
    hints=("Output size: floor((H + 2p - d(k - 1) - 1) / s) + 1. Solve it for H_out = H.",),
)

QUESTIONS = [CONVO2D, VALID_SHAPE, SCIPY_SHAPES, PADDING_MODES, FULL_WITH_CONV2D, SAME_PADDING]
