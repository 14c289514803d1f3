"""The allow-lists of the "implement" questions (``allow.Allowed``): what an answer may use to
build an operation, never the operation itself or a sibling of it (another dimensionality, a
layer class, scipy, the course's explainers). Derive questions use ``allow.DERIVE``."""

from __future__ import annotations

from ..allow import Allowed, with_numpy

# Reading sizes and moving between numpy and tensorlab: allowed wherever tensorlab is.
_TENSOR_BASICS = frozenset(
    "tensor as_tensor from_numpy numpy detach clone contiguous shape size dim ndim numel "
    "dtype float64 double float item tolist view reshape unsqueeze squeeze flatten permute "
    "transpose t T stride storage_offset nn functional".split()
)

NUMPY_ONLY = with_numpy("plain Python and numpy (no scipy, tensorlab or torch)")

WITH_CONV2D = with_numpy(
    "plain Python, numpy, and tensorlab's conv2d with what it needs: tensor/from_numpy, flip, "
    "pad, indexing, view/reshape/unsqueeze (no scipy, no convolution of another kind)",
    names=_TENSOR_BASICS | {"conv2d", "flip", "fliplr", "flipud", "rot90", "pad"},
    modules=("tensorlab",),
    requires=("conv2d",),
)

VIEW_REPEAT = Allowed(
    says="the tensor methods view and repeat (shape, size() and numel() to read sizes), "
    "indexing and plain Python",
    names=frozenset("view repeat shape size numel dim ndim".split()),
)

NO_AUTOGRAD = with_numpy(
    "plain Python, numpy, and tensorlab's conv2d to compute the loss (tensor/from_numpy, "
    "indexing, view/reshape/unsqueeze, sum/item): no backward, grad or anything of autograd",
    names=_TENSOR_BASICS | {"conv2d", "pad"},
    modules=("tensorlab",),
)

IM2COL = with_numpy(
    "plain Python, numpy, and tensorlab's pieces of im2col: tensor/from_numpy, pad, indexing "
    "and slicing, unfold, as_strided, stack/cat, view/reshape/permute/transpose/expand, "
    "matmul/mm/bmm/einsum/sum (no conv function or layer of any kind, no scipy)",
    names=_TENSOR_BASICS
    | set(
        "pad unfold as_strided stack cat concat expand matmul mm bmm einsum tensordot sum "
        "mul zeros zeros_like empty ones".split()
    ),
    modules=("tensorlab",),
)
