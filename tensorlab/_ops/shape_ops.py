"""Everyday copying shape ops (PyTorch's ``TensorShape``/``TriangularOps``/``Cross`` and their
Python composites): ``diag``, ``diag_embed``, ``triu``/``tril``, ``roll``, ``rot90``, ``diff``,
``meshgrid``, ``cartesian_prod``, ``cross``/``linalg_cross``, ``dstack``/``column_stack``/
``row_stack``. All of them copy (torch's results are fresh tensors); the composites (``diff``,
``meshgrid``, ``cartesian_prod``, the stacks) are built from other ops, so their ``grad_fn`` is
the last op's, as in PyTorch.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace
from ..autograd.graph import differentiable
from ..autograd.math_ops import GradFromFunction, LinalgCrossBackward0
from ..autograd.views import inplace_differentiable, same_as
from ._elementwise import _type_error, check_no_internal_overlap, scalar_name, write_into
from .copies import cat, flip, hstack, stack, vstack
from .native_functions import module_function, op, tensor_method


def _tensor(x, fname: str, name: str = "input", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        raise _type_error(fname, name, pos, x)
    return x


def _fresh(values: np.ndarray, dtype: D.dtype) -> Tensor:
    return Tensor._from_array(np.ascontiguousarray(values), dtype)


# ---------------------------------------------------------------------------------------------
# diag / diag_embed
# ---------------------------------------------------------------------------------------------


def _embed(values: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """``diag_embed`` on numpy: the last dim of ``values`` becomes diagonal ``offset`` of the
    new (dim1, dim2) plane."""
    n = values.shape[-1] + builtins.abs(offset)
    batch = values.shape[:-1]
    out = np.zeros(batch + (n, n), dtype=values.dtype)
    k = values.shape[-1]
    rows = np.arange(k) + builtins.max(-offset, 0)
    cols = np.arange(k) + builtins.max(offset, 0)
    out[..., rows, cols] = values
    # move the (n, n) plane to (dim1, dim2)
    ndim = out.ndim
    order = [None] * ndim
    order[dim1], order[dim2] = ndim - 2, ndim - 1
    rest = iter(range(ndim - 2))
    order = [next(rest) if o is None else o for o in order]
    return np.transpose(out, order)


def _make_diag(out, input, diagonal=0):
    shape = input._shape
    if input.ndim == 1:
        return GradFromFunction(
            "DiagEmbedBackward0", input, lambda g: np.diagonal(g, diagonal).copy()
        )

    def back(g):
        full = np.zeros(shape, dtype=g.dtype)
        rows = np.arange(g.shape[0]) + builtins.max(-diagonal, 0)
        full[rows, rows + diagonal] = g
        return full

    return GradFromFunction("DiagonalBackward0_copy", input, back)


@op("diag", formula=_make_diag)
def diag(input, diagonal: int = 0) -> Tensor:
    """1-D input: the square matrix with it on diagonal ``diagonal``; 2-D input: a copy of
    that diagonal."""
    input = _tensor(input, "diag")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    if input.ndim == 1:
        return _fresh(_embed(input._np(), diagonal, 0, 1), input.dtype)
    return _fresh(np.diagonal(input._np(), diagonal), input.dtype)


def _embed_dims(input: Tensor, offset, dim1, dim2):
    d1, d2 = L.wrap_dim(dim1, input.ndim + 1), L.wrap_dim(dim2, input.ndim + 1)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def _make_diag_embed(out, input, offset=0, dim1=-2, dim2=-1):
    d1, d2 = _embed_dims(input, offset, dim1, dim2)
    return GradFromFunction(
        "DiagEmbedBackward0", input, lambda g: np.diagonal(g, offset, d1, d2).copy()
    )


@op("diag_embed", formula=_make_diag_embed)
def diag_embed(input, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Each last-dim vector of ``input`` on diagonal ``offset`` of a new (``dim1``, ``dim2``)
    matrix (zeros elsewhere)."""
    input = _tensor(input, "diag_embed")
    d1, d2 = _embed_dims(input, offset, dim1, dim2)
    if d1 > d2:
        d1, d2, offset = d2, d1, -offset
    arr = input._np() if input.ndim else input._np().reshape(1)
    return _fresh(_embed(arr, offset, d1, d2), input.dtype)


# ---------------------------------------------------------------------------------------------
# triu / tril
# ---------------------------------------------------------------------------------------------


def _tri_mask(shape, diagonal: int, upper: bool) -> np.ndarray:
    r, c = shape[-2], shape[-1]
    return (
        np.triu(np.ones((r, c), bool), diagonal)
        if upper
        else np.tril(np.ones((r, c), bool), diagonal)
    )


def _triangle(name: str, upper: bool):
    def make(out, input, diagonal=0):
        mask = _tri_mask(input._shape, diagonal, upper)
        return GradFromFunction(
            name.capitalize() + "Backward0", input, lambda g: np.where(mask, g, 0)
        )

    @differentiable(make, name)
    def op(input, diagonal: int = 0) -> Tensor:
        input = _tensor(input, name)
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        x = input._np()
        values = np.where(_tri_mask(input._shape, diagonal, upper), x, np.zeros((), x.dtype))
        return _fresh(values, input.dtype)

    @inplace_differentiable(same_as(op))
    def op_(self, diagonal: int = 0) -> Tensor:
        result = op(self, diagonal)
        check_inplace(self)
        check_no_internal_overlap(self)
        return write_into(self, result._np())

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (
        f"A copy keeping the {'upper' if upper else 'lower'} triangle of the last two dims "
        "(from diagonal ``diagonal`` on), zeros elsewhere."
    )
    op_.__name__ = op_.__qualname__ = name + "_"
    tensor_method(name)(op)
    tensor_method(name + "_", function=False)(op_)
    return op


triu = _triangle("triu", True)
tril = _triangle("tril", False)


# ---------------------------------------------------------------------------------------------
# roll / rot90
# ---------------------------------------------------------------------------------------------


def _as_tuple(v):
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return tuple(builtins.int(x) for x in v)
    return (builtins.int(v),)


def _roll_args(input: Tensor, shifts, dims):
    shifts = _as_tuple(shifts)
    dims = () if dims is None else _as_tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        return shifts, None
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    return shifts, tuple(L.wrap_dim(d, input.ndim) for d in dims)


def _np_roll(arr: np.ndarray, shifts, dims) -> np.ndarray:
    if dims is None:
        return np.roll(arr.reshape(-1), shifts[0]).reshape(arr.shape)
    return np.roll(arr, shifts, dims)


def _make_roll(out, input, shifts, dims=None):
    shifts, dims = _roll_args(input, shifts, dims)
    back = tuple(-s for s in shifts)
    return GradFromFunction("RollBackward0", input, lambda g: _np_roll(g, back, dims))


@op("roll", formula=_make_roll)
def roll(input, shifts, dims=None) -> Tensor:
    """Shift the elements along ``dims`` cyclically (the flattened tensor when no ``dims``)."""
    input = _tensor(input, "roll")
    shifts, dims = _roll_args(input, shifts, dims)
    if input.numel() == 0:  # PyTorch returns a clone (its layout kept)
        return input.clone()
    return _fresh(_np_roll(input._np(), shifts, dims), input.dtype)


def _rot90_args(input: Tensor, k, dims):
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = L.wrap_dim(dims[0], input.ndim), L.wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}"
        )
    return builtins.int(k) % 4, d0, d1


def _make_rot90(out, input, k=1, dims=(0, 1)):
    k, d0, d1 = _rot90_args(input, k, dims)
    return GradFromFunction("Rot90Backward0", input, lambda g: np.rot90(g, -k, (d0, d1)).copy())


@op("rot90", formula=_make_rot90)
def rot90(input, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first towards the second
    axis). Like PyTorch, a transposed flip: the result's strides are the flip's, swapped."""
    input = _tensor(input, "rot90")
    k, d0, d1 = _rot90_args(input, k, dims)
    if k == 0:
        return _fresh(input._np(), input.dtype)
    if k == 2:
        return flip(input, d0, d1)
    flipped = flip(input, d1 if k == 1 else d0)
    return flipped.transpose(d0, d1)


# ---------------------------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------------------------


@tensor_method("diff")
def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first); bool
    tensors give ``logical_xor`` of neighbours."""
    input = _tensor(input, "diff")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = L.wrap_dim(dim, input.ndim)
    if n == 0:  # PyTorch: zeros_like(input).copy_(input), prepend/append ignored
        # (zeros_like keeps the memory order, as a clone does)
        return input.detach().clone().zero_().copy_(input)
    parts = [p for p in (prepend, input, append) if p is not None]
    if len(parts) > 1:
        parts = [
            p if p.ndim else p.expand(*[1 if k == d else s for k, s in enumerate(input.shape)])
            for p in parts
        ]
        input = cat(parts, d)
    out = input
    for _ in range(n):
        size = out.shape[d]
        if size == 0:
            break
        hi, lo = out.narrow(d, 1, size - 1), out.narrow(d, 0, size - 1)
        out = hi.logical_xor(lo) if out.dtype is D.bool_ else hi - lo
    return out


# ---------------------------------------------------------------------------------------------
# meshgrid / cartesian_prod
# ---------------------------------------------------------------------------------------------

_MESHGRID_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
)


def _tensor_list(tensors, fname):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}"
            )
    return list(tensors)


@module_function("meshgrid")
def meshgrid(*tensors, indexing: str | None = None):
    """Coordinate grids (expanded views) from 0-D/1-D tensors: ``indexing='ij'`` (matrix, the
    default with a warning) or ``'xy'`` (Cartesian: the first two dims swapped)."""
    tensors = _tensor_list(tensors, "meshgrid")
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'tensorlab.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{t.ndim}-D tensor of shape {L._fmt(t.shape)}"
            )
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype is not dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    sizes = [t.numel() for t in order]
    grids = []
    for i, t in enumerate(order):
        shape = [1] * len(order)
        shape[i] = sizes[i]
        grids.append(t.reshape(shape).expand(*sizes))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@module_function("cartesian_prod")
def cartesian_prod(*tensors) -> Tensor:
    """Every combination of one element from each 1-D tensor, one per row (``itertools.product``)."""
    tensors = _tensor_list(tensors, "cartesian_prod")
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {L._fmt(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


# ---------------------------------------------------------------------------------------------
# cross
# ---------------------------------------------------------------------------------------------


def _cross_args(input, other, dim):
    input = _tensor(input, "cross")
    other = _tensor(other, "cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(other.dtype)}"
        )
    shape = L.broadcast_shapes(input._shape, other._shape)
    d = L.wrap_dim(dim, len(shape))
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input._shape[d]} and {other._shape[d]}"
        )
    return input, other, shape, d


def _np_cross(a, b, d):
    return np.cross(a, b, axisa=d, axisb=d, axisc=d)


def _make_cross(out, input, other, dim=-1):
    input, other, shape, d = _cross_args(input, other, dim)
    return LinalgCrossBackward0(input, other, lambda a, b: _np_cross(a, b, d))


@differentiable(_make_cross, "linalg_cross")
def _linalg_cross(input, other, dim=-1) -> Tensor:
    input, other, shape, d = _cross_args(input, other, dim)
    a = np.broadcast_to(input._np(), shape)
    b = np.broadcast_to(other._np(), shape)
    with np.errstate(all="ignore"):
        return _fresh(_np_cross(a, b, d), input.dtype)


@tensor_method("cross")
def cross(input, other, dim=None) -> Tensor:
    """The 3-vector cross product along ``dim`` (without ``dim``: the first dim of size 3, with
    PyTorch's deprecation warning)."""
    input = _tensor(input, "cross")
    other = _tensor(other, "cross", "other", 2)
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
            "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value of "
            "dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        shape = L.broadcast_shapes(input._shape, other._shape)
        dim = next((k for k, s in enumerate(shape) if s == 3), -1)
    return _linalg_cross(input, other, dim)


# ---------------------------------------------------------------------------------------------
# stacks
# ---------------------------------------------------------------------------------------------


def _list(tensors, fname):
    if isinstance(tensors, Tensor):
        raise TypeError(
            f"{fname}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor"
        )
    return list(tensors)


def _atleast(t: Tensor, n: int) -> Tensor:
    if t.ndim >= n:
        return t
    if n == 1:
        return t.reshape(1)
    if n == 2:
        return t.reshape(1, -1)
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    return t.unsqueeze(-1)


@module_function("dstack")
def dstack(tensors) -> Tensor:
    """Join along the third dim (after making every tensor at least 3-D)."""
    tensors = _list(tensors, "dstack")
    return cat([_atleast(t, 3) for t in tensors], 2)


@module_function("column_stack")
def column_stack(tensors) -> Tensor:
    """0-D and 1-D tensors become columns; then ``hstack``."""
    tensors = _list(tensors, "column_stack")
    cols = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return hstack(cols)


row_stack = module_function("row_stack")(vstack)
