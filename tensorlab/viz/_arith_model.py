"""Convolution arithmetic, computed without matplotlib: which cells a window covers, and sizes.

The figures of the "guide to convolution arithmetic" (Dumoulin & Visin) draw a square input
(blue), its zero padding, the kernel's window, and the output (green). :func:`arith_model` computes
what such a picture shows for one output cell, for ``conv2d`` and for ``conv_transpose2d``. A
transposed convolution is drawn as the stride-1 convolution it equals: the input with
``stride - 1`` zeros inserted between its pixels, ``dilation * (kernel - 1) - padding`` zeros of
padding on each side (plus ``output_padding`` more at the bottom and right), and the flipped
kernel. Every number drawn comes from tensorlab itself: the output is ``F.conv2d`` /
``F.conv_transpose2d`` of ``arange(1, i*i + 1)`` with an all-ones kernel, and for a transposed
convolution the model checks that the zero-inserted picture gives the same output.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PAD, INPUT, INSERTED = 0, 1, 2  # the kinds of cell in the (padded) grid

# name -> settings, in the order of the guide's animations
PRESETS = {
    "no padding, no strides": dict(size=4, kernel=3, padding=0, stride=1),
    "arbitrary padding, no strides": dict(size=5, kernel=4, padding=2, stride=1),
    "half padding ('same')": dict(size=5, kernel=3, padding=1, stride=1),
    "full padding": dict(size=5, kernel=3, padding=2, stride=1),
    "no padding, strides": dict(size=5, kernel=3, padding=0, stride=2),
    "padding, strides": dict(size=5, kernel=3, padding=1, stride=2),
    "padding, strides (odd)": dict(size=6, kernel=3, padding=1, stride=2),
    "dilation": dict(size=7, kernel=3, padding=0, stride=1, dilation=2),
    "transposed: no padding, no strides": dict(size=2, kernel=3, transposed=True),
    "transposed: full padding, no strides": dict(size=5, kernel=3, padding=2, transposed=True),
    "transposed: no padding, strides": dict(size=2, kernel=3, stride=2, transposed=True),
    "transposed: padding, strides": dict(size=3, kernel=3, padding=1, stride=2, transposed=True),
    "transposed: padding, strides, output_padding": dict(
        size=3, kernel=3, padding=1, stride=2, output_padding=1, transposed=True
    ),
}
DEFAULTS = dict(
    size=4, kernel=3, padding=0, stride=1, dilation=1, transposed=False, output_padding=0
)


def preset(name: str) -> dict:
    """Every setting of preset ``name`` (unnamed settings take their defaults)."""
    return {**DEFAULTS, **PRESETS[name]}


def conv_output_size(i: int, k: int, p: int, s: int, d: int) -> int:
    """``floor((i + 2p - d(k-1) - 1) / s) + 1``: PyTorch's Conv2d size formula."""
    return (i + 2 * p - d * (k - 1) - 1) // s + 1


def conv_transpose_output_size(i: int, k: int, p: int, s: int, d: int, op: int) -> int:
    """``(i - 1)s - 2p + d(k-1) + output_padding + 1``: PyTorch's ConvTranspose2d size formula."""
    return (i - 1) * s - 2 * p + d * (k - 1) + op + 1


@dataclass
class ArithModel:
    size: int
    kernel: int
    padding: int
    stride: int
    dilation: int
    transposed: bool
    output_padding: int
    position: tuple[int, int]
    kinds: np.ndarray  # (P, P) PAD / INPUT / INSERTED: the grid the window slides over
    grid_values: np.ndarray  # (P, P) the input's values where they are, 0 elsewhere
    out_size: int
    output: np.ndarray  # (o, o) the engine's result with an all-ones kernel
    window: np.ndarray  # (k*k, 2) grid cells (row, col) under the window for ``position``
    step: int  # how far the window moves between output cells in the drawn grid
    agrees: bool  # zero-insertion picture == F.conv_transpose2d (always True for conv2d)

    @property
    def value(self) -> float:
        return float(self.output[self.position])

    def formula(self) -> str:
        i, k, p, s, d = self.size, self.kernel, self.padding, self.stride, self.dilation
        if self.transposed:
            op = self.output_padding
            return (
                f"({i} − 1)·{s} − 2·{p} + {d}·({k} − 1) + {op} + 1 = {self.out_size}"
                f"   [(i − 1)·s − 2·p + d·(k − 1) + output_padding + 1]"
            )
        return (
            f"⌊({i} + 2·{p} − {d}·({k} − 1) − 1) / {s}⌋ + 1 = {self.out_size}"
            f"   [⌊(i + 2·p − d·(k − 1) − 1) / s⌋ + 1]"
        )

    def code(self) -> str:
        k, p, s, d = self.kernel, self.padding, self.stride, self.dilation
        extra = f", dilation={d}" if d != 1 else ""
        if self.transposed:
            if self.output_padding:
                extra += f", output_padding={self.output_padding}"
            return f"F.conv_transpose2d(x, w, stride={s}, padding={p}{extra})  # w: {k}×{k}"
        return f"F.conv2d(x, w, stride={s}, padding={p}{extra})  # w: {k}×{k}"

    def describe(self) -> str:
        i, o = self.size, self.out_size
        r, c = self.position
        rows = sorted({int(a) for a in self.window[:, 0]})
        cols = sorted({int(b) for b in self.window[:, 1]})
        where = f"rows {rows[0]}–{rows[-1]}, cols {cols[0]}–{cols[-1]} of the drawn grid"
        name = "conv_transpose2d" if self.transposed else "conv2d"
        head = (
            f"{name}: input {i}×{i}, kernel {self.kernel}, padding {self.padding}, "
            f"stride {self.stride}, dilation {self.dilation}"
        )
        if self.transposed:
            head += f", output_padding {self.output_padding}"
        head += f" → output {o}×{o}"
        return f"{head}; output[{r}, {c}] = {fmt(self.value)} reads {where}"


def fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.4g}"


def _grid(i: int, k: int, p: int, s: int, d: int, transposed: bool, op: int):
    """The grid the window slides over: (kinds, values, step) with the input at its place."""
    x = np.arange(1, i * i + 1, dtype=float).reshape(i, i)
    if not transposed:
        P = i + 2 * p
        kinds = np.full((P, P), PAD)
        values = np.zeros((P, P))
        kinds[p : p + i, p : p + i] = INPUT
        values[p : p + i, p : p + i] = x
        return kinds, values, s
    q = d * (k - 1) - p
    z = (i - 1) * s + 1
    P = z + 2 * q + op
    kinds = np.full((P, P), PAD)
    values = np.zeros((P, P))
    kinds[q : q + z, q : q + z] = INSERTED
    kinds[q : q + z : s, q : q + z : s] = INPUT
    values[q : q + z : s, q : q + z : s] = x
    return kinds, values, 1


def arith_model(
    size: int = 4,
    kernel: int = 3,
    padding: int = 0,
    stride: int = 1,
    dilation: int = 1,
    transposed: bool = False,
    output_padding: int = 0,
    position: tuple[int, int] = (0, 0),
) -> ArithModel:
    """Everything the arithmetic figure draws; raises PyTorch's error for an impossible layer."""
    import tensorlab as torch
    from tensorlab.nn import functional as F

    i, k, p, s, d, op = (int(v) for v in (size, kernel, padding, stride, dilation, output_padding))
    x = torch.arange(1.0, i * i + 1).view(1, 1, i, i).double()
    w = torch.ones(1, 1, k, k, dtype=torch.float64)
    if transposed:
        out = F.conv_transpose2d(x, w, stride=s, padding=p, output_padding=op, dilation=d)
        o = conv_transpose_output_size(i, k, p, s, d, op)
        if d * (k - 1) - p < 0:
            raise ValueError(
                f"this figure draws a transposed convolution as a padded stride-1 convolution, "
                f"which needs padding ≤ dilation·(kernel − 1) = {d * (k - 1)}"
            )
    else:
        if not transposed and op:
            raise ValueError("output_padding only exists for a transposed convolution")
        out = F.conv2d(x, w, stride=s, padding=p, dilation=d)
        o = conv_output_size(i, k, p, s, d)
    output = out[0, 0].numpy()
    assert output.shape == (o, o), (output.shape, o)
    kinds, values, step = _grid(i, k, p, s, d, transposed, op)
    agrees = True
    if transposed:  # the drawn picture is the same computation: check it with the engine
        redo = F.conv2d(torch.from_numpy(values).view(1, 1, *values.shape), w, dilation=d)
        agrees = bool(torch.equal(redo[0, 0], out[0, 0]))
    r = min(max(int(position[0]), 0), o - 1)
    c = min(max(int(position[1]), 0), o - 1)
    a, b = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
    window = np.stack([r * step + d * a.ravel(), c * step + d * b.ravel()], axis=1)
    return ArithModel(
        size=i,
        kernel=k,
        padding=p,
        stride=s,
        dilation=d,
        transposed=bool(transposed),
        output_padding=op,
        position=(r, c),
        kinds=kinds,
        grid_values=values,
        out_size=o,
        output=output,
        window=window,
        step=step,
        agrees=agrees,
    )
