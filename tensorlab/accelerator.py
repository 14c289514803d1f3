"""``tensorlab.accelerator``: PyTorch's device-agnostic accelerator API (recent tutorials start
with ``torch.accelerator.is_available()``), answered as on a machine without any accelerator."""

from __future__ import annotations

from ._device import NO_ACCELERATOR


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator device, or None: there is none."""
    return None


def device_count() -> int:
    return 0


def _none(*args, **kwargs):
    raise RuntimeError(NO_ACCELERATOR)


current_device_index = current_device_idx = _none
set_device_index = set_device_idx = _none
synchronize = _none
