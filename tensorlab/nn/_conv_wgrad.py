"""Weight gradient of a convolution: ``gw[o, c, *tap] = sum over images and output positions
of g[n, o, *pos] * xp[n, c, *(pos*stride + tap*dilation)]`` (``xp``: the zero-padded input).

Called through :func:`tensorlab.nn._conv_kernels.conv_weight_grad_nd` (which falls back to its
strided-window product when a result is not finite, see below). The ways
(:func:`wgrad_strategy`):

* ``"1x1"``       a 1x1 kernel reads one input pixel per output: the gradient is
                  ``sum_n g[n] @ x[n]^T`` on the pixels the stride keeps (no copies at all when
                  there is no padding or stride), one batched product.
* ``"depthwise"`` 2-d, stride 1, one input and one output channel per group: the ``kH`` row taps
                  go on the input's side (row-shifted slices of the padded image), the ``kW``
                  column taps on the gradient's side (column-shifted slices), one ``(kH x kW)``
                  product per channel and image (:func:`weight_grad_depthwise`).
* ``"rows"``      stride 1, more than one output channel per group, at least :data:`ROWS_MIN`
                  column rows: ``"flat"`` with only the
                  taps of the leading dims copied as columns (``C/groups*kH`` rows, not
                  ``C/groups*kH*kW``); column tap ``b`` multiplies the same columns by the
                  gradient shifted ``b*dw`` positions along its grid (a view: a row's valid
                  gradient moves into its own zero columns). ``kW`` products instead of one, a
                  ``kW``-times smaller copy (dilated 3x3: 1.9x torch against 2.3x flat).
* ``"phase"``     2-d with a stride, fewer than :data:`THIN` output and at least
                  :data:`PHASE_MIN_CG` input channels per group: one product per tap straight on
                  the phase images, no columns copied (:mod:`._conv_wgrad_phase`; grouped
                  stride-2 3x3: 1.1-1.25x faster than ``"flat"``, measured).
* ``"windows"``   strided kernels of many taps (more than :data:`MAX_STRIDED_TAPS`): the window
                  product of ``conv_weight_grad_nd`` (its copies are fewer and bigger).
* ``"flat"``      everything else, any number of dims: the *flat-slice* im2col. The padded input
                  is cut into its ``prod(stride)`` phase images (``xp[..., p::s, q::s]``; just
                  the padded input for stride 1) and flattened; output position ``(i, j)`` of
                  tap ``(a, b)`` then reads phase ``(a*dh % sh, b*dw % sw)`` at flat index
                  ``(i + a*dh // sh)*Wq + j + b*dw // sw``, so on a ``Ho x Wq`` grid every tap's
                  column is one contiguous slice (copied at memcpy speed). The output gradient is
                  laid out channels last on the same grid, zero on the ``Wq - Wo`` extra columns,
                  and the images are summed inside the product (its inner dimension is images x
                  positions): ``gw^T = cols (C*T, K) @ g (K, O)``, a layout OpenBLAS ran 1.3-2x
                  faster than ``g @ cols^T`` for thin gradients (measured here). With fewer than
                  :data:`THIN` output channels per group the product is split into a batch of
                  :data:`KSPLIT`-long slices of the inner dimension, summed afterwards (measured
                  10-20% faster for those shapes). With one output channel per group the gradient
                  stays channels first (matrix-vector products).

Memory: the columns of one chunk of images (or of rows of one image) stay below
:data:`WGRAD_CHUNK_BYTES`.

Non-finite inputs: the extra grid columns multiply input pixels by a zero gradient (and the
depthwise shifts multiply zeros by pixels a tap never reads); an ``inf`` there would give
``0 * inf = nan`` where PyTorch sums only what the tap reads. Any such pixel makes the result
non-finite, so the caller recomputes a non-finite result the exact (window) way.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._conv_wgrad_phase import weight_grad_phase

#: upper bound (bytes) for the columns of one chunk of positions
WGRAD_CHUNK_BYTES = 1 * 2**20

#: inner-dimension slice of the products with few output channels per group
KSPLIT = 256

#: below this many output channels per group the product is split (see the module notes)
THIN = 32

#: with a stride, kernels of more taps than this take the window product (one copy per tap and
#: chunk would be too many small copies: d2l's FCN upsampler, 64x64 taps with stride 32)
MAX_STRIDED_TAPS = 256

#: ``"rows"`` (stride 1) when the copied columns have at least this many rows: thinner ones
#: make the per-tap products too thin (CIFAR's 3 channels x 5 rows lost to ``"flat"``)
ROWS_MIN = 32

#: ``"phase"`` (strided 2-d) when each group has at least this many input channels (fewer: the
#: per-tap products are too thin: a stride-2 7x7 with 3 channels lost to ``"flat"``, and by
#: ~14% the 4x4 stride-2 DCGAN transposed convolution with 8)
PHASE_MIN_CG = 16

WGRAD_STRATEGIES = ("1x1", "depthwise", "rows", "flat", "windows", "phase")


def wgrad_strategy(w_shape, stride, groups) -> str:
    """Which kernel :func:`weight_grad` uses for a weight of shape ``w_shape`` (``"windows"``:
    none, the strided-window product of ``conv_weight_grad_nd``)."""
    kernel = tuple(w_shape[2:])
    if all(k == 1 for k in kernel):
        return "1x1"
    og = w_shape[0] // groups
    unit = all(s == 1 for s in stride)
    if len(kernel) == 2 and w_shape[1] == 1 and og == 1 and unit:
        return "depthwise"
    if not unit and int(np.prod(kernel, dtype=np.int64)) > MAX_STRIDED_TAPS:
        return "windows"
    if not unit and len(kernel) == 2 and og < THIN and w_shape[1] >= PHASE_MIN_CG:
        return "phase"
    rows = int(np.prod(kernel[:-1], dtype=np.int64))
    if unit and og > 1 and kernel[-1] > 1 and w_shape[1] * rows >= ROWS_MIN:
        return "rows"
    return "flat"


def weight_grad(g, x, w_shape, stride, padding, dilation, groups, strategy=None):
    """The gradient (shape ``w_shape``) of a convolution of ``x`` (N, C, *in) with symmetric
    zero ``padding``, given its output gradient ``g`` (N, O, *out); ``x`` may be larger than the
    windows reach (a transposed convolution's output_padding). ``strategy``: one of
    :data:`WGRAD_STRATEGIES` (tests; ``"depthwise"`` only where :func:`wgrad_strategy` allows
    it). None for ``"windows"``: the caller's window product is the way."""
    if strategy is None:
        strategy = wgrad_strategy(w_shape, stride, groups)
    if strategy == "windows":
        return None
    with np.errstate(invalid="ignore", over="ignore"):  # non-finite results are redone
        if strategy == "1x1":
            return weight_grad_1x1(g, x, w_shape, stride, padding, groups)
        if strategy == "depthwise":
            return weight_grad_depthwise(g, x, w_shape, padding, dilation)
        if strategy == "rows":
            return weight_grad_rows(g, x, w_shape, stride, padding, dilation, groups)
        if strategy == "phase" and len(w_shape) == 4:
            return weight_grad_phase(g, x, w_shape, stride, padding, dilation, groups)
        return weight_grad_flat(g, x, w_shape, stride, padding, dilation, groups)


def weight_grad_1x1(g, x, w_shape, stride, padding, groups):
    """1x1 kernel: output ``i`` reads input ``i*s - p``; outputs reading the padding add 0."""
    n = x.shape[0]
    o, cg = w_shape[:2]
    og = o // groups
    gs, xs = [slice(None)] * 2, [slice(None)] * 2
    for size, b, s, p in zip(x.shape[2:], g.shape[2:], stride, padding):
        i0 = -(-p // s)
        i1 = min(b, (size - 1 + p) // s + 1)
        if i1 <= i0:
            return np.zeros(w_shape, dtype=g.dtype)
        gs.append(slice(i0, i1))
        xs.append(slice(i0 * s - p, (i1 - 1) * s - p + 1, s))
    gv, xv = g[tuple(gs)], x[tuple(xs)]
    length = int(np.prod(gv.shape[2:], dtype=np.int64))
    g4 = gv.reshape(n, groups, og, length)
    x4 = xv.reshape(n, groups, cg, length)
    if length >= 64:  # per image products, summed
        gw = np.matmul(g4, x4.transpose(0, 1, 3, 2)).sum(axis=0)
    else:  # tiny images: one product with the images side by side
        a = g4.transpose(1, 2, 0, 3).reshape(groups, og, n * length)
        b = x4.transpose(1, 2, 0, 3).reshape(groups, cg, n * length)
        gw = np.matmul(a, b.transpose(0, 2, 1))
    return gw.reshape(w_shape)


def _phase_buffer(x, blocks, kernel, stride, padding, dilation):
    """The zero-padded input, restricted to what the windows read and cut into its
    ``prod(stride)`` phase images: (N, C, phases, prod(q)) and the phase grid ``q``."""
    n, c = x.shape[:2]
    nd = len(kernel)
    need = [(b - 1) * s + (k - 1) * d + 1 for b, s, k, d in zip(blocks, stride, kernel, dilation)]
    q = [-(-e // s) for e, s in zip(need, stride)]
    phases = int(np.prod(stride, dtype=np.int64))
    if phases == 1 and not any(padding) and list(x.shape[2:]) == need and x.flags.c_contiguous:
        return x.reshape(n, c, 1, -1), q
    buf = np.zeros((n, c, phases, *q), dtype=x.dtype)
    bv = buf.reshape(n, c, *stride, *q)
    for ph in np.ndindex(*stride):
        dst = [slice(None), slice(None), *ph]
        src = [slice(None), slice(None)]
        for k in range(nd):
            s, p, size = stride[k], padding[k], x.shape[2 + k]
            i0 = max(0, -(-(p - ph[k]) // s))  # first i with ph + s*i - p >= 0
            i1 = min(q[k], -(-(size + p - ph[k]) // s), -(-(need[k] - ph[k]) // s))
            if i1 <= i0:
                break
            dst.append(slice(i0, i1))
            src.append(slice(ph[k] + s * i0 - p, ph[k] + s * (i1 - 1) - p + 1, s))
        else:
            bv[tuple(dst)] = x[tuple(src)]
    return buf.reshape(n, c, phases, -1), q


def _chunks(n, first, slab, per_pos, budget):
    """(n0, n1, r0, r1): whole images side by side, or rows ``[r0, r1)`` of one image, so that
    ``per_pos`` bytes per grid position stay within ``budget`` (equal-sized chunks)."""
    grid = first * slab
    if per_pos * grid <= budget:
        nc = max(1, min(n, budget // (per_pos * grid)))
        nc = -(-n // -(-n // nc))
        return [(n0, min(n, n0 + nc), 0, first) for n0 in range(0, n, nc)]
    rows = max(1, budget // (per_pos * slab))
    rows = -(-first // -(-first // rows))
    return [
        (n0, n0 + 1, r0, min(first, r0 + rows)) for n0 in range(n) for r0 in range(0, first, rows)
    ]


def weight_grad_flat(g, x, w_shape, stride, padding, dilation, groups, budget=None, ksplit=None):
    """The ``"flat"`` strategy (module notes): flat-slice columns times the channels-last
    gradient, images summed inside the product."""
    n, c = x.shape[:2]
    o, cg = w_shape[:2]
    kernel = tuple(w_shape[2:])
    nd = len(kernel)
    og = o // groups
    blocks = tuple(g.shape[2:])
    taps = int(np.prod(kernel, dtype=np.int64))
    dt = g.dtype
    budget = WGRAD_CHUNK_BYTES if budget is None else budget
    ksplit = KSPLIT if ksplit is None else ksplit
    xf, q = _phase_buffer(x, blocks, kernel, stride, padding, dilation)
    qstr = [int(np.prod(q[k + 1 :], dtype=np.int64)) for k in range(nd)]
    slab = qstr[0]  # positions per output row (first dim)
    grid = blocks[0] * slab
    length = sum((b - 1) * st for b, st in zip(blocks, qstr)) + 1
    # the output gradient on the same grid, zero off the outputs: channels last (N, grid, O),
    # or (O, N, grid) when each group has one output channel (its product is a matrix-vector one)
    lanes = og == 1
    gsrc = np.moveaxis(g, 1, 0) if lanes else np.moveaxis(g, 1, -1)
    shape = (o, n, blocks[0], *q[1:]) if lanes else (n, blocks[0], *q[1:], o)
    gq = np.empty(shape, dtype=dt)
    first = 3 if lanes else 2
    for k in range(1, nd):  # zero the grid positions past the outputs (one slab per dim)
        if q[k] > blocks[k]:
            idx = [slice(None)] * gq.ndim
            idx[first + k - 1] = slice(blocks[k], None)
            gq[tuple(idx)] = 0
    inner = [slice(None)] * gq.ndim
    for k in range(1, nd):
        inner[first + k - 1] = slice(0, blocks[k])
    gq[tuple(inner)] = gsrc
    gq = gq.reshape(o, n, grid) if lanes else gq.reshape(n, grid, o)
    tap_list = []
    for tap in np.ndindex(*kernel):
        ph = off = 0
        for k in range(nd):
            r = tap[k] * dilation[k]
            ph = ph * stride[k] + r % stride[k]
            off += (r // stride[k]) * qstr[k]
        tap_list.append((ph, off))
    unit = all(s == 1 for s in stride)
    chunks = _chunks(n, blocks[0], slab, c * taps * xf.itemsize, budget)
    gw = np.zeros((groups, cg * taps, og), dtype=dt)
    cache: dict = {}
    if unit:
        s0, s1, _, s3 = xf.strides
        view = as_strided(  # view[n, c, *taps, p] = xf[n, c, 0, off(taps) + p]
            xf,
            shape=(n, c, *kernel, length),
            strides=(s0, s1, *(d * st * s3 for d, st in zip(dilation, qstr)), s3),
            writeable=False,
        )
    split = 1 < og < THIN
    for n0, n1, r0, r1 in chunks:
        m = n1 - n0
        span = (r1 - r0) * slab
        kk = m * span
        if (m, span) not in cache:
            cache[m, span] = np.empty((c, taps, m, span), dtype=dt)
        cols = cache[m, span]
        start = r0 * slab
        cl = min(span, length - start)
        if cl < span:
            cols[..., cl:] = 0
        if unit:
            src = view[n0:n1, ..., start : start + cl]
            cols.reshape(c, *kernel, m, span)[..., :cl] = np.moveaxis(src, 0, -2)
        else:
            for t, (ph, off) in enumerate(tap_list):
                src = xf[n0:n1, :, ph, off + start : off + start + cl]
                cols[:, t, :, :cl] = src.transpose(1, 0, 2)
        a = cols.reshape(groups, cg * taps, kk)
        if lanes:
            b = gq[:, n0:n1, start : start + span].reshape(groups, kk, 1)
            gw += np.matmul(a, b)
            continue
        b = gq[n0:n1, start : start + span].reshape(kk, groups, og).transpose(1, 0, 2)
        if split and kk >= 2 * ksplit:
            nch = kk // ksplit
            main = nch * ksplit
            a2 = a[:, :, :main].reshape(groups, cg * taps, nch, ksplit).transpose(0, 2, 1, 3)
            b2 = b[:, :main].reshape(groups, nch, ksplit, og)
            gw += np.matmul(a2, b2).sum(axis=1)
            if main < kk:
                gw += np.matmul(a[:, :, main:], b[:, main:])
        else:
            gw += np.matmul(a, b)
    return gw.reshape(groups, cg, taps, og).transpose(0, 3, 1, 2).reshape(w_shape)


def weight_grad_depthwise(g, x, w_shape, padding, dilation, budget=None):
    """2-d, stride 1, one input and one output channel per group (depthwise).

    ``gw[c, a, b] = sum over n, i, j of xp[n, c, i + a*dh, j + b*dw] * g[n, c, i, j]``. Per image
    (or chunk of its rows) the padded input rows are laid out flat with ``Wq = Wo + (kW-1)*dw``
    columns and the gradient on the same grid (zero on the extra columns); then
    ``xs[a] = xp_flat[a*dh*Wq:][:R*Wq]`` (row taps: contiguous slices) and
    ``gs[b] = g_flat[-b*dw:][:R*Wq]`` (column taps: the gradient shifted right, a row's shift
    only reaching its own zero columns) give ``gw[c] = xs @ gs^T``, one (kH x kW) product per
    channel.
    """
    n, c, h, wd = x.shape
    kh, kw = w_shape[2:]
    ho, wo = g.shape[2:]
    ph, pw = padding
    dh, dw = dilation
    dt = g.dtype
    budget = WGRAD_CHUNK_BYTES if budget is None else budget
    emax = (kw - 1) * dw
    wq = wo + emax  # padded columns some window reads
    cols = min(wd, wq - pw)  # input columns inside them
    per_row = c * (kh + kw + 2) * wq * x.itemsize
    rr = max(1, min(ho, budget // per_row))
    rr = -(-ho // -(-ho // rr))
    gw = np.zeros((c, kh, kw), dtype=dt)
    cache: dict = {}
    for r0 in range(0, ho, rr):
        r1 = min(ho, r0 + rr)
        m = (r1 - r0) * wq
        rows = r1 - r0 + (kh - 1) * dh  # padded rows r0 .. this chunk reads
        k0, k1 = max(0, ph - r0), min(rows, h + ph - r0)  # those holding input rows
        key = (r1 - r0, k0, k1)
        if key not in cache:  # zero where padding; the rest is overwritten image by image
            cache[key] = (
                np.zeros((c, rows, wq), dtype=dt),
                np.zeros((c, emax + m), dtype=dt),
                np.empty((c, kh, m), dtype=dt),
                np.empty((c, kw, m), dtype=dt),
            )
        xp, gp, xs, gs = cache[key]
        xpf = xp.reshape(c, rows * wq)
        gpv = gp[:, emax:].reshape(c, r1 - r0, wq)
        for n0 in range(n):
            if cols > 0 and k1 > k0:
                y0 = r0 + k0 - ph
                xp[:, k0:k1, pw : pw + cols] = x[n0, :, y0 : y0 + k1 - k0, :cols]
            gpv[:, :, :wo] = g[n0, :, r0:r1]
            gw += depthwise_taps(xs, gs, xpf, gp, dh * wq, dw, emax, m)
    return gw.reshape(w_shape)


def depthwise_taps(xs, gs, xpf, gp, row_step: int, dw: int, emax: int, m: int) -> np.ndarray:
    """One image's depthwise weight gradient (c, kH, kW) on a chunk of ``m`` grid positions:
    ``xs[:, a]`` gets the padded input's flat rows from row tap ``a`` (``row_step`` apart),
    ``gs[:, b]`` the gradient shifted for column tap ``b`` (``gp`` starts with ``emax`` zeros);
    then one product per channel. (Shared with :mod:`tensorlab.nn._conv_dwbwd`.)"""
    for a in range(xs.shape[1]):
        xs[:, a] = xpf[:, a * row_step : a * row_step + m]
    for b in range(gs.shape[1]):
        e = emax - b * dw
        gs[:, b] = gp[:, e : e + m]
    return np.matmul(xs, gs.transpose(0, 2, 1))


def weight_grad_rows(g, x, w_shape, stride, padding, dilation, groups, budget=None, ksplit=None):
    """The ``"rows"`` strategy: :func:`weight_grad_flat` with only the taps of the leading dims
    copied; each tap ``b`` of the last dim is the same columns times the gradient shifted by
    ``b*dw // sw`` grid positions (a view), one product per last-dim tap."""
    if len(w_shape) == 3:  # 1-d: a height-1 image (the grid needs rows to shift along)
        gw = weight_grad_rows(
            g[:, :, None],
            x[:, :, None],
            (*w_shape[:2], 1, w_shape[2]),
            [1, *stride],
            [0, *padding],
            [1, *dilation],
            groups,
            budget,
            ksplit,
        )
        return gw.reshape(w_shape)
    n, c = x.shape[:2]
    o, cg = w_shape[:2]
    kernel = tuple(w_shape[2:])
    nd = len(kernel)
    og = o // groups
    blocks = tuple(g.shape[2:])
    dt = g.dtype
    budget = WGRAD_CHUNK_BYTES if budget is None else budget
    ksplit = KSPLIT if ksplit is None else ksplit
    xf, q = _phase_buffer(x, blocks, kernel, stride, padding, dilation)
    qstr = [int(np.prod(q[k + 1 :], dtype=np.int64)) for k in range(nd)]
    slab = qstr[0]
    grid = blocks[0] * slab
    length = sum((b - 1) * st for b, st in zip(blocks, qstr)) + 1
    lead, kl, sl, dl = kernel[:-1], kernel[-1], stride[-1], dilation[-1]
    rows = int(np.prod(lead, dtype=np.int64))
    shifts = [(b * dl) // sl for b in range(kl)]
    phase_of = [(b * dl) % sl for b in range(kl)]
    emax = max(shifts)
    # the gradient channels last on the grid, after ``emax`` zero positions: (emax + N*grid, O)
    gq = np.zeros((emax + n * grid, o), dtype=dt)
    gv = gq[emax:].reshape(n, blocks[0], *q[1:], o)
    gv[(slice(None), slice(None), *(slice(0, b) for b in blocks[1:]))] = np.moveaxis(g, 1, -1)
    row_taps = []  # (phase index of the leading dims, flat offset)
    for tap in np.ndindex(*lead):
        ph = off = 0
        for k in range(nd - 1):
            r = tap[k] * dilation[k]
            ph = ph * stride[k] + r % stride[k]
            off += (r // stride[k]) * qstr[k]
        row_taps.append((ph, off))
    used = sorted(set(phase_of))
    chunks = _chunks(n, blocks[0], slab, c * rows * len(used) * xf.itemsize, budget)
    gw = np.zeros((groups, cg * rows, og, kl), dtype=dt)
    cache: dict = {}
    split = og < THIN
    for n0, n1, r0, r1 in chunks:
        m = n1 - n0
        span = (r1 - r0) * slab
        kk = m * span
        start = r0 * slab
        cl = min(span, length + emax - start)
        for qph in used:
            key = (m, span, qph)
            if key not in cache:
                cache[key] = np.empty((c, rows, m, span), dtype=dt)
            cols = cache[key]
            if cl < span:
                cols[..., cl:] = 0
            for t, (ph, off) in enumerate(row_taps):
                src = xf[n0:n1, :, ph * sl + qph, off + start : off + start + cl]
                cols[:, t, :, :cl] = src.transpose(1, 0, 2)
            a = cols.reshape(groups, cg * rows, kk)
            nch = kk // ksplit if split else 0
            main = nch * ksplit
            if nch >= 2:
                a2 = a[:, :, :main].reshape(groups, cg * rows, nch, ksplit).transpose(0, 2, 1, 3)
            for b in range(kl):
                if phase_of[b] != qph:
                    continue
                lo = emax + n0 * grid + start - shifts[b]
                bm = gq[lo : lo + kk].reshape(kk, groups, og).transpose(1, 0, 2)
                if nch >= 2:
                    b2 = bm[:, :main].reshape(groups, nch, ksplit, og)
                    res = np.matmul(a2, b2).sum(axis=1)
                    if main < kk:
                        res += np.matmul(a[:, :, main:], bm[:, main:])
                else:
                    res = np.matmul(a, bm)
                gw[..., b] += res
    gw = gw.reshape(groups, cg, rows, og, kl).transpose(0, 3, 1, 2, 4)
    return gw.reshape(w_shape)
