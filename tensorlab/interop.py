"""tensorlab beside real PyTorch: tensors that share memory both ways, and one coercion for the
entry points of the explainers, figures and explorers.

``from_torch(t)`` is a tensorlab Tensor with ``t``'s shape, strides, storage offset, dtype and
values, on the *same memory* (writes show in both, as with ``torch.from_numpy``); views of one torch
storage share one tensorlab storage. ``to_torch(x)`` is the inverse, layout kept.

torch is never imported here unless the user passes a torch object (or calls ``to_torch``):
a torch tensor is recognised through ``sys.modules``, which holds ``torch`` once the user imported
it.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
import weakref

import numpy as np

from . import _dtype as D
from ._storage import UntypedStorage
from ._tensor import Tensor

__all__ = [
    "TorchMissing",
    "accepts_torch",
    "coerce",
    "from_torch",
    "is_torch_tensor",
    "require_torch",
    "to_torch",
]

TORCH_MISSING = (
    "this notebook needs real PyTorch, which is not installed here: "
    'pip install "tensorlab-course[torch]" (or pip install torch==2.13.0), then restart the '
    "kernel. Until then, read the outputs saved below."
)


class TorchMissing(ModuleNotFoundError):
    """PyTorch is not installed. In a notebook it shows as one line that says what to install (no
    traceback), and Run All stops there: the cells below keep the outputs saved with them."""

    def _render_traceback_(self) -> list[str]:
        return [f"\x1b[31mTorchMissing\x1b[0m: {self}"]


def require_torch():
    """``import torch`` for a notebook that needs real PyTorch: the module, or :class:`TorchMissing`
    (a ``ModuleNotFoundError``) saying what to install."""
    try:
        import torch
    except ModuleNotFoundError as e:
        if e.name != "torch":  # torch is there but broken: its own error is the useful one
            raise
        raise TorchMissing(TORCH_MISSING, name="torch") from None
    return torch


def _torch():
    """The ``torch`` module if the user imported it, else ``None`` (never imports it)."""
    return sys.modules.get("torch")


def is_torch_tensor(obj) -> bool:
    """Whether ``obj`` is a real ``torch.Tensor`` (``nn.Parameter`` included)."""
    torch = _torch()
    return torch is not None and isinstance(obj, getattr(torch, "Tensor", ()))


class _TorchStorage(UntypedStorage):
    """A tensorlab storage over a torch storage's memory (``_owner`` keeps the torch storage
    alive, so its address cannot be reused while this storage lives)."""

    __slots__ = ("__weakref__",)


# (data_ptr, nbytes, dtype name) -> the tensorlab storage over that torch storage
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _dtype_of(t) -> D.dtype:
    name = str(t.dtype).rsplit(".", 1)[-1]
    d = D._BY_NAME.get(name)
    if d is None:
        kinds = ", ".join(x.name for x in D.ALL)
        raise TypeError(
            f"from_torch: tensorlab has no {name} dtype (it has {kinds}); convert first, "
            "e.g. t.float()"
        )
    return d


def _check_plain(t, what: str) -> None:
    """One-line errors for what a numpy buffer cannot hold."""
    if t.device.type != "cpu":
        raise ValueError(
            f"{what}: the tensor is on {t.device}; tensorlab works on the CPU: pass t.cpu()"
        )
    if t.is_quantized:
        raise ValueError(f"{what}: quantized tensors are not supported; pass t.dequantize()")
    if getattr(t, "is_nested", False):
        raise ValueError(f"{what}: nested tensors are not supported; pass t.unbind() items")
    if t.layout is not _torch().strided:
        raise ValueError(f"{what}: {t.layout} tensors are not supported; pass t.to_dense()")


def _shared_storage(t, dtype: D.dtype) -> UntypedStorage:
    torch = _torch()
    s = t.untyped_storage()
    key = (s.data_ptr(), s.nbytes(), dtype.name)
    storage = _SHARED.get(key)
    if storage is None:
        n = s.nbytes() // dtype.itemsize
        flat = torch.empty(0, dtype=t.dtype).set_(s, 0, (n,), (1,))
        storage = _TorchStorage(flat.numpy(), owner=flat)
        _SHARED[key] = storage
    return storage


def from_torch(t) -> Tensor:
    """A tensorlab Tensor on ``t``'s memory: same shape, strides, storage offset, dtype, values.

    Writes through either tensor are seen by the other; tensors that are views of one torch
    storage get one tensorlab storage (``MemoryExplorer`` shows them aliasing). A tensor that
    requires grad is detached (with a warning). Raises ``TypeError`` for a dtype tensorlab has
    not (bfloat16, complex, uint16/32/64) and ``ValueError`` for non-CPU, sparse, quantized and
    nested tensors.
    """
    if not is_torch_tensor(t):
        raise TypeError(f"from_torch expects a torch.Tensor, got {type(t).__name__}")
    _check_plain(t, "from_torch")
    if t.requires_grad:
        warnings.warn(
            "from_torch: the tensor requires grad; tensorlab gets it detached (t.detach()): "
            "autograd does not cross between the libraries",
            UserWarning,
            stacklevel=2,
        )
        t = t.detach()
    dtype = _dtype_of(t)
    storage = _shared_storage(t, dtype)
    return Tensor(storage, tuple(t.shape), t.stride(), t.storage_offset(), dtype)


def to_torch(x: Tensor):
    """A ``torch.Tensor`` on ``x``'s memory, with its shape, strides, storage offset and dtype
    (imports torch). A tensor that requires grad is detached (with a warning)."""
    import torch

    if not isinstance(x, Tensor):
        raise TypeError(f"to_torch expects a tensorlab Tensor, got {type(x).__name__}")
    if x.requires_grad:
        warnings.warn(
            "to_torch: the tensor requires grad; torch gets it detached (x.detach()): "
            "autograd does not cross between the libraries",
            UserWarning,
            stacklevel=2,
        )
    tdtype = getattr(torch, x.dtype.name)
    st = x._storage
    if isinstance(st, _TorchStorage):  # it came from torch: give back that very storage
        source = st._owner.untyped_storage()
    else:
        buf = st._array
        if buf.dtype != x.dtype.np:
            nbytes = buf.nbytes - buf.nbytes % x.dtype.itemsize
            buf = buf.view(np.uint8)[:nbytes].view(x.dtype.np)
        source = torch.from_numpy(buf).untyped_storage()
    return torch.empty(0, dtype=tdtype).set_(source, x.storage_offset(), x.shape, x.stride())


# ---------------------------------------------------------------------------- entry points


def _is_conv_layer(obj) -> bool:
    """A convolution layer, torch's or tensorlab's (read by its attributes, imports nothing)."""
    return all(
        hasattr(obj, a) for a in ("in_channels", "out_channels", "kernel_size", "groups", "weight")
    ) and callable(obj)


def _squash(v):
    """``(3, 3)`` -> ``3``; ``(3, 5)`` and ``'same'`` stay as they are."""
    if isinstance(v, (tuple, list)) and len(v) and all(x == v[0] for x in v):
        return v[0]
    return v


def _layer_setting(layer, name: str):
    """The value a conv layer gives the parameter ``name`` of an explainer, figure or explorer
    (``KeyError`` if it has none)."""
    if name in ("in_channels", "out_channels", "groups", "padding_mode"):
        return getattr(layer, name)
    if name in ("kernel_size", "stride", "padding", "dilation", "output_padding"):
        return _squash(tuple(getattr(layer, name)) if name != "padding" else layer.padding)
    if name in ("weight", "bias"):
        v = getattr(layer, name)
        return None if v is None else coerce(v)
    if name == "kernel":  # one 2-D kernel: a layer with one input and one output channel
        w = coerce(layer.weight)
        if w.ndim != 4 or tuple(w.shape[:2]) != (1, 1):
            raise ValueError(
                f"a layer gives one 2-D kernel only with one input and one output channel; its "
                f"weight has shape {list(w.shape)}: pass layer.weight[o, c] as the kernel"
            )
        return w[0, 0]
    raise KeyError(name)


def coerce(obj):
    """A torch tensor becomes the tensorlab Tensor on its memory (detached, without a warning:
    the entry points only read it); anything else is returned unchanged."""
    if is_torch_tensor(obj):
        _check_plain(obj, "tensorlab")
        return from_torch(obj.detach())
    return obj


def accepts_torch(func=None, *, layer: str | None = None):
    """Decorator for a public entry point: every torch tensor argument becomes a tensorlab Tensor
    sharing its memory (:func:`coerce`).

    With ``layer="conv"`` (or ``"transposed"``, ``"any"``), a convolution layer - ``torch.nn`` or
    tensorlab's, ``Conv1d/2d/3d``, ``ConvTranspose*d`` - passed as any argument stands for its
    settings: every parameter named like a layer setting (``weight``, ``bias``, ``stride``,
    ``padding``, ``dilation``, ``groups``, ``padding_mode``, ``in_channels``, ``out_channels``,
    ``kernel_size``, ``output_padding``, ``kernel``) takes the layer's value, the layer's own slot
    included (or its default when the layer has nothing of that name). Passing a layer *and*
    one of those settings raises ``ValueError``.
    """
    if func is None:
        return functools.partial(accepts_torch, layer=layer)
    sig = inspect.signature(func)
    params = sig.parameters

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if "torch" not in sys.modules and layer is None:
            return func(*args, **kwargs)
        bound = sig.bind_partial(*args, **kwargs)
        given = bound.arguments
        for name, value in list(given.items()):
            if params[name].kind is inspect.Parameter.VAR_POSITIONAL:
                given[name] = tuple(coerce(v) for v in value)
            elif params[name].kind is not inspect.Parameter.VAR_KEYWORD:
                given[name] = coerce(value)
        if layer is not None:
            slot = next((n for n, v in given.items() if _is_conv_layer(v)), None)
            if slot is not None:
                _expand_layer(func.__qualname__, given, slot, layer, params)
        return func(*bound.args, **bound.kwargs)

    return wrapper


def _expand_layer(fname: str, given: dict, slot: str, kind: str, params) -> None:
    mod = given[slot]
    transposed = bool(getattr(mod, "transposed", False))
    if kind != "any" and transposed != (kind == "transposed"):
        want = "a ConvTranspose" if kind == "transposed" else "a Conv (not transposed)"
        hint = ": use explain_conv_transpose" if transposed else ""
        raise TypeError(f"{fname} takes {want} layer, not {type(mod).__name__}{hint}")
    taken = [n for n in given if n != slot and n in _SETTINGS]
    if taken:
        raise ValueError(
            f"pass either a {type(mod).__name__} module or the convolution settings, not both "
            f"(got {', '.join(n + '=' for n in taken)})"
        )
    del given[slot]
    for name in _SETTINGS:
        if name in params and (name == "kernel" or hasattr(mod, name)):
            given[name] = _layer_setting(mod, name)


# the parameter names a layer fills in
_SETTINGS = (
    "weight",
    "bias",
    "kernel",
    "in_channels",
    "out_channels",
    "kernel_size",
    "stride",
    "padding",
    "output_padding",
    "dilation",
    "groups",
    "padding_mode",
)
