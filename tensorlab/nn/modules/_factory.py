"""``device=``/``dtype=`` keywords of the layers (``factory_kwargs`` in torch's modules)."""

from __future__ import annotations

from ... import _dtype as D


def check_device(device) -> None:
    """tensorlab runs on the CPU (``None``, ``'cpu'`` or any object whose ``str`` is ``'cpu'``)
    and builds shapes without data on the ``'meta'`` device."""
    if device is None:
        return
    name = device if isinstance(device, str) else str(device)
    if name in ("cpu", "meta") or name.startswith("cpu:"):
        return
    if name.startswith("cuda"):
        raise AssertionError("Torch not compiled with CUDA enabled")
    raise RuntimeError(f"tensorlab runs on the CPU only, not on device {name!r}")


def factory_dtype(device=None, dtype=None):
    """The floating dtype for a layer's parameters (the default dtype when ``None``)."""
    check_device(device)
    return D.get_default_dtype() if dtype is None else D.to_dtype(dtype)


def empty_param(shape, device=None, dtype=None):
    from ..._ops.creation import empty

    return empty(tuple(shape), dtype=factory_dtype(device, dtype), device=_meta_or_none(device))


def _meta_or_none(device):
    """``device=`` for the factory: ``'meta'`` when asked, else None (the default device, so
    that ``with tensorlab.device('meta'):`` builds layers on the meta device)."""
    return "meta" if device is not None and str(device) == "meta" else None
