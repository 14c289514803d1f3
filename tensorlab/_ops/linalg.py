"""Matrix products (PyTorch's ``LinearAlgebra.cpp`` / ``Linear.cpp``): ``dot``, ``mv``, ``mm``,
``bmm``, ``outer``, ``matmul`` (all with ``out=``), and ``einsum``, ``tensordot``, ``kron``, built
as PyTorch builds them from permutes, views, sums and one ``bmm``/``mm`` per contraction (so
their results have PyTorch's strides and ``grad_fn``)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace, from_array
from ..autograd import formulas as AG
from ..autograd.grad_mode import STATE as _GRAD
from ..autograd.graph import check_out_grad
from ._elementwise import (
    _operand,
    check_no_internal_overlap,
    cpp_name,
    not_implemented,
    resize_out,
    scalar_name,
    store_out,
    write_into,
)
from .arithmetic import mul
from .native_functions import module_function, op, tensor_method

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
    return from_array(values, dt)


def _into(out, result: Tensor, message: str | None = None) -> Tensor:
    """Finish a product called with ``out=``: ``message`` (formatted with ``out`` and ``result``,
    the dtypes' names) when ``out`` must have the result's dtype exactly; then PyTorch's resize
    (with its warning) and the write. Without ``message`` the result is cast as ``mul`` does."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if message is None:
        return store_out(result, out)
    check_inplace(out)
    if out.dtype is not result.dtype:
        raise RuntimeError(
            message.format(
                out=scalar_name(out.dtype),
                result=scalar_name(result.dtype),
                out_cpp=cpp_name(out.dtype),
                result_cpp=cpp_name(result.dtype),
            )
        )
    check_no_internal_overlap(out)
    resize_out(out, result._shape)
    return write_into(out, result._np())


_EXPECTED_OUT = "Expected out tensor to have dtype {result_cpp}, but got {out_cpp} instead"


@op("dot", formula=AG.make_dot)
def dot(input, tensor, *, out=None) -> Tensor:
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
    res = _fresh(_matmul_np(input._np(), tensor._np(), input.dtype), input.dtype)
    return _into(out, res, "result dtype {out} does not match input dtype {result}")


@op("mv", formula=AG.make_mv)
def mv(input, vec, *, out=None) -> Tensor:
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
    if out is not None and isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(
            "addmv input tensors must have the same dtype, but got "
            f"{scalar_name(out.dtype)}, {scalar_name(input.dtype)}, and {scalar_name(vec.dtype)}"
        )
    if input.dtype is D.bool_ and n and m:
        raise not_implemented("addmv_impl_cpu", input.dtype)
    return _into(out, _fresh(_matmul_np(input._np(), vec._np(), input.dtype), input.dtype))


@op("mm", formula=AG.make_mm)
def mm(input, mat2, *, out=None) -> Tensor:
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
    res = _fresh(_matmul_np(input._np(), mat2._np(), input.dtype), input.dtype)
    return _into(out, res, _EXPECTED_OUT)


@op("bmm", formula=AG.make_bmm)
def bmm(input, mat2, *, out=None) -> Tensor:
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
        res = Tensor._from_array(np.zeros((b, n, p), mat2.dtype.np), mat2.dtype)
        return _into(out, res, _EXPECTED_OUT)
    if input.dtype is not mat2.dtype:
        raise RuntimeError(
            f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(mat2.dtype)}"
        )
    if input.dtype is D.bool_:
        raise not_implemented("bmm", input.dtype)
    res = _fresh(_matmul_np(input._np(), mat2._np(), input.dtype), input.dtype)
    return _into(out, res, _EXPECTED_OUT)


@tensor_method("outer", "ger")
def outer(input, vec2, *, out=None) -> Tensor:
    """Outer product of two 1-D tensors (type-promoted, as ``input[:, None] * vec2``)."""
    input = _operand(input, "outer", "input", 1, scalar_ok=False)
    vec2 = _operand(vec2, "outer", "vec2", 2, scalar_ok=False)
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    if out is not None:
        return mul(input.reshape(-1, 1), vec2, out=out)
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


@tensor_method("matmul")
def matmul(input, other, *, out=None) -> Tensor:
    """NumPy-style matrix product: dot / mv / mm / batched with broadcasting, as PyTorch does it."""
    if out is not None:
        check_out_grad("matmul", (input, other, out))
        return _into(out, matmul(input, other), _EXPECTED_OUT)
    input = _operand(input, "matmul", "input", 1, scalar_ok=False)
    other = _operand(other, "matmul", "other", 2, scalar_ok=False)
    if input.is_meta or other.is_meta:  # the meta device: through cpu stand-ins
        from . import meta

        return meta.function_call("matmul", matmul, (input, other), {})
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


tensor_method("__matmul__", function=False)(__matmul__)
tensor_method("__rmatmul__", function=False)(__rmatmul__)


# ---------------------------------------------------------------------------------------------
# einsum: PyTorch's algorithm (Linear.cpp), step for step
# ---------------------------------------------------------------------------------------------

_LETTERS = 26
_ELLIPSIS = 2 * _LETTERS  # the code of "..." among the 52 subscripts


def _subscript(label: str) -> int:
    """``A``-``Z`` are subscripts 0-25, ``a``-``z`` 26-51 (the order of implicit outputs)."""
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _label(s: int) -> str:
    return chr(ord("A") + s) if s < _LETTERS else chr(ord("a") + s - _LETTERS)


def _is_label(c: str) -> bool:
    return c.isascii() and c.isalpha()


def _parse_operands(lhs: str, num_ops: int) -> list[list[int]]:
    op_labels: list[list[int]] = [[] for _ in range(num_ops)]
    ell_in_input, curr, i = False, 0, 0
    while i < len(lhs):
        c = lhs[i]
        if c == " ":
            pass
        elif c == ".":
            if ell_in_input:
                raise RuntimeError(
                    f"einsum(): found '.' for operand {curr} for which an ellipsis was already "
                    "found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise RuntimeError(
                    f"einsum(): found '.' for operand {curr} that is not part of any ellipsis"
                )
            i += 2
            op_labels[curr].append(_ELLIPSIS)
            ell_in_input = True
        elif c == ",":
            curr += 1
            if curr >= num_ops:
                raise RuntimeError(
                    "einsum(): fewer operands were provided than specified in the equation"
                )
            ell_in_input = False
        else:
            if not _is_label(c):
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {i} in the equation string, "
                    "subscripts must be in [a-zA-Z]"
                )
            op_labels[curr].append(_subscript(c))
        i += 1
    if curr != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels


def _einsum(equation: str, operands: list[Tensor]) -> Tensor:
    """``at::einsum``: align every operand to (output dims, contracted dims) with diagonal /
    unsqueeze / permute, then contract left to right, one :func:`_sumproduct_pair` at a time."""
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for k, operand in enumerate(operands):
        if not isinstance(operand, Tensor):
            raise TypeError(
                f"einsum(): argument 'tensors' (position 2) must be tuple of Tensors, but found "
                f"element of type {type(operand).__name__} at pos {k}"
            )
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    num_ops = len(operands)
    op_labels = _parse_operands(lhs, num_ops)

    label_count = [0] * _ELLIPSIS
    ell_num_dim = 0
    for i, (operand, labels) in enumerate(zip(operands, op_labels)):
        nlabels = len(labels)
        has_ell = _ELLIPSIS in labels
        for s in labels:
            if s == _ELLIPSIS:
                nlabels -= 1
            else:
                label_count[s] += 1
        if has_ell:
            ell_num_dim = max(ell_num_dim, operand.ndim - nlabels)
        if (nlabels > operand.ndim) if has_ell else (nlabels != operand.ndim):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({nlabels}) does not match "
                f"the number of dimensions ({operand.ndim}) for operand {i}"
                + ("" if has_ell else " and no ellipsis was given")
            )

    perm_index_of = [-1] * _ELLIPSIS
    perm_index = ell_index = 0
    ell_in_output = False
    if arrow < 0:  # implicit output: "..." then the labels seen once, in subscript order
        perm_index = ell_num_dim
        ell_in_output = True
        for s in range(_ELLIPSIS):
            if label_count[s] == 1:
                perm_index_of[s] = perm_index
                perm_index += 1
    else:
        rhs = equation[arrow + 2 :]
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == " ":
                pass
            elif c == ".":
                if ell_in_output:
                    raise RuntimeError(
                        "einsum(): found '.' for output but an ellipsis (...) was already found"
                    )
                if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                    raise RuntimeError(
                        "einsum(): found '.' for output that is not part of any ellipsis (...)"
                    )
                i += 2
                ell_index = perm_index
                perm_index += ell_num_dim
                ell_in_output = True
            else:
                if not _is_label(c):
                    raise RuntimeError(
                        f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                        "equation string, subscripts must be in [a-zA-Z]"
                    )
                s = _subscript(c)
                if label_count[s] == 0 or perm_index_of[s] != -1:
                    why = (
                        "appears more than once in the output"
                        if perm_index_of[s] > -1
                        else "does not appear in the equation for any input operand"
                    )
                    raise RuntimeError(f"einsum(): output subscript {c} {why}")
                perm_index_of[s] = perm_index
                perm_index += 1
            i += 1

    out_num_dim = perm_index
    if not ell_in_output:
        ell_index = perm_index
        perm_index += ell_num_dim
    for s in range(_ELLIPSIS):
        if label_count[s] > 0 and perm_index_of[s] == -1:
            perm_index_of[s] = perm_index
            perm_index += 1

    label_size = [1] * _ELLIPSIS
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops: list[Tensor] = []
    for i, (op0, labels) in enumerate(zip(operands, op_labels)):
        operand = op0
        permutation = [-1] * perm_index
        dim = 0
        for s in labels:
            if s == _ELLIPSIS:
                ndim = op0.ndim - (len(labels) - 1)
                for j in range(ell_num_dim - ndim, ell_num_dim):
                    if operand._shape[dim] != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != operand._shape[dim]:
                            raise RuntimeError(
                                f"einsum(): dimension {j} covered by ellipsis in operand {i}"
                                f"has size {operand._shape[dim]} which does not broadcast with "
                                f"previously seen ellipsis with size {ell_sizes[j]} for the "
                                "respective dimension"
                            )
                        ell_sizes[j] = operand._shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_index_of[s]] == -1:
                size = operand._shape[dim]
                if size != 1:
                    if label_size[s] != 1 and label_size[s] != size:
                        raise RuntimeError(
                            f"einsum(): subscript {_label(s)} has size {size} for operand {i} "
                            f"which does not broadcast with previously seen size {label_size[s]}"
                        )
                    label_size[s] = size
                    dim_counts[perm_index_of[s]] += 1
                permutation[perm_index_of[s]] = dim
                dim += 1
            else:  # a repeated label: take the diagonal
                prev = permutation[perm_index_of[s]]
                if operand._shape[dim] != operand._shape[prev]:
                    raise RuntimeError(
                        f"einsum(): subscript {_label(s)} is repeated for operand {i} but the "
                        f"sizes don't match, {operand._shape[dim]} != {operand._shape[prev]}"
                    )
                operand = operand.diagonal(0, prev, dim).movedim(-1, prev)
        for k, val in enumerate(permutation):
            if val == -1:
                operand = operand.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(operand.permute(permutation))

    while len(ops) > 1:
        a, b = ops.pop(0), ops.pop(0)
        sum_dims, a_sum, b_sum = [], [], []
        for dim in range(out_num_dim, perm_index):
            if a._shape[dim] != 1 and b._shape[dim] != 1:
                dim_counts[dim] -= 1
                if dim_counts[dim] == 1:
                    sum_dims.append(dim)
                    dim_counts[dim] = 0
            elif dim_counts[dim] == 1:
                if a._shape[dim] != 1:
                    a_sum.append(dim)
                    dim_counts[dim] = 0
                elif b._shape[dim] != 1:
                    b_sum.append(dim)
                    dim_counts[dim] = 0
        if a_sum:
            a = a.sum(a_sum, True)
        if b_sum:
            b = b.sum(b_sum, True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    if perm_index - out_num_dim > 0:
        if num_ops > 1:  # every contracted dim has size 1 by now
            return ops[0].view(ops[0]._shape[:out_num_dim])
        return ops[0].sum(list(range(out_num_dim, perm_index)))
    return ops[0]


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims: list[int]) -> Tensor:
    """``sumproduct_pair`` (keepdim): ``(left * right).sum(sum_dims)`` as one ``bmm`` over the
    dims (in both, left only, summed, right only), viewed back and permuted to the dims' order."""
    if not sum_dims:
        return mul(left, right)
    dim = left.ndim
    summed = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(dim):
        sl, sr = left._shape[i] != 1, right._shape[i] != 1
        if i in summed:
            if sl and sr:
                if left._shape[i] != right._shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left._shape[i]
            elif sl:
                left = left.sum(i, True)
            elif sr:
                right = right.sum(i, True)
        elif sl and sr:
            if left._shape[i] != right._shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left._shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left._shape[i]
        else:
            ro.append(i)
            ro_size *= right._shape[i]
    out_size = (
        [left._shape[d] for d in lro]
        + [left._shape[d] for d in lo]
        + [1] * len(sum_dims)
        + [right._shape[d] for d in ro]
    )
    lperm = lro + lo + sum_dims + ro
    rperm = lro + sum_dims + ro + lo
    operm = [-1] * len(out_size)
    for k, d in enumerate(lro + lo + sum_dims + ro):
        operm[d] = k
    left = left.permute(lperm).reshape(lro_size, lo_size, sum_size)
    right = right.permute(rperm).reshape(lro_size, sum_size, ro_size)
    return bmm(left, right).view(out_size).permute(operm)


def einsum(*args) -> Tensor:
    """``einsum(equation, *operands)``, ``einsum(equation, [operands])`` or the sublist form
    ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` (``torch.functional.einsum``)."""
    if len(args) < 2:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, "
            "or at least one operand and its subscripts list"
        )
    if isinstance(args[0], Tensor):

        def parse(n) -> str:
            if n is Ellipsis:
                return "..."
            if 0 <= n < _LETTERS:
                return chr(ord("A") + n)
            if _LETTERS <= n < 2 * _LETTERS:
                return chr(ord("a") + n - _LETTERS)
            raise ValueError(
                "einsum(): subscript in subscript list is not within the valid range [0, 52)"
            )

        equation = ",".join("".join(parse(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(parse(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
        if not isinstance(equation, str):
            raise TypeError(
                "einsum(): argument 'equation' (position 1) must be str, not "
                f"{type(equation).__name__}"
            )
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _einsum(equation, list(operands))


# ---------------------------------------------------------------------------------------------
# tensordot and kron
# ---------------------------------------------------------------------------------------------


def _tensordot(a: Tensor, b: Tensor, dims_a: list[int], dims_b: list[int]) -> Tensor:
    """``at::tensordot``: sum broadcast (size-1) contracted dims, permute the contracted dims
    to the inner side, one ``mm``, reshape to (free dims of a, free dims of b)."""
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    csize = 1
    t1, t2 = a, b
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a.size(da), b.size(db)
        if s2 == 1:
            t1 = t1.sum(da, True, dtype=t1.dtype)
        elif s1 == 1:
            t2 = t2.sum(db, True, dtype=t2.dtype)
        else:
            if s1 != s2:
                raise RuntimeError(
                    f"contracted dimensions need to match, but first has size {s1} in dim {da} "
                    f"and second has size {s2} in dim {db}"
                )
            csize *= s1
    ca, cb = L.wrap_dims(dims_a, a.ndim), L.wrap_dims(dims_b, b.ndim)
    p1 = [i for i in range(a.ndim) if i not in ca]
    p2 = [i for i in range(b.ndim) if i not in cb]
    rsizes = [t1._shape[i] for i in p1] + [t2._shape[i] for i in p2]
    size1, size2 = L.numel([t1._shape[i] for i in p1]), L.numel([t2._shape[i] for i in p2])
    t1 = t1.permute(p1 + list(dims_a)).reshape(size1, csize)
    t2 = t2.permute(list(dims_b) + p2).reshape(csize, size2)
    return mm(t1, t2).reshape(rsizes)


def tensordot(a, b, dims=2, out=None) -> Tensor:
    """Contract ``dims`` (the last ``dims`` of ``a`` with the first of ``b``, or two lists of
    dims) with one matrix product (``torch.functional.tensordot``)."""
    from .._tensor import Tensor as _T

    if not isinstance(dims, (_T, list, tuple, int)) or isinstance(dims, bool):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
            f"containing two lists, but got dims={dims}"
        )
    dims_a: list[int] = []
    dims_b: list[int] = []
    if isinstance(dims, (tuple, list)):
        dims_a, dims_b = dims
    if isinstance(dims, _T):
        if dims.numel() > 1:
            if dims.shape[0] != 2:
                raise AssertionError(
                    f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}"
                )
            dims_a, dims_b = dims[0].tolist(), dims[1].tolist()
        else:
            n = int(dims.item())
            if n < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            dims_a, dims_b = list(range(-n, 0)), list(range(n))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(-dims, 0)), list(range(dims))
    dims_a = [int(d) for d in (dims_a if isinstance(dims_a, (list, tuple)) else [dims_a])]
    dims_b = [int(d) for d in (dims_b if isinstance(dims_b, (list, tuple)) else [dims_b])]
    if out is not None:  # PyTorch's tensordot_out: resize, then out.copy_(result) (tracked)
        res = _tensordot(a, b, dims_a, dims_b)
        if not isinstance(out, _T):
            raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
        if out.dtype is not res.dtype:
            raise RuntimeError(
                "tensordot: Expected the output tensor to have dtype "
                f"{scalar_name(res.dtype)}, but got an output tensor with dtype "
                f"{scalar_name(out.dtype)}"
            )
        resize_out(out, res._shape)
        return out.copy_(res)
    return _tensordot(a, b, dims_a, dims_b)


@tensor_method("kron")
def kron(input, other, *, out=None) -> Tensor:
    """Kronecker product: ``out[i*p + k, j*q + l] = input[i, j] * other[k, l]`` (any ndim; the
    shorter shape is padded with leading 1s): one broadcast ``mul`` of interleaved views."""
    input = _operand(input, "kron", "input", 1, scalar_ok=False)
    other = _operand(other, "kron", "other", 2, scalar_ok=False)
    maxdim = max(input.ndim, other.ndim)
    pad_a, pad_b = maxdim - input.ndim, maxdim - other.ndim
    a_shape, b_shape, r_shape = [], [], []
    for i in range(maxdim):
        sa = input._shape[i - pad_a] if i >= pad_a else 1
        sb = other._shape[i - pad_b] if i >= pad_b else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        r_shape.append(sa * sb)
    if out is not None:
        check_out_grad("mul", (input, other, out))
        return _into(out, mul(input.reshape(a_shape), other.reshape(b_shape)).reshape(r_shape))
    prod = mul(input.reshape(a_shape), other.reshape(b_shape))
    return _unsafe_view(prod, tuple(r_shape))


def _unsafe_view(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``at::_unsafe_view``: ``view``'s layout (and error: ``kron`` of a transposed operand can
    raise it, as in PyTorch), but a new tensor whose node is ``UnsafeViewBackward0``."""
    stride = L.view_strides(t._shape, t._stride, shape)
    if stride is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    out = Tensor(t._storage, shape, stride, t._offset, t._dtype)
    if _GRAD.enabled and t.requires_grad:
        from ..autograd.formulas import UnsafeViewBackward0
        from ..autograd.graph import attach

        attach(out, UnsafeViewBackward0(t))
    return out


module_function("tensordot")(tensordot)
