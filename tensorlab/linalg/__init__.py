"""``tensorlab.linalg``: PyTorch's ``torch.linalg`` (norms, inverses, determinants, solvers and
the factorizations), with torch's signatures, batching over leading dims, errors
(:class:`LinAlgError` for singular and non-positive-definite inputs) and autograd for the common
ones (``vector_norm``, ``matrix_norm``, ``inv``, ``det``, ``slogdet``, ``solve``, ``svdvals``).

The factorizations run on numpy's LAPACK, as torch's run on its own: values agree within a few
ulps, and sign-ambiguous factors (``svd``'s U/Vh, ``eigh``'s vectors, ``qr``'s Q/R) may differ
in sign from torch's. ``norm``/``vector_norm``/``matrix_norm('fro'|'nuc')`` share their kernels
with ``tensorlab.norm``; ``matmul`` and ``cross`` are ``tensorlab.matmul``/``linalg.cross``.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._ops import linalg as _products
from .._ops._elementwise import scalar_name
from .._ops.reduce import _matrix_norm, _vector_norm, amax, amin
from .._ops.shape_ops import _linalg_cross
from .._tensor import Tensor, from_array
from ..autograd.graph import check_out_grad, differentiable
from ._backward import (
    LinalgCholeskyExBackward0,
    LinalgDetBackward0,
    LinalgEighBackward0,
    LinalgInvExBackward0,
    LinalgSlogdetBackward0,
    LinalgSolveExBackward0,
    LinalgSvdBackward0,
    _mT,
    _svd_np,
)

__all__ = [
    "LinAlgError",
    "cholesky",
    "cond",
    "cross",
    "diagonal",
    "multi_dot",
    "vander",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "lstsq",
    "matmul",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "vecdot",
    "vector_norm",
]


class _LinAlgError(RuntimeError):
    """Raised for a singular matrix (``inv``, ``solve``) or one that is not positive-definite
    (``cholesky``): ``torch.linalg.LinAlgError``, a ``RuntimeError`` (named, as torch's,
    ``_LinAlgError``)."""


_LinAlgError.__module__ = "tensorlab._C"
LinAlgError = _LinAlgError


# ---------------------------------------------------------------------------------------------
# named results, checks, out=
# ---------------------------------------------------------------------------------------------


def _named(op: str, fields: tuple[str, ...]) -> type:
    """A ``torch.return_types.<op>``: a tuple with named fields and torch's repr."""

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"tensorlab.return_types.{op}(\n{body})"

    ns = {"__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": ()}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    cls = type(op, (tuple,), ns)
    cls.__module__ = "tensorlab.return_types"
    return cls


_Slogdet = _named("linalg_slogdet", ("sign", "logabsdet"))
_Eigh = _named("linalg_eigh", ("eigenvalues", "eigenvectors"))
_Svd = _named("linalg_svd", ("U", "S", "Vh"))
_Qr = _named("linalg_qr", ("Q", "R"))
_Lstsq = _named("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _tensor(fname: str, x, name: str = "A", pos: int = 1) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"linalg_{fname}(): argument '{name}' (position {pos}) must be Tensor, not "
            f"{type(x).__name__}"
        )
    return x


def _check_matrix(
    fname: str,
    A: Tensor,
    *,
    square: bool = True,
    low_precision=True,
    prefix="linalg.",
    kernel: str | None = None,
) -> None:
    """torch's ``squareCheckInputs`` + ``checkFloatingOrComplex``."""
    if A.ndim < 2:
        raise RuntimeError(f"{prefix}{fname}: The input tensor A must have at least 2 dimensions.")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{prefix}{fname}: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    _check_float(fname, A, low_precision=low_precision, prefix=prefix, kernel=kernel)


def _check_float(
    fname: str, A: Tensor, *, low_precision: bool = True, prefix="linalg.", kernel=None
) -> None:
    """Floating input; float16 refused as torch does (its check, or its CPU kernel's)."""
    if not A.dtype.is_floating_point:
        raise RuntimeError(
            f"{prefix}{fname}: Expected a floating point or complex tensor as input. Got "
            f"{scalar_name(A.dtype)}"
        )
    if kernel is not None and A.dtype is D.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")
    if low_precision and A.dtype is D.float16:
        raise RuntimeError(f"{prefix}{fname}: Low precision dtypes not supported. Got Half")


def _new(values, dtype: D.dtype) -> Tensor:
    return from_array(np.array(values, dtype=dtype.np, order="C"), dtype)


def _batch_prefix(A: Tensor, index: int) -> str:
    return f"(Batch element {index}): " if A.ndim > 2 else ""


def _out(fname: str, out, result, args=()):
    """``out=``: a tensor (or a tuple of tensors for a tuple result) of the result's dtype."""
    if out is None:
        return result
    check_out_grad(fname, args)
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"linalg_{fname}(): argument 'out' must be tuple of Tensors")
        for o, r in zip(out, result):
            _products._into(o, r, _products._EXPECTED_OUT)
        return type(result)(*out)
    return _products._into(out, result, _products._EXPECTED_OUT)


# ---------------------------------------------------------------------------------------------
# norms
# ---------------------------------------------------------------------------------------------


def _dims(dim) -> list[int] | None:
    if dim is None:
        return None
    if isinstance(dim, (builtins.int, np.integer)) and not isinstance(dim, builtins.bool):
        return [builtins.int(dim)]
    return [builtins.int(d) for d in dim]


def _check_dtype_arg(fname: str, dtype) -> None:
    if dtype is not None and not D.to_dtype(dtype).is_floating_point:
        raise RuntimeError(
            f"linalg.{fname}: dtype should be floating point or complex, but got "
            f"{scalar_name(D.to_dtype(dtype))}"
        )


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None) -> Tensor:
    """The ``ord``-norm of ``x`` as a vector over ``dim`` (all elements by default)."""
    x = _tensor("vector_norm", x, "x")
    if isinstance(ord, str) or not isinstance(ord, (builtins.int, builtins.float, np.number)):
        raise TypeError(
            f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}"
        )
    _check_float("vector_norm", x, low_precision=False)
    _check_dtype_arg("vector_norm", dtype)
    result = _vector_norm(x, ord, _dims(dim), builtins.bool(keepdim), dtype)
    return _out("linalg_vector_norm", out, result, (x,))


def _matrix_dims(fname: str, A: Tensor, dim) -> tuple[int, int]:
    dims = _dims(dim)
    if len(dims) != 2:
        raise RuntimeError(
            f"linalg.{fname}: dim must be a 2-tuple. Got " + " ".join(map(str, dims))
        )
    d0, d1 = (L.wrap_dim(d, A.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.{fname}: dims must be different. Got ({d0}, {d1})")
    return d0, d1


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None) -> Tensor:
    """The matrix norm of order ``'fro'``, ``'nuc'``, 2, -2, 1, -1, inf or -inf over ``dim``."""
    A = _tensor("matrix_norm", A)
    keepdim = builtins.bool(keepdim)
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        if A.ndim < 2:
            raise RuntimeError(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
            )
        _check_float("matrix_norm", A, low_precision=False)
        _check_dtype_arg("matrix_norm", dtype)
        result = _matrix_norm(A, ord, list(_matrix_dims("matrix_norm", A, dim)), keepdim, dtype)
        return _out("linalg_matrix_norm", out, result, ())  # torch: no grad check
    o = builtins.float(ord)
    if abs(o) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_num(o)} not supported.")
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _check_float("matrix_norm", A, low_precision=abs(o) == 2.0)
    _check_dtype_arg("matrix_norm", dtype)
    d0, d1 = _matrix_dims("matrix_norm", A, dim)
    reduce = amax if o > 0 else amin
    if abs(o) == 2.0:
        perm = [d for d in range(A.ndim) if d not in (d0, d1)] + [d0, d1]
        A_ = A if dtype is None else A.to(D.to_dtype(dtype))
        sv = svdvals(A_.permute(perm))
        # an empty matrix: torch gives 0 for ord=2 (amin refuses the empty dim for -2)
        result = sv.sum(-1) if sv._shape[-1] == 0 and o > 0 else reduce(sv, -1)
        if keepdim:
            back = [perm.index(d) for d in range(A.ndim)]
            result = result.unsqueeze(-1).unsqueeze(-1).permute(back)
    else:
        if abs(o) == math.inf:
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        result = reduce(_vector_norm(A, 1.0, [d0], keepdim, dtype), d1, keepdim)
    return _out("linalg_matrix_norm", out, result, ())  # torch: no grad check


def _num(x: float) -> str:
    """A double as C++'s ``operator<<`` prints it (``3``, ``2.5``, ``inf``)."""
    return f"{x:g}"


def norm(input, ord=None, dim=None, keepdim=False, *, out=None, dtype=None) -> Tensor:
    """A vector norm (``ord=None`` or a vector ``dim``) or a matrix norm (a 2-D input with
    ``ord``, or a 2-tuple ``dim``), dispatched as ``torch.linalg.norm``."""
    A = _tensor("norm", input, "input")
    dims = _dims(dim)
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}"
            )
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
            f"Got {A.ndim}D."
        )
    matrix = ord is not None and (
        isinstance(ord, str) or (len(dims) == 2 if dims is not None else A.ndim == 2)
    )
    if matrix:
        result = matrix_norm(A, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    else:
        result = vector_norm(A, 2.0 if ord is None else ord, dims, keepdim, dtype=dtype)
    return _out("linalg_norm", out, result, ())  # torch: no grad check for linalg.norm


# ---------------------------------------------------------------------------------------------
# inv, det, slogdet, solve
# ---------------------------------------------------------------------------------------------


def _lu_info(a: np.ndarray) -> int:
    """LAPACK getrf's ``info`` for one matrix: the 1-based index of the first zero pivot of the
    LU factorization with partial pivoting (0: none)."""
    a = np.array(a, dtype=a.dtype, copy=True)
    n = a.shape[0]
    for k in range(n):
        p = k + builtins.int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    return 0


def _first_singular(A: Tensor, arr: np.ndarray) -> tuple[int, int]:
    """(batch index, getrf info) of the first singular matrix of ``arr`` (..., n, n)."""
    flat = arr.reshape(-1, *arr.shape[-2:])
    for i, m in enumerate(flat):
        info = _lu_info(m)
        if info:
            return i, info
    return 0, arr.shape[-1]  # numpy's LAPACK saw a zero pivot that this LU did not


@differentiable(lambda out, A, **kw: LinalgInvExBackward0(A, out), "linalg_inv")
def _inv(A: Tensor) -> Tensor:
    arr = A._np()
    try:
        values = np.linalg.inv(arr)
    except np.linalg.LinAlgError:
        b, info = _first_singular(A, arr)
        raise LinAlgError(
            f"linalg.inv: {_batch_prefix(A, b)}The diagonal element {info} is zero, the "
            "inversion could not be completed because the input matrix is singular."
        ) from None
    return _new(values, A.dtype)


def inv(A, *, out=None) -> Tensor:
    """The inverse of each square matrix of ``A`` (``LinAlgError`` if one is singular)."""
    A = _tensor("inv", A)
    _check_matrix("inv", A)
    return _out("linalg_inv_ex", out, _inv(A), (A,))


@differentiable(lambda out, A, **kw: LinalgDetBackward0(A, out), "linalg_det")
def _det(A: Tensor) -> Tensor:
    return _new(np.linalg.det(A._np()), A.dtype)


def det(A, *, out=None) -> Tensor:
    """The determinant of each square matrix of ``A``."""
    A = _tensor("det", A)
    _check_matrix("det", A, kernel="lu_cpu")
    return _out("_linalg_det", out, _det(A), (A,))


@differentiable(lambda out, A, **kw: LinalgSlogdetBackward0(A), "linalg_slogdet")
def _logabsdet(A: Tensor) -> Tensor:
    return _new(np.linalg.slogdet(A._np())[1], A.dtype)


def slogdet(A, *, out=None):
    """``(sign, log|det|)`` of each square matrix (sign 0 and -inf for a singular one)."""
    A = _tensor("slogdet", A)
    _check_matrix("slogdet", A)
    sign = _new(np.linalg.slogdet(A._np())[0], A.dtype)
    return _out("_linalg_slogdet", out, _Slogdet(sign, _logabsdet(A)), (A,))


def logdet(input) -> Tensor:
    """``torch.logdet``: ``log(det(A))`` (nan for a negative determinant, -inf for a singular
    matrix), differentiable through ``slogdet``'s ``logabsdet``."""
    A = _tensor("logdet", input, "input")
    _check_matrix("logdet", A, prefix="")
    sign, logabsdet = slogdet(A)
    from .._ops.comparison import where

    return where(sign == -1, math.nan, logabsdet)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:
    """torch's ``linalg_solve_is_vector_rhs``."""
    return B.ndim == 1 or (A.ndim - 1 == B.ndim and B._shape == A._shape[:-1])


def _make_solve(out, A, B):
    return LinalgSolveExBackward0(A, B, out, _is_vector_rhs(A, B))


@differentiable(_make_solve, "linalg_solve")
def _solve(A: Tensor, B: Tensor) -> Tensor:
    a, b = A._np(), B._np()
    vector = _is_vector_rhs(A, B)
    bm = b[..., None] if vector else b
    batch = L.broadcast_shapes(A._shape[:-2], bm.shape[:-2])
    a_ = np.broadcast_to(a, (*batch, *a.shape[-2:]))
    b_ = np.broadcast_to(bm, (*batch, *bm.shape[-2:]))
    try:
        x = np.linalg.solve(a_, b_) if a_.size else np.zeros(b_.shape, a.dtype)
    except np.linalg.LinAlgError:
        i, _ = _first_singular(A, a_)
        prefix = f"(Batch element {i}): " if len(batch) else ""
        raise LinAlgError(
            f"tensorlab.linalg.solve: {prefix}The solver failed because the input matrix is singular."
        ) from None
    return _new(x[..., 0] if vector else x, A.dtype)


def solve(A, B, *, left=True, out=None) -> Tensor:
    """X with ``A X = B`` (``left=False``: ``X A = B``), batched and broadcast; B may be a
    vector (or a batch of vectors)."""
    A = _tensor("solve", A)
    B = _tensor("solve", B, "B", 2)
    _check_matrix("solve", A, kernel="lu_cpu")
    if A.dtype is not B.dtype:
        raise RuntimeError(
            f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{scalar_name(A.dtype)} and B of type {scalar_name(B.dtype)} instead"
        )
    vector = _is_vector_rhs(A, B)
    bm = (*B._shape, 1) if vector else tuple(B._shape)
    if len(bm) < 2 or A._shape[-1] != (bm[-2] if left else bm[-1]):
        rows, cols = (bm[-2], bm[-1]) if len(bm) >= 2 else (1, bm[-1] if bm else 1)
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({A._shape[-2]}x{A._shape[-1]} and {rows}x{cols})"
        )
    L.broadcast_shapes(A._shape[:-2], bm[:-2])
    if not left and vector:
        raise RuntimeError(
            "linalg.solve: Vector broadcasting of the left hand side is not supported for "
            "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)"
        )
    if not left:
        return _out("_linalg_solve_ex", out, _solve(A.mT, B.mT).mT, (A, B))
    return _out("_linalg_solve_ex", out, _solve(A, B), (A, B))


# ---------------------------------------------------------------------------------------------
# products built from differentiable ops
# ---------------------------------------------------------------------------------------------


def matmul(input, other, *, out=None) -> Tensor:
    """``tensorlab.matmul``."""
    return _products.matmul(input, other, out=out)


def cross(input, other, *, dim=-1, out=None) -> Tensor:
    """The 3-vector cross product along ``dim`` (broadcast)."""
    input = _tensor("cross", input, "input")
    other = _tensor("cross", other, "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.ndim:
        a = input._shape[L.wrap_dim(dim, input.ndim)]
        b = other._shape[L.wrap_dim(dim, other.ndim)]
        if a != 3 or b != 3:
            raise RuntimeError(
                f"linalg.cross: inputs dimension {dim} must have length 3. Got {a} and {b}"
            )
    result = _linalg_cross(input, other, dim)
    return _out("linalg_cross", out, result, (input, other))


def vecdot(x, y, *, dim=-1, out=None) -> Tensor:
    """``sum(x * y, dim)`` (the dot product of the vectors along ``dim``, broadcast)."""
    x = _tensor("vecdot", x, "x")
    y = _tensor("vecdot", y, "y", 2)
    if x.dtype is not y.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{scalar_name(x.dtype)} and y of type {scalar_name(y.dtype)} instead"
        )
    if x.ndim == 1 and y.ndim == 1:
        result = _products.dot(x, y)
    else:
        result = (x * y).sum(dim)
    return _out("sum", out, result, (x, y))


def matrix_power(A, n, *, out=None) -> Tensor:
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0``: of ``inv(A)``)."""
    A = _tensor("matrix_power", A, "input")
    if isinstance(n, builtins.bool) or not isinstance(n, (builtins.int, np.integer)):
        raise TypeError(
            f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}"
        )
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_power: The input tensor A must have at least 2 dimensions."
        )
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            "linalg.matrix_power: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    n = builtins.int(n)
    if n == 0:
        eye = np.broadcast_to(np.eye(A._shape[-1], dtype=A.dtype.np), A._shape)
        return _out("linalg_matrix_power", out, _new(eye, A.dtype), (A,))
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        result = A.clone()
    elif n == 2:
        result = A @ A
    elif n == 3:
        result = (A @ A) @ A
    else:
        z = result = None
        while n > 0:
            bit, n = n % 2, n // 2
            z = A if z is None else z @ z
            if bit:
                result = z if result is None else result @ z
    return _out("matmul", out, result, (A,))


# ---------------------------------------------------------------------------------------------
# factorizations: eigh, svd, qr, cholesky; pinv, lstsq, matrix_rank
# ---------------------------------------------------------------------------------------------


def _not_differentiable(node: str):
    """A node that keeps the graph (torch can differentiate the op) but raises on backward."""
    from ..autograd.graph import NotImplementedNode

    def make(out, A, *args, **kwargs):
        return NotImplementedNode(
            node, f"tensorlab: the derivative of {node[: -len('Backward0')]} is not implemented", A
        )

    return make


def _record_not_implemented(result: Tensor, node: str, *inputs) -> Tensor:
    """Give ``result`` a node that raises on backward when an input requires grad."""
    from ..autograd.grad_mode import STATE
    from ..autograd.graph import attach

    if STATE.enabled and any(isinstance(t, Tensor) and t.requires_grad for t in inputs):
        attach(result, _not_differentiable(node)(result, *inputs))
    return result


def _check_uplo(UPLO: str) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


def _eigh_input(fname: str, A, UPLO) -> Tensor:
    A = _tensor(fname, A)
    if A.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            "linalg.eigh: A must be batches of square matrices, but they are "
            f"{A._shape[-2]} by {A._shape[-1]} matrices"
        )
    if not A.dtype.is_floating_point or A.dtype is D.float16:
        raise NotImplementedError(
            f"\"linalg_eigh_cpu\" not implemented for '{scalar_name(A.dtype)}'"
        )
    _check_uplo(UPLO)
    return A


def _eigh_np(A: Tensor, UPLO: str):
    arr = A._np()
    if arr.size == 0:
        return np.zeros(arr.shape[:-1], arr.dtype), np.zeros(arr.shape, arr.dtype)
    return np.linalg.eigh(arr, UPLO=UPLO)


def _make_eigvalsh(out, A, UPLO="L"):
    return LinalgEighBackward0(A, _eigh_np(A, UPLO)[1])


@differentiable(_make_eigvalsh, "linalg_eigvalsh")
def _eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    return _new(_eigh_np(A, UPLO)[0], A.dtype)


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices (reading the
    lower triangle, or the upper with ``UPLO='U'``)."""
    A = _eigh_input("eigh", A, UPLO)
    return _out("_linalg_eigh", out, _eigh(A, UPLO), (A,))


@differentiable(_not_differentiable("LinalgEighBackward0"), "linalg_eigh")
def _eigh(A: Tensor, UPLO: str) -> tuple:
    w, v = _eigh_np(A, UPLO)
    return _Eigh(_new(w, A.dtype), _new(v, A.dtype))


def eigvalsh(A, UPLO="L", *, out=None) -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices; differentiable."""
    A = _eigh_input("eigvalsh", A, UPLO)
    return _out("_linalg_eigh", out, _eigvalsh(A, UPLO), (A,))


def _svd_input(A) -> Tensor:
    A = _tensor("svd", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    _check_float("svd", A, kernel="linalg_svd_cpu")
    return A


def _check_driver(driver) -> None:
    if driver is not None:
        raise RuntimeError(
            "tensorlab.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs "
            "with cuSOLVER backend."
        )


@differentiable(lambda out, A, **kw: LinalgSvdBackward0(A), "linalg_svdvals")
def _svdvals(A: Tensor) -> Tensor:
    return _new(_svd_np(A._np(), False, compute_uv=False), A.dtype)


def svd(A, full_matrices=True, *, driver=None, out=None):
    """``A = U diag(S) Vh``, singular values descending (``full_matrices=False``: reduced)."""
    A = _svd_input(A)
    _check_driver(driver)
    return _out("_linalg_svd", out, _svd(A, builtins.bool(full_matrices)), (A,))


@differentiable(_not_differentiable("LinalgSvdBackward0"), "linalg_svd")
def _svd(A: Tensor, full_matrices: bool) -> tuple:
    u, s, vh = _svd_np(A._np(), full_matrices)
    return _Svd(_new(u, A.dtype), _new(s, A.dtype), _new(vh, A.dtype))


def svdvals(A, *, driver=None, out=None) -> Tensor:
    """The singular values of ``A``, descending; differentiable."""
    A = _svd_input(A)
    _check_driver(driver)
    return _out("_linalg_svd", out, _svdvals(A), (A,))


def qr(A, mode="reduced", *, out=None):
    """``A = Q R`` (Householder, as LAPACK's geqrf): ``mode`` 'reduced', 'complete' or 'r'."""
    A = _tensor("qr", A)
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    _check_float("qr", A, kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    arr = A._np()
    m, n = arr.shape[-2:]
    if arr.size == 0:
        k = m if mode == "complete" else min(m, n)
        q = np.broadcast_to(np.eye(m, k, dtype=arr.dtype), (*arr.shape[:-2], m, k))
        r = np.zeros((*arr.shape[:-2], k, n), arr.dtype)
    else:
        q, r = np.linalg.qr(arr, mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = np.zeros((0,), arr.dtype)
    check_out_grad("linalg_qr", (A,)) if out is not None else None
    q_t = _new(q, A.dtype)
    if mode != "r":
        _record_not_implemented(q_t, "LinalgQrBackward0", A)
    return _out("linalg_qr", out, _Qr(q_t, _new(r, A.dtype)), (A,))


@differentiable(
    lambda out, A, upper=False: LinalgCholeskyExBackward0(A, out, upper), "linalg_cholesky"
)
def _cholesky(A: Tensor, upper: bool = False) -> Tensor:
    arr = A._np()
    src = _mT(arr) if upper else arr
    try:
        low = np.linalg.cholesky(src) if arr.size else np.zeros(arr.shape, arr.dtype)
    except np.linalg.LinAlgError:
        flat = src.reshape(-1, *src.shape[-2:])
        b, order = 0, src.shape[-1]
        for i, mat in enumerate(flat):
            k = _cholesky_info(mat)
            if k:
                b, order = i, k
                break
        raise LinAlgError(
            f"linalg.cholesky: {_batch_prefix(A, b)}The factorization could not be completed "
            "because the input is not positive-definite (the leading minor of order "
            f"{order} is not positive-definite)."
        ) from None
    return _new(_mT(low) if upper else low, A.dtype)


def cholesky(A, *, upper=False, out=None) -> Tensor:
    """The lower Cholesky factor ``L`` with ``A = L L^T`` (``upper=True``: ``U = L^T``, read
    from the upper triangle); ``LinAlgError`` if a matrix is not positive-definite."""
    A = _tensor("cholesky", A)
    _check_matrix("cholesky", A, kernel="cholesky_cpu")
    return _out("linalg_cholesky_ex", out, _cholesky(A, builtins.bool(upper)), (A,))


def _cholesky_info(m: np.ndarray) -> int:
    """LAPACK potrf's ``info``: the order of the first leading minor that is not p.d."""
    for k in range(1, m.shape[0] + 1):
        try:
            np.linalg.cholesky(m[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def _tolerances(fname: str, A: Tensor, S: np.ndarray, atol, rtol) -> np.ndarray:
    """torch's rule: ``max(atol, rtol * smax)``, rtol defaulting to eps * max(m, n) when
    neither is given (to 0 when only atol is)."""

    def value(t):
        if t is None:
            return 0.0
        return t._np() if isinstance(t, Tensor) else builtins.float(t)

    eps = np.finfo(A.dtype.np).eps
    if rtol is None:
        rtol_v = eps * max(A._shape[-2:]) if atol is None or _is_zero(atol) else 0.0
    else:
        rtol_v = value(rtol)
    smax = S[..., :1] if S.shape[-1] else np.zeros((*S.shape[:-1], 1), S.dtype)
    tol = np.maximum(np.asarray(value(atol))[..., None], np.asarray(rtol_v)[..., None] * smax)
    return tol.astype(S.dtype)


def _is_zero(t) -> bool:
    return not isinstance(t, Tensor) and builtins.float(t) == 0.0


def _svals_or_eig(A: Tensor, hermitian: bool) -> np.ndarray:
    arr = A._np()
    if arr.size == 0:
        return np.zeros((*arr.shape[:-2], min(arr.shape[-2:])), arr.dtype)
    if hermitian:
        return np.abs(np.linalg.eigvalsh(arr))[..., ::-1]
    return np.linalg.svd(arr, compute_uv=False)


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (singular values below ``max(atol, rtol * smax)``
    count as zero)."""
    A = _tensor("pinv", A)
    if A.ndim < 2 or not A.dtype.is_floating_point or A.dtype is D.float16:
        raise RuntimeError(
            f"linalg.pinv({scalar_name(A.dtype)}{{{list(A._shape)}}}): expected a tensor with 2 "
            "or more dimensions of float, double, cfloat or cdouble types"
        )
    arr = A._np()
    if arr.size == 0:
        return _out("linalg_pinv", out, _new(np.zeros(_mT(arr).shape, arr.dtype), A.dtype), (A,))
    if hermitian:
        w, v = np.linalg.eigh(arr)
        order = np.argsort(-np.abs(w), axis=-1)
        s = np.take_along_axis(np.abs(w), order, -1)
        tol = _tolerances("pinv", A, s, atol, rtol)
        with np.errstate(all="ignore"):
            inv_w = np.where(np.abs(w) > tol, 1 / w, 0).astype(arr.dtype)
        values = (v * inv_w[..., None, :]) @ _mT(v)
    else:
        u, s, vh = np.linalg.svd(arr, full_matrices=False)
        tol = _tolerances("pinv", A, s, atol, rtol)
        with np.errstate(all="ignore"):
            inv_s = np.where(s > tol, 1 / s, 0).astype(arr.dtype)
        values = (_mT(vh) * inv_s[..., None, :]) @ _mT(u)
    check_out_grad("linalg_pinv", (A,)) if out is not None else None
    result = _record_not_implemented(_new(values, A.dtype), "LinalgPinvBackward0", A)
    return _out("linalg_pinv", out, result, (A,))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None) -> Tensor:
    """The number of singular values above ``max(atol, rtol * smax)`` (int64)."""
    A = _tensor("matrix_rank", A)
    if A.ndim < 2:
        raise RuntimeError(
            "tensorlab.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if not A.dtype.is_floating_point or A.dtype is D.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    s = _svals_or_eig(A, builtins.bool(hermitian))
    tol = _tolerances("matrix_rank", A, s, atol, rtol)
    rank = (s > tol).sum(-1).astype(np.int64)
    return _out("linalg_matrix_rank", out, _new(rank, D.int64), ())


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (``driver`` 'gelsy', the CPU default, or
    'gels', 'gelsd', 'gelss'): ``(solution, residuals, rank, singular_values)``."""
    A = _tensor("lstsq", A, "self")
    B = _tensor("lstsq", B, "b", 2)
    if not A.dtype.is_floating_point or A.dtype is D.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype is not B.dtype:
        raise RuntimeError(
            "tensorlab.linalg.lstsq: Expected input and other to have the same dtype, but got "
            f"input's dtype {scalar_name(A.dtype)} and other's dtype {scalar_name(B.dtype)}"
        )
    if A.ndim < 2:
        raise RuntimeError("tensorlab.linalg.lstsq: input must have at least 2 dimensions.")
    drivers = ("gels", "gelsy", "gelsd", "gelss")
    driver = "gelsy" if driver is None else driver
    if driver not in drivers:
        raise RuntimeError(
            "tensorlab.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"
        )
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(
            "tensorlab.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
            "(input.dim() - other.dim()) <= 1"
        )
    vector = B.ndim == A.ndim - 1
    if vector:
        if A._shape[-2] != B._shape[-1]:
            raise RuntimeError("tensorlab.linalg.lstsq: input.size(-2) should match other.size(-1)")
    elif B.ndim < 2 or A._shape[-2] != B._shape[-2]:
        raise RuntimeError("tensorlab.linalg.lstsq: input.size(-2) should match other.size(-2)")
    a = A._np()
    b = B._np()[..., None] if vector else B._np()
    batch = L.broadcast_shapes(A._shape[:-2], b.shape[:-2])
    m, n = a.shape[-2:]
    k = b.shape[-1]
    a_ = np.broadcast_to(a, (*batch, m, n)).reshape(-1, m, n)
    b_ = np.broadcast_to(b, (*batch, m, k)).reshape(-1, m, k)
    eps = np.finfo(a.dtype).eps
    rc = eps * max(m, n) if rcond is None else builtins.float(rcond)
    count = a_.shape[0]
    sols = np.zeros((count, n, k), a.dtype)
    ranks = []
    for i, (am, bm) in enumerate(zip(a_, b_)):
        x, _, rank, _ = np.linalg.lstsq(am, bm, rcond=rc)
        sols[i] = x
        ranks.append(rank)
    sol = sols.reshape(*batch, n, k)
    if vector:
        sol = sol[..., 0]
    # rank and singular values are A's own (its batch shape, not the broadcast one)
    s_a = (
        np.linalg.svd(a, compute_uv=False)
        if a.size
        else np.zeros((*a.shape[:-2], min(m, n)), a.dtype)
    )
    smax = s_a[..., :1] if s_a.shape[-1] else np.zeros((*s_a.shape[:-1], 1), a.dtype)
    rank_a = (s_a > rc * smax).sum(-1).astype(np.int64)
    rank_t = _new(rank_a, D.int64) if driver != "gels" else _empty()
    if driver in ("gelsd", "gelss"):
        sv = _new(s_a, A.dtype)
    else:
        sv = _new(np.zeros((0,), a.dtype), A.dtype)
    full_rank = builtins.all(r == min(m, n) for r in ranks)
    if m > n and driver != "gelsy" and full_rank:
        resid = np.sum((a_ @ sols - b_) ** 2, -2)
        resid = resid.reshape(*batch, k)
        residuals = _new(resid[..., 0] if vector else resid, A.dtype)
    else:
        residuals = _new(np.zeros((0,), a.dtype), A.dtype)
    solution = _record_not_implemented(_new(sol, A.dtype), "LinalgLstsqBackward0", A, B)
    return _Lstsq(solution, residuals, rank_t, sv)


def _empty() -> Tensor:
    return _new(np.zeros((0,), np.int64), D.int64)


# the ops built from the ones above (imported last: they use this module's helpers)
from ._more import cond, diagonal, multi_dot, vander  # noqa: E402
