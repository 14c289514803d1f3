"""``tensorlab.storage.TypedStorage``: the legacy typed view of a tensor's storage.

PyTorch keeps it for old code (``t.storage()``) and warns, once per process, that it is
deprecated in favour of ``t.untyped_storage()``. It sees the *whole* storage (not just the
tensor's elements), indexed in elements of the tensor's dtype.
"""

from __future__ import annotations

import warnings

from ._storage import UntypedStorage

_has_warned = False
_always_warn = False

_LEGACY = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}


def _warn_typed_storage_removal(stacklevel: int = 2) -> None:
    global _has_warned
    if _always_warn or not _has_warned:
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
            "be the only storage class. This should only matter to you if you are using storages "
            "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
            "of tensor.storage()",
            UserWarning,
            stacklevel=stacklevel + 1,
        )
        _has_warned = True


def _reset_warn_typed_storage_removal() -> None:
    global _has_warned
    _has_warned = False


class TypedStorage:
    """Elements of one dtype over an :class:`UntypedStorage` (shares its memory)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("tensorlab makes a TypedStorage only through Tensor.storage()")

    @classmethod
    def _over(cls, untyped: UntypedStorage, dtype) -> TypedStorage:
        self = object.__new__(cls)
        self._untyped, self.dtype = untyped, dtype
        return self

    @property
    def _array(self):
        return self._untyped._array.view(self.dtype.np)

    @property
    def device(self) -> str:
        return "cpu"

    @property
    def is_cuda(self) -> bool:
        return False

    def size(self) -> int:
        return int(self._array.size)

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self._untyped.nbytes()

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._untyped._array, owner=self._untyped)

    def is_shared(self) -> bool:
        return False

    def type(self, dtype=None, non_blocking: bool = False):
        if dtype is None:
            return f"tensorlab.{_LEGACY[self.dtype.name]}"
        raise RuntimeError("tensorlab's TypedStorage.type() only reports its type")

    def _index(self, idx) -> int:
        if isinstance(idx, slice):
            raise RuntimeError("slices are only supported in UntypedStorage.__getitem__")
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise RuntimeError(f"can't index a {type(self)} with {type(idx)}")
        n = self.size()
        i = idx + n if idx < 0 else idx
        if not 0 <= i < n:
            raise IndexError(f"index {idx} out of range for storage of size {n}")
        return i

    def __getitem__(self, idx):
        return self._array[self._index(idx)].item()

    def __setitem__(self, idx, value) -> None:
        self._array[self._index(idx)] = value

    def __iter__(self):
        return iter(self[i] for i in range(self.size()))

    def tolist(self) -> list:
        return self._array.tolist()

    def __str__(self) -> str:
        info = (
            f"[tensorlab.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"
        )
        data = " " + "\n ".join(str(self[i]) for i in range(self.size()))
        return data + "\n" + info

    __repr__ = __str__
