"""Ops that always build new storage: flip, repeat, repeat_interleave, tile, cat, stack."""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, _as_shape, contiguous_format
from ..autograd import formulas as AG
from ..autograd.graph import differentiable
from .native_functions import alias, module_function, op, tensor_method


def _grad_flip(out, input, *dims):
    return AG.FlipBackward0(input, L.wrap_dims(_as_shape(dims, "dims"), input.ndim))


def _grad_repeat(out, input, *sizes):
    return AG.RepeatBackward0(input, _as_shape(sizes, "repeats"))


def _grad_cat(out, tensors, dim=0):
    tensors = list(tensors)
    used = [not (t.ndim == 1 and t.numel() == 0) for t in tensors]
    ref = next(t for t, u in zip(tensors, used) if u)
    node = AG.CatBackward0(tensors, L.wrap_dim(dim, ref.ndim), used)
    node._dim_arg = dim  # as given (``grad_fn._saved_dim``)
    return node


def _grad_stack(out, tensors, dim=0):
    tensors = list(tensors)
    node = AG.StackBackward0(tensors, L.wrap_dim(dim, tensors[0].ndim + 1))
    node._dim_arg = dim  # as given (``grad_fn._saved_dim``)
    return node


def _grad_repeat_interleave(out, input, repeats=None, dim=None, **kwargs):
    reps = repeats._np().reshape(-1)
    n = input.numel() if dim is None else (input.shape[dim] if input.ndim else 1)
    reps = np.broadcast_to(reps, (n,)) if reps.size == 1 else reps
    index = np.repeat(np.arange(n), reps)
    d = 0 if dim is None else (L.wrap_dim(dim, input.ndim) if input.ndim else 0)
    return AG.IndexSelectBackward0(input, index, d, dim is None)


@op("flip", formula=_grad_flip)
def flip(input: Tensor, *dims) -> Tensor:
    """Reverse the order along ``dims``. A copy: tensorlab (like PyTorch) has no negative strides."""
    dims = L.wrap_dims(_as_shape(dims, "dims"), input.ndim)
    flipped = np.flip(input._np(), axis=dims) if dims else input._np()
    return Tensor._from_array_strided(
        flipped, input.dtype, L.preserve_strides(input.shape, input.stride())
    )


@tensor_method("fliplr")
def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


@tensor_method("flipud")
def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


@op("repeat", function=False, formula=_grad_repeat)
def repeat(input: Tensor, *sizes) -> Tensor:
    """Tile the *whole* tensor ``sizes[i]`` times along each dim (numpy's ``tile``, not ``repeat``)."""
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    sizes = _as_shape(sizes, "repeats")
    if len(sizes) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    padded = (1,) * (len(sizes) - input.ndim) + tuple(input.shape)
    target = tuple(a * b for a, b in zip(padded, sizes))
    if any(s < 0 for s in target):
        bad = next(s for s in target if s < 0)
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {bad}: {L._fmt(target)}"
        )
    src = input._np().reshape((1,) * (len(sizes) - input.ndim) + input.shape)
    return Tensor._from_array(np.tile(src, sizes), input.dtype)


@tensor_method("tile")
def tile(input: Tensor, *dims) -> Tensor:
    """``repeat`` that accepts fewer dims than the tensor has (leading ones are assumed)."""
    dims = _as_shape(dims, "dims")
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


@tensor_method("repeat_interleave")
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each *element* ``repeats`` times (numpy's ``repeat``), flattening when ``dim`` is None.

    ``repeat_interleave(counts)`` with only an int tensor gives ``[0]*counts[0] + [1]*counts[1] ...``.
    """
    if repeats is None:
        counts = input._np()
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return Tensor._from_array(np.repeat(np.arange(counts.size), counts), D.int64)
    src = input._np()
    if dim is None:
        src = src.reshape(-1)
        d = 0
    else:
        d = L.wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            src = src.reshape(1)
    if isinstance(repeats, Tensor):
        if repeats.dtype.is_floating_point:
            raise RuntimeError("repeats has to be Long or Int tensor")
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        reps = repeats._np().reshape(-1)
        if reps.size == 1:
            reps = int(reps[0])
        elif reps.size != src.shape[d]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) = "
                f"{reps.size} and input.size({0 if dim is None else dim}) = {src.shape[d]}"
            )
    else:
        reps = int(repeats)
        if reps < 0:
            raise RuntimeError("Repeats must be non-negative")
        # PyTorch: unsqueeze, expand, contiguous copy, flatten -> a view of that copy
        base = input.flatten() if dim is None else (input.reshape(1) if input.ndim == 0 else input)
        shape = list(base.shape)
        shape.insert(d + 1, reps)
        copy = base.unsqueeze(d + 1).expand(*shape).clone(memory_format=contiguous_format)
        return copy.flatten(d, d + 1)
    if np.any(np.asarray(reps) < 0):
        raise RuntimeError("repeats can not be negative")
    return _repeat_counts(input, src, reps, d, repeats, dim)


def _grad_repeat_counts(out, input, src, reps, d, repeats, dim):
    return _grad_repeat_interleave(out, input, repeats, dim)


@differentiable(_grad_repeat_counts, "repeat_interleave")
def _repeat_counts(input, src, reps, d, repeats, dim) -> Tensor:
    """``repeat_interleave`` with a tensor of counts (PyTorch: an ``index_select``)."""
    return Tensor._from_array(np.repeat(src, reps, axis=d), input.dtype)


def _tensors_arg(tensors, name: str) -> list[Tensor]:
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    tensors = list(tensors)
    if not tensors:
        if name == "stack":
            raise RuntimeError("stack expects a non-empty TensorList")
        raise ValueError(f"tensorlab.{name}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return tensors


@op("cat", method=False, formula=_grad_cat)
def cat(tensors, dim: int = 0) -> Tensor:
    """Join tensors along an existing dim (a copy; dtypes are promoted)."""
    tensors = _tensors_arg(tensors, "cat")
    # PyTorch skips legacy empty 1-D tensors of shape (0,)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = D.promote_types(dtype, t.dtype)
    used = [(i, t) for i, t in enumerate(tensors) if not (t.ndim == 1 and t.numel() == 0)]
    if not used:  # only legacy empty 1-D tensors: PyTorch returns an empty one, any dim
        return Tensor._empty((0,), dtype)
    ref = used[0][1]
    if ref.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = L.wrap_dim(dim, ref.ndim)
    for i, t in used:
        if t.ndim != ref.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}"
            )
        for k in range(ref.ndim):
            if k != d and t.shape[k] != ref.shape[k]:
                if ref.is_meta:  # the words of PyTorch's meta kernel
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected "
                        f"{ref.shape[k]} in dimension {k} but got {t.shape[k]} for tensor "
                        f"number {i} in the list"
                    )
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{ref.shape[k]} but got size {t.shape[k]} for tensor number {i} in the list."
                )
    if ref.is_meta or tensors[-1].is_meta:  # the meta device: the shape, no data
        from . import meta

        shape = list(ref.shape)
        shape[d] = sum(t.shape[d] for _, t in used)
        return meta.cat([t for _, t in used], d, shape, dtype)
    out = np.concatenate([t._np().astype(dtype.np, copy=False) for _, t in used], axis=d)
    return Tensor._from_array(out, dtype)


concat = concatenate = cat
alias("concat", "cat", method=False)
alias("concatenate", "cat", method=False)


@op("stack", method=False, formula=_grad_stack)
def stack(tensors, dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a *new* dim (a copy)."""
    tensors = _tensors_arg(tensors, "stack")
    ref = tensors[0]
    d = L.wrap_dim(dim, ref.ndim + 1)
    for i, t in enumerate(tensors):
        if t.shape != ref.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {L._fmt(ref.shape)} at "
                f"entry 0 and {L._fmt(t.shape)} at entry {i}"
            )
    return cat([t.unsqueeze(d) for t in tensors], d)


@module_function()
def hstack(tensors) -> Tensor:
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in _tensors_arg(tensors, "hstack")]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


@module_function()
def vstack(tensors) -> Tensor:
    tensors = _tensors_arg(tensors, "vstack")
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)
