"""``F.pixel_shuffle`` / ``F.pixel_unshuffle`` (``torch.pixel_shuffle``), as PyTorch 2.13's.

``pixel_shuffle(x, r)`` rearranges ``(*, C·r², H, W)`` into ``(*, C, H·r, W·r)``: output pixel
``(c, h·r + i, w·r + j)`` is input channel ``c·r² + i·r + j`` at ``(h, w)``. ATen's composite
form is three steps: a ``view`` that splits the channel axis into ``(C, r, r)``, a ``permute``
that interleaves the two ``r`` axes with H and W (``(*, C, H, r, W, r)``: no copy, only strides),
and a ``reshape`` that merges them, which must copy because the permuted strides cannot be merged.
The CPU kernel returns that copy: a new contiguous tensor (channels-last when the input suggests
channels-last, ``suggest_memory_format``), never a view of the input. ``pixel_unshuffle`` is the
inverse, and each is the other's gradient (the rearrangement is a permutation of the values).

An empty input to ``pixel_unshuffle`` comes back as ATen's ``self.clone()``, its shape unchanged
(``pixel_shuffle`` reshapes empty inputs like any other).

The checks are ATen's ``check_pixel_shuffle_shapes`` / ``check_pixel_unshuffle_shapes``, in
their order; the argument parser's messages are PyTorch's.
"""

from __future__ import annotations

import numpy as np

from ... import _layout
from ..._tensor import Tensor
from ...autograd.graph import Node, differentiable
from .._args import _as_int, is_int_like, type_name

__all__ = ["pixel_shuffle", "pixel_unshuffle"]


def _parse(fn: str, factor_name: str, args: tuple, kwargs: dict) -> tuple[Tensor, int]:
    """PyTorch's parser for ``fn(Tensor input, int factor_name)``."""
    names = ("input", factor_name)
    if len(args) > 2:
        raise TypeError(f"{fn}() takes 2 positional arguments but {len(args)} were given")
    values = dict(zip(names, args))
    for key, value in kwargs.items():
        if key in values:
            raise TypeError(f"{fn}() got multiple values for argument '{key}'")
        if key in names:
            values[key] = value
    missing = [n for n in names if n not in values]
    if missing:  # PyTorch's parser: "argument" for two, "arguments" for one
        listed = ", ".join(f'"{n}"' for n in missing)
        raise TypeError(
            f"{fn}() missing {len(missing)} required positional argument"
            f"{'s' if len(missing) == 1 else ''}: {listed}"
        )
    for key in kwargs:
        if key not in names:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
    x, factor = values["input"], values[factor_name]
    if not isinstance(x, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type_name(x)}")
    if not is_int_like(factor):
        raise TypeError(
            f"{fn}(): argument '{factor_name}' (position 2) must be int, not {type_name(factor)}"
        )
    return x, _as_int(factor)


def _check_shuffle(shape, r: int) -> None:
    """ATen's ``check_pixel_shuffle_shapes``."""
    if len(shape) < 3:
        raise RuntimeError(
            "pixel_shuffle expects input to have at least 3 dimensions, but got input with "
            f"{len(shape)} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c = shape[-3]
    if c % (r * r):
        raise RuntimeError(
            "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
            f"of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}"
        )


def _check_unshuffle(shape, r: int) -> None:
    """ATen's ``check_pixel_unshuffle_shapes``."""
    if len(shape) < 3:
        raise RuntimeError(
            "pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
            f"{len(shape)} dimension(s)"
        )
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    h, w = shape[-2:]
    if h % r:
        raise RuntimeError(
            "pixel_unshuffle expects height to be divisible by downscale_factor, but "
            f"input.size(-2)={h} is not divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            "pixel_unshuffle expects width to be divisible by downscale_factor, but "
            f"input.size(-1)={w} is not divisible by {r}"
        )


def shuffle_array(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C·r², H, W) -> (*, C, H·r, W·r)`` on a numpy array (a fresh C-contiguous copy)."""
    *batch, c, h, w = a.shape
    oc = c // (r * r)
    b = len(batch)
    v = a.reshape(*batch, oc, r, r, h, w)
    order = tuple(range(b)) + (b, b + 3, b + 1, b + 4, b + 2)  # (*, C, H, r, W, r)
    return np.ascontiguousarray(v.transpose(order)).reshape(*batch, oc, h * r, w * r)


def unshuffle_array(a: np.ndarray, r: int) -> np.ndarray:
    """``(*, C, H·r, W·r) -> (*, C·r², H, W)`` on a numpy array (a fresh C-contiguous copy)."""
    *batch, c, hr, wr = a.shape
    h, w = hr // r, wr // r
    b = len(batch)
    v = a.reshape(*batch, c, h, r, w, r)
    order = tuple(range(b)) + (b, b + 2, b + 4, b + 1, b + 3)  # (*, C, r, r, H, W)
    return np.ascontiguousarray(v.transpose(order)).reshape(*batch, c * r * r, h, w)


def _result(x: Tensor, arr: np.ndarray) -> Tensor:
    """A new tensor holding ``arr``, in the memory format ``x`` suggests (ATen's
    ``output.resize_(sizes, self.suggest_memory_format())``)."""
    if x.dim() == 4 and _suggests_channels_last(x):
        stride = _layout.channels_last_strides(tuple(arr.shape))
        return Tensor._from_array_strided(arr, x.dtype, stride)
    return Tensor._from_array(arr, x.dtype)


def _suggests_channels_last(x: Tensor) -> bool:
    """``suggest_memory_format() == channels_last`` for a 4-d tensor (c10's rule: the strides
    ordered like channels-last and not plain contiguous)."""
    shape, stride = tuple(x.shape), tuple(x.stride())
    return _layout.is_channels_last_strides(shape, stride) and not x.is_contiguous()


class PixelShuffleBackward0(Node):
    """``pixel_shuffle``: the gradient is ``pixel_unshuffle`` of the output's gradient."""

    def __init__(self, x, r: int):
        super().__init__(x)
        self.r = r

    def backward(self, g):
        return (unshuffle_array(np.asarray(g), self.r),)


class PixelUnshuffleBackward0(Node):
    """``pixel_unshuffle``: the gradient is ``pixel_shuffle`` of the output's gradient."""

    def __init__(self, x, r: int):
        super().__init__(x)
        self.r = r

    def backward(self, g):
        g = np.asarray(g)
        if g.size == 0:  # the forward cloned an empty input: the gradient keeps its shape
            return (g,)
        return (shuffle_array(g, self.r),)


@differentiable(lambda out, x, r: PixelShuffleBackward0(x, r), "pixel_shuffle")
def _pixel_shuffle(x: Tensor, r: int) -> Tensor:
    _check_shuffle(tuple(x.shape), r)
    return _result(x, shuffle_array(x._np(), r))


@differentiable(lambda out, x, r: PixelUnshuffleBackward0(x, r), "pixel_unshuffle")
def _pixel_unshuffle(x: Tensor, r: int) -> Tensor:
    _check_unshuffle(tuple(x.shape), r)
    if x.numel() == 0:  # ATen: ``if (self.numel() == 0) return self.clone();`` (shape kept)
        return x.clone()
    return _result(x, unshuffle_array(x._np(), r))


def pixel_shuffle(*args, **kwargs) -> Tensor:
    """``pixel_shuffle(input, upscale_factor)``: ``(*, C·r², H, W) -> (*, C, H·r, W·r)``, output
    ``[..., c, h·r + i, w·r + j]`` = input ``[..., c·r² + i·r + j, h, w]``. A new tensor."""
    x, r = _parse("pixel_shuffle", "upscale_factor", args, kwargs)
    return _pixel_shuffle(x, r)


def pixel_unshuffle(*args, **kwargs) -> Tensor:
    """``pixel_unshuffle(input, downscale_factor)``: the inverse of :func:`pixel_shuffle`,
    ``(*, C, H·r, W·r) -> (*, C·r², H, W)``. A new tensor."""
    x, r = _parse("pixel_unshuffle", "downscale_factor", args, kwargs)
    return _pixel_unshuffle(x, r)
