"""dtype objects, their numpy twins, and PyTorch's type promotion."""

from __future__ import annotations

import builtins

import numpy as np


class dtype:
    """A tensor element type. Prints as ``tensorlab.float32`` (PyTorch prints ``torch.float32``)."""

    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_category", "_legacy")

    def __init__(self, name: str, np_type, category: int, legacy: str):
        self.name = name
        self.np = np.dtype(np_type)
        self.itemsize = self.np.itemsize
        self.is_floating_point = category == 2
        self.is_signed = name not in ("uint8", "bool")
        self._category = category  # 0 bool, 1 integer, 2 floating point
        self._legacy = legacy

    def __repr__(self) -> str:
        return f"tensorlab.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> dtype:
        return self


bool_ = dtype("bool", np.bool_, 0, "BoolTensor")
uint8 = dtype("uint8", np.uint8, 1, "ByteTensor")
int8 = dtype("int8", np.int8, 1, "CharTensor")
int16 = dtype("int16", np.int16, 1, "ShortTensor")
int32 = dtype("int32", np.int32, 1, "IntTensor")
int64 = dtype("int64", np.int64, 1, "LongTensor")
float16 = dtype("float16", np.float16, 2, "HalfTensor")
float32 = dtype("float32", np.float32, 2, "FloatTensor")
float64 = dtype("float64", np.float64, 2, "DoubleTensor")

ALL = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}
_BY_LEGACY = {d._legacy: d for d in ALL}
ALIASES = {
    "half": float16,
    "float": float32,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
}

_default_float = float32

# How PyTorch's C++ messages name each dtype.
# c10 ScalarType: "result type Float can't be cast to the desired output type Long"
SCALAR_NAME = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}
# C++ typeid / caffe2::TypeMeta: "Input type (float) and bias type (double) should be the same"
TYPE_NAME = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
}


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def get_default_dtype() -> dtype:
    """The dtype of float tensors built from Python floats (``float32`` unless changed)."""
    return _default_float


def set_default_dtype(d) -> None:
    """Like ``torch.set_default_dtype``: only ``float32``/``float64``/``float16`` are allowed."""
    global _default_float
    d = to_dtype(d)
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


def to_dtype(d) -> dtype:
    """Accept tensorlab dtypes, Python ``float``/``int``/``bool``, numpy dtypes and torch dtypes."""
    if isinstance(d, dtype):
        return d
    if d is builtins.float:
        return float64
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    name = getattr(d, "__module__", None)
    if name == "torch" or type(d).__module__ == "torch":  # a real torch.dtype, e.g. torch.float32
        key = str(d).split(".")[-1]
        if key in _BY_NAME:
            return _BY_NAME[key]
    try:
        npd = np.dtype(d)
    except TypeError:
        raise TypeError(f"{d!r} is not a tensorlab dtype") from None
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(
        f"can't convert np.ndarray of type {npd}. The only supported types are: "
        "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
    )


def from_numpy_dtype(npd) -> dtype:
    npd = np.dtype(npd)
    if npd in _BY_NP:
        return _BY_NP[npd]
    raise TypeError(
        f"can't convert np.ndarray of type numpy.{npd.type.__name__}. The only supported types are: float64, "
        "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
        "uint16, uint8, and bool."
    )


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's pairwise promotion: the higher category wins outright, numpy's rule within one."""
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    return _BY_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(value) -> dtype:
    """The dtype PyTorch gives a Python scalar on its own (``tensor(2.5)`` -> default float)."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return bool_
    if isinstance(value, (builtins.int, np.integer)):
        return int64
    if isinstance(value, (builtins.float, np.floating)):
        return _default_float
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def result_type(*operands) -> dtype:
    """Promotion across tensors and Python scalars, as ``torch.result_type`` does it.

    Tensors with dims outrank 0-dim tensors, which outrank Python scalars, *unless* a lower rank
    brings a higher category (bool < integer < floating). ``int_tensor + 0.5`` is therefore float32.
    """
    from ._tensor import Tensor  # local import: _dtype is imported by _tensor

    best = {0: None, 1: None, 2: None}  # rank: 0 scalars, 1 zero-dim tensors, 2 dimensioned
    for op in operands:
        if isinstance(op, Tensor):
            rank, d = (2 if op.ndim > 0 else 1), op.dtype
        else:
            rank = 0
            if isinstance(op, (builtins.bool, np.bool_)):
                d = bool_
            elif isinstance(op, (builtins.int, np.integer)):
                d = int64
            elif isinstance(op, (builtins.float, np.floating)):
                d = _default_float
            else:
                raise TypeError(f"unsupported operand type {type(op).__name__}")
        best[rank] = d if best[rank] is None else promote_types(best[rank], d)
    result = None
    for rank in (2, 1, 0):
        d = best[rank]
        if d is None:
            continue
        if result is None:
            result = d
        elif d._category > result._category:
            # a lower-rank operand of a higher category: tensors use their own dtype, scalars the
            # category's default (float -> default float dtype, int -> int64)
            if rank == 0:
                result = _default_float if d._category == 2 else d
            else:
                result = d
    return result if result is not None else _default_float


class finfo:
    """Machine limits of a floating dtype, like ``torch.finfo``."""

    def __init__(self, type=None):
        d = to_dtype(type) if type is not None else _default_float
        if not d.is_floating_point:
            raise TypeError(
                "torch.finfo() requires a floating point input type. Use torch.iinfo to "
                "handle 'torch.finfo'"
            )
        info = np.finfo(d.np)
        self.dtype = d.name
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """Limits of an integer dtype, like ``torch.iinfo``."""

    def __init__(self, type):
        d = to_dtype(type)
        if d.is_floating_point:
            raise TypeError(
                "torch.iinfo() requires an integer input type. Use torch.finfo to "
                "handle 'torch.iinfo'"
            )
        info = np.iinfo(np.uint8 if d is bool_ else d.np)
        self.dtype = d.name
        self.bits = 8 if d is bool_ else int(info.bits)
        self.max = 1 if d is bool_ else int(info.max)
        self.min = 0 if d is bool_ else int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
