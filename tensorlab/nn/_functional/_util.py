"""Small helpers shared by the functional ops: record a node, check args, the memory format a
result follows (results are made by :func:`tensorlab._tensor.from_array`)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _layout as L
from ..._tensor import Tensor, channels_last, channels_last_3d, memory_format
from ...autograd.grad_mode import STATE
from ...autograd.graph import attach


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


def suggest_memory_format(t: Tensor) -> memory_format | None:
    """``Tensor.suggest_memory_format()``: ``channels_last`` (4-d) or ``channels_last_3d`` (5-d)
    when the strides are ordered that way, else None (contiguous)."""
    if L.is_channels_last_strides(t._shape, t._stride):
        return channels_last if t.ndim == 4 else channels_last_3d
    return None
