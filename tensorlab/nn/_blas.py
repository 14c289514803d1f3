"""Small matrix products on one BLAS thread.

OpenBLAS (numpy's BLAS) splits even a (64 x 256) @ (256 x 120) product across all its threads.
When the cores are busy (a notebook server, a grading pool, a shared machine) each split waits
for its threads to be scheduled, and such a product takes milliseconds instead of a tenth of one.
``matmul`` runs products below :data:`SMALL` multiply-adds on one thread (the arithmetic is the
same), and bigger ones too while the machine has no idle core (its load average is within half a
core of the core count: an LSTM's 32 x 256 x 1024 product took 51 ms on all threads against
2.2 ms on one under load); only a big product on an idle machine gets OpenBLAS's threads.
Without a reachable OpenBLAS (another BLAS, another platform) it is plain ``a @ b``.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

SMALL = 1 << 23  # multiply-adds: below this, one thread is faster than waking others

_NAMES = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)
_state: dict = {}


def _probe():
    """OpenBLAS's (set, get) thread-count functions from the library numpy loaded, or None."""
    if "fns" in _state:
        return _state["fns"]
    fns = None
    try:
        with open("/proc/self/maps") as f:
            paths = sorted({line.split()[-1] for line in f if "openblas" in line.lower()})
        for path in paths:
            lib = ctypes.CDLL(path)
            for set_name, get_name in _NAMES:
                if hasattr(lib, set_name) and hasattr(lib, get_name):
                    setter, getter = getattr(lib, set_name), getattr(lib, get_name)
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    fns = (setter, getter)
                    break
            if fns:
                break
    except (OSError, AttributeError, IndexError):
        fns = None
    _state["fns"] = fns
    return fns


def one_thread(work: int, load: float | None, cores: int) -> bool:
    """Whether a product of ``work`` multiply-adds runs on one thread: a small one always, a
    big one while no core is idle (``load``: the 1-minute load average, None if unknown)."""
    if work < SMALL:
        return True
    return load is not None and load > cores - 0.5


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average here (Windows)
        return None


def _cores() -> int:
    if "cores" not in _state:
        try:
            _state["cores"] = len(os.sched_getaffinity(0))
        except AttributeError:
            _state["cores"] = os.cpu_count() or 1
    return _state["cores"]


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-d arrays, on one BLAS thread unless the product is big and a core idle."""
    work = a.shape[0] * a.shape[1] * b.shape[-1]
    if a.dtype.kind != "f" or (work >= SMALL and not one_thread(work, _load(), _cores())):
        return a @ b
    fns = _probe()
    if fns is None:
        return a @ b
    setter, getter = fns
    threads = getter()
    if threads <= 1:
        return a @ b
    setter(1)
    try:
        return a @ b
    finally:
        setter(threads)
