"""What every factory shares (PyTorch's ``TensorOptions`` and argument parser): the ``device``/
``layout``/``pin_memory`` checks, ``requires_grad``, ``out=`` (checked, resized), the size
arguments, and the parser's errors for a bad combination."""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _dtype as D
from .. import _layout as L
from .._device import check_factory_device, strided
from .._tensor import Tensor, _as_shape, check_inplace
from ..autograd.graph import check_out_grad

# ---------------------------------------------------------------------------- options and out=

_PIN = (
    "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory allocator is "
    "available on this system."
)


def _options(device=None, layout=None, pin_memory=False, use_default=True) -> bool:
    """The keywords every factory accepts: only what a CPU-only PyTorch build can do passes.
    True when the tensor goes to the meta device (a shape and a dtype, no data)."""
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"tensorlab has only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError(_PIN)
    return check_factory_device(device, use_default)


def _finish(t: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        if not t.dtype.is_floating_point:  # the factory functions' own wording
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


def _out_dtype(name: str, dtype, out, default: D.dtype) -> D.dtype:
    """The result dtype: ``dtype=``, else ``out``'s dtype, else ``default``."""
    dtype = _check_dtype_arg(name, dtype)
    if out is None:
        return default if dtype is None else D.to_dtype(dtype)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and D.to_dtype(dtype) is not out.dtype:
        raise RuntimeError(
            f"dtype {D.SCALAR_NAME[D.to_dtype(dtype).name]} does not match dtype of out "
            f"parameter ({D.SCALAR_NAME[out.dtype.name]})"
        )
    return out.dtype


def _into_out(name: str, result: Tensor, out) -> Tensor:
    """Write a factory's ``result`` into ``out`` (resized like PyTorch's ``resize_output``)."""
    if out is None:
        return result
    check_out_grad(f"aten::{name}", (out,))
    check_inplace(out)
    shape = result._shape
    if out._shape != shape:
        # factories resize ``out`` silently (at::resize_, not resize_output); arange warns
        if name == "arange" and out.numel() and out.numel() != result.numel():
            warnings.warn(
                f"The number of elements in the out tensor of shape {L._fmt(out._shape)} is "
                f"{out.numel()} which does not match the computed number of elements "
                f"{result.numel()}. Note that this may occur as a result of rounding error. The "
                f"out tensor will be resized to a tensor of shape ({result.numel()},).",
                UserWarning,
                stacklevel=3,
            )
        out._resize_contiguous(tuple(shape))
    if out.numel():
        out._np()[...] = result._np()
    return out


def _size_arg(args: tuple, size, name: str) -> tuple:
    """``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))`` -> the positional form for _shape_arg."""
    if size is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        return (size,)
    return args


def _shape_arg(size, name: str) -> tuple[int, ...]:
    if not size:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    shape = _as_shape(size, "size", name)
    for s in shape:
        if s < 0:
            if name == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {L._fmt(shape)}"
            )
    return shape


_OPTS = (
    "Tensor out = None, tensorlab.dtype dtype = None, tensorlab.layout layout = None, "
    "tensorlab.device device = None, bool pin_memory = False, bool requires_grad = False"
)
_SIGNATURES = {
    "rand": [
        f"(tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(tuple of ints size, *, {_OPTS})",
    ],
    "randint": [
        f"(int high, tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(int high, tuple of ints size, *, {_OPTS})",
        f"(int low, int high, tuple of ints size, *, tensorlab.Generator generator, {_OPTS})",
        f"(int low, int high, tuple of ints size, *, {_OPTS})",
    ],
    "linspace": [
        f"({a} start, {b} end, int steps, *, {_OPTS})"
        for a, b in (
            ("Tensor", "Tensor"),
            ("Number", "Tensor"),
            ("Tensor", "Number"),
            ("Number", "Number"),
        )
    ],
}
_SIGNATURES["randn"] = _SIGNATURES["rand"]
_SIGNATURES["eye"] = [f"(int n, *, {_OPTS})", f"(int n, int m, *, {_OPTS})"]


def _invalid_combination(name: str, args: tuple) -> TypeError:
    """PyTorch's argument parser when no overload matches the positional arguments."""
    got = ", ".join(type(a).__name__ for a in args)
    sigs = "".join(f" * {sig}\n" for sig in _SIGNATURES[name])
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{sigs}"
    )


def _int_arg(x, name: str, arg: str, pos: int) -> builtins.int:
    """An ``int`` parameter (a Python or numpy int, or a one-element integer tensor)."""
    if isinstance(x, Tensor) and x.numel() == 1 and not x.dtype.is_floating_point:
        return builtins.int(x.item())
    if isinstance(x, (builtins.int, np.integer)) and not isinstance(x, (builtins.bool, np.bool_)):
        v = builtins.int(x)
        if not -(2**63) <= v < 2**63:
            raise ValueError("Overflow when unpacking long long")
        return v
    raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be int, not {_tp_name(x)}")


def _is_number(x) -> bool:
    if isinstance(x, Tensor):
        return x.numel() == 1
    return isinstance(x, (builtins.int, builtins.float, builtins.bool, np.number, np.bool_))


def _tp_name(x) -> str:
    """How CPython's C code names the type of ``x`` (``Py_TYPE(x)->tp_name``)."""
    t = type(x)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # a class defined in Python
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _check_dtype_arg(name: str, dtype):
    if (
        dtype is None
        or isinstance(dtype, D.dtype)
        or dtype in (builtins.float, builtins.int, builtins.bool)
    ):
        return None if dtype is None else D.to_dtype(dtype)
    if type(dtype).__module__ == "torch":
        return D.to_dtype(dtype)
    raise TypeError(f"{name}(): argument 'dtype' must be tensorlab.dtype, not {_tp_name(dtype)}")


def _is_int(x) -> bool:
    return isinstance(x, (builtins.int, np.integer)) and not isinstance(
        x, (builtins.bool, np.bool_)
    )
