"""Numeric kernels for padding and convolution, on numpy arrays only.

Nothing here knows about tensors, dtypes or PyTorch's error messages: the callers in
``functional.py`` validate the arguments the way PyTorch does and hand over plain arrays.

Convolution strategies (all vectorised; :func:`choose_strategy` picks one per call):

* ``"1x1"``        a 1x1 kernel is one matrix product per group (after subsampling by the stride).
* ``"toeplitz"``   one input channel per group (depthwise): each output row block is a matrix
                   product of the input rows it reads with a banded (Toeplitz) matrix holding the
                   kernel, one product per channel.
* ``"shift"``      depthwise too, as ``kH*kW`` shifted multiply-adds (no matrix product).
* ``"flat-cols"``  stride 1: on the *flattened* padded image every kernel tap reads one contiguous
                   slice, so the im2col matrix of a group is built from long contiguous copies and
                   multiplied by the group's weights (outputs on a ``Ho x Wp`` grid, then cropped).
* ``"flat-taps"``  stride 1, few output channels: multiply the flattened image by all taps' weights
                   at once, then add the ``kH*kW`` shifted contiguous slices of the products.
* ``"im2col"``     the textbook way: copy one group's windows (a strided view) into a matrix.
* ``"flat-clip"``  the default (:mod:`._conv_direct`): im2col rows as contiguous slices of the
                   *unpadded* flattened image (rows of zeros added, wrapped columns zeroed), all
                   groups in one batched product written straight into the output; strides via
                   the phase images. When the output is wider than the input (padding beyond
                   the kernel's reach), ``"scatter"`` when it moves less data, else the others.
* ``"scatter"``    stride 1 (:func:`._conv_direct.conv_scatter`): every input pixel times every
                   tap in one product (``kW`` shifted copies of the input as its matrix), each
                   kernel row's contributions added as shifted contiguous runs (the stride-1
                   input gradients and transposed convolutions: padding beyond the kernel).

The ``flat-*`` kernels need stride 1; asked for a stride ``s > 1`` (without dilation) they first
turn it into a stride-1 convolution (:func:`phase_split`): the ``s*s`` phase images
``x[..., i::s, j::s]`` become extra input channels and the kernel is cut into matching sub-kernels
(a 3x3 stride-2 convolution is a 2x2 stride-1 convolution of 4x more channels). ``flat-clip``
uses the same phase images without padding the kernel (each tap reads one phase image).

Transposed convolutions (and the input gradient of a convolution) go through
:func:`conv_input_grad_nd`: in 2-d with a stride, one product per output phase written into the
phase's strided view (``"phase"``), with stride 1 a forward convolution with the flipped kernel
(``"conv"``, also when each group reads one channel), with a stride a Toeplitz product on slabs
of rows when each group reads one channel (``"toeplitz"``) -- these in
:mod:`tensorlab.nn._conv_igrad` --, else columns ``w^T @ x`` added back with one strided slice
per tap (``"gemm"`` + :func:`col2im`); never a zero-dilated input.

Memory: one group's windows (or tap products) at a time, for a chunk of the batch small enough that
this temporary stays below :data:`CHUNK_BYTES`. Small convolutions split the batch between
:data:`THREADS` threads, each with its share of that budget.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import _conv_direct as _direct
from . import _conv_igrad as _igrad

#: upper bound (bytes) for the temporary matrix of one group and one chunk of the batch
CHUNK_BYTES = 256 * 2**10

#: worker threads for small convolutions (numpy releases the GIL while copying and multiplying);
#: big ones are left to the BLAS threads. Off (1) by default: on the shared 2-core machine of the
#: benchmark it did not pay; ``TENSORLAB_THREADS=2`` turns it on.
THREADS = max(1, int(os.environ.get("TENSORLAB_THREADS", "1")))

#: below this many multiply-adds a convolution is split over the batch between :data:`THREADS`
THREAD_MACS = 64 * 2**20

_pool: ThreadPoolExecutor | None = None

PAD_MODES = ("constant", "reflect", "replicate", "circular")


# ---------------------------------------------------------------------------- sizes


def conv_out_size(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """Output length of one spatial dim; ``pad`` is the *total* padding (both sides).

    ``floor((size + pad - dilation*(kernel-1) - 1) / stride) + 1``.
    """
    return (size + pad - dilation * (kernel - 1) - 1) // stride + 1


# ---------------------------------------------------------------------------- padding


def pad_source_index(size: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of a padded axis, the index of the input element it shows.

    The padded axis has ``size + before + after`` positions (negative pads crop). ``-1`` marks a
    position filled with the constant (``mode='constant'``) or, for ``'circular'`` when the
    cropped core is empty, a position PyTorch leaves uninitialised (we show the constant 0).

    ``reflect``   mirrors about the edge pixel without repeating it (numpy's ``reflect``);
    ``replicate`` repeats the edge pixel (numpy's ``edge``);
    ``circular``  wraps around the (possibly cropped) input (numpy's ``wrap``).
    """
    n_out = size + before + after
    rel = np.arange(n_out, dtype=np.int64) - before  # index relative to the input's first element
    if mode == "constant":
        return np.where((rel >= 0) & (rel < size), rel, -1)
    if mode == "reflect":
        if size == 1:
            return np.zeros(n_out, dtype=np.int64)
        period = 2 * (size - 1)
        rel = np.abs(rel) % period
        return np.where(rel >= size, period - rel, rel)
    if mode == "replicate":
        return np.clip(rel, 0, size - 1)
    if mode == "circular":
        core_start = max(-before, 0)
        core_len = size - core_start - max(-after, 0)
        if core_len <= 0:
            return np.full(n_out, -1, dtype=np.int64)
        pos = np.arange(n_out, dtype=np.int64) - max(before, 0)
        return core_start + pos % core_len
    raise ValueError(f"unknown padding mode {mode!r}")


def pad(x: np.ndarray, pads: Sequence[tuple[int, int]], mode: str, value=0) -> np.ndarray:
    """Pad the last ``len(pads)`` dims of ``x``; ``pads[k] = (before, after)`` in dim order.

    Returns a fresh C-contiguous array. Negative pads crop. ``value`` fills ``'constant'`` pads.
    """
    lead = x.ndim - len(pads)
    if mode == "constant":
        out_shape = x.shape[:lead] + tuple(s + b + a for s, (b, a) in zip(x.shape[lead:], pads))
        out = np.empty(out_shape, dtype=x.dtype)
        src = [slice(None)] * lead
        dst = [slice(None)] * lead
        for s, (b, a) in zip(x.shape[lead:], pads):
            src.append(slice(max(-b, 0), s - max(-a, 0)))
            dst.append(slice(max(b, 0), max(b, 0) + max(s - max(-b, 0) - max(-a, 0), 0)))
        if any(b > 0 or a > 0 for b, a in pads):
            out.fill(value)
        if out.size:
            out[tuple(dst)] = x[tuple(src)]
        return out
    out = x
    for k, (b, a) in enumerate(pads):
        idx = pad_source_index(x.shape[lead + k], b, a, mode)
        if (idx < 0).any():  # circular with an empty core: PyTorch leaves it uninitialised
            tmp = np.take(out, np.maximum(idx, 0), axis=lead + k)
            tmp[(slice(None),) * (lead + k) + (idx < 0,)] = 0
            out = tmp
        else:
            out = np.take(out, idx, axis=lead + k)
    return np.ascontiguousarray(out)


def zero_pad2d(x: np.ndarray, pt: int, pb: int, pl: int, pr: int) -> np.ndarray:
    """``x`` (N, C, H, W) with zeros added (non-negative pads); C-contiguous, may be ``x`` itself."""
    n, c, h, w = x.shape
    if pt == pb == pl == pr == 0 and x.flags.c_contiguous:
        return x
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=x.dtype)
    out[:, :, pt : pt + h, pl : pl + w] = x
    return out


# ---------------------------------------------------------------------------- convolution

STRATEGIES = (
    "1x1", "toeplitz", "shift", "flat-cols", "flat-taps", "im2col", "flat-clip", "scatter"
)  # fmt: skip


def choose_strategy(
    c_in_g: int,
    c_out_g: int,
    kernel: tuple[int, int],
    stride: tuple[int, int],
    n: int = 1,
    groups: int = 1,
) -> str:
    """Which kernel :func:`conv2d` uses (``c_in_g``/``c_out_g``: channels per group).

    Measured on the benchmark suite (``tests/benchmarks/bench_conv.py``, one thread, CPU time):
    ``flat-clip`` for every kernel larger than 1x1 (no padded copy of the batch, no crop, no
    per-group loop, GEMM operands in the L2 cache; against ``flat-cols``/``im2col``: depthwise
    ~1.9x, dilated ~1.4x, grouped stride 2 ~1.25x, ResNet 3x3 ~1.2x, CIFAR 5x5 ~1.2x faster),
    a plain product for 1x1 kernels. When ``flat-clip`` does not fit (an output wider than the
    input), :func:`_fallback_strategy` picks as before. ``n`` (images) and ``groups`` are there
    for rules that need them.
    """
    kh, kw = kernel
    if kh == 1 and kw == 1:
        return "1x1"
    return "flat-clip"


def _fallback_strategy(c_in_g: int, c_out_g: int, stride: tuple[int, int]) -> str:
    """What runs when ``flat-clip`` does not fit (an output wider than the input)."""
    if stride != (1, 1):
        return "im2col"
    if 4 * c_out_g <= c_in_g:
        return "flat-taps"
    return "flat-cols"


def conv2d(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: tuple[int, int],
    padding: tuple[int, int, int, int],
    dilation: tuple[int, int],
    groups: int,
    strategy: str | None = None,
) -> np.ndarray:
    """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C/groups, kH, kW), zero padding.

    ``padding`` is ``(top, bottom, left, right)``, all >= 0. ``x`` and ``w`` must have the same
    dtype, which is also the compute and result dtype. Returns a fresh C-contiguous
    (N, O, H_out, W_out) array. ``strategy`` forces one of :data:`STRATEGIES` (tests, benchmarks).
    """
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    ho = conv_out_size(h, kh, sh, pt + pb, dh)
    wo = conv_out_size(wd, kw, sw, pl + pr, dw)
    og = o // groups
    if strategy is None:
        strategy = choose_strategy(cg, og, (kh, kw), (sh, sw), n, groups)
    out = np.empty((n, o, ho, wo), dtype=x.dtype)
    if out.size == 0:
        return out
    macs = out.size * cg * kh * kw
    if THREADS > 1 and n >= 2 and macs < THREAD_MACS and strategy != "1x1":
        _split_batch(x, w, stride, padding, dilation, groups, strategy, out)
    else:
        _conv_into(x, w, stride, padding, dilation, groups, strategy, out)
    if b is not None:
        out += b.reshape(1, o, 1, 1)
    return out


def _split_batch(x, w, stride, padding, dilation, groups, strategy, out):
    """Run the images in :data:`THREADS` slices at once. Each slice gets its share of the chunk
    budget: the windows in flight (each thread holds part of one group's) stay within it."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="tensorlab-conv")
    n = x.shape[0]
    bounds = [n * i // THREADS for i in range(THREADS + 1)]
    parts = [(bounds[i], bounds[i + 1]) for i in range(THREADS) if bounds[i] < bounds[i + 1]]

    def work(lo, hi):
        _conv_into(x[lo:hi], w, stride, padding, dilation, groups, strategy, out[lo:hi], len(parts))

    futures = [_pool.submit(work, lo, hi) for lo, hi in parts[1:]]
    work(*parts[0])
    for f in futures:
        f.result()


def _conv_into(x, w, stride, padding, dilation, groups, strategy, out, share: int = 1):
    """The convolution of ``x`` into ``out`` (no bias) with one strategy; ``share`` divides the
    chunk budget (threads running side by side)."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    ho, wo = out.shape[2:]
    if strategy == "flat-clip":
        if _direct.flat_clip_fits(wd, wo, sw):
            # (each core has its own L2 cache: threads need not share the budgets)
            _direct.conv_flat_clip(x, w, stride, padding, dilation, groups, out)
            return
        if _direct.use_scatter(cg, o // groups, kh, kw) and _direct.scatter_fits(w, stride):
            _direct.conv_scatter(x, w, padding, dilation, groups, out)
            return
        strategy = _fallback_strategy(cg, o // groups, stride)
    if strategy == "scatter":
        if _direct.scatter_fits(w, stride):
            _direct.conv_scatter(x, w, padding, dilation, groups, out)
            return
        strategy = "im2col"
    if strategy == "1x1" and (kh, kw) == (1, 1):
        _conv_1x1(x, w, stride, padding, groups, out)
    else:
        # the zero-padded input, restricted to the rows/columns that some window reaches
        need_h = (ho - 1) * sh + (kh - 1) * dh + 1
        need_w = (wo - 1) * sw + (kw - 1) * dw + 1
        xp = _pad_crop(x, pt, pl, need_h, need_w)
        if strategy in ("toeplitz", "shift") and cg == 1:
            if strategy == "toeplitz":
                _conv_toeplitz(xp, w, stride, dilation, out)
            else:
                _conv_shift(xp, w, stride, dilation, out)
        elif strategy == "im2col":
            _conv_im2col(xp, w, stride, dilation, groups, out, share)
        else:
            if stride != (1, 1):
                if dilation != (1, 1):
                    _conv_im2col(xp, w, stride, dilation, groups, out, share)
                    strategy = "done"
                else:
                    xp, w = phase_split(xp, w, stride)
                    if w.shape[2:] == (1, 1):
                        _conv_1x1(xp, w, (1, 1), (0, 0, 0, 0), groups, out)
                        strategy = "done"
            if strategy == "flat-taps":
                _conv_flat_taps(xp, w, dilation, groups, out, share)
            elif strategy != "done":
                _conv_flat_cols(xp, w, dilation, groups, out, share)


def _pad_crop(x: np.ndarray, pt: int, pl: int, need_h: int, need_w: int) -> np.ndarray:
    """The zero-padded input restricted to ``need_h x need_w`` rows/cols (C-contiguous)."""
    n, c, h, w = x.shape
    if pt == 0 and pl == 0 and need_h <= h and need_w <= w:
        xs = x[:, :, :need_h, :need_w]
        return xs if xs.flags.c_contiguous else np.ascontiguousarray(xs)
    out = np.zeros((n, c, need_h, need_w), dtype=x.dtype)
    rows = min(h, need_h - pt)
    cols = min(w, need_w - pl)
    if rows > 0 and cols > 0:
        out[:, :, pt : pt + rows, pl : pl + cols] = x[:, :, :rows, :cols]
    return out


def phase_split(xp: np.ndarray, w: np.ndarray, stride: tuple[int, int]):
    """A stride-``s`` convolution (dilation 1) as a stride-1 one on the ``s*s`` phase images.

    ``xq[:, c*sh*sw + p*sw + q] = xp[:, c, p::sh, q::sw]`` (zero-extended to a common size) and
    ``wq[:, c*sh*sw + p*sw + q, a, b] = w[:, c, a*sh + p, b*sw + q]`` (zero where the kernel ends).
    Channel ``c``'s phases stay together, so groups stay contiguous blocks of channels.
    """
    n, c, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    ka, kb = -(-kh // sh), -(-kw // sw)
    hq, wq = -(-hp // sh), -(-wp // sw)
    xq = np.zeros((n, c, sh, sw, hq, wq), dtype=xp.dtype)
    wq_ = np.zeros((o, cg, sh, sw, ka, kb), dtype=w.dtype)
    for p in range(sh):
        for q in range(sw):
            ph = xp[:, :, p::sh, q::sw]
            xq[:, :, p, q, : ph.shape[2], : ph.shape[3]] = ph
            sub = w[:, :, p::sh, q::sw]
            wq_[:, :, p, q, : sub.shape[2], : sub.shape[3]] = sub
    return xq.reshape(n, c * sh * sw, hq, wq), wq_.reshape(o, cg * sh * sw, ka, kb)


def _batch_chunk(n: int, bytes_per_item: int, share: int = 1) -> int:
    """Batch items per chunk: at most ``CHUNK_BYTES / share`` of temporaries, equal chunks."""
    most = max(1, min(n, CHUNK_BYTES // share // max(bytes_per_item, 1)))
    n_chunks = -(-n // most)
    return -(-n // n_chunks)


def _conv_1x1(x, w, stride, padding, groups, out):
    """A 1x1 kernel: subsample by the stride, then one matrix product per group."""
    n, c, h, wd = x.shape
    o = w.shape[0]
    pt, pb, pl, pr = padding
    if pt or pb or pl or pr:
        x = zero_pad2d(x, pt, pb, pl, pr)
    ho, wo = out.shape[2:]
    xs = x[:, :, : (ho - 1) * stride[0] + 1 : stride[0], : (wo - 1) * stride[1] + 1 : stride[1]]
    cg, og = c // groups, o // groups
    wg = w.reshape(groups, og, cg)
    p = ho * wo
    if n == 1 or p >= 128:
        xg = xs.reshape(n, groups, cg, p)  # copies only when the subsampled view needs it
        np.matmul(wg, xg, out=out.reshape(n, groups, og, p))
    else:
        # small images, several of them: one product per group over the whole batch
        xt = np.ascontiguousarray(xs.reshape(n, groups, cg, p).transpose(1, 2, 0, 3))
        res = np.matmul(wg, xt.reshape(groups, cg, n * p))  # (G, og, N*P)
        out.reshape(n, groups, og, p)[...] = res.reshape(groups, og, n, p).transpose(2, 0, 1, 3)


def _tap_offsets(kh, kw, dilation, wp):
    """Offset of each tap ``(a, b)`` in the flattened padded image (row length ``wp``)."""
    return [a * dilation[0] * wp + b * dilation[1] for a in range(kh) for b in range(kw)]


def _conv_flat_cols(xp, w, dilation, groups, out, share=1):
    """Stride 1: im2col from contiguous slices of the flattened padded image, then a product.

    Output ``(i, j)`` reads tap ``(a, b)`` at flat index ``(i + a*dh)*Wp + j + b*dw``: for one tap,
    the outputs of a whole image (on a ``Ho x Wp`` grid whose last ``Wp - Wo`` columns are
    discarded) read one contiguous slice of length ``(Ho - 1)*Wp + Wo``. Rows of the im2col matrix
    (``C/g*kH*kW`` of them, for a chunk of images side by side) are these slices, copied at memcpy
    speed; one matrix product per group and chunk gives the outputs.
    """
    n, c, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    ho, wo = out.shape[2:]
    grid = ho * wp
    length = (ho - 1) * wp + wo
    taps = kh * kw
    k = cg * taps
    dh, dw = dilation
    xf = xp.reshape(n, c, hp * wp)
    chunk = _batch_chunk(n, k * grid * xp.itemsize, share)
    bufs: dict[int, np.ndarray] = {}
    for g in range(groups):
        wg = w[g * og : (g + 1) * og].reshape(og, k)
        for n0 in range(0, n, chunk):
            n1 = min(n, n0 + chunk)
            nb = n1 - n0
            if nb not in bufs:  # one buffer per chunk size, reused by every group
                bufs[nb] = np.empty((cg, taps, nb, grid), dtype=xp.dtype)
                if grid > length:  # the discarded tail of the last row: keep it finite
                    bufs[nb][..., length:] = 0
            cols = bufs[nb]
            # every tap's slice at once: a (cg, kH, kW, nb, L) view of the flat image
            s0, s1, s2 = xf.strides
            taps_view = as_strided(
                xf[n0:n1, g * cg : (g + 1) * cg],
                shape=(cg, kh, kw, nb, length),
                strides=(s1, dh * wp * s2, dw * s2, s0, s2),
                writeable=False,
            )
            cols.reshape(cg, kh, kw, nb, grid)[..., :length] = taps_view
            res = (wg @ cols.reshape(k, nb * grid)).reshape(og, nb, ho, wp)
            out[n0:n1, g * og : (g + 1) * og] = res.transpose(1, 0, 2, 3)[..., :wo]


def _conv_flat_taps(xp, w, dilation, groups, out, share=1):
    """Stride 1: products of all taps with the flattened padded image, then shifted adds.

    ``Y[t] = W[:, :, t] @ X`` for all taps in one product; ``out = sum_t Y[t][off_t : off_t + L]``
    (same flat-grid idea as :func:`_conv_flat_cols`). Cheaper when a group has few output channels
    compared with its input channels.
    """
    n, c, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    og = o // groups
    ho, wo = out.shape[2:]
    taps = kh * kw
    offsets = _tap_offsets(kh, kw, dilation, wp)
    length = (ho - 1) * wp + wo
    xf = xp.reshape(n, c, hp * wp)
    chunk = _batch_chunk(n, taps * og * hp * wp * xp.itemsize, share)
    for g in range(groups):
        # (T*og, cg): row t*og + k is weight[g*og + k, :, a, b]
        wt = w[g * og : (g + 1) * og].transpose(2, 3, 0, 1).reshape(taps * og, cg)
        xg = xf[:, g * cg : (g + 1) * cg]
        for n0 in range(0, n, chunk):
            n1 = min(n, n0 + chunk)
            y = np.matmul(wt, xg[n0:n1])  # (chunk, T*og, Hp*Wp)
            grid = np.empty((n1 - n0, og, ho * wp), dtype=xp.dtype)
            acc = grid[:, :, :length]
            np.copyto(acc, y[:, 0:og, offsets[0] : offsets[0] + length])
            for t in range(1, taps):
                off = offsets[t]
                acc += y[:, t * og : (t + 1) * og, off : off + length]
            out[n0:n1, g * og : (g + 1) * og] = grid.reshape(n1 - n0, og, ho, wp)[..., :wo]


def _windows(xp, kernel, stride, dilation, out_hw):
    """Strided view (N, C, kH, kW, Ho, Wo) of every window of ``xp`` (no copy)."""
    n, c, hp, wp = xp.shape
    s0, s1, s2, s3 = xp.strides
    kh, kw = kernel
    ho, wo = out_hw
    return as_strided(
        xp,
        shape=(n, c, kh, kw, ho, wo),
        strides=(s0, s1, s2 * dilation[0], s3 * dilation[1], s2 * stride[0], s3 * stride[1]),
        writeable=False,
    )


def _conv_im2col(xp, w, stride, dilation, groups, out, share=1):
    """Copy one group's windows into a (C/g*kH*kW, images*Ho*Wo) matrix, multiply by weights."""
    n = xp.shape[0]
    o, cg, kh, kw = w.shape
    og = o // groups
    ho, wo = out.shape[2:]
    p = ho * wo
    k = cg * kh * kw
    win = _windows(xp, (kh, kw), stride, dilation, (ho, wo))
    chunk = _batch_chunk(n, k * p * xp.itemsize, share)
    for g in range(groups):
        wg = w[g * og : (g + 1) * og].reshape(og, k)
        for n0 in range(0, n, chunk):
            n1 = min(n, n0 + chunk)
            nb = n1 - n0
            # (cg, kh, kw, nb, Ho, Wo): the copy, with the images side by side
            cols = win[n0:n1, g * cg : (g + 1) * cg].transpose(1, 2, 3, 0, 4, 5).reshape(k, nb * p)
            res = (wg @ cols).reshape(og, nb, ho, wo)
            out[n0:n1, g * og : (g + 1) * og] = res.transpose(1, 0, 2, 3)


def _toeplitz_blocks(wo: int) -> tuple[int, int]:
    """(blocks, block width) for a Toeplitz product over ``wo`` outputs: about 16 per block (the
    band is ~(kW-1)/16 redundant, the windows ~kH times the input)."""
    nb = -(-wo // 16)
    return nb, -(-wo // nb)


def _conv_toeplitz(xp, w, stride, dilation, out):
    """Depthwise: (rows the kernel reads) @ (a banded matrix holding the kernel), one small product
    per image and channel, all in one batched ``matmul``.

    An output row block of ``B`` pixels reads ``kH`` input row segments of length
    ``span = (B - 1)*sw + (kW - 1)*dw + 1``. Stacking those segments gives a row of a matrix ``R``
    (one row per output row and block); the kernel becomes a (kH*span, B) banded matrix ``T`` with
    ``T[a*span + u*sw + b*dw, u] = w[a, b]``, and ``R @ T`` gives the outputs (depth multiplier
    ``m = out/in channels``: ``m*B`` columns). The product comes out in the output's layout.
    """
    n, c, hp, wp = xp.shape
    o, _, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    m = o // c
    ho, wo = out.shape[2:]
    nb, blk = _toeplitz_blocks(wo)
    span = (blk - 1) * sw + (kw - 1) * dw + 1
    width = (nb - 1) * blk * sw + span
    if width > wp:  # the last block runs past the image: zero-extend the rows
        wide = np.zeros((n, c, hp, width), dtype=xp.dtype)
        wide[..., :wp] = xp
        xp = wide
    s0, s1, s2, s3 = xp.strides
    band = np.zeros((c, kh, span, m, blk), dtype=xp.dtype)
    u = np.arange(blk)
    wr = w.reshape(c, m, kh, kw)
    for a in range(kh):
        for b in range(kw):
            band[:, a, u * sw + b * dw, :, u] = wr[None, :, :, a, b]
    band = band.reshape(c, kh * span, m * blk)
    rows = as_strided(
        xp,
        shape=(n, c, ho, nb, kh, span),
        strides=(s0, s1, s2 * sh, s3 * blk * sw, s2 * dh, s3),
        writeable=False,
    ).reshape(n, c, ho * nb, kh * span)  # the windows (a copy)
    res = np.matmul(rows, band).reshape(n, c, ho, nb, m, blk)
    if m == 1:
        out[...] = res.reshape(n, c, ho, nb * blk)[..., :wo]
    else:
        res = res.transpose(0, 1, 4, 2, 3, 5).reshape(n, c, m, ho, nb * blk)
        out.reshape(n, c, m, ho, wo)[...] = res[..., :wo]


def _conv_shift(xp, w, stride, dilation, out):
    """Depthwise: ``out[:, c*m + k] = sum_taps w[c*m + k, 0, a, b] * shifted x[:, c]``.

    ``m = out_channels / in_channels`` (the depth multiplier). Each tap is one broadcast
    multiply-add over the whole output; for stride 1 the shifted inputs are contiguous slices of
    the flattened padded image.
    """
    n, c, hp, wp = xp.shape
    o, _, kh, kw = w.shape
    m = o // c
    sh, sw = stride
    dh, dw = dilation
    ho, wo = out.shape[2:]
    wm = w.reshape(c, m, kh * kw)
    if stride == (1, 1):
        length = (ho - 1) * wp + wo
        xf = xp.reshape(n, c, 1, hp * wp)
        grid = np.empty((n, c, m, ho * wp), dtype=xp.dtype)
        acc = grid[..., :length]
        tmp = np.empty_like(acc)
        for t, off in enumerate(_tap_offsets(kh, kw, dilation, wp)):
            wt = np.ascontiguousarray(wm[:, :, t]).reshape(1, c, m, 1)
            if t == 0:
                np.multiply(xf[..., off : off + length], wt, out=acc)
            else:
                np.multiply(xf[..., off : off + length], wt, out=tmp)
                acc += tmp
        out.reshape(n, c, m, ho, wo)[...] = grid.reshape(n, c, m, ho, wp)[..., :wo]
        return
    x5 = xp.reshape(n, c, 1, hp, wp)
    acc = out.reshape(n, c, m, ho, wo)
    tmp = np.empty_like(acc)
    for t in range(kh * kw):
        a, b = divmod(t, kw)
        xs = x5[
            ..., a * dh : a * dh + (ho - 1) * sh + 1 : sh, b * dw : b * dw + (wo - 1) * sw + 1 : sw
        ]
        wt = np.ascontiguousarray(wm[:, :, t]).reshape(1, c, m, 1, 1)
        if t == 0:
            np.multiply(xs, wt, out=acc)
        else:
            np.multiply(xs, wt, out=tmp)
            acc += tmp


# ---------------------------------------------------------------------------- N-d im2col / col2im
#
# Shared by ``F.unfold``/``F.fold``, ``conv3d``, the transposed convolutions and their gradients.
# ``cols`` arrays are laid out (N, C, *kernel, *blocks): for each image, channel and kernel tap,
# the input value that tap reads in every sliding block.


def zero_pad_nd(x: np.ndarray, padding: Sequence[int]) -> np.ndarray:
    """``x`` (N, C, *spatial) with ``padding[i]`` zeros on both sides of spatial dim ``i``."""
    if not any(padding):
        return x
    lead = x.ndim - len(padding)
    shape = x.shape[:lead] + tuple(s + 2 * p for s, p in zip(x.shape[lead:], padding))
    out = np.zeros(shape, dtype=x.dtype)
    out[(Ellipsis, *(slice(p, p + s) for s, p in zip(x.shape[lead:], padding)))] = x
    return out


def windows_nd(xp: np.ndarray, kernel, stride, dilation, blocks) -> np.ndarray:
    """Read-only strided view (N, C, *kernel, *blocks) of every window of ``xp`` (no copy)."""
    lead = xp.ndim - len(kernel)
    st = xp.strides[lead:]
    return as_strided(
        xp,
        shape=xp.shape[:lead] + tuple(kernel) + tuple(blocks),
        strides=xp.strides[:lead]
        + tuple(s * d for s, d in zip(st, dilation))
        + tuple(s * k for s, k in zip(st, stride)),
        writeable=False,
    )


def im2col(x: np.ndarray, kernel, dilation, padding, stride) -> np.ndarray:
    """Every sliding block of ``x`` (N, C, *spatial) as a fresh (N, C, *kernel, *blocks) array."""
    nd = len(kernel)
    blocks = [
        conv_out_size(s, k, st, 2 * p, d)
        for s, k, st, p, d in zip(x.shape[-nd:], kernel, stride, padding, dilation)
    ]
    xp = zero_pad_nd(x, padding)
    return np.ascontiguousarray(windows_nd(xp, kernel, stride, dilation, blocks))


#: bytes of image planes :func:`col2im` fills at once (all taps added while they stay in cache)
COL2IM_CHUNK_BYTES = 2 * 2**20


def _tap_slices(tap, dilation, blocks, stride):
    """Where tap ``tap`` of every block lands in the padded image: one strided slice per dim."""
    return tuple(
        slice(t * d, t * d + (b - 1) * s + 1, s)
        for t, d, b, s in zip(tap, dilation, blocks, stride)
    )


def _scatter_full(out_sizes, padding, blocks, kernel, stride, dilation) -> list[int]:
    """Size of the padded image the windows are added into (they may reach past out + 2*pad:
    a transposed convolution's output_padding, or a fold's uncovered edge, crops them)."""
    full = [o + 2 * p for o, p in zip(out_sizes, padding)]
    return [
        max(f, (b - 1) * s + (k - 1) * d + 1)
        for f, b, s, k, d in zip(full, blocks, stride, kernel, dilation)
    ]


def col2im(cols: np.ndarray, out_sizes, kernel, dilation, padding, stride, acc=None) -> np.ndarray:
    """The inverse scatter of :func:`im2col`: add every tap of ``cols`` (N, C, *kernel, *blocks)
    into the (zero) padded image it was read from, then crop the padding: (N, C, *out_sizes).

    Overlapping windows add up (overlap-add): one strided-slice add per kernel tap, taps in order
    (as PyTorch's col2im loop adds them, so low-precision sums round alike). Image planes go in
    chunks that stay in cache while their taps are added. ``acc`` is the accumulation dtype
    (default ``cols``' own). ``cols`` may have any strides.
    """
    nd = len(kernel)
    n, c = cols.shape[:2]
    blocks = tuple(cols.shape[2 + nd :])
    acc = cols.dtype if acc is None else np.dtype(acc)
    full = _scatter_full(out_sizes, padding, blocks, kernel, stride, dilation)
    buf = np.zeros((n, c, *full), dtype=acc)
    if buf.size and cols.size:
        taps = list(np.ndindex(*kernel))
        plane = int(np.prod(full, dtype=np.int64)) * acc.itemsize
        planes = max(1, COL2IM_CHUNK_BYTES // max(plane, 1))
        if -(-n * c // planes) * len(taps) > 4096:  # many taps: fewer, bigger adds
            planes = n * c
        nb, cb = (max(1, planes // c), c) if planes >= c else (1, planes)
        for n0 in range(0, n, nb):
            for c0 in range(0, c, cb):
                dst = buf[n0 : n0 + nb, c0 : c0 + cb]
                src = cols[n0 : n0 + nb, c0 : c0 + cb]
                for tap in taps:
                    dst[(Ellipsis, *_tap_slices(tap, dilation, blocks, stride))] += src[
                        (slice(None), slice(None), *tap)
                    ]
    crop = tuple(slice(p, p + o) for p, o in zip(padding, out_sizes))
    return buf[(slice(None), slice(None), *crop)]


# ---------------------------------------------------------------------------- N-d convolution
#
# Any number of spatial dims (conv3d, the transposed convolutions and the gradients that are not
# 2-d): a convolution is im2col + one matrix product per group; its gradient with respect to the
# input (which *is* the transposed convolution) is one matrix product per group + col2im.


def _group_cols(cols: np.ndarray, g: int, cg: int) -> np.ndarray:
    """Group ``g``'s columns of a (N, C, *kernel, *blocks) array as (cg*K, N*L) (a copy)."""
    n = cols.shape[0]
    nd = (cols.ndim - 2) // 2
    part = cols[:, g * cg : (g + 1) * cg]
    k = int(np.prod(part.shape[2 : 2 + nd], dtype=np.int64))
    length = int(np.prod(part.shape[2 + nd :], dtype=np.int64))
    perm = (1, *range(2, 2 + nd), 0, *range(2 + nd, 2 + 2 * nd))
    return part.transpose(perm).reshape(cg * k, n * length)


def conv_nd(x, w, stride, padding, dilation, groups) -> np.ndarray:
    """Cross-correlation of ``x`` (N, C, *spatial) with ``w`` (O, C/groups, *kernel), symmetric
    zero ``padding``; no bias. Returns a fresh (N, O, *out) array in ``x``'s dtype."""
    n = x.shape[0]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    og = o // groups
    blocks = [
        conv_out_size(s, k, st, 2 * p, d)
        for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding, dilation)
    ]
    out = np.empty((n, o, *blocks), dtype=x.dtype)
    if out.size == 0:
        return out
    cols = windows_nd(zero_pad_nd(x, padding), kernel, stride, dilation, blocks)
    for g in range(groups):
        wg = w[g * og : (g + 1) * og].reshape(og, -1)
        res = (wg @ _group_cols(cols, g, cg)).reshape(og, n, *blocks)
        out[:, g * og : (g + 1) * og] = np.moveaxis(res, 1, 0)
    return out


def conv_input_grad_nd(
    g, w, in_sizes, stride, padding, dilation, groups, acc=None, strategy=None
) -> np.ndarray:
    """The adjoint of :func:`conv_nd` in its input: ``g`` (N, O, *blocks) -> (N, C, *in_sizes).

    This is the transposed convolution of ``g`` with ``w``: each output gradient is spread, through
    every kernel tap, back to the input pixel the tap read. The ways (:func:`scatter_strategy`):

    * ``"phase"`` (2-d, a stride, no dilation): per output phase, the columns of ``g`` times the
      phase's flipped sub-kernels, one product batched over the groups, written into the phase's
      strided view of the result (:func:`tensorlab.nn._conv_igrad.phase_gemm`);
    * ``"conv"`` (2-d, no dilation or no stride): one forward convolution of ``g`` with the
      phases of the flipped kernel stacked as output channels, then a pixel shuffle
      (:func:`_tconv2d_conv`; with stride 1 just the flipped kernel, no shuffle: also chosen for
      one ``g`` channel per group, where the forward's depthwise kernels win);
    * ``"gemm"``: per group, ``w^T @ g`` gives every tap's contribution (the columns), then
      :func:`col2im` adds them in place with one strided slice per tap;
    * ``"direct"`` (one ``g`` channel per group, e.g. depthwise, with a stride or not in 2-d): no
      product to speak of, so each tap is one broadcast multiply-add of ``g`` by the tap's weights
      into its strided slice; in 2-d with a stride and without dilation, ``"toeplitz"``: banded
      products on slabs of rows (:func:`tensorlab.nn._conv_igrad.depthwise_slabs`).

    ``strategy`` forces one of :data:`SCATTER_STRATEGIES` (tests, benchmarks).
    """
    n = g.shape[0]
    o, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    og = o // groups
    blocks = tuple(g.shape[2:])
    if strategy is None:
        strategy = scatter_strategy(og, len(kernel), dilation, stride)
    if len(kernel) == 2 and (all(d == 1 for d in dilation) or all(s == 1 for s in stride)):
        if strategy == "toeplitz" and og == 1 and all(d == 1 for d in dilation):
            return _igrad.depthwise_slabs(g, w, in_sizes, stride, padding)
        if strategy == "phase":
            return _igrad.phase_gemm(g, w, in_sizes, stride, padding, groups, dilation)
    if strategy in ("direct", "toeplitz") and og == 1:
        return _scatter_direct(g, w, in_sizes, stride, padding, dilation, groups, acc)
    if strategy == "conv" and all(d == 1 for d in dilation):
        if len(kernel) == 2:
            return _tconv2d_conv(g, w, in_sizes, stride, padding, dilation, groups)
        return _tconv_nd_conv(g, w, in_sizes, stride, padding, groups)
    if strategy == "conv" and len(kernel) == 2 and all(s == 1 for s in stride):
        return _tconv2d_conv(g, w, in_sizes, stride, padding, dilation, groups)
    length = int(np.prod(blocks, dtype=np.int64))
    k = int(np.prod(kernel, dtype=np.int64))
    out = np.empty((n, groups * cg, *in_sizes), dtype=g.dtype)
    for gi in range(groups):
        wg = w[gi * og : (gi + 1) * og].reshape(og, cg * k)
        gg = g[:, gi * og : (gi + 1) * og].reshape(n, og, length)
        res = np.matmul(wg.T, gg)  # (N, cg*K, L): one product per image
        cols = res.reshape(n, cg, *kernel, *blocks)
        out[:, gi * cg : (gi + 1) * cg] = col2im(
            cols, in_sizes, kernel, dilation, padding, stride, acc
        )
    return out


SCATTER_STRATEGIES = ("gemm", "direct", "toeplitz", "conv", "phase")


def scatter_strategy(c_in_g: int, nd: int = 2, dilation=(1, 1), stride=(1, 1)) -> str:
    """How :func:`conv_input_grad_nd` runs: with one input channel per group (its columns would be
    outer products) in 2-d with stride 1 ``"conv"`` (the forward depthwise kernels measured
    1.4-1.7x faster than the Toeplitz slabs, 4x faster than ``"direct"`` when dilated), with a
    stride ``"toeplitz"`` (no dilation) or ``"direct"``; else in 2-d with a stride
    (no dilation) ``"phase"`` (one product per output phase), in 2-d with stride 1 (or any
    dims without dilation) ``"conv"`` (forward convolution), else ``"gemm"`` (columns, col2im).
    Above :data:`~tensorlab.nn._conv_igrad.MAX_PHASES` phases (d2l's FCN upsampler: stride 32)
    the phases are stacked as channels of one forward convolution (``"conv"``) instead."""
    no_dilation = all(d == 1 for d in dilation)
    few_phases = nd == 2 and stride[0] * stride[1] <= _igrad.MAX_PHASES
    if c_in_g == 1:  # many phases: the band would be mostly zeros, stack them instead
        if nd == 2 and all(s == 1 for s in stride):  # the forward kernels, flipped kernel
            return "conv"
        if nd == 2 and no_dilation:
            return "toeplitz" if few_phases else "conv"
        return "direct"
    if no_dilation and few_phases and stride[0] * stride[1] > 1:
        return "phase"
    if no_dilation or (nd == 2 and all(s == 1 for s in stride)):
        return "conv"
    return "gemm"


def _tconv2d_conv(g, w, in_sizes, stride, padding, dilation, groups):
    """2-d transposed convolution (dilation 1, or stride 1) as one stride-1 forward
    :func:`conv2d` with ``sh*sw`` times the output channels, then a pixel shuffle.

    The outputs ``r = rho + s*q`` of a phase ``rho`` only see the taps ``a = rho + s*j``:
    ``out[rho + s*q] = sum_j g[q - j] * w[rho + s*j]``, a correlation of ``g`` (zero-padded by
    ``ka - 1``, ``ka = ceil(kH/sh)``) with the phase's flipped sub-kernel (zero taps where the
    kernel ends), in/out channels of each group swapped. Stacked as extra output channels, the
    phases are one convolution (its fastest strategy); they are then interleaved and cropped.
    """
    n, o, hi, wi = g.shape
    _, cg, kh, kw = w.shape
    og = o // groups
    sh, sw = stride
    dh, dw = dilation
    ph, pw = padding
    oh, ow = in_sizes
    if (sh, sw) == (1, 1):  # one phase: the flipped kernel, padded to give exactly the output
        top, left = dh * (kh - 1) - ph, dw * (kw - 1) - pw
        bottom, right = oh - hi - top + dh * (kh - 1), ow - wi - left + dw * (kw - 1)
        if min(top, left, bottom, right) >= 0:
            wc = w.reshape(groups, og, cg, kh, kw)[..., ::-1, ::-1].transpose(0, 2, 1, 3, 4)
            wc = np.ascontiguousarray(wc).reshape(groups * cg, og, kh, kw)
            return conv2d(g, wc, None, (1, 1), (top, bottom, left, right), (dh, dw), groups)
    ka, kb = -(-kh // sh), -(-kw // sw)
    full = _scatter_full(in_sizes, padding, (hi, wi), (kh, kw), stride, dilation)
    qh, qw = -(-full[0] // sh), -(-full[1] // sw)
    wz = np.zeros((groups, og, cg, ka * sh, kb * sw), dtype=w.dtype)
    wz[..., :kh, :kw] = w.reshape(groups, og, cg, kh, kw)
    wc = wz.reshape(groups, og, cg, ka, sh, kb, sw)[:, :, :, ::-1, :, ::-1, :]
    wc = np.ascontiguousarray(wc.transpose(0, 2, 4, 6, 1, 3, 5))
    wc = wc.reshape(groups * cg * sh * sw, og, ka, kb)
    pads = (dh * (ka - 1), max(0, qh - hi), dw * (kb - 1), max(0, qw - wi))
    res = conv2d(g, wc, None, (1, 1), pads, (dh, dw), groups)[:, :, :qh, :qw]
    if sh * sw > 1:
        res = res.reshape(n, groups * cg, sh, sw, qh, qw).transpose(0, 1, 4, 2, 5, 3)
        res = res.reshape(n, groups * cg, qh * sh, qw * sw)
    out = np.empty((n, groups * cg, oh, ow), dtype=g.dtype)
    out[...] = res[:, :, ph : ph + oh, pw : pw + ow]
    return out


def _tconv_nd_conv(g, w, in_sizes, stride, padding, groups):
    """:func:`_tconv2d_conv` in any number of dims (dilation 1), through :func:`conv_nd`: the
    phases of the flipped kernel stacked as output channels of one stride-1 convolution of ``g``
    (zero-padded by ``ka - 1`` before, as needed after), then interleaved and cropped."""
    n, o, *ins = g.shape
    _, cg, *kernel = w.shape
    nd = len(kernel)
    og = o // groups
    ka = [-(-k // s) for k, s in zip(kernel, stride)]
    full = _scatter_full(in_sizes, padding, ins, kernel, stride, [1] * nd)
    q = [-(-f // s) for f, s in zip(full, stride)]
    wz = np.zeros((groups, og, cg, *(a * s for a, s in zip(ka, stride))), dtype=w.dtype)
    wz[(Ellipsis, *(slice(0, k) for k in kernel))] = w.reshape(groups, og, cg, *kernel)
    split = [d for a, s in zip(ka, stride) for d in (a, s)]  # (ka0, s0, ka1, s1, ...)
    wc = wz.reshape(groups, og, cg, *split)[
        (slice(None),) * 3 + tuple(slice(None, None, -1) if i % 2 == 0 else slice(None) for i in range(2 * nd))
    ]  # fmt: skip
    perm = (0, 2, *range(4, 3 + 2 * nd, 2), 1, *range(3, 3 + 2 * nd, 2))
    phases = int(np.prod(stride))
    wc = np.ascontiguousarray(wc.transpose(perm)).reshape(groups * cg * phases, og, *ka)
    gp = np.zeros((n, o, *(qi + a - 1 for qi, a in zip(q, ka))), dtype=g.dtype)
    gp[(slice(None), slice(None), *(slice(a - 1, a - 1 + min(i, qi)) for a, i, qi in zip(ka, ins, q)))] = g[
        (slice(None), slice(None), *(slice(0, qi) for qi in q))
    ]  # fmt: skip
    res = conv_nd(gp, wc, [1] * nd, [0] * nd, [1] * nd, groups)  # (n, G*cg*phases, *q)
    res = res.reshape(n, groups * cg, *stride, *q)
    inter = [d for i in range(nd) for d in (2 + nd + i, 2 + i)]  # q0, s0, q1, s1, ...
    res = res.transpose(0, 1, *inter).reshape(n, groups * cg, *(qi * s for qi, s in zip(q, stride)))
    crop = tuple(slice(p, p + sz) for p, sz in zip(padding, in_sizes))
    return np.ascontiguousarray(res[(slice(None), slice(None), *crop)])


def _scatter_direct(g, w, in_sizes, stride, padding, dilation, groups, acc=None):
    """Transposed convolution with one ``g`` channel per group: per tap, ``g * w[tap]`` added
    into the tap's strided slice of the padded output (taps in order)."""
    n = g.shape[0]
    o, cg = w.shape[:2]  # o == groups here
    kernel = tuple(w.shape[2:])
    nd = len(kernel)
    blocks = tuple(g.shape[2:])
    acc = np.dtype(g.dtype if acc is None else acc)
    full = _scatter_full(in_sizes, padding, blocks, kernel, stride, dilation)
    buf = np.zeros((n, o, cg, *full), dtype=acc)
    g5 = g.reshape(n, o, 1, *blocks)
    wt = w.reshape(o, cg, -1).astype(acc, copy=False)
    tmp = np.empty((n, o, cg, *blocks), dtype=acc)
    ones = (1,) * nd
    for t, tap in enumerate(np.ndindex(*kernel)):
        np.multiply(g5, wt[:, :, t].reshape(1, o, cg, *ones), out=tmp)
        buf[(Ellipsis, *_tap_slices(tap, dilation, blocks, stride))] += tmp
    crop = tuple(slice(p, p + s) for p, s in zip(padding, in_sizes))
    out = buf.reshape(n, o * cg, *full)[(slice(None), slice(None), *crop)]
    return out.astype(g.dtype, copy=False)


def conv_weight_grad_nd(
    g, x, w_shape, stride, padding, dilation, groups, strategy=None
) -> np.ndarray:
    """The gradient of :func:`conv_nd` in its weight: ``g`` (N, O, *blocks) and ``x``.

    The kernels of :mod:`tensorlab.nn._conv_wgrad` (1x1, depthwise, rows, flat); a
    non-finite result from them (their padded grids multiply pixels no tap reads by zero) and
    ``strategy="windows"`` (also chosen for strided kernels of many taps) take the exact way
    here: ``gw[group] = g[group] @ cols[group]^T``, the windows of a chunk of images (a copy, at
    most :data:`CHUNK_BYTES`) as (groups, C/groups*K, images*L) times the output gradient
    (groups, O/groups, images*L), one batched product per chunk.
    """
    n = x.shape[0]
    if strategy != "windows" and x.size and g.size and all(w_shape):
        from ._conv_wgrad import weight_grad

        gw = weight_grad(g, x, w_shape, stride, padding, dilation, groups, strategy)
        if gw is not None and np.isfinite(gw).all():
            return gw
    o, cg = w_shape[:2]
    kernel = tuple(w_shape[2:])
    nd = len(kernel)
    og = o // groups
    blocks = tuple(g.shape[2:])
    length = int(np.prod(blocks, dtype=np.int64))
    k = cg * int(np.prod(kernel, dtype=np.int64))
    gw = np.zeros((groups, og, k), dtype=g.dtype)
    if gw.size == 0 or n * length == 0:
        return gw.reshape(w_shape)
    win = windows_nd(zero_pad_nd(x, padding), kernel, stride, dilation, blocks)
    # (N, C, *kernel, *blocks) -> (groups, cg, *kernel, N, *blocks)
    win = win.reshape(n, groups, cg, *kernel, *blocks)
    perm = (1, 2, *range(3, 3 + nd), 0, *range(3 + nd, 3 + 2 * nd))
    gg = g.reshape(n, groups, og, length)
    chunk = _batch_chunk(n, k * groups * length * x.itemsize)
    for n0 in range(0, n, chunk):
        n1 = min(n, n0 + chunk)
        cols = win[n0:n1].transpose(perm).reshape(groups, k, (n1 - n0) * length)
        gc = gg[n0:n1].transpose(1, 2, 0, 3).reshape(groups, og, (n1 - n0) * length)
        gw += np.matmul(gc, cols.transpose(0, 2, 1))
    return gw.reshape(w_shape)
