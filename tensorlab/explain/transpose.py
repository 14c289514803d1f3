"""``explain_conv_transpose``: a transposed convolution as zero-insertion + padding + an ordinary
convolution with the flipped kernel."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._tensor import Tensor
from ..interop import accepts_torch
from ._common import as_tensor, pair

__all__ = ["TransposedConvAsConv", "explain_conv_transpose"]


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


@accepts_torch(layer="transposed")
def explain_conv_transpose(
    input, weight, bias=None, stride=1, padding=0, output_padding=0, groups: int = 1, dilation=1
) -> TransposedConvAsConv:
    """Show ``F.conv_transpose2d(input, weight, ...)`` (PyTorch's argument order) as
    zero-insertion, padding and a stride-1 ``conv2d`` with the flipped kernel, with every
    intermediate tensor. ``weight`` may be a ``ConvTranspose2d`` layer (``torch.nn``'s or
    tensorlab's) standing for its weight, bias and settings."""
    from ..nn import functional as F

    x = as_tensor(input)
    w = as_tensor(weight)
    b = None if bias is None else as_tensor(bias)
    ref = F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation)
    batched = x.ndim == 4
    xb = x if batched else x.unsqueeze(0)
    sh, sw = pair(stride)
    ph, pw = pair(padding)
    oph, opw = pair(output_padding)
    dh, dw = pair(dilation)
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
