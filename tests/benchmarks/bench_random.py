"""Benchmark: random numbers (PyTorch's generator, bit for bit), tensorlab against torch, 1 thread.

Run: python tests/benchmarks/bench_random.py
Each library is timed in its own block (tensorlab first, before torch is imported), with one
thread set before numpy and torch load. Prints best and median time per call and the ratio of
the best times. Targets (issue 23): rand/randn/randint of 10^6 elements within 5x torch's time,
randperm(10^6) under 0.5 s.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import statistics  # noqa: E402
import time  # noqa: E402

N = 1_000_000
CASES = {
    "rand(1e6)": (lambda lib: lib.rand(N), 10),
    "randn(1e6)": (lambda lib: lib.randn(N), 10),
    "randn(1e6, float64)": (lambda lib: lib.randn(N, dtype=lib.float64), 3),
    "randint(0, 10, (1e6,))": (lambda lib: lib.randint(0, 10, (N,)), 10),
    "randperm(1e6)": (lambda lib: lib.randperm(N), 3),
    "randn(3, 4)": (lambda lib: lib.randn(3, 4), 2000),
    "empty(1e6).bernoulli_(0.5)": (lambda lib: lib.empty(N).bernoulli_(0.5), 5),
    "nn.Linear(1000, 1000)": (lambda lib: lib.nn.Linear(1000, 1000), 5),
}


def timings(fn, repeat: int, rounds: int = 5) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        times.append((time.perf_counter() - t0) / repeat)
    return min(times), statistics.median(times)


def run(lib) -> dict[str, tuple[float, float]]:
    lib.manual_seed(0)
    return {name: timings(lambda fn=fn: fn(lib), repeat) for name, (fn, repeat) in CASES.items()}


def main() -> None:
    import tensorlab as tl

    ours = run(tl)
    import torch

    torch.set_num_threads(1)
    theirs = run(torch)
    print(f"{'case':<28}{'tensorlab best/median':>24}{'torch best/median':>22}{'ratio':>8}")
    for name in CASES:
        (ob, om), (tb, tm) = ours[name], theirs[name]
        print(
            f"{name:<28}{ob * 1e3:>11.3f}/{om * 1e3:>8.3f}ms{tb * 1e3:>10.3f}/{tm * 1e3:>8.3f}ms"
            f"{ob / tb:>8.2f}"
        )


if __name__ == "__main__":
    main()
