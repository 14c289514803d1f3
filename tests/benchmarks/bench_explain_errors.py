"""What ``%load_ext tensorlab`` costs a cell that raises nothing, and what explaining an error costs.

    python tests/benchmarks/bench_explain_errors.py [--quick]

The extension registers an IPython custom exception handler: it runs only when a cell raises, so
a cell without an error should cost the same with and without it (target: < 1 ms more; the
difference printed is the median over alternating runs, noise included).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()  # --threads N (default 1) for numpy and torch, before they load


def main(quick: bool = False) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    print(_bench.banner())
    run = _bench.LoadGuard()

    ip = InteractiveShell.instance()
    ip.run_cell("import torch", store_history=False)
    reps, rounds = (50, 3) if quick else (200, 8)

    def timed(code: str) -> float:
        t0 = time.perf_counter()
        for _ in range(reps):
            ip.run_cell(code, store_history=False)
        return (time.perf_counter() - t0) / reps

    cell = "y = torch.ones(3) + 1"
    off, on = [], []
    for k in range(rounds):
        if k:
            ip.run_cell("%unload_ext tensorlab", store_history=False)
        off.append(timed(cell))
        ip.run_cell("%load_ext tensorlab", store_history=False)
        on.append(timed(cell))
    a, b = statistics.median(off), statistics.median(on)
    print(f"cell without error: {a * 1e6:.0f} us plain, {b * 1e6:.0f} us with %load_ext tensorlab")
    print(f"difference: {(b - a) * 1e6:+.0f} us (target < 1000 us)")

    import tensorlab

    x = __import__("torch").arange(10).view(2, 5).T
    t0 = time.perf_counter()
    n = 20 if quick else 100
    for _ in range(n):
        try:
            x.view(-1)
        except RuntimeError as e:
            tensorlab.explain.explain_error(e)
    print(f"explaining a view error: {(time.perf_counter() - t0) / n * 1e3:.2f} ms")
    _bench.summary("explain", [], run)


if __name__ == "__main__":
    main("--quick" in sys.argv)
