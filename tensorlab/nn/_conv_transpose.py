"""``F.conv_transpose1d/2d/3d`` and the 3-d convolution, with PyTorch 2.13's checks and layouts.

A transposed convolution is the gradient of a convolution with respect to its input: every input
pixel is multiplied by the whole kernel and the products are added into the output where that
kernel's window would have come from (zero-insertion by the stride, then a full convolution with
the flipped kernel, cropped by ``padding``). ``weight`` is (C_in, C_out/groups, *kernel) -- the
shape of the convolution it transposes. Output size per dim:
``(in - 1)*stride - 2*padding + dilation*(kernel - 1) + output_padding + 1``.

The checks follow ATen (``at::conv_transpose{1,2,3}d`` -> batchify -> ``_convolution`` with
``transposed=True`` -> the CPU backend PyTorch would pick: oneDNN for most float32 calls, else
``slow_conv_transpose{2,3}d``); the numbers come from :mod:`tensorlab.nn._conv_kernels`.
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import _dtype as D
from .._dtype import SCALAR_NAME
from .._tensor import Tensor
from ..autograd import conv as _derivatives
from ..autograd.graph import differentiable
from . import _conv_kernels as K
from ._args import (
    check_weight_rank_and_groups,
    expand_param,
    fmt_shape,
    is_int_like,
    tensor_type_string,
    type_name,
    unpack_int_list,
)

__all__ = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"]

_PARAMS = ("input", "weight", "bias", "stride", "padding", "output_padding", "groups", "dilation")
_DEFAULTS = {
    "bias": None,
    "stride": 1,
    "padding": 0,
    "output_padding": 0,
    "groups": 1,
    "dilation": 1,
}
_KINDS = {"input": "Tensor", "weight": "Tensor", "bias": "Tensor", "groups": "int"}


_fmt = fmt_shape


def _parse(fn: str, spatial: int, args: tuple, kwargs: dict) -> list:
    """PyTorch's single-signature parser for ``conv_transpose{1,2,3}d`` (its messages)."""
    if len(args) > len(_PARAMS):
        raise TypeError(
            f"{fn}() takes from 2 to {len(_PARAMS)} positional arguments but {len(args)} were given"
        )
    bound = dict(zip(_PARAMS, args))
    for k, v in kwargs.items():
        if k not in _PARAMS:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{k}'")
        bound[k] = v
    for req in ("input", "weight"):
        if req not in bound:
            raise TypeError(f'{fn}() missing 1 required positional arguments: "{req}"')
    positional = set(_PARAMS[: len(args)])
    out = []
    for i, name in enumerate(_PARAMS):
        v = bound.get(name, _DEFAULTS.get(name))
        where = f" (position {i + 1})" if name in positional else ""
        kind = _KINDS.get(name, "tuple of ints")
        if kind == "Tensor":
            if not (isinstance(v, Tensor) or (name == "bias" and v is None)):
                raise TypeError(
                    f"{fn}(): argument '{name}'{where} must be Tensor, not {type_name(v)}"
                )
        elif kind == "int":
            if not is_int_like(v):
                raise TypeError(f"{fn}(): argument '{name}'{where} must be int, not {type_name(v)}")
            v = int(v.item() if isinstance(v, Tensor) else v)
        else:
            if isinstance(v, (tuple, list)):
                if len(v) and not is_int_like(v[0]):
                    raise TypeError(
                        f"{fn}(): argument '{name}'{where} must be tuple of ints, but found "
                        f"element of type {type_name(v[0])} at pos 0"
                    )
                v = unpack_int_list(fn, name, v)
            elif is_int_like(v):
                v = [int(v.item() if isinstance(v, Tensor) else v)] * spatial
            else:
                raise TypeError(
                    f"{fn}(): argument '{name}'{where} must be tuple of ints, not {type_name(v)}"
                )
        out.append(v)
    return out


def conv_transpose1d(*args, **kwargs) -> Tensor:
    """1-D transposed convolution, exactly like ``torch.nn.functional.conv_transpose1d``.

    ``input`` (N, C_in, L) or (C_in, L); ``weight`` (C_in, C_out/groups, k). Arguments in
    PyTorch's order: ``bias, stride, padding, output_padding, groups, dilation``.
    """
    return _conv_transpose_nd(*_parse("conv_transpose1d", 1, args, kwargs), spatial=1)


def conv_transpose2d(*args, **kwargs) -> Tensor:
    """2-D transposed convolution ("deconvolution"), exactly like ``F.conv_transpose2d``.

    ``input`` (N, C_in, H, W) or (C_in, H, W); ``weight`` (C_in, C_out/groups, kH, kW).
    ``output_padding`` (smaller than the stride or the dilation) adds rows/columns at the
    bottom/right, to pick one of the input sizes a strided convolution maps to the same size.
    """
    return _conv_transpose_nd(*_parse("conv_transpose2d", 2, args, kwargs), spatial=2)


def conv_transpose3d(*args, **kwargs) -> Tensor:
    """3-D transposed convolution, exactly like ``torch.nn.functional.conv_transpose3d``."""
    return _conv_transpose_nd(*_parse("conv_transpose3d", 3, args, kwargs), spatial=3)


_P = inspect.Parameter
_SIG = inspect.Signature(
    [_P(n, _P.POSITIONAL_OR_KEYWORD, default=_DEFAULTS.get(n, _P.empty)) for n in _PARAMS]
)
for _f in (conv_transpose1d, conv_transpose2d, conv_transpose3d):
    _f.__signature__ = _SIG  # type: ignore[attr-defined]


def _conv_transpose_nd(
    input, weight, bias, stride, padding, output_padding, groups, dilation, *, spatial: int
):
    """``at::conv_transpose{1,2,3}d``: batchify, ``_convolution(transposed=True)``, un-batchify."""
    fn = f"conv_transpose{spatial}d"
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {fn}, "
            f"but got input of size: {_fmt(input.shape)}"
        )
    batched = input.ndim == spatial + 2
    x = input if batched else input.unsqueeze(0)
    out = _convolution_transpose(x, weight, bias, stride, padding, dilation, output_padding, groups)
    return out if batched else out.squeeze(0)


def _check_shape_forward_transposed(
    x, weight, bias, stride, padding, dilation, output_padding, groups
):
    """ATen's ``check_shape_forward`` with ``transposed=True`` (same order, same messages)."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    ws = tuple(weight.shape)
    check_weight_rank_and_groups(x, ws, groups)
    if x.shape[1] != ws[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {_fmt(ws)}, expected input{_fmt(x.shape)} to "
            f"have {ws[0]} channels, but got {x.shape[1]} channels instead"
        )
    if bias is not None and not (bias.ndim == 1 and bias.shape[0] == ws[1] * groups):
        raise RuntimeError(
            f"Given transposed=1, weight of size {_fmt(ws)}, expected bias to be 1-dimensional "
            f"with {ws[1] * groups} elements, but got bias of size {_fmt(bias.shape)} instead"
        )


def transposed_out_sizes(in_sizes, kernel, stride, padding, dilation, output_padding):
    """``(in - 1)*stride - 2*padding + dilation*(kernel - 1) + output_padding + 1`` per dim."""
    return [
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, k, s, p, d, op in zip(in_sizes, kernel, stride, padding, dilation, output_padding)
    ]


def _use_onednn(x, weight, stride, dilation, output_padding, groups) -> bool:
    """ATen's ``use_mkldnn`` for a float32 transposed convolution (2 threads, as torch defaults)."""
    if x.dtype is not D.float32:
        return False
    if any(op >= s for op, s in zip(output_padding, stride)):  # is_output_padding_big
        return False
    s = x.shape
    return (
        groups > 1
        or (weight.shape[-1] > 3 and weight.shape[-2] > 3)
        or s[0] > 1
        or s[0] * s[1] * s[2] * s[3] > 20480
    )


def _names(dim: int) -> list[str]:
    return ["depth", "height", "width"][3 - dim :]


def _pairs(label: str, values, names) -> str:
    return " ".join(f"{label}_{n}: {v}" for n, v in zip(names, values))


def _slow_checks(
    x, weight, bias, kernel, stride, dilation, output_padding, in_sizes, out_sizes, groups=1
):
    """``slow_conv_transpose{2,3}d_shape_check``: ATen's own kernel when oneDNN is not used."""
    dim = len(kernel)
    names = _names(dim)
    if dim == 3 and weight.numel() == 0:  # slow_conv_transpose3d checks the weight first,
        shape = [weight.shape[0] // groups, *weight.shape[1:]]  # one group's (ATen splits them)
        raise RuntimeError(
            "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x "
            f"kernel_width) tensor expected for weight, but got: {shape}"
        )
    if not all(k > 0 for k in kernel):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got {_pairs('kernel', kernel, names)}"
        )
    if not all(s > 0 for s in stride):
        raise RuntimeError(
            f"stride should be greater than zero, but got {_pairs('stride', stride, names)}"
        )
    if not all(d > 0 for d in dilation):
        raise RuntimeError(
            "dilation should be greater than zero, but got "
            + ", ".join(f"dilation_{n}: {v}" for n, v in zip(names, dilation))
        )
    if not all(op < s or op < d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"{_pairs('output_padding', output_padding, names)} {_pairs('stride', stride, names)} "
            f"{_pairs('dilation', dilation, names)}"
        )
    if any(o < 1 for o in out_sizes):
        raise RuntimeError(
            f"Given input size per channel: ({' x '.join(map(str, in_sizes))}). Calculated output "
            f"size per channel: ({' x '.join(map(str, out_sizes))}). Output size is too small"
        )
    ok = x.dtype.is_floating_point or x.dtype is D.int64
    if not ok:
        raise NotImplementedError(
            f'"slow_conv_transpose{dim}d_out_cpu" not implemented for '
            f"'{SCALAR_NAME[x.dtype.name]}'"
        )
    if weight.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {SCALAR_NAME[x.dtype.name]} but found "
            f"{SCALAR_NAME[weight.dtype.name]}"
        )
    # slow_conv_transpose2d casts a bias of another dtype; the 3-d kernel refuses it
    if dim == 3 and bias is not None and bias.dtype is not x.dtype:
        raise RuntimeError(
            f"expected scalar type {SCALAR_NAME[x.dtype.name]} but found "
            f"{SCALAR_NAME[bias.dtype.name]}"
        )


def _onednn_checks(x, weight, bias, dilation, kernel, out_sizes, dim) -> None:
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and t.dtype is not x.dtype:
            raise RuntimeError(
                f"Input type ({tensor_type_string(x)}) and {what} type ({tensor_type_string(t)}) "
                f"should be the same or input should be a MKLDNN tensor and {what} is a dense "
                "tensor"
            )
    if dim == 3 and any(d <= 0 for d in dilation):
        raise RuntimeError("dimensions are invalid")
    if any(o < 0 for o in out_sizes):  # a negative dimension
        raise RuntimeError("could not construct a memory descriptor using a format tag")
    if any(d <= 0 for d in dilation) or min(kernel) <= 0:
        raise RuntimeError(
            "could not create a primitive descriptor for the deconvolution forward propagation "
            "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
            "additional diagnostic information."
        )


@differentiable(_derivatives.convolution_transpose_node, "convolution")
def _convolution_transpose(x, weight, bias, stride, padding, dilation, output_padding, groups):
    """ATen's ``_convolution`` with ``transposed=True`` for the CPU."""
    from .._tensor import channels_last, channels_last_3d, from_array
    from ._functional._util import suggest_memory_format
    from ._functional.conv import _empty_backend

    k = weight.ndim
    dim = k - 2
    if dim <= 0:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    stride = expand_param("stride", stride, dim)
    padding = expand_param("padding", padding, dim)
    dilation = expand_param("dilation", dilation, dim)
    output_padding = expand_param("output_padding", output_padding, dim)
    _check_shape_forward_transposed(
        x, weight, bias, stride, padding, dilation, output_padding, groups
    )
    if x.is_meta or weight.is_meta:  # the meta device: the shape, no data
        from .._ops import meta

        return meta.conv(x, weight, bias, stride, padding, dilation, groups, True, output_padding)
    if dim == 1:  # view 1-d as 2-d: (N, C, L) -> (N, C, 1, L)
        x = x.contiguous().unsqueeze(2)
        weight = weight.unsqueeze(2)
        stride, padding = [1, *stride], [0, *padding]
        dilation, output_padding = [1, *dilation], [0, *output_padding]
    kernel = list(weight.shape[2:])
    in_sizes = list(x.shape[2:])
    out_sizes = transposed_out_sizes(in_sizes, kernel, stride, padding, dilation, output_padding)
    c_out = weight.shape[1] * groups
    n = x.shape[0]
    if n == 0 or x.shape[1] == 0:
        out = _empty_backend(x, weight, bias, (n, c_out, *out_sizes))
        return out.squeeze(2) if dim == 1 else out
    if x.numel() == 0:
        raise RuntimeError(
            "Only zero batch or zero channel inputs are supported, but got input shape: "
            f"{_fmt(x.shape)}"
        )
    onednn = _use_onednn(x, weight, stride, dilation, output_padding, groups)
    cl = suggest_memory_format(x) or suggest_memory_format(weight)
    if onednn and cl and any(o < 0 for o in out_sizes):
        # a channels-last output is allocated first, with a negative size
        raise RuntimeError("numel: integer multiplication overflow")
    if onednn:
        _onednn_checks(x, weight, bias, dilation, kernel, out_sizes, len(kernel))
    else:
        _slow_checks(
            x, weight, bias, kernel, stride, dilation, output_padding, in_sizes, out_sizes, groups
        )
    ct = np.dtype(np.float32) if x.dtype is D.float16 else x.dtype.np
    xa = x._np().astype(ct, copy=False)
    wa = weight._np().astype(ct, copy=False)
    arr = K.conv_input_grad_nd(xa, wa, out_sizes, stride, padding, dilation, groups)
    if bias is not None:
        b = bias._np().astype(x.dtype.np).astype(ct)
        arr += b.reshape(1, c_out, *([1] * len(kernel)))
    arr = arr.astype(x.dtype.np, copy=False)
    if len(kernel) == 2:
        fmt = channels_last if cl else None
    else:  # only oneDNN writes a channels-last 3-d result
        fmt = channels_last_3d if onednn and cl else None
    out = from_array(arr, x.dtype, memory_format=fmt, fresh=True)
    return out.squeeze(2) if dim == 1 else out
