"""What every benchmark here shares: thread counts, timing blocks and the load-average guard.

Rules (issue 25), so that anyone running a script gets the same answer:

* **Threads are fixed before numpy and torch load**: :func:`setup` (called by each script before
  its first ``import numpy``) reads ``--threads N`` (default 1) and sets ``OPENBLAS_NUM_THREADS``,
  ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS``; :func:`torch_threads` then calls
  ``torch.set_num_threads(N)``. Two libraries with two threads each on a 2-core machine fight for
  the cores (torch's spinning OpenMP workers lose), so the default is one thread each.
* **Each library is timed in its own block** (:func:`measure`): warm-up calls, then at least
  ``rounds`` (>= 15) timed calls; the best and the median are reported. No interleaving.
* **The load average is printed before and after**; a ratio is printed only when the 1-minute load
  changed by at most :data:`MAX_LOAD_CHANGE` over the measurement (:class:`LoadGuard`), otherwise
  the raw times and the reason.
* ``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE`` (set on some machines, they slow a current numpy's
  OpenBLAS) are unset *together* for the benchmark's own process unless ``--keep-openblas-env``;
  :func:`banner` says which OpenBLAS kernel runs. Tests and CI keep them.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from dataclasses import dataclass

#: a ratio is withheld when the 1-minute load average moved more than this during the run
MAX_LOAD_CHANGE = 0.5
#: timed calls per library and case, at least
MIN_ROUNDS = 15

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_CORE_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
_state: dict = {"threads": 1, "unset": {}, "clock": time.perf_counter}


def setup(argv: list[str] | None = None) -> int:
    """Fix the thread count (``--threads N``, default 1) in the environment; call before numpy.

    Also unsets ``OPENBLAS_CORETYPE`` and ``OPENBLAS_L2_SIZE`` together (unless
    ``--keep-openblas-env``). Returns the thread count. Raises if numpy is already loaded.
    """
    argv = sys.argv if argv is None else argv
    if "numpy" in sys.modules or "torch" in sys.modules:
        raise RuntimeError("_bench.setup() must run before numpy and torch are imported")
    n = 1
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            n = int(argv[i + 1])
        elif a.startswith("--threads="):
            n = int(a.split("=", 1)[1])
    if n < 1:
        raise SystemExit("--threads must be >= 1")
    for var in _THREAD_VARS:
        os.environ[var] = str(n)
    if "--cpu-time" in argv:  # CPU seconds of this process (all its threads), not wall time
        _state["clock"] = time.process_time
    if "--keep-openblas-env" not in argv:
        unset = {v: os.environ.pop(v) for v in _CORE_VARS if v in os.environ}
        _state["unset"] = unset
    _state["threads"] = n
    return n


def add_arguments(ap, rounds: bool = True) -> None:
    """The shared command-line options (parsed again by argparse for --help and validation)."""
    ap.add_argument(
        "--threads", type=int, default=1, help="threads for numpy's BLAS and torch (default 1)"
    )
    if rounds:
        ap.add_argument(
            "--rounds",
            type=int,
            default=MIN_ROUNDS,
            help=f"timed calls per library (>= {MIN_ROUNDS})",
        )
    ap.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with time.process_time (CPU time; steadier on a busy machine) instead of "
        "wall time",
    )
    ap.add_argument(
        "--keep-openblas-env",
        action="store_true",
        help="keep OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE as set in the environment",
    )


def torch_threads(torch) -> None:
    """Give torch the same thread count as numpy (intra-op; inter-op when still allowed)."""
    n = _state["threads"]
    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(n)
    except RuntimeError:  # already set or parallel work already started
        pass


def openblas_core() -> str:
    """The OpenBLAS kernel numpy runs (``openblas_get_corename``), or a note why unknown."""
    import ctypes

    import numpy as np  # noqa: F401  (loads OpenBLAS)

    try:
        with open("/proc/self/maps") as f:
            paths = sorted({ln.split()[-1] for ln in f if "openblas" in ln.lower()})
    except OSError:
        return "unknown"
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename"):  # fmt: skip
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return fn().decode()
    return "not OpenBLAS"


def loadavg() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def banner(torch=None) -> str:
    """One line: versions, threads, OpenBLAS kernel, cores, load, unset variables."""
    import numpy as np

    parts = [f"numpy {np.__version__} (OpenBLAS core {openblas_core()})"]
    if torch is not None:
        parts.append(f"torch {torch.__version__} ({torch.get_num_threads()} threads)")
    parts.append(f"threads {_state['threads']}")
    if _state["clock"] is time.process_time:
        parts.append("CPU time")
    parts.append(f"{os.cpu_count()} cores")
    parts.append(f"load {loadavg():.2f}")
    if _state["unset"]:
        parts.append(
            "unset for this run: " + ", ".join(f"{k}={v}" for k, v in _state["unset"].items())
        )
    return "; ".join(parts)


@dataclass
class Timing:
    best: float  # seconds
    median: float
    rounds: int

    def ms(self) -> str:
        return f"{self.best * 1e3:9.3f}"


def measure(
    fn, rounds: int = MIN_ROUNDS, warmup: int = 2, budget: float = 0.0, number: int = 1
) -> Timing:
    """One library's block: ``warmup`` untimed calls, then ``max(rounds, MIN_ROUNDS)`` timed rounds
    of ``number`` calls each (more rounds while under ``budget`` seconds, at most 10x); times are
    per call."""
    rounds = max(rounds, MIN_ROUNDS)
    clock = _state["clock"]
    for _ in range(warmup):
        fn()
    times = []
    start = time.perf_counter()
    while len(times) < rounds or (
        time.perf_counter() - start < budget and len(times) < 10 * rounds
    ):
        t0 = clock()
        for _ in range(number):
            fn()
        times.append((clock() - t0) / number)
    return Timing(min(times), statistics.median(times), len(times))


def compare(name: str, ours, theirs, rounds: int = MIN_ROUNDS, number: int = 1, unit: str = "us"):
    """Time ``ours`` then ``theirs`` (own blocks) and print one row: both times, ratio, median
    ratio (``--`` and the reason when the load moved). Returns the ratio or None."""
    scale = {"us": 1e6, "ms": 1e3}[unit]
    guard = LoadGuard()
    a = measure(ours, rounds, number=number)
    b = measure(theirs, rounds, number=number)
    guard.stop()
    r = ratio(a, b, guard)
    med = f"{a.median / b.median:.2f}" if guard.ok else "--"
    print(
        f"  {name:<30} {a.best * scale:10.2f} {unit} {b.best * scale:10.2f} {unit} {r:>7} "
        f"(median {med})"
    )
    if not guard.ok:
        print(f"    {guard.why()}")
    return a.best / b.best if guard.ok else None


class LoadGuard:
    """The 1-minute load average before and after a measurement; ``ok`` when it moved <= 0.5."""

    def __init__(self):
        self.before = self.after = loadavg()

    def stop(self) -> LoadGuard:
        self.after = loadavg()
        return self

    @property
    def change(self) -> float:
        return abs(self.after - self.before)

    @property
    def ok(self) -> bool:
        return not (self.change > MAX_LOAD_CHANGE)  # NaN (no getloadavg): trusted

    def why(self) -> str:
        return (
            f"load average moved {self.before:.2f} -> {self.after:.2f} (> {MAX_LOAD_CHANGE}): "
            "no ratio, raw times only"
        )


def ratio(ours: Timing, theirs: Timing, guard: LoadGuard) -> str:
    """``ours/theirs`` (best), or ``--`` when the guard says the load moved."""
    return f"{ours.best / theirs.best:.2f}" if guard.ok else "--"


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def summary(label: str, ratios: list[float], run: LoadGuard, target: str = "") -> None:
    """Print the run's load before/after and, when it stayed put, the geometric mean and worst."""
    run.stop()
    print(f"load average: {run.before:.2f} before, {run.after:.2f} after")
    if not ratios:
        return
    if not run.ok:
        print(f"{label}: {run.why()}")
        return
    print(
        f"{label}: geometric mean {geomean(ratios):.2f}x torch, worst {max(ratios):.2f}x"
        + (f" (target {target})" if target else "")
    )
