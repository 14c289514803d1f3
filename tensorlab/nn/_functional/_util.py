"""Small helpers shared by the functional ops: wrap a numpy result, record a node, check args."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _layout as L
from ..._storage import UntypedStorage
from ..._tensor import Tensor
from ...autograd.grad_mode import STATE
from ...autograd.graph import attach


def wrap(arr: np.ndarray, dtype: D.dtype) -> Tensor:
    """A fresh contiguous tensor over ``arr`` (not copied when already contiguous and of dtype)."""
    arr = np.asarray(arr, dtype=dtype.np)
    if not arr.flags.c_contiguous:
        arr = np.ascontiguousarray(arr)  # (ascontiguousarray alone makes 0-d arrays 1-d)
    shape = arr.shape
    return Tensor(UntypedStorage(arr.reshape(-1)), shape, L.contiguous_strides(shape), 0, dtype)


def needs_record(*inputs) -> bool:
    """Grad mode is on and one of the tensor ``inputs`` requires grad."""
    if not STATE.enabled:
        return False
    return any(t is not None and isinstance(t, Tensor) and t.requires_grad for t in inputs)


def record(out: Tensor, make_node, *inputs) -> Tensor:
    """Give ``out`` the node ``make_node()`` when ``inputs`` want gradients (floating outputs)."""
    if needs_record(*inputs) and out.dtype.is_floating_point:
        attach(out, make_node())
    return out


def check_tensor(x, fname: str, argname: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fname}(): argument '{argname}' (position {pos}) must be Tensor, not "
            f"{type(x).__name__}"
        )


def compute_dtype(dt: D.dtype) -> np.dtype:
    """The numpy dtype ops compute in (half in float32, like torch's opmath)."""
    return np.dtype(np.float32) if dt.np == np.float16 else dt.np


def fmt_size(shape) -> str:
    """How torch prints a ``torch.Size`` (tensorlab prints its own as ``tensorlab.Size``)."""
    return "tensorlab.Size([" + ", ".join(str(s) for s in shape) + "])"


def wrap_elementwise(arr: np.ndarray, dtype: D.dtype, *inputs) -> Tensor:
    """The result of an elementwise op on ``inputs``, laid out as torch's TensorIterator lays it
    (a transposed input gives a transposed result)."""
    from ..._ops._elementwise import new_tensor

    return new_tensor(arr, dtype, np.shape(arr), inputs)


def wrap_memory_format(arr: np.ndarray, dtype: D.dtype, like: Tensor) -> Tensor:
    """Contiguous, or channels last when ``like`` is (``suggest_memory_format``)."""
    from .. import functional as F

    if like.ndim == 4 and arr.ndim == 4 and F._suggest_memory_format(like) == "cl":
        return F._adopt(arr, dtype, "cl")
    return wrap(arr, dtype)
