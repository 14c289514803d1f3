"""``tensorlab.linalg``'s ops built from its others and from differentiable tensorlab ops:
``diagonal``, ``vander``, ``multi_dot``, ``cond``."""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .._ops import linalg as _products
from .._ops._elementwise import scalar_name
from .._tensor import Tensor
from . import (
    LinAlgError,
    _check_float,
    _check_matrix,
    _lu_info,
    _new,
    _num,
    _out,
    _tensor,
    inv,
    matrix_norm,
    svdvals,
)

# ---------------------------------------------------------------------------------------------
# diagonal, vander, multi_dot: built from differentiable ops
# ---------------------------------------------------------------------------------------------


def diagonal(A, *, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """``A.diagonal(offset, dim1, dim2)`` with the matrix dims last by default."""
    A = _tensor("diagonal", A)
    return A.diagonal(offset, dim1, dim2)


def vander(x, N=None) -> Tensor:
    """The Vandermonde matrix: columns ``x**0, x**1, ..., x**(N-1)`` (increasing powers), as
    torch builds it: ones, then the running product of ``x`` repeated ``N - 1`` times."""
    x = _tensor("vander", x, "x")
    if x.dtype is D.bool_:
        raise RuntimeError(
            "linalg.vander supports floating point, complex, and integer tensors, but got Bool"
        )
    n = (x._shape[-1] if x.ndim else 1) if N is None else builtins.int(N)
    if n <= 1 or x.ndim == 0:
        raise RuntimeError("N must be greater than 1.")
    from .._ops.creation import ones
    from .._ops.shape_ops import cat

    column = x.unsqueeze(-1)
    first = ones(column.shape, dtype=x.dtype)
    return cat([first, column.expand(*x._shape, n - 1).cumprod(-1)], -1)


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The matrix-chain order of least cost (torch's ``matrix_chain_order``): split[i][j]."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors, *, out=None) -> Tensor:
    """``tensors[0] @ tensors[1] @ ...`` in the order of fewest multiplications (the first and
    last may be vectors)."""
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not first.dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{scalar_name(first.dtype).lower()} and tensor {i} "
                f"{scalar_name(t.dtype).lower()}"
            )
    mats = list(tensors)
    if first.ndim == 1:
        mats[0] = first.unsqueeze(0)
    if last.ndim == 1:
        mats[-1] = last.unsqueeze(-1)
    for i in range(n - 1):
        if mats[i]._shape[1] != mats[i + 1]._shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i]._shape)} "
                f"and {list(tensors[i + 1]._shape)} cannot be multiplied"
            )
    split = _chain_order([mats[0]._shape[0]] + [m._shape[1] for m in mats])

    def chain(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        return _products.mm(chain(i, k), chain(k + 1, j))

    result = chain(0, n - 1)
    if first.ndim == 1 and last.ndim == 1:
        result = result.view(())
    elif first.ndim == 1:
        result = result.squeeze(0)
    elif last.ndim == 1:
        result = result.squeeze(-1)
    return _out("mm", out, result, tuple(tensors))


def cond(A, p=None, *, out=None) -> Tensor:
    """The condition number of ``A`` in the norm ``p``: the ratio of extreme singular values
    (``None``, 2, -2), ``sum(s) * sum(1/s)`` for ``'nuc'``, else ``norm(A) * norm(inv(A))``
    (inf for a singular matrix)."""
    A = _tensor("cond", A)
    valid = (None, "fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)
    if not (p is None or isinstance(p, str) or isinstance(p, (builtins.int, builtins.float))) or (
        p not in valid
    ):
        shown = _num(builtins.float(p)) if isinstance(p, (builtins.int, builtins.float)) else p
        raise RuntimeError(f"linalg.cond got an invalid norm type: {shown}")
    shown = p if isinstance(p, str) else (None if p is None else _num(builtins.float(p)))
    if p is None or isinstance(p, (builtins.int, builtins.float)) and abs(p) == 2:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    elif isinstance(p, str):
        _check_matrix(f"cond(ord={shown})", A, low_precision=False)
    else:
        if A.ndim < 2:
            raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
        if A._shape[-1] != A._shape[-2]:
            raise RuntimeError(
                f"linalg.cond(ord={shown}): A must be batches of square matrices, but they are "
                f"{A._shape[-2]} by {A._shape[-1]} matrices"
            )
    if A.numel() == 0:
        if not A.dtype.is_floating_point:
            _check_float("svd", A)
        return _out("linalg_cond", out, _new(np.zeros(A._shape[:-2]), A.dtype), ())
    if p is None or p in (2, -2, "nuc"):
        s = svdvals(A)
        if p == "nuc":
            result = s.sum(-1) * s.reciprocal().sum(-1)
        else:
            s_max, s_min = s.narrow(-1, 0, 1), s.narrow(-1, s._shape[-1] - 1, 1)
            result = (s_min / s_max if p == -2 else s_max / s_min).squeeze(-1)
        return _out("linalg_cond", out, result, ())
    try:
        inverse = inv(A)
    except LinAlgError:  # torch's inv_ex: a singular matrix's inverse is filled with inf
        arr = A._np().reshape(-1, *A._shape[-2:])
        filled = np.empty_like(arr)
        for i, m in enumerate(arr):
            filled[i] = np.full_like(m, np.inf) if _lu_info(m) else np.linalg.inv(m)
        inverse = _new(filled.reshape(A._shape), A.dtype)
    result = matrix_norm(A, p) * matrix_norm(inverse, p)
    return _out("linalg_cond", out, result, ())
