"""``maximum``/``minimum``, comparisons, logical and bitwise ops, ``clamp``, ``where``, ``lerp`` and
the closeness tests (PyTorch's ``TensorCompare``)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._tensor import Tensor, check_inplace, from_array
from ..autograd import formulas as AG
from ..autograd.views import same_as
from ._elementwise import (
    Kernel,
    _build,
    _compute_np,
    _elementwise,
    _fma32,
    _fma64,
    _invalid_combination,
    _is_scalar,
    _operand,
    _public_out,
    _shape,
    _tensor_then_operand,
    _type_error,
    _values,
    cast_array,
    checked_scalar,
    cpp_name,
    not_implemented,
    output_strides,
    scalar_name,
    store_out,
    write_into,
)
from .arithmetic import _common, add, mul, sub
from .native_functions import alias, op, tensor_method
from .unary import isfinite, isnan

Scalar = builtins.bool | builtins.int | builtins.float

# ---------------------------------------------------------------------------------------------
# maximum / minimum / comparisons / logical / bitwise
# ---------------------------------------------------------------------------------------------


def _tensor_pair(fname, input, other):
    input = _operand(input, fname, "input", 1, scalar_ok=False)
    other = _operand(other, fname, "other", 2, scalar_ok=False)
    return input, other


@op("maximum", formula=AG.make_maximum)
@_public_out
def maximum(input, other, *, out=None) -> Tensor:
    """Elementwise maximum of two tensors; NaN wins."""
    input, other = _tensor_pair("maximum", input, other)
    common = _common(input, other)
    shape = _build((input, other), common, out)
    return _elementwise((input, other), common, np.maximum, out=out, shape=shape)


@op("minimum", formula=AG.make_minimum)
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


eq = op("eq", operators=("__eq__",))(_comparison("eq", np.equal))
ne = op("ne", operators=("__ne__",))(_comparison("ne", np.not_equal))
lt = op("lt", operators=("__lt__",))(_comparison("lt", np.less))
le = op("le", operators=("__le__",))(_comparison("le", np.less_equal))
gt = op("gt", operators=("__gt__",))(_comparison("gt", np.greater))
ge = op("ge", operators=("__ge__",))(_comparison("ge", np.greater_equal))
for _alias, _fn in (
    ("not_equal", ne),
    ("less", lt),
    ("less_equal", le),
    ("greater", gt),
    ("greater_equal", ge),
):
    alias(_alias, _fn.__name__)

# defining __eq__ must not make tensors unhashable
tensor_method("__hash__", function=False)(lambda self: id(self))


def _logical(fname: str, kernel: Kernel):
    def op(input, other, *, out=None) -> Tensor:
        input, other = _tensor_pair(fname, input, other)
        shape = _build((input, other), None, out)
        values = kernel(cast_array(input._np(), D.bool_), cast_array(other._np(), D.bool_))
        if out is not None:
            return write_into(out, values)
        return from_array(
            values, D.bool_, shape=shape, stride=output_strides(shape, (input, other))
        )

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` of the truth values; returns a bool tensor."
    return _public_out(op)


logical_and = tensor_method("logical_and")(_logical("logical_and", np.logical_and))
logical_or = tensor_method("logical_or")(_logical("logical_or", np.logical_or))
logical_xor = tensor_method("logical_xor")(_logical("logical_xor", np.logical_xor))


def _bitwise(fname: str, kernel: Kernel, kernel_name: str | None = None):
    def op(input, other, *, out=None) -> Tensor:
        input = _operand(input, fname, "input", 1)
        other = _operand(other, fname, "other", 2)
        common = _common(input, other)
        shape = _build((input, other), common, out)
        if common.is_floating_point or (kernel_name and common is D.bool_):
            raise not_implemented(kernel_name or f"{fname}_cpu", common)
        return _elementwise((input, other), common, kernel, out=out, shape=shape)

    op.__name__ = op.__qualname__ = fname
    op.__doc__ = f"Elementwise ``{fname}`` of bool or integer tensors."
    return _public_out(op)


bitwise_and = op("bitwise_and", operators=("__and__", "__rand__"))(
    _bitwise("bitwise_and", np.bitwise_and)
)
bitwise_or = op("bitwise_or", operators=("__or__", "__ror__"))(
    _bitwise("bitwise_or", np.bitwise_or)
)
bitwise_xor = op("bitwise_xor", operators=("__xor__", "__rxor__"))(
    _bitwise("bitwise_xor", np.bitwise_xor)
)


def _lshift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's lshift_kernel: shifted as unsigned (so it wraps), 0 for a shift < 0 or >= bits."""
    bits = a.dtype.itemsize * 8
    unsigned = np.dtype(f"uint{bits}")
    bad = (b < 0) | (b >= bits)
    shifted = a.astype(unsigned) << np.where(bad, 0, b).astype(unsigned)
    return np.where(bad, 0, shifted.astype(a.dtype)).astype(a.dtype)


def _rshift(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ATen's rshift_kernel: a shift < 0 or past the width gives 0 (unsigned) or the sign (signed:
    a shift by bits - 1)."""
    bits = a.dtype.itemsize * 8
    if a.dtype.kind == "u":
        bad = (b < 0) | (b >= bits)
        return np.where(bad, 0, a >> np.where(bad, 0, b).astype(a.dtype)).astype(a.dtype)
    top = bits - 1
    return (a >> np.where((b < 0) | (b > top), top, b).astype(a.dtype)).astype(a.dtype)


bitwise_left_shift = op("bitwise_left_shift", operators=("__lshift__",))(
    _bitwise("bitwise_left_shift", _lshift, "lshift_cpu")
)
bitwise_right_shift = op("bitwise_right_shift", operators=("__rshift__",))(
    _bitwise("bitwise_right_shift", _rshift, "rshift_cpu")
)


def _reflected(fn):
    """``2 << t``: ``fn(2, t)``, the number a wrapped 0-d tensor (it does not promote)."""

    def method(self, other):
        if not (_is_scalar(other) or isinstance(other, (Tensor, np.ndarray))):
            return NotImplemented
        return fn(_operand(other, fn.__name__, "input", 1), self)

    return method


op("__rlshift__", function=False)(_reflected(bitwise_left_shift))
op("__rrshift__", function=False)(_reflected(bitwise_right_shift))


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


@op("clamp", formula=AG.make_clamp)
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


clip = clamp
alias("clip", "clamp")


@op("clamp_", "clip_", function=False, inplace=same_as(clamp))
def clamp_(self: Tensor, min=None, max=None) -> Tensor:
    """In-place clamp."""
    return _clamp_impl(self, min, max, self)


@op("clamp_min", formula=AG.make_clamp_min)
def clamp_min(input, min) -> Tensor:
    return clamp(input, min=min)


@op("clamp_max", formula=AG.make_clamp_max)
def clamp_max(input, max) -> Tensor:
    return clamp(input, max=max)


@op("where", method=False, formula=AG.make_where)
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
    return from_array(
        values, common, shape=shape, stride=output_strides(shape, (condition, input, other))
    )


@tensor_method("nonzero")
def nonzero(input, *, as_tuple: bool = False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one column view per dim."""
    input = _operand(input, "nonzero", "input", 1, scalar_ok=False)
    if as_tuple and input.ndim == 0:
        return nonzero(input.unsqueeze(0), as_tuple=True)
    arr = input._np()
    if arr.ndim == 0:  # numpy treats a 0-d array as 1-d here
        idx = np.zeros((int(bool(arr)), 0), dtype=np.int64)
    else:
        idx = np.argwhere(arr).astype(np.int64)
    n = idx.shape[0]
    # PyTorch stores the (n, ndim) result column by column: strides (1, n)
    columns = Tensor._from_array(np.ascontiguousarray(idx.T), D.int64)
    out = columns._view((n, input.ndim), (1, n))
    return out.unbind(1) if as_tuple else out


def _where_method(self: Tensor, condition, y) -> Tensor:
    """``self.where(condition, y)`` is ``torch.where(condition, self, y)``."""
    return where(condition, self, y)


tensor_method("where", function=False)(_where_method)


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


@op("lerp", formula=AG.make_lerp)
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
    return from_array(values, dt, shape=shape, stride=output_strides(shape, operands))


@op("lerp_", function=False, inplace=same_as(lerp))
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


# in-place bitwise forms


def _bitwise_inplace(fn):
    def method(self, other):
        return fn.__wrapped__(self, _operand(other, fn.__name__ + "_", "other", 1), out=self)

    method.__name__ = fn.__name__ + "_"
    return method


for _fn, _dunder_name in (
    (bitwise_and, "__iand__"),
    (bitwise_or, "__ior__"),
    (bitwise_xor, "__ixor__"),
    (bitwise_left_shift, "__ilshift__"),
    (bitwise_right_shift, "__irshift__"),
):
    op(_fn.__name__ + "_", function=False, operators=(_dunder_name,))(_bitwise_inplace(_fn))


# in-place comparisons and logical ops: the bool result is written into self, in self's dtype


def _into_self(fn, fname: str):
    def method(self, other):
        return fn.__wrapped__(self, _operand(other, fname, "other", 1), out=self)

    method.__name__ = method.__qualname__ = fname
    method.__doc__ = f"In-place ``{fname[:-1]}``: ``self`` holds the result (1/0 or True/False)."
    return method


for _fn in (eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor):
    tensor_method(_fn.__name__ + "_", function=False)(_into_self(_fn, _fn.__name__ + "_"))
for _alias, _fn in (
    ("not_equal_", ne),
    ("less_", lt),
    ("less_equal_", le),
    ("greater_", gt),
    ("greater_equal_", ge),
):
    alias(_alias, _fn.__name__ + "_", function=False)


@tensor_method("logical_not_", function=False)
def logical_not_(self: Tensor) -> Tensor:
    """In-place ``logical_not``: ``self`` holds 1 where it was 0, else 0."""
    from ._elementwise import check_no_internal_overlap

    check_inplace(self)
    check_no_internal_overlap(self)
    return write_into(self, self._np() == 0)


@op("clamp_min_", function=False, inplace=same_as(clamp_min))
def clamp_min_(self: Tensor, min) -> Tensor:
    return _clamp_impl(self, min, None, self)


@op("clamp_max_", function=False, inplace=same_as(clamp_max))
def clamp_max_(self: Tensor, max) -> Tensor:
    return _clamp_impl(self, None, max, self)
