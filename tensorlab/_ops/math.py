"""Elementwise math, comparisons, in-place arithmetic and matrix products, with PyTorch's rules.

Every elementwise op follows the steps of PyTorch's ``TensorIterator``:

1. check the arguments (types, op-specific rules such as "no ``-`` on bool tensors");
2. for in-place ops, check memory overlap between the written tensor and the inputs;
3. broadcast the shapes (and, in place, check the result fits the output's shape);
4. compute the common dtype (:func:`tensorlab._dtype.result_type`) and, in place, check that it
   can be cast to the output's dtype;
5. reject dtypes the kernel does not handle (``"abs_cpu" not implemented for 'Bool'``);
6. compute with numpy in the common dtype (``float16`` is computed in ``float32`` and rounded once,
   as PyTorch's CPU kernels do), then give the result the strides PyTorch would give it.
"""

from __future__ import annotations

import builtins
import functools
import math as _pymath
import re
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._dtype import SCALAR_NAME as _SCALAR_NAME
from .._dtype import TYPE_NAME as _CPP_NAME
from .._tensor import Tensor, check_inplace, module_function, tensor_method
from ..autograd import formulas as AG
from ..autograd.graph import differentiable
from ..autograd.views import inplace_differentiable, same_as

Scalar = builtins.bool | builtins.int | builtins.float
_SCALAR_TYPES = (builtins.bool, builtins.int, builtins.float, np.bool_, np.integer, np.floating)

# ---------------------------------------------------------------------------------------------
# dtype names as they appear in PyTorch's messages
# ---------------------------------------------------------------------------------------------

# ScalarType and typeid names live in _dtype; names used by c10::checked_convert: "value cannot be converted to type uint8_t without overflow"
_CONVERT_NAME = {
    "bool": "bool",
    "uint8": "uint8_t",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}


def scalar_name(dt: D.dtype) -> str:
    """PyTorch's ScalarType name of a dtype (``Float``, ``Long``, ``Bool``, ...)."""
    return _SCALAR_NAME[dt.name]


def cpp_name(dt: D.dtype) -> str:
    """The C++ type name PyTorch prints in some messages (``float``, ``long int``, ...)."""
    return _CPP_NAME[dt.name]


def not_implemented(kernel: str, dt: D.dtype) -> NotImplementedError:
    """PyTorch's error for a kernel that has no implementation for ``dt``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dt)}'")


def can_cast(from_: D.dtype, to: D.dtype) -> bool:
    """PyTorch's ``canCast``: never float -> integer, never non-bool -> bool."""
    return from_._category <= to._category


# ---------------------------------------------------------------------------------------------
# operands: Tensors and Python scalars
# ---------------------------------------------------------------------------------------------


def _is_scalar(x) -> bool:
    return isinstance(x, _SCALAR_TYPES)


def _py_scalar(x):
    """numpy scalars behave like the Python scalar of their kind (as in PyTorch)."""
    if isinstance(x, np.bool_):
        return builtins.bool(x)
    if isinstance(x, np.integer):
        return builtins.int(x)
    if isinstance(x, np.floating):
        return builtins.float(x)
    return x


def _type_error(fname: str, argname: str, pos: int, value) -> TypeError:
    return TypeError(
        f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not "
        f"{type(value).__name__}"
    )


def _operand(x, fname: str, argname: str, pos: int, *, scalar_ok: bool = True):
    """A Tensor or a Python scalar; numpy arrays become tensors. Anything else: TypeError."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        from .creation import tensor

        return tensor(x)
    if scalar_ok and _is_scalar(x):
        return _py_scalar(x)
    raise _type_error(fname, argname, pos, x)


def _shape(x) -> tuple[int, ...]:
    return x._shape if isinstance(x, Tensor) else ()


def _numel(x) -> int:
    return x.numel() if isinstance(x, Tensor) else 1


def _compute_np(dt: D.dtype) -> np.dtype:
    """numpy dtype the arithmetic runs in: float16 is computed in float32 (PyTorch's opmath)."""
    return np.dtype(np.float32) if dt is D.float16 else dt.np


def cast_array(arr: np.ndarray, dt: D.dtype) -> np.ndarray:
    """C-style cast of ``arr`` to ``dt`` (float -> int truncates, anything -> bool tests != 0)."""
    if arr.dtype == dt.np:
        return arr
    with np.errstate(all="ignore"):
        if dt is D.bool_:
            return arr != 0
        if not dt.is_floating_point and arr.dtype.kind == "f":
            return np.trunc(arr).astype(dt.np)
        return arr.astype(dt.np)


def scalar_array(value: Scalar, dt: D.dtype) -> np.ndarray:
    """A 0-d array holding a Python scalar converted to ``dt`` the way a wrapped number is.

    Integers wrap around (``uint8 + 300`` adds 44); floats round (to ``inf`` if too large).
    """
    value = _py_scalar(value)
    if dt is D.bool_:
        return np.array(builtins.bool(value))
    if isinstance(value, builtins.bool):
        value = builtins.int(value)
    if isinstance(value, builtins.int):
        if not -(2**63) <= value < 2**64:
            raise OverflowError("int too big to convert")
        if value >= 2**63:
            value -= 2**64
        with np.errstate(all="ignore"):
            return np.array(value, dtype=np.int64).astype(dt.np)
    with np.errstate(all="ignore"):
        return np.array(value, dtype=np.float64).astype(dt.np)


def checked_scalar(value: Scalar, dt: D.dtype) -> np.ndarray:
    """``c10::checked_convert``: like :func:`scalar_array` but out-of-range values raise."""
    value = _py_scalar(value)
    bad = False
    if dt is D.bool_:
        pass
    elif dt.is_floating_point:
        if isinstance(value, builtins.float) and _pymath.isfinite(value):
            bad = builtins.abs(value) > builtins.float(np.finfo(dt.np).max)
    else:
        info = np.iinfo(dt.np)
        v = value
        if isinstance(v, builtins.float) and not _pymath.isfinite(v):
            bad = True
        elif dt is D.uint8:
            bad = v > info.max or v < -info.max
        else:
            bad = v > info.max or v < info.min
    if bad:
        raise RuntimeError(
            f"value cannot be converted to type {_CONVERT_NAME[dt.name]} without overflow"
        )
    if not dt.is_floating_point and isinstance(value, builtins.float) and dt is not D.bool_:
        value = builtins.int(value)  # truncation toward zero, as a C cast
    return scalar_array(value, dt)


def _values(x, dt: D.dtype) -> np.ndarray:
    """The operand's elements converted to ``dt`` and then to its compute dtype."""
    arr = x._np() if isinstance(x, Tensor) else scalar_array(x, dt)
    arr = cast_array(arr, dt)
    comp = _compute_np(dt)
    return arr if arr.dtype == comp else arr.astype(comp)


def _opmath_values(x) -> np.ndarray:
    """A one-element second operand read straight into float32 (PyTorch's reduced-float path)."""
    if isinstance(x, Tensor):
        return x._np().astype(np.float32)
    return np.array(x, dtype=np.float64).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# output layout: PyTorch's TensorIterator stride rules
# ---------------------------------------------------------------------------------------------


def output_strides(shape: Sequence[int], inputs: Sequence) -> tuple[int, ...]:
    """Strides PyTorch's ``TensorIterator`` gives the result of an elementwise op on ``inputs``
    (Tensors or Python scalars, in argument order): see :func:`tensorlab._layout.iterator_strides`.
    """
    operands = [(x._shape, x._stride) if isinstance(x, Tensor) else ((), ()) for x in inputs]
    return L.iterator_strides(shape, operands)


def like_strides(t: Tensor) -> tuple[int, ...]:
    """Strides of ``empty_like(t)`` (memory format preserved)."""
    return L.preserve_strides(t._shape, t._stride)


def _adopt(values, dtype: D.dtype, shape, stride) -> Tensor | None:
    """Use the memory of ``values`` as the new tensor's storage, without copying, when it is a
    private numpy result (it owns its data) already laid out with ``stride`` (size-1 dims aside)."""
    if not (
        isinstance(values, np.ndarray)
        and values.flags.owndata
        and values.dtype == dtype.np
        and values.shape == shape
        and values.size > 0
    ):
        return None
    item = values.itemsize
    for size, st, nst in zip(shape, stride, values.strides):
        if size > 1 and st * item != nst:
            return None
    if L.storage_span(shape, stride, 0) != (0, values.size):
        return None
    from .._storage import UntypedStorage

    flat = np.lib.stride_tricks.as_strided(values, (values.size,), (item,))
    return Tensor(UntypedStorage(flat, owner=values), shape, stride, 0, dtype)


def new_tensor(values: np.ndarray, dtype: D.dtype, shape, inputs: Sequence = (), stride=None):
    """A fresh tensor holding ``values`` (broadcast to ``shape``) with PyTorch's output strides."""
    from .._storage import new_storage

    shape = tuple(shape)
    stride = output_strides(shape, inputs) if stride is None else tuple(stride)
    values = cast_array(np.asarray(values), dtype)
    adopted = _adopt(values, dtype, shape, stride)
    if adopted is not None:
        return adopted
    n = L.numel(shape)
    size = 0 if n == 0 else 1 + builtins.sum((s - 1) * st for s, st in zip(shape, stride))
    out = Tensor(new_storage(size, dtype.np), shape, stride, 0, dtype)
    if n:
        out._np()[...] = values
    return out


def fresh_contiguous(values, dtype: D.dtype) -> Tensor:
    """A new contiguous tensor of ``values`` (adopting numpy's buffer when it can)."""
    values = cast_array(np.asarray(values), dtype)
    return new_tensor(values, dtype, values.shape, stride=L.contiguous_strides(values.shape))


# ---------------------------------------------------------------------------------------------
# in-place: PyTorch's memory-overlap and output checks
# ---------------------------------------------------------------------------------------------


def _partial_overlap(a: Tensor, b: Tensor) -> bool:
    if a.numel() == 0 or b.numel() == 0:
        return False
    if not (
        L.is_non_overlapping_and_dense(a._shape, a._stride)
        and L.is_non_overlapping_and_dense(b._shape, b._stride)
    ):
        return False  # "too hard": PyTorch does not complain
    if a._storage.data_ptr() != b._storage.data_ptr():
        return False
    a0, b0 = a.data_ptr(), b.data_ptr()
    a1, b1 = a0 + a.numel() * a.itemsize, b0 + b.numel() * b.itemsize
    if a0 == b0 and a1 == b1:
        return a._stride != b._stride
    return a0 < b1 and b0 < a1


def check_no_internal_overlap(out: Tensor) -> None:
    if L.has_internal_overlap(out._shape, out._stride):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def check_overlap(out: Tensor, inputs: Sequence) -> None:
    """``TensorIterator``'s checks before writing into ``out``."""
    check_no_internal_overlap(out)
    for x in inputs:
        if isinstance(x, Tensor) and x is not out and _partial_overlap(out, x):
            raise RuntimeError(
                "unsupported operation: some elements of the input tensor and the written-to "
                "tensor refer to a single memory location. Please clone() the tensor before "
                "performing the operation."
            )


def check_out_shape(out: Tensor, shape) -> None:
    if tuple(shape) != out._shape:
        raise RuntimeError(
            f"output with shape {L._fmt(out._shape)} doesn't match the broadcast shape "
            f"{L._fmt(shape)}"
        )


def check_cast(common: D.dtype, out: Tensor, *, cpp: bool = False) -> None:
    if not can_cast(common, out.dtype):
        name = cpp_name(out.dtype) if cpp else scalar_name(out.dtype)
        raise RuntimeError(
            f"result type {scalar_name(common)} can't be cast to the desired output type {name}"
        )


def write_into(out: Tensor, values: np.ndarray) -> Tensor:
    """Store ``values`` (already computed: no aliasing left) into ``out``'s memory; return ``out``."""
    if out.numel():
        dst = out._np()
        src = np.broadcast_to(cast_array(np.asarray(values), out.dtype), out._shape)
        if np.shares_memory(dst, src):
            src = src.copy()
        dst[...] = src
    return out


def resize_out(out: Tensor, shape) -> None:
    """PyTorch's ``resize_output``: an ``out=`` tensor of another shape is resized (contiguous),
    with PyTorch's deprecation warning when it had elements."""
    shape = tuple(shape)
    if out._shape == shape:
        return
    if out.numel():
        warnings.warn(
            "An output with one or more elements was resized since it had shape "
            f"{L._fmt(out._shape)}, which does not match the required output shape "
            f"{L._fmt(shape)}. This behavior is deprecated, and in a future PyTorch release "
            "outputs will not be resized unless they have zero elements. You can explicitly "
            "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=4,
        )
    from .._storage import new_storage

    needed = out._offset + L.numel(shape)
    if needed > out._storage._array.size:
        storage = new_storage(needed, out.dtype.np)
        old = out._storage._array
        storage._array[: old.size] = old
        out._storage = storage
    out._shape, out._stride = shape, L.contiguous_strides(shape)


def store_out(result: Tensor, out, *, same_dtype: str | None = None) -> Tensor:
    """Finish an op called with ``out=``: check the cast, resize if needed, write, return ``out``.

    ``same_dtype``: for ops whose ``out`` must have the result's dtype exactly, the message
    template (with ``{out}`` and ``{result}``).
    """
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    check_inplace(out)
    if same_dtype is not None and out.dtype is not result.dtype:
        raise RuntimeError(
            same_dtype.format(out=scalar_name(out.dtype), result=scalar_name(result.dtype))
        )
    check_cast(result.dtype, out)
    resize_out(out, result._shape)
    return write_into(out, result._np())


def _public_out(fn):
    """Give ``fn`` PyTorch's ``out=`` argument. (``fn`` itself takes ``out=self`` for in-place
    semantics: exact shape required, no resizing; in-place methods call ``fn.__wrapped__``.)"""

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        return store_out(fn(*args, **kwargs), out)

    return wrapper


# ---------------------------------------------------------------------------------------------
# the elementwise engine
# ---------------------------------------------------------------------------------------------

Kernel = Callable[..., np.ndarray]


def _elementwise(
    operands: Sequence,
    common: D.dtype,
    kernel: Kernel,
    *,
    result: D.dtype | None = None,
    out: Tensor | None = None,
    opmath_second: bool = False,
    shape=None,
    layout_inputs: Sequence | None = None,
) -> Tensor:
    """Run ``kernel`` on the operands converted to ``common``; new tensor, or write into ``out``.

    ``opmath_second``: when the common dtype is float16 and the second operand has one element,
    PyTorch reads it in float32 without rounding it to float16 first (mul, div, floor_divide).
    """
    if shape is None:
        shape = L.broadcast_shapes(*(_shape(x) for x in operands))
    arrays = []
    for i, x in enumerate(operands):
        if opmath_second and i == 1 and common is D.float16 and _numel(x) == 1:
            arrays.append(_opmath_values(x))
        else:
            arrays.append(_values(x, common))
    with np.errstate(all="ignore"):
        values = kernel(*arrays)
    result = result or common
    if out is not None:
        return write_into(out, values)
    return new_tensor(values, result, shape, operands if layout_inputs is None else layout_inputs)


def _build(operands: Sequence, common: D.dtype | None, out: Tensor | None, *, cpp: bool = False):
    """``TensorIterator``'s build: broadcast the shapes; with ``out``, first check overlap, then
    that the broadcast shape is ``out``'s shape and that ``common`` can be cast to its dtype."""
    if out is not None:
        check_inplace(out)
        check_overlap(out, operands)
    shape = L.broadcast_shapes(*(_shape(x) for x in operands))
    if out is not None:
        check_out_shape(out, shape)
        if common is not None:
            check_cast(common, out, cpp=cpp)
    return shape


# ---------------------------------------------------------------------------------------------
# kernels (numpy, on arrays already in the compute dtype)
# ---------------------------------------------------------------------------------------------


def _zero_division_check(y: np.ndarray) -> None:
    if y.dtype.kind in "iub" and np.any(y == 0):
        raise RuntimeError("ZeroDivisionError")


def _fma32(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once (a fused multiply-add), for float32/float16 compute.

    The float64 product of two float32 values is exact and the double rounding
    float64 -> float32 is harmless (53 >= 2 * 24 + 2), so this equals a true float32 FMA.
    """
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    p = a * b
    f = 134217729.0  # 2**27 + 1, Veltkamp's splitter
    ca, cb = f * a, f * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma64(a, b, c) -> np.ndarray:
    """A correctly rounded float64 ``a * b + c`` (PyTorch's CPU kernels fuse it).

    Boldo & Melquiond's emulation: exact product and sum, then the low parts added with rounding
    to odd, then one final rounding to nearest. Non-finite or huge values use the plain formula.
    """
    a, b, c = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (a, b, c)))
    with np.errstate(all="ignore"):
        uh, ul = _two_prod(a, b)
        th, tl = _two_sum(c, uh)
        s, err = _two_sum(tl, ul)
        even = (s.view(np.int64) & 1) == 0
        bump = (err != 0) & even
        s = np.where(bump, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
        out = th + s
        plain = a * b + c
        ok = np.isfinite(out) & (np.abs(a) < 1e300) & (np.abs(b) < 1e300) & np.isfinite(plain)
        return np.where(ok, out, plain)


def _k_add(alpha, common: D.dtype):
    """``x + alpha * y`` as PyTorch's vectorised CPU kernel computes it (one fused multiply-add).

    For float16, alpha is first rounded to float16. (PyTorch's scalar loop, used for the last
    elements of each SIMD chunk, rounds ``alpha * y`` to float16 before adding: those elements
    may differ in the last bit.)
    """

    def k(x, y):
        if x.dtype == np.bool_:
            return x | (y & builtins.bool(alpha))
        if alpha == 1:
            return x + y
        if x.dtype.kind == "f":
            a = scalar_array(alpha, common).astype(x.dtype)
            return _fma32(y, a, x) if x.dtype == np.float32 else _fma64(y, a, x)
        a = scalar_array(alpha, D.from_numpy_dtype(x.dtype))
        return x + a * y

    return k


def _k_trunc_div(x, y):
    if x.dtype.kind == "f":
        return np.trunc(x / y)
    _zero_division_check(y)
    q = np.floor_divide(x, y)
    fix = (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
    return q + fix.astype(q.dtype)


def _k_floor_div(x, y):
    if x.dtype.kind != "f":
        _zero_division_check(y)
    return np.floor_divide(x, y)


def _k_remainder(x, y):
    if x.dtype.kind != "f":
        _zero_division_check(y)
        return np.remainder(x, y)
    mod = np.fmod(x, y)
    fix = (mod != 0) & ((y < 0) != (mod < 0))
    return np.where(fix, mod + y, mod)


def _k_fmod(x, y):
    if x.dtype.kind != "f":
        _zero_division_check(y)
    return np.fmod(x, y)


def _int_pow(x, y):
    """PyTorch's integer power: repeated squaring that wraps; negative exponents give 0 (or ±1)."""
    x, y = np.broadcast_arrays(x, y)
    neg = y < 0
    if not np.any(neg):
        return np.power(x, y)
    safe_y = np.where(neg, 0, y)
    out = np.power(x, safe_y)
    one = np.ones_like(out)
    odd = (np.negative(y, where=neg, out=np.zeros_like(y)) % 2) == 1
    neg_val = np.where(x == 1, one, np.where(x == -1, np.where(odd, -one, one), 0 * one))
    return np.where(neg, neg_val, out)


def _k_sign(x):
    if x.dtype == np.bool_:
        return x.copy()
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


# ---------------------------------------------------------------------------------------------
# binary arithmetic
# ---------------------------------------------------------------------------------------------


def _common(a, b) -> D.dtype:
    return D.result_type(a, b)


def _sub_check(a, b) -> None:
    a_bool = isinstance(a, Tensor) and a.dtype is D.bool_ or isinstance(a, builtins.bool)
    b_bool = isinstance(b, Tensor) and b.dtype is D.bool_ or isinstance(b, builtins.bool)
    if a_bool and b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if a_bool or b_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _alpha_check(common: D.dtype, alpha) -> None:
    if isinstance(alpha, (builtins.bool, np.bool_)) and common is not D.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not common.is_floating_point and isinstance(alpha, (builtins.float, np.floating)):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )


def _add_impl(fname, a, b, alpha, out: Tensor | None, *, subtract: bool = False) -> Tensor:
    if subtract:
        _sub_check(a, b)
    common = _common(a, b)
    shape = _build((a, b), common, out)
    _alpha_check(common, alpha)
    alpha = _py_scalar(alpha)
    if alpha != 1 or subtract:
        checked_scalar(-alpha if subtract else alpha, common)
    k = _k_add(-alpha if subtract else alpha, common)
    return _elementwise((a, b), common, k, out=out, shape=shape)


@tensor_method("add", "__add__", "__radd__")
@differentiable(AG.make_add, "add")
@_public_out
def add(input, other, *, alpha: Scalar = 1, out=None) -> Tensor:
    """``input + alpha * other`` with broadcasting and PyTorch's type promotion."""
    input = _operand(input, "add", "input", 1)
    other = _operand(other, "add", "other", 2)
    return _add_impl("add", input, other, alpha, out)


@tensor_method("sub", "__sub__")
@differentiable(AG.make_sub, "sub")
@_public_out
def sub(input, other, *, alpha: Scalar = 1, out=None) -> Tensor:
    """``input - alpha * other``. Bool tensors are rejected, as in PyTorch."""
    input = _operand(input, "sub", "input", 1)
    other = _operand(other, "sub", "other", 2)
    return _add_impl("sub", input, other, alpha, out, subtract=True)


subtract = module_function("subtract")(sub)
Tensor.subtract = sub


@tensor_method("rsub", function=True)
@differentiable(AG.make_rsub, "rsub")
def rsub(input, other, *, alpha: Scalar = 1) -> Tensor:
    """``other - alpha * input``."""
    input = _operand(input, "rsub", "input", 1)
    other = _operand(other, "rsub", "other", 2)
    return _add_impl("rsub", other, input, alpha, None, subtract=True)


def __rsub__(self, other):
    return rsub(self, other)


def _mul_kernel(x, y):
    return x & y if x.dtype == np.bool_ else x * y


@tensor_method("mul", "__mul__", "__rmul__")
@differentiable(AG.make_mul, "mul")
@_public_out
def mul(input, other, *, out=None) -> Tensor:
    """Elementwise product (``and`` for bool tensors)."""
    input = _operand(input, "mul", "input", 1)
    other = _operand(other, "mul", "other", 2)
    common = _common(input, other)
    shape = _build((input, other), common, out)
    return _elementwise(
        (input, other), common, _mul_kernel, out=out, opmath_second=True, shape=shape
    )


multiply = module_function("multiply")(mul)
Tensor.multiply = mul


def _div_impl(input, other, rounding_mode, out: Tensor | None) -> Tensor:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    common = _common(input, other)
    if rounding_mode is None and not common.is_floating_point:
        common = D.get_default_dtype()
    shape = _build((input, other), common, out)
    if rounding_mode is None:
        kernel = np.true_divide
    else:
        if common is D.bool_:
            raise not_implemented(f"div_{rounding_mode}_cpu", common)
        kernel = _k_trunc_div if rounding_mode == "trunc" else _k_floor_div
    return _elementwise((input, other), common, kernel, out=out, opmath_second=True, shape=shape)


@tensor_method("div", "__truediv__")
@differentiable(AG.make_div, "div")
@_public_out
def div(input, other, *, rounding_mode: str | None = None, out=None) -> Tensor:
    """True division (ints give float32), or ``rounding_mode='trunc'`` / ``'floor'``."""
    input = _operand(input, "div", "input", 1)
    other = _operand(other, "div", "other", 2)
    return _div_impl(input, other, rounding_mode, out)


divide = module_function("divide")(div)
Tensor.divide = div


@tensor_method("true_divide")
@differentiable(AG.make_true_divide, "true_divide")
def true_divide(input, other) -> Tensor:
    input = _operand(input, "true_divide", "input", 1)
    other = _operand(other, "true_divide", "other", 2)
    return _div_impl(input, other, None, None)


def __rtruediv__(self, other):
    # PyTorch: ``other / self`` is ``self.reciprocal() * other``
    if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
        return NotImplemented
    return mul(reciprocal(self), other)


@tensor_method("floor_divide", "__floordiv__")
@differentiable(AG.floor_divide_node, "floor_divide")
@_public_out
def floor_divide(input, other, *, out=None) -> Tensor:
    """Floor division (``//``); integer division by zero raises ``ZeroDivisionError``."""
    input = _operand(input, "floor_divide", "input", 1)
    other = _operand(other, "floor_divide", "other", 2)
    return _div_impl(input, other, "floor", out)


def __rfloordiv__(self, other):
    if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
        return NotImplemented
    return floor_divide(other, self)


def _remainder_like(fname, kernel, input, other, out) -> Tensor:
    common = _common(input, other)
    shape = _build((input, other), common, out)
    if common is D.bool_:
        raise not_implemented(f"{fname}_cpu", common)
    return _elementwise((input, other), common, kernel, out=out, shape=shape)


@tensor_method("remainder", "__mod__")
@differentiable(AG.make_remainder, "remainder")
@_public_out
def remainder(input, other, *, out=None) -> Tensor:
    """Python-style modulus: the result has the sign of ``other``."""
    input = _operand(input, "remainder", "input", 1)
    other = _operand(other, "remainder", "other", 2)
    return _remainder_like("remainder", _k_remainder, input, other, out)


def __rmod__(self, other):
    if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
        return NotImplemented
    return remainder(other, self)


def _invalid_combination(fname: str, args: Sequence, signatures: Sequence[str]) -> TypeError:
    got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(
        f"{fname}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{lines}"
    )


_TENSOR_OR_NUMBER = (
    "Tensor input, Tensor other, *, Tensor out = None",
    "Tensor input, Number other, *, Tensor out = None",
)


def _tensor_then_operand(fname, input, other):
    """Arguments of ops whose first argument must be a Tensor and second a Tensor or a Number."""
    if not isinstance(input, Tensor) or not (
        isinstance(other, (Tensor, np.ndarray)) or _is_scalar(other)
    ):
        raise _invalid_combination(fname, (input, other), _TENSOR_OR_NUMBER)
    return input, _operand(other, fname, "other", 2)


@tensor_method("fmod")
@differentiable(AG.make_fmod, "fmod")
@_public_out
def fmod(input, other, *, out=None) -> Tensor:
    """C-style modulus: the result has the sign of ``input``."""
    input, other = _tensor_then_operand("fmod", input, other)
    return _remainder_like("fmod", _k_fmod, input, other, out)


_POW_SPECIAL = {
    2.0: lambda v: v * v,
    3.0: lambda v: v * v * v,
    0.5: np.sqrt,
    -0.5: lambda v: 1 / np.sqrt(v),
    -1.0: lambda v: 1 / v,
    -2.0: lambda v: 1 / (v * v),
}


def _pow_impl(base, exp, out: Tensor | None) -> Tensor:
    scalar_exp = _is_scalar(exp)
    if (
        scalar_exp
        and isinstance(base, Tensor)
        and not base.dtype.is_floating_point
        and not isinstance(exp, (builtins.bool, builtins.float))
        and exp < 0
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    common = _common(base, exp)
    shape = _build((base, exp), common, out)
    if scalar_exp and isinstance(base, Tensor):
        if exp == 0 or exp == 1:  # PyTorch fills with 1 / copies the base
            values = np.ones(base._shape, common.np) if exp == 0 else _values(base, common)
            if out is not None:
                return write_into(out, values)
            return new_tensor(values, common, shape, (base,))
        if common is D.float16 or not common.is_floating_point:
            checked_scalar(exp, common)
    if common is D.bool_:
        raise not_implemented("pow", common)

    def kernel(x, y):
        if not common.is_floating_point:
            return _int_pow(x, y)
        if scalar_exp and common is not D.float16 and builtins.float(exp) in _POW_SPECIAL:
            return _POW_SPECIAL[builtins.float(exp)](x)
        out = np.power(x, y)
        # numpy computes x ** 0.5 as sqrt(x); C's pow gives +inf for (-inf) ** 0.5
        return np.where((y == 0.5) & (x == -np.inf), np.inf, out)

    # pow(Tensor, Scalar) is a unary op in PyTorch: the layout follows the base alone
    layout = (base,) if scalar_exp else None
    return _elementwise((base, exp), common, kernel, out=out, shape=shape, layout_inputs=layout)


@tensor_method("pow", "__pow__")
@differentiable(AG.make_pow, "pow")
@_public_out
def pow(input, exponent, *, out=None) -> Tensor:
    """``input ** exponent``; integer tensors reject negative scalar exponents like PyTorch."""
    if not (isinstance(input, Tensor) or _is_scalar(input)) or not (
        isinstance(exponent, (Tensor, np.ndarray)) or _is_scalar(exponent)
    ):
        raise _invalid_combination(
            "pow",
            (input, exponent),
            (
                "Tensor input, Tensor exponent, *, Tensor out = None",
                "Number self, Tensor exponent, *, Tensor out = None",
                "Tensor input, Number exponent, *, Tensor out = None",
            ),
        )
    input = _py_scalar(input) if _is_scalar(input) else input
    exponent = _operand(exponent, "pow", "exponent", 2)
    return _pow_impl(input, exponent, out)


def __rpow__(self, other):
    if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
        return NotImplemented
    return pow(_operand(other, "pow", "input", 1), self)


def _dunder(fn):
    """Operators return NotImplemented for operands PyTorch would not accept (Python then raises)."""

    def method(self, other):
        if not (isinstance(other, (Tensor, np.ndarray)) or _is_scalar(other)):
            return NotImplemented
        return fn(self, other)

    method.__name__ = fn.__name__
    return method


for _name, _fn in (
    ("__add__", add),
    ("__radd__", add),
    ("__sub__", sub),
    ("__mul__", mul),
    ("__rmul__", mul),
    ("__truediv__", div),
    ("__floordiv__", floor_divide),
    ("__mod__", remainder),
    ("__pow__", pow),
):
    setattr(Tensor, _name, _dunder(_fn))
Tensor.__rsub__ = _dunder(__rsub__)
Tensor.__rtruediv__ = __rtruediv__
Tensor.__rdiv__ = __rtruediv__
Tensor.__rfloordiv__ = __rfloordiv__
Tensor.__rmod__ = __rmod__
Tensor.__rpow__ = __rpow__


# ---------------------------------------------------------------------------------------------
# maximum / minimum / comparisons / logical / bitwise
# ---------------------------------------------------------------------------------------------


def _tensor_pair(fname, input, other):
    input = _operand(input, fname, "input", 1, scalar_ok=False)
    other = _operand(other, fname, "other", 2, scalar_ok=False)
    return input, other


@tensor_method("maximum")
@differentiable(AG.make_maximum, "maximum")
@_public_out
def maximum(input, other, *, out=None) -> Tensor:
    """Elementwise maximum of two tensors; NaN wins."""
    input, other = _tensor_pair("maximum", input, other)
    common = _common(input, other)
    shape = _build((input, other), common, out)
    return _elementwise((input, other), common, np.maximum, out=out, shape=shape)


@tensor_method("minimum")
@differentiable(AG.make_minimum, "minimum")
@_public_out
def minimum(input, other, *, out=None) -> Tensor:
    """Elementwise minimum of two tensors; NaN wins."""
    input, other = _tensor_pair("minimum", input, other)
    common = _common(input, other)
    shape = _build((input, other), common, out)
    return _elementwise((input, other), common, np.minimum, out=out, shape=shape)


def _comparison(fname: str, kernel: Kernel):
    def op(input, other, *, out=None) -> Tensor:
        input, other = _tensor_then_operand(fname, input, other)
        common = _common(input, other)
        shape = _build((input, other), None, out)
        return _elementwise((input, other), common, kernel, result=D.bool_, out=out, shape=shape)

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` with broadcasting; returns a bool tensor."
    return _public_out(op)


eq = tensor_method("eq")(_comparison("eq", np.equal))
ne = tensor_method("ne")(_comparison("ne", np.not_equal))
lt = tensor_method("lt")(_comparison("lt", np.less))
le = tensor_method("le")(_comparison("le", np.less_equal))
gt = tensor_method("gt")(_comparison("gt", np.greater))
ge = tensor_method("ge")(_comparison("ge", np.greater_equal))
for _alias, _fn in (
    ("not_equal", ne),
    ("less", lt),
    ("less_equal", le),
    ("greater", gt),
    ("greater_equal", ge),
):
    tensor_method(_alias, function=True)(_fn)

for _name, _fn in (
    ("__eq__", eq),
    ("__ne__", ne),
    ("__lt__", lt),
    ("__le__", le),
    ("__gt__", gt),
    ("__ge__", ge),
):
    setattr(Tensor, _name, _dunder(_fn))
Tensor.__hash__ = lambda self: id(self)  # defining __eq__ must not make tensors unhashable


def _logical(fname: str, kernel: Kernel):
    def op(input, other, *, out=None) -> Tensor:
        input, other = _tensor_pair(fname, input, other)
        shape = _build((input, other), None, out)
        values = kernel(cast_array(input._np(), D.bool_), cast_array(other._np(), D.bool_))
        if out is not None:
            return write_into(out, values)
        return new_tensor(values, D.bool_, shape, (input, other))

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` of the truth values; returns a bool tensor."
    return _public_out(op)


logical_and = tensor_method("logical_and")(_logical("logical_and", np.logical_and))
logical_or = tensor_method("logical_or")(_logical("logical_or", np.logical_or))
logical_xor = tensor_method("logical_xor")(_logical("logical_xor", np.logical_xor))


def _bitwise(fname: str, kernel: Kernel):
    def op(input, other, *, out=None) -> Tensor:
        input = _operand(input, fname, "input", 1)
        other = _operand(other, fname, "other", 2)
        common = _common(input, other)
        shape = _build((input, other), common, out)
        if common.is_floating_point:
            raise not_implemented(f"{fname}_cpu", common)
        return _elementwise((input, other), common, kernel, out=out, shape=shape)

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` of bool or integer tensors."
    return _public_out(op)


bitwise_and = tensor_method("bitwise_and")(_bitwise("bitwise_and", np.bitwise_and))
bitwise_or = tensor_method("bitwise_or")(_bitwise("bitwise_or", np.bitwise_or))
bitwise_xor = tensor_method("bitwise_xor")(_bitwise("bitwise_xor", np.bitwise_xor))
for _name, _fn in (
    ("__and__", bitwise_and),
    ("__rand__", bitwise_and),
    ("__or__", bitwise_or),
    ("__ror__", bitwise_or),
    ("__xor__", bitwise_xor),
    ("__rxor__", bitwise_xor),
):
    setattr(Tensor, _name, _dunder(_fn))


# ---------------------------------------------------------------------------------------------
# unary ops
# ---------------------------------------------------------------------------------------------


def _unary(
    fname: str,
    kernel: Kernel,
    *,
    to_float: bool = False,
    result_bool: bool = False,
    reject_bool: str | Callable[[], Exception] | None = None,
    reject_float: str | None = None,
    int_identity: bool = False,
    inplace: bool = True,
    f32_kernel: Kernel | None = None,
):
    """Make ``torch.<fname>``/``Tensor.<fname>`` and (if ``inplace``) ``Tensor.<fname>_``.

    ``to_float``: integer and bool inputs give the default float dtype (``exp``, ``sqrt``, ...);
    ``reject_bool``: a kernel name for NotImplementedError, or a callable making the exception;
    ``int_identity``: integer inputs are returned unchanged (as a copy): ``floor``, ``round``, ...
    ``f32_kernel``: used instead of ``kernel`` when computing in float32 (see :func:`_via_double`).
    """

    def result_dtype(dt: D.dtype) -> D.dtype:
        if result_bool:
            return D.bool_
        if to_float and not dt.is_floating_point:
            return D.get_default_dtype()
        return dt

    def check(dt: D.dtype) -> None:
        if dt is D.bool_ and reject_bool is not None:
            raise (
                not_implemented(reject_bool, dt)
                if isinstance(reject_bool, str)
                else (reject_bool())
            )
        if dt.is_floating_point and reject_float is not None:
            raise not_implemented(reject_float, dt)

    def compute(input: Tensor, common: D.dtype):
        if int_identity and not input.dtype.is_floating_point:
            return input._np().copy()
        if f32_kernel is not None and common is D.float32:
            return f32_kernel(_values(input, common))
        return kernel(_values(input, common))

    def op(input) -> Tensor:
        input = _operand(input, fname, "input", 1, scalar_ok=False)
        common = input.dtype if result_bool else result_dtype(input.dtype)
        check(input.dtype)
        with np.errstate(all="ignore"):
            values = compute(input, common)
        return new_tensor(values, result_dtype(input.dtype), input._shape, (input,))

    def op_(self: Tensor) -> Tensor:
        common = result_dtype(self.dtype)
        check_inplace(self)
        if self.dtype is D.bool_ and reject_bool is not None and not isinstance(reject_bool, str):
            raise reject_bool()  # PyTorch checks this before looking at memory
        check_no_internal_overlap(self)
        check_cast(common, self)
        check(self.dtype)
        with np.errstate(all="ignore"):
            values = compute(self, self.dtype if result_bool else common)
        return write_into(self, values)

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` (PyTorch's dtype rules)."
    op_.__name__ = op_.__qualname__ = fname + "_"
    op = _public_out(op)
    if not result_bool and reject_float is None:  # a float result can carry a gradient
        op = differentiable(AG.unary_node(fname), fname)(op)
        op_ = inplace_differentiable(same_as(op))(op_)
    tensor_method(fname)(op)
    if inplace:
        tensor_method(fname + "_", function=False)(op_)
    return op


def _neg_bool_error():
    return RuntimeError(
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead."
    )


def _via_double(fn):
    """Evaluate a float32 transcendental in float64 and round once: PyTorch's SLEEF routines are
    almost always correctly rounded, numpy's float32 SIMD versions often are not."""

    def k(x):
        return fn(x.astype(np.float64)).astype(np.float32)

    return k


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _sigmoid32(x):
    """PyTorch's float32 sigmoid: ``1 / (1 + exp(-x))`` in float32 around an accurate exp."""
    e = np.exp(-x.astype(np.float64)).astype(np.float32)
    return np.float32(1) / (np.float32(1) + e)


def _relu(x):
    return np.where(x < 0, np.zeros_like(x), x)


neg = _unary("neg", np.negative, reject_bool=_neg_bool_error)
negative = module_function("negative")(neg)
Tensor.negative = neg
abs = _unary("abs", np.abs, reject_bool="abs_cpu")
absolute = module_function("absolute")(abs)
Tensor.absolute = abs
sign = _unary("sign", _k_sign)
exp = _unary("exp", np.exp, to_float=True, f32_kernel=_via_double(np.exp))
log = _unary("log", np.log, to_float=True, f32_kernel=_via_double(np.log))
log2 = _unary("log2", np.log2, to_float=True, f32_kernel=_via_double(np.log2))
log10 = _unary("log10", np.log10, to_float=True, f32_kernel=_via_double(np.log10))
sqrt = _unary("sqrt", np.sqrt, to_float=True)
rsqrt = _unary("rsqrt", lambda x: 1 / np.sqrt(x), to_float=True)
sin = _unary("sin", np.sin, to_float=True, f32_kernel=_via_double(np.sin))
cos = _unary("cos", np.cos, to_float=True, f32_kernel=_via_double(np.cos))
tan = _unary("tan", np.tan, to_float=True, f32_kernel=_via_double(np.tan))
tanh = _unary("tanh", np.tanh, to_float=True, f32_kernel=_via_double(np.tanh))
sigmoid = _unary("sigmoid", _sigmoid, to_float=True, f32_kernel=_sigmoid32)
reciprocal = _unary("reciprocal", lambda x: 1 / x, to_float=True)
relu = _unary(
    "relu",
    _relu,
    reject_bool=lambda: RuntimeError("Boolean inputs not supported for relu"),
)
floor = _unary("floor", np.floor, reject_bool="floor_vml_cpu", int_identity=True)
ceil = _unary("ceil", np.ceil, reject_bool="ceil_vml_cpu", int_identity=True)
trunc = _unary("trunc", np.trunc, reject_bool="trunc_vml_cpu", int_identity=True)
fix = module_function("fix")(trunc)
Tensor.fix = trunc
isnan = _unary("isnan", np.isnan, result_bool=True, inplace=False)
_isinf = _unary("isinf", np.isinf, result_bool=True, inplace=False)
_isfinite = _unary("isfinite", np.isfinite, result_bool=True, inplace=False)


@tensor_method("isinf")
def isinf(input) -> Tensor:
    """True where ``input`` is +/-inf (all False for integer and bool tensors)."""
    input = _operand(input, "isinf", "input", 1, scalar_ok=False)
    if input.dtype.is_floating_point:
        return _isinf(input)
    return new_tensor(False, D.bool_, input._shape, stride=like_strides(input))


@tensor_method("isfinite")
def isfinite(input) -> Tensor:
    """True where ``input`` is neither inf nor nan (all True for integer and bool tensors)."""
    input = _operand(input, "isfinite", "input", 1, scalar_ok=False)
    if input.dtype.is_floating_point:
        return _isfinite(input)
    return new_tensor(True, D.bool_, input._shape, stride=like_strides(input))


logical_not = _unary("logical_not", lambda x: x == 0, result_bool=True, inplace=False)
bitwise_not = _unary("bitwise_not", np.invert, reject_float="bitwise_not_cpu")


def _round_kernel(decimals: int):
    def k(x):
        if decimals == 0:
            return np.rint(x)
        p = np.asarray(10.0 ** builtins.abs(decimals), dtype=x.dtype)
        return np.rint(x / p) * p if decimals < 0 else np.rint(x * p) / p

    return k


@tensor_method("round")
@differentiable(AG.unary_node("round"), "round")
def round(input, *, decimals: int = 0) -> Tensor:
    """Round half to even; ``decimals`` rounds to that many decimal places (float tensors)."""
    input = _operand(input, "round", "input", 1, scalar_ok=False)
    if input.dtype is D.bool_:
        raise not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype)
    if not input.dtype.is_floating_point:
        if decimals != 0:
            raise not_implemented("round_cpu", input.dtype)
        return new_tensor(input._np(), input.dtype, input._shape, (input,))
    with np.errstate(all="ignore"):
        values = _round_kernel(decimals)(_values(input, input.dtype))
    return new_tensor(values, input.dtype, input._shape, (input,))


@tensor_method("round_", function=False)
@inplace_differentiable(same_as(round))
def round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    check_inplace(self)
    check_no_internal_overlap(self)
    return write_into(self, round(self, decimals=decimals)._np())


@tensor_method("positive", "__pos__")
def positive(input) -> Tensor:
    """Returns ``input`` itself (bool tensors raise, as in PyTorch)."""
    input = _operand(input, "positive", "input", 1, scalar_ok=False)
    if input.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@tensor_method("square")
def square(input) -> Tensor:
    """``input ** 2`` (bool tensors give int64, as ``pow(bool, 2)`` does)."""
    input = _operand(input, "square", "input", 1, scalar_ok=False)
    return pow(input, 2)


@tensor_method("square_", function=False)
def square_(self: Tensor) -> Tensor:
    return self.pow_(2)


def __invert__(self):
    if self.dtype.is_floating_point:
        raise TypeError(
            "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
        )
    return bitwise_not(self)


Tensor.__invert__ = __invert__
Tensor.__neg__ = neg
Tensor.__abs__ = abs


# ---------------------------------------------------------------------------------------------
# clamp, where, lerp, closeness
# ---------------------------------------------------------------------------------------------


def _clamp_args(input, min, max):
    if min is None and max is None:
        raise RuntimeError("tensorlab.clamp: At least one of 'min' or 'max' must not be None")
    bounds = []
    for name, b in (("min", min), ("max", max)):
        if b is None:
            continue
        if not (isinstance(b, (Tensor, np.ndarray)) or _is_scalar(b)):
            raise _invalid_combination(
                "clamp",
                (input, b),
                (
                    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
                    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
                ),
            )
        bounds.append(_operand(b, "clamp", name, 2))
    if len(bounds) == 2 and isinstance(bounds[0], Tensor) != isinstance(bounds[1], Tensor):
        # PyTorch's overloads are (Tensor, Tensor) and (Number, Number); a 0-dim tensor passes
        # as a Number, a tensor with dims does not
        if builtins.any(isinstance(b, Tensor) and b.ndim for b in bounds):
            raise _invalid_combination("clamp", (input, *bounds), _CLAMP_SIGS)
        bounds = [b.item() if isinstance(b, Tensor) else b for b in bounds]
    return bounds


_CLAMP_SIGS = (
    "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
    "Tensor input, Number min = None, Number max = None, *, Tensor out = None",
)


def _clamp_kernel(has_min: bool, has_max: bool):
    def k(x, *bounds):
        i = 0
        if has_min:
            x = np.maximum(x, bounds[i])
            i += 1
        if has_max:
            x = np.minimum(x, bounds[i])
        return x

    return k


def _clamp_impl(input, min, max, out: Tensor | None) -> Tensor:
    bounds = _clamp_args(input, min, max)
    common = D.result_type(input, *bounds)
    tensor_bounds = builtins.any(isinstance(b, Tensor) for b in bounds)
    if out is not None and not tensor_bounds and common is not out.dtype:
        check_inplace(out)
        raise RuntimeError(
            f"result type {scalar_name(common)} can't be cast to the desired output type "
            f"{cpp_name(out.dtype)}"
        )
    shape = _build((input, *bounds), common, out, cpp=not tensor_bounds)
    for b in bounds:
        if not isinstance(b, Tensor):
            checked_scalar(b, common)
    if common is D.bool_ and tensor_bounds and len(bounds) == 2:
        raise not_implemented("clamp_cpu", common)
    if common is D.bool_ and not tensor_bounds:
        kname = (
            "clamp_scalar_cpu"
            if len(bounds) == 2
            else ("clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
        )
        raise not_implemented(kname, common)
    k = _clamp_kernel(min is not None, max is not None)
    layout = None if tensor_bounds else (input,)  # clamp(Tensor, Number, Number) is unary
    return _elementwise((input, *bounds), common, k, out=out, shape=shape, layout_inputs=layout)


@tensor_method("clamp")
@differentiable(AG.make_clamp, "clamp")
def clamp(input, min=None, max=None, *, out=None) -> Tensor:
    """``min(max(input, min), max)``: bounds are numbers or tensors; NaN propagates."""
    input = _operand(input, "clamp", "input", 1, scalar_ok=False)
    result = _clamp_impl(input, min, max, None)
    if out is None:
        return result
    numbers = not builtins.any(isinstance(b, Tensor) for b in (min, max))
    return store_out(
        result, out, same_dtype="Found dtype {out} but expected {result}" if numbers else None
    )


clip = module_function("clip")(clamp)
Tensor.clip = clamp


@tensor_method("clamp_", "clip_", function=False)
@inplace_differentiable(same_as(clamp))
def clamp_(self: Tensor, min=None, max=None) -> Tensor:
    """In-place clamp."""
    return _clamp_impl(self, min, max, self)


@tensor_method("clamp_min")
@differentiable(AG.make_clamp_min, "clamp_min")
def clamp_min(input, min) -> Tensor:
    return clamp(input, min=min)


@tensor_method("clamp_max")
@differentiable(AG.make_clamp_max, "clamp_max")
def clamp_max(input, max) -> Tensor:
    return clamp(input, max=max)


@module_function("where")
@differentiable(AG.make_where, "where")
def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` holds, else ``other`` (numbers allowed; broadcasting).

    With only ``condition``: the tuple of index tensors of its nonzero elements.
    """
    if out is not None:  # the out= overload takes tensors only
        for name, pos, v in (("input", 2, input), ("other", 3, other)):
            if not isinstance(v, Tensor):
                raise _type_error("where", name, pos, v)
        return store_out(
            where(condition, input, other),
            out,
            same_dtype="Expected out type to be {result} but got {out}",
        )
    condition = _operand(condition, "where", "condition", 1, scalar_ok=False)
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    input = _operand(input, "where", "input", 2)
    other = _operand(other, "where", "other", 3)
    if condition.dtype is not D.bool_:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_name(condition.dtype)}"
        )
    common = _common(input, other)
    shape = L.broadcast_shapes(condition._shape, _shape(input), _shape(other))
    cond = condition._np()

    def k(x, y):
        return np.where(cond, x, y)

    arrays = (_values(input, common), _values(other, common))
    values = k(*arrays)
    return new_tensor(values, common, shape, (condition, input, other))


@tensor_method("nonzero")
def nonzero(input, *, as_tuple: bool = False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one column view per dim."""
    input = _operand(input, "nonzero", "input", 1, scalar_ok=False)
    if as_tuple and input.ndim == 0:
        return nonzero(input.unsqueeze(0), as_tuple=True)
    idx = np.argwhere(input._np()).astype(np.int64)
    n = idx.shape[0]
    # PyTorch stores the (n, ndim) result column by column: strides (1, n)
    columns = Tensor._from_array(np.ascontiguousarray(idx.T), D.int64)
    out = columns._view((n, input.ndim), (1, n))
    return out.unbind(1) if as_tuple else out


def _where_method(self: Tensor, condition, y) -> Tensor:
    """``self.where(condition, y)`` is ``torch.where(condition, self, y)``."""
    return where(condition, self, y)


Tensor.where = _where_method


def _lerp_check(start: Tensor, end: Tensor, weight) -> None:
    if end.dtype is not start.dtype:
        raise RuntimeError(
            f"expected dtype {cpp_name(start.dtype)} for `end` but got dtype {cpp_name(end.dtype)}"
        )
    if isinstance(weight, Tensor) and weight.dtype is not start.dtype:
        raise RuntimeError(
            f"expected dtype {cpp_name(start.dtype)} for `weight` but got dtype "
            f"{cpp_name(weight.dtype)}"
        )


def _lerp_kernel(x, y, w):
    w = np.asarray(w, dtype=x.dtype)
    small = np.abs(w) < 0.5
    diff = y - x
    coeff = np.where(small, w, w - 1)
    base = np.where(small, x, y)
    if x.dtype == np.float32:
        return _fma32(coeff, diff, base)
    return _fma64(coeff, diff, base)


@tensor_method("lerp")
@differentiable(AG.make_lerp, "lerp")
@_public_out
def lerp(input, end, weight, *, out=None) -> Tensor:
    """``input + weight * (end - input)`` (PyTorch's two-sided formula, weight number or tensor)."""
    input = _operand(input, "lerp", "input", 1, scalar_ok=False)
    end = _operand(end, "lerp", "end", 2, scalar_ok=False)
    weight = _operand(weight, "lerp", "weight", 3)
    _lerp_check(input, end, weight)
    dt = input.dtype
    operands = (input, end, weight) if isinstance(weight, Tensor) else (input, end)
    shape = _build(operands, None, out)
    if not dt.is_floating_point:
        raise not_implemented(
            "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar", dt
        )
    x, y = _values(input, dt), _values(end, dt)
    w = (
        _values(weight, dt)
        if isinstance(weight, Tensor)
        else (np.array(weight, dtype=np.float64).astype(_compute_np(dt)))
    )
    with np.errstate(all="ignore"):
        values = _lerp_kernel(*np.broadcast_arrays(x, y, w))
    if out is not None:
        return write_into(out, values)
    return new_tensor(values, dt, shape, operands)


@tensor_method("lerp_", function=False)
@inplace_differentiable(same_as(lerp))
def lerp_(self: Tensor, end, weight) -> Tensor:
    return lerp.__wrapped__(self, end, weight, out=self)


@tensor_method("isclose")
def isclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (dtypes must match)."""
    input, other = _tensor_pair("isclose", input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_name(input.dtype)} did not match {scalar_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = eq(input, other)
    if equal_nan and input.dtype.is_floating_point:
        close = logical_or(close, logical_and(isnan(input), isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    a, b = input, other
    if not a.dtype.is_floating_point:
        a, b = a.to(D.get_default_dtype()), b.to(D.get_default_dtype())
    allowed = add(abs(mul(b, rtol)), atol)
    actual = abs(sub(a, b))
    return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)))


@tensor_method("allclose")
def allclose(input, other, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False):
    """``isclose(...).all()`` as a Python bool."""
    return builtins.bool(np.all(isclose(input, other, rtol, atol, equal_nan)._np()))


@tensor_method("equal")
def equal(input, other) -> bool:
    """True when both have the same shape and the same values (dtypes may differ)."""
    input, other = _tensor_pair("equal", input, other)
    if input._shape != other._shape:
        return False
    return builtins.bool(np.all(eq(input, other)._np()))


# ---------------------------------------------------------------------------------------------
# in-place arithmetic
# ---------------------------------------------------------------------------------------------


@tensor_method("add_", function=False)
@inplace_differentiable(same_as(add))
def add_(self: Tensor, other, *, alpha: Scalar = 1) -> Tensor:
    other = _operand(other, "add_", "other", 1)
    return _add_impl("add_", self, other, alpha, self)


@tensor_method("sub_", "subtract_", function=False)
@inplace_differentiable(same_as(sub))
def sub_(self: Tensor, other, *, alpha: Scalar = 1) -> Tensor:
    other = _operand(other, "sub_", "other", 1)
    return _add_impl("sub_", self, other, alpha, self, subtract=True)


@tensor_method("mul_", "multiply_", function=False)
@inplace_differentiable(same_as(mul))
def mul_(self: Tensor, other) -> Tensor:
    return mul.__wrapped__(self, _operand(other, "mul_", "other", 1), out=self)


@tensor_method("div_", "divide_", function=False)
@inplace_differentiable(same_as(div))
def div_(self: Tensor, other, *, rounding_mode: str | None = None) -> Tensor:
    return div.__wrapped__(
        self, _operand(other, "div_", "other", 1), rounding_mode=rounding_mode, out=self
    )


@tensor_method("true_divide_", function=False)
@inplace_differentiable(same_as(true_divide))
def true_divide_(self: Tensor, other) -> Tensor:
    return div.__wrapped__(self, _operand(other, "true_divide_", "other", 1), out=self)


@tensor_method("floor_divide_", function=False)
@inplace_differentiable(same_as(floor_divide))
def floor_divide_(self: Tensor, other) -> Tensor:
    return floor_divide.__wrapped__(self, _operand(other, "floor_divide_", "other", 1), out=self)


@tensor_method("remainder_", function=False)
@inplace_differentiable(same_as(remainder))
def remainder_(self: Tensor, other) -> Tensor:
    return remainder.__wrapped__(self, _operand(other, "remainder_", "other", 1), out=self)


@tensor_method("fmod_", function=False)
@inplace_differentiable(same_as(fmod))
def fmod_(self: Tensor, other) -> Tensor:
    return fmod.__wrapped__(self, other, out=self)


@tensor_method("pow_", function=False)
@inplace_differentiable(same_as(pow))
def pow_(self: Tensor, exponent) -> Tensor:
    return pow.__wrapped__(self, exponent, out=self)


def _inplace_dunder(fn):
    def method(self, other):
        if not (isinstance(other, (Tensor, np.ndarray)) or _is_scalar(other)):
            return NotImplemented
        return fn(self, other)

    method.__name__ = fn.__name__
    return method


Tensor.__iadd__ = _inplace_dunder(add_)
Tensor.__isub__ = _inplace_dunder(sub_)
Tensor.__imul__ = _inplace_dunder(mul_)
Tensor.__itruediv__ = _inplace_dunder(div_)
Tensor.__idiv__ = Tensor.__itruediv__
Tensor.__ifloordiv__ = _inplace_dunder(floor_divide_)
Tensor.__imod__ = _inplace_dunder(remainder_)
Tensor.__ipow__ = _inplace_dunder(pow_)


def _bitwise_inplace(fn):
    def method(self, other):
        return fn.__wrapped__(self, _operand(other, fn.__name__ + "_", "other", 1), out=self)

    method.__name__ = fn.__name__ + "_"
    return method


for _fn in (bitwise_and, bitwise_or, bitwise_xor):
    setattr(Tensor, _fn.__name__ + "_", _bitwise_inplace(_fn))
Tensor.__iand__ = _inplace_dunder(Tensor.bitwise_and_)
Tensor.__ior__ = _inplace_dunder(Tensor.bitwise_or_)
Tensor.__ixor__ = _inplace_dunder(Tensor.bitwise_xor_)


@tensor_method("zero_", function=False)
@inplace_differentiable(AG.make_zero)
def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (writes through to every view of the storage)."""
    return fill_.__wrapped__(self, 0)


@tensor_method("fill_", function=False)
@inplace_differentiable(AG.make_fill)
def fill_(self: Tensor, value) -> Tensor:
    """Set every element to ``value`` (a number or a 0-dim tensor), converted to self's dtype."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        value = value.item()
    elif not _is_scalar(value):
        raise _invalid_combination("fill_", (value,), ("Tensor value", "Number value"))
    check_inplace(self)
    arr = checked_scalar(value, self.dtype)
    if self.numel():
        self._np()[...] = arr
    return self


@tensor_method("copy_", function=False)
@inplace_differentiable(AG.make_copy)
def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast to self's shape, any dtype) into self's memory."""
    if _is_scalar(src):
        src = _py_scalar(src)
        check_inplace(self)
        if self.numel():
            self._np()[...] = (
                scalar_array(src, self.dtype)
                if not (isinstance(src, builtins.float) and not self.dtype.is_floating_point)
                else cast_array(np.asarray(src), self.dtype)
            )
        return self
    if not isinstance(src, Tensor):
        raise _type_error("copy_", "other", 1, src)
    check_inplace(self)
    if src is self:
        return self
    if (
        src._storage.data_ptr() == self._storage.data_ptr()
        and src._offset == self._offset
        and src._stride == self._stride
        and src._shape == self._shape
        and src.dtype is self.dtype
    ):
        return self
    check_overlap(self, (src,))
    shape = L.broadcast_shapes(self._shape, src._shape)
    check_out_shape(self, shape)
    return write_into(self, cast_array(src._np(), self.dtype).copy())


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

del _name, _fn, _alias


# ---------------------------------------------------------------------------------------------
# methods count positions after ``self``: "add(): argument 'other' (position 1) must be Tensor"
# ---------------------------------------------------------------------------------------------

_POSITION = re.compile(r"^(\w+\(\): argument '\w+' \(position )(\d+)(\) must be .*)$", re.S)


def _as_method(fn):
    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **kwargs)
        except TypeError as e:
            m = _POSITION.match(str(e))
            if not m or "'input'" in str(e):
                raise
            raise TypeError(f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}") from None

    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


for _name in (
    "add sub subtract rsub mul multiply div divide true_divide floor_divide remainder fmod pow "
    "maximum minimum eq ne lt le gt ge not_equal less less_equal greater greater_equal "
    "logical_and logical_or logical_xor bitwise_and bitwise_or bitwise_xor isclose allclose "
    "equal lerp dot mv mm bmm outer ger matmul"
).split():
    setattr(Tensor, _name, _as_method(getattr(Tensor, _name)))
