"""Notebook 02: what conv2d expects (N, C, H, W), (un)squeezing, repacking, output shapes."""

from __future__ import annotations

import math

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples, lecture_input

NB = "02_conv2d_inputs"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- (H, W) -> NCHW
def _image_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(lecture_input(),), (np.arange(6, dtype=np.float32).reshape(2, 3),)]
    for dtype in (np.float64, np.float64, np.float32, np.int64):
        H, W = rng.integers(1, 7, size=2)
        cases.append((rng.integers(-5, 6, size=(H, W)).astype(dtype),))
    return cases


def _to_nchw(img):
    return _tl().from_numpy(img).unsqueeze(0).unsqueeze(0)


def _copied(img):
    return _tl().tensor(img).unsqueeze(0).unsqueeze(0)


def _copied_as_tensor_clone(img):
    return _tl().from_numpy(img).clone().unsqueeze(0).unsqueeze(0)


def _one_unsqueeze(img):
    return _tl().from_numpy(img).unsqueeze(0)


def _trailing(img):
    return _tl().from_numpy(img).unsqueeze(-1).unsqueeze(-1)


def _as_float32(img):
    return _tl().from_numpy(img).float().unsqueeze(0).unsqueeze(0)


def _image_strategy():
    from hypothesis import strategies as st

    @st.composite
    def image(draw):
        H, W = draw(st.integers(1, 4)), draw(st.integers(1, 4))
        values = draw(st.lists(st.integers(-3, 3), min_size=H * W, max_size=H * W))
        return (np.array(values, dtype=np.float64).reshape(H, W),)

    return image()


TO_NCHW = Question(
    id="inputs.to_nchw",
    notebook=NB,
    name="to_nchw",
    kind="function",
    assessment="free",
    prompt=(
        "Write to_nchw(img): turn a 2-D numpy image (H, W) into a tensorlab tensor of shape "
        "(1, 1, H, W) that shares the image's memory and keeps its dtype."
    ),
    todo=(
        "Write to_nchw: build the (1, 1, H, W) tensor on the image's own memory (which "
        "constructor shares memory with a numpy array?)."
    ),
    reference=_to_nchw,
    cases=_image_cases,
    strategy=_image_strategy,
    expect=Expect(arrays=("tensor",), layout=True),
    misconceptions=(
        Misconception(
            "copied",
            "tensorlab.tensor(...) (like torch.tensor) COPIES the data: writes to the image no "
            "longer show in the tensor. tensorlab.from_numpy shares the array's memory.",
            _copied,
            variants=(_copied_as_tensor_clone,),
        ),
        Misconception(
            "one_unsqueeze",
            "the result has 3 axes (1, H, W): the second unsqueeze must be applied to the result "
            "of the first. The lecture writes both calls on the original tensor, which only adds "
            "one axis.",
            _one_unsqueeze,
        ),
        Misconception(
            "trailing_axes",
            "unsqueeze(-1) adds axes at the END: (H, W, 1, 1). Batch and channel axes come first: "
            "unsqueeze(0).",
            _trailing,
        ),
        Misconception(
            "cast_to_float32",
            "you converted to float32: .float() makes a copy with another dtype (and another "
            "memory). Keep the image's dtype so the tensor shares its memory.",
            _as_float32,
        ),
    ),
    hints=(
        "tensorlab.from_numpy(img) gives a tensor of shape (H, W) on the same memory.",
        "x = x.unsqueeze(0) twice (each on the result of the previous one), or img[None, None].",
    ),
)


LECTURE_UNSQUEEZE = Question(
    id="inputs.lecture_unsqueeze",
    notebook=NB,
    name="lecture_shape",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "The lecture writes `tensor_arr = torch.unsqueeze(tsr_arr, 0)` twice, both times on "
        "tsr_arr of shape (8, 8). What is tensor_arr.shape afterwards?"
    ),
    todo="Set lecture_shape to the shape of tensor_arr after the two lines, as a tuple.",
    reference=lambda: (1, 8, 8),
    misconceptions=(
        Misconception(
            "two_axes",
            "both lines start again from tsr_arr: the second overwrites tensor_arr with the "
            "same result as the first. Only chained calls add two axes.",
            (1, 1, 8, 8),
            detail="One unsqueeze of an (8, 8) tensor at axis 0 gives (1, 8, 8).",
        ),
    ),
    hints=("Run the two lines exactly as written and print tensor_arr.shape.",),
)


# ---------------------------------------------------------------------------- NHWC -> NCHW
def _batch_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(np.arange(2 * 2 * 3 * 3, dtype=np.uint8).reshape(2, 2, 3, 3),)]
    for _ in range(5):
        N, H, W, C = rng.integers(1, 4), rng.integers(2, 6), rng.integers(2, 6), rng.integers(2, 5)
        cases.append((rng.integers(0, 256, size=(N, H, W, C)).astype(np.uint8),))
    return cases


def _repack(batch):
    return _tl().from_numpy(batch).permute(0, 3, 1, 2).float()


def _reshaped(batch):
    N, H, W, C = batch.shape
    return _tl().from_numpy(batch).reshape(N, C, H, W).float()


def _wrong_perm(batch):
    return _tl().from_numpy(batch).permute(0, 3, 2, 1).float()


def _kept_uint8(batch):
    return _tl().from_numpy(batch).permute(0, 3, 1, 2)


def _float64(batch):
    return _tl().from_numpy(batch).permute(0, 3, 1, 2).double()


def _scaled(batch):
    return _tl().from_numpy(batch.astype(np.float32) / 255).permute(0, 3, 1, 2)


def _batch_strategy():
    from hypothesis import strategies as st

    @st.composite
    def batch(draw):
        N, H, W, C = (draw(st.integers(1, 3)) for _ in range(4))
        n = N * H * W * C
        values = draw(st.lists(st.integers(0, 255), min_size=n, max_size=n))
        return (np.array(values, dtype=np.uint8).reshape(N, H, W, C),)

    return batch()


REPACK = Question(
    id="inputs.repack",
    notebook=NB,
    name="repack",
    kind="function",
    assessment="free",
    prompt=(
        "Images often arrive channels-last: a uint8 numpy array (N, H, W, C). Write "
        "repack(batch) returning a float32 tensorlab tensor (N, C, H, W) with the same pixel "
        "values, ready for conv2d."
    ),
    todo="Write repack: move the channel axis to position 1, then convert to float32.",
    reference=_repack,
    cases=_batch_cases,
    strategy=_batch_strategy,
    expect=Expect(arrays=("tensor",)),
    misconceptions=(
        Misconception(
            "reshaped",
            "reshape/view keep the memory order (N, H, W, C) and only re-cut it, so pixels of "
            "different channels get mixed. Moving an axis needs permute(0, 3, 1, 2).",
            _reshaped,
        ),
        Misconception(
            "h_w_swapped",
            "you put W before H: permute(0, 3, 2, 1) gives (N, C, W, H). The new order lists the "
            "OLD axis numbers: (N=0, C=3, H=1, W=2).",
            _wrong_perm,
        ),
        Misconception(
            "kept_uint8",
            "the tensor is still uint8; conv2d weights are float32. Convert with .float().",
            _kept_uint8,
        ),
        Misconception(
            "float64",
            "that is float64 (.double()); PyTorch layers use float32 by default: .float().",
            _float64,
        ),
        Misconception(
            "scaled",
            "you scaled the pixels (/ 255); this question asks for the same values, only repacked.",
            _scaled,
        ),
    ),
    hints=(
        "tensorlab.from_numpy(batch) has shape (N, H, W, C). Which axis order do you want?",
        "x.permute(0, 3, 1, 2) lists, for each new axis, the old axis it comes from.",
    ),
)


# ---------------------------------------------------------------------------- weights & sizes
KERNEL_SPEC = Question(
    id="inputs.kernel_spec",
    notebook=NB,
    name="weight_shape_3_128",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt="What is the shape of nn.Conv2d(3, 128, 5).weight?",
    todo="Set weight_shape_3_128 to the weight's shape as a tuple.",
    reference=lambda: (128, 3, 5, 5),
    misconceptions=(
        Misconception(
            "swapped_in_out",
            "you swapped in and out channels: the constructor takes (in, out, k) but the weight "
            "is (out_channels, in_channels / groups, kH, kW).",
            (3, 128, 5, 5),
        ),
        Misconception(
            "kernel_size_scalar",
            "kernel_size=5 means a 5x5 kernel: the weight has two spatial axes (kH, kW).",
            (128, 3, 5),
        ),
    ),
    hints=("Weight layout: (out_channels, in_channels / groups, kernel_height, kernel_width).",),
)


def _out_size(size, kernel_size, stride, padding, dilation):
    return (size + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1


def _size_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(32, 5, 2, 1, 1), (10, 3, 1, 1, 2), (8, 3, 1, 0, 1), (7, 2, 3, 0, 1)]
    while len(cases) < 14:
        n, k, s, p, d = (int(v) for v in rng.integers([1, 1, 1, 0, 1], [40, 8, 5, 4, 4]))
        if n + 2 * p >= d * (k - 1) + 1:
            cases.append((n, k, s, p, d))
    return cases


def _no_dilation(n, k, s, p, d):
    return (n + 2 * p - (k - 1) - 1) // s + 1


def _ceil(n, k, s, p, d):
    return math.ceil((n + 2 * p - d * (k - 1) - 1) / s) + 1


def _one_side(n, k, s, p, d):
    return (n + p - d * (k - 1) - 1) // s + 1


def _true_division(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) / s + 1


def _no_plus_one(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s


def _size_strategy():
    from hypothesis import strategies as st

    return st.tuples(
        st.integers(1, 40),
        st.integers(1, 7),
        st.integers(1, 4),
        st.integers(0, 3),
        st.integers(1, 3),
    ).filter(lambda t: t[0] + 2 * t[3] >= t[4] * (t[1] - 1) + 1)


OUTPUT_SIZE = Question(
    id="inputs.output_size",
    notebook=NB,
    name="conv_output_size",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15, 7, 3, 2, 2),),
    prompt=(
        "Write conv_output_size(size, kernel_size, stride, padding, dilation): the output length "
        "of conv2d along one axis, as an int."
    ),
    todo=(
        "Write conv_output_size: count the positions of the (dilated) kernel in the padded "
        "input, stepping by stride."
    ),
    reference=_out_size,
    cases=_size_cases,
    strategy=_size_strategy,
    misconceptions=(
        Misconception(
            "no_dilation",
            "dilation spreads the kernel: it spans dilation * (kernel_size - 1) + 1 pixels, not "
            "kernel_size.",
            _no_dilation,
        ),
        Misconception(
            "ceil",
            "the last window must fit entirely: PyTorch rounds DOWN (floor), a partial window "
            "is dropped.",
            _ceil,
        ),
        Misconception(
            "one_side_padding",
            "padding is added on both sides: the padded length is size + 2 * padding.",
            _one_side,
        ),
        Misconception(
            "true_division",
            "use floor division (//): an output size is an int, and a partial step is dropped.",
            _true_division,
        ),
        Misconception(
            "no_plus_one",
            "count the first window too: positions 0, stride, 2 * stride ... give "
            "(span // stride) + 1 windows.",
            _no_plus_one,
        ),
    ),
    hints=(
        "The formula in PyTorch's nn.Conv2d docs: floor((H + 2p - d(k - 1) - 1) / s) + 1.",
        "Check with conv_output_size(8, 3, 1, 0, 1) == 6 (the lecture's 8x8 image, 3x3 kernel).",
    ),
)


def _conv2d_shape(x_shape, w_shape, stride, padding):
    N, _, H, W = x_shape
    O, _, kH, kW = w_shape
    return (N, O, (H + 2 * padding - kH) // stride + 1, (W + 2 * padding - kW) // stride + 1)


def _fits_conv(N, C, H, W, O, kH, kW, s, p):
    return H + 2 * p >= kH and W + 2 * p >= kW


def _conv_shape_args(N, C, H, W, O, kH, kW, s, p):
    return ((N, C, H, W), (O, C, kH, kW), s, p)


def _conv_shape_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((2, 3, 32, 32), (8, 3, 5, 5), 2, 1), ((1, 1, 8, 8), (1, 1, 3, 3), 1, 0)]
    bounds = [(1, 4), (1, 4), (1, 40), (1, 40), (1, 9), (1, 7), (1, 7), (1, 4), (0, 3)]
    cases += [_conv_shape_args(*t) for t in draw_ints(rng, bounds, 10, _fits_conv)]
    return cases


def _conv_shape_strategy():
    bounds = [(1, 2), (1, 2), (1, 12), (1, 12), (1, 4), (1, 4), (1, 4), (1, 3), (0, 2)]
    return int_tuples(*bounds, where=_fits_conv).map(lambda t: _conv_shape_args(*t))


def _spatial(fn):
    def wrong(x_shape, w_shape, stride, padding):
        N, O = x_shape[0], w_shape[0]
        H = fn(x_shape[2], w_shape[2], stride, padding)
        W = fn(x_shape[3], w_shape[3], stride, padding)
        return (N, O, H, W)

    return wrong


SHAPE_A = Question(
    id="inputs.shape_a",
    notebook=NB,
    name="conv2d_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((2, 3, 10**9, 10**9), (8, 3, 5, 5), 2, 1),),
    prompt=(
        "Write conv2d_shape(x_shape, w_shape, stride, padding): the shape of "
        "F.conv2d(x, w, stride=stride, padding=padding) for x of shape x_shape (N, C, H, W) and "
        "w of shape w_shape (O, C, kH, kW), as a tuple of four ints. Predict it: the grader "
        "calls it on shapes of its own."
    ),
    todo="Write conv2d_shape: N stays; where do the channels and the two sizes come from?",
    reference=_conv2d_shape,
    cases=_conv_shape_cases,
    strategy=_conv_shape_strategy,
    misconceptions=(
        Misconception(
            "ceil",
            "the last window must fit entirely: PyTorch rounds (H + 2p - k) / s DOWN before "
            "adding 1.",
            _spatial(lambda n, k, s, p: math.ceil((n + 2 * p - k) / s) + 1),
            detail="For the lecture-style (2, 3, 32, 32) input, 5x5 kernel, stride 2, padding 1: "
            "(32 + 2 - 5) / 2 = 14.5, floor 14, plus 1 = 15.",
        ),
        Misconception(
            "channels_from_input",
            "the output has one channel per filter: weight.shape[0] output channels, not the "
            "input's C.",
            lambda x, w, s, p: (x[0], x[1]) + _conv2d_shape(x, w, s, p)[2:],
        ),
        Misconception(
            "no_plus_one",
            "count the first window too: floor((H + 2p - k) / s) + 1 windows.",
            _spatial(lambda n, k, s, p: (n + 2 * p - k) // s),
        ),
        Misconception(
            "stride_ignored",
            "stride moves the window several pixels at a time: divide the span by it.",
            _spatial(lambda n, k, s, p: n + 2 * p - k + 1),
        ),
        Misconception(
            "one_side_padding",
            "padding is added on both sides: the padded size is H + 2 * padding.",
            _spatial(lambda n, k, s, p: (n + p - k) // s + 1),
        ),
    ),
    hints=(
        "N stays; the channel axis becomes the number of filters, w_shape[0].",
        "Each spatial size: floor((H + 2p - k) / s) + 1 (the formula of lesson 07).",
    ),
)

SHAPE_B = Question(
    id="inputs.shape_b",
    notebook=NB,
    name="shape_b",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "x has shape (1, 4, 10, 12) and w has shape (6, 2, 3, 3). What is the shape of "
        "conv2d(x, w, groups=2, stride=(1, 3), padding=(1, 2), dilation=2)?"
    ),
    todo="Set shape_b to the output shape as a tuple of four ints.",
    reference=lambda: (1, 6, 8, 4),
    misconceptions=(
        Misconception(
            "no_dilation",
            "dilation=2 makes the 3x3 kernel span 5 pixels along each axis.",
            (1, 6, 10, 5),
        ),
        Misconception(
            "pairs_swapped",
            "in a pair, the first number is for H (rows) and the second for W (columns).",
            (1, 6, 10, 4),
            variants=((1, 6, 3, 12),),
        ),
        Misconception(
            "groups_divide_out",
            "groups does not change the number of output channels: there is one per filter, "
            "weight.shape[0].",
            (1, 3, 8, 4),
            detail="Here w has shape (6, 2, 3, 3): 6 output channels.",
        ),
    ),
    hints=(
        "A pair (a, b) means a for H and b for W: apply the output-size formula to each axis "
        "with its own padding and stride; dilation widens the kernel on both.",
        "H: floor((10 + 2*1 - 2*(3 - 1) - 1) / 1) + 1. W: the same with padding 2 and stride 3.",
    ),
)

QUESTIONS = [TO_NCHW, LECTURE_UNSQUEEZE, REPACK, KERNEL_SPEC, OUTPUT_SIZE, SHAPE_A, SHAPE_B]
