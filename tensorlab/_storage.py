"""Storage: one flat numpy buffer that any number of tensors (views) look into."""

from __future__ import annotations

import numpy as np


class UntypedStorage:
    """The memory behind tensors. Several tensors share one storage when they are views of each other.

    ``data_ptr()`` is the address of the buffer's first byte: two tensors share memory exactly when
    their ``untyped_storage().data_ptr()`` are equal. A new ``UntypedStorage`` object is returned by
    every ``Tensor.untyped_storage()`` call (as in PyTorch), so compare pointers, not objects.
    """

    __slots__ = ("_array", "_owner")

    def __init__(self, array: np.ndarray, owner=None):
        if array.ndim != 1:
            raise ValueError("storage must be one-dimensional")
        self._array = array  # typed, 1-D, contiguous view of the buffer
        self._owner = owner  # keeps e.g. a user's numpy array alive

    def data_ptr(self) -> int:
        return int(self._array.__array_interface__["data"][0])

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    @property
    def device(self) -> str:
        return "cpu"

    def tolist(self) -> list[int]:
        return self._array.view(np.uint8).tolist()

    def __repr__(self) -> str:
        n = self.nbytes()
        head = " ".join(str(b) for b in self._array.view(np.uint8)[:16].tolist())
        more = " ..." if n > 16 else ""
        return f"tensorlab.UntypedStorage(nbytes={n}) [{head}{more}]"


def new_storage(n: int, np_dtype) -> UntypedStorage:
    return UntypedStorage(np.empty(n, dtype=np_dtype))


def storage_over(arr: np.ndarray) -> tuple[UntypedStorage, tuple[int, ...]]:
    """Storage sharing ``arr``'s memory, and ``arr``'s strides in elements (offset 0 at arr's start).

    Raises PyTorch's ``ValueError`` for negative strides and strides that are not whole elements.
    """
    item = arr.itemsize
    if any(s < 0 for s in arr.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if any(s % item for s in arr.strides):
        raise ValueError(
            "given numpy array strides not a multiple of the element byte size. Copy the numpy "
            "array to reallocate the memory."
        )
    strides = tuple(s // item for s in arr.strides)
    if arr.size == 0:
        span = 0
    else:
        span = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides))
    flat = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(item,))
    return UntypedStorage(flat, owner=arr), strides
