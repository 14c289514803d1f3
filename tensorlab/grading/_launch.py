"""Start an IPython kernel under resource limits (used by the batch grader's kernelspec).

``python -m tensorlab.grading._launch MEMORY_BYTES -f CONNECTION_FILE``: caps the address space
(RLIMIT_AS, soft and hard, so the notebook cannot raise it again), disables core dumps and caps
the size of files the notebook may write, then runs ipykernel.
"""

from __future__ import annotations

import resource
import sys

MAX_FILE_BYTES = 256 * 2**20


def _limit(which: int, value: int) -> None:
    try:
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass


def _warm_up() -> None:
    """Import what every grading notebook needs while the kernel is idle (trusted code only)."""
    import importlib

    for name in ("numpy", "tensorlab", "tensorlab.grading._harness", "tensorlab.nn.functional"):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a missing optional module only costs time later
            pass


def main() -> None:
    memory = int(sys.argv.pop(1))
    if memory > 0:
        _limit(resource.RLIMIT_AS, memory)
    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_FSIZE, MAX_FILE_BYTES)
    _warm_up()
    from ipykernel.kernelapp import launch_new_instance

    launch_new_instance()


if __name__ == "__main__":
    main()
