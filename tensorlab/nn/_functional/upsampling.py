"""``interpolate`` (``nearest``, ``linear``, ``bilinear``, ``area``) as torch's
``upsample_nearest*d`` / ``upsample_(bi)linear*d`` kernels compute them (UpSample.h): each
spatial axis maps every output position to one input position (nearest) or blends two (linear),
with torch's float32 index arithmetic."""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor, from_array
from ...autograd import pooling as P
from ._util import check_tensor, record, suggest_memory_format

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _nearest_map(in_size: int, out_size: int, scale):
    """``nearest_idx``: floor(dst * scale) in float32, clamped to the last input position."""
    dst = np.arange(out_size)
    if out_size == in_size:
        return dst, None, None, None
    if out_size == 2 * in_size:
        return dst >> 1, None, None, None
    s = (
        np.float32(1.0 / scale)
        if scale is not None and scale > 0
        else np.float32(in_size) / np.float32(out_size)
    )
    src = np.floor(dst.astype(np.float32) * s).astype(np.int64)
    return np.minimum(src, in_size - 1), None, None, None


def _linear_map(in_size: int, out_size: int, align_corners: bool, scale, ct):
    """``area_pixel_compute_source_index`` + ``compute_indices_weights_linear``."""
    dst = np.arange(out_size).astype(ct)
    if align_corners:
        s = ct.type((in_size - 1) / (out_size - 1)) if out_size > 1 else ct.type(0)
        src = s * dst
    else:
        if scale is not None and scale > 0:
            s = ct.type(1.0 / scale)
        else:
            s = ct.type(in_size) / ct.type(out_size)
        src = s * (dst + ct.type(0.5)) - ct.type(0.5)
        src = np.where(src < 0, ct.type(0), src)
    i0 = src.astype(np.int64)
    offset = (i0 < in_size - 1).astype(np.int64)
    lam1 = (src - i0.astype(ct)).astype(ct)
    lam0 = (ct.type(1) - lam1).astype(ct)
    return i0, i0 + offset, lam0, lam1


def _apply_maps(arr: np.ndarray, maps, ct) -> np.ndarray:
    out = arr.astype(ct, copy=False)
    nsp = len(maps)
    for k, (i0, i1, w0, w1) in enumerate(maps):
        axis = out.ndim - nsp + k
        if w0 is None:
            out = np.take(out, i0, axis=axis)
        else:
            shape = [1] * out.ndim
            shape[axis] = -1
            out = np.take(out, i0, axis=axis) * w0.reshape(shape) + np.take(
                out, i1, axis=axis
            ) * w1.reshape(shape)
    return out


def interpolate(
    input: Tensor,
    size=None,
    scale_factor=None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims (all dims after the first two) to ``size`` or by ``scale_factor``."""
    check_tensor(input, "interpolate")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size of "
                    f"{size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
                )
            output_size = list(size)
        else:
            output_size = [size] * dim
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias:
        raise NotImplementedError("tensorlab's interpolate has no antialias option")
    if mode == "area" and dim == 2:
        from .pooling import adaptive_avg_pool2d

        return adaptive_avg_pool2d(input, output_size)
    kinds = {("nearest", 1): "1d", ("nearest", 2): "2d", ("linear", 1): "1d", ("bilinear", 2): "2d"}
    if (mode, dim) not in kinds:
        if mode in ("linear", "bilinear", "trilinear", "bicubic") and mode not in ("nearest",):
            need = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}[mode]
            if input.ndim != need and input.ndim in (3, 4, 5):
                raise NotImplementedError(
                    f"Got {input.ndim}D input, but {mode} mode needs {need}D input"
                )
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
            f"modes: {_MODES} (got {mode})"
        )
    in_sizes = list(input.shape[2:])
    if output_size is None:
        output_size = [int(math.floor(in_sizes[i] * scale_factors[i])) for i in range(dim)]
    if any(s <= 0 for s in in_sizes) or any(s <= 0 for s in output_size):
        if dim == 1:
            raise RuntimeError(
                "Input and output sizes should be greater than 0, but got input "
                f"(W: {in_sizes[0]}) and output (W: {output_size[0]})"
            )
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"(H: {in_sizes[0]}, W: {in_sizes[1]}) output (H: {output_size[0]}, "
            f"W: {output_size[1]})"
        )
    scales = scale_factors or [None] * dim
    x = input
    ct = np.dtype(np.float32) if x.dtype.np == np.float16 else x.dtype.np
    if mode == "nearest":
        maps = [_nearest_map(in_sizes[i], output_size[i], scales[i]) for i in range(dim)]
        name = f"UpsampleNearest{dim}DBackward0"
    else:
        maps = [
            _linear_map(in_sizes[i], output_size[i], align_corners, scales[i], ct)
            for i in range(dim)
        ]
        name = "UpsampleLinear1DBackward0" if dim == 1 else "UpsampleBilinear2DBackward0"
    res = _apply_maps(x._np(), maps, ct)
    out = from_array(
        res.astype(x.dtype.np),
        x.dtype,
        memory_format=suggest_memory_format(x) if x.ndim == 4 else None,
        fresh=True,
    )
    return record(out, lambda: P.UpsampleBackward(name, x, maps), x)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of ``interpolate``."""
    return interpolate(input, size, scale_factor, mode, align_corners)
