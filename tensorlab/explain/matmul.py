"""``explain_conv_matmul``: a convolution as unfold -> matmul -> view."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._tensor import Tensor
from ..interop import accepts_torch
from ._common import as_tensor

__all__ = ["ConvAsMatmul", "explain_conv_matmul"]


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


@accepts_torch(layer="conv")
def explain_conv_matmul(
    input, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1
) -> ConvAsMatmul:
    """Show ``F.conv2d(input, weight, bias, stride, padding, dilation, groups)`` as im2col
    (``F.unfold``) followed by one matrix product per group and a ``view``, with every
    intermediate tensor. Integer ``padding`` only (``'same'`` may pad unevenly). ``weight`` may be
    a ``Conv2d`` layer (``torch.nn``'s or tensorlab's) standing for its weight, bias and settings."""
    from ..nn import functional as F

    x = as_tensor(input)
    w = as_tensor(weight)
    b = None if bias is None else as_tensor(bias)
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
