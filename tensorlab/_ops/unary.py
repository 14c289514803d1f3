"""Unary elementwise ops (PyTorch's ``UnaryOps``): ``abs``, ``neg``, ``exp``, ``sqrt``, ``sigmoid``, ``relu``,
rounding and the float predicates."""

from __future__ import annotations

import builtins
import math as _pymath
from collections.abc import Callable

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, check_inplace, from_array
from ..autograd import formulas as AG
from ..autograd.graph import differentiable
from ..autograd.views import inplace_differentiable, same_as
from ._elementwise import (
    Kernel,
    _operand,
    _public_out,
    _values,
    check_cast,
    check_no_internal_overlap,
    like_strides,
    not_implemented,
    output_strides,
    write_into,
)
from .native_functions import alias, op, tensor_method

Scalar = builtins.bool | builtins.int | builtins.float

# ---------------------------------------------------------------------------------------------
# unary ops
# ---------------------------------------------------------------------------------------------


def _k_sign(x):
    if x.dtype == np.bool_:
        return x.copy()
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


# ---------------------------------------------------------------------------------------------
# binary arithmetic
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
    register: bool = True,
):
    """Make ``torch.<fname>``/``Tensor.<fname>`` and (if ``inplace``) ``Tensor.<fname>_``
    (rows of the op table unless ``register=False``: the kernel of a public op written by hand).

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
        return from_array(
            values,
            result_dtype(input.dtype),
            shape=input._shape,
            stride=output_strides(input._shape, (input,)),
        )

    def op_(self: Tensor) -> Tensor:
        common = result_dtype(self.dtype)
        check_inplace(self)
        if self.dtype is D.bool_ and reject_bool is not None and not isinstance(reject_bool, str):
            raise reject_bool()  # PyTorch checks this before looking at memory
        check_no_internal_overlap(self)
        check_cast(common, self)
        check(self.dtype)
        from . import _overlap  # overlapping windows (as_strided/unfold): PyTorch's loop order

        if _overlap.self_overlapping(self):
            return _overlap.sequential_unary(
                self, lambda t: compute(t, self.dtype if result_bool else common)
            )
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
    if register:
        tensor_method(fname)(op)
    if register and inplace:
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
    """``max(x, 0)`` keeping NaN and ``-0.0`` as PyTorch does (``np.where`` is ~20x slower)."""
    out = np.maximum(x, x.dtype.type(0), out=np.empty(x.shape, x.dtype))
    if x.dtype.kind in "fc":
        np.copyto(out, x, where=(x == 0))  # -0.0 stays -0.0
    return out


neg = _unary("neg", np.negative, reject_bool=_neg_bool_error)
negative = neg
alias("negative", "neg")
alias("negative_", "neg_", function=False)
abs = _unary("abs", np.abs, reject_bool="abs_cpu")
absolute = abs
alias("absolute", "abs")
alias("absolute_", "abs_", function=False)
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
_erf64 = np.vectorize(_pymath.erf, otypes=[np.float64])
_erfc64 = np.vectorize(_pymath.erfc, otypes=[np.float64])


def _erf(x):
    return _erf64(x).astype(x.dtype) if x.size else x.copy()


def _erfc(x):
    return _erfc64(x).astype(x.dtype) if x.size else x.copy()


def _float_unary(fname: str, kernel: Kernel):
    """A transcendental: ints give the default float dtype; float32 is computed in float64 and
    rounded once (within an ulp of PyTorch's SLEEF kernels)."""
    return _unary(fname, kernel, to_float=True, f32_kernel=_via_double(kernel))


asin = _float_unary("asin", np.arcsin)
acos = _float_unary("acos", np.arccos)
atan = _float_unary("atan", np.arctan)
sinh = _float_unary("sinh", np.sinh)
cosh = _float_unary("cosh", np.cosh)
asinh = _float_unary("asinh", np.arcsinh)
acosh = _float_unary("acosh", np.arccosh)
atanh = _float_unary("atanh", np.arctanh)
exp2 = _float_unary("exp2", np.exp2)
expm1 = _float_unary("expm1", np.expm1)
log1p = _float_unary("log1p", np.log1p)
erf = _float_unary("erf", _erf)
erfc = _float_unary("erfc", _erfc)

# numpy-style names PyTorch also accepts (functions, methods and in-place methods)
for _alias, _op in (
    ("arcsin", asin),
    ("arccos", acos),
    ("arctan", atan),
    ("arcsinh", asinh),
    ("arccosh", acosh),
    ("arctanh", atanh),
):
    alias(_alias, _op.__name__)
    alias(_alias + "_", _op.__name__ + "_", function=False)
reciprocal = _unary("reciprocal", lambda x: 1 / x, to_float=True)
relu = _unary(
    "relu",
    _relu,
    reject_bool=lambda: RuntimeError("Boolean inputs not supported for relu"),
)
floor = _unary("floor", np.floor, reject_bool="floor_vml_cpu", int_identity=True)
ceil = _unary("ceil", np.ceil, reject_bool="ceil_vml_cpu", int_identity=True)
trunc = _unary("trunc", np.trunc, reject_bool="trunc_vml_cpu", int_identity=True)
fix = trunc
alias("fix", "trunc")
alias("fix_", "trunc_", function=False)
isnan = _unary("isnan", np.isnan, result_bool=True, inplace=False)
_isinf = _unary("isinf", np.isinf, result_bool=True, inplace=False, register=False)
_isfinite = _unary("isfinite", np.isfinite, result_bool=True, inplace=False, register=False)


@tensor_method("isinf")
def isinf(input) -> Tensor:
    """True where ``input`` is +/-inf (all False for integer and bool tensors)."""
    input = _operand(input, "isinf", "input", 1, scalar_ok=False)
    if input.dtype.is_floating_point:
        return _isinf(input)
    return from_array(False, D.bool_, shape=input._shape, stride=like_strides(input))


@tensor_method("isfinite")
def isfinite(input) -> Tensor:
    """True where ``input`` is neither inf nor nan (all True for integer and bool tensors)."""
    input = _operand(input, "isfinite", "input", 1, scalar_ok=False)
    if input.dtype.is_floating_point:
        return _isfinite(input)
    return from_array(True, D.bool_, shape=input._shape, stride=like_strides(input))


logical_not = _unary("logical_not", lambda x: x == 0, result_bool=True, inplace=False)
bitwise_not = _unary("bitwise_not", np.invert, reject_float="bitwise_not_cpu")


def _round_kernel(decimals: int):
    def k(x):
        if decimals == 0:
            return np.rint(x)
        p = np.asarray(10.0 ** builtins.abs(decimals), dtype=x.dtype)
        return np.rint(x / p) * p if decimals < 0 else np.rint(x * p) / p

    return k


@op("round", formula=AG.unary_node("round"))
def round(input, *, decimals: int = 0) -> Tensor:
    """Round half to even; ``decimals`` rounds to that many decimal places (float tensors)."""
    input = _operand(input, "round", "input", 1, scalar_ok=False)
    if input.dtype is D.bool_:
        raise not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype)
    if not input.dtype.is_floating_point:
        if decimals != 0:
            raise not_implemented("round_cpu", input.dtype)
        return from_array(
            input._np(),
            input.dtype,
            shape=input._shape,
            stride=output_strides(input._shape, (input,)),
        )
    with np.errstate(all="ignore"):
        values = _round_kernel(decimals)(_values(input, input.dtype))
    return from_array(
        values, input.dtype, shape=input._shape, stride=output_strides(input._shape, (input,))
    )


@op("round_", function=False, inplace=same_as(round))
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


tensor_method("__invert__", function=False)(__invert__)
alias("__neg__", "neg", function=False)
alias("__abs__", "abs", function=False)
