"""``pad`` (``constant``, ``reflect``, ``replicate``, ``circular``) with PyTorch 2.13's checks and
messages, and the layout of its result (channels last in, channels last out)."""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _layout as L
from ..._tensor import Tensor, from_array
from ...autograd import conv as _derivatives  # the backward formulas of conv and pad
from ...autograd.graph import differentiable
from .. import _conv_kernels as K
from .._args import (
    fmt_shape,
    parse_pad_list,
    type_name,
)
from ._util import suggest_memory_format

# ScalarType and TypeMeta names ("expected scalar type Float but found Double") live in _dtype
# c10 names in "value cannot be converted to type int8_t without overflow"
_CPP_NAME = {
    "bool": "bool",
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int32_t",
    "int64": "int64_t",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}

_fmt = fmt_shape


# ---------------------------------------------------------------------------- padding

_NON_CONSTANT_HELP = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dims, exactly like ``torch.nn.functional.pad``.

    ``pad`` lists (before, after) pairs starting from the *last* dim: ``(left, right, top,
    bottom)`` pads W then H. Negative values crop. Modes: ``'constant'`` (fill with ``value``,
    default 0), ``'reflect'`` (mirror without repeating the edge: numpy ``reflect``, scipy
    ``symm`` repeats the edge instead), ``'replicate'`` (repeat the edge: numpy ``edge``) and
    ``'circular'`` (wrap around: numpy ``wrap``). Non-constant modes pad the last 1, 2 or 3 dims
    of a 2-3, 3-4 or 4-5 dim input, and reflect padding must be smaller than the dim.
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"pad(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    pads = parse_pad_list(pad)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type_name(mode)}")
    if value is not None and (
        isinstance(value, Tensor) and value.numel() != 1 or not _is_real_number(value)
    ):
        raise TypeError(
            f"pad(): argument 'value' (position 4) must be float, not {type_name(value)}"
        )
    if value is not None:
        value = float(value.item() if isinstance(value, Tensor) else value)
    if mode not in K.PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    ndim = input.ndim
    if len(pads) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pads) > 2 * ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pads)} and input of dimension {ndim}"
        )
    if mode == "constant":
        out = _constant_pad_nd(input, pads, 0.0 if value is None else value)
        return out
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pads) // 2
    if k not in (1, 2, 3) or ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pads)} is not supported for {ndim}D input tensor.\n"
            + _NON_CONSTANT_HELP
        )
    if mode == "circular":
        out = _pad_circular(input, pads)
    else:
        out = _pad_reflect_replicate(input, pads, mode)
    return out


def _is_real_number(v) -> bool:
    if isinstance(v, Tensor):
        return True
    return isinstance(v, (int, float, np.integer, np.floating, np.bool_)) and not isinstance(
        v, complex
    )


def _pairs_by_dim(pads, ndim: int) -> list[tuple[int, int]]:
    """F.pad's flat list (last dim first) -> [(before, after)] for the padded dims in dim order."""
    k = len(pads) // 2
    return [(pads[2 * (k - 1 - i)], pads[2 * (k - 1 - i) + 1]) for i in range(k)]


def _checked_fill(value: float, dtype: D.dtype):
    """The fill value in ``dtype``, or PyTorch's overflow error."""
    name = dtype.name
    if dtype is D.bool_:
        return bool(value)
    if dtype.is_floating_point:
        if math.isfinite(value) and abs(value) > float(np.finfo(dtype.np).max):
            raise RuntimeError(
                f"value cannot be converted to type {_CPP_NAME[name]} without overflow"
            )
        return value
    info = np.iinfo(dtype.np)
    if not math.isfinite(value) or value < info.min or value > info.max:
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAME[name]} without overflow")
    return int(value)


@differentiable(_derivatives.constant_pad_node, "constant_pad_nd")
def _constant_pad_nd(x: Tensor, pads, value) -> Tensor:
    """ATen's ``constant_pad_nd``: crop negative pads with ``narrow``, then fill and copy."""
    ndim = x.ndim
    pairs = _pairs_by_dim(pads, ndim)
    lead = ndim - len(pairs)
    sizes = list(x.shape)
    for i, (b, a) in enumerate(pairs):
        d = lead + i
        if b < 0:
            if sizes[d] + b < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            sizes[d] += b
        if a < 0:
            if sizes[d] + a < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            sizes[d] += a
    if all(b <= 0 and a <= 0 for b, a in pairs):
        # PyTorch returns clone() of the cropped view (keeping its layout), nothing is filled
        src = x
        for i, (b, a) in enumerate(pairs):
            src = src.narrow(lead + i, -b, x.shape[lead + i] + b + a)
        return _clone_preserve(src._np(), src)
    fill = _checked_fill(value, x.dtype)
    arr = K.pad(x._np(), pairs, "constant", fill)
    return from_array(arr, x.dtype, memory_format=suggest_memory_format(x), fresh=True)


def _clone_preserve(arr: np.ndarray, like: Tensor) -> Tensor:
    """``clone()`` with ``preserve_format``: keep dense strides, else infer a dense permutation."""
    stride = L.preserve_strides(like._shape, like._stride)
    return from_array(arr, like.dtype, shape=like._shape, stride=stride)


@differentiable(_derivatives.reflect_replicate_node, "pad")
def _pad_reflect_replicate(x: Tensor, pads, mode: str) -> Tensor:
    """ATen's ``reflection_pad{1,2,3}d`` / ``replication_pad{1,2,3}d`` checks and result."""
    k = len(pads) // 2
    ndim = x.ndim
    batch_mode = ndim == k + 2
    dims = range(1, ndim) if batch_mode else range(ndim)
    if any(x.shape[d] == 0 for d in dims):
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {_fmt(x.shape)}"
        )
    pairs = _pairs_by_dim(pads, ndim)
    lead = ndim - k
    if mode == "reflect":
        # pads of the last dim are "Argument #4", then #6, #8 for the dims before it
        for j in range(k):
            d = ndim - 1 - j
            b, a = pairs[k - 1 - j]
            if not (b < x.shape[d] and a < x.shape[d]):
                raise RuntimeError(
                    f"Argument #{4 + 2 * j}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({b}, {a}) at dimension {d} of input "
                    f"{_fmt(x.shape)}"
                )
    out_sizes = [x.shape[lead + i] + b + a for i, (b, a) in enumerate(pairs)]
    if (k == 1 and out_sizes[0] < 1) or (k > 1 and all(s < 1 for s in out_sizes)):
        raise RuntimeError(_too_small_message(x.shape[lead:], out_sizes, mode))
    if any(s < 0 for s in out_sizes):
        shape = list(x.shape[:lead]) + out_sizes
        neg = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: {_fmt(shape)}")
    if x.dtype is D.bool_:
        kind = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kind}_pad{k}d\" not implemented for 'Bool'")
    arr = K.pad(x._np(), pairs, mode)
    return from_array(arr, x.dtype, memory_format=suggest_memory_format(x), fresh=True)


def _too_small_message(in_sizes, out_sizes, mode) -> str:
    if len(in_sizes) == 1:
        return f"input (W: {in_sizes[0]}) is too small. Calculated output W: {out_sizes[0]}"
    if len(in_sizes) == 2:
        sep = " " if mode == "replicate" else ""
        return (
            f"input (H: {in_sizes[0]}, W: {in_sizes[1]}{sep}) is too small. Calculated output "
            f"H: {out_sizes[0]} W: {out_sizes[1]}"
        )
    return (
        f"input (D: {in_sizes[0]} H: {in_sizes[1]}, W: {in_sizes[2]}) is too small. Calculated "
        f"output D: {out_sizes[0]} H: {out_sizes[1]} W: {out_sizes[2]}"
    )


@differentiable(_derivatives.circular_pad_node, "pad")
def _pad_circular(x: Tensor, pads) -> Tensor:
    """ATen's ``_pad_circular``: wrap around, with its checks (pads may not wrap twice)."""
    ndim = x.ndim
    pairs = _pairs_by_dim(pads, ndim)
    k = len(pairs)
    lead = ndim - k
    for i, (b, a) in enumerate(pairs):
        size = x.shape[lead + i]
        if not (b <= size and a <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if size + b + a < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    arr = _circular_like_aten(x._np(), pairs)
    return from_array(arr, x.dtype, fresh=True)


_OVERLAP_MSG = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def _circular_like_aten(a: np.ndarray, pairs) -> np.ndarray:
    """ATen's circular padding step by step: copy the (cropped) input into the middle, then fill
    each padded dim (last dim first, left then right) by copying slices *of the output itself*.

    When a pad is longer than the cropped input, source and destination overlap: ATen refuses
    when both slices are dense (partial overlap), else copies forward, index by index (cells it
    never wrote stay uninitialised in PyTorch; here they are 0).
    """
    k = len(pairs)
    lead = a.ndim - k
    shape = a.shape[:lead] + tuple(s + b + e for s, (b, e) in zip(a.shape[lead:], pairs))
    out = np.zeros(shape, dtype=a.dtype)
    src = [slice(None)] * lead + [
        slice(max(-b, 0), s - max(-e, 0)) for s, (b, e) in zip(a.shape[lead:], pairs)
    ]
    dst = [slice(None)] * lead + [
        slice(max(b, 0), n - max(e, 0)) for n, (b, e) in zip(shape[lead:], pairs)
    ]
    if out.size == 0:
        return out
    out[tuple(dst)] = a[tuple(src)]
    for i in reversed(range(k)):
        d = lead + i
        b, e = pairs[i]
        n = shape[d]
        if b > 0:
            _copy_along(out, d, (0, b), (n - b - max(e, 0), n - max(e, 0)))
        if e > 0:
            _copy_along(out, d, (n - e, n), (max(b, 0), max(b, 0) + e))
    return out


def _copy_along(out: np.ndarray, d: int, dst, src) -> None:
    """``out[.., dst, ..] = out[.., src, ..]`` along dim ``d`` with ATen's overlap rules."""
    (d0, d1), (s0, s1) = dst, src
    s0c, s1c = max(s0, 0), max(s1, 0)
    if s1c - s0c != d1 - d0:
        s0c = s1c - (d1 - d0)
    full = out.shape[d]
    dense = all(s <= 1 for s in out.shape[:d])

    def is_dense(lo, hi):
        return dense or (lo == 0 and hi == full)

    if (d0, d1) != (s0c, s1c) and is_dense(d0, d1) and is_dense(s0c, s1c):
        if max(d0, s0c) < min(d1, s1c):  # the memory ranges intersect
            raise RuntimeError(_OVERLAP_MSG)
    index = [slice(None)] * out.ndim
    for j in range(d1 - d0):  # forward, one index at a time (what a strided copy does)
        index[d] = d0 + j
        dst_i = tuple(index)
        index[d] = s0c + j
        out[dst_i] = out[tuple(index)]
