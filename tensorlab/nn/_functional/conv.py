"""``conv1d``, ``conv2d``, ``conv3d`` with PyTorch 2.13's semantics (``conv_transpose*`` live in
:mod:`tensorlab.nn._conv_transpose`).

The argument checks follow ATen's order (``at::conv2d`` -> ``batchify`` -> ``_convolution`` ->
``check_shape_forward`` -> the CPU backend PyTorch would pick), so that every wrong call raises the
exception type and message PyTorch raises. The numbers are computed by the pure numpy kernels of
:mod:`tensorlab.nn._conv_kernels`.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from ... import _dtype as D
from ..._dtype import SCALAR_NAME as _SCALAR_NAME
from ..._dtype import TYPE_NAME as _META_NAME
from ..._tensor import Tensor, channels_last, channels_last_3d, from_array
from ...autograd import conv as _derivatives  # the backward formulas of conv and pad
from ...autograd.graph import differentiable
from .. import _conv_kernels as K
from .._args import (
    check_weight_rank_and_groups,
    expand_param,
    fmt_shape,
    parse_conv_args,
    tensor_type_string,
)
from ._util import suggest_memory_format
from .padding import _constant_pad_nd

# PyTorch picks oneDNN for float32 when more than one thread is in use (its default on any
# multi-core machine); the backend decides some messages and the output memory format.
_ASSUME_THREADS = 2


_fmt = fmt_shape


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
    return out


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
    stride = expand_param("stride", stride, dim)
    padding = expand_param("padding", padding, dim)
    dilation = expand_param("dilation", dilation, dim)
    expand_param("output_padding", output_padding, dim)
    _check_shape_forward(x, weight, bias, stride, padding, dilation, groups)
    if x.is_meta or weight.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        return meta.conv(x, weight, bias, stride, padding, dilation, groups)
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
                    f"Input type ({tensor_type_string(x)}) and {what} type "
                    f"({tensor_type_string(t)}) should be the same or input should be a MKLDNN "
                    f"tensor and {what} is a dense tensor"
                )
        _check_onednn_sizes(kernel, dilation)
    elif any(d != 1 for d in dilation):
        _check_slow_dilated(x, weight, kernel, dilation)
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
    cl = suggest_memory_format(x) or suggest_memory_format(weight)
    fmt = channels_last_3d if onednn and cl else None
    return from_array(arr.astype(x.dtype.np, copy=False), x.dtype, memory_format=fmt, fresh=True)


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
                f"Input type ({tensor_type_string(x)}) and weight type "
                f"({tensor_type_string(weight)}) should be the same or input should be a MKLDNN "
                "tensor and weight is a dense tensor"
            )
        if bias is not None and bias.dtype is not x.dtype:
            raise RuntimeError(
                f"Input type ({tensor_type_string(x)}) and bias type "
                f"({tensor_type_string(bias)}) should be the same or input should be a MKLDNN "
                "tensor and bias is a dense tensor"
            )
        _check_onednn_sizes([kh, kw], dilation)
    elif any(d != 1 for d in dilation):
        _check_slow_dilated(x, weight, [kh, kw], dilation)
    else:
        if kh <= 0 or kw <= 0:
            raise RuntimeError(
                "kernel size should be greater than zero, but got kernel_height: "
                f"{kh} kernel_width: {kw}"
            )
        if x.dtype is D.bool_:
            raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")
        _check_weight_scalar_type(x, weight)
    fmt = channels_last if (suggest_memory_format(x) or suggest_memory_format(weight)) else None
    arr = _compute(x, weight, bias, stride, padding, dilation, groups)
    if fmt is None and arr.size and arr.flags.c_contiguous and arr.dtype == x.dtype.np:
        return Tensor._adopt(arr, x.dtype)  # the kernels' fresh result, as from_array keeps it
    return from_array(arr, x.dtype, memory_format=fmt, fresh=True)


def _check_onednn_sizes(kernel, dilation) -> None:
    """oneDNN's refusals of a non-positive dilation or kernel size."""
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if min(kernel) <= 0:
        raise RuntimeError(
            "could not create a primitive descriptor for the convolution forward propagation "
            "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
            "additional diagnostic information."
        )


def _check_slow_dilated(x, weight, kernel, dilation) -> None:
    """The checks of ``slow_conv_dilated{2,3}d``, the CPU path of a dilated convolution."""
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got {_fmt(kernel)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {_fmt(dilation)}")
    if x.dtype.name not in ("float16", "float32", "float64", "int64"):
        raise NotImplementedError(
            f"\"slow_conv_dilated<>\" not implemented for '{_SCALAR_NAME[x.dtype.name]}'"
        )
    _check_weight_scalar_type(x, weight)


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
    return from_array(np.empty(shape, dtype=dtype.np), dtype, fresh=True)
