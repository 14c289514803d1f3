"""Notebook 12: after lesson 21 - sub-pixel convolution (pixel shuffle's shape and source index,
pixel shuffle from view/permute/reshape), kernel design (the rank of a kernel family) and the
backward of a convolution (the output_padding of the input gradient, the input gradient with
numpy only)."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE, Allowed
from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples, small_ints
from ._rules import NUMPY_ONLY

NB = "12_subpixel_kernels_backward"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- shuffle shape
def _shuffle_shape(shape, r):
    *batch, c, h, w = shape
    return tuple(batch) + (c // (r * r), h * r, w * r)


def _shape_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((1, 8, 2, 3), 2), ((2, 27, 5, 5), 3), ((9, 4, 4), 3), ((4, 2, 1, 16, 7, 7), 4)]
    for _ in range(6):
        r = int(rng.integers(1, 5))
        batch = tuple(int(v) for v in rng.integers(1, 9, size=int(rng.integers(0, 3))))
        c = r * r * int(rng.integers(1, 9))
        cases.append((batch + (c, int(rng.integers(1, 65)), int(rng.integers(1, 65))), r))
    return cases


def _shape_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        r = draw(st.integers(1, 3))
        batch = tuple(draw(st.lists(st.integers(1, 3), max_size=2)))
        c = r * r * draw(st.integers(1, 3))
        return (batch + (c, draw(st.integers(1, 4)), draw(st.integers(1, 4))), r)

    return args()


SHUFFLE_SHAPE = Question(
    id="shuffle.output_shape",
    notebook=NB,
    name="pixel_shuffle_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((2, 4 * 10**9, 10**9, 10**9), 2), ((10**6, 9, 10**8, 3), 3)),
    prompt=(
        "Write pixel_shuffle_shape(shape, r): the shape of F.pixel_shuffle(x, r) for a tensor x "
        "of shape `shape`, a tuple (*batch, C * r * r, H, W) with any number of batch "
        "dimensions (none, one or more), as a tuple of ints."
    ),
    todo=(
        "Write pixel_shuffle_shape: where do the r * r channels of a group go, and what happens "
        "to the batch dimensions?"
    ),
    reference=_shuffle_shape,
    cases=_shape_cases,
    strategy=_shape_strategy,
    misconceptions=(
        Misconception(
            "channels_by_r",
            "a group of r * r channels fills one r x r block: the channel count is divided by "
            "r * r, not by r.",
            lambda shape, r: tuple(shape[:-3]) + (shape[-3] // r, shape[-2] * r, shape[-1] * r),
        ),
        Misconception(
            "channels_kept",
            "pixel_shuffle moves channels into pixels: there are r * r times fewer channels "
            "afterwards, not as many as before.",
            lambda shape, r: tuple(shape[:-3]) + (shape[-3], shape[-2] * r, shape[-1] * r),
        ),
        Misconception(
            "sides_by_r_squared",
            "each side grows by r (an r x r block per input pixel), not by r * r: the AREA "
            "grows by r * r.",
            lambda shape, r: (
                tuple(shape[:-3]) + (shape[-3] // (r * r), shape[-2] * r * r, shape[-1] * r * r)
            ),
        ),
        Misconception(
            "batch_dropped",
            "the batch dimensions (all but the last three) stay as they are.",
            lambda shape, r: _shuffle_shape(shape, r)[-3:],
        ),
    ),
    hints=(
        "Lesson 21: (N, C * r * r, H, W) -> (N, C, H * r, W * r).",
        "Only the last three dimensions change; keep shape[:-3] in front.",
    ),
)


# ---------------------------------------------------------------------------- source index
def _source(c, y, x, r):
    return (c * r * r + (y % r) * r + (x % r), y // r, x // r)


def _source_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(0, 0, 1, 2), (1, 3, 2, 2), (0, 5, 4, 3)]
    return cases + draw_ints(rng, [(0, 7), (0, 60), (0, 60), (1, 5)], 7)


SHUFFLE_SOURCE = Question(
    id="shuffle.source_index",
    notebook=NB,
    name="shuffle_source",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((3, 10**12 + 7, 5 * 10**11 + 2, 4), (10**9, 17, 10**10 + 1, 3)),
    prompt=(
        "y = F.pixel_shuffle(x, r) for x of shape (N, C * r * r, H, W). Write "
        "shuffle_source(c, i, j, r): output pixel y[n, c, i, j] is x[n, channel, h, w]; return "
        "(channel, h, w), three ints."
    ),
    todo=(
        "Write shuffle_source: which block does output pixel (i, j) lie in, where inside the "
        "block, and which channel of group c fills that position?"
    ),
    reference=_source,
    cases=_source_cases,
    strategy=lambda: int_tuples((0, 3), (0, 8), (0, 8), (1, 3)),
    misconceptions=(
        Misconception(
            "offsets_swapped",
            "inside a block the channels go row by row: channel c * r * r + (row offset) * r + "
            "(column offset); the row offset i % r is the one multiplied by r.",
            lambda c, i, j, r: (c * r * r + (j % r) * r + (i % r), i // r, j // r),
        ),
        Misconception(
            "div_mod_swapped",
            "the low-resolution pixel is the block, i // r; the offset inside the block is i % r.",
            lambda c, i, j, r: (c * r * r + (i // r) * r + (j // r), i % r, j % r),
        ),
        Misconception(
            "group_not_scaled",
            "output channel c is made of the r * r input channels c * r * r to "
            "c * r * r + r * r - 1: the group starts at c * r * r, not at c.",
            lambda c, i, j, r: (c + (i % r) * r + (j % r), i // r, j // r),
        ),
    ),
    hints=(
        "Lesson 21's rule: output (c, h * r + i, w * r + j) is input channel c * r * r + i * r + "
        "j at (h, w). Write the output row as h * r + i.",
        "h = row // r and i = row % r; the same for the column.",
    ),
)


# ---------------------------------------------------------------------------- shuffle by views
VIEW_PERMUTE = Allowed(
    says="the tensor methods view, permute, reshape (and transpose, contiguous), shape, size() "
    "and dim() to read sizes, and plain Python",
    names=frozenset("view permute reshape transpose contiguous shape size dim ndim".split()),
)


def _shuffle_ref(x, r):
    tl = _tl()
    return tl.from_numpy(_shuffle_np(x.numpy(), r))


def _shuffle_np(a, r):
    n, crr, h, w = a.shape
    c = crr // (r * r)
    return np.ascontiguousarray(
        a.reshape(n, c, r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c, h * r, w * r)
    )


def _view_cases(rng: np.random.Generator) -> list[tuple]:
    tl = _tl()
    cases = [(tl.arange(48.0).view(1, 8, 2, 3), 2), (tl.arange(36.0).view(1, 9, 2, 2), 3)]
    for _ in range(6):
        r = int(rng.integers(1, 4))
        shape = (int(rng.integers(1, 3)), r * r * int(rng.integers(1, 3)))
        shape += (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        cases.append((tl.from_numpy(small_ints(rng, shape)), r))
    return cases


def _view_strategy():
    from hypothesis import strategies as st

    tl = _tl()

    @st.composite
    def args(draw):
        r = draw(st.integers(1, 2))
        shape = (
            1,
            r * r * draw(st.integers(1, 2)),
            draw(st.integers(1, 2)),
            draw(st.integers(1, 3)),
        )
        n = int(np.prod(shape))
        vals = draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
        return (tl.tensor(np.array(vals, dtype=np.float64).reshape(shape)), r)

    return args()


def _torch_shuffle(x, r):
    return _tl().nn.functional.pixel_shuffle(x, r)


def _permuted(order):
    def wrong(x, r):
        n, crr, h, w = x.shape
        c = crr // (r * r)
        return x.view(n, c, r, r, h, w).permute(*order).reshape(n, c, h * r, w * r)

    return wrong


def _channel_minor(x, r):
    n, crr, h, w = x.shape
    c = crr // (r * r)
    return x.view(n, r, r, c, h, w).permute(0, 3, 4, 1, 5, 2).reshape(n, c, h * r, w * r)


SHUFFLE_VIEWS = Question(
    id="shuffle.by_views",
    notebook=NB,
    name="pixel_shuffle_views",
    kind="function",
    assessment="implement",
    allowed=VIEW_PERMUTE,
    prompt=(
        "Write pixel_shuffle_views(x, r) for a 4-D tensor x of shape (N, C * r * r, H, W): the "
        "same result as F.pixel_shuffle(x, r), using only view, permute and reshape (not "
        "pixel_shuffle, its layer PixelShuffle or its inverse, not numpy)."
    ),
    todo=(
        "Write pixel_shuffle_views with view, permute and reshape only: split the channels, move "
        "the two r axes next to H and W, merge."
    ),
    reference=_shuffle_ref,
    cases=_view_cases,
    strategy=_view_strategy,
    expect=Expect(arrays=("tensor",)),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to build pixel_shuffle from view, permute and reshape: calling it "
            "(or its layer, or its inverse) skips the point.",
            _torch_shuffle,
        ),
        Misconception(
            "offsets_swapped",
            "after view(N, C, r, r, H, W) the first r axis is the row offset i: it goes next to "
            "H, the second (j) next to W: permute(0, 1, 4, 2, 5, 3).",
            _permuted((0, 1, 4, 3, 5, 2)),
        ),
        Misconception(
            "no_interleave",
            "the two r axes must sit next to H and W (N, C, H, r, W, r) before the merge; "
            "(N, C, r, H, r, W) stacks whole copies of the image instead of interleaving them.",
            _permuted((0, 1, 2, 4, 3, 5)),
        ),
        Misconception(
            "channel_minor",
            "output channel c is made of the consecutive input channels c * r * r ... "
            "c * r * r + r * r - 1: split the channel axis as (C, r, r), not (r, r, C).",
            _channel_minor,
        ),
    ),
    hints=(
        "Lesson 21, section 1: view(N, C, r, r, H, W), permute to (N, C, H, r, W, r), reshape "
        "to (N, C, H * r, W * r).",
        "Why reshape and not view at the end: after the permute the strides cannot be merged.",
    ),
)


# ---------------------------------------------------------------------------- kernel ranks
FAMILIES = ("box", "checkerboard", "diagonal", "cross", "border")


def _rank(family, k):
    if family in ("box", "checkerboard"):
        return 1
    if family == "diagonal":
        return k
    if family == "cross":
        return 1 if k == 1 else 2
    return 1 if k <= 2 else 2  # border


def _family_ok(family, k):
    return family != "cross" or k % 2 == 1


def _rank_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [("box", 3), ("diagonal", 5), ("cross", 3), ("border", 2), ("checkerboard", 4)]
    while len(cases) < 12:
        family, k = FAMILIES[int(rng.integers(0, 5))], int(rng.integers(1, 12))
        if _family_ok(family, k):
            cases.append((family, k))
    return cases


def _rank_strategy():
    from hypothesis import strategies as st

    return st.tuples(st.sampled_from(FAMILIES), st.integers(1, 5)).filter(lambda t: _family_ok(*t))


def _full_rank(family, k):
    return k


KERNEL_RANK = Question(
    id="kernels.rank",
    notebook=NB,
    name="kernel_rank",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(("diagonal", 10**9), ("border", 10**9), ("cross", 10**9 + 1)),
    prompt=(
        "Write kernel_rank(family, k): the rank (torch.linalg.matrix_rank) of a k x k kernel of "
        "one of these families, as an int. 'box': all ones. 'checkerboard': K[a, b] = "
        "(-1) ** (a + b). 'diagonal': ones on the main diagonal, zeros elsewhere (lesson 17's "
        "'\\' bar detector). 'cross': ones on the middle row and the middle column, zeros "
        "elsewhere (k is odd). 'border': ones on the outer ring (first and last row and "
        "column), zeros inside. The rank says how many separable (outer-product) kernels the "
        "kernel is the sum of."
    ),
    todo=(
        "Write kernel_rank: for each family, write the kernel as a sum of as few outer products "
        "u v^T as you can (lesson 21, section 3)."
    ),
    reference=_rank,
    cases=_rank_cases,
    strategy=_rank_strategy,
    misconceptions=(
        Misconception(
            "full_rank",
            "a k x k kernel can have any rank from 1 to k: the box, the checkerboard are outer "
            "products (rank 1), the cross and the border sums of two.",
            _full_rank,
        ),
        Misconception(
            "symmetric_is_separable",
            "a symmetric kernel need not be separable: the diagonal (the identity matrix) has "
            "rank k, the cross and the border rank 2.",
            lambda family, k: 1,
        ),
        Misconception(
            "checkerboard_two",
            "the checkerboard's rows are +v and -v: one row times a column of signs, "
            "outer((-1) ** a, (-1) ** b): rank 1.",
            lambda family, k: _rank(family, k) + (family == "checkerboard" and k > 1),
        ),
        Misconception(
            "small_k",
            "the small sizes: a 1 x 1 kernel (any family) has rank 1, and a 2 x 2 border is all "
            "ones (rank 1).",
            lambda family, k: {"cross": 2, "border": 2}.get(family, _rank(family, k)),
        ),
    ),
    hints=(
        "Box: outer(ones, ones). Checkerboard: outer(s, s) with s = (1, -1, 1, ...). The "
        "diagonal is the identity matrix.",
        "Cross: the middle row is outer(e, ones) and the middle column outer(ones, e), with e "
        "the middle unit vector (their overlap at the centre is 1, not 2: take ones with the "
        "middle entry removed for one of them). Border: rows 0 and k - 1 are ones, the others "
        "(1, 0, ..., 0, 1): two different rows.",
    ),
)


# ---------------------------------------------------------------------------- output_padding
def _output_padding(size, kernel_size, stride, padding, dilation):
    return (size + 2 * padding - dilation * (kernel_size - 1) - 1) % stride


def _op_ok(size, k, s, p, d):
    return size + 2 * p - d * (k - 1) - 1 >= 0 and p <= k // 2


OUTPUT_PADDING = Question(
    id="backward.output_padding",
    notebook=NB,
    name="grad_output_padding",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**9 + 7, 3, 4, 1, 1), (10**12, 5, 3, 2, 2)),
    prompt=(
        "y = F.conv2d(x, w, stride=stride, padding=padding, dilation=dilation) for an input of "
        "height `size` and a kernel of height `kernel_size`. Lesson 21 computes the input "
        "gradient as F.conv_transpose2d(g, w, stride=stride, padding=padding, "
        "output_padding=op, dilation=dilation). Write grad_output_padding(size, kernel_size, "
        "stride, padding, dilation): the op (an int) that makes that gradient exactly `size` "
        "rows high."
    ),
    todo=(
        "Write grad_output_padding: how many input rows are left over after the last window, "
        "which the transposed convolution's size formula does not see?"
    ),
    reference=_output_padding,
    cases=lambda rng: (
        [(7, 3, 2, 1, 1), (8, 3, 2, 1, 1), (10, 3, 3, 1, 1), (10, 3, 3, 0, 2)]
        + draw_ints(rng, [(1, 40), (1, 5), (1, 4), (0, 2), (1, 3)], 8, _op_ok)
    ),
    strategy=lambda: int_tuples((1, 9), (1, 3), (1, 3), (0, 1), (1, 2), where=_op_ok),
    misconceptions=(
        Misconception(
            "always_zero",
            "with a stride, several input sizes give the same output size: the transposed "
            "convolution returns the smallest of them, and output_padding adds the rows the "
            "last window left out.",
            lambda size, k, s, p, d: 0,
        ),
        Misconception(
            "dilation_ignored",
            "a dilated kernel spans dilation * (kernel_size - 1) + 1 rows: use that span in "
            "the size formula.",
            lambda size, k, s, p, d: _output_padding(size, k, s, p, 1),
        ),
        Misconception(
            "padding_ignored",
            "the windows slide over the PADDED input, size + 2 * padding rows.",
            lambda size, k, s, p, d: _output_padding(size, k, s, 0, d),
        ),
        Misconception(
            "stride_minus_one",
            "output_padding is not always stride - 1: it is the number of rows left over, "
            "(size + 2p - span) mod stride, which can be anything from 0 to stride - 1.",
            lambda size, k, s, p, d: s - 1,
        ),
    ),
    hints=(
        "The forward size is floor((size + 2p - d(k - 1) - 1) / s) + 1; the floor drops the "
        "remainder of that division.",
        "Lesson 15: ConvTranspose2d gives (out - 1) * s - 2p + d(k - 1) + 1 + output_padding.",
    ),
)


# ---------------------------------------------------------------------------- input gradient
def _input_grad(g, w, stride, padding, in_size):
    g = np.asarray(g, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n, _, ho, wo = g.shape
    _, c, kh, kw = w.shape
    h, wd = in_size
    s, p = stride, padding
    gx = np.zeros((n, c, h + 2 * p, wd + 2 * p))
    for a in range(kh):
        for b in range(kw):
            gx[:, :, a : a + s * (ho - 1) + 1 : s, b : b + s * (wo - 1) + 1 : s] += np.einsum(
                "nohw,oc->nchw", g, w[:, :, a, b]
            )
    return gx[:, :, p : p + h, p : p + wd]


def _grad_case(rng, n, c, o, h, wd, k, s, p):
    ho, wo = (h + 2 * p - k) // s + 1, (wd + 2 * p - k) // s + 1
    return (small_ints(rng, (n, o, ho, wo)), small_ints(rng, (o, c, k, k)), s, p, (h, wd))


def _grad_ok(n, c, o, h, wd, k, s, p):
    return k <= h + 2 * p and k <= wd + 2 * p and p <= k // 2


def _grad_cases(rng: np.random.Generator) -> list[tuple]:
    fixed = [(1, 1, 1, 5, 5, 3, 1, 0), (2, 3, 2, 7, 7, 3, 2, 1), (1, 2, 3, 8, 6, 3, 2, 1)]
    drawn = draw_ints(
        rng, [(1, 2), (1, 3), (1, 3), (2, 9), (2, 9), (1, 4), (1, 3), (0, 2)], 7, _grad_ok
    )
    return [_grad_case(rng, *t) for t in fixed + drawn]


def _grad_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        t = draw(
            int_tuples(
                (1, 1), (1, 2), (1, 2), (1, 4), (1, 4), (1, 3), (1, 2), (0, 1), where=_grad_ok
            )
        )
        return _grad_case(np.random.default_rng(draw(st.integers(0, 2**16))), *t)

    return args()


def _torch_grad(g, w, stride, padding, in_size):
    tl = _tl()
    ops = tuple((size + 2 * padding - w.shape[2 + i]) % stride for i, size in enumerate(in_size))
    out = tl.nn.functional.conv_transpose2d(
        tl.tensor(np.asarray(g, np.float64)),
        tl.tensor(np.asarray(w, np.float64)),
        stride=stride,
        padding=padding,
        output_padding=ops,
    )
    return out.numpy()


INPUT_GRAD = Question(
    id="backward.input_grad",
    notebook=NB,
    name="conv_input_grad",
    kind="function",
    assessment="implement",
    allowed=NUMPY_ONLY,
    prompt=(
        "y = F.conv2d(x, w, stride=stride, padding=padding) for x of shape (N, C_in, H, W) and w "
        "of shape (C_out, C_in, k, k); g = dL/dy has y's shape. Write conv_input_grad(g, w, "
        "stride, padding, in_size) with numpy only: dL/dx (what x.grad holds after "
        "y.backward(g)), a float array of shape (N, C_in, H, W), where in_size = (H, W). g and w "
        "are numpy arrays."
    ),
    todo=(
        "Write conv_input_grad with numpy: every output pixel sends g back, weighted by each "
        "tap, to the input pixel that tap read; drop the padding at the end."
    ),
    reference=_input_grad,
    cases=_grad_cases,
    strategy=_grad_strategy,
    expect=Expect(arrays=("ndarray", "tensor"), rtol=1e-9, atol=1e-9),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to send the gradient back yourself: a transposed convolution (or "
            "autograd) skips the point.",
            _torch_grad,
        ),
        Misconception(
            "flipped",
            "the forward correlates: tap (a, b) read x_padded[i * s + a, j * s + b], so that is "
            "where g[i, j] * w[a, b] goes back. The flip belongs to the 'full correlation' "
            "form, not to this scatter.",
            lambda g, w, s, p, size: _input_grad(g, np.asarray(w)[:, :, ::-1, ::-1], s, p, size),
        ),
        Misconception(
            "stride_ignored",
            "output pixel (i, j) read the window starting at (i * stride, j * stride): its "
            "gradient goes back there, not to (i, j).",
            lambda g, w, s, p, size: _input_grad(g, w, 1, p, size),
        ),
        Misconception(
            "padding_kept_left",
            "the padded input starts `padding` pixels before x: crop the padding off on BOTH "
            "sides (rows p to p + H), not only at the end.",
            lambda g, w, s, p, size: _uncropped(g, w, s, p, size),
        ),
    ),
    hints=(
        "Loop over the kernel taps (a, b): g (N, C_out, Ho, Wo) times w[:, :, a, b] (C_out, "
        "C_in), summed over C_out (np.einsum('nohw,oc->nchw', ...)), is added to the padded "
        "gradient at rows a, a + s, ... and columns b, b + s, ...",
        "Start from zeros of shape (N, C_in, H + 2p, W + 2p) and return [:, :, p:p + H, p:p + W].",
    ),
)


def _uncropped(g, w, s, p, size):
    h, wd = size
    full = _input_grad(g, w, s, 0, (h + 2 * p, wd + 2 * p))
    return full[:, :, :h, :wd]


QUESTIONS = [SHUFFLE_SHAPE, SHUFFLE_SOURCE, SHUFFLE_VIEWS, KERNEL_RANK, OUTPUT_PADDING, INPUT_GRAD]
