"""``tensorlab.nn.functional``: ``conv1d``, ``conv2d`` and ``pad`` with PyTorch 2.13's semantics.

The argument checks follow ATen's order (``at::conv2d`` -> ``batchify`` -> ``_convolution`` ->
``check_shape_forward`` -> the CPU backend PyTorch would pick), so that every wrong call raises the
exception type and message PyTorch raises. The numbers are computed by the pure numpy kernels of
:mod:`tensorlab.nn._conv_kernels`.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._dtype import SCALAR_NAME as _SCALAR_NAME
from .._dtype import TYPE_NAME as _META_NAME
from .._storage import UntypedStorage
from .._tensor import Tensor
from ..autograd import conv as _derivatives  # the backward formulas of conv and pad
from ..autograd.graph import differentiable
from . import _conv_kernels as K
from ._args import (
    check_weight_rank_and_groups,
    fmt_shape,
    parse_conv_args,
    parse_pad_list,
    type_name,
)
from ._conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ._fold import fold, unfold

__all__ = ["conv1d", "conv2d", "pad"]
__all__ += ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "fold", "unfold"]

# ---------------------------------------------------------------------------- dtype names

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

# PyTorch picks oneDNN for float32 when more than one thread is in use (its default on any
# multi-core machine); the backend decides some messages and the output memory format.
_ASSUME_THREADS = 2


def _tensor_type_string(t: Tensor) -> str:
    """``Tensor.toString()``: ``tensorlab.FloatTensor`` (bool tensors say ``CPUBoolType``)."""
    return "CPUBoolType" if t.dtype is D.bool_ else f"tensorlab.{t.dtype._legacy}"


_fmt = fmt_shape


# ---------------------------------------------------------------------------- results


def _finish(out: Tensor, *inputs) -> Tensor:
    """The autograd node was recorded by the decorated step that made ``out``."""
    return out


def _adopt(arr: np.ndarray, dtype: D.dtype, memory_format: str | None = None) -> Tensor:
    """A tensor over ``arr``'s data (``arr`` must be fresh: it is not copied when contiguous).

    ``memory_format`` ``'cl'`` (4-d) / ``'cl3d'`` (5-d) stores channels last, as PyTorch does when
    its inputs are channels-last.
    """
    arr = np.asarray(arr, dtype=dtype.np)
    shape = arr.shape
    if memory_format is not None and arr.ndim in (4, 5):
        perm = (0, *range(2, arr.ndim), 1)
        data = np.ascontiguousarray(arr.transpose(perm))
        storage = UntypedStorage(data.reshape(-1))
        # c10's channels-last strides (no max(size, 1): a zero-size dim zeroes the ones above)
        return Tensor(storage, shape, L.channels_last_strides(shape), 0, dtype)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)
    storage = UntypedStorage(arr.reshape(-1))
    return Tensor(storage, shape, L.contiguous_strides(shape), 0, dtype)


def _channels_last_like(shape, stride) -> bool:
    """ATen's ``is_channels_last_strides_2d`` (4-d) / ``_3d`` (5-d): strides ordered like NHWC."""
    nd = len(shape)
    if nd == 4:
        order = (1, 3, 2, 0)
    elif nd == 5:
        order = (1, 4, 3, 2, 0)
    else:
        return False
    if stride[1] == 0:
        return False
    m = 0
    for d in order:
        if shape[d] == 0:
            return False
        if stride[d] < m:
            return False
        if d == 0 and m == stride[1]:
            return False
        m = stride[d]
        if shape[d] > 1:
            m *= shape[d]
    return True


def _suggest_memory_format(t: Tensor) -> str | None:
    """``Tensor.suggest_memory_format()``: ``'cl'``, ``'cl3d'`` or ``None`` (contiguous)."""
    if _channels_last_like(t.shape, t.stride()):
        return "cl" if t.ndim == 4 else "cl3d"
    return None


# ---------------------------------------------------------------------------- conv: entry points


def conv2d(*args, **kwargs) -> Tensor:
    """2-D cross-correlation, exactly like ``torch.nn.functional.conv2d``.

    ``input`` is (N, C_in, H, W) or unbatched (C_in, H, W); ``weight`` is
    (C_out, C_in/groups, kH, kW); ``bias`` (C_out,) or None. ``stride``, ``padding``, ``dilation``
    are an int or a pair; ``padding`` may also be ``'valid'`` (no padding) or ``'same'`` (output as
    large as the input; an odd total padding puts the extra row/column at the bottom/right).
    Output size per dim: ``floor((H + 2*padding - dilation*(kH - 1) - 1) / stride) + 1``.
    """
    params = parse_conv_args("conv2d", 2, args, kwargs)
    return _conv_nd(*params, spatial=2, fn="conv2d")


def conv1d(*args, **kwargs) -> Tensor:
    """1-D cross-correlation, exactly like ``torch.nn.functional.conv1d``: (N, C_in, L) or (C_in, L)."""
    params = parse_conv_args("conv1d", 1, args, kwargs)
    return _conv_nd(*params, spatial=1, fn="conv1d")


def conv3d(*args, **kwargs) -> Tensor:
    """3-D cross-correlation, exactly like ``torch.nn.functional.conv3d``: (N, C_in, D, H, W) or
    (C_in, D, H, W) with weight (C_out, C_in/groups, kD, kH, kW)."""
    params = parse_conv_args("conv3d", 3, args, kwargs)
    return _conv_nd(*params, spatial=3, fn="conv3d")


def _signature(defaults) -> inspect.Signature:
    P = inspect.Parameter
    names = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
    params = [P(n, P.POSITIONAL_OR_KEYWORD, default=defaults.get(n, P.empty)) for n in names]
    return inspect.Signature(params)


conv2d.__signature__ = _signature(  # type: ignore[attr-defined]
    {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1}
)
conv1d.__signature__ = conv2d.__signature__  # type: ignore[attr-defined]
conv3d.__signature__ = conv2d.__signature__  # type: ignore[attr-defined]


def _conv_nd(input, weight, bias, stride, padding, dilation, groups, *, spatial: int, fn: str):
    """``at::conv{1,2}d``: bias dtype check, batchify, convolution, un-batchify."""
    if not isinstance(padding, str) and bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(
            f"Input type ({_META_NAME[input.dtype.name]}) and bias type "
            f"({_META_NAME[bias.dtype.name]}) should be the same"
        )
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {fn}, "
            f"but got input of size: {_fmt(input.shape)}"
        )
    batched = input.ndim == spatial + 2
    x = input if batched else input.unsqueeze(0)
    if isinstance(padding, str):
        out = _convolution_mode(x, weight, bias, stride, padding, dilation, groups)
    else:
        out = _convolution(x, weight, bias, stride, padding, dilation, groups, [0] * spatial)
    out = out if batched else out.squeeze(0)
    return _finish(out, input, weight, bias)


def _convolution_mode(x, weight, bias, stride, padding: str, dilation, groups):
    if padding == "same":
        return _convolution_same(x, weight, bias, stride, dilation, groups)
    if padding == "valid":
        return _convolution(x, weight, bias, stride, [0], dilation, groups, [0])
    raise RuntimeError(f"Invalid padding string: '{padding}'")


def _trunc_div2(a: int) -> int:
    """C++ ``a / 2`` (rounds toward zero)."""
    return -((-a) // 2) if a < 0 else a // 2


_same_warned = False


def _convolution_same(x, weight, bias, stride, dilation, groups):
    """``padding='same'``: symmetric padding when possible, else pad right/bottom by one first."""
    global _same_warned
    k = weight.ndim
    if k <= 2:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dim = k - 2
    if k != x.ndim:
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight{_fmt(weight.shape)}, but "
            f"got {x.ndim}-dimensional input of size {_fmt(x.shape)} instead"
        )
    if len(stride) not in (dim, 1):
        raise RuntimeError(f"stride cannot broadcast to {dim} dimensions")
    if len(dilation) not in (dim, 1):
        raise RuntimeError(f"dilation cannot broadcast to {dim} dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    pad_l, pad_r = [], []
    for i in range(dim):
        d = dilation[0] if len(dilation) == 1 else dilation[i]
        total = d * (weight.shape[i + 2] - 1)
        left = _trunc_div2(total)
        pad_l.append(left)
        pad_r.append(total - left)
    if pad_l == pad_r:
        return _convolution(x, weight, bias, stride, pad_l, dilation, groups, [0] * dim)
    if not _same_warned:
        _same_warned = True
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created",
            UserWarning,
            stacklevel=5,
        )
    pad_nd = [0] * (2 * dim)
    for i in range(dim):
        delta = pad_r[i] - pad_l[i]
        idx = 2 * (dim - 1 - i)
        if delta > 0:
            pad_nd[idx + 1] = delta
        else:
            pad_nd[idx] = delta
            pad_l[i] = pad_r[i]
    padded = _constant_pad_nd(x, pad_nd, 0)
    return _convolution(padded, weight, bias, stride, pad_l, dilation, groups, [0] * dim)


def _expand_param(name: str, values, dim: int) -> list[int]:
    values = list(values)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match "
            f"the convolution dimensions, but got {name}={_fmt(values)}"
        )
    return values


def _check_shape_forward(x, weight, bias, stride, padding, dilation, groups) -> None:
    """ATen's ``check_shape_forward`` (same order, same messages)."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    ws = weight._shape
    xs = x._shape
    check_weight_rank_and_groups(x, ws, groups)
    k = len(ws)
    if xs[1] != ws[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {_fmt(ws)}, expected input{_fmt(x.shape)} to "
            f"have {ws[1] * groups} channels, but got {xs[1]} channels instead"
        )
    if bias is not None and not (bias.ndim == 1 and bias.shape[0] == ws[0]):
        raise RuntimeError(
            f"Given weight of size {_fmt(ws)}, expected bias to be 1-dimensional with {ws[0]} "
            f"elements, but got bias of size {_fmt(bias.shape)} instead"
        )
    in_sizes = [xs[i + 2] + 2 * padding[i] for i in range(k - 2)]
    k_sizes = [dilation[i] * (ws[i + 2] - 1) + 1 for i in range(k - 2)]
    if any(a < b for a, b in zip(in_sizes, k_sizes)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, in_sizes))}). "
            f"Kernel size: ({' x '.join(map(str, k_sizes))}). Kernel size can't be greater than "
            "actual input size"
        )


@differentiable(_derivatives.convolution_node, "convolution")
def _convolution(x, weight, bias, stride, padding, dilation, groups, output_padding) -> Tensor:
    """ATen's ``_convolution`` for the CPU: checks, 1-d as 2-d, backend choice, compute."""
    k = weight.ndim
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = _expand_param("stride", stride, dim)
    padding = _expand_param("padding", padding, dim)
    dilation = _expand_param("dilation", dilation, dim)
    _expand_param("output_padding", output_padding, dim)
    _check_shape_forward(x, weight, bias, stride, padding, dilation, groups)
    if dim == 1:  # view 1-d as 2-d: (N, C, L) -> (N, C, 1, L)
        x = x.contiguous().unsqueeze(2)
        weight = weight.unsqueeze(2)
        stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
    elif dim == 3:
        return _conv3d_backend(x, weight, bias, stride, padding, dilation, groups)
    elif dim != 2:
        raise NotImplementedError("tensorlab implements 1-d, 2-d and 3-d convolutions only")
    out = _conv2d_backend(x, weight, bias, stride, padding, dilation, groups)
    return out.squeeze(2) if dim == 1 else out


def _conv3d_backend(x, weight, bias, stride, padding, dilation, groups) -> Tensor:
    """The 3-d convolution: PyTorch's backend checks (oneDNN, ``slow_conv3d``,
    ``slow_conv_dilated3d``), then im2col + matrix products (:func:`K.conv_nd`)."""
    n, c = x._shape[:2]
    kernel = weight._shape[2:]
    out_sizes = [
        K.conv_out_size(s, k, st, 2 * p, d)
        for s, k, st, p, d in zip(x._shape[2:], kernel, stride, padding, dilation)
    ]
    if n == 0 or c == 0:
        return _empty_backend(x, weight, bias, (n, weight.shape[0], *out_sizes))
    if x.numel() == 0:
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{_fmt(x.shape)}"
        )
    onednn = x.dtype is D.float32 and (
        groups > 1
        or (kernel[-1] > 3 and kernel[-2] > 3)
        or n > 1
        or n * c * x._shape[2] * x._shape[3] > 20480
    )
    if onednn:
        for t, what in ((weight, "weight"), (bias, "bias")):
            if t is not None and t.dtype is not x.dtype:
                raise RuntimeError(
                    f"Input type ({_tensor_type_string(x)}) and {what} type "
                    f"({_tensor_type_string(t)}) should be the same or input should be a MKLDNN "
                    f"tensor and {what} is a dense tensor"
                )
        if any(d <= 0 for d in dilation):
            raise RuntimeError("non-positive dilation is not supported")
        if min(kernel) <= 0:
            raise RuntimeError(
                "could not create a primitive descriptor for the convolution forward propagation "
                "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
                "additional diagnostic information."
            )
    elif any(d != 1 for d in dilation):
        if min(kernel) <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got {_fmt(kernel)}")
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {_fmt(dilation)}")
        if x.dtype.name not in ("float16", "float32", "float64", "int64"):
            raise NotImplementedError(
                f"\"slow_conv_dilated<>\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'"
            )
        _check_weight_scalar_type(x, weight)
    else:
        if min(kernel) <= 0:
            raise RuntimeError(
                "kernel size should be greater than zero, but got: "
                f"{' x '.join(map(str, kernel))} (TxHxW)"
            )
        if x.dtype is D.bool_:
            raise NotImplementedError("\"compute_columns3d\" not implemented for 'Bool'")
        _check_weight_scalar_type(x, weight)
    ct = _compute_dtype(x.dtype)
    arr = K.conv_nd(
        x._np().astype(ct, copy=False),
        weight._np().astype(ct, copy=False),
        stride,
        padding,
        dilation,
        groups,
    )
    if bias is not None:
        arr += bias._np().astype(x.dtype.np).astype(ct).reshape(1, -1, 1, 1, 1)
    cl = _suggest_memory_format(x) or _suggest_memory_format(weight)
    return _adopt(arr.astype(x.dtype.np, copy=False), x.dtype, "cl3d" if onednn and cl else None)


def _use_onednn(x: Tensor, weight: Tensor, groups: int) -> bool:
    """ATen's ``use_mkldnn`` for a CPU float32 input (which CPU kernel PyTorch runs)."""
    if x.dtype is not D.float32:
        return False
    n, c, h, w = x._shape
    kh, kw = weight._shape[2:]
    one_by_one_single_thread = _ASSUME_THREADS <= 1 and n < 16 and kh == 1 and kw == 1
    return not one_by_one_single_thread and (
        groups > 1 or (kw > 3 and kh > 3) or n > 1 or n * c * h * w > 20480
    )


def _conv2d_backend(x, weight, bias, stride, padding, dilation, groups) -> Tensor:
    """Empty inputs, then the checks of the backend PyTorch would use, then the numpy kernels."""
    n, c, h, w = x._shape
    kh, kw = weight._shape[2:]
    ho = K.conv_out_size(h, kh, stride[0], 2 * padding[0], dilation[0])
    wo = K.conv_out_size(w, kw, stride[1], 2 * padding[1], dilation[1])
    if n == 0 or c == 0:
        return _empty_backend(x, weight, bias, (n, weight.shape[0], ho, wo))
    if x.numel() == 0:
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{_fmt(x.shape)}"
        )
    if _use_onednn(x, weight, groups):
        if weight.dtype is not x.dtype:
            raise RuntimeError(
                f"Input type ({_tensor_type_string(x)}) and weight type "
                f"({_tensor_type_string(weight)}) should be the same or input should be a MKLDNN "
                "tensor and weight is a dense tensor"
            )
        if bias is not None and bias.dtype is not x.dtype:
            raise RuntimeError(
                f"Input type ({_tensor_type_string(x)}) and bias type "
                f"({_tensor_type_string(bias)}) should be the same or input should be a MKLDNN "
                "tensor and bias is a dense tensor"
            )
        if any(d <= 0 for d in dilation):
            raise RuntimeError("non-positive dilation is not supported")
        if kh <= 0 or kw <= 0:
            raise RuntimeError(
                "could not create a primitive descriptor for the convolution forward propagation "
                "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
                "additional diagnostic information."
            )
    elif any(d != 1 for d in dilation):
        if kh <= 0 or kw <= 0:
            raise RuntimeError(f"kernel size should be greater than zero, but got {_fmt([kh, kw])}")
        if any(d <= 0 for d in dilation):
            raise RuntimeError(f"dilation should be greater than zero, but got {_fmt(dilation)}")
        if x.dtype.name not in ("float16", "float32", "float64", "int64"):
            raise NotImplementedError(
                f"\"slow_conv_dilated<>\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'"
            )
        _check_weight_scalar_type(x, weight)
    else:
        if kh <= 0 or kw <= 0:
            raise RuntimeError(
                "kernel size should be greater than zero, but got kernel_height: "
                f"{kh} kernel_width: {kw}"
            )
        if x.dtype is D.bool_:
            raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
        _check_weight_scalar_type(x, weight)
    fmt = "cl" if (_suggest_memory_format(x) or _suggest_memory_format(weight)) else None
    arr = _compute(x, weight, bias, stride, padding, dilation, groups)
    return _adopt(arr, x.dtype, fmt)


def _check_weight_scalar_type(x, weight) -> None:
    if weight.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {_SCALAR_NAME[x.dtype.name]} but found "
            f"{_SCALAR_NAME[weight.dtype.name]}"
        )


def _compute_dtype(d: D.dtype) -> np.dtype:
    """float16 is accumulated in float32; small integer types in int64 (wrapping as C++ does)."""
    if d is D.float16:
        return np.dtype(np.float32)
    if not d.is_floating_point:
        return np.dtype(np.int64)
    return d.np


def _compute(x, weight, bias, stride, padding, dilation, groups) -> np.ndarray:
    ct = _compute_dtype(x.dtype)
    xa = x._np().astype(ct, copy=False)
    wa = weight._np().astype(ct, copy=False)
    ba = None
    if bias is not None:  # a bias of another dtype (string padding, slow path) is cast
        ba = bias._np().astype(x.dtype.np).astype(ct, copy=False)
    ph, pw = padding
    out = K.conv2d(xa, wa, ba, tuple(stride), (ph, ph, pw, pw), tuple(dilation), groups)
    if out.dtype != x.dtype.np:
        out = out.astype(x.dtype.np)
    return out


def _empty_backend(x, weight, bias, out_shape) -> Tensor:
    """PyTorch's ``ConvBackend::Empty`` (zero batch or zero channels): shape and dtype only."""
    if x.shape[1] == 0:  # input.view(-1) * weight.view(-1)
        dtype = D.promote_types(x.dtype, weight.dtype)
        shape = (out_shape[0], 0, *out_shape[2:])
    else:  # input * weight.view(-1)[0]
        if weight.numel() == 0:
            raise IndexError("select(): index 0 out of range for tensor of size [0] at dimension 0")
        dtype = D.result_type(x, Tensor._from_array(np.zeros((), weight.dtype.np), weight.dtype))
        shape = out_shape
    if bias is not None and bias.dtype._category > dtype._category:
        raise RuntimeError(
            f"result type {_SCALAR_NAME[bias.dtype.name]} can't be cast to the desired output "
            f"type {_SCALAR_NAME[dtype.name]}"
        )
    return _adopt(np.empty(shape, dtype=dtype.np), dtype)


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
        return _finish(out, input)
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
    return _finish(out, input)


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
    return _adopt(arr, x.dtype, _suggest_memory_format(x))


def _clone_preserve(arr: np.ndarray, like: Tensor) -> Tensor:
    """``clone()`` with ``preserve_format``: keep dense strides, else infer a dense permutation."""
    shape, stride = tuple(like.shape), like.stride()
    if not L.is_non_overlapping_and_dense(shape, stride):
        stride = _infer_dense_strides(shape, stride)
    storage_arr = np.empty(max(L.numel(shape), 0), dtype=like.dtype.np)
    out = Tensor(UntypedStorage(storage_arr), shape, tuple(stride), 0, like.dtype)
    if arr.size:
        out._np()[...] = arr
    return out


def _infer_dense_strides(shape, stride) -> tuple[int, ...]:
    """ATen's ``infer_dense_strides``: a dense layout with the dims ordered as ``stride`` orders them."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, nd):
        dim1 = i
        for j in range(1, i + 1):
            dim0 = i - j
            c = should_swap(perm[dim0], perm[dim1])
            if c > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif c < 0:
                break
    out = [0] * nd
    cur = 1
    for d in perm:
        out[d] = cur
        if shape[d] > 1:
            cur *= shape[d]
    return tuple(out)


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
    return _adopt(arr, x.dtype, _suggest_memory_format(x))


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
    return _adopt(arr, x.dtype)


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


# ---------------------------------------------------------------------------- layers (nn)
# activations, linear, pooling, normalization, losses and upsampling live in nn/_functional/
# (one file per family, as in torch/nn/functional.py's sections); their names are public here.

from ._functional.activation import (  # noqa: E402
    dropout,
    dropout2d,
    elu,
    gelu,
    hardtanh,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    relu,
    relu6,
    relu_,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from ._functional.linear import linear, one_hot  # noqa: E402
from ._functional.pooling import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
    max_pool2d_with_indices,
    max_unpool2d,
)

__all__ += [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "dropout",
    "dropout2d",
    "elu",
    "gelu",
    "hardtanh",
    "relu6",
    "silu",
    "softplus",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "max_pool1d",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_unpool2d",
    "one_hot",
    "relu",
    "relu_",
    "sigmoid",
    "softmax",
    "tanh",
]

from ._functional.loss import (  # noqa: E402
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ._functional.normalization import batch_norm, layer_norm  # noqa: E402
from ._functional.sparse import embedding  # noqa: E402
from ._functional.upsampling import interpolate, upsample  # noqa: E402

__all__ += [
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "embedding",
    "interpolate",
    "l1_loss",
    "layer_norm",
    "mse_loss",
    "nll_loss",
    "upsample",
]
