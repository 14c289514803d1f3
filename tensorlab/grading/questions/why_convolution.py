"""Notebook 10: after lessons 17 and 18 - why convolution (a conv against a dense layer, shifts
and equivariance, three 3x3 against one large kernel, activation memory, global pooling, pooling
per channel and overlapping pooling), then going back up (stamp counts of a transposed
convolution, the phase-sum condition for checkerboards, the bilinear kernel)."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._refs import draw_ints, int_tuples, small_ints

NB = "10_why_convolution"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- conv vs dense
def _dense_vs_conv(c_in, c_out, h, w, k):
    conv = c_out * c_in * k * k + c_out
    dense = (c_in * h * w) * (c_out * h * w) + c_out * h * w
    return (conv, dense)


def _dvc_ok(c_in, c_out, h, w, k):
    return k % 2 == 1


DENSE_VS_CONV = Question(
    id="why.dense_vs_conv",
    notebook=NB,
    name="dense_vs_conv_params",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((3, 3, 10**4, 10**4, 3),),
    prompt=(
        "Write dense_vs_conv_params(c_in, c_out, h, w, k): nn.Conv2d(c_in, c_out, k, "
        "padding=k // 2) maps a (c_in, h, w) image to a (c_out, h, w) map (k is odd). An "
        "nn.Linear layer can map the same image, flattened, to the same map, flattened. Return "
        "(parameters of the conv, parameters of the Linear layer), both with their biases, as "
        "two ints."
    ),
    todo=(
        "Write dense_vs_conv_params: one weight per (input value, output value) pair for the "
        "Linear layer; for the conv, one small kernel per (input channel, output channel) pair."
    ),
    reference=_dense_vs_conv,
    cases=lambda rng: (
        [(1, 6, 12, 12, 3), (3, 16, 32, 32, 5)]
        + draw_ints(rng, [(1, 8), (1, 16), (1, 32), (1, 32), (1, 7)], 8, _dvc_ok)
    ),
    strategy=lambda: int_tuples((1, 3), (1, 3), (1, 5), (1, 5), (1, 5), where=_dvc_ok),
    misconceptions=(
        Misconception(
            "no_weight_sharing",
            "that counts a separate kernel for every output pixel (a locally connected layer). "
            "A convolution SHARES its kernels: the same c_in * k * k weights (and one bias) per "
            "output channel, at every position.",
            lambda ci, co, h, w, k: (
                (co * ci * k * k + co) * h * w,
                _dense_vs_conv(ci, co, h, w, k)[1],
            ),
        ),
        Misconception(
            "dense_bias_per_channel",
            "a Linear layer has one bias per OUTPUT VALUE: c_out * h * w biases, not c_out.",
            lambda ci, co, h, w, k: (
                _dense_vs_conv(ci, co, h, w, k)[0],
                (ci * h * w) * (co * h * w) + co,
            ),
        ),
        Misconception(
            "one_input_channel",
            "every conv kernel spans all c_in input channels: the weight is (c_out, c_in, k, k).",
            lambda ci, co, h, w, k: (co * k * k + co, _dense_vs_conv(ci, co, h, w, k)[1]),
        ),
    ),
    hints=(
        "Linear(in_features, out_features) has in_features * out_features + out_features "
        "parameters. What are in_features and out_features here?",
        "Print sum(p.numel() for p in layer.parameters()) for small layers to check.",
    ),
)


# ---------------------------------------------------------------------------- shift the feature map
def _shifted(y, dy, dx, stride):
    return np.roll(np.asarray(y, np.float64), (dy // stride, dx // stride), axis=(-2, -1))


def _shift_cases(rng: np.random.Generator) -> list[tuple]:
    y = np.arange(16, dtype=np.float64).reshape(1, 1, 4, 4)
    cases = [(y, 1, 2, 1), (y, 2, 0, 2), (small_ints(rng, (1, 2, 3, 5)), 6, -3, 3)]
    for _ in range(7):
        s = int(rng.integers(1, 4))
        ho, wo = (int(v) for v in rng.integers(2, 7, size=2))
        dy, dx = (s * int(v) for v in rng.integers(-3, 4, size=2))
        cases.append((small_ints(rng, (1, int(rng.integers(1, 4)), ho, wo)), dy, dx, s))
    return cases


def _shift_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        s = draw(st.integers(1, 2))
        ho, wo = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        vals = draw(st.lists(st.integers(-3, 3), min_size=ho * wo, max_size=ho * wo))
        y = np.array(vals, dtype=np.float64).reshape(1, 1, ho, wo)
        return (y, s * draw(st.integers(-2, 2)), s * draw(st.integers(-2, 2)), s)

    return args()


SHIFTED = Question(
    id="why.shifted_feature_map",
    notebook=NB,
    name="shifted_feature_map",
    kind="function",
    assessment="free",
    prompt=(
        "y = F.conv2d(F.pad(x, (p, p, p, p), mode='circular'), w, stride=stride) is the feature "
        "map of an image x whose height and width are multiples of stride, for an odd k x k "
        "kernel w and p = (k - 1) // 2 (so y has H / stride rows). The image is then "
        "shifted: x2 = torch.roll(x, shifts=(dy, dx), dims=(2, 3)), with dy and dx multiples of "
        "stride. Write shifted_feature_map(y, dy, dx, stride) returning the feature map of x2 "
        "(the same conv applied to x2), computed from y alone, as an array or tensor."
    ),
    todo=(
        "Write shifted_feature_map: convolution commutes with shifts. By how much does the "
        "feature map move when the image moves by (dy, dx), and in which direction?"
    ),
    reference=_shifted,
    cases=_shift_cases,
    strategy=_shift_strategy,
    misconceptions=(
        Misconception(
            "invariant",
            "a convolution is equivariant, not invariant: the feature map does not stay put, it "
            "moves with the image.",
            lambda y, dy, dx, s: np.array(y, np.float64),
        ),
        Misconception(
            "opposite_direction",
            "the feature map moves the same way as the image: torch.roll(x, dy) moves the "
            "content DOWN by dy rows, and so does the feature map.",
            lambda y, dy, dx, s: _shifted(y, -dy, -dx, s),
        ),
        Misconception(
            "stride_ignored",
            "with a stride, neighbouring output pixels are `stride` input pixels apart: a shift "
            "of dy input pixels is a shift of dy // stride output pixels.",
            lambda y, dy, dx, s: _shifted(y, dy, dx, 1),
        ),
        Misconception(
            "axes_swapped",
            "dims=(2, 3): dy shifts the rows (axis 2), dx the columns (axis 3).",
            lambda y, dy, dx, s: _shifted(y, dx, dy, s),
        ),
    ),
    hints=(
        "Each output pixel applies the same weights to its own window. If every window's "
        "content moves, where does each response go?",
        "Try it: build x and w, compute both feature maps with circular padding, and compare "
        "with torch.roll of y.",
    ),
)


# ---------------------------------------------------------------------------- 3x3 stack vs one
def _stack_vs_single(c, n):
    field = 2 * n + 1
    return (field, 9 * n * c * c, field * field * c * c)


STACK_VS_SINGLE = Question(
    id="why.stack_vs_single",
    notebook=NB,
    name="stack_vs_single",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**8, 5),),
    prompt=(
        "Write stack_vs_single(c, n): n stacked nn.Conv2d(c, c, 3, bias=False) layers (stride "
        "1, with ReLUs between them) against one nn.Conv2d(c, c, K, bias=False) whose K x K "
        "field is the same as the stack's. Return (K, weights of the stack, weights of the "
        "single conv), three ints."
    ),
    todo=(
        "Write stack_vs_single: how much does each 3x3 layer widen the field, and how many "
        "weights does a (c, c, k, k) kernel hold?"
    ),
    reference=_stack_vs_single,
    cases=lambda rng: [(16, 3), (1, 1), (64, 2)] + draw_ints(rng, [(1, 128), (1, 8)], 7),
    strategy=lambda: int_tuples((1, 4), (1, 4)),
    misconceptions=(
        Misconception(
            "field_adds_kernels",
            "stacking does not add kernel sizes: each stride-1 3x3 layer adds 2 to the field "
            "(1 + 2n), not 3.",
            lambda c, n: (3 * n, 9 * n * c * c, 9 * n * n * c * c),
        ),
        Misconception(
            "field_multiplies",
            "fields do not multiply: each stride-1 layer ADDS kernel_size - 1 to the field.",
            lambda c, n: (3**n, 9 * n * c * c, 9**n * c * c),
        ),
        Misconception(
            "one_input_channel",
            "each of the c output channels has a k x k kernel for EVERY input channel: c * c * "
            "k * k weights per layer, not c * k * k.",
            lambda c, n: (2 * n + 1, 9 * n * c, (2 * n + 1) ** 2 * c),
        ),
    ),
    hints=(
        "Lesson 15's rule with stride 1: r <- r + (k - 1). Start from r = 1.",
        "Three 3x3 layers: a 7x7 field, 27 c^2 weights against 49 c^2.",
    ),
)


# ---------------------------------------------------------------------------- activation memory
def _walk(c, h, w, layers):
    """(C, H, W) after each layer of ('conv', out, k, s, p), ('pool', k, s), ('relu',)."""
    shapes = []
    for layer in layers:
        if layer[0] == "conv":
            _, out, k, s, p = layer
            c, h, w = out, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
        elif layer[0] == "pool":
            _, k, s = layer
            h, w = (h - k) // s + 1, (w - k) // s + 1
        shapes.append((c, h, w))
    return shapes


def _random_stack(rng: np.random.Generator, h: int) -> tuple:
    layers: list[tuple] = []
    for _ in range(int(rng.integers(1, 4))):
        k = int(rng.integers(1, 4))
        p = int(rng.integers(0, k // 2 + 1))
        s = int(rng.integers(1, 3))
        if (h + 2 * p - k) // s + 1 < 2:
            break
        layers += [("conv", int(rng.integers(1, 17)), k, s, p), ("relu",)]
        h = (h + 2 * p - k) // s + 1
        if rng.random() < 0.6 and h >= 2:
            layers.append(("pool", 2, 2))
            h = (h - 2) // 2 + 1
    return tuple(layers) or (("conv", 4, 1, 1, 0),)


LENET_ISH = (
    ("conv", 6, 3, 1, 1),
    ("relu",),
    ("pool", 2, 2),
    ("conv", 12, 3, 1, 0),
    ("relu",),
    ("pool", 2, 2),
)


def _activation_bytes(n, c, h, w, layers):
    return sum(4 * n * cc * hh * ww for cc, hh, ww in _walk(c, h, w, layers))


def _act_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(64, 1, 12, 12, LENET_ISH), (1, 3, 224, 224, (("conv", 64, 3, 1, 1), ("relu",)))]
    for _ in range(8):
        c, h = int(rng.integers(1, 4)), int(rng.integers(6, 33))
        cases.append((int(rng.integers(1, 65)), c, h, h, _random_stack(rng, h)))
    return cases


def _act_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        h = draw(st.integers(4, 10))
        return (draw(st.integers(1, 3)), draw(st.integers(1, 2)), h, h, _random_stack(rng, h))

    return args()


LAYERS_DOC = (
    "layers is a tuple of ('conv', out_channels, kernel_size, stride, padding), ('relu',) and "
    "('pool', kernel_size, stride) entries (square kernels, max pooling without padding)"
)

ACTIVATION_BYTES = Question(
    id="why.activation_bytes",
    notebook=NB,
    name="activation_bytes",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((2, 3, 10**8, 10**8, (("conv", 4, 3, 1, 1), ("relu",), ("pool", 2, 2))),),
    prompt=(
        "Write activation_bytes(n, c, h, w, layers): a batch of n float32 images of shape "
        f"(c, h, w) goes through a stack of layers; {LAYERS_DOC}. Return the memory, in bytes, "
        "of the outputs of all the layers together (the activations; not the input, not the "
        "parameters), as an int. (Autograd keeps, until backward() has used them, the tensors "
        "each operation's backward formula needs: a convolution its input, a ReLU its output, a "
        "max pool its input and its winners' positions. In such a stack those are these "
        "outputs, each the next layer's input, which is why the memory grows with the batch.)"
    ),
    todo=(
        "Write activation_bytes: walk the shape through the layers and add up every layer's "
        "output size, for the whole batch, in bytes."
    ),
    reference=_activation_bytes,
    cases=_act_cases,
    strategy=_act_strategy,
    misconceptions=(
        Misconception(
            "one_image",
            "activations are stored for every image of the batch: multiply by n.",
            lambda n, c, h, w, layers: _activation_bytes(1, c, h, w, layers),
        ),
        Misconception(
            "values_not_bytes",
            "that is the number of values; a float32 value takes 4 bytes.",
            lambda n, c, h, w, layers: _activation_bytes(n, c, h, w, layers) // 4,
        ),
        Misconception(
            "last_layer_only",
            "every layer's output counts (a ReLU's too), not only the last one.",
            lambda n, c, h, w, layers: 4 * n * int(np.prod(_walk(c, h, w, layers)[-1])),
        ),
        Misconception(
            "with_input",
            "the input is not an activation of the stack: count the outputs of the layers only.",
            lambda n, c, h, w, layers: _activation_bytes(n, c, h, w, layers) + 4 * n * c * h * w,
        ),
    ),
    hints=(
        "Write down (C, H, W) after every layer; a ReLU keeps the shape.",
        "Lesson 17's table: values per layer = batch * C * H * W; bytes = 4 * values.",
    ),
)


# ---------------------------------------------------------------------------- global pooling
def _adaptive_in_features(c, h, w, layers, output_size):
    cc = _walk(c, h, w, layers)[-1][0] if layers else c
    return cc * output_size * output_size


def _gap_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(1, 12, 12, LENET_ISH[:4], 1), (1, 16, 16, LENET_ISH[:4], 1)]
    cases.append((3, 32, 32, (("conv", 8, 3, 2, 1), ("relu",)), 2))
    for _ in range(7):
        c, h = int(rng.integers(1, 4)), int(rng.integers(6, 33))
        cases.append((c, h, h, _random_stack(rng, h), int(rng.integers(1, 4))))
    return cases


def _gap_strategy():
    return _act_strategy().flatmap(_with_output_size)


def _with_output_size(t):
    from hypothesis import strategies as st

    return st.integers(1, 3).map(lambda o: (t[1], t[2], t[3], t[4], o))


def _walked(c, h, w, layers, o):
    return int(np.prod(_walk(c, h, w, layers)[-1]))


ADAPTIVE_IN_FEATURES = Question(
    id="why.adaptive_in_features",
    notebook=NB,
    name="adaptive_in_features",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((3, 10**9, 10**9, (("conv", 8, 3, 2, 1), ("pool", 2, 2)), 4),),
    prompt=(
        "Write adaptive_in_features(c, h, w, layers, output_size): images of shape (c, h, w) go "
        f"through a stack of layers ({LAYERS_DOC}), then nn.AdaptiveAvgPool2d(output_size), "
        "nn.Flatten() and an nn.Linear layer. Return the in_features that Linear layer needs, "
        "as an int."
    ),
    todo=(
        "Write adaptive_in_features: what shape does AdaptiveAvgPool2d(output_size) leave, "
        "whatever H and W it receives?"
    ),
    reference=_adaptive_in_features,
    cases=_gap_cases,
    strategy=_gap_strategy,
    misconceptions=(
        Misconception(
            "walked_size",
            "that is C * H * W of the last feature map, what a plain flatten would need. The "
            "adaptive pool replaces H x W by output_size x output_size, whatever the image size.",
            _walked,
        ),
        Misconception(
            "input_channels",
            "the channels reaching the pool are the last conv's out_channels, not the image's c.",
            lambda c, h, w, layers, o: c * o * o,
        ),
        Misconception(
            "output_size_not_squared",
            "output_size=o means an o x o map per channel: C * o * o features.",
            lambda c, h, w, layers, o: _adaptive_in_features(c, h, w, layers, 1) * o,
        ),
    ),
    hints=(
        "nn.AdaptiveAvgPool2d(1) turns (N, C, H, W) into (N, C, 1, 1) for every H and W.",
        "Only the channel count of the last conv matters, and output_size.",
    ),
)


# ---------------------------------------------------------------------------- pooled shape
def _pool_len(n, k, s):
    return (n - k) // s + 1


def _pooled_shape(shape, kernel_size, stride):
    N, C, H, W = shape
    return (N, C, _pool_len(H, kernel_size, stride), _pool_len(W, kernel_size, stride))


def _ps_ok(N, C, H, W, k, s):
    return k <= min(H, W)


def _ps_args(N, C, H, W, k, s):
    return ((N, C, H, W), k, s)


POOLED_SHAPE = Question(
    id="why.pooled_shape",
    notebook=NB,
    name="pooled_shape",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((2, 3, 10**9, 10**9), 3, 2),),
    prompt=(
        "Write pooled_shape(shape, kernel_size, stride): the shape of F.max_pool2d(x, "
        "kernel_size, stride=stride) for x of shape (N, C, H, W) (no padding, no ceil_mode), "
        "as a tuple of four ints. The stride may be smaller than the kernel (overlapping "
        "pooling)."
    ),
    todo=(
        "Write pooled_shape: what does pooling do to the channel axis, and how many windows fit "
        "along H and W?"
    ),
    reference=_pooled_shape,
    cases=lambda rng: (
        [((2, 3, 6, 6), 2, 2), ((1, 96, 55, 55), 3, 2), ((4, 8, 13, 9), 3, 1)]
        + [
            _ps_args(*t)
            for t in draw_ints(rng, [(1, 8), (1, 64), (1, 40), (1, 40), (2, 4), (1, 3)], 7, _ps_ok)
        ]
    ),
    strategy=lambda: int_tuples((1, 2), (1, 3), (1, 6), (1, 6), (1, 3), (1, 2), where=_ps_ok).map(
        lambda t: _ps_args(*t)
    ),
    misconceptions=(
        Misconception(
            "channels_pooled",
            "pooling acts on each channel separately: the channel count stays C. (A maximum "
            "across channels would be x.amax(dim=1), another operation.)",
            lambda shape, k, s: (shape[0], 1) + _pooled_shape(shape, k, s)[2:],
        ),
        Misconception(
            "stride_is_kernel",
            "the windows start every `stride` pixels, not every kernel_size pixels: with a "
            "stride smaller than the kernel they overlap, and there are more of them.",
            lambda shape, k, s: _pooled_shape(shape, k, k),
        ),
        Misconception(
            "rounded_up",
            "without ceil_mode the size rounds DOWN, as for conv2d: floor((H - k) / s) + 1.",
            lambda shape, k, s: tuple(shape[:2]) + tuple(-(-(n - k) // s) + 1 for n in shape[2:]),
        ),
    ),
    hints=(
        "Max pooling has no weights and never mixes channels.",
        "Along H: windows start at 0, s, 2s, ... as long as the window fits.",
    ),
)


# ---------------------------------------------------------------------------- overlapping pool
def _max_pool(values, kernel_size, stride):
    n = len(values)
    return tuple(
        float(max(values[i : i + kernel_size])) for i in range(0, n - kernel_size + 1, stride)
    )


def _mp_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((1, 0, 2, 0, 9, 0, 3, 0, 1), 3, 2), ((5, 1, 1, 1, 1, 1, 7), 3, 1)]
    while len(cases) < 10:
        n, k = int(rng.integers(3, 12)), int(rng.integers(2, 5))
        s = int(rng.integers(1, k))
        if k <= n:
            cases.append((tuple(int(v) for v in rng.integers(-9, 10, size=n)), k, s))
    return cases


def _mp_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        k = draw(st.integers(2, 3))
        s = draw(st.integers(1, k - 1))
        vals = draw(st.lists(st.integers(-3, 3), min_size=k, max_size=6))
        return (tuple(vals), k, s)

    return args()


def _torch_pool(values, k, s):
    tl = _tl()
    x = tl.tensor([[float(v) for v in values]])
    return tuple(tl.nn.functional.max_pool1d(x, k, stride=s)[0].tolist())


OVERLAPPING_POOL = Question(
    id="why.overlapping_max_pool",
    notebook=NB,
    name="overlapping_max_pool",
    kind="function",
    assessment="implement",
    allowed=DERIVE,
    prompt=(
        "Write overlapping_max_pool(values, kernel_size, stride) without PyTorch's pooling "
        "functions: what F.max_pool1d(x, kernel_size, stride=stride) gives for the 1-D signal "
        "`values` (a tuple of numbers), as a tuple of floats. The stride is smaller than the "
        "kernel: the windows overlap."
    ),
    todo=(
        "Write overlapping_max_pool with plain Python (no max_pool1d): one window every stride "
        "values, each kernel_size long."
    ),
    reference=_max_pool,
    cases=_mp_cases,
    strategy=_mp_strategy,
    expect=Expect(rtol=1e-9, atol=1e-9),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to write the windows yourself: calling PyTorch's max pooling skips "
            "the point.",
            _torch_pool,
        ),
        Misconception(
            "tiled",
            "windows start every `stride` values, not every kernel_size values: overlapping "
            "windows share values, and there are more of them.",
            lambda v, k, s: _max_pool(v, k, k),
        ),
        Misconception(
            "partial_window",
            "without ceil_mode a last window that does not fit is dropped (ceil_mode=True "
            "would keep it): "
            "floor((n - k) / s) + 1 windows.",
            lambda v, k, s: tuple(float(max(v[i : i + k])) for i in range(0, len(v) - k + s, s)),
        ),
        Misconception(
            "average",
            "max pooling keeps each window's maximum, not its mean.",
            lambda v, k, s: tuple(
                float(sum(v[i : i + k])) / k for i in range(0, len(v) - k + 1, s)
            ),
        ),
    ),
    hints=(
        "The windows start at 0, stride, 2 * stride, ... while start + kernel_size <= len(values).",
        "With kernel 3 and stride 2 a large value in the middle of the signal wins two windows.",
    ),
)


# ---------------------------------------------------------------------------- stamp counts
def _stamps(n, k, s):
    out = [0] * ((n - 1) * s + k)
    for i in range(n):
        for t in range(k):
            out[i * s + t] += 1
    return tuple(out)


def _stamp_cases(rng: np.random.Generator) -> list[tuple]:
    return [(4, 3, 2), (4, 4, 2), (3, 2, 3)] + draw_ints(rng, [(1, 9), (1, 6), (1, 4)], 7)


def _no_border(n, k, s):
    length = (n - 1) * s + k
    return tuple(len(range(j % s, k, s)) for j in range(length))


def _torch_stamps(n, k, s):
    tl = _tl()
    out = tl.nn.functional.conv_transpose1d(tl.ones(1, 1, n), tl.ones(1, 1, k), stride=s)
    return tuple(int(v) for v in out[0, 0].tolist())


STAMP_COUNTS = Question(
    id="why.stamp_counts",
    notebook=NB,
    name="stamp_counts",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    prompt=(
        "A 1-D transposed convolution with stride s stamps its kernel of size k once per input "
        "value, s positions apart. Write stamp_counts(n, k, s) without PyTorch's transposed "
        "convolutions: for an input of n values, how many stamps cover each output position "
        "(what F.conv_transpose1d(torch.ones(1, 1, n), torch.ones(1, 1, k), stride=s) holds), "
        "as a tuple of ints."
    ),
    todo=(
        "Write stamp_counts with plain Python (no conv_transpose1d): lay the stamps down one by "
        "one and count."
    ),
    reference=_stamps,
    cases=_stamp_cases,
    strategy=lambda: int_tuples((1, 4), (1, 4), (1, 3)),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to count the stamps yourself: calling the transposed convolution "
            "skips the point.",
            _torch_stamps,
        ),
        Misconception(
            "even_overlap",
            "the overlap is even only when s divides k: with k = 3, s = 2 the positions get 2 "
            "and 1 stamps in turn, and the border gets fewer.",
            lambda n, k, s: (-(-k // s),) * ((n - 1) * s + k),
        ),
        Misconception(
            "no_border",
            "at the two ends fewer stamps arrive: the first position is covered by the first "
            "stamp only.",
            _no_border,
        ),
        Misconception(
            "covered_once",
            "stamps overlap when k > s: those positions are covered (and summed) more than once.",
            lambda n, k, s: tuple(min(1, c) for c in _stamps(n, k, s)),
        ),
    ),
    hints=(
        "The output has (n - 1) * s + k positions; stamp i covers positions i * s to "
        "i * s + k - 1.",
        "Lesson 18: a constant input through a constant kernel shows the checkerboard.",
    ),
)


# ---------------------------------------------------------------------------- phase sums
def _phase_sums(w, s):
    return tuple(float(sum(w[a::s])) for a in range(s))


def _phase_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((0.5, 1.0, 0.5), 2), ((1.0, 1.0, 1.0), 2), ((0.3, -0.5, 0.8, 0.1), 2)]
    cases.append(((0.25, 0.75, 0.75, 0.25), 2))
    for _ in range(6):
        s = int(rng.integers(2, 5))
        k = int(rng.integers(s, 3 * s + 1))
        cases.append((tuple(int(v) / 2 for v in rng.integers(-6, 7, size=k)), s))
    return cases


def _phase_strategy():
    from hypothesis import strategies as st

    return st.integers(2, 3).flatmap(
        lambda s: st.tuples(
            st.lists(st.integers(-3, 3).map(float), min_size=s, max_size=2 * s + 1).map(tuple),
            st.just(s),
        )
    )


def _torch_phases(w, s):
    tl = _tl()
    k = len(w)
    n = k + 2
    out = tl.nn.functional.conv_transpose1d(
        tl.ones(1, 1, n, dtype=tl.float64), tl.tensor([[list(w)]], dtype=tl.float64), stride=s
    )
    start = ((k + s - 1) // s) * s
    return tuple(out[0, 0, start : start + s].tolist())


PHASE_SUMS = Question(
    id="why.interior_pattern",
    notebook=NB,
    name="interior_pattern",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    prompt=(
        "Write interior_pattern(w, s) without PyTorch's transposed convolutions: w is a 1-D "
        "kernel (a tuple of floats) and s a stride. Far from the border, "
        "F.conv_transpose1d(torch.ones(1, 1, n), w, stride=s) (for a large n) repeats a "
        "pattern of s values. Return one period, starting at an output position divisible by "
        "s, as a tuple of s floats. (The output is free of checkerboards exactly when these "
        "values are equal.)"
    ),
    todo=(
        "Write interior_pattern with plain Python: which kernel taps land on an output position "
        "j far from the border?"
    ),
    reference=_phase_sums,
    cases=_phase_cases,
    strategy=_phase_strategy,
    expect=Expect(rtol=1e-9, atol=1e-9),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to find the pattern from the kernel: running the transposed "
            "convolution skips the point.",
            _torch_phases,
        ),
        Misconception(
            "even_overlap",
            "the stamps do not spread the kernel's sum evenly: position j gets the taps w[t] "
            "with t = j (mod s), and those sums differ unless the weights make them equal.",
            lambda w, s: (float(sum(w)) / s,) * s,
        ),
        Misconception(
            "tap_counts",
            "that counts the taps landing on each position (right for a kernel of ones); with "
            "other weights, add the weights themselves.",
            lambda w, s: tuple(float(len(w[a::s])) for a in range(s)),
        ),
        Misconception(
            "flipped_kernel",
            "a transposed convolution stamps the kernel as it is (out[i * s + t] += x[i] * "
            "w[t]); the flip belongs to the equivalent ordinary convolution.",
            lambda w, s: _phase_sums(tuple(w)[::-1], s),
        ),
    ),
    hints=(
        "out[j] = sum over i of x[i] * w[j - i * s]. With x = 1 everywhere, which t = j - i * s "
        "occur?",
        "Every s-th tap, starting at j mod s: the phase sums sum(w[a::s]).",
    ),
)


# ---------------------------------------------------------------------------- bilinear taps
def _bilinear_taps(kernel_size):
    factor = (kernel_size + 1) // 2
    center = factor - 1 if kernel_size % 2 == 1 else factor - 0.5
    return tuple(1 - abs(i - center) / factor for i in range(kernel_size))


BILINEAR_TAPS = Question(
    id="why.bilinear_taps",
    notebook=NB,
    name="bilinear_taps",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    prompt=(
        "d2l's bilinear_kernel(c, c, kernel_size) (lesson 18) puts the outer product of a 1-D "
        "tent with itself on the diagonal of the weight. Write bilinear_taps(kernel_size): that "
        "1-D tent, as a tuple of kernel_size floats (for kernel_size 4: (0.25, 0.75, 0.75, "
        "0.25)). With s = (kernel_size + 1) // 2, it makes ConvTranspose2d(c, c, kernel_size, "
        "stride=s, padding=(kernel_size - s) // 2) upsample by s exactly as F.interpolate(..., "
        "mode='bilinear') does away from the border, when kernel_size - s is even (kernel_size "
        "4: stride 2, padding 1, lesson 18; kernel_size 5: stride 3, padding 1); for an odd "
        "kernel_size - s no padding centres the output."
    ),
    todo=(
        "Write bilinear_taps: factor = (kernel_size + 1) // 2; where is the centre of the tent "
        "for odd and for even sizes, and how fast does it fall off?"
    ),
    reference=_bilinear_taps,
    cases=lambda rng: [(4,), (3,), (1,), (2,)] + [(int(k),) for k in rng.integers(1, 17, size=6)],
    strategy=lambda: int_tuples((1, 8)),
    expect=Expect(rtol=1e-9, atol=1e-12),
    misconceptions=(
        Misconception(
            "odd_centre_everywhere",
            "for an even kernel_size the centre falls between two taps (factor - 0.5): the tent "
            "must be symmetric.",
            lambda k: tuple(1 - abs(i - ((k + 1) // 2 - 1)) / ((k + 1) // 2) for i in range(k)),
        ),
        Misconception(
            "half_width",
            "the tent falls to 0 one upsampling factor from its centre, factor = "
            "(kernel_size + 1) // 2, not kernel_size / 2.",
            lambda k: tuple(
                1 - abs(i - ((k + 1) // 2 - (1 if k % 2 else 0.5))) / (k / 2) for i in range(k)
            ),
        ),
        Misconception(
            "box",
            "a box (all ones) is nearest-neighbour upsampling; bilinear weights fall off "
            "linearly with the distance from the centre.",
            lambda k: (1.0,) * k,
        ),
    ),
    hints=(
        "factor = (kernel_size + 1) // 2; centre = factor - 1 for odd sizes, factor - 0.5 for "
        "even ones.",
        "tap i = 1 - |i - centre| / factor.",
    ),
)

QUESTIONS = [
    DENSE_VS_CONV,
    SHIFTED,
    STACK_VS_SINGLE,
    ACTIVATION_BYTES,
    ADAPTIVE_IN_FEATURES,
    POOLED_SHAPE,
    OVERLAPPING_POOL,
    STAMP_COUNTS,
    PHASE_SUMS,
    BILINEAR_TAPS,
]
