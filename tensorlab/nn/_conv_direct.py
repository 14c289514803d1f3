"""Convolution kernels that read the *unpadded* input (forward), on numpy arrays only.

:func:`conv_scatter` (strategy ``"scatter"``, stride 1, outputs wider than the input: the
stride-1 input gradients) turns the loop around: every input pixel times every tap (the input's
``kW`` shifted copies as the matrix) in one product, each kernel row's contributions added into
the output as shifted contiguous runs.

:func:`conv_flat_clip` (strategy ``"flat-clip"``) builds the im2col matrix of a convolution from
long contiguous slices of the flattened input: no zero-padded copy of the input with padded rows
*and columns*, no crop of the product when the output is as wide as the input (``'same'``).

**Stride 1.** The output grid has the input's row length ``W``: output ``(i, j)`` sits at
``q = i*W + j`` and kernel tap ``(a, b)`` reads the flat image at ``q + (a*dh - top)*W + b*dw - left``
(one contiguous slice per tap and channel). Where a tap reads outside the image it must read zero:

* rows above or below the image: a chunk whose reads reach them reads a copy of just its rows
  with zeros around (long runs only); the others read the input itself;
* columns left or right of the image are the same few grid columns ``j`` in every row (the slice
  wrapped into the neighbouring row there): they are set to zero after the copy, through views
  made once per buffer (one per wrapped column, long strided runs).

**Stride s > 1.** The input is first split into its ``sh*sw`` phase images ``x[..., p::sh, q::sw]``
(zero-extended to ``ceil(H/sh) x ceil(W/sw)``); tap ``(a, b)`` reads one phase image, shifted by
whole phase rows and columns, so the same construction applies with the phase image's row length
(without the kernel's zero-padding to a multiple of the stride that :func:`phase_split` needs).
Rows outside the phase image are skipped by the copies (the buffer is zeroed once and reused).

**Kernel rows as shifts** (:func:`_rowfold`; depthwise, and one group with few output channels):
kernel row ``a`` reads what row 0 reads ``a*dh`` image rows further on, so the matrix holds the
kernel's first row only (over ``(kH-1)*dh`` more rows) and the product has ``kH`` times more rows
(better for the BLAS kernel when the output channels are few); each kernel row's partial sums,
shifted by whole rows, are then one contiguous slice for all channels at once.

The buffer holds (images, groups, channels, kernel rows, kernel columns, positions): all groups
are filled by the same copies and one batched ``matmul`` per chunk writes the product straight
into the output when the grid is as wide as the output. A chunk is a few images, one image, or a
block of rows of a big one, sized by the budgets below (measured on the benchmark suite, one
thread: per-call overhead against the L2 cache).
"""

from __future__ import annotations

import numpy as np

#: im2col buffer (bytes, all groups) of one image at most for a whole image at a time; a bigger
#: image goes by blocks of rows of at most :data:`CLIP_BLOCK_BYTES` (the matrix product runs fastest
#: with its operand in the L2 cache, measured on the benchmark suite)
CLIP_IMAGE_BYTES = 2**20
CLIP_BLOCK_BYTES = 2**19
#: several small images share one buffer up to this size (fewer, longer calls); one image at a time
#: writes its product straight into the output, which pays from about half of it
CLIP_BATCH_BYTES = 5 * 2**17


#: buffers (bytes) of one image or block of rows in the row-fold kernel (:func:`_rowfold`)
ROWFOLD_BYTES = 2**21


def use_rowfold(c: int, o: int, kh: int, kw: int) -> bool:
    """One-group convolutions that go through :func:`_rowfold` (measured: few output channels)."""
    return o <= 32 and c * kw >= 32


def _grid_width(w_in: int, stride: int) -> int:
    return -(-w_in // stride)


def flat_clip_fits(w_in: int, wo: int, stride: int = 1) -> bool:
    """``flat-clip`` needs an output no wider than the (phase) image: its rows are the grid's."""
    return wo <= _grid_width(w_in, stride)


def _chunk(n: int, bytes_per_image: int, budget: int | None) -> int:
    """Images per chunk (equal chunks), their buffer within ``budget`` (:data:`CLIP_BATCH_BYTES`)."""
    budget = CLIP_BATCH_BYTES if budget is None else budget
    most = max(1, min(n, budget // max(1, bytes_per_image)))
    chunks = -(-n // most)
    return -(-n // chunks)


def _wraps(kw: int, col_shift, wo: int, w_in: int):
    """Per kernel column ``b``: output columns ``[0, left)`` and ``[right, wo)`` whose read falls
    left or right of the image row (column ``j`` reads column ``j + col_shift(b)``). Grid columns
    from ``wo`` on are cropped: they may keep what they read."""
    out = []
    for b in range(kw):
        s = col_shift(b)
        left = min(max(-s, 0), wo)
        right = max(min(w_in - s, wo), left)
        if left > 0 or right < wo:
            out.append((b, left, right))
    return out


def conv_flat_clip(x, w, stride, padding, dilation, groups, out, chunk_bytes: int | None = None):
    """Convolution of ``x`` (N, C, H, W) into ``out`` (N, O, Ho, Wo), no bias.

    ``padding`` is ``(top, bottom, left, right)``; requires :func:`flat_clip_fits`.
    """
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    pt, _, pl, _ = padding
    dh, dw = dilation
    wg = w.reshape(groups, og, cg * kh * kw)
    if tuple(stride) != (1, 1):
        _strided(x, wg, (kh, kw), stride, (pt, pl), dilation, out, chunk_bytes)
        return
    wraps = _wraps(kw, lambda b: b * dw - pl, out.shape[3], wd)
    xf = np.ascontiguousarray(x).reshape(n, c, h * wd)
    depthwise = cg == 1 and og == 1 and groups > 1
    if kh > 1 and (depthwise or (groups == 1 and use_rowfold(c, o, kh, kw))):
        budget = ROWFOLD_BYTES if chunk_bytes is None else chunk_bytes
        _rowfold(xf, (pt, pl), w, groups, dilation, wd, wraps, out, budget)
    else:
        _rows(xf, (pt, pl), wg, (kh, kw), dilation, wd, wraps, out, chunk_bytes)


def _strided(x, wg, kernel, stride, pads, dilation, out, budget):
    """Stride > 1: each tap copied from its phase image, whole images per chunk."""
    n, c, h, wd = x.shape
    groups, og, k = wg.shape
    o = groups * og
    kh, kw = kernel
    cg = k // (kh * kw)
    sh, sw = stride
    pt, pl = pads
    dh, dw = dilation
    ho, wo = out.shape[2:]
    taps = kh * kw
    hq, r = -(-h // sh), -(-wd // sw)
    p = ho * r
    xv = _phases(x, sh, sw, hq, r)  # (N, C, sh*sw, hq*r)
    fills = []  # (tap, phase image, offset, grid positions [lo, hi) it copies)
    for a in range(kh):
        ph, da = divmod(a * dh - pt, sh)[::-1]
        q0, q1 = max(0, -da) * r, min(ho, hq - da) * r
        for b in range(kw):
            qw, db = divmod(b * dw - pl, sw)[::-1]
            off = da * r + db
            lo, hi = max(q0, -off), min(q1, hq * r - off)
            fills.append((a * kw + b, ph * sw + qw, off, lo, hi))
    wraps = _wraps(kw, lambda b: (b * dw - pl) // sw, wo, r)
    chunk = _chunk(n, groups * k * p * x.itemsize, budget)
    bufs: dict[int, tuple] = {}
    for n0 in range(0, n, chunk):
        n1 = min(n, n0 + chunk)
        nb = n1 - n0
        if nb not in bufs:  # zeroed once: the rows a tap never copies stay zero
            cols = np.zeros((nb, groups, cg, kh, kw, p), dtype=x.dtype)
            bufs[nb] = cols, _wrap_views(cols, r, wraps, wo)
        cols, zero = bufs[nb]
        src = xv[n0:n1].reshape(nb, groups, cg, -1, xv.shape[-1])
        flat = cols.reshape(nb, groups, cg, taps, p)
        for t, plane, off, lo, hi in fills:
            if hi > lo:
                flat[:, :, :, t, lo:hi] = src[:, :, :, plane, lo + off : hi + off]
        for v in zero:
            v.fill(0)
        mat = cols.reshape(nb, groups, k, p)
        if wo == r:  # straight into the output
            np.matmul(wg, mat, out=out[n0:n1].reshape(nb, groups, og, p))
        else:
            out[n0:n1] = np.matmul(wg, mat).reshape(nb, o, ho, r)[..., :wo]


def _wrap_views(cols, r, wraps, wo):
    """Views of the output columns whose reads wrapped, to be zeroed after each copy into ``cols``
    (images, G, C/G, kH, kW, rows*r). Columns from ``wo`` on are cropped later: they keep what
    they read.

    One column ``j`` of one kernel column ``b`` is a 2-d strided view (images, channels and kernel
    rows, then rows, a uniform stride ``r`` apart): long inner loops instead of one or two
    elements each, and views made once per buffer."""
    kw, length = cols.shape[-2:]
    item = cols.itemsize
    shape = (cols.size // (kw * length), length // r)
    strides = (kw * length * item, r * item)
    return [
        np.ndarray(shape, cols.dtype, cols, (b * length + j) * item, strides)
        for b, left, right in wraps
        for j in (*range(left), *range(right, wo))
    ]


def _rows(xf, pads, wg, kernel, dilation, r, wraps, out, budget):
    """Stride 1 on the flat input ``xf`` (N, C, H*W): im2col by one strided copy per chunk, a
    chunk being several images or, when one image is over budget, a block of its rows.

    The copy reads the image with ``top`` zero rows above it and ``left`` zeros before it (and
    zeros after it): a chunk whose reads stay inside the image reads ``xf`` itself, the others a
    zero-padded copy of just the rows they read (long runs only)."""
    n, c, hr = xf.shape
    groups, og, k = wg.shape
    kh, kw = kernel
    dh, dw = dilation
    cg = k // (kh * kw)
    ho = out.shape[2]
    pt, pl = pads
    per_row = groups * k * r * xf.itemsize
    if per_row * ho <= (CLIP_IMAGE_BYTES if budget is None else budget):
        chunk, block = _chunk(n, per_row * ho, budget), ho
    else:
        rows = max(1, (CLIP_BLOCK_BYTES if budget is None else budget) // per_row)
        chunk, block = 1, -(-ho // -(-ho // rows))
    bufs: dict[tuple[int, int], tuple] = {}
    padded: dict = {}
    wo = out.shape[3]
    outg = out.reshape(n, groups, og, ho * r) if wo == r else None
    for n0 in range(0, n, chunk):
        nb = min(n, n0 + chunk) - n0
        for i0 in range(0, ho, block):
            i1 = min(ho, i0 + block)
            key = nb, (i1 - i0) * r
            if key not in bufs:
                cols = np.empty((nb, groups, cg, kh, kw, key[1]), xf.dtype)
                mat = cols.reshape(nb, groups, k, key[1])
                bufs[key] = cols, mat, _wrap_views(cols, r, wraps, wo)
            cols, mat, zero = bufs[key]
            # the flat input the block reads, from element ``first`` of the padded image on
            first = (i0 - pt) * r - pl
            need = (i1 - i0 + (kh - 1) * dh) * r + (kw - 1) * dw
            src, base = _padded_rows(xf, n0, nb, first, need, padded)
            s0, s1, s2 = src.strides
            strides = (s0, cg * s1, s1, dh * r * s2, dw * s2, s2)
            # every tap's rows at once: an (images, G, C/G, kH, kW, length) view of the input
            cols[...] = np.ndarray(cols.shape, src.dtype, src, base, strides)
            for v in zero:
                v.fill(0)
            # the product, straight into the output when its rows are whole output rows
            if outg is not None and (block == ho or (groups == 1 and nb == 1)):
                np.matmul(wg, mat, out=outg[n0 : n0 + nb, :, :, i0 * r : i1 * r])
            else:
                res = np.matmul(wg, mat).reshape(nb, groups * og, i1 - i0, r)
                out[n0 : n0 + nb, :, i0:i1] = res[..., :wo]


def _padded_rows(xf, n0, nb, first, need, cache):
    """``need`` elements of the flat images ``n0 : n0+nb`` from element ``first`` on (negative:
    before the image), zeros outside the image: ``(array, byte offset)``, the input itself when
    the range lies inside it, else a copy in a buffer zeroed once (only the image part changes)."""
    hr = xf.shape[2]
    if first >= 0 and first + need <= hr:
        return xf, n0 * xf.strides[0] + first * xf.itemsize
    lo = min(max(0, -first), need)
    hi = max(min(need, hr - first), lo)
    src = cache.get((nb, need, lo, hi))
    if src is None:
        src = cache[nb, need, lo, hi] = np.zeros((nb, xf.shape[1], need), xf.dtype)
    src[..., lo:hi] = xf[n0 : n0 + nb, :, first + lo : first + hi]
    return src, 0


def _rowfold(xf, pads, w, groups, dilation, r, wraps, out, budget):
    """Stride 1, one group or one input and one output channel per group: im2col of the kernel's
    first row only, the other kernel rows added as whole-row shifts of the product.

    Per image (or block of output rows), row ``(c, b)`` of the matrix is the flat (row-padded)
    image from ``b*dw`` on, over the output rows and the ``(kH-1)*dh`` rows below them (``S``
    positions). One product gives every kernel row's partial sums, laid out (kH, O, S): kernel
    row ``a``'s sums, shifted by ``a*dh`` rows, are one contiguous slice for all output channels
    at once (the tails past a channel's outputs are thrown away). ``1/kH`` of the copying of the
    full im2col, and a product with ``kH`` times more rows and fewer columns (for one group: a
    better shape for the BLAS kernel when there are few output channels).
    """
    n, c, _ = xf.shape
    o, cg, kh, kw = w.shape
    dh, dw = dilation
    pt, pl = pads
    ho, wo = out.shape[2:]
    shift = dh * r
    reach = (kh - 1) * dh
    if groups == 1:  # (kH*O, C*kW): row a*O + o, column ch*kW + b holds w[o, ch, a, b]
        wt = np.ascontiguousarray(w.transpose(2, 0, 1, 3)).reshape(kh * o, c * kw)
    else:  # depthwise: (C, kH, kW), one product per channel written as (kH, C, S)
        wt = w.reshape(c, kh, kw)
    per_row = (c * kw + kh * o + o) * r * xf.itemsize
    rows = max(1, budget // per_row - reach)
    if rows < ho:  # blocks of rows of one image
        chunk, block = 1, -(-ho // -(-ho // rows))
    else:  # whole images, several when they are small (measured: two 750 kB ones lose)
        chunk, block = _chunk(n, per_row * (ho + reach), min(budget, CLIP_BATCH_BYTES)), ho
    bufs: dict[tuple[int, int], tuple] = {}
    cache: dict = {}
    outf = out.reshape(n, o, ho * r) if wo == r else None
    for n0 in range(0, n, chunk):
        nb = min(n, n0 + chunk) - n0
        for i0 in range(0, ho, block):
            i1 = min(ho, i0 + block)
            span = (i1 - i0 + reach) * r
            if (nb, span) not in bufs:
                views = _rowfold_buffers(
                    nb, c, o, (kh, kw), span, (i1 - i0) * r, shift, xf.dtype, groups
                )
                bufs[nb, span] = (*views, _wrap_views(views[0], r, wraps, wo))
            cols, mat, prod, terms, acc, res, zero = bufs[nb, span]
            src, base = _padded_rows(xf, n0, nb, (i0 - pt) * r - pl, span + (kw - 1) * dw, cache)
            s0, s1, s2 = src.strides
            cols[...] = np.ndarray(cols.shape, src.dtype, src, base, (s0, s1, dw * s2, s2))
            for v in zero:
                v.fill(0)
            np.matmul(wt, mat, out=prod)
            if len(terms) == 1:
                np.copyto(acc, terms[0])
            else:
                np.add(terms[0], terms[1], out=acc)
            for t in terms[2:]:
                acc += t
            if outf is not None:
                outf[n0 : n0 + nb, :, i0 * r : i1 * r] = res
            else:
                out[n0 : n0 + nb, :, i0:i1] = res.reshape(nb, o, i1 - i0, r)[..., :wo]


def _rowfold_buffers(nb, c, o, kernel, span, length, shift, dtype, groups):
    """The buffers of :func:`_rowfold` for ``nb`` images of ``span`` positions (``length`` of
    them are output rows), with the views used on every chunk: the matrix, the product's
    ``out=``, each kernel row's shifted slice of the product, their sum and its output rows."""
    kh, kw = kernel
    cols = np.empty((nb, c, kw, span), dtype)
    part = np.empty((nb, kh, o, span), dtype)
    grid = np.empty((nb, o, span), dtype)
    if groups == 1:
        mat, prod = cols.reshape(nb, c * kw, span), part.reshape(nb, kh * o, span)
    else:  # one (kH, S) product per image and channel
        mat, prod = cols, part.transpose(0, 2, 1, 3)
    m = (o - 1) * span + length
    pf = part.reshape(nb, kh * o * span)
    step = o * span + shift
    terms = [pf[:, a * step : a * step + m] for a in range(kh)]
    return cols, mat, prod, terms, grid.reshape(nb, o * span)[:, :m], grid[:, :, :length]


def _phases(x, sh, sw, hq, wq):
    """``(N, C, sh*sw, hq*wq)``: plane ``p*sw + q`` is ``x[..., p::sh, q::sw]``, zero-extended."""
    n, c, h, wd = x.shape
    if h == hq * sh and wd == wq * sw:
        xs = x.reshape(n, c, hq, sh, wq, sw).transpose(0, 1, 3, 5, 2, 4)
        return np.ascontiguousarray(xs).reshape(n, c, sh * sw, hq * wq)
    xq = np.zeros((n, c, sh, sw, hq, wq), dtype=x.dtype)
    for p in range(sh):
        for q in range(sw):
            ph = x[:, :, p::sh, q::sw]
            xq[:, :, p, q, : ph.shape[2], : ph.shape[3]] = ph
    return xq.reshape(n, c, sh * sw, hq * wq)


#: buffers (bytes: the products, the input's rows on the wider grid, the sums) of one chunk of
#: images in :func:`conv_scatter`
SCATTER_BYTES = 2**20


def scatter_fits(w: np.ndarray, stride) -> bool:
    """``scatter`` runs stride 1 with finite weights (a zero it adds from the grid's padding
    columns must stay a zero: ``0 * inf`` would not)."""
    return tuple(stride) == (1, 1) and (w.dtype.kind not in "fc" or bool(np.isfinite(w).all()))


def use_scatter(c_in_g: int, c_out_g: int, kh: int, kw: int) -> bool:
    """When the output is wider than the input (``flat-clip`` does not fit): ``scatter`` if it
    moves less data than the im2col of ``flat-cols`` (its ``kW`` shifted copies plus ``kH`` rows
    of sums per output channel, against ``kH*kW`` copies). Measured, one thread: LeNet's conv-2
    input gradient (6 of 16 channels, 5x5) ~3x faster, 16 -> 16 3x3 ~1.2x, 16 -> 32 5x5 ~1.6x,
    8 -> 32 3x3 (which this rule leaves to ``flat-cols``) 1.25x slower."""
    return c_in_g * kw + kh * c_out_g < c_in_g * kh * kw


def conv_scatter(x, w, padding, dilation, groups, out, budget: int | None = None):
    """Stride 1: every input pixel times every tap, added into the output (strategy
    ``"scatter"``, for an output wider than the input: padding beyond the kernel's reach, as
    the stride-1 transposed convolutions and input gradients ask).

    The input sits on a grid with rows ``R = W + (kW-1)*dW`` long (zero columns after each row),
    in a flat buffer with ``(kW-1)*dW`` zeros before and after. Its ``kW`` copies shifted by
    ``b*dW`` (one strided copy, ``kW`` times the input: ``C/G*kW`` rows) times the weights as
    ``(kH*O/G, C/G*kW)`` give, per kernel row ``a``, the contributions of all its taps at once
    (tap ``(a, b)`` reads its pixel ``(kW-1-b)*dW`` positions back). Kernel row ``a``'s
    contributions land ``(kH-1-a)*dH`` rows further on in the full correlation (``H+(kH-1)*dH``
    rows of ``R``): one contiguous run per channel and kernel row, never wrapping into the next
    row (the grid's zero columns take the overflow). The output is the full correlation cropped
    (or zero-extended) by the padding. Against ``flat-cols``: no ``kH*kW``-fold im2col of the
    padded image, ``kH`` adds instead, which pays when the output has few channels (measured:
    LeNet's conv-2 input gradient ~3.5x faster).
    """
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    dh, dw = dilation
    pt, _, pl, _ = padding
    ho, wo = out.shape[2:]
    lead = (kw - 1) * dw
    r = wd + lead
    hf = h + (kh - 1) * dh
    length = h * r
    span = length + lead  # the positions of each kernel row's products
    # (G, kH*og, cg*kW): row a*og + j, column ch*kW + b holds w[g*og + j, ch, a, b]
    wt = np.ascontiguousarray(w.reshape(groups, og, cg, kh, kw).transpose(0, 3, 1, 2, 4))
    wt = wt.reshape(groups, kh * og, cg * kw)
    per_image = c * (length + 2 * lead) + c * kw * span + kh * o * span + o * (hf * r + lead)
    chunk = _chunk(n, per_image * x.itemsize, SCATTER_BYTES if budget is None else budget)
    # the output rows/columns of the full correlation: out[i, j] = full[i + top, j + left]
    top, left = (kh - 1) * dh - pt, (kw - 1) * dw - pl
    i0, i1 = max(0, -top), min(ho, hf - top)
    j0, j1 = max(0, -left), min(wo, r - left)
    if i0 > 0 or i1 < ho or j0 > 0 or j1 < wo or x.size == 0:
        out[...] = 0  # padding beyond the full correlation (or nothing to add)
    if i1 <= i0 or j1 <= j0 or x.size == 0:
        return
    bufs: dict[int, tuple] = {}
    for n0 in range(0, n, chunk):
        nb = min(n, n0 + chunk) - n0
        if nb not in bufs:
            grid = np.zeros((nb, c, length + 2 * lead), x.dtype)  # zeroed once
            cols = np.empty((nb, c, kw, span), x.dtype)
            prod = np.empty((nb, groups, kh * og, span), x.dtype)
            full = np.empty((nb, o, hf * r + lead), x.dtype)
            bufs[nb] = grid, cols, prod, full
        grid, cols, prod, full = bufs[nb]
        grid[:, :, lead : lead + length].reshape(nb, c, h, r)[..., :wd] = x[n0 : n0 + nb]
        s0, s1, s2 = grid.strides
        cols[...] = np.ndarray(cols.shape, grid.dtype, grid, 0, (s0, s1, dw * s2, s2))
        np.matmul(wt, cols.reshape(nb, groups, cg * kw, span), out=prod)
        terms = prod.reshape(nb, groups, kh, og, span)
        sums = full.reshape(nb, groups, og, hf * r + lead)
        # the last kernel row has no shift: copied; the rows below its reach start at zero
        np.copyto(sums[..., :span], terms[:, :, kh - 1])
        sums[..., span:] = 0
        for a in range(kh - 1):
            shift = (kh - 1 - a) * dh * r
            sums[..., shift : shift + span] += terms[:, :, a]
        grid4 = full[:, :, : hf * r].reshape(nb, o, hf, r)
        out[n0 : n0 + nb, :, i0:i1, j0:j1] = grid4[:, :, i0 + top : i1 + top, j0 + left : j1 + left]
