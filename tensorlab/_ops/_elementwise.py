"""The machinery every elementwise op shares, following PyTorch's ``TensorIterator``.

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
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._dtype import SCALAR_NAME as _SCALAR_NAME
from .._dtype import TYPE_NAME as _CPP_NAME
from .._tensor import Tensor, _adopt, check_inplace, from_array
from ..autograd.grad_mode import STATE as _GRAD

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
    operands = [
        (x._shape, x._stride)
        if isinstance(x, Tensor)
        else (tuple(x[0]), tuple(x[1]))
        if isinstance(x, tuple)
        else ((), ())
        for x in inputs
    ]
    return L.iterator_strides(shape, operands)


def converted_layouts(operands: Sequence, common: D.dtype) -> list:
    """The operands as ``TensorIterator`` sees them when it computes the output's strides: an
    input of another dtype has first been converted with ``.to(common)``, which gives it the
    strides of ``empty_like`` (memory order kept, gaps closed)."""
    out = []
    for x in operands:
        if isinstance(x, Tensor) and x.dtype is not common and x._shape:
            out.append((x._shape, like_strides(x)))
        else:
            out.append(x)
    return out


def like_strides(t: Tensor) -> tuple[int, ...]:
    """Strides of ``empty_like(t)`` (memory format preserved)."""
    return L.preserve_strides(t._shape, t._stride)


# ---------------------------------------------------------------------------------------------
# in-place: PyTorch's memory-overlap and output checks
# ---------------------------------------------------------------------------------------------


def _partial_overlap(a: Tensor, b: Tensor) -> bool:
    if not np.may_share_memory(a._storage._array, b._storage._array):
        return False  # disjoint memory (the common case, decided from the bounds alone)
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
    dst = out._np_contiguous()
    if (
        dst is not None
        and values.__class__ is np.ndarray
        and values.base is None  # an op's own result: it shares no memory with ``out``
        and values.dtype is dst.dtype
        and values.shape == dst.shape
    ):
        dst[...] = values
        return out
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
    out._resize_contiguous(shape)


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
    if out is None and common in _FAST_DTYPES:
        fast = _fast_elementwise(operands, common, kernel, result or common, shape)
        if fast is not None:
            return fast
    if shape is None:
        shape = L.broadcast_shapes(*(_shape(x) for x in operands))
    arrays = []
    for i, x in enumerate(operands):
        if opmath_second and i == 1 and common is D.float16 and _numel(x) == 1:
            arrays.append(_opmath_values(x))
        else:
            arrays.append(_values(x, common))
    if out is not None and any(x is out for x in operands):
        from . import _overlap  # overlapping windows (as_strided/unfold): PyTorch's loop order

        if _overlap.self_overlapping(out):
            return _overlap.sequential_inplace(out, operands, arrays, common, kernel)
    with np.errstate(all="ignore"):
        values = kernel(*arrays)
    result = result or common
    if out is not None:
        return write_into(out, values)
    if layout_inputs is None:
        layout_inputs = converted_layouts(operands, common)
    return from_array(values, result, shape=shape, stride=output_strides(shape, layout_inputs))


# dtypes computed in themselves (float16 is computed in float32: not on the fast path)
_FAST_DTYPES = frozenset((D.float32, D.float64, D.int64, D.int32, D.bool_))


def _fast_elementwise(operands, common, kernel, result, shape):
    """The common case of :func:`_elementwise` without its general machinery: every tensor
    operand is C-contiguous, of dtype ``common`` (no conversion), of the result's shape or of a
    trailing part of it (a bias row), the others Python scalars. The result is then C-contiguous
    too (PyTorch's ``TensorIterator`` keeps the inputs' layout), made over the kernel's fresh
    array. None when the case does not apply (the general path then runs)."""
    if shape is None:
        shape = ()
        for x in operands:
            if isinstance(x, Tensor) and len(x._shape) > len(shape):
                shape = x._shape
    else:
        shape = tuple(shape)
    nd = len(shape)
    arrays = []
    full = False
    for x in operands:
        if isinstance(x, Tensor):
            if x._dtype is not common:
                return None
            xs = x._shape
            if xs != shape:
                if len(xs) > nd or xs != shape[nd - len(xs) :]:
                    return None
            else:
                full = True
            arr = x._np_contiguous()
            if arr is None:
                return None
            arrays.append(arr)
        else:
            arrays.append(_values(x, common))
    if not full:
        return None
    with np.errstate(all="ignore"):
        values = kernel(*arrays)
    if type(values) is np.ndarray and values.dtype is result.np and values.shape == shape:
        flags = values.flags
        if flags.c_contiguous and flags.owndata and values.size:
            return _adopt(values, result)
    return from_array(values, result, shape=shape, stride=L.contiguous_strides(shape))


def _build(operands: Sequence, common: D.dtype | None, out: Tensor | None, *, cpp: bool = False):
    """``TensorIterator``'s build: broadcast the shapes; with ``out``, first check overlap, then
    that the broadcast shape is ``out``'s shape and that ``common`` can be cast to its dtype."""
    if out is None and len(operands) == 2:  # the common cases without the general rule
        sa, sb = _shape(operands[0]), _shape(operands[1])
        if sa == sb or not sb:
            return sa
        if not sa:
            return sb
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


_FLOATS = frozenset((D.float32, D.float64))
_NUMBERS = frozenset((D.float32, D.float64, D.int64, D.int32))
#: op name -> (numpy ufunc, dtypes): the operator's fast path for two tensors of one of those
#: dtypes, of one shape, C-contiguous, nothing to record. The ufunc gives PyTorch's values there
#: (add/mul are commutative, so ``__radd__``/``__rmul__`` may use it too).
FAST_BINARY = {
    "add": (np.add, _NUMBERS),
    "sub": (np.subtract, _NUMBERS),
    "mul": (np.multiply, _NUMBERS),
    "div": (np.true_divide, _FLOATS),
}


def _fast_binary(fast, a: Tensor, b: Tensor):
    """``fast``'s ufunc on ``a`` and ``b`` when :data:`FAST_BINARY`'s case holds, else None."""
    ufunc, dtypes = fast
    dt = a._dtype
    if dt is not b._dtype or dt not in dtypes or a._shape != b._shape:
        return None
    if _GRAD.enabled and (a.requires_grad or b.requires_grad):
        return None
    x = a._np_contiguous()
    if x is None:
        return None
    y = b._np_contiguous()
    if y is None:
        return None
    with np.errstate(all="ignore"):
        values = ufunc(x, y)
    if values.__class__ is not np.ndarray or values.dtype is not dt.np:
        return None  # (not reached for these ufuncs and dtypes)
    return _adopt(values, dt)


def _dunder(fn):
    """Operators return NotImplemented for operands PyTorch would not accept (Python then raises)."""
    fast = FAST_BINARY.get(fn.__name__)

    def method(self, other):
        if fast is not None and isinstance(other, Tensor):
            out = _fast_binary(fast, self, other)
            if out is not None:
                return out
        if not (isinstance(other, (Tensor, np.ndarray)) or _is_scalar(other)):
            return NotImplemented
        return fn(self, other)

    method.__name__ = fn.__name__
    return method
