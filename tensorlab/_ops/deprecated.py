"""The spellings torch 2.13 still accepts with a warning (``tensorlab.range``,
``chain_matmul``; ``Tensor.type_as`` without one) and the functions it removed but still names,
which raise torch's own ``RuntimeError`` text telling what replaces them (``eig``, ``symeig``,
``lstsq``, ``solve``, ``matrix_rank``; ``torch/_linalg_utils.py``); and ``matrix_power``, the
torch-level name of ``linalg.matrix_power``."""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from .native_functions import module_function, tensor_method

RANGE_WARNING = (
    "torch.range is deprecated and will be removed in a future release because its behavior is "
    "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
    "in [start, end)."
).replace("torch.", "tensorlab.")


@module_function("range")
def range_(
    start=0,
    end=None,
    step=1,
    *,
    out=None,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    """``[start, end]`` (the end included) by ``step``, in the default float dtype unless
    ``dtype`` says otherwise. Deprecated: ``arange`` excludes the end."""
    from .creation import _finish, _into_out, _num, _options, _out_dtype

    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn(RANGE_WARNING, UserWarning, stacklevel=2)
    _options(device, layout, pin_memory)
    start, end, step = _num(start), _num(end), _num(step)
    d = _out_dtype("range", dtype, out, D.get_default_dtype())
    integral = not d.is_floating_point
    acc = builtins.int if integral else builtins.float
    xstart, xend, xstep = acc(start), acc(end), acc(step)
    if not (xstep > 0 or xstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(float(xstart)) and math.isfinite(float(xend))):
        raise RuntimeError(f"unsupported range: {_g(xstart)} -> {_g(xend)}")
    if not ((xstep > 0 and xend >= xstart) or (xstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if integral:
        size = (
            builtins.int((xend - xstart) // xstep + 1)
            if xstep > 0
            else (xstart - xend) // -xstep + 1
        )
        values = xstart + np.arange(size, dtype=np.int64) * xstep
    else:
        size = builtins.int((xend - xstart) / xstep + 1)
        values = xstart + np.arange(size, dtype=np.float64) * xstep  # in double, as ATen
    t = Tensor._from_array(np.asarray(values).astype(d.np), d)
    return _finish(_into_out("range", t, out), requires_grad)


def _g(x) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


@tensor_method("type_as", function=False)
def type_as(self, other) -> Tensor:
    """``self`` cast to ``other``'s dtype (``self`` itself when it already has it)."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return self.to(other.dtype)


CHAIN_MATMUL_WARNING = (
    "tensorlab.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "tensorlab.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters."
)


@module_function("chain_matmul")
def chain_matmul(*matrices, out=None) -> Tensor:
    """``matrices[0] @ matrices[1] @ ...`` (deprecated: ``linalg.multi_dot``)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        return matrices[0].clone()
    warnings.warn(CHAIN_MATMUL_WARNING, UserWarning, stacklevel=2)
    from ..linalg import multi_dot

    return multi_dot(list(matrices), out=out)


# ------------------------------------------------------------------------------ removed (1.9)
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


@module_function("matrix_rank")
def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\n"
        "Please use the `tensorlab.linalg.matrix_rank` function instead. "
        "The parameter 'symmetric' was renamed in `tensorlab.linalg.matrix_rank()` to 'hermitian'."
    )


@tensor_method("solve")
def solve(input, A, *, out=None):
    raise RuntimeError(
        _REMOVED + "`tensorlab.solve` is deprecated in favor of `tensorlab.linalg.solve`. "
        "`tensorlab.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\n"
        "To get the LU factorization see `tensorlab.lu`, which can be used with "
        "`tensorlab.lu_solve` or `tensorlab.lu_unpack`.\n"
        "X = tensorlab.solve(B, A).solution "
        "should be replaced with:\n"
        "X = tensorlab.linalg.solve(A, B)"
    )


@tensor_method("lstsq")
def lstsq(input, A, *, out=None):
    raise RuntimeError(
        _REMOVED + "`tensorlab.lstsq` is deprecated in favor of `tensorlab.linalg.lstsq`.\n"
        "`tensorlab.linalg.lstsq` has reversed arguments and does not return the QR "
        "decomposition in the returned tuple (although it returns other information about the "
        "problem).\n\n"
        "To get the QR decomposition consider using `tensorlab.linalg.qr`.\n\n"
        "The returned solution in `tensorlab.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In tensorlab.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\n"
        "X, _ = tensorlab.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\n"
        "X = tensorlab.linalg.lstsq(A, B).solution"
    )


@tensor_method("symeig")
def symeig(input, eigenvectors=False, upper=True, *, out=None):
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\n"
        "L, _ = tensorlab.symeig(A, upper=upper) "
        "should be replaced with:\n"
        "L = tensorlab.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\n"
        "and\n\n"
        "L, V = tensorlab.symeig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L, V = tensorlab.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


@tensor_method("eig")
def eig(self, eigenvectors: bool = False, *, e=None, v=None):
    raise RuntimeError(
        _REMOVED + "`tensorlab.linalg.eig` returns complex tensors of dtype `cfloat` or "
        "`cdouble` rather than real tensors mimicking complex tensors.\n\n"
        "L, _ = tensorlab.eig(A) "
        "should be replaced with:\n"
        "L_complex = tensorlab.linalg.eigvals(A)\n\n"
        "and\n\n"
        "L, V = tensorlab.eig(A, eigenvectors=True) "
        "should be replaced with:\n"
        "L_complex, V_complex = tensorlab.linalg.eig(A)"
    )


# ----------------------------------------------------------- torch-level names of linalg functions
@tensor_method("matrix_power")
def matrix_power(input, n, *, out=None) -> Tensor:
    """``tensorlab.matrix_power`` / ``Tensor.matrix_power``: ``linalg.matrix_power``."""
    from ..linalg import matrix_power as _linalg_matrix_power

    if isinstance(n, bool) or not isinstance(n, (builtins.int, np.integer)):
        raise TypeError(
            f"matrix_power(): argument 'n' (position 1) must be int, not {type(n).__name__}"
        )
    return _linalg_matrix_power(input, n, out=out)


# --------------------------------------------------------------- deprecated (warned once per run)
_WARNED: set[str] = set()

QR_WARNING = (
    "tensorlab.qr is deprecated in favor of tensorlab.linalg.qr and will be removed in a future "
    "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter "
    "'mode'.\nQ, R = tensorlab.qr(A, some)\nshould be replaced with\n"
    "Q, R = tensorlab.linalg.qr(A, 'reduced' if some else 'complete')"
)
CHOLESKY_WARNING = (
    "tensorlab.cholesky is deprecated in favor of tensorlab.linalg.cholesky and will be removed "
    "in a future PyTorch release.\nL = tensorlab.cholesky(A)\nshould be replaced with\n"
    "L = tensorlab.linalg.cholesky(A)\nand\nU = tensorlab.cholesky(A, upper=True)\n"
    "should be replaced with\nU = tensorlab.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
)


def _warn_once(key: str, message: str) -> None:
    """torch's ``TORCH_WARN_ONCE``: the first call of the process warns, later ones do not."""
    if key not in _WARNED:
        _WARNED.add(key)
        warnings.warn(message, UserWarning, stacklevel=3)


_QR_TYPE = []


@tensor_method("qr")
def qr(input, some: bool = True, *, out=None):
    """``(Q, R)`` (deprecated: ``linalg.qr(A, 'reduced' if some else 'complete')``)."""
    from ..linalg import _named
    from ..linalg import qr as _linalg_qr

    _warn_once("qr", QR_WARNING)
    if not _QR_TYPE:
        _QR_TYPE.append(_named("qr", ("Q", "R")))
    q, r = _linalg_qr(input, "reduced" if some else "complete")
    return _QR_TYPE[0](q, r)


@tensor_method("cholesky")
def cholesky(input, upper: bool = False, *, out=None) -> Tensor:
    """The Cholesky factor (deprecated: ``linalg.cholesky``; ``upper=True``: the upper one)."""
    from ..linalg import cholesky as _linalg_cholesky

    _warn_once("cholesky", CHOLESKY_WARNING)
    return _linalg_cholesky(input, upper=upper)
