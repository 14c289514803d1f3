"""``explain_conv``: which pixels and weights make one output element of a convolution;
``explain_conv_matmul``: a convolution as unfold -> matmul -> view; ``explain_conv_transpose``: a
transposed convolution as zero-insertion + padding + a convolution with the flipped kernel.

For ``out[n, o, i, j]`` of ``conv2d`` (or of an ``nn.Conv2d``) it lists every product
``input * weight`` that is summed, including the "hallucinated" pixels outside the image that the
padding invents (and, for ``reflect``/``replicate``/``circular`` padding, which real pixel each of
them copies), the group and the input channels that contribute, and writes the sum out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from . import _dtype as D
from ._tensor import Tensor

__all__ = [
    "ConvAsMatmul",
    "ConvExplanation",
    "ConvTerm",
    "TransposedConvAsConv",
    "explain_conv",
    "explain_conv_matmul",
    "explain_conv_transpose",
]

_PAD_MODE = {
    "zeros": "constant",
    "reflect": "reflect",
    "replicate": "replicate",
    "circular": "circular",
}


@dataclass(frozen=True)
class ConvTerm:
    """One product ``input[n, in_channel, row, col] * weight[o, channel_in_group, a, b]``.

    ``row``/``col`` are in the input's own coordinates and may lie outside the image
    (``padded=True``); ``source`` is then the real pixel the padding mode copies (``None`` for
    zero padding), and ``value`` is the value the padding gave it.
    """

    in_channel: int
    group: int
    channel_in_group: int
    kernel_pos: tuple[int, int]
    row: int
    col: int
    padded: bool
    source: tuple[int, int] | None
    value: float
    weight_index: tuple[int, int, int, int]
    weight_value: float
    product: float


@dataclass(frozen=True)
class ConvExplanation:
    """The answer of :func:`explain_conv` (structured fields; ``str``/HTML write the sum out)."""

    index: tuple[int, ...]
    batch: int
    out_channel: int
    out_pos: tuple[int, int]
    group: int
    groups: int
    in_channels: tuple[int, ...]
    terms: tuple[ConvTerm, ...]
    bias: float | None
    total: float
    output_value: float
    input_shape: tuple[int, ...]
    weight_shape: tuple[int, ...]
    stride: tuple[int, int]
    padding: tuple[int, int, int, int]
    dilation: tuple[int, int]
    padding_mode: str
    dtype: D.dtype

    @property
    def window_rows(self) -> tuple[int, ...]:
        """Input rows the kernel covers (may include rows outside the image)."""
        return tuple(sorted({t.row for t in self.terms}))

    @property
    def window_cols(self) -> tuple[int, ...]:
        return tuple(sorted({t.col for t in self.terms}))

    @property
    def padded_terms(self) -> tuple[ConvTerm, ...]:
        return tuple(t for t in self.terms if t.padded)

    def _idx(self) -> str:
        return ", ".join(str(i) for i in self.index)

    def _fmt(self, v: float) -> str:
        if not self.dtype.is_floating_point:
            return str(int(v))
        return f"{v:.4f}"

    def _where(self, t: ConvTerm) -> str:
        pre = f"{self.batch}, " if len(self.input_shape) == 4 else ""
        if not t.padded:
            return f"x[{pre}{t.in_channel}, {t.row}, {t.col}]"
        if t.source is None:
            return f"pad({t.row}, {t.col})=0"
        return f"pad({t.row}, {t.col})=x[{pre}{t.in_channel}, {t.source[0]}, {t.source[1]}]"

    def sum_text(self, max_terms: int | None = 12) -> str:
        """``out[...] = x[..]*w[..] + ... + bias = value`` with the numbers."""
        shown = self.terms if max_terms is None else self.terms[:max_terms]
        parts = [f"{self._fmt(t.value)}*{self._fmt(t.weight_value)}" for t in shown]
        if len(shown) < len(self.terms):
            parts.append(f"... ({len(self.terms) - len(shown)} more)")
        if self.bias is not None:
            parts.append(f"{self._fmt(self.bias)} (bias)")
        body = " + ".join(parts) if parts else "0"
        return f"out[{self._idx()}] = {body} = {self._fmt(self.total)}"

    def __str__(self) -> str:
        n_pad = len(self.padded_terms)
        top, bottom, left, right = self.padding
        head = [
            f"out[{self._idx()}] of conv2d (a cross-correlation: the kernel is not flipped): "
            f"input {list(self.input_shape)}, weight "
            f"{list(self.weight_shape)}, stride {self.stride}, dilation {self.dilation}, groups "
            f"{self.groups}",
            f"padding top={top} bottom={bottom} left={left} right={right}, mode "
            f"'{self.padding_mode}'",
            f"output channel {self.out_channel} is in group {self.group}: it reads input channels "
            f"{list(self.in_channels)}",
            f"window rows {list(self.window_rows)}, cols {list(self.window_cols)}; "
            f"{len(self.terms)} products, {n_pad} of them on padded (invented) pixels",
        ]
        rows = []
        for t in self.terms:
            w = ", ".join(str(i) for i in t.weight_index)
            rows.append(
                f"  {self._where(t):<28} {self._fmt(t.value):>10} * w[{w}] "
                f"{self._fmt(t.weight_value):>10} = {self._fmt(t.product):>10}"
            )
        tail = [self.sum_text()]
        if self.dtype.is_floating_point:
            tail.append(f"conv2d gives {self._fmt(self.output_value)}")
        return "\n".join(head + rows + tail)

    def __repr__(self) -> str:
        return (
            f"ConvExplanation(index={self.index}, terms={len(self.terms)}, "
            f"padded={len(self.padded_terms)}, total={self.total!r})"
        )

    def _repr_html_(self) -> str:
        head = html.escape(str(self).split("\n")[0])
        rows = []
        for t in self.terms:
            style = " style='background:#fde2c8'" if t.padded else ""
            w = ", ".join(str(i) for i in t.weight_index)
            rows.append(
                f"<tr{style}><td>{t.in_channel}</td><td>{t.row}, {t.col}</td>"
                f"<td>{html.escape(self._where(t))}</td><td>{self._fmt(t.value)}</td>"
                f"<td>w[{w}]</td><td>{self._fmt(t.weight_value)}</td>"
                f"<td>{self._fmt(t.product)}</td></tr>"
            )
        table = (
            "<table><tr><th>in ch</th><th>position</th><th>pixel</th><th>value</th>"
            "<th>weight</th><th>w value</th><th>product</th></tr>" + "".join(rows) + "</table>"
        )
        return (
            f"<div><p>{head}</p>{table}<p><code>{html.escape(self.sum_text(None))}</code></p></div>"
        )


def _pair(v, name: str) -> tuple[int, int]:
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            return (int(v[0]), int(v[0]))
        return (int(v[0]), int(v[1]))
    return (int(v), int(v))


def _side_padding(padding, kernel, dilation) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) exactly as conv2d pads (``'same'``: extra bottom/right)."""
    if padding == "valid":
        return (0, 0, 0, 0)
    if padding == "same":
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out += [total // 2, total - total // 2]
        return tuple(out)  # type: ignore[return-value]
    ph, pw = _pair(padding, "padding")
    return (ph, ph, pw, pw)


def _as_tensor(v, name: str) -> Tensor:
    if isinstance(v, Tensor):
        return v
    arr = np.asarray(v)
    return Tensor._from_array(arr, D.from_numpy_dtype(arr.dtype))


def explain_conv(
    input,
    weight,
    bias=None,
    stride=1,
    padding=0,
    dilation=1,
    groups: int = 1,
    padding_mode: str = "zeros",
    *,
    index,
) -> ConvExplanation:
    """Explain ``out[index]`` of ``conv2d(input, weight, bias, stride, padding, dilation, groups)``.

    ``weight`` may be an ``nn.Conv2d``: its weight, bias and settings (including
    ``padding_mode``) are used and the other arguments must be left at their defaults.
    ``index`` is ``(n, o, i, j)`` for a batched input, ``(o, i, j)`` for an unbatched one.
    The convolution itself is run first, so invalid settings raise PyTorch's errors, and
    ``output_value`` is what ``conv2d`` computes (``total`` is the same sum done term by term).
    """
    from .nn import Module
    from .nn import functional as F

    if isinstance(weight, Module):
        mod = weight
        if (bias, stride, padding, dilation, groups, padding_mode) != (None, 1, 0, 1, 1, "zeros"):
            raise ValueError("pass either a Conv2d module or the convolution settings, not both")
        x = _as_tensor(input, "input")
        out = mod(x)
        w, b = mod.weight, mod.bias
        stride, padding, dilation = mod.stride, mod.padding, mod.dilation
        groups, padding_mode = mod.groups, mod.padding_mode
    else:
        if padding_mode not in _PAD_MODE:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but "
                f"got padding_mode='{padding_mode}'"
            )
        x = _as_tensor(input, "input")
        w = _as_tensor(weight, "weight")
        b = None if bias is None else _as_tensor(bias, "bias")
        kernel = tuple(w.shape[2:]) if w.ndim == 4 else (1, 1)
        if padding_mode == "zeros":
            out = F.conv2d(x, w, b, stride, padding, dilation, groups)
        else:
            dil = _pair(dilation, "dilation")
            t, bt, lf, r = _side_padding(padding, kernel, dil)
            xp = F.pad(x, [lf, r, t, bt], mode=padding_mode)
            out = F.conv2d(xp, w, b, stride, 0, dilation, groups)
    if w.ndim != 4:
        raise ValueError("explain_conv explains 2-d convolutions (a 4-d weight)")
    batched = x.ndim == 4
    index = tuple(int(i) for i in index)
    if len(index) != out.ndim:
        raise IndexError(
            f"index must have {out.ndim} entries ({'n, o, i, j' if batched else 'o, i, j'}), "
            f"got {len(index)}"
        )
    for d, (i, s) in enumerate(zip(index, out.shape)):
        if not -s <= i < s:
            raise IndexError(f"index {i} is out of bounds for dimension {d} with size {s}")
    index = tuple(i % s for i, s in zip(index, out.shape))
    n, o, i, j = index if batched else (0, *index)
    xa = x._np() if batched else x._np()[None]
    wa = w._np()
    c_out, cg, kh, kw = wa.shape
    h, wd = xa.shape[2:]
    sh, sw = _pair(stride, "stride")
    dh, dw = _pair(dilation, "dilation")
    top, bottom, left, right = _side_padding(padding, (kh, kw), (dh, dw))
    from .nn._conv_kernels import pad_source_index

    mode = _PAD_MODE[padding_mode]
    rows_src = pad_source_index(h, top, bottom, mode)
    cols_src = pad_source_index(wd, left, right, mode)
    og = c_out // groups
    g = o // og
    floating = x.dtype.is_floating_point
    cast = float if floating else int
    terms = []
    for cl in range(cg):
        c = g * cg + cl
        for a in range(kh):
            for bb in range(kw):
                pr, pc = i * sh + a * dh, j * sw + bb * dw  # position in the padded image
                row, col = pr - top, pc - left  # position in the input's coordinates
                padded = not (0 <= row < h and 0 <= col < wd)
                sr, sc = int(rows_src[pr]), int(cols_src[pc])
                if sr < 0 or sc < 0:
                    value, source = 0, None
                else:
                    value = xa[n, c, sr, sc].item()
                    source = (sr, sc) if padded else None
                wv = wa[o, cl, a, bb].item()
                terms.append(
                    ConvTerm(
                        in_channel=c,
                        group=g,
                        channel_in_group=cl,
                        kernel_pos=(a, bb),
                        row=row,
                        col=col,
                        padded=padded,
                        source=source,
                        value=cast(value),
                        weight_index=(o, cl, a, bb),
                        weight_value=cast(wv),
                        product=cast(value) * cast(wv),
                    )
                )
    bias_v = None if b is None else cast(b._np()[o].item())
    total = sum((t.product for t in terms), cast(0)) + (bias_v or cast(0))
    return ConvExplanation(
        index=index,
        batch=n,
        out_channel=o,
        out_pos=(i, j),
        group=g,
        groups=groups,
        in_channels=tuple(range(g * cg, (g + 1) * cg)),
        terms=tuple(terms),
        bias=bias_v,
        total=total,
        output_value=cast(out._np()[index].item()),
        input_shape=tuple(x.shape),
        weight_shape=tuple(wa.shape),
        stride=(sh, sw),
        padding=(top, bottom, left, right),
        dilation=(dh, dw),
        padding_mode=padding_mode,
        dtype=x.dtype,
    )


# ---------------------------------------------------------------------------- a conv as a matmul


@dataclass(frozen=True)
class ConvAsMatmul:
    """A 2-d convolution computed as ``unfold -> matmul -> view`` (:func:`explain_conv_matmul`).

    ``cols`` is ``F.unfold(input)``: (N, C_in*kH*kW, L), one column per sliding window (a copy:
    overlapping windows share pixels). ``weight_matrix`` is the weight seen as
    (groups, C_out/groups, C_in/groups*kH*kW). ``product`` is their matrix product per group,
    (N, C_out, L) after the bias; ``output`` is ``product.view(N, C_out, Ho, Wo)`` (a view: the
    blocks are in row-major order, which is also what ``F.fold`` with a 1x1 kernel gives), and
    ``conv2d`` is what ``F.conv2d`` computes (they agree up to float rounding: ``max_abs_diff``).
    """

    cols: Tensor
    weight_matrix: Tensor
    product: Tensor
    output: Tensor
    conv2d: Tensor
    groups: int
    blocks: tuple[int, int]
    max_abs_diff: float

    def __str__(self) -> str:
        k, length = self.cols.shape[-2:]
        n = self.product.shape[0]
        g, og, kg = self.weight_matrix.shape
        ho, wo = self.blocks
        return "\n".join(
            [
                "a convolution is a matrix product over the input's sliding windows:",
                f"1. cols = F.unfold(x, ...): {list(self.cols.shape)} -- {length} windows "
                f"({ho} x {wo} positions), each a column of {k} numbers (a copy of the windows)",
                f"2. weight.view({g}, {og}, {kg}): each output channel is a row of {kg} weights"
                + (f", one matrix per group ({g} groups)" if g > 1 else ""),
                f"3. product = weight rows @ cols (per group, + bias): {list(self.product.shape)}",
                f"4. output = product.view({n}, {g * og}, {ho}, {wo}) -- no copy",
                f"matches F.conv2d: max |difference| = {self.max_abs_diff:.3g}",
            ]
        )

    def __repr__(self) -> str:
        return (
            f"ConvAsMatmul(cols={list(self.cols.shape)}, weight_matrix="
            f"{list(self.weight_matrix.shape)}, output={list(self.output.shape)}, "
            f"max_abs_diff={self.max_abs_diff:.3g})"
        )


def explain_conv_matmul(
    input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1
) -> ConvAsMatmul:
    """Show ``F.conv2d(input, weight, bias, stride, padding, dilation, groups)`` as im2col
    (``F.unfold``) followed by one matrix product per group and a ``view``, with every
    intermediate tensor. Integer ``padding`` only (``'same'`` may pad unevenly)."""
    from .nn import functional as F

    x = _as_tensor(input, "input")
    w = _as_tensor(weight, "weight")
    b = None if bias is None else _as_tensor(bias, "bias")
    ref = F.conv2d(x, w, b, stride, padding, dilation, groups)  # PyTorch's errors first
    batched = x.ndim == 4
    xb = x if batched else x.unsqueeze(0)
    c_out, cg, kh, kw = w.shape
    og = c_out // groups
    cols = F.unfold(xb, (kh, kw), dilation, padding, stride)  # (N, C*kh*kw, L)
    n, _, length = cols.shape
    wm = w.reshape(groups, og, cg * kh * kw)
    colg = cols.reshape(n, groups, cg * kh * kw, length)
    prod = (wm @ colg).reshape(n, c_out, length)  # (N, G, og, L) -> (N, C_out, L)
    if b is not None:
        prod = prod + b.reshape(1, c_out, 1)
    ho, wo = ref.shape[-2:]
    out = prod.view(n, c_out, ho, wo)
    if not batched:
        out = out.squeeze(0)
    diff = float(np.max(np.abs(out._np().astype(np.float64) - ref._np()), initial=0.0))
    return ConvAsMatmul(
        cols=cols if batched else cols.squeeze(0),
        weight_matrix=wm,
        product=prod,
        output=out,
        conv2d=ref,
        groups=groups,
        blocks=(int(ho), int(wo)),
        max_abs_diff=diff,
    )


# ---------------------------------------------------------------------------- transposed conv


@dataclass(frozen=True)
class TransposedConvAsConv:
    """``conv_transpose2d`` rebuilt as zero-insertion + padding + an ordinary convolution with the
    flipped, transposed kernel (:func:`explain_conv_transpose`).

    ``dilated`` spreads the input: ``stride - 1`` zeros between neighbours (rows and columns).
    ``padded`` adds ``dilation*(k-1) - padding`` zeros on each side (a negative amount crops) and
    ``output_padding`` more at the bottom/right. ``kernel`` is the weight flipped in both spatial
    dims with its two channel dims swapped (per group): (C_out, C_in/groups, kH, kW).
    ``output = conv2d(padded, kernel, bias, stride=1, dilation=dilation, groups=groups)`` equals
    ``conv_transpose`` (``max_abs_diff``).
    """

    dilated: Tensor
    padded: Tensor
    kernel: Tensor
    output: Tensor
    conv_transpose2d: Tensor
    stride: tuple[int, int]
    pads: tuple[int, int, int, int]
    max_abs_diff: float

    def __str__(self) -> str:
        sh, sw = self.stride
        left, right, top, bottom = self.pads
        return "\n".join(
            [
                "a transposed convolution is an ordinary convolution of a spread-out input:",
                f"1. zero-insertion: {sh - 1} zero row(s) between input rows and {sw - 1} zero "
                f"column(s) between columns -> {list(self.dilated.shape)}",
                f"2. padding (left={left}, right={right}, top={top}, bottom={bottom}; negative "
                f"crops) -> {list(self.padded.shape)}",
                f"3. kernel = weight flipped up-down and left-right, in/out channels swapped -> "
                f"{list(self.kernel.shape)}",
                f"4. conv2d(padded, kernel, stride=1) -> {list(self.output.shape)}",
                f"matches F.conv_transpose2d: max |difference| = {self.max_abs_diff:.3g}",
            ]
        )

    def __repr__(self) -> str:
        return (
            f"TransposedConvAsConv(dilated={list(self.dilated.shape)}, "
            f"padded={list(self.padded.shape)}, kernel={list(self.kernel.shape)}, "
            f"max_abs_diff={self.max_abs_diff:.3g})"
        )


def explain_conv_transpose(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> TransposedConvAsConv:
    """Show ``F.conv_transpose2d(input, weight, ...)`` (PyTorch's argument order) as
    zero-insertion, padding and a stride-1 ``conv2d`` with the flipped kernel, with every
    intermediate tensor."""
    from .nn import functional as F

    x = _as_tensor(input, "input")
    w = _as_tensor(weight, "weight")
    b = None if bias is None else _as_tensor(bias, "bias")
    ref = F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation)
    batched = x.ndim == 4
    xb = x if batched else x.unsqueeze(0)
    sh, sw = _pair(stride, "stride")
    ph, pw = _pair(padding, "padding")
    oph, opw = _pair(output_padding, "output_padding")
    dh, dw = _pair(dilation, "dilation")
    c_in, og, kh, kw = w.shape
    n, _, h, wd = xb.shape
    dil = Tensor._from_array(
        np.zeros((n, c_in, (h - 1) * sh + 1, (wd - 1) * sw + 1), dtype=x.dtype.np), x.dtype
    )
    dil._np()[:, :, ::sh, ::sw] = xb._np()
    top, left = dh * (kh - 1) - ph, dw * (kw - 1) - pw
    pads = (left, left + opw, top, top + oph)
    padded = F.pad(dil, list(pads))
    cg = c_in // groups
    kernel = (
        w.reshape(groups, cg, og, kh, kw).transpose(1, 2).reshape(groups * og, cg, kh, kw)
    ).flip(2, 3)
    if ref.numel() == 0:  # an empty output: no window fits the padded input
        out = Tensor._from_array(np.zeros((n, *ref.shape[-3:]), dtype=x.dtype.np), x.dtype)
    else:
        out = F.conv2d(padded, kernel, b, 1, 0, (dh, dw), groups)
    if not batched:
        out, dil, padded = out.squeeze(0), dil.squeeze(0), padded.squeeze(0)
    diff = float(np.max(np.abs(out._np().astype(np.float64) - ref._np()), initial=0.0))
    return TransposedConvAsConv(
        dilated=dil,
        padded=padded,
        kernel=kernel,
        output=out,
        conv_transpose2d=ref,
        stride=(sh, sw),
        pads=pads,
        max_abs_diff=diff,
    )
