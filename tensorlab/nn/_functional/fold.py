"""``F.unfold`` (im2col) and ``F.fold`` (col2im), exactly like PyTorch 2.13's.

``unfold`` copies every sliding block of a (N, C, H, W) image into a column: the result is
(N, C*kH*kW, L) with ``L`` the number of blocks. It must copy: overlapping windows share input
pixels, and a matrix with one column per window cannot be a strided view of the image in general
(the windows of one row are, ``Tensor.unfold`` shows it; the stacked (C*kH*kW, L) matrix is not).
``fold`` is its adjoint: each column is added back where its block came from (overlap-add), so
``fold(unfold(x))`` multiplies every pixel by the number of blocks covering it.

The checks follow ATen's ``im2col_shape_check`` / ``col2im_shape_check`` in their order; the numbers
come from :func:`tensorlab.nn._conv_kernels.im2col` / ``col2im``.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._dtype import SCALAR_NAME
from ..._tensor import Tensor
from ...autograd import conv as _derivatives
from ...autograd.graph import differentiable
from .. import _conv_kernels as K
from .._args import is_int_like, type_name, unpack_int_list
from ..modules.utils import _pair

__all__ = ["fold", "unfold"]


def _ints(fn: str, name: str, pos: int, value) -> list[int]:
    """PyTorch's parser for a ``tuple of ints`` argument given as a tuple."""
    if len(value) and not is_int_like(value[0]):
        raise TypeError(
            f"{fn}(): argument '{name}' (position {pos}) must be tuple of ints, but found element "
            f"of type {type_name(value[0])} at pos 0"
        )
    return unpack_int_list(fn, name, value)


def _check_len(name: str, values) -> None:
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")


def _check_kernel(kernel, name: str = "kernel size") -> None:
    kh, kw = kernel
    if not (kh > 0 and kw > 0):
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: "
            f"{kw}"
        )


def _check_positive(name: str, label: str, values) -> None:
    h, w = values
    if not (h > 0 and w > 0):
        raise RuntimeError(
            f"{name} should be greater than zero, but got {label}_height: {h} {label}_width: {w}"
        )


def _check_padding(padding) -> None:
    h, w = padding
    if not (h >= 0 and w >= 0):
        raise RuntimeError(
            f"padding should be non-negative, but got pad_height: {h} pad_width: {w}"
        )


def _check_dtype(x: Tensor, kernel_name: str) -> None:
    if not (x.dtype.is_floating_point or x.dtype is D.bool_):
        raise NotImplementedError(
            f"\"{kernel_name}\" not implemented for '{SCALAR_NAME[x.dtype.name]}'"
        )


def _blocks(size: int, k: int, d: int, p: int, s: int) -> int:
    """``div_rtn(size + 2p - (d(k-1) + 1), s) + 1`` (floor division, as ATen's ``div_rtn``)."""
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _fmt2(v) -> str:
    return f"({v[0]}, {v[1]})"


# ---------------------------------------------------------------------------- unfold (im2col)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Extract sliding local blocks: (N, C, H, W) -> (N, C*kH*kW, L), like ``F.unfold``.

    Column ``l`` holds block ``l`` (blocks in row-major order over the ``Ho x Wo`` grid of
    positions), its rows run over channel, then kernel row, then kernel column. ``L = Ho*Wo``
    with ``Ho = floor((H + 2*padding - dilation*(kH-1) - 1) / stride) + 1``. Unbatched (C, H, W)
    input gives (C*kH*kW, L). Always a copy.
    """
    args = [_pair(a) for a in (kernel_size, dilation, padding, stride)]
    if not isinstance(input, Tensor):
        raise TypeError(
            f"im2col(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    names = ("kernel_size", "dilation", "padding", "stride")
    kernel, dilation, padding, stride = (
        _ints("im2col", n, i + 2, a) for i, (n, a) in enumerate(zip(names, args))
    )
    for n, v in zip(names, (kernel, dilation, padding, stride)):
        _check_len(n, v)
    return _im2col(input, tuple(kernel), tuple(dilation), tuple(padding), tuple(stride))


def im2col_shape_check(shape, kernel, dilation, padding, stride) -> tuple[int, int]:
    """ATen's ``im2col_shape_check``; returns the blocks grid (Ho, Wo)."""
    _check_kernel(kernel)
    _check_positive("dilation", "dilation", dilation)
    _check_padding(padding)
    _check_positive("stride", "stride", stride)
    nd = len(shape)
    for d in (1, 2):  # ATen reads input.size(1) and input.size(2) before looking at the rank
        if nd == 0:
            raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
        if d >= nd:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})"
            )
    valid_dims = shape[1] != 0 and shape[2] != 0
    ok = (nd == 3 and shape[0] != 0 and valid_dims) or (nd == 4 and valid_dims and shape[3] != 0)
    if not ok:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
            f"dimensions for input, but got: [{', '.join(map(str, shape))}]"
        )
    h, w = shape[-2:]
    ho = _blocks(h, kernel[0], dilation[0], padding[0], stride[0])
    wo = _blocks(w, kernel[1], dilation[1], padding[1], stride[1])
    if ho < 1 or wo < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={_fmt2(kernel)}, "
            f"dilation={_fmt2(dilation)}, padding={_fmt2(padding)}, calculated shape of the array "
            f"of sliding blocks as ({ho}, {wo}), but its components must be at least one."
        )
    return ho, wo


@differentiable(_derivatives.im2col_node, "im2col")
def _im2col(x: Tensor, kernel, dilation, padding, stride) -> Tensor:
    ho, wo = im2col_shape_check(tuple(x.shape), kernel, dilation, padding, stride)
    _check_dtype(x, "im2col_out_cpu")
    a = x._np()
    batched = a.ndim == 4
    if not batched:
        a = a[None]
    cols = K.im2col(a, kernel, dilation, padding, stride)  # (N, C, kH, kW, Ho, Wo), fresh
    n, c = a.shape[:2]
    out = cols.reshape(n, c * kernel[0] * kernel[1], ho * wo)
    if not batched:
        out = out[0]
    return Tensor._from_array(np.ascontiguousarray(out), x.dtype)


# ---------------------------------------------------------------------------- fold (col2im)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Combine sliding blocks into an image: (N, C*kH*kW, L) -> (N, C, H, W), like ``F.fold``.

    The adjoint of :func:`unfold`: every column is added back at the block it describes, values
    of overlapping blocks are summed. ``output_size`` is (H, W) (an int means square); ``L`` must
    equal the number of blocks such an image has. Unbatched (C*kH*kW, L) gives (C, H, W).
    """
    args = [_pair(a) for a in (output_size, kernel_size, dilation, padding, stride)]
    if not isinstance(input, Tensor):
        raise TypeError(
            f"col2im(): argument 'input' (position 1) must be Tensor, not {type_name(input)}"
        )
    names = ("output_size", "kernel_size", "dilation", "padding", "stride")
    vals = [_ints("col2im", n, i + 2, a) for i, (n, a) in enumerate(zip(names, args))]
    for n, v in zip(names, vals):
        _check_len(n, v)
    return _col2im(input, *(tuple(v) for v in vals))


def col2im_shape_check(shape, output_size, kernel, dilation, padding, stride) -> None:
    """ATen's ``col2im_shape_check``."""
    _check_kernel(kernel)
    _check_positive("stride", "stride", stride)
    _check_positive("dilation", "dilation", dilation)
    _check_padding(padding)
    nd = len(shape)
    if not (nd in (2, 3) and all(s != 0 for s in shape[nd - 2 :])):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
            f"non-zero dimensions for input, but got: [{', '.join(map(str, shape))}]"
        )
    planes, length = shape[-2:]
    if planes % (kernel[0] * kernel[1]):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={planes} and kernel_size={_fmt2(kernel)}."
        )
    bh = _blocks(output_size[0], kernel[0], dilation[0], padding[0], stride[0])
    bw = _blocks(output_size[1], kernel[1], dilation[1], padding[1], stride[1])
    given = (
        f"Given output_size={_fmt2(output_size)}, kernel_size={_fmt2(kernel)}, "
        f"dilation={_fmt2(dilation)}, padding={_fmt2(padding)}, stride={_fmt2(stride)}, "
    )
    if length != bh * bw:
        raise RuntimeError(
            f"{given}expected size of input's dimension 2 to match the calculated number of "
            f"sliding blocks {bh} * {bw} = {bh * bw}, but got input.size(2)={length}."
        )
    if bh < 1 or bw < 1:
        raise RuntimeError(
            f"{given}calculated shape of the array of sliding blocks as ({bh}, {bw}), which is "
            "too small (non-positive)"
        )


@differentiable(_derivatives.col2im_node, "col2im")
def _col2im(x: Tensor, output_size, kernel, dilation, padding, stride) -> Tensor:
    col2im_shape_check(tuple(x.shape), output_size, kernel, dilation, padding, stride)
    _check_dtype(x, "col2im_out_cpu")
    a = x._np()
    batched = a.ndim == 3
    if not batched:
        a = a[None]
    n, planes, _ = a.shape
    c = planes // (kernel[0] * kernel[1])
    bh = _blocks(output_size[0], kernel[0], dilation[0], padding[0], stride[0])
    bw = _blocks(output_size[1], kernel[1], dilation[1], padding[1], stride[1])
    cols = a.reshape(n, c, kernel[0], kernel[1], bh, bw)
    out = K.col2im(cols, output_size, kernel, dilation, padding, stride)
    if not batched:
        out = out[0]
    return Tensor._from_array(np.ascontiguousarray(out), x.dtype)
