"""Weight gradient of a strided 2-d convolution without im2col columns (``"phase"``, called from
:func:`tensorlab.nn._conv_wgrad.weight_grad`).

The zero-padded input is cut once into its ``sh*sw`` phase images (``xp[:, :, p::sh, q::sw]``),
laid out channel by channel with the images of the batch one after the other:
``buf[c, phase, n*Q + pos]`` (``Q = q0*q1`` pixels per phase image). A tap ``(a, b)`` reads phase
``(a*dh % sh, b*dw % sw)`` at the flat offset ``(a*dh // sh)*q1 + b*dw // sw`` from the output's
position ``i*q1 + j``, so on that ``q0 x q1`` grid the tap's columns for *all* images are one
strided view of ``buf``: rows ``c`` (stride: a channel), inner dimension ``n*Q`` contiguous. The
output gradient goes channels last on the same grid (zero off the outputs), and each tap is one
product per group, ``(C/groups x N*Q) @ (N*Q x O/groups)``, straight on the views: no column
copies at all (the ``"flat"`` strategy copies ``kH*kW`` columns of every input pixel, which for a
stride-2 3x3 grouped convolution cost as much as its products).

Non-finite inputs: grid positions past the outputs multiply input pixels by a zero gradient;
any ``inf`` there gives ``nan``, and the caller redoes a non-finite result the exact way.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided


def weight_grad_phase(g, x, w_shape, stride, padding, dilation, groups):
    """The ``"phase"`` strategy (module docstring): 2-d, any stride, dilation and groups."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w_shape
    og = o // groups
    ho, wo = g.shape[2:]
    sh, sw = stride
    ph, pw = padding
    dh, dw = dilation
    dt = g.dtype
    need_h = (ho - 1) * sh + (kh - 1) * dh + 1
    need_w = (wo - 1) * sw + (kw - 1) * dw + 1
    q0, q1 = -(-need_h // sh), -(-need_w // sw)
    big_q = q0 * q1
    taps = []  # (phase, flat offset) per tap (a, b)
    for a in range(kh):
        for b in range(kw):
            r, s = a * dh, b * dw
            taps.append(((r % sh) * sw + s % sw, (r // sh) * q1 + s // sw))
    k = n * big_q
    slack = max(off for _, off in taps)
    phases = sh * sw
    buf = np.empty((c, phases, k + slack), dtype=dt)
    buf[:, :, k:] = 0
    bv = buf[:, :, :k].reshape(c, sh, sw, n, q0, q1)
    xt = x.transpose(1, 0, 2, 3)  # (C, N, H, W)
    for rp in range(sh):
        # phase rows i: padded row sh*i + rp = input row sh*i + rp - ph, inside [0, h)
        i0 = min(q0, max(0, -(-(ph - rp) // sh)))
        i1 = max(i0, min(q0, -(-(h + ph - rp) // sh)))
        for cp in range(sw):
            j0 = min(q1, max(0, -(-(pw - cp) // sw)))
            j1 = max(j0, min(q1, -(-(wd + pw - cp) // sw)))
            dst = bv[:, rp, cp]  # (C, N, q0, q1): zero where no input pixel lands
            dst[:, :, :i0] = 0
            dst[:, :, i1:] = 0
            dst[:, :, i0:i1, :j0] = 0
            dst[:, :, i0:i1, j1:] = 0
            if i1 > i0 and j1 > j0:
                y0, x0 = sh * i0 + rp - ph, sw * j0 + cp - pw
                dst[:, :, i0:i1, j0:j1] = xt[
                    :,
                    :,
                    y0 : y0 + sh * (i1 - i0 - 1) + 1 : sh,
                    x0 : x0 + sw * (j1 - j0 - 1) + 1 : sw,
                ]
    # the output gradient channels last on the grid: (N*Q, O), zero off the outputs
    gq = np.empty((n, q0, q1, o), dtype=dt)
    if q0 > ho:
        gq[:, ho:] = 0
    if q1 > wo:
        gq[:, :ho, wo:] = 0
    gq[:, :ho, :wo] = g.transpose(0, 2, 3, 1)
    gb = gq.reshape(k, groups, og).transpose(1, 0, 2)  # (groups, K, og)
    s_c, s_p, s_k = buf.strides
    gw = np.empty((kh * kw, groups, cg, og), dtype=dt)
    for t, (phase, off) in enumerate(taps):
        a = as_strided(
            buf[:, phase, off:],
            shape=(groups, cg, k),
            strides=(cg * s_c, s_c, s_k),
            writeable=False,
        )
        np.matmul(a, gb, out=gw[t])
    # (taps, groups, cg, og) -> (groups, og, cg, taps)
    gw = gw.transpose(1, 3, 2, 0).reshape(w_shape)
    return np.ascontiguousarray(gw)
