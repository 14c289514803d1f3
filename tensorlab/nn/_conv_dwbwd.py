"""Both gradients of a stride-1 depthwise 2-d convolution in one pass (one input and one output
channel per group), sharing the gradient's shifted copies.

Called from :func:`tensorlab.autograd.conv.conv2d_backward` when both gradients are wanted;
plain numpy arrays in and out. Per image, on a grid of ``Wq = Wo + (kW-1)*dw`` columns (the
padded input's width):

* the output gradient is laid out on the grid (zero on the extra columns, ``(kW-1)*dw`` zeros
  before it) and copied once per column tap ``b``, shifted right by ``b*dw``: ``gs[c, b]``;
* **weight gradient** (as :func:`tensorlab.nn._conv_wgrad.weight_grad_depthwise`): the padded
  input's rows copied once per row tap ``a`` (``xs[c, a]``, contiguous slices), then
  ``gw[c] += xs[c] @ gs[c]^T``, one ``(kH x kW)`` product per channel;
* **input gradient** (the transposed convolution): ``T[c] = w[c] @ gs[c]`` gives every row
  tap's sums of the column taps, and row tap ``a``'s, shifted down by ``a*dh`` grid rows, are
  added into the padded input's rows (each one contiguous slice), then cropped.

The input gradient's separate way (the forward kernels with the flipped kernel) copies the
gradient's rows and column taps again: sharing them took ~8% off the two kernels on the
benchmark's depthwise 3x3 case (measured; a general version for one group, dilated 3x3, gained
only ~3% and lost with blocks of rows). Whole images only (the row taps of the input gradient cross
any block of rows): above :data:`DW_BWD_IMAGE_BYTES` of buffers per image, or with non-finite
weights (``inf * 0`` on the grid's zero columns), :func:`depthwise_backward` declines.
"""

from __future__ import annotations

import numpy as np

from ._conv_wgrad import depthwise_taps

#: largest buffers (bytes) of one image; bigger images take the two separate kernels
DW_BWD_IMAGE_BYTES = 4 * 2**20


def applies(x_shape, w_shape, stride, groups) -> bool:
    """Stride 1, 2-d, one input and one output channel per group."""
    return (
        len(w_shape) == 4
        and tuple(stride) == (1, 1)
        and w_shape[1] == 1
        and w_shape[0] == groups
        and x_shape[1] == groups
    )


def depthwise_backward(g, x, w, padding, dilation):
    """``(grad_input, grad_weight)`` of a stride-1 depthwise convolution of ``x`` (N, C, H, W)
    with ``w`` (C, 1, kH, kW), symmetric zero ``padding``, given the output gradient ``g``;
    None when declined (module docstring). The weight gradient may be non-finite (the caller
    redoes it the exact way)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    ho, wo = g.shape[2:]
    ph, pw = padding
    dh, dw = dilation
    dt = g.dtype
    emax = (kw - 1) * dw
    wq = wo + emax  # = wd + 2*pw: the padded input's width
    rows = ho + (kh - 1) * dh  # = h + 2*ph
    m = ho * wq
    per_image = c * (rows * wq + emax + m * (2 * kh + kw) + h * wq) * np.dtype(dt).itemsize
    if n == 0 or c == 0 or ho <= 0 or wo <= 0 or per_image > DW_BWD_IMAGE_BYTES:
        return None
    if wq != wd + 2 * pw or rows != h + 2 * ph or not np.isfinite(w).all():
        return None
    # row tap a's sums for the input rows ph .. ph + h - 1: acc[q] += t[a][q - delta_a] (flat
    # over all channels at once, channel stride big_m; the margins past each channel's m
    # positions of t stay zero, so a slice running into a neighbouring channel adds zeros)
    deltas = [(a * dh - ph) * wq for a in range(kh)]
    big_m = max(m + max(0, *deltas), h * wq + max(0, *(-d for d in deltas)))
    xp = np.zeros((c, rows, wq), dtype=dt)  # the padded input, zero where padding
    xpf = xp.reshape(c, rows * wq)
    gp = np.zeros((c, emax + m), dtype=dt)  # the gradient on the grid after emax zeros
    gpv = gp[:, emax:].reshape(c, ho, wq)
    xs = np.empty((c, kh, m), dtype=dt)
    gs = np.empty((c, kw, m), dtype=dt)
    t = np.zeros((kh, c, big_m), dtype=dt)
    tv = t[:, :, :m].transpose(1, 0, 2)  # (c, kh, m): the products' out=
    tf = t.reshape(kh, c * big_m)
    acc = np.empty(c * big_m, dtype=dt)
    gxv = acc.reshape(c, big_m)[:, : h * wq].reshape(c, h, wq)[:, :, pw : pw + wd]
    total = c * big_m
    wt = w.reshape(c, kh, kw)
    gw = np.zeros((c, kh, kw), dtype=dt)
    gx = np.empty((n, c, h, wd), dtype=dt)
    with np.errstate(invalid="ignore", over="ignore"):  # a non-finite gw is redone
        for n0 in range(n):
            xp[:, ph : ph + h, pw : pw + wd] = x[n0]
            gpv[:, :, :wo] = g[n0]
            gw += depthwise_taps(xs, gs, xpf, gp, dh * wq, dw, emax, m)
            np.matmul(wt, gs, out=tv)
            for a, d in enumerate(deltas):
                lo, hi = max(0, d), min(total, total + d)
                if a == 0:
                    acc[:lo] = 0
                    acc[hi:] = 0
                    np.copyto(acc[lo:hi], tf[a, lo - d : hi - d])
                else:
                    acc[lo:hi] += tf[a, lo - d : hi - d]
            gx[n0] = gxv
    return gx, gw.reshape(w.shape)
