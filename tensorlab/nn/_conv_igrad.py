"""Kernels for the input gradient of a 2-d convolution (= the transposed convolution's forward).

Called from :func:`tensorlab.nn._conv_kernels.conv_input_grad_nd`; plain numpy arrays in and out.
Notation: ``g`` (N, O, Hq, Wq) is the output gradient (the transposed convolution's input),
``w`` (O, cg, kH, kW) the weight, ``groups`` blocks of ``og = O/groups`` channels of ``g`` each
producing ``cg`` channels of the result (N, groups*cg, H, W).

* :func:`depthwise_slabs` (``og == 1``, dilation 1, any stride): a Toeplitz product whose windows
  are *views*, not copies. The outputs of a phase ``rho`` (rows ``rho + s*q``) read the rows
  ``q .. q + ka - 1`` of ``g`` (zero-padded by ``ka - 1``). Output rows ``q = r, r + ka, ...``
  (one residue ``r`` mod ``ka``) read disjoint slabs of ``ka`` consecutive rows: on an image laid
  out (C, column block, N*rows, span) these slabs are consecutive pieces of memory, so the window
  matrix of a residue is a reshape (row stride = its length, as BLAS needs). ``ka`` batched
  products by a banded matrix (all phases and multiplier channels as columns) give everything.
* :func:`phase_gemm` (any ``og``, dilation 1 and any stride, or stride 1 and any dilation): each
  of the ``sh*sw`` output phases is a stride-1 correlation of ``g`` with its own flipped sub-kernel
  (in/out channels of each group swapped): columns of the once-padded ``g`` (contiguous slices of
  its flattened rows, all groups at once) times the sub-kernels in one product batched over the
  groups, written into the phase's strided view of the output. Only the kernel's real taps are
  multiplied (stacking the phases as channels pads every sub-kernel to ``ceil(k/s)`` taps).

Temporaries come from a per-thread workspace (:func:`_work`): on the benchmark machine the page
faults of fresh large arrays cost as much as the arithmetic.
"""

from __future__ import annotations

import math
import threading

import numpy as np

#: largest temporary (bytes) kept between calls in a per-thread workspace
WORK_BYTES = 16 * 2**20

#: output columns per band block of :func:`depthwise_slabs` (more: fewer, bigger products; fewer:
#: less of the band's zeros multiplied)
DW_BLOCK = 24

#: :func:`phase_gemm` loops over the ``sh*sw`` phases in Python: beyond this many, stacking the
#: phases as channels of one convolution (``"conv"``) is faster
MAX_PHASES = 16

_local = threading.local()


def _work(slot: int, shape, dtype) -> np.ndarray:
    """A temporary array (uninitialised) from this thread's workspace ``slot``.

    Fresh large arrays cost page faults on first touch (glibc returns freed big blocks to the
    system), often more than the arithmetic here; the workspace keeps one buffer per slot and
    reuses it. The array is only valid until the next request of the same slot: never return it.
    """
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > WORK_BYTES:
        return np.empty(shape, dtype)
    bufs = _local.__dict__.setdefault("bufs", {})
    buf = bufs.get(slot)
    if buf is None or buf.nbytes < nbytes:
        buf = np.empty(max(nbytes, 2**16), dtype=np.uint8)
        bufs[slot] = buf
    return buf[:nbytes].view(dtype).reshape(shape)


def _blocks(width: int, cap: int) -> tuple[int, int]:
    """(blocks, block width) covering ``width`` columns with blocks of at most ``cap``."""
    nb = max(1, -(-width // cap))
    return nb, -(-width // nb)


def depthwise_slabs(g, w, in_sizes, stride, padding, cap: int | None = None):
    """Transposed 2-d convolution, dilation 1, one ``g`` channel per group (module docstring).

    ``g`` (N, C, Hq, Wq), ``w`` (C, m, kH, kW) -> (N, C*m, H, W) with ``in_sizes = (H, W)``.
    """
    n, c, hi, wi = g.shape
    _, m, kh, kw = w.shape
    sh, sw = stride
    ph, pw = padding
    oh, ow = in_sizes
    ka, kb = -(-kh // sh), -(-kw // sw)
    # full-grid rows (r = rho + sh*q) that land in the output: q in q0 .. q0 + qn - 1
    q0, u0 = ph // sh, pw // sw
    qn = (ph + oh - 1) // sh - q0 + 1
    un = (pw + ow - 1) // sw - u0 + 1
    if cap is None:
        cap = DW_BLOCK
    nb, blk = _blocks(un, cap)
    span = blk + kb - 1
    hq = -(-(qn + ka - 1) // ka) * ka  # rows per image, a multiple of ka
    # gq[c, j, n, t, v] = g[n, c, q0 + t - (ka-1), u0 + j*blk + v - (kb-1)] (zero outside)
    gq = _work(0, (c, nb, n, hq, span), g.dtype)
    t_lo = min(hq, max(0, ka - 1 - q0))
    t_hi = max(t_lo, min(hq, hi - q0 + ka - 1))
    gq[:, :, :, :t_lo] = 0  # zero only what g does not cover
    gq[:, :, :, t_hi:] = 0
    for j in range(nb):
        v_lo = min(span, max(0, kb - 1 - u0 - j * blk))
        v_hi = max(v_lo, min(span, wi - u0 - j * blk + kb - 1))
        gq[:, j, :, t_lo:t_hi, :v_lo] = 0
        gq[:, j, :, t_lo:t_hi, v_hi:] = 0
        if t_hi > t_lo and v_hi > v_lo:
            r0, c0 = q0 + t_lo - (ka - 1), u0 + j * blk + v_lo - (kb - 1)
            src = g[:, :, r0 : r0 + t_hi - t_lo, c0 : c0 + v_hi - v_lo]
            gq[:, j, :, t_lo:t_hi, v_lo:v_hi] = src.transpose(1, 0, 2, 3)
    # band[c, a, v, k, rho, u, sig] = w[c, k, (ka-1-a)*sh + rho, (kb-1-(v-u))*sw + sig]
    wz = np.zeros((c, m, ka * sh, kb * sw), dtype=g.dtype)
    wz[..., :kh, :kw] = w
    wf = wz.reshape(c, m, ka, sh, kb, sw)[:, :, ::-1, :, ::-1, :]  # [c, k, a, rho, b, sig]
    band = np.zeros((c, ka, span, m, sh, blk, sw), dtype=g.dtype)
    u = np.arange(blk)
    for a in range(ka):
        for b in range(kb):
            # advanced indices (u + b, u) go first: (blk, c, k, rho, sig)
            band[:, a, u + b, :, :, u, :] = wf[None, :, :, a, :, b, :]
    width = blk * sw  # output columns of a block
    band = band.reshape(c, 1, ka * span, m, sh, width)
    rows = n * hq
    flat = gq.reshape(c, nb, rows * span)
    # res[c, k, n, t, rho, j, u*sw + sig]: the full-grid row (q0 + t)*sh + rho of output channel
    # c*m + k, its column blocks side by side -- so output rows are contiguous runs
    res = _work(1, (c, m, rows // ka, ka, sh, nb, width), g.dtype)
    for r in range(ka):
        mr = rows // ka - (1 if r else 0)  # the last slab would run past the end
        win = flat[:, :, r * span : (r + mr * ka) * span].reshape(c, nb, mr, ka * span)
        for k in range(m):
            for rho in range(sh):
                dst = res[:, k, :mr, r, rho].transpose(0, 2, 1, 3)  # (c, nb, mr, width)
                np.matmul(win, band[..., k, rho, :], out=dst)
    res = res.reshape(c, m, n, hq * sh, nb * width)
    dr, dc = ph - q0 * sh, pw - u0 * sw
    out = np.empty((n, c * m, oh, ow), dtype=g.dtype)
    out.reshape(n, c, m, oh, ow)[...] = res[:, :, :, dr : dr + oh, dc : dc + ow].transpose(
        2, 0, 1, 3, 4
    )
    return out


def _phase_taps(k: int, s: int, p: int, size: int, rho: int, d: int = 1):
    """One dim of phase ``rho`` of a transposed convolution: (first output index, output count,
    tap count, first g index read). Output ``i0 + s*t`` sums ``g[lo + t + j*d] * wf[j]`` over
    the taps ``j`` of the phase's flipped sub-kernel ``wf[j] = w[rho + s*(taps-1-j)]`` (``d``,
    the dilation, only with ``s == 1``)."""
    i0 = (rho - p) % s
    cnt = len(range(i0, size, s))
    taps = len(range(rho, k, s))
    return i0, cnt, taps, (i0 + p - rho) // s - (taps - 1) * d


#: bytes of one chunk's columns in :func:`phase_gemm` (they stay in cache while multiplied)
PHASE_CHUNK_BYTES = 2**20


def phase_gemm(g, w, in_sizes, stride, padding, groups, dilation=(1, 1)):
    """Transposed 2-d convolution, dilation 1, any stride: per output phase, the columns of the
    once-padded ``g`` (contiguous slices of its flattened rows, all groups at once) times the
    phase's flipped sub-kernels in one batched product over the groups, written into the phase's
    strided view of the output. Only the kernel's real taps are multiplied."""
    n, o, hi, wi = g.shape
    _, cg, kh, kw = w.shape
    og = o // groups
    sh, sw = stride
    dh, dw = dilation  # with stride 1 only
    oh, ow = in_sizes
    rows = [_phase_taps(kh, sh, padding[0], oh, rho, dh) for rho in range(sh)]
    cols_ = [_phase_taps(kw, sw, padding[1], ow, sig, dw) for sig in range(sw)]
    live_r = [r for r in rows if r[1] > 0 and r[2] > 0]
    live_c = [c for c in cols_ if c[1] > 0 and c[2] > 0]
    out = np.empty((n, groups * cg, oh, ow), dtype=g.dtype)
    if len(live_r) < sum(r[1] > 0 for r in rows) or len(live_c) < sum(c[1] > 0 for c in cols_):
        out.fill(0)  # some phases get no tap (kernel smaller than the stride)
    if not live_r or not live_c:
        return out
    # g zero-padded once: a phase reads rows pt + lo .. pt + lo + cnt - 1 + (taps - 1)*d
    pt = max(0, max(-r[3] for r in live_r))
    pl = max(0, max(-c[3] for c in live_c))
    hp = max(pt + hi, max(pt + r[3] + r[1] + (r[2] - 1) * dh for r in live_r))
    wp = max(pl + wi, max(pl + c[3] + c[1] + (c[2] - 1) * dw for c in live_c))
    gp = _work(0, (n, o, hp, wp), g.dtype)
    gp.fill(0)
    gp[:, :, pt : pt + hi, pl : pl + wi] = g
    gflat = gp.reshape(n, o, hp * wp)
    s0, s1, s2 = gflat.strides
    wg = w.reshape(groups, og, cg, kh, kw)
    out5 = out.reshape(n, groups, cg, oh, ow)
    for rho, (i0, ci, ka, lo_r) in enumerate(rows):
        if ci == 0 or ka == 0:
            continue
        for sig, (j0, cj, kb, lo_c) in enumerate(cols_):
            if cj == 0 or kb == 0:
                continue
            # out[i0 + sh*t] = sum over taps of g[lo + t + tap*d] * w[rho + sh*(taps-1-tap)]
            sub = wg[:, :, :, rho::sh, sig::sw][..., ::-1, ::-1].transpose(0, 2, 1, 3, 4)
            k = og * ka * kb
            a = np.ascontiguousarray(sub).reshape(groups, cg, k)
            base = (pt + lo_r) * wp + pl + lo_c
            grid = ci * wp
            length = (ci - 1) * wp + cj
            per_image = groups * k * grid * g.itemsize
            chunk = max(1, min(n, PHASE_CHUNK_BYTES // max(per_image, 1)))
            dst = out5[:, :, :, i0::sh, j0::sw]
            view = np.ndarray(  # every image's columns: (groups, og, ka, kb, n, length)
                (groups, og, ka, kb, n, length),
                g.dtype,
                buffer=gflat,
                offset=base * s2,
                strides=(og * s1, s1, dh * wp * s2, dw * s2, s0, s2),
            )
            for n0 in range(0, n, chunk):
                nb = min(chunk, n - n0)
                cols = _work(1, (groups, og, ka, kb, nb, grid), g.dtype)
                cols[..., :length] = view[..., n0 : n0 + nb, :]
                cols[..., length:] = 0
                r = _work(2, (groups, cg, nb * grid), g.dtype)
                np.matmul(a, cols.reshape(groups, k, nb * grid), out=r)
                r = r.reshape(groups, cg, nb, ci, wp)[..., :cj]
                dst[n0 : n0 + nb] = r.transpose(2, 0, 1, 3, 4)
    return out
