"""What the convolution figure shows, computed without matplotlib.

:func:`conv_model` pads an image and slides a kernel over it exactly as
``tensorlab.nn.functional`` does (its numbers *are* ``F.pad`` and ``F.conv2d`` results), and adds
what a picture needs on top: which padded pixels are invented and which real pixel each one copies,
where the (dilated) window sits for one output cell, the products under it, and the output-size
formula with the numbers filled in.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..interop import accepts_torch
from ..nn._conv_kernels import conv_out_size, pad_source_index
from ._numbers import snap_zero

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")
OPERATIONS = ("cross-correlation", "convolution")

# ---------------------------------------------------------------------------------- presets


def step_image() -> np.ndarray:
    """The lecture's 8x8 input: columns 0-3 hold 4.0, columns 4-7 hold 1.0."""
    arr = np.zeros((8, 8))
    arr[:, :4] = 4.0
    arr[:, 4:] = 1.0
    return arr


def column_image() -> np.ndarray:
    """The lecture's cross-correlation test input: zeros with a column of ones at index 4."""
    arr = np.zeros((8, 8))
    arr[:, 4] = 1.0
    return arr


def checkerboard_image(n: int = 8) -> np.ndarray:
    """An ``n`` x ``n`` board of 0 and 1, 1 at the top-left corner."""
    r, c = np.indices((n, n))
    return ((r + c) % 2 == 0).astype(float)


def noise_image(n: int = 8, seed: int = 0) -> np.ndarray:
    """Uniform noise in [0, 1), rounded to 2 decimals so the labels stay short (seeded)."""
    return np.round(np.random.default_rng(seed).random((n, n)), 2)


@lru_cache(maxsize=4)
def photo_image(size: int = 24) -> np.ndarray:
    """Grace Hopper from matplotlib's sample data: grey, centre-cropped square, block-averaged.

    Grey = 0.299 R + 0.587 G + 0.114 B, scaled to [0, 1] and rounded to 2 decimals.
    """
    import matplotlib.cbook as cbook
    import matplotlib.image as mimage

    with cbook.get_sample_data("grace_hopper.jpg") as f:
        rgb = np.asarray(mimage.imread(f, format="jpeg"), dtype=float)
    grey = rgb[..., :3] @ np.array([0.299, 0.587, 0.114]) / 255.0
    h, w = grey.shape
    side = min(h, w) // size * size
    top, left = (h - side) // 2, (w - side) // 2
    crop = grey[top : top + side, left : left + side]
    k = side // size
    small = crop.reshape(size, k, size, k).mean(axis=(1, 3))
    small.setflags(write=False)
    return np.round(small, 2)


IMAGE_PRESETS = {
    "step (lecture)": step_image,
    "one column (lecture)": column_image,
    "checkerboard": checkerboard_image,
    "noise": noise_image,
    "photo (Grace Hopper)": photo_image,
}


def _edge() -> np.ndarray:
    return np.array([[-1.0, 0.0, 1.0]] * 3)


KERNEL_PRESETS = {
    "edge [-1, 0, 1] (lecture)": _edge,
    "rows [1, 2, 3] (lecture)": lambda: np.array([[1.0, 2.0, 3.0]] * 3),
    "Sobel x": lambda: np.array([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]),
    "box blur": lambda: np.full((3, 3), 1.0 / 9.0),
    "sharpen": lambda: np.array([[0.0, -1.0, 0.0], [-1.0, 5.0, -1.0], [0.0, -1.0, 0.0]]),
    "identity": lambda: np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]),
}


def image_preset(name: str) -> np.ndarray:
    """A fresh copy of the named input image (see ``IMAGE_PRESETS``)."""
    if name not in IMAGE_PRESETS:
        raise KeyError(f"unknown image preset {name!r}; choose from {list(IMAGE_PRESETS)}")
    return np.array(IMAGE_PRESETS[name](), dtype=float)


def kernel_preset(name: str) -> np.ndarray:
    """A fresh copy of the named kernel (see ``KERNEL_PRESETS``)."""
    if name not in KERNEL_PRESETS:
        raise KeyError(f"unknown kernel preset {name!r}; choose from {list(KERNEL_PRESETS)}")
    return np.array(KERNEL_PRESETS[name](), dtype=float)


def parse_kernel(text: str) -> np.ndarray:
    """A kernel typed as rows separated by ``;`` or new lines, numbers by spaces or commas.

    ``"-1 0 1; -1 0 1; -1 0 1"`` and ``"[[1, 2], [3, 4]]"`` both work. Raises ``ValueError``.
    """
    cleaned = text.replace("[", " ").replace("]", ";").replace("\n", ";")
    rows = []
    for part in cleaned.split(";"):
        nums = part.replace(",", " ").split()
        if nums:
            try:
                rows.append([float(eval_number(n)) for n in nums])
            except ValueError:
                raise ValueError(f"not a number in kernel row {part.strip()!r}") from None
    if not rows:
        raise ValueError("the kernel is empty: type rows like '-1 0 1; -1 0 1; -1 0 1'")
    if len({len(r) for r in rows}) != 1:
        raise ValueError(f"kernel rows have different lengths: {[len(r) for r in rows]}")
    return np.array(rows, dtype=float)


def eval_number(s: str) -> float:
    """A number such as ``-1``, ``0.5`` or ``1/9`` (a single fraction is allowed)."""
    if "/" in s:
        a, b = s.split("/", 1)
        return float(a) / float(b)
    return float(s)


# ---------------------------------------------------------------------------------- geometry


def source_index(k: np.ndarray, n: int, pad: int, mode: str) -> np.ndarray:
    """For padded coordinates ``k`` (0 .. n + 2*pad - 1): the real coordinate each one copies.

    ``-1`` where nothing is copied (``zeros`` padding invents a 0). The rule is the engine's own
    (``F.pad``): ``reflect`` mirrors without repeating the edge, ``replicate`` repeats the edge,
    ``circular`` wraps around.
    """
    if mode not in PADDING_MODES:
        raise ValueError(
            f"padding_mode must be one of {PADDING_MODES}, but got padding_mode='{mode}'"
        )
    kernel_mode = "constant" if mode == "zeros" else mode
    return pad_source_index(n, pad, pad, kernel_mode)[np.asarray(k)]


def output_size(n: int, k: int, pad: int, stride: int, dilation: int) -> int:
    """floor((n + 2p - d(k - 1) - 1) / s) + 1 (may be <= 0 when the kernel does not fit)."""
    return conv_out_size(n, k, stride, 2 * pad, dilation)


def size_formula(name: str, n: int, k: int, pad: int, stride: int, dilation: int) -> str:
    """The output-size formula, then with numbers, then its value, e.g. for ``H``."""
    letter = name[0]
    out = output_size(n, k, pad, stride, dilation)
    return (
        f"{name}_out = ⌊({name} + 2p − d·(k{letter}−1) − 1) / s⌋ + 1 = "
        f"⌊({n} + 2·{pad} − {dilation}·({k}−1) − 1) / {stride}⌋ + 1 = {out}"
    )


@dataclass
class ConvModel:
    """Everything the convolution figure draws (arrays are 2-D numpy, rows first)."""

    image: np.ndarray  # H x W input
    kernel: np.ndarray  # as given
    weight: np.ndarray  # as applied by conv2d (flipped for a true convolution)
    padding: int
    padding_mode: str
    stride: int
    dilation: int
    operation: str
    padded: np.ndarray  # F.pad result
    invented: np.ndarray  # bool, padded shape: pixels not in the image
    src_rows: np.ndarray  # padded row -> image row it copies (-1: none)
    src_cols: np.ndarray
    output: np.ndarray  # F.conv2d result (Ho x Wo)
    position: tuple[int, int]
    taps_rows: np.ndarray  # padded rows the window reads (kH,)
    taps_cols: np.ndarray  # padded cols (kW,)
    patch: np.ndarray  # padded values under the window (kH x kW)
    products: np.ndarray  # patch * weight
    value: float  # output[position]
    formula_h: str
    formula_w: str

    @property
    def out_shape(self) -> tuple[int, int]:
        return tuple(self.output.shape)

    @property
    def scale(self) -> float:
        """A bound on any output's size: max |pixel| · Σ |weight| (what rounding errors scale with)."""
        if not self.padded.size or not self.weight.size:
            return 0.0
        return float(np.max(np.abs(self.padded)) * np.sum(np.abs(self.weight)))

    def shown(self, values):
        """``values`` (output values) as figures print them: 0 up to rounding is exactly 0.

        ``0.1 + 0.2 - 0.3`` is ``5.6e-17`` in floating point; a figure that printed that under a
        flat region would teach noise. The model's own ``output`` and ``value`` stay exact.
        """
        return snap_zero(values, self.scale)

    @property
    def value_shown(self) -> float:
        return float(self.shown(self.value))

    def code(self) -> str:
        """Code that computes the same output with ``import tensorlab as torch``."""
        lines = []
        if self.operation == "convolution":
            lines.append("w = torch.flip(w, dims=(-2, -1))  # a true convolution flips the kernel")
        common = f"stride={self.stride}, dilation={self.dilation}"
        if self.padding_mode == "zeros":
            lines.append(f"out = F.conv2d(x, w, {common}, padding={self.padding})")
        else:
            p = self.padding
            lines.append(f"xp = F.pad(x, ({p}, {p}, {p}, {p}), mode='{self.padding_mode}')")
            lines.append(f"out = F.conv2d(xp, w, {common})")
        return "\n".join(lines)

    def describe(self) -> str:
        """One line stating the configuration and the lit result."""
        H, W = self.image.shape
        kH, kW = self.kernel.shape
        Hp, Wp = self.padded.shape
        Ho, Wo = self.output.shape
        i, j = self.position
        return (
            f"{self.operation}: input {H}×{W}, kernel {kH}×{kW}, padding {self.padding} "
            f"({self.padding_mode}) → {Hp}×{Wp}, stride {self.stride}, dilation {self.dilation} "
            f"→ output {Ho}×{Wo}; output[{i}, {j}] = {self.value_shown:g}"
        )


def as_2d(a, what: str) -> np.ndarray:
    """A 2-D float copy; leading size-1 axes (as in (1, 1, H, W) tensors) are dropped."""
    arr = np.array(a._np() if hasattr(a, "_np") else a, dtype=float)
    shape = arr.shape
    while arr.ndim > 2 and arr.shape[0] == 1:
        arr = arr[0]
    if arr.ndim != 2:
        raise ValueError(f"{what} must be 2-D (H, W) or (1, 1, H, W), got shape {tuple(shape)}")
    return arr


def _int_at_least(v, lo: int, what: str) -> int:
    if isinstance(v, bool) or int(v) != v or v < lo:
        raise ValueError(f"{what} must be an integer >= {lo}, got {v!r}")
    return int(v)


@accepts_torch
def conv_model(
    image,
    kernel,
    *,
    padding: int = 0,
    padding_mode: str = "zeros",
    stride: int = 1,
    dilation: int = 1,
    position: tuple[int, int] = (0, 0),
    operation: str = "cross-correlation",
) -> ConvModel:
    """Pad ``image`` and run the kernel with ``tensorlab.nn.functional``; describe one output cell.

    ``image`` (H, W) and ``kernel`` (kH, kW) are arrays or tensors. ``operation="convolution"``
    flips the kernel first (PyTorch's conv2d is a cross-correlation). Errors are the engine's
    (e.g. the kernel does not fit, reflect padding too wide) or ``ValueError``/``IndexError`` for
    settings out of range.
    """
    import tensorlab as tl
    from tensorlab.nn import functional as F

    img = as_2d(image, "image")
    ker = as_2d(kernel, "kernel")
    if operation not in OPERATIONS:
        raise ValueError(f"operation must be one of {OPERATIONS}, got {operation!r}")
    if padding_mode not in PADDING_MODES:
        raise ValueError(
            f"padding_mode must be one of {set(PADDING_MODES)}, but got padding_mode='{padding_mode}'"
        )
    p = _int_at_least(padding, 0, "padding")
    s = _int_at_least(stride, 1, "stride")
    d = _int_at_least(dilation, 1, "dilation")
    weight = np.flip(ker).copy() if operation == "convolution" else ker.copy()

    x = tl.from_numpy(img.copy()).view(1, 1, *img.shape)
    w = tl.from_numpy(weight.copy()).view(1, 1, *weight.shape)
    if padding_mode == "zeros":
        xp = F.pad(x, (p, p, p, p), mode="constant", value=0.0)
    else:
        xp = F.pad(x, (p, p, p, p), mode=padding_mode)
    out = F.conv2d(xp, w, stride=s, dilation=d)
    padded = np.array(xp._np()[0, 0])
    output = np.array(out._np()[0, 0])

    H, W = img.shape
    Hp, Wp = padded.shape
    src_r = source_index(np.arange(Hp), H, p, padding_mode)
    src_c = source_index(np.arange(Wp), W, p, padding_mode)
    rows_in = (np.arange(Hp) >= p) & (np.arange(Hp) < p + H)
    cols_in = (np.arange(Wp) >= p) & (np.arange(Wp) < p + W)
    invented = ~(rows_in[:, None] & cols_in[None, :])

    Ho, Wo = output.shape
    i, j = (int(v) for v in position)
    if not (0 <= i < Ho and 0 <= j < Wo):
        raise IndexError(f"output position ({i}, {j}) is outside the {Ho}×{Wo} output")
    kH, kW = weight.shape
    taps_r = i * s + d * np.arange(kH)
    taps_c = j * s + d * np.arange(kW)
    patch = padded[np.ix_(taps_r, taps_c)]
    products = patch * weight
    return ConvModel(
        image=img,
        kernel=ker,
        weight=weight,
        padding=p,
        padding_mode=padding_mode,
        stride=s,
        dilation=d,
        operation=operation,
        padded=padded,
        invented=invented,
        src_rows=src_r,
        src_cols=src_c,
        output=output,
        position=(i, j),
        taps_rows=taps_r,
        taps_cols=taps_c,
        patch=patch,
        products=products,
        value=float(output[i, j]),
        formula_h=size_formula("H", H, kH, p, s, d),
        formula_w=size_formula("W", W, kW, p, s, d),
    )


def copy_links(model: ConvModel) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """((padded row, col), (padded row, col) of the real pixel it copies) for each invented pixel.

    Empty for ``zeros`` padding: those pixels copy nothing.
    """
    if model.padding_mode == "zeros":
        return []
    p = model.padding
    rows, cols = np.nonzero(model.invented)
    return [
        ((int(r), int(c)), (int(model.src_rows[r]) + p, int(model.src_cols[c]) + p))
        for r, c in zip(rows, cols)
    ]
