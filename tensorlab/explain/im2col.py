"""Why ``F.unfold`` (im2col) has to copy: :func:`explain_im2col`."""

from __future__ import annotations

from .. import _layout as L
from .._tensor import Tensor
from ..interop import accepts_torch
from ._common import pair, positions, tup, window_lines
from .view import WindowExplanation

__all__ = ["explain_im2col"]


@accepts_torch(layer="conv")
def explain_im2col(x: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> WindowExplanation:
    """Why ``F.unfold(x, kernel_size, ...)`` (im2col) returns a fresh ``(N, C*kH*kW, L)`` tensor.

    The sliding windows themselves are a view (``x.unfold(2, ...).unfold(3, ...)``: 6-D, no
    copy, overlapping when stride < kernel). But a 3-D result needs *one* stride per dim: the
    row dim walks (c, i, j) and the column dim walks (output row, output column). One stride
    can walk (c, i, j) only if ``W == kW`` and ``H*W == kH*kW*...`` (the kernel covers whole
    rows and the whole image), and (oy, ox) only if ``stride_h * W == out_w * stride_w``;
    padding adds zeros that are nowhere in x's storage. PyTorch's ``F.unfold`` copies always,
    even when a view would have been possible (a 1x1 kernel). ``kernel_size`` may be a conv layer
    (``torch.nn``'s or tensorlab's), which gives the other settings too.
    """
    import numpy as np

    if x.ndim not in (3, 4):
        raise ValueError(
            f"explain_im2col expects a (C, H, W) or (N, C, H, W) tensor, got {x.ndim}-D"
        )
    batched = x.ndim == 4
    xb = x if batched else x.unsqueeze(0)
    n, c, h, w = xb.shape
    (kh, kw), (dh, dw) = pair(kernel_size), pair(dilation)
    (ph, pw), (sh, sw) = pair(padding), pair(stride)
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1  # extent of a dilated kernel
    oh, ow = (h + 2 * ph - eh) // sh + 1, (w + 2 * pw - ew) // sw + 1
    rows, cols = c * kh * kw, oh * ow
    lines = [
        f"F.unfold of a {tup(tuple(x.shape))} tensor with kernel ({kh}, {kw}), dilation "
        f"({dh}, {dw}), padding ({ph}, {pw}), stride ({sh}, {sw}) returns a new contiguous "
        f"tensor of shape {tup(((n,) if batched else ()) + (rows, cols))}: one column per "
        f"window ({oh} x {ow} = {cols} windows), one row per (channel, kernel row, kernel "
        f"column) = {c} x {kh} x {kw} = {rows}. It never shares memory with x."
    ]
    shape = (n, c, oh, ow, kh, kw)
    st = xb.stride()
    wstride = (st[0], st[1], sh * st[2], sw * st[3], dh * st[2], dw * st[3])
    offset = xb.storage_offset()
    reasons = []
    if ph or pw:
        reasons.append(
            f"padding ({ph}, {pw}) puts zeros into the windows, and those zeros are nowhere in "
            "x's storage: no strides over x can produce them."
        )
        pos = None
    else:
        pos = positions(shape, wstride, offset)
        taps = f"[..., ::{dh}, ::{dw}]" if (dh, dw) != (1, 1) else ""
        lines.append(
            f"Without padding the windows are a view: x.unfold(2, {eh}, {sh}).unfold(3, {ew}, "
            f"{sw}){taps} has shape {tup(shape)} and strides {tup(wstride)}: no copy"
            + (
                "; windows overlap (stride < kernel extent), so one element of x sits in "
                "several columns."
                if (sh < eh and oh > 1) or (sw < ew and ow > 1)
                else "."
            )
        )
        # rows: (c, i, j) need stride_c == kh * stride_i and stride_i == kw * stride_j
        row_dims = [(c, st[1]), (kh, dh * st[2]), (kw, dw * st[3])]
        col_dims = [(oh, sh * st[2]), (ow, sw * st[3])]
        for what, dims in (("row", row_dims), ("column", col_dims)):
            real = [(s, d) for s, d in dims if s != 1]
            for (_, d0), (s1, d1) in zip(real[:-1], real[1:]):
                if d0 != s1 * d1:
                    reasons.append(
                        f"one {what} stride would have to walk dims of strides {d0} and {d1} "
                        f"(sizes ... x {s1}), but {d0} != {s1} x {d1}: they do not follow one "
                        "another in memory."
                    )
                    break
    possible = not reasons
    if possible:
        lines.append(
            "Here one strided layout could hold the matrix (a view would have been possible), "
            "yet F.unfold still returns fresh memory: PyTorch's im2col always writes a new "
            "buffer."
        )
    else:
        lines.append(
            "No single set of strides over x's storage lays the windows out as that matrix: "
            + " ".join(r[0].upper() + r[1:] for r in reasons)
        )
    windows = []
    reads = {}
    overlap = False
    if pos is not None and pos.size:
        flat = pos.reshape(-1)
        values, counts = np.unique(flat, return_counts=True)
        reads = {int(v): int(k) for v, k in zip(values, counts) if k > 1}
        overlap = bool(reads)
        windows = window_lines(pos[0, 0], 2, limit=3)
    if not possible:
        dup = (
            ", duplicating the elements that overlapping windows share"
            if overlap or (ph or pw) and (sh < eh or sw < ew)
            else ""
        )
        lines.append(
            f"So im2col must copy: it writes every window into its own column{dup} (the copy "
            f"holds {n * rows * cols} numbers for x's {x.numel()})."
        )
    return WindowExplanation(
        "im2col",
        ((n,) if batched else ()) + (rows, cols),
        L.contiguous_strides(((n,) if batched else ()) + (rows, cols)),
        0,
        pos,
        windows,
        reads,
        overlap,
        False,
        lines,
        view_possible=possible,
    )
