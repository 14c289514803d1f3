"""Matrix products: ``dot``, ``mv``, ``mm``, ``bmm``, ``outer``, ``matmul`` (PyTorch's ``LinearAlgebra``)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, tensor_method
from ..autograd import formulas as AG
from ..autograd.graph import differentiable
from ._elementwise import _operand, cpp_name, fresh_contiguous, not_implemented, scalar_name
from .arithmetic import mul

Scalar = builtins.bool | builtins.int | builtins.float

# ---------------------------------------------------------------------------------------------
# matrix products
# ---------------------------------------------------------------------------------------------


def _matmul_np(x: np.ndarray, y: np.ndarray, dt: D.dtype) -> np.ndarray:
    """``x @ y`` in the dtype PyTorch uses (float16 accumulates in float32; ints wrap)."""
    if dt is D.float16:
        return np.matmul(x.astype(np.float32), y.astype(np.float32))
    if dt is D.float32 or dt is D.float64:
        return np.matmul(x, y)
    with np.errstate(all="ignore"):
        return np.matmul(x.astype(np.int64), y.astype(np.int64)).astype(dt.np)


def _fresh(values: np.ndarray, dt: D.dtype) -> Tensor:
    return fresh_contiguous(values, dt)


@tensor_method("dot")
@differentiable(AG.make_dot, "dot")
def dot(input, tensor) -> Tensor:
    """Inner product of two 1-D tensors of the same dtype (a 0-dim tensor)."""
    input = _operand(input, "dot", "input", 1, scalar_ok=False)
    tensor = _operand(tensor, "dot", "tensor", 2, scalar_ok=False)
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    if input.dtype is not tensor.dtype:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{scalar_name(input.dtype)} and {scalar_name(tensor.dtype)}"
        )
    n, m = input.numel(), tensor.numel()
    if n != m:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same "
            f"number of elements, but got {n} and {m} elements respectively"
        )
    if input.dtype is D.bool_:
        raise not_implemented("dot", input.dtype)
    return _fresh(_matmul_np(input._np(), tensor._np(), input.dtype), input.dtype)


@tensor_method("mv")
@differentiable(AG.make_mv, "mv")
def mv(input, vec) -> Tensor:
    """Matrix (n, m) times vector (m,) -> (n,)."""
    input = _operand(input, "mv", "input", 1, scalar_ok=False)
    vec = _operand(vec, "mv", "vec", 2, scalar_ok=False)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    n, m = input._shape
    if vec._shape[0] != m:
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({n}x{m}), vec ({vec._shape[0]})")
    if input.dtype is not vec.dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{scalar_name(vec.dtype)}, {scalar_name(input.dtype)}, and {scalar_name(vec.dtype)}"
        )
    if input.dtype is D.bool_ and n and m:
        raise not_implemented("addmv_impl_cpu", input.dtype)
    return _fresh(_matmul_np(input._np(), vec._np(), input.dtype), input.dtype)


@tensor_method("mm")
@differentiable(AG.make_mm, "mm")
def mm(input, mat2) -> Tensor:
    """Matrix product of two 2-D tensors of the same dtype."""
    input = _operand(input, "mm", "input", 1, scalar_ok=False)
    mat2 = _operand(mat2, "mm", "mat2", 2, scalar_ok=False)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    (a, b), (c, d) = input._shape, mat2._shape
    if b != c:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a}x{b} and {c}x{d})")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{cpp_name(input.dtype)} != {cpp_name(mat2.dtype)}"
        )
    if input.dtype is D.bool_ and a and b and d:
        raise not_implemented("addmm_impl_cpu_", input.dtype)
    return _fresh(_matmul_np(input._np(), mat2._np(), input.dtype), input.dtype)


@tensor_method("bmm")
@differentiable(AG.make_bmm, "bmm")
def bmm(input, mat2) -> Tensor:
    """Batched matrix product: (b, n, m) @ (b, m, p) -> (b, n, p); no broadcasting."""
    input = _operand(input, "bmm", "input", 1, scalar_ok=False)
    mat2 = _operand(mat2, "bmm", "mat2", 2, scalar_ok=False)
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = input._shape
    if mat2._shape[:2] != (b, m):
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{b}, {m}] but got: [{mat2._shape[0]}, {mat2._shape[1]}]."
        )
    p = mat2._shape[2]
    if b * n * p == 0 or m == 0:  # PyTorch returns early: zeros of mat2's dtype, no dtype check
        return Tensor._from_array(np.zeros((b, n, p), mat2.dtype.np), mat2.dtype)
    if input.dtype is not mat2.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(mat2.dtype)}"
        )
    if input.dtype is D.bool_:
        raise not_implemented("bmm", input.dtype)
    return _fresh(_matmul_np(input._np(), mat2._np(), input.dtype), input.dtype)


@tensor_method("outer", "ger")
def outer(input, vec2) -> Tensor:
    """Outer product of two 1-D tensors (type-promoted, as ``input[:, None] * vec2``)."""
    input = _operand(input, "outer", "input", 1, scalar_ok=False)
    vec2 = _operand(vec2, "outer", "vec2", 2, scalar_ok=False)
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return mul(input.reshape(-1, 1), vec2)


def _should_fold(t1: Tensor, t2: Tensor) -> bool:
    """PyTorch's ``should_fold``: multiply a batch by a matrix/vector with one ``mm``/``mv``."""
    larger = t1.ndim >= t2.ndim
    big = t1 if larger else t2.mT
    dim_small = t2.ndim if larger else t1.ndim
    if not (big.ndim >= 3 and dim_small <= 2):
        return False
    if (t2 if larger else t1).requires_grad:
        return True
    if t1.ndim == 2:
        return False
    if big.numel() == 0:
        return True
    sh, st = big._shape, big._stride
    return builtins.all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.ndim - 2))


@tensor_method("matmul", "__matmul__")
def matmul(input, other) -> Tensor:
    """NumPy-style matrix product: dot / mv / mm / batched with broadcasting, as PyTorch does it."""
    input = _operand(input, "matmul", "input", 1, scalar_ok=False)
    other = _operand(other, "matmul", "other", 2, scalar_ok=False)
    d1, d2 = input.ndim, other.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )
    if d1 == 1 and d2 == 1:
        return dot(input, other)
    if d1 == 2 and d2 == 1:
        return mv(input, other)
    if d1 == 1 and d2 == 2:
        out = mm(input.unsqueeze(0), other).squeeze(0)
        if out._grad_fn is not None:  # PyTorch squeezes in place here (squeeze_)
            out._grad_fn._name = "SqueezeBackward4"
        return out
    if d1 == 2 and d2 == 2:
        return mm(input, other)
    if _should_fold(input, other):
        transpose = d2 > d1
        t1 = other.mT if transpose else input
        t2 = (input.t() if d1 == 2 else input) if transpose else other
        out_shape = t1._shape[:-1]
        folded = L.numel(out_shape)
        t1f = t1.reshape(folded, t1._shape[-1])
        if t2.ndim == 2:
            res = mm(t1f, t2)._unsafe_view((*out_shape, t2._shape[1]))
            return res.mT.contiguous() if transpose else res
        return mv(t1f, t2)._unsafe_view(tuple(out_shape))
    n = input._shape[-2] if d1 > 1 else 1
    m1 = input._shape[-1]
    batch1 = input._shape[:-2]
    m2 = other._shape[-2] if d2 > 1 else other._shape[0]
    p = other._shape[-1] if d2 > 1 else 1
    batch2 = other._shape[:-2]
    batch = L.broadcast_shapes(batch1, batch2)
    nb = L.numel(batch)
    a = input.expand(*batch, n, m1).reshape(nb, n, m1)
    b = (other.unsqueeze(-1) if d2 == 1 else other).expand(*batch, m2, p).reshape(nb, m2, p)
    out_shape = list(batch) + ([n] if d1 > 1 else []) + ([p] if d2 > 1 else [])
    return bmm(a, b)._unsafe_view(tuple(out_shape))


def __rmatmul__(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


def __matmul__(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


Tensor.__matmul__ = __matmul__
Tensor.__rmatmul__ = __rmatmul__
