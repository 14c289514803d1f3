"""Numeric kernels for padding and convolution, on numpy arrays only.

Nothing here knows about tensors, dtypes or PyTorch's error messages: the callers in
``functional.py`` validate the arguments the way PyTorch does and hand over plain arrays.

Convolution strategies (all are vectorised; the choice is made per call by :func:`conv2d`):

* ``"1x1"``        a 1x1 kernel is one matrix product per group (after subsampling by the stride);
* ``"depthwise"``  one input channel per group: ``kH*kW`` shifted multiply-adds, no matrix product;
* ``"flat"``       stride 1: one matrix product per group of *all* kernel taps with the flattened,
                   padded image, then ``kH*kW`` shifted adds of contiguous slices (no window copy);
* ``"im2col"``     everything else: the windows of one group (a strided view) are copied into a
                   matrix and multiplied by that group's weights.

Memory: at most one group's windows (or one group's tap products) exist at a time, and batches are
processed in chunks so that the temporary stays below :data:`CHUNK_BYTES`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

#: upper bound (bytes) for the temporary matrix of one group and one chunk of the batch
CHUNK_BYTES = 24 * 2**20

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


def choose_strategy(
    c_in_g: int, c_out_g: int, kernel: tuple[int, int], stride: tuple[int, int], groups: int
) -> str:
    """Which kernel :func:`conv2d` uses for these sizes (see the module docstring)."""
    kh, kw = kernel
    if kh == 1 and kw == 1:
        return "1x1"
    if c_in_g == 1:
        return "depthwise"
    if stride == (1, 1) and c_out_g <= 2 * c_in_g:
        return "flat"
    return "im2col"


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
    (N, O, H_out, W_out) array. ``strategy`` forces one kernel (for tests and benchmarks).
    """
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    ho = conv_out_size(h, kh, sh, pt + pb, dh)
    wo = conv_out_size(wd, kw, sw, pl + pr, dw)
    og = o // groups
    strategy = strategy or choose_strategy(cg, og, (kh, kw), (sh, sw), groups)
    out = np.empty((n, o, ho, wo), dtype=x.dtype)
    if out.size == 0:
        return out
    if strategy == "1x1":
        _conv_1x1(x, w, stride, padding, groups, out)
    else:
        # crop padding that no window reaches (stride leftovers), then pad with zeros
        need_h = (ho - 1) * sh + (kh - 1) * dh + 1
        need_w = (wo - 1) * sw + (kw - 1) * dw + 1
        xp = _pad_crop(x, pt, pl, need_h, need_w)
        if strategy == "depthwise" and cg == 1:
            _conv_depthwise(xp, w, stride, dilation, groups, out)
        elif strategy == "flat" and stride == (1, 1):
            _conv_flat(xp, w, dilation, groups, out)
        else:
            _conv_im2col(xp, w, stride, dilation, groups, out)
    if b is not None:
        out += b.reshape(1, o, 1, 1)
    return out


def _pad_crop(x: np.ndarray, pt: int, pl: int, need_h: int, need_w: int) -> np.ndarray:
    """The zero-padded input restricted to the ``need_h x need_w`` rows/cols windows touch."""
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


def _batch_chunk(n: int, bytes_per_item: int) -> int:
    """How many batch items fit in :data:`CHUNK_BYTES` (at least one)."""
    return max(1, min(n, CHUNK_BYTES // max(bytes_per_item, 1)))


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
    if n == 1 or p >= 1024:
        xg = xs.reshape(n, groups, cg, p)  # copies only when the subsampled view needs it
        np.matmul(wg, xg, out=out.reshape(n, groups, og, p))
    else:
        # small images, several of them: one product per group over the whole batch
        xt = np.ascontiguousarray(xs.reshape(n, groups, cg, p).transpose(1, 2, 0, 3))
        res = np.matmul(wg, xt.reshape(groups, cg, n * p))  # (G, og, N*P)
        out.reshape(n, groups, og, p)[...] = res.reshape(groups, og, n, p).transpose(2, 0, 1, 3)


def _conv_flat(xp, w, dilation, groups, out):
    """Stride 1: products of all taps with the flattened padded image, then shifted adds.

    With the padded image flattened to length ``Hp*Wp``, the window of output ``(i, j)`` for tap
    ``(a, b)`` starts at ``(i + a*dh)*Wp + j + b*dw``: for a fixed tap, all outputs read one
    *contiguous* slice. ``Y[t] = W[:, :, t] @ X`` is computed for all taps with one matrix product,
    and ``out = sum_t Y[t][offset_t : offset_t + L]`` on a grid ``Ho x Wp`` (the last ``Wp - Wo``
    columns of each row are discarded).
    """
    n, c, hp, wp = xp.shape
    o, cg, kh, kw = w.shape
    dh, dw = dilation
    og = o // groups
    ho, wo = out.shape[2:]
    taps = [(a, b) for a in range(kh) for b in range(kw)]
    offsets = [a * dh * wp + b * dw for a, b in taps]
    length = (ho - 1) * wp + wo
    xf = xp.reshape(n, c, hp * wp)
    grid = np.empty((min(n, 1), og, ho * wp), dtype=xp.dtype)  # resized per chunk below
    chunk = _batch_chunk(n, len(taps) * og * hp * wp * xp.itemsize)
    for g in range(groups):
        # (T*og, cg): row t*og + k is weight[g*og + k, :, a, b]
        wt = w[g * og : (g + 1) * og].transpose(2, 3, 0, 1).reshape(len(taps) * og, cg)
        xg = xf[:, g * cg : (g + 1) * cg]
        for n0 in range(0, n, chunk):
            n1 = min(n, n0 + chunk)
            y = np.matmul(wt, xg[n0:n1])  # (chunk, T*og, Hp*Wp)
            if grid.shape[0] != n1 - n0:
                grid = np.empty((n1 - n0, og, ho * wp), dtype=xp.dtype)
            acc = grid[:, :, :length]
            np.copyto(acc, y[:, 0:og, offsets[0] : offsets[0] + length])
            for t in range(1, len(taps)):
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


def _conv_im2col(xp, w, stride, dilation, groups, out):
    """Copy one group's windows into a (C/g*kH*kW, Ho*Wo) matrix per image, multiply by weights."""
    n = xp.shape[0]
    o, cg, kh, kw = w.shape
    og = o // groups
    ho, wo = out.shape[2:]
    p = ho * wo
    k = cg * kh * kw
    win = _windows(xp, (kh, kw), stride, dilation, (ho, wo))
    chunk = _batch_chunk(n, k * p * xp.itemsize)
    for g in range(groups):
        wg = w[g * og : (g + 1) * og].reshape(og, k)
        for n0 in range(0, n, chunk):
            n1 = min(n, n0 + chunk)
            cols = win[n0:n1, g * cg : (g + 1) * cg].reshape(n1 - n0, k, p)  # the copy
            out[n0:n1, g * og : (g + 1) * og] = np.matmul(wg, cols).reshape(n1 - n0, og, ho, wo)


def _conv_depthwise(xp, w, stride, dilation, groups, out):
    """One input channel per group: ``out[:, c*m + k] = sum_taps w[c*m + k, 0, a, b] * shifted x[:, c]``.

    ``m = out_channels / in_channels`` (the depth multiplier). Each tap is one broadcast
    multiply-add over the whole output; for stride 1 the shifted inputs are contiguous slices of
    the flattened padded image (as in :func:`_conv_flat`).
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
        for t in range(kh * kw):
            a, b = divmod(t, kw)
            off = a * dh * wp + b * dw
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
