"""Answers as plain JSON: the only way a value leaves a grading kernel (never pickle).

``encode`` runs where the answer lives (the learner's kernel, or the grader's own process for
references). It never calls code that belongs to the answer: no ``__eq__``, ``__repr__``,
``__iter__`` or ``__array__`` of the object is used. Built-in types are read through their base
class slots (``int.__int__``, ``tuple.__getitem__`` ...), numpy arrays through ``np.ndarray``'s
own methods, tensors through their private fields (validated against their storage). Anything else
is reported only by its type name.

Tensors and arrays carry a ``storage`` number: equal numbers mean overlapping memory. A *table* of
memory ranges is shared between the arguments of a call and its result, so the grader can tell
whether a result is a view of an argument without trusting the kernel to say so.

``decode`` runs in the grader. It accepts only the shapes of JSON written by ``encode``, checks
sizes and dtypes, and builds read-only numpy arrays and small frozen records.
"""

from __future__ import annotations

import base64 as _base64
import math as _math
import types as _types
from dataclasses import dataclass
from typing import Any

import numpy as _np

from .._dtype import ALL as _ALL_DTYPES
from .._storage import UntypedStorage as _UntypedStorage
from .._tensor import Tensor as _Tensor
from ..nn.parameter import Parameter as _Parameter

# Pristine references, taken when this module is imported (before any learner code runs).
_type = type
_object_getattribute = object.__getattribute__
_exc_traceback = BaseException.__dict__["__traceback__"].__get__
_TracebackType = _types.TracebackType
_tb_frame = _TracebackType.__dict__["tb_frame"].__get__
_tb_lineno = _TracebackType.__dict__["tb_lineno"].__get__
_tb_next = _TracebackType.__dict__["tb_next"].__get__
_int_value = int.__int__
_float_value = float.__float__
_str_value = str.__str__
_tuple_len, _tuple_item = tuple.__len__, tuple.__getitem__
_list_len, _list_item = list.__len__, list.__getitem__
_set_iter = set.__iter__
_frozenset_iter = frozenset.__iter__
_dict_items = dict.items
_dict_get = dict.get
_ndarray = _np.ndarray
_ndarray_view = _np.ndarray.view
_ndarray_tobytes = _np.ndarray.tobytes
_ascontiguous = _np.ascontiguousarray
_as_strided = _np.lib.stride_tricks.as_strided
_frombuffer = _np.frombuffer
_b64encode = _base64.b64encode
_b64decode = _base64.b64decode
_DTYPE_BY_NAME = {d.name: d for d in _ALL_DTYPES}
_DTYPE_IDS = {id(d) for d in _ALL_DTYPES}
_NP_INTS = tuple(_np.dtype(c).type for c in "bBhHiIlLqQ")
_NP_FLOATS = (_np.float16, _np.float32, _np.float64)
_ALLOWED_NP_DTYPES = frozenset(
    ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
    + ["float16", "float32", "float64", "complex64", "complex128"]
)

MAX_ELEMENTS = 1_000_000  # per array
MAX_ITEMS = 10_000  # per list / tuple / dict
MAX_DEPTH = 12
MAX_STR = 20_000
MAX_INT_BITS = 4_096  # about 1,200 digits


# ---------------------------------------------------------------------------- memory ranges
def _array_range(arr: _np.ndarray) -> tuple[int, int]:
    """[low, high) byte addresses touched by ``arr`` (an exact ndarray)."""
    ptr = int(arr.__array_interface__["data"][0])
    if arr.size == 0:
        return ptr, ptr
    low = high = ptr
    for n, s in zip(arr.shape, arr.strides):
        if s < 0:
            low += (n - 1) * s
        else:
            high += (n - 1) * s
    return low, high + arr.itemsize


def storage_index(table: list[tuple[int, int]], low: int, high: int) -> int:
    """Index of the first range in ``table`` overlapping [low, high); appended when none does."""
    for i, (a, b) in enumerate(table):
        if low < b and a < high:
            return i
        if low == high == a:
            return i
    table.append((low, high))
    return len(table) - 1


# ---------------------------------------------------------------------------- encode
def _floatval(x: float) -> Any:
    if _math.isnan(x):
        return "nan"
    if _math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _array_payload(arr: _np.ndarray) -> dict:
    name = str(arr.dtype)
    if name not in _ALLOWED_NP_DTYPES:
        return {"t": "object", "type": f"ndarray[{name}]"}
    if arr.size > MAX_ELEMENTS:
        return {"t": "toolarge", "type": "ndarray", "size": int(arr.size)}
    data = _ndarray_tobytes(_ascontiguous(arr))
    return {
        "dtype": name,
        "shape": [int(n) for n in arr.shape],
        "data": _b64encode(data).decode("ascii"),
    }


def _tensor_fields(t) -> tuple | None:
    """(storage array, shape, stride, offset, dtype) read and validated from a Tensor's fields
    (its instance dictionary: no class attribute or property is consulted)."""
    fields = _object_getattribute(t, "__dict__")
    if _type(fields) is not dict:
        return None
    storage = _dict_get(fields, "_storage")
    shape = _dict_get(fields, "_shape")
    stride = _dict_get(fields, "_stride")
    offset = _dict_get(fields, "_offset")
    dtype = _dict_get(fields, "_dtype")
    if _type(storage) is not _UntypedStorage or id(dtype) not in _DTYPE_IDS:
        return None
    arr = _object_getattribute(storage, "_array")
    if _type(arr) is not _ndarray or arr.ndim != 1 or arr.dtype != dtype.np:
        return None
    if _type(shape) is not tuple or _type(stride) is not tuple or _type(offset) is not int:
        return None
    if _tuple_len(shape) != _tuple_len(stride):
        return None
    if not all(_type(v) is int for v in shape + stride) or any(n < 0 for n in shape):
        return None
    size = 1
    low = high = offset
    for n, s in zip(shape, stride):
        size *= n
        if n:
            low, high = (low + (n - 1) * s, high) if s < 0 else (low, high + (n - 1) * s)
    if size and (low < 0 or high >= arr.shape[0]):
        return None
    return arr, shape, stride, offset, dtype, size


def _encode_tensor(t, table, depth) -> dict:
    fields = _tensor_fields(t)
    if fields is None:
        return {"t": "object", "type": _type(t).__name__}
    arr, shape, stride, offset, dtype, size = fields
    if size > MAX_ELEMENTS:
        return {"t": "toolarge", "type": "tensor", "size": size}
    item = arr.itemsize
    if size:
        view = _as_strided(
            arr[offset:], shape=shape, strides=tuple(s * item for s in stride), writeable=False
        )
    else:
        view = _np.empty(shape, dtype=arr.dtype)
    out = {"t": "tensor", **_array_payload(view)}
    k = storage_index(table, *_array_range(arr))
    first = int(arr.__array_interface__["data"][0]) + offset * item
    out.update(
        dtype=dtype.name,
        stride=list(stride),
        offset=offset,
        storage=k,
        pos=first - table[k][0],
        requires_grad=bool(_object_getattribute(t, "requires_grad") is True),
    )
    cls = _type(t).__name__
    if cls != "Tensor":
        out["cls"] = cls
    return out


def encode(obj: Any, table: list | None = None, depth: int = 0) -> dict:
    """A JSON-able description of ``obj`` that never runs ``obj``'s own code."""
    table = [] if table is None else table
    if depth > MAX_DEPTH:
        return {"t": "toolarge", "type": "nesting"}
    tp = _type(obj)
    if obj is None:
        return {"t": "none"}
    if tp is bool or tp is _np.bool_:
        return {"t": "bool", "v": bool(obj is True or obj is _np.True_)}
    if tp is int or tp in _NP_INTS:
        v = _int_value(obj) if tp is int else int(obj)
        if v.bit_length() > MAX_INT_BITS:  # JSON (and Python's int parsing) would refuse it
            return {"t": "toolarge", "type": "int"}
        return {"t": "int", "v": v}
    if tp is float or tp in _NP_FLOATS:
        return {"t": "float", "v": _floatval(_float_value(obj) if tp is float else float(obj))}
    if tp is str:
        s = _str_value(obj)
        return (
            {"t": "str", "v": s[:MAX_STR]}
            if len(s) <= MAX_STR
            else {"t": "toolarge", "type": "str"}
        )
    if tp is range:
        n = len(obj)
        if n > MAX_ITEMS:
            return {"t": "toolarge", "type": "range"}
        return {"t": "tuple", "cls": "range", "items": [{"t": "int", "v": v} for v in obj]}
    if tp is _ndarray or (isinstance(obj, _ndarray) and issubclass(tp, _ndarray)):
        arr = obj if tp is _ndarray else _ndarray_view(obj, _ndarray)
        out = {"t": "ndarray", **_array_payload(arr)}
        if out.get("t") == "ndarray":
            k = storage_index(table, *_array_range(arr))
            out["storage"] = k
            out["pos"] = int(arr.__array_interface__["data"][0]) - table[k][0]
            if tp is not _ndarray:
                out["cls"] = tp.__name__
        return out
    if tp is _Tensor or tp is _Parameter:
        return _encode_tensor(obj, table, depth)
    if issubclass(tp, _Tensor):  # a subclass could lie about its layout: only its name travels
        return {"t": "object", "type": f"{tp.__name__} (a subclass of Tensor)"}
    if issubclass(tp, (bool, int, float, str)) and not issubclass(tp, bool):
        base = int if issubclass(tp, int) else float if issubclass(tp, float) else str
        out = encode({int: _int_value, float: _float_value, str: _str_value}[base](obj), table)
        out["cls"] = tp.__name__
        return out
    if issubclass(tp, tuple):
        n = _tuple_len(obj)
        if n > MAX_ITEMS:
            return {"t": "toolarge", "type": "tuple"}
        items = [encode(_tuple_item(obj, i), table, depth + 1) for i in range(n)]
        out = {"t": "tuple", "items": items}
        if tp is not tuple:
            out["cls"] = tp.__name__
        return out
    if issubclass(tp, list):
        n = _list_len(obj)
        if n > MAX_ITEMS:
            return {"t": "toolarge", "type": "list"}
        return {
            "t": "list",
            "items": [encode(_list_item(obj, i), table, depth + 1) for i in range(n)],
        }
    if issubclass(tp, (set, frozenset)):
        it = _set_iter(obj) if issubclass(tp, set) else _frozenset_iter(obj)
        items = []
        for v in it:
            items.append(encode(v, table, depth + 1))
            if len(items) > MAX_ITEMS:
                return {"t": "toolarge", "type": "set"}
        return {"t": "set", "items": items}
    if issubclass(tp, dict):
        items = []
        for k, v in _dict_items(obj):
            items.append([encode(k, table, depth + 1), encode(v, table, depth + 1)])
            if len(items) > MAX_ITEMS:
                return {"t": "toolarge", "type": "dict"}
        return {"t": "dict", "items": items}
    if callable(obj) and tp.__name__ in ("function", "builtin_function_or_method", "method"):
        return {"t": "function", "type": tp.__name__}
    return {"t": "object", "type": tp.__name__}


def encode_raised(exc: BaseException) -> dict:
    """An exception raised while producing an answer: its type name and (truncated) message."""
    # Only a plain string argument is read: a hostile __str__ must never run here.
    args = _object_getattribute(exc, "args")
    message = ""
    if _type(args) is tuple and _tuple_len(args) and _type(_tuple_item(args, 0)) is str:
        message = _tuple_item(args, 0)
    name = _type(exc).__name__
    if name.startswith("_"):  # e.g. numpy's _ArrayMemoryError: name the public base class
        name = next(
            (c.__name__ for c in _type(exc).__mro__ if not c.__name__.startswith("_")), name
        )
    out = {
        "t": "raised",
        "type": name,
        "message": message[:2000],
        "not_implemented": isinstance(exc, NotImplementedError),
    }
    out.update(_cell_frame(exc))
    return out


def _cell_frame(exc: BaseException) -> dict:
    """Where in a notebook cell ``exc`` was raised: the deepest frame whose code came from a
    cell (IPython names those files ``.../ipykernel_<pid>/<n>.py`` or ``<ipython-input-...>``;
    the answer process ``<cell i>``):
    ``{"line": line in the cell, "function": its name, "first": its first line}``, else {}.
    Read through the C-level attributes only (no learner ``__getattr__`` or ``__str__`` runs);
    the grader maps the line to the source it spliced in, so nothing here is trusted."""
    found: dict = {}
    tb = _exc_traceback(exc)
    for _ in range(500):
        if _type(tb) is not _TracebackType:
            break
        code = _tb_frame(tb).f_code
        name = code.co_filename
        if _type(name) is str and (
            "ipykernel_" in name or name.startswith(("<ipython-input", "<cell "))
        ):
            lineno = _tb_lineno(tb)
            if _type(lineno) is int and _type(code.co_name) is str:
                found = {
                    "line": lineno,
                    "function": code.co_name[:200],
                    "first": code.co_firstlineno,
                }
        tb = _tb_next(tb)
    return found


# ---------------------------------------------------------------------------- arguments
def encode_args(args: tuple, *, with_data: bool = True) -> tuple[dict, list]:
    """Arguments for a call in another process, with their storages sent once each.

    Returns (payload, table): ``table`` is the memory-range table (seed it into ``encode`` of the
    result so storage numbers refer to the arguments). ``with_data=False`` skips the bytes
    (for building the table only).
    """
    table: list[tuple[int, int]] = []
    storages: list[dict] = []

    def storage_of(arr: _np.ndarray) -> int:
        k = storage_index(table, *_array_range(arr))
        if k == len(storages):
            data = _b64encode(arr.tobytes()).decode("ascii") if with_data else ""
            storages.append({"dtype": str(arr.dtype), "data": data})
        return k

    def enc(x):
        if isinstance(x, _Tensor):
            arr, shape, stride, offset, dtype, _ = _tensor_fields(x)
            return {
                "t": "tensor",
                "storage": storage_of(arr),
                "dtype": dtype.name,
                "shape": list(shape),
                "stride": list(stride),
                "offset": offset,
            }
        if isinstance(x, _ndarray):
            arr = _np.ascontiguousarray(x)
            return {
                "t": "ndarray",
                "storage": storage_of(arr.reshape(-1)),
                "shape": list(arr.shape),
            }
        if isinstance(x, (tuple, list)):
            return {"t": type(x).__name__, "items": [enc(v) for v in x]}
        return encode(x)

    payload = {"args": [enc(a) for a in args], "storages": storages}
    return payload, table


def decode_args(payload: dict) -> tuple[tuple, list]:
    """Rebuild arguments sent by ``encode_args`` (fresh, writable memory) and their range table."""
    from .._tensor import Tensor

    arrays = []
    table: list[tuple[int, int]] = []
    for s in payload["storages"]:
        if s["dtype"] not in _ALLOWED_NP_DTYPES:
            raise ValueError(f"bad dtype {s['dtype']!r}")
        arr = _frombuffer(_b64decode(s["data"]), dtype=s["dtype"]).copy()
        arrays.append(arr)
        storage_index(table, *_array_range(arr))

    def dec(x):
        t = x["t"]
        if t == "tensor":
            arr = arrays[x["storage"]]
            storage = _UntypedStorage(arr)
            dtype = _DTYPE_BY_NAME[x["dtype"]]
            return Tensor(storage, tuple(x["shape"]), tuple(x["stride"]), x["offset"], dtype)
        if t == "ndarray":
            return arrays[x["storage"]].reshape(x["shape"])
        if t in ("tuple", "list"):
            items = [dec(v) for v in x["items"]]
            return tuple(items) if t == "tuple" else items
        return to_python(decode(x))

    return tuple(dec(a) for a in payload["args"]), table


# ---------------------------------------------------------------------------- decode
class DecodeError(ValueError):
    """The kernel sent something ``encode`` never writes."""


@dataclass(frozen=True)
class Missing:
    """No answer: the name is not defined in the notebook."""

    def __repr__(self) -> str:
        return "<not defined>"


MISSING = Missing()


@dataclass(frozen=True)
class Raised:
    """Producing the answer raised an exception."""

    type: str
    message: str
    not_implemented: bool = False
    line: int | None = None  # where in a cell (``_cell_frame``): the line, its function's
    function: str = ""  # name and first line; the grader finds the learner's own source line
    first: int | None = None

    def __repr__(self) -> str:
        return f"{self.type}({self.message!r})"


@dataclass(frozen=True)
class Opaque:
    """An answer of a type the grader does not read (only its type name travels)."""

    type: str
    what: str = "object"

    def __repr__(self) -> str:
        return f"<{self.type}>"


@dataclass(frozen=True, eq=False)
class ArrayAnswer:
    """A numpy array or a tensor: values (read-only, C order) plus layout metadata."""

    kind: str  # "ndarray" | "tensor"
    array: _np.ndarray
    storage: int | None = None
    stride: tuple[int, ...] | None = None
    offset: int | None = None
    pos: int | None = None  # byte position of the first element within its storage range
    requires_grad: bool = False
    cls: str | None = None

    @property
    def dtype(self) -> str:
        return str(self.array.dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.array.shape)

    def __repr__(self) -> str:
        body = _np.array2string(self.array, separator=", ", threshold=50)
        name = "tensor" if self.kind == "tensor" else "array"
        return f"{name}({body}, dtype={self.dtype})"


def _decode_array(x: dict, kind: str) -> ArrayAnswer:
    dtype, shape, data = x.get("dtype"), x.get("shape"), x.get("data")
    if dtype not in _ALLOWED_NP_DTYPES or not isinstance(shape, list) or not isinstance(data, str):
        raise DecodeError("malformed array")
    if len(shape) > 32 or not all(isinstance(n, int) and 0 <= n for n in shape):
        raise DecodeError("malformed shape")
    size = _math.prod(shape)
    if size > MAX_ELEMENTS:
        raise DecodeError("array too large")
    raw = _b64decode(data.encode("ascii"), validate=True)
    npd = _np.dtype(dtype)
    if len(raw) != size * npd.itemsize:
        raise DecodeError("array data does not match its shape")
    arr = _frombuffer(raw, dtype=npd).reshape(shape) if size else _np.empty(shape, dtype=npd)
    arr.flags.writeable = False
    stride = offset = None
    if kind == "tensor":
        stride, offset = x.get("stride"), x.get("offset")
        if (
            not isinstance(stride, list)
            or len(stride) != len(shape)
            or not all(isinstance(s, int) for s in stride)
            or not isinstance(offset, int)
        ):
            raise DecodeError("malformed tensor layout")
        stride = tuple(stride)
    storage, pos = x.get("storage"), x.get("pos")
    if storage is not None and not isinstance(storage, int):
        raise DecodeError("malformed storage number")
    if pos is not None and not isinstance(pos, int):
        raise DecodeError("malformed position")
    return ArrayAnswer(
        kind=kind,
        array=arr,
        storage=storage,
        stride=stride,
        offset=offset,
        pos=pos,
        requires_grad=bool(x.get("requires_grad", False)),
        cls=x.get("cls") if isinstance(x.get("cls"), str) else None,
    )


MAX_ANSWER_ELEMENTS = 8_000_000  # array elements in one answer (all cases of a function)
MAX_ANSWER_NODES = 200_000  # JSON values in one answer


def check_size(x: Any) -> None:
    """Raise ``DecodeError`` unless the encoded answer ``x`` fits the grader's budget: at most
    ``MAX_ANSWER_NODES`` JSON values and ``MAX_ANSWER_ELEMENTS`` array elements in all, nested at
    most a few levels deeper than ``encode`` writes. Iterative: no depth can make it recurse."""
    nodes = elements = 0
    todo = [(x, 0)]
    while todo:
        v, depth = todo.pop()
        nodes += 1
        if nodes > MAX_ANSWER_NODES:
            raise DecodeError(f"the answer has more than {MAX_ANSWER_NODES} values")
        if depth > 2 * MAX_DEPTH + 8:
            raise DecodeError("the answer is nested too deeply")
        if isinstance(v, dict):
            shape = v.get("shape")
            if v.get("t") in ("ndarray", "tensor") and isinstance(shape, list):
                if len(shape) > 32 or not all(isinstance(n, int) and n >= 0 for n in shape):
                    raise DecodeError("malformed shape")
                elements += _math.prod(shape)
                if elements > MAX_ANSWER_ELEMENTS:
                    raise DecodeError(
                        f"the answer holds more than {MAX_ANSWER_ELEMENTS} array elements"
                    )
            todo.extend((w, depth + 1) for w in v.values() if isinstance(w, (dict, list)))
        elif isinstance(v, list):
            if len(v) > MAX_ANSWER_NODES:
                raise DecodeError(f"the answer has more than {MAX_ANSWER_NODES} values")
            todo.extend((w, depth + 1) for w in v if isinstance(w, (dict, list)))


def _float_from(v) -> float:
    if isinstance(v, str):
        return {"nan": _math.nan, "inf": _math.inf, "-inf": -_math.inf}[v]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DecodeError("malformed float")
    return float(v)


def decode(x: Any, depth: int = 0) -> Any:
    """The grader's view of an encoded answer (Python values, ArrayAnswer, Raised, ...)."""
    if depth > MAX_DEPTH + 1 or not isinstance(x, dict):
        raise DecodeError("malformed answer")
    t = x.get("t")
    try:
        if t == "none":
            return None
        if t == "bool":
            if not isinstance(x["v"], bool):
                raise DecodeError("malformed bool")
            return x["v"]
        if t == "int":
            if isinstance(x["v"], bool) or not isinstance(x["v"], int):
                raise DecodeError("malformed int")
            return x["v"]
        if t == "float":
            return _float_from(x["v"])
        if t == "str":
            if not isinstance(x["v"], str):
                raise DecodeError("malformed str")
            return x["v"]
        if t in ("tuple", "list", "set"):
            items = x["items"]
            if not isinstance(items, list) or len(items) > MAX_ITEMS:
                raise DecodeError("malformed sequence")
            values = [decode(v, depth + 1) for v in items]
            if t == "set":
                try:
                    return frozenset(values)
                except TypeError:
                    return Opaque("set")
            return tuple(values) if t == "tuple" else list(values)
        if t == "dict":
            items = x["items"]
            if not isinstance(items, list) or len(items) > MAX_ITEMS:
                raise DecodeError("malformed dict")
            out = {}
            for kv in items:
                k, v = decode(kv[0], depth + 1), decode(kv[1], depth + 1)
                try:
                    out[k] = v
                except TypeError:
                    return Opaque("dict")
            return out
        if t in ("ndarray", "tensor"):
            return _decode_array(x, t)
        if t == "raised":
            line = x.get("line")
            first = x.get("first")
            return Raised(
                str(x["type"])[:200],
                str(x["message"])[:2000],
                bool(x["not_implemented"]),
                line if _type(line) is int else None,
                str(x.get("function", ""))[:200],
                first if _type(first) is int else None,
            )
        if t == "missing":
            return MISSING
        if t in ("object", "function", "toolarge"):
            return Opaque(str(x.get("type", "object"))[:200], t)
    except (KeyError, TypeError, IndexError, ValueError) as e:
        if isinstance(e, DecodeError):
            raise
        raise DecodeError(f"malformed {t}: {e}") from None
    raise DecodeError(f"unknown answer kind {t!r}")


def roundtrip(obj: Any, table: list | None = None) -> Any:
    """``decode(encode(obj))``: what the grader would see of ``obj`` (used in-process)."""
    return decode(encode(obj, table))


def to_python(value: Any) -> Any:
    """A decoded value as ordinary Python/numpy objects (arrays become writable numpy copies)."""
    if isinstance(value, ArrayAnswer):
        return _np.array(value.array)
    if isinstance(value, tuple):
        return tuple(to_python(v) for v in value)
    if isinstance(value, list):
        return [to_python(v) for v in value]
    return value
