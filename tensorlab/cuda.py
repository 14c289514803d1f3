"""``tensorlab.cuda``: what a CPU-only PyTorch build answers (no GPU, and no error until one is used).

Tutorials start with ``device = 'cuda' if torch.cuda.is_available() else 'cpu'``: here that is
always the cpu. Calls that need a GPU raise the ``AssertionError`` a CPU-only PyTorch raises.
"""

from __future__ import annotations

from ._device import NO_CUDA


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def _lazy_init():
    raise AssertionError(NO_CUDA)


def current_device() -> int:
    _lazy_init()


def get_device_name(device=None) -> str:
    _lazy_init()


def get_device_properties(device=None):
    _lazy_init()


def get_device_capability(device=None):
    _lazy_init()


def set_device(device) -> None:
    _lazy_init()


def synchronize(device=None) -> None:
    _lazy_init()


def init() -> None:
    _lazy_init()


def manual_seed(seed: int) -> None:
    """Seeding the GPUs is silently skipped when there are none (as in PyTorch)."""


def manual_seed_all(seed: int) -> None:
    """Seeding the GPUs is silently skipped when there are none (as in PyTorch)."""


def empty_cache() -> None:
    """Nothing to free without a GPU (as in PyTorch)."""


def memory_allocated(device=None) -> int:
    return 0
