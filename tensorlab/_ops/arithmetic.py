"""Arithmetic: ``add``/``sub``/``mul``/``div``/``remainder``/``fmod``/``pow``, their operators and
in-place forms, ``fill_``/``zero_``/``copy_`` (PyTorch's ``BinaryOps``)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace, from_array
from ..autograd import formulas as AG
from ..autograd.views import same_as
from ._elementwise import (
    _build,
    _dunder,
    _elementwise,
    _fma32,
    _fma64,
    _invalid_combination,
    _is_scalar,
    _operand,
    _public_out,
    _py_scalar,
    _tensor_then_operand,
    _type_error,
    _values,
    _zero_division_check,
    cast_array,
    check_out_shape,
    check_overlap,
    checked_scalar,
    not_implemented,
    output_strides,
    scalar_array,
    write_into,
)
from .native_functions import alias, op, tensor_method
from .unary import reciprocal

Scalar = builtins.bool | builtins.int | builtins.float


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


_COMMON: dict = {}


def _common(a, b) -> D.dtype:
    """``result_type(a, b)``, memoised by what it depends on: each tensor's dtype and whether it
    has dims, each scalar's type, and the default dtype (errors are raised, never cached)."""
    key = (
        (a._dtype, not a._shape) if isinstance(a, Tensor) else type(a),
        (b._dtype, not b._shape) if isinstance(b, Tensor) else type(b),
        D._default_float,
    )
    r = _COMMON.get(key)
    if r is None:
        r = D.result_type(a, b)
        if len(_COMMON) < 1024:
            _COMMON[key] = r
    return r


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


_K_ADD1 = _k_add(1, None)  # (alpha 1 does not read the dtype)


def _add_impl(fname, a, b, alpha, out: Tensor | None, *, subtract: bool = False) -> Tensor:
    if subtract:
        _sub_check(a, b)
    common = _common(a, b)
    shape = _build((a, b), common, out)
    if alpha.__class__ is builtins.int and alpha == 1 and not subtract:  # no alpha to check
        return _elementwise((a, b), common, _K_ADD1, out=out, shape=shape)
    _alpha_check(common, alpha)
    alpha = _py_scalar(alpha)
    if alpha != 1 or subtract:
        checked_scalar(-alpha if subtract else alpha, common)
    k = _k_add(-alpha if subtract else alpha, common)
    return _elementwise((a, b), common, k, out=out, shape=shape)


@op("add", operators=("__add__", "__radd__"), formula=AG.make_add)
@_public_out
def add(input, other, *, alpha: Scalar = 1, out=None) -> Tensor:
    """``input + alpha * other`` with broadcasting and PyTorch's type promotion."""
    input = _operand(input, "add", "input", 1)
    other = _operand(other, "add", "other", 2)
    return _add_impl("add", input, other, alpha, out)


@op("sub", operators=("__sub__",), formula=AG.make_sub)
@_public_out
def sub(input, other, *, alpha: Scalar = 1, out=None) -> Tensor:
    """``input - alpha * other``. Bool tensors are rejected, as in PyTorch."""
    input = _operand(input, "sub", "input", 1)
    other = _operand(other, "sub", "other", 2)
    return _add_impl("sub", input, other, alpha, out, subtract=True)


subtract = sub
alias("subtract", "sub")


@op("rsub", function=True, formula=AG.make_rsub)
def rsub(input, other, *, alpha: Scalar = 1) -> Tensor:
    """``other - alpha * input``."""
    input = _operand(input, "rsub", "input", 1)
    other = _operand(other, "rsub", "other", 2)
    return _add_impl("rsub", other, input, alpha, None, subtract=True)


def __rsub__(self, other):
    return rsub(self, other)


def _mul_kernel(x, y):
    return x & y if x.dtype == np.bool_ else x * y


@op("mul", operators=("__mul__", "__rmul__"), formula=AG.make_mul)
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


multiply = mul
alias("multiply", "mul")


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


@op("div", operators=("__truediv__",), formula=AG.make_div)
@_public_out
def div(input, other, *, rounding_mode: str | None = None, out=None) -> Tensor:
    """True division (ints give float32), or ``rounding_mode='trunc'`` / ``'floor'``."""
    input = _operand(input, "div", "input", 1)
    other = _operand(other, "div", "other", 2)
    return _div_impl(input, other, rounding_mode, out)


divide = div
alias("divide", "div")


@op("true_divide", formula=AG.make_true_divide)
def true_divide(input, other) -> Tensor:
    input = _operand(input, "true_divide", "input", 1)
    other = _operand(other, "true_divide", "other", 2)
    return _div_impl(input, other, None, None)


def __rtruediv__(self, other):
    # PyTorch: ``other / self`` is ``self.reciprocal() * other``
    if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
        return NotImplemented
    return mul(reciprocal(self), other)


@op("floor_divide", operators=("__floordiv__",), formula=AG.floor_divide_node)
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


@op("remainder", operators=("__mod__",), formula=AG.make_remainder)
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


@op("fmod", formula=AG.make_fmod)
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
            return from_array(values, common, shape=shape, stride=output_strides(shape, (base,)))
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


@op("pow", operators=("__pow__",), formula=AG.make_pow)
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


tensor_method("__rsub__", function=False)(_dunder(__rsub__))
tensor_method("__rtruediv__", "__rdiv__", function=False)(__rtruediv__)
tensor_method("__rfloordiv__", function=False)(__rfloordiv__)
tensor_method("__rmod__", function=False)(__rmod__)
tensor_method("__rpow__", function=False)(__rpow__)


# ---------------------------------------------------------------------------------------------
# in-place arithmetic
# ---------------------------------------------------------------------------------------------


@op("add_", function=False, operators=("__iadd__",), inplace=same_as(add))
def add_(self: Tensor, other, *, alpha: Scalar = 1) -> Tensor:
    other = _operand(other, "add_", "other", 1)
    return _add_impl("add_", self, other, alpha, self)


@op("sub_", "subtract_", function=False, operators=("__isub__",), inplace=same_as(sub))
def sub_(self: Tensor, other, *, alpha: Scalar = 1) -> Tensor:
    other = _operand(other, "sub_", "other", 1)
    return _add_impl("sub_", self, other, alpha, self, subtract=True)


@op("mul_", "multiply_", function=False, operators=("__imul__",), inplace=same_as(mul))
def mul_(self: Tensor, other) -> Tensor:
    return mul.__wrapped__(self, _operand(other, "mul_", "other", 1), out=self)


@op("div_", "divide_", function=False, operators=("__itruediv__", "__idiv__"), inplace=same_as(div))
def div_(self: Tensor, other, *, rounding_mode: str | None = None) -> Tensor:
    return div.__wrapped__(
        self, _operand(other, "div_", "other", 1), rounding_mode=rounding_mode, out=self
    )


@op("true_divide_", function=False, inplace=same_as(true_divide))
def true_divide_(self: Tensor, other) -> Tensor:
    return div.__wrapped__(self, _operand(other, "true_divide_", "other", 1), out=self)


@op("floor_divide_", function=False, operators=("__ifloordiv__",), inplace=same_as(floor_divide))
def floor_divide_(self: Tensor, other) -> Tensor:
    return floor_divide.__wrapped__(self, _operand(other, "floor_divide_", "other", 1), out=self)


@op("remainder_", function=False, operators=("__imod__",), inplace=same_as(remainder))
def remainder_(self: Tensor, other) -> Tensor:
    return remainder.__wrapped__(self, _operand(other, "remainder_", "other", 1), out=self)


@op("fmod_", function=False, inplace=same_as(fmod))
def fmod_(self: Tensor, other) -> Tensor:
    return fmod.__wrapped__(self, other, out=self)


@op("pow_", function=False, operators=("__ipow__",), inplace=same_as(pow))
def pow_(self: Tensor, exponent) -> Tensor:
    return pow.__wrapped__(self, exponent, out=self)


@op("zero_", function=False, inplace=AG.make_zero)
def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place (writes through to every view of the storage)."""
    return fill_.__wrapped__(self, 0)


@op("fill_", function=False, inplace=AG.make_fill)
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


@op("copy_", function=False, inplace=AG.make_copy)
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
# atan2
# ---------------------------------------------------------------------------------------------


def _k_atan2(y, x):
    if y.dtype == np.float32:
        return np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    return np.arctan2(y, x)


def _make_atan2(out, input, other, **kwargs):
    from ..autograd.math_ops import Atan2Backward0

    return Atan2Backward0(input, other)


@op("atan2", formula=_make_atan2)
@_public_out
def atan2(input, other, *, out=None) -> Tensor:
    """The angle of the point (``other``, ``input``): ``arctan(input / other)`` in the right
    quadrant (integers give the default float dtype)."""
    input = _operand(input, "atan2", "input", 1, scalar_ok=False)
    other = _operand(other, "atan2", "other", 2, scalar_ok=False)
    common = _common(input, other)
    if not common.is_floating_point:
        common = D.get_default_dtype()
    shape = _build((input, other), common, out)
    return _elementwise((input, other), common, _k_atan2, out=out, shape=shape)


arctan2 = atan2
alias("arctan2", "atan2")


@op("atan2_", "arctan2_", function=False, inplace=same_as(atan2))
def atan2_(self: Tensor, other) -> Tensor:
    other = _operand(other, "atan2_", "other", 1, scalar_ok=False)
    return atan2.__wrapped__(self, other, out=self)
