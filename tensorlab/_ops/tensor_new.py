"""``Tensor.new_*`` (``new_zeros``, ``new_full``, ``new_tensor``, ...) and the legacy constructors
(``Tensor(2, 3)``, ``FloatTensor([...])``): PyTorch's ``torch/csrc/utils/tensor_new.cpp``."""

from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._factory_args import (
    _check_dtype_arg,
    _finish,
    _is_int,
    _options,
    _shape_arg,
    _size_arg,
    _tp_name,
)
from .creation import _size_tuple, empty, full, ones, zeros
from .from_data import _from_sequence, _is_sequence, from_numpy
from .native_functions import tensor_method

# ---------------------------------------------------------------------------- Tensor.new_*


def _new_like_self(name: str, factory, what: str):
    """``self.new_zeros/new_ones/new_empty(size)``: ``factory(size)`` with ``self``'s dtype and
    device unless ``dtype=``/``device=`` say otherwise."""

    def method(
        self,
        *size,
        dtype=None,
        layout=None,
        device=None,
        pin_memory=False,
        requires_grad=False,
        **kw,
    ) -> Tensor:
        return factory(
            *size,
            dtype=dtype or self.dtype,
            layout=layout,
            device=self.device if device is None else device,
            pin_memory=pin_memory,
            requires_grad=requires_grad,
            **_new_size(kw, size, name),
        )

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{what} of ``size`` with ``self``'s dtype (unless ``dtype=`` says otherwise)."
    return tensor_method(name, function=False)(method)


new_zeros = _new_like_self("new_zeros", zeros, "Zeros")
new_ones = _new_like_self("new_ones", ones, "Ones")
new_empty = _new_like_self("new_empty", empty, "An uninitialised tensor (tensorlab: zeros)")


def _new_size(kw: dict, size: tuple, name: str) -> dict:
    if not size and "size" not in kw:
        raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
    _shape_arg(_size_arg(size, kw.get("size"), name), name)  # this method's own messages
    return kw


@tensor_method("new_full", function=False)
def new_full(
    self,
    size,
    fill_value,
    *,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=False,
    requires_grad=False,
) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    return full(
        _size_tuple(size, "new_full"),
        fill_value,
        dtype=dtype or self.dtype,
        layout=layout,
        device=self.device if device is None else device,
        pin_memory=pin_memory,
        requires_grad=requires_grad,
    )


@tensor_method("new_tensor", function=False)
def new_tensor(
    self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False
) -> Tensor:
    """``tensor(data)`` with ``self``'s dtype unless ``dtype=`` is given (a copy, always)."""
    meta = _options(device, layout, pin_memory, use_default=False)
    meta = meta or (device is None and self.is_meta)  # self's device, as torch's new_tensor
    d = _check_dtype_arg("new_tensor", dtype) or self.dtype
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use "
            "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
            "rather than tensor.new_tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
        out = data.detach().to(d, copy=True)
    elif isinstance(data, np.ndarray):
        out = from_numpy(data).to(d, copy=True)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
        out = _from_sequence(data, d)
    if meta and not out.is_meta:
        out = out.to("meta")
    elif not meta and out.is_meta:
        out.cpu()  # raises PyTorch's "no data" error
    return _finish(out, requires_grad)


@tensor_method("new", function=False)
def new(self, *args, **kwargs) -> Tensor:
    """The legacy ``x.new(...)``: ``torch.Tensor(...)`` with ``x``'s dtype."""
    return legacy_new(self.dtype, args, kwargs, "new")


# ---------------------------------------------------------------------------- legacy constructors
# ``tensorlab.Tensor(2, 3)``, ``tensorlab.Tensor([[1, 2]])``, ``tensorlab.FloatTensor(...)``: PyTorch's
# legacy_tensor_generic_ctor_new (torch/csrc/utils/tensor_new.cpp).

_NEW_SIGNATURES = (
    " * (*, tensorlab.device device = None)\n"
    " * (tensorlab.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, tensorlab.device device = None)\n"
    " * (object data, *, tensorlab.device device = None)\n"
)


def legacy_new(dtype: D.dtype, args: tuple, kwargs: dict, kind: str) -> Tensor:
    """``kind``: ``'base'`` (tensorlab.Tensor), ``'ctor'`` (FloatTensor & co.), ``'new'`` (x.new)."""
    device = kwargs.pop("device", None)
    if kwargs:
        got = ", ".join(
            [type(a).__name__ for a in args] + [f"{k}={_kw_type(v)}" for k, v in kwargs.items()]
        )
        first, rest = _NEW_SIGNATURES.split("\n", 1)
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but expected one "
            f"of:\n{first}\n      didn't match because some of the keywords were incorrect: "
            f"{', '.join(kwargs)}\n{rest}"
        )
    if device is not None:
        kind_ = _as_device_type(device)
        if kind_ != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {kind_} was passed"
            )
    if not args:
        return _zeros((0,), dtype)
    if len(args) == 1 and isinstance(args[0], Tensor):
        other = args[0]
        if device is not None:
            if kind == "new":
                raise RuntimeError(
                    "Legacy tensor new of the form tensor.new(tensor, device=device) is not "
                    "supported.  Use tensorlab.as_tensor(...) instead."
                )
            raise RuntimeError(
                "Legacy tensor constructor of the form tensorlab.Tensor(tensor, device=device) is "
                "not supported.  Use tensorlab.tensor(...) or tensorlab.as_tensor(...) instead."
            )
        if kind != "base" and other.dtype is not dtype:
            raise TypeError(f"expected {_options_str(dtype)} (got {_options_str(other.dtype)})")
        return other.detach()
    from .._tensor import Size

    if all(_is_int(a) for a in args) or (len(args) == 1 and isinstance(args[0], Size)):
        shape = _shape_arg(args, "new")
        return _zeros(shape, dtype)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{_tp_name(data)}'")
        if not _is_sequence(data):
            raise TypeError(f"new(): data must be a sequence (got {_tp_name(data)})")
        if isinstance(data, np.ndarray):  # shares memory when the dtype already matches
            return from_numpy(data).to(dtype)
        return _from_sequence(data, dtype)
    if any(_is_int(a) for a in args[:1]):
        return _zeros(_shape_arg(args, "new"), dtype)  # raises the size TypeError
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(
        f"new() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{_NEW_SIGNATURES}"
    )


def _zeros(shape, dtype: D.dtype) -> Tensor:
    """``empty`` in tensorlab: zeros, so that notebooks print the same thing on every run."""
    t = Tensor._empty(shape, dtype)
    t._storage._array[...] = 0
    return t


def _kw_type(v) -> str:
    return "tensorlab.dtype" if isinstance(v, D.dtype) else type(v).__name__


def _as_device_type(device) -> str:
    from .._device import as_device

    return as_device(device).type


def _options_str(d: D.dtype) -> str:
    return (
        f"TensorOptions(dtype={D.TYPE_NAME[d.name]}, device=cpu, layout=Strided, "
        "requires_grad=false (default), pinned_memory=false (default), "
        "memory_format=(nullopt))"
    )


class tensortype(type):
    """The type of ``tensorlab.FloatTensor`` & co. (PyTorch's ``torch.tensortype``): calling one
    is the legacy constructor for its dtype; ``isinstance(x, FloatTensor)`` checks the dtype."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype

    def __call__(cls, *args, **kwargs) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs, "ctor")

    def __repr__(cls) -> str:
        return f"<class 'tensorlab.{cls.__name__}'>"


def _legacy_class(d: D.dtype):
    cls = tensortype(d._legacy, (), {"dtype": d, "__module__": "tensorlab", "is_sparse": False})
    cls.__qualname__ = d._legacy
    return cls


FloatTensor = _legacy_class(D.float32)
DoubleTensor = _legacy_class(D.float64)
HalfTensor = _legacy_class(D.float16)
ByteTensor = _legacy_class(D.uint8)
CharTensor = _legacy_class(D.int8)
ShortTensor = _legacy_class(D.int16)
IntTensor = _legacy_class(D.int32)
LongTensor = _legacy_class(D.int64)
BoolTensor = _legacy_class(D.bool_)
tensortype.__module__ = "tensorlab"
