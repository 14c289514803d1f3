"""``explain_conv``: which pixels and weights make one output element of a convolution.

For ``out[n, o, i, j]`` of ``conv2d`` (or of an ``nn.Conv2d``) it lists every product
``input * weight`` that is summed, including the "hallucinated" pixels outside the image that the
padding invents (and, for ``reflect``/``replicate``/``circular`` padding, which real pixel each of
them copies), the group and the input channels that contribute, and writes the sum out.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from .. import _dtype as D
from ..interop import accepts_torch
from ._common import as_tensor, pair

__all__ = ["ConvExplanation", "ConvTerm", "explain_conv"]

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
    ph, pw = pair(padding)
    return (ph, ph, pw, pw)


@accepts_torch(layer="conv")
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

    ``weight`` may be a ``Conv2d`` layer (``torch.nn``'s or tensorlab's): its weight, bias and
    settings (including ``padding_mode``) are used and the other arguments must be left out;
    ``input`` may be a torch tensor.
    ``index`` is ``(n, o, i, j)`` for a batched input, ``(o, i, j)`` for an unbatched one.
    The convolution itself is run first, so invalid settings raise PyTorch's errors, and
    ``output_value`` is what ``conv2d`` computes (``total`` is the same sum done term by term).
    """
    from ..nn import functional as F

    if padding_mode not in _PAD_MODE:
        raise ValueError(
            "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but "
            f"got padding_mode='{padding_mode}'"
        )
    x = as_tensor(input)
    w = as_tensor(weight)
    b = None if bias is None else as_tensor(bias)
    if w.ndim != 4:
        raise ValueError(
            f"explain_conv explains 2-d convolutions (a 4-d weight); this weight is {w.ndim}-d"
        )
    kernel = tuple(w.shape[2:])
    if padding_mode == "zeros":
        out = F.conv2d(x, w, b, stride, padding, dilation, groups)
    else:
        dil = pair(dilation)
        t, bt, lf, r = _side_padding(padding, kernel, dil)
        xp = F.pad(x, [lf, r, t, bt], mode=padding_mode)
        out = F.conv2d(xp, w, b, stride, 0, dilation, groups)
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
    sh, sw = pair(stride)
    dh, dw = pair(dilation)
    top, bottom, left, right = _side_padding(padding, (kh, kw), (dh, dw))
    from ..nn._conv_kernels import pad_source_index

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
