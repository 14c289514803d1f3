"""Pooling: ``max_pool1d/2d`` (with indices), ``avg_pool1d/2d``, ``adaptive_avg_pool2d``,
``adaptive_max_pool2d``, ``max_unpool2d`` (ATen's Pool.h, DilatedMaxPool2d.cpp,
AveragePool2d.cpp, AdaptiveAveragePooling.cpp, MaxUnpooling.cpp).

A window is read one kernel tap at a time: tap ``(a, b)`` of every window is one strided slice of
the (padded) input, ``x[..., a*d : : s, b*d : : s]``, so a pooling costs ``kH*kW`` vectorised numpy
operations on arrays of the output's size, whatever the batch. The argument checks follow ATen's
order so that a wrong call raises torch's exception and message.
"""

from __future__ import annotations

import collections.abc

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, from_array
from ...autograd import pooling as P
from ..modules.utils import _pair
from ._util import check_tensor, compute_dtype, record, suggest_memory_format

# ---------------------------------------------------------------------------- argument parsing


def _tuple_arg(value, n: int, fname: str, what: str, message: str, *, allow_empty=False):
    if isinstance(value, collections.abc.Iterable):
        vals = tuple(int(v) for v in value)
    else:
        vals = (int(value),)
    if allow_empty and len(vals) == 0:
        return None
    if len(vals) not in (1, n):
        raise RuntimeError(f"{fname}: {what} {message}")
    return vals * n if len(vals) == 1 else vals


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_int_args(fname: str, **args) -> None:
    """torch's parser for ``int[]`` arguments: an int or a sequence of ints, nothing else
    (``kernel_size=2.5`` raises rather than being truncated). Positions as torch counts them."""
    positions = {"kernel_size": 2, "stride": 3, "padding": 4, "dilation": 5, "output_size": 2}
    for name, value in args.items():
        if value is None:
            continue
        if isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                if not _is_int(v):
                    raise TypeError(
                        f"{fname}(): argument '{name}' failed to unpack the object at pos {i + 1} "
                        f'with error "type must be tuple of ints,but got {type(v).__name__}"'
                    )
        elif not _is_int(value):
            raise TypeError(
                f"{fname}(): argument '{name}' (position {positions[name]}) must be tuple of "
                f"ints, not {type(value).__name__}"
            )


def _div_rtn(a: int, b: int) -> int:
    """C++'s ``div_rtn``: division rounding toward negative infinity."""
    return a // b


def pooling_output_shape(size, k, pad, stride, dilation, ceil_mode) -> int:
    """``at::native::pooling_output_shape`` with its checks (stride, padding <= k/2)."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > int(((k - 1) * dilation + 1) / 2):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={k} and dilation={dilation}"
        )
    out = (
        _div_rtn(size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0), stride)
        + 1
    )
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _pool2d_shape_check(x, kh, kw, sh, sw, ph, pw, dh, dw, c, h, w, oh, ow) -> None:
    if not (kw > 0 and kh > 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if not (sw > 0 and sh > 0):
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if not (dh > 0 and dw > 0):
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}"
        )
    shape = x.shape
    valid = x.ndim >= 3 and shape[1] != 0 and shape[2] != 0
    if not ((x.ndim == 3 and shape[0] != 0 and valid) or (x.ndim == 4 and valid and shape[3] != 0)):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:[{', '.join(str(s) for s in shape)}]"
        )
    if not (kw // 2 >= pw and kh // 2 >= ph):
        raise RuntimeError(
            "pad should be smaller than or equal to half of kernel size, but got "
            f"padW = {pw}, padH = {ph}, kW = {kw}, kH = {kh}"
        )
    if ow < 1 or oh < 1:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
            "Output size is too small"
        )


def _not_implemented(name: str, x: Tensor) -> NotImplementedError:
    return NotImplementedError(f"\"{name}\" not implemented for '{D.SCALAR_NAME[x.dtype.name]}'")


def _as4d(x: np.ndarray) -> np.ndarray:
    return x[None] if x.ndim == 3 else x


def _pool_result(arr: np.ndarray, x: Tensor, dtype: D.dtype | None = None) -> Tensor:
    """The result, unbatched again when ``x`` was, laid out like torch (channels last in, out)."""
    if x.ndim == 3:
        arr = arr[0]
    fmt = suggest_memory_format(x) if x.ndim == 4 else None
    return from_array(arr, dtype or x.dtype, memory_format=fmt, fresh=True)


def _tap(xp: np.ndarray, a: int, b: int, oh, ow, sh, sw, dh, dw) -> np.ndarray:
    """Tap ``(a, b)`` of every window: a strided view of the padded input, (N, C, oh, ow)."""
    r0, c0 = a * dh, b * dw
    return xp[:, :, r0 : r0 + (oh - 1) * sh + 1 : sh, c0 : c0 + (ow - 1) * sw + 1 : sw]


def _padded(x: np.ndarray, ph, pw, hn, wn, fill) -> np.ndarray:
    """``x`` (N, C, H, W) inside a (N, C, hn, wn) array of ``fill``, offset by the padding."""
    n, c, h, w = x.shape
    if ph == 0 and pw == 0 and hn <= h and wn <= w:
        return x
    xp = np.full((n, c, max(hn, h + ph), max(wn, w + pw)), fill, dtype=x.dtype)
    xp[:, :, ph : ph + h, pw : pw + w] = x
    return xp


# ---------------------------------------------------------------------------- max pooling


def _max_pool2d_args(x, kernel_size, stride, padding, dilation, fname="max_pool2d"):
    k = _tuple_arg(
        kernel_size, 2, fname, "kernel_size", "must either be a single int, or a tuple of two ints"
    )
    s = _tuple_arg(
        stride if stride is not None else (),
        2,
        fname,
        "stride",
        "must either be omitted, a single int, or a tuple of two ints",
        allow_empty=True,
    )
    s = k if s is None else s
    p = _tuple_arg(
        padding, 2, fname, "padding", "must either be a single int, or a tuple of two ints"
    )
    d = _tuple_arg(
        dilation, 2, fname, "dilation", "must be either a single int, or a tuple of two ints"
    )
    return k, s, p, d


def max_pool2d_with_indices(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = True,
):
    """The largest value of each window and where it is (flat index into H*W of the input)."""
    check_tensor(input, "max_pool2d_with_indices", "input")
    check_int_args(
        "max_pool2d_with_indices" if return_indices else "max_pool2d",
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
    )
    x = input
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = _max_pool2d_args(
        x, kernel_size, stride, padding, dilation
    )
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    c, h, w = x.shape[-3:]
    oh = pooling_output_shape(h, kh, ph, sh, dh, ceil_mode)
    ow = pooling_output_shape(w, kw, pw, sw, dw, ceil_mode)
    _pool2d_shape_check(x, kh, kw, sh, sw, ph, pw, dh, dw, c, h, w, oh, ow)
    if x.dtype is D.bool_:
        raise _not_implemented("max_pool2d", x)
    if x.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.pool(x, oh, ow, "MaxPool2DWithIndicesBackward0", return_indices)
    arr = _as4d(x._np())
    out, idx = _max_pool_kernel(arr, (kh, kw), (sh, sw), (ph, pw), (dh, dw), oh, ow)
    values = _pool_result(out, x)
    indices = _pool_result(idx, x, D.int64)
    geometry = ((kh, kw), (sh, sw), (ph, pw), (dh, dw))
    record(
        values,
        lambda: P.MaxPool2DWithIndicesBackward0(x, idx, geometry),
        x,
    )
    return (values, indices) if return_indices else values


def _max_pool_kernel(arr, k, s, p, d, oh, ow):
    """Max of each window and its flat index (torch's rule: the first maximum in row-major
    order; a NaN wins, the last NaN; all -inf: the first in-bounds position)."""
    if arr.dtype.kind == "f" and arr.size and not np.isnan(arr).any():
        return _max_pool_kernel_fast(arr, k, s, p, d, oh, ow)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    n, c, h, w = arr.shape
    floating = arr.dtype.kind == "f"
    lowest = -np.inf if floating else np.iinfo(arr.dtype).min
    hn = (oh - 1) * sh + (kh - 1) * dh + 1
    wn = (ow - 1) * sw + (kw - 1) * dw + 1
    xp = _padded(arr, ph, pw, hn, wn, lowest)
    # the first in-bounds position of each window: torch's index when nothing beats -inf
    r = np.arange(oh) * sh - ph
    c0 = np.arange(ow) * sw - pw
    rows0 = np.where(r < 0, r + (-r + dh - 1) // dh * dh, r)
    cols0 = np.where(c0 < 0, c0 + (-c0 + dw - 1) // dw * dw, c0)
    best = np.full((n, c, oh, ow), lowest, dtype=arr.dtype)
    idx = np.empty((n, c, oh, ow), dtype=np.int64)
    idx[...] = rows0[:, None] * w + cols0[None, :]
    m = np.empty((n, c, oh, ow), dtype=bool)
    for a in range(kh):
        for b in range(kw):
            v = _tap(xp, a, b, oh, ow, sh, sw, dh, dw)
            np.greater(v, best, out=m)
            if floating:
                m |= np.isnan(v)
            np.copyto(best, v, where=m)
            # where this tap reads, as a flat index into the unpadded H*W plane
            np.copyto(idx, (r[:, None] + a * dh) * w + (c0[None, :] + b * dw), where=m)
    return best, idx


def _max_pool_kernel_fast(arr, k, s, p, d, oh, ow):
    """NaN-free floats, branch-free: the maxima by ``fmax`` over the taps (the padding is NaN,
    which ``fmax`` skips), then, going through the taps backwards, the number of each tap equal
    to its window's maximum (so the first such tap wins; a NaN pad never equals), kept in small
    ints and turned into flat indices once at the end (int64 updates per tap cost ~1.4x)."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    n, c, h, w = arr.shape
    hn = (oh - 1) * sh + (kh - 1) * dh + 1
    wn = (ow - 1) * sw + (kw - 1) * dw + 1
    xp = _padded(arr, ph, pw, hn, wn, np.nan)
    taps = [(a, b) for a in range(kh) for b in range(kw)]
    views = [_tap(xp, a, b, oh, ow, sh, sw, dh, dw) for a, b in taps]
    best = np.fmax(views[0], -np.inf)
    for v in views[1:]:
        np.fmax(best, v, out=best)
    small = np.int8 if len(taps) <= 127 else np.int32
    tap = np.zeros((n, c, oh, ow), dtype=small)
    eq = np.empty((n, c, oh, ow), dtype=bool)
    step = np.empty((n, c, oh, ow), dtype=small)
    for t in range(len(taps) - 1, 0, -1):
        np.equal(views[t], best, out=eq)
        np.subtract(small(t), tap, out=step)  # tap += eq * (t - tap): t where equal
        np.multiply(step, eq, out=step)
        tap += step
    np.equal(views[0], best, out=eq)
    np.multiply(tap, ~eq, out=tap)  # tap 0 where it equals
    r = np.arange(oh) * sh - ph
    c0 = np.arange(ow) * sw - pw
    offsets = np.array([a * dh * w + b * dw for a, b in taps], dtype=np.int64)
    idx = offsets[tap]  # where the tap reads, as a flat index into the unpadded H*W plane
    idx += r[:, None] * w + c0[None, :]
    return best, idx


def max_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """The largest value of each ``kernel_size`` window (``MaxPool2DWithIndicesBackward0``)."""
    check_int_args(
        "max_pool2d_with_indices" if return_indices else "max_pool2d",
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
    )
    out = max_pool2d_with_indices(
        input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True
    )
    return out if return_indices else out[0]


def _single(value, fname: str, what: str) -> int | None:
    if isinstance(value, collections.abc.Iterable):
        vals = tuple(value)
        if len(vals) != 1:
            raise RuntimeError(
                f"{fname}() {what} must be {'None, ' if what == 'stride' else ''}an int, list of "
                f"ints{',' if what == 'stride' else ''} or tuple of ints of size 1 but got size "
                f"{len(vals)}"
            )
        return int(vals[0])
    return int(value)


def max_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    dilation=1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    """``max_pool2d`` over the last dim of a (N, C, L) or (C, L) input (``SqueezeBackward1``).

    As in torch, ``return_indices=True`` runs ``max_pool1d_with_indices`` (2-d checks and
    messages) and the plain call runs ``max_pool1d``'s own checks first."""
    check_tensor(input, "max_pool1d")
    check_int_args(
        "max_pool1d_with_indices" if return_indices else "max_pool1d",
        kernel_size=kernel_size,
        stride=stride,
        padding=padding,
        dilation=dilation,
    )
    if stride is None or (isinstance(stride, (list, tuple)) and not stride):
        stride = kernel_size
    if return_indices:
        return _max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
            f"for input, but got:[{', '.join(str(s) for s in input.shape)}]"
        )
    k = _single(kernel_size, "max_pool1d", "kernel_size")
    s = _single(stride, "max_pool1d", "stride")
    p = _single(padding, "max_pool1d", "padding")
    d = _single(dilation, "max_pool1d", "dilation")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(
            "max_pool1d() padding should be at most half of kernel size, but got "
            f"padding={p} and kernel_size={k}"
        )
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    lout = pooling_output_shape(input.shape[-1], k, p, s, d, ceil_mode)
    if lout <= 0:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {lout}")
    out, _ = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return out.squeeze(-2)


def _check1d(fname: str, arg: str, value) -> int:
    if isinstance(value, collections.abc.Iterable):
        vals = tuple(value)
        if len(vals) != 1:
            raise RuntimeError(
                f"{fname}() argument '{arg}' should contain one int (got {len(vals)})"
            )
        return int(vals[0])
    return int(value)


def _max_pool1d_with_indices(x, kernel_size, stride, padding, dilation, ceil_mode):
    if x.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
            "'self' (while checking arguments for max_pool1d)"
        )
    k = _check1d("max_pool1d", "kernel_size", kernel_size)
    s = _check1d("max_pool1d", "stride", stride)
    p = _check1d("max_pool1d", "padding", padding)
    d = _check1d("max_pool1d", "dilation", dilation)
    out, idx = max_pool2d_with_indices(x.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return out.squeeze(-2), idx.squeeze(-2)


# ---------------------------------------------------------------------------- average pooling


def avg_pool2d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override=None,
) -> Tensor:
    """The mean of each window (``AvgPool2DBackward0``); ``count_include_pad`` counts the zero
    padding in the divisor, ``divisor_override`` replaces the divisor."""
    check_tensor(input, "avg_pool2d")
    check_int_args("avg_pool2d", kernel_size=kernel_size, stride=stride, padding=padding)
    x = input
    k = _tuple_arg(
        kernel_size,
        2,
        "avg_pool2d",
        "kernel_size",
        "must either be a single int, or a tuple of two ints",
    )
    s = _tuple_arg(
        stride if stride is not None else (),
        2,
        "avg_pool2d",
        "stride",
        "must either be omitted, a single int, or a tuple of two ints",
        allow_empty=True,
    )
    (kh, kw) = k
    (sh, sw) = k if s is None else s
    (ph, pw) = _tuple_arg(
        padding, 2, "avg_pool2d", "padding", "must either be a single int, or a tuple of two ints"
    )
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if x.ndim < 3:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(x.ndim, 1)}, "
            f"{max(x.ndim, 1) - 1}], but got -3)"
        )
    c, h, w = x.shape[-3:]
    oh = pooling_output_shape(h, kh, ph, sh, 1, ceil_mode)
    ow = pooling_output_shape(w, kw, pw, sw, 1, ceil_mode)
    _pool2d_shape_check(x, kh, kw, sh, sw, ph, pw, 1, 1, c, h, w, oh, ow)
    if x.dtype is D.bool_:
        raise _not_implemented("avg_pool2d", x)
    if x.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.pool(x, oh, ow, "AvgPool2DBackward0")
    arr = _as4d(x._np())
    div = _avg_divisor(
        h, w, (kh, kw), (sh, sw), (ph, pw), oh, ow, count_include_pad, divisor_override
    )
    ct = compute_dtype(x.dtype) if x.dtype.is_floating_point else np.int64
    a = arr.astype(ct, copy=False)
    hn, wn = (oh - 1) * sh + kh, (ow - 1) * sw + kw
    xp = _padded(a, ph, pw, hn, wn, 0)
    total = np.zeros((arr.shape[0], arr.shape[1], oh, ow), dtype=ct)
    for i in range(kh):
        for j in range(kw):
            total += _tap(xp, i, j, oh, ow, sh, sw, 1, 1)
    if x.dtype.is_floating_point:
        res = total / div.astype(ct)
    else:
        res = np.where(div > 0, np.trunc(total / np.maximum(div, 1)), 0)
    res = np.where(div > 0, res, 0) if (div <= 0).any() else res
    out = _pool_result(res.astype(x.dtype.np), x)
    geometry = ((kh, kw), (sh, sw), (ph, pw))
    return record(out, lambda: P.AvgPool2DBackward0(x, div, geometry), x)


def _avg_divisor(h, w, k, s, p, oh, ow, count_include_pad, divisor_override) -> np.ndarray:
    """The divisor of each output position (0 where the window holds no input element)."""

    def axis(size, k, s, p, o):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, size + p)
        pool = end - start
        start, end = np.maximum(start, 0), np.minimum(end, size)
        return pool, np.maximum(end - start, 0)

    pool_h, in_h = axis(h, k[0], s[0], p[0], oh)
    pool_w, in_w = axis(w, k[1], s[1], p[1], ow)
    inside = in_h[:, None] * in_w[None, :]
    if divisor_override is not None:
        div = np.full((oh, ow), divisor_override, dtype=np.int64)
    elif count_include_pad:
        div = pool_h[:, None] * pool_w[None, :]
    else:
        div = inside
    return np.where(inside > 0, div, 0)


def avg_pool1d(
    input: Tensor,
    kernel_size,
    stride=None,
    padding=0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """``avg_pool2d`` over the last dim of a (N, C, L) or (C, L) input (``SqueezeBackward1``)."""
    check_tensor(input, "avg_pool1d")
    check_int_args("avg_pool1d", kernel_size=kernel_size, stride=stride, padding=padding)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument "
            "#1 'self' (while checking arguments for avg_pool1d)"
        )
    k = _single(kernel_size, "avg_pool1d", "kernel_size")
    if stride is None or (isinstance(stride, (list, tuple)) and not stride):
        s = k
    else:
        s = _single(stride, "avg_pool1d", "stride")
    p = _single(padding, "avg_pool1d", "padding")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


# ---------------------------------------------------------------------------- adaptive pooling


def _adaptive_bounds(size: int, out: int):
    """ATen's ``start_index``/``end_index``: window ``i`` is ``[floor(i*size/out),
    ceil((i+1)*size/out))``."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _output_pair(output_size, x: Tensor, fname: str):
    if isinstance(output_size, collections.abc.Iterable):
        vals = list(output_size)
    else:
        vals = [output_size, output_size]
    if len(vals) == 2:
        vals = [x.shape[-2 + i] if v is None else int(v) for i, v in enumerate(vals)]
    return vals


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Mean over windows that tile the input into ``output_size`` (they may overlap by one)."""
    check_tensor(input, "adaptive_avg_pool2d")
    x = input
    size = _output_pair(output_size, x, "adaptive_avg_pool2d")
    if len(size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if size[0] < 0 or size[1] < 0:
        raise RuntimeError(
            "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 "
            f"but received {{{size[0]}, {size[1]}}}"
        )
    shape_s = ", ".join(str(s) for s in x.shape)
    for i in range(1, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError(
                "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes [{shape_s}] with dimension {i} being empty"
            )
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [{shape_s}]")
    if tuple(size) == (1, 1):
        return x.mean(dim=(-1, -2), keepdim=True)
    if not x.dtype.is_floating_point:
        raise _not_implemented("adaptive_avg_pool2d", x)
    oh, ow = size
    if x.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.pool(x, oh, ow, "AdaptiveAvgPool2DBackward0")
    arr = _as4d(x._np())
    h, w = arr.shape[-2:]
    ct = compute_dtype(x.dtype)
    a = arr.astype(ct, copy=False)
    hs, he = _adaptive_bounds(h, oh)
    ws, we = _adaptive_bounds(w, ow)
    res = np.empty((arr.shape[0], arr.shape[1], oh, ow), dtype=ct)
    if oh and ow and h % oh == 0 and w % ow == 0:
        kh, kw = h // oh, w // ow
        total = np.zeros(res.shape, dtype=ct)
        for i in range(kh):
            for j in range(kw):
                total += a[:, :, i::kh, j::kw]
        res = total / ct.type(kh) / ct.type(kw)
    else:
        for i in range(oh):
            for j in range(ow):
                win = a[:, :, hs[i] : he[i], ws[j] : we[j]]
                kh, kw = he[i] - hs[i], we[j] - ws[j]
                res[:, :, i, j] = win.sum(axis=(2, 3)) / ct.type(kh) / ct.type(kw)
    out = _pool_result(res.astype(x.dtype.np), x)
    return record(out, lambda: P.AdaptiveAvgPool2DBackward0(x, (hs, he, ws, we)), x)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max over windows that tile the input into ``output_size`` (``AdaptiveMaxPool2DBackward0``)."""
    check_tensor(input, "adaptive_max_pool2d")
    x = input
    shape_s = ", ".join(str(s) for s in x.shape)
    if x.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [{shape_s}]")
    for i in range(1, x.ndim):
        if x.shape[i] <= 0:
            raise RuntimeError(
                "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                f"dimensions, but input has sizes [{shape_s}] with dimension {i} being empty"
            )
    size = _output_pair(output_size, x, "adaptive_max_pool2d")
    if len(size) != 2:
        raise RuntimeError("adaptive_max_pool2d(): internal error: output_size.size() must be 2")
    if not x.dtype.is_floating_point:
        raise _not_implemented("adaptive_max_pool2d", x)
    oh, ow = size
    if x.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.pool(x, oh, ow, "AdaptiveMaxPool2DBackward0", return_indices)
    arr = _as4d(x._np())
    n, c, h, w = arr.shape
    hs, he = _adaptive_bounds(h, oh)
    ws, we = _adaptive_bounds(w, ow)
    res = np.empty((n, c, oh, ow), dtype=arr.dtype)
    idx = np.empty((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            win = arr[:, :, hs[i] : he[i], ws[j] : we[j]]
            kw = we[j] - ws[j]
            flat = win.reshape(n, c, -1)
            am = _argmax_nan_last(flat)
            res[:, :, i, j] = np.take_along_axis(flat, am[..., None], axis=-1)[..., 0]
            r, cc = np.divmod(am, kw)
            idx[:, :, i, j] = (hs[i] + r) * w + ws[j] + cc
    values = _pool_result(res, x)
    indices = _pool_result(idx, x, D.int64)
    record(
        values,
        lambda: P.MaxPool2DWithIndicesBackward0(x, idx, None, "AdaptiveMaxPool2DBackward0"),
        x,
    )
    return (values, indices) if return_indices else values


def _argmax_nan_last(flat: np.ndarray) -> np.ndarray:
    """torch's rule: the first maximum, except that a NaN wins (the last NaN)."""
    am = flat.argmax(axis=-1) if flat.shape[-1] else np.zeros(flat.shape[:-1], dtype=np.int64)
    nan = np.isnan(flat)
    if nan.any():
        last_nan = flat.shape[-1] - 1 - nan[..., ::-1].argmax(axis=-1)
        am = np.where(nan.any(axis=-1), last_nan, am)
    return am


# ---------------------------------------------------------------------------- unpooling


def max_unpool2d(
    input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None
):
    """Put each value back where ``max_pool2d`` found it (``indices``); zeros elsewhere."""
    check_tensor(input, "max_unpool2d")
    k = _pair(kernel_size)
    s = _pair(stride) if stride is not None else k
    p = _pair(padding)
    size = _unpool_output_size(input, k, s, p, output_size)
    oh, ow = size
    if indices.dtype is not D.int64:
        raise RuntimeError(
            f"elements in indices should be type int64 but got: {D.SCALAR_NAME[indices.dtype.name]}"
        )
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(
            "Expected shape of indices to be same as that of the input tensor "
            f"([{', '.join(str(v) for v in input.shape)}]) but got indices tensor with shape: "
            f"[{', '.join(str(v) for v in indices.shape)}]"
        )
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with "
            f"{input.ndim} dimensions."
        )
    arr = _as4d(input._np())
    idx = _as4d(indices._np())
    n, c = arr.shape[:2]
    flat_idx = idx.reshape(n * c, -1)
    if flat_idx.size:
        bad = (flat_idx < 0) | (flat_idx >= oh * ow)
        if bad.any():
            first = flat_idx[bad][0]
            raise RuntimeError(
                f"Found an invalid max index: {first} (output volumes are of size {oh}x{ow})"
            )
    res = np.zeros((n * c, oh * ow), dtype=arr.dtype)
    np.put_along_axis(res, flat_idx, arr.reshape(n * c, -1), axis=1)
    res = res.reshape(n, c, oh, ow)
    if input.ndim == 3:
        res = res[0]
    out = from_array(res, input.dtype, fresh=True)
    return record(out, lambda: P.MaxUnpool2DBackward0(input, idx), input)


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.shape
    default_size = []
    for d in range(len(kernel_size)):
        default_size.append(
            (input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
        )
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(
                "output_size should be a sequence containing "
                f"{len(kernel_size)} or {len(kernel_size) + 2} elements, but it has a length of "
                f"'{len(output_size)}'"
            )
        for d in range(len(kernel_size)):
            min_size = default_size[d] - stride[d]
            max_size = default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {d} must be between {min_size} '
                    f"and {max_size})"
                )
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError(
                "max_unpooling: output_size must contain non-negative spatial dimensions, but "
                f"got output_size[{d}]={ret[d]}"
            )
    return list(ret)


def _adaptive_1d_checks(x: Tensor, output_size, fname: str) -> int:
    if x.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
            f"'self' (while checking arguments for {fname})"
        )
    return _check1d(fname, "output_size", output_size)


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    """``adaptive_avg_pool2d`` over the last dim of (N, C, L) or (C, L) (``SqueezeBackward1``)."""
    check_tensor(input, "adaptive_avg_pool1d")
    size = _adaptive_1d_checks(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """``adaptive_max_pool2d`` over the last dim of (N, C, L) or (C, L)."""
    check_tensor(input, "adaptive_max_pool1d")
    size = _adaptive_1d_checks(input, output_size, "adaptive_max_pool1d")
    out, idx = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), True)
    out, idx = out.squeeze(-2), idx.squeeze(-2)
    return (out, idx) if return_indices else out
