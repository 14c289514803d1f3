"""``save`` and ``load`` in PyTorch's own file format, without PyTorch.

A file from ``tensorlab.save`` loads in ``torch.load`` and the reverse: tensors, parameters,
state dicts and containers of them keep their values, dtypes, shapes, strides, storage offsets
and which tensors share a storage.

The format (``torch/serialization.py``'s ``_save``/``_load``) is a zip archive, stored without
compression, whose entries sit in one folder (the file's stem, or ``archive`` for a buffer):

- ``data.pkl``: the object, pickled (protocol 2). A tensor is the call
  ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  OrderedDict())``; a parameter wraps it in ``torch._utils._rebuild_parameter``; a storage is a
  *persistent id* ``('storage', torch.FloatStorage, key, 'cpu', numel)``;
- ``data/<key>``: each storage's bytes, once however many tensors view it, at a 64-byte aligned
  offset in the file;
- ``byteorder``, ``version``, ``.format_version``, ``.storage_alignment``, ``.data/serialization_id``.

Writing torch's global names (``torch._utils._rebuild_tensor_v2``) needs no torch: the pickler
writes a ``GLOBAL`` opcode for a stand-in of each. Reading maps them back to tensorlab. A whole
model travels too: tensorlab's own classes (``tensorlab.nn.modules.linear.Linear``, whose
modules mirror torch's) are written under torch's names (``torch.nn.modules.linear.Linear``),
and a module's state carries the hook dictionaries every torch module has, so ``torch.load``
builds torch modules; ``load`` maps ``torch.*`` classes back to tensorlab's.
``weights_only=True`` (the default, as in PyTorch 2.6+) accepts only tensors, containers and
plain data, and refuses any other global with PyTorch's ``UnpicklingError``.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import sys
import uuid
import zipfile
from collections import Counter, OrderedDict

import numpy as np

from . import _dtype as D

__all__ = ["save", "load", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
STORAGE_ALIGNMENT = 64
# torch's legacy storage class per dtype: the name the pickle stores for a storage's dtype
_STORAGE_NAMES = {
    D.bool_: "BoolStorage",
    D.uint8: "ByteStorage",
    D.int8: "CharStorage",
    D.int16: "ShortStorage",
    D.int32: "IntStorage",
    D.int64: "LongStorage",
    D.float16: "HalfStorage",
    D.float32: "FloatStorage",
    D.float64: "DoubleStorage",
}
_DTYPE_OF_STORAGE = {name: dt for dt, name in _STORAGE_NAMES.items()}
# torch names tensorlab has no dtype for (read: a clear error instead of wrong bytes)
_MISSING_STORAGES = {
    "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
}


# ---------------------------------------------------------------------------- save
class _Global:
    """Stands for a global of PyTorch's (``torch._utils._rebuild_tensor_v2``) in a pickle."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle asks a reduce function to be callable; never called
        raise TypeError(f"{self.module}.{self.name} stands for PyTorch's in a pickle")


_GLOBALS: dict[tuple[str, str], _Global] = {}


def _g(module: str, name: str) -> _Global:
    return _GLOBALS.setdefault((module, name), _Global(module, name))


class _StorageRef:
    """A storage as the pickle sees it: its persistent id is written instead of its bytes."""

    __slots__ = ("storage", "dtype")

    def __init__(self, storage, dtype):
        self.storage, self.dtype = storage, dtype


class _Pickler(pickle._Pickler):
    """Python's own pickler (protocol 2, as torch) with tensorlab objects written as torch's."""

    dispatch = pickle._Pickler.dispatch.copy()

    def __init__(self, file, protocol):
        super().__init__(file, protocol=protocol)
        self.storages: dict[str, _StorageRef] = {}
        self._keys: dict[int, str] = {}
        self._dtypes: dict[int, object] = {}

    def save_standin(self, obj: _Global) -> None:
        self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
        self.memoize(obj)

    dispatch[_Global] = save_standin

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, D.dtype):  # torch.float32 is pickled as the global itself
            obj = _g("torch", obj.name)
        return super().save(obj, save_persistent_id)

    def save_global(self, obj, name=None):
        """A tensorlab class or function under torch's name (the module paths mirror torch's:
        ``tensorlab.nn.modules.conv.Conv2d`` is ``torch.nn.modules.conv.Conv2d``)."""
        module = getattr(obj, "__module__", None)
        if isinstance(module, str) and _mirrors_torch(module):
            qualname = name or obj.__qualname__
            self.write(pickle.GLOBAL + f"torch{module[len('tensorlab') :]}\n{qualname}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def persistent_id(self, obj):
        if not isinstance(obj, _StorageRef):
            return None
        ptr = obj.storage.data_ptr()
        if obj.storage.nbytes() and self._dtypes.setdefault(ptr, obj.dtype) is not obj.dtype:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data as different "
                "types"
            )
        key = self._keys.setdefault(id(obj.storage), str(len(self._keys)))
        self.storages[key] = obj
        numel = obj.storage.nbytes() // obj.dtype.itemsize
        return ("storage", _g("torch", _STORAGE_NAMES[obj.dtype]), key, "cpu", numel)

    def reducer_override(self, obj):
        from ._device import device
        from ._tensor import Size, Tensor
        from .nn.parameter import Parameter

        if isinstance(obj, Tensor):
            if obj.dtype not in _STORAGE_NAMES:  # pragma: no cover - every tensorlab dtype is
                raise pickle.PicklingError(f"cannot save a tensor of dtype {obj.dtype}")
            if isinstance(obj, Parameter):
                return (
                    _g("torch._utils", "_rebuild_parameter"),
                    (obj.detach(), obj.requires_grad, OrderedDict()),
                )
            ref = _StorageRef(obj._storage, obj.dtype)
            args = (ref, obj.storage_offset(), tuple(obj.shape), obj.stride(), obj.requires_grad)
            return (_g("torch._utils", "_rebuild_tensor_v2"), (*args, OrderedDict()))
        from .nn.modules.module import Module

        if isinstance(obj, Module):  # a user's own subclass too: its state as torch's
            import copyreg

            return (copyreg.__newobj__, (type(obj),), _torch_module_state(obj))
        if isinstance(obj, Size):
            return (_g("torch", "Size"), (tuple(obj),))
        if isinstance(obj, device):
            return (_g("torch", "device"), (str(obj),))
        return NotImplemented


# tensorlab's modules whose classes are torch's under the same path (private ones are not)
_MIRRORED = ("tensorlab.nn.", "tensorlab.optim.", "tensorlab.utils.data.")

# what every torch module's state holds (torch's Module.__setstate__ fills in the others)
_TORCH_MODULE_DICTS = (
    "_forward_hooks",
    "_backward_hooks",
    "_forward_pre_hooks",
    "_backward_pre_hooks",
)


def _mirrors_torch(module: str) -> bool:
    """Whether the classes of ``module`` are torch's under ``torch`` + the same path."""
    return module.startswith(_MIRRORED) and not any(
        part.startswith("_") for part in module.split(".")
    )


def _torch_module_state(module) -> dict:
    """A tensorlab module's ``__dict__`` as torch's ``Module.__setstate__`` expects it."""
    state = dict(module.__dict__)
    for name in _TORCH_MODULE_DICTS:
        state.setdefault(name, OrderedDict())
    state.setdefault("_is_full_backward_hook", None)
    names = state.get("_flat_weights_names")
    if names is not None and "_flat_weights" not in state:  # an RNN: torch keeps them listed
        params = state.get("_parameters", {})
        state["_flat_weights"] = [params.get(n) for n in names]
    return state


def _archive_name(f) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def _write_record(z: zipfile.ZipFile, name: str, data: bytes, *, align: bool = False) -> None:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    if align:  # pad the local header's extra field so the bytes start on a 64-byte boundary
        start = z.fp.tell() + 30 + len(name.encode("utf-8")) + 4
        pad = -start % STORAGE_ALIGNMENT
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    z.writestr(info, data)


def save(obj, f, pickle_module=None, pickle_protocol: int = DEFAULT_PROTOCOL, **kwargs) -> None:
    """Save ``obj`` to the file (a path or a writable binary file object) ``f`` in PyTorch's
    format: ``torch.load`` reads it, and so does :func:`load`."""
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("tensorlab.save writes with Python's pickle only (pickle_module=None)")
    if kwargs.pop("_use_new_zipfile_serialization", True) is not True:
        raise ValueError(
            "tensorlab.save writes only PyTorch's zip format (_use_new_zipfile_serialization=True)"
        )
    kwargs.pop("_disable_byteorder_record", None)
    if kwargs:
        name = next(iter(kwargs))
        raise TypeError(f"save() got an unexpected keyword argument '{name}'")
    if not isinstance(pickle_protocol, int) or not 2 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"pickle_protocol must be 2 to {pickle.HIGHEST_PROTOCOL}")
    buf = io.BytesIO()
    pickler = _Pickler(buf, pickle_protocol)
    pickler.dump(obj)
    prefix = _archive_name(f)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_archive(fh, prefix, buf.getvalue(), pickler.storages)
    else:
        if not hasattr(f, "write"):
            raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
        _write_archive(f, prefix, buf.getvalue(), pickler.storages)


def _write_archive(fh, prefix: str, data: bytes, storages: dict[str, _StorageRef]) -> None:
    with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as z:
        _write_record(z, f"{prefix}/data.pkl", data)
        _write_record(z, f"{prefix}/.format_version", b"1")
        _write_record(z, f"{prefix}/.storage_alignment", str(STORAGE_ALIGNMENT).encode())
        _write_record(z, f"{prefix}/byteorder", sys.byteorder.encode())
        for key, ref in storages.items():
            raw = np.ascontiguousarray(ref.storage._array).view(np.uint8)
            _write_record(z, f"{prefix}/data/{key}", raw.tobytes(), align=True)
        _write_record(z, f"{prefix}/version", b"3\n")
        _write_record(z, f"{prefix}/.data/serialization_id", str(uuid.uuid4().int).encode())


# ---------------------------------------------------------------------------- load
class _StorageType:
    """What ``torch.FloatStorage`` reads as: the dtype of the storage's elements."""

    def __init__(self, dtype):
        self.dtype = dtype


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks, meta=None):
    t = storage.as_strided(tuple(size), tuple(stride), storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _rebuild_tensor_v2(storage, storage_offset, size, stride, False, None)


def _rebuild_parameter(data, requires_grad, hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, hooks, state):
    param = _rebuild_parameter(data, requires_grad, hooks)
    for k, v in (state or {}).items():
        setattr(param, k, v)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    from ._tensor import Tensor
    from .nn.parameter import Parameter

    result = func(*args)
    if new_type not in (Tensor, Parameter) and new_type is not type(result):
        raise pickle.UnpicklingError(f"tensorlab cannot rebuild a tensor of type {new_type}")
    for k, v in (state or {}).items():
        setattr(result, k, v)
    return result


def _encode(obj, encoding="latin1"):  # protocol 2 writes bytes as _codecs.encode(str, 'latin1')
    return obj.encode(encoding)


def _torch_globals() -> dict[str, object]:
    """PyTorch's weights-only allowlist, mapped to tensorlab's objects."""
    from ._device import device
    from ._tensor import Size, Tensor
    from .nn.parameter import Parameter

    found: dict[str, object] = {
        "collections.OrderedDict": OrderedDict,
        "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch._tensor.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": _encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
    }
    for dt in _STORAGE_NAMES:
        found[f"torch.{dt.name}"] = dt
    for name, dt in _DTYPE_OF_STORAGE.items():
        found[f"torch.{name}"] = _StorageType(dt)
    return found


def _weights_only_error(what: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "do those steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, "
        "we changed the default value of the `weights_only` argument in `torch.load` from "
        "`False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
        "likely succeed, but it can result in arbitrary code execution. Do it only if you got "
        "the file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` "
        "please check the recommended steps in the following error message.\n\tWeightsUnpickler "
        f"error: Unsupported global: GLOBAL {what} was not an allowed global by default."
    )


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf: zipfile.ZipFile, prefix: str, weights_only: bool, **kwargs):
        super().__init__(file, **kwargs)
        self._zip, self._prefix, self._weights_only = zf, prefix, weights_only
        self._allowed = _torch_globals()
        self._bases: dict[str, object] = {}

    def find_class(self, module: str, name: str):
        if module == "__builtin__":
            module = "builtins"
        full = f"{module}.{name}"
        if full in self._allowed:
            return self._allowed[full]
        if module == "torch" and name in _MISSING_STORAGES:
            raise RuntimeError(
                f"tensorlab.load: the file holds a torch.{name}; tensorlab has no "
                f"{_MISSING_STORAGES[name]} dtype"
            )
        if self._weights_only:
            raise _weights_only_error(full)
        if module == "torch" or module.startswith("torch."):  # torch.nn.modules.linear.Linear
            import importlib

            ours = "tensorlab" + module[len("torch") :]
            try:
                return getattr(importlib.import_module(ours), name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(
                    f"tensorlab.load: the file needs {full}, which tensorlab does not have"
                ) from None
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"tensorlab.load: unknown persistent id {pid!r}")
        _, kind, key, location, numel = pid
        if not isinstance(kind, _StorageType):
            raise pickle.UnpicklingError(f"tensorlab.load: unknown storage type {kind!r}")
        if not str(location).startswith("cpu"):
            raise RuntimeError(
                f"Attempting to deserialize object on a {str(location).split(':')[0].upper()} "
                "device but torch.cuda.is_available() is False. If you are running on a CPU-only "
                "machine, please use torch.load with map_location=torch.device('cpu') to map "
                "your storages to the CPU."
            )
        base = self._bases.get(key)
        if base is None:
            from ._ops.creation import from_numpy

            raw = self._zip.read(f"{self._prefix}/data/{key}")
            arr = np.frombuffer(raw, dtype=kind.dtype.np, count=int(numel)).copy()
            base = self._bases[key] = from_numpy(arr)
        return base


def _cpu_only(map_location) -> None:
    """Only the CPU exists here: refuse a map_location that sends storages elsewhere."""
    if map_location is None or callable(map_location):
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if not str(target).startswith("cpu"):
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU."
            )


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load what :func:`save` (or ``torch.save``) wrote to ``f`` (a path or a binary file).

    ``weights_only=True`` (the default, as in PyTorch 2.6+) reads tensors, parameters, state
    dicts, containers and plain data only; ``weights_only=False`` also rebuilds other objects
    (tensorlab's own modules for torch's), running their code: only for files you trust.
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("tensorlab.load reads with Python's pickle only (pickle_module=None)")
    weights_only = True if weights_only is None else bool(weights_only)
    _cpu_only(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _load(fh, weights_only, kwargs)
    if not hasattr(f, "read"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'read'")
    return _load(f, weights_only, kwargs)


def _load(fh, weights_only: bool, kwargs):
    try:
        zf = zipfile.ZipFile(fh)
    except zipfile.BadZipFile:
        raise RuntimeError(
            "tensorlab.load reads PyTorch's zip format (torch.save since PyTorch 1.6): this "
            "file is not a zip archive (a legacy torch.save file, or not a PyTorch file at all)"
        ) from None
    with zf:
        pkl = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pkl) != 1:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        prefix = pkl[0][: -len("/data.pkl")]
        order = (
            zf.read(f"{prefix}/byteorder") if f"{prefix}/byteorder" in zf.namelist() else b"little"
        )
        if order != sys.byteorder.encode():
            raise RuntimeError(f"tensorlab.load: the file is {order.decode()}-endian")
        with zf.open(f"{prefix}/data.pkl") as data:
            return _Unpickler(data, zf, prefix, weights_only, **kwargs).load()
