"""Benchmark: the indexing family and everyday ops against torch 2.13 (2 threads), same run.

Run: ``python tests/benchmarks/bench_indexing.py [--rounds 5]``.

Each op runs forward on a small (64x64) and a larger (512x512) float32 input, tensorlab and torch
interleaved round by round and timed by their best round; printed: both times and the ratio
tensorlab/torch (informative: the kernels are numpy). Also the cost of the keyword layer
(``sum(x, axis=0)`` against ``sum(x, 0)``) and of a gather/scatter forward+backward.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tensorlab as tl  # noqa: E402


def best_of(fn, rounds: int, number: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def cases(lib, n: int):
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((n, n)).astype(np.float32))
    idx = lib.from_numpy(rng.integers(0, n, size=(n, n // 4)))
    rows = lib.from_numpy(rng.integers(0, n, size=n // 4))
    src = lib.from_numpy(rng.standard_normal((n, n // 4)).astype(np.float32))
    mask = x > 0
    return {
        "gather": lambda: x.gather(1, idx),
        "scatter_add": lambda: x.scatter_add(1, idx, src),
        "index_select": lambda: x.index_select(0, rows),
        "index_add": lambda: x.index_add(1, rows, src),
        "masked_fill": lambda: x.masked_fill(mask, 0.0),
        "masked_select": lambda: x.masked_select(mask),
        "take": lambda: lib.take(x, idx),
        "cumprod": lambda: x.cumprod(1),
        "cummax": lambda: x.cummax(1),
        "logsumexp": lambda: x.logsumexp(1),
        "sin": lambda: x.sin(),
        "erf": lambda: x.erf(),
        "triu": lambda: x.triu(),
        "roll": lambda: x.roll(3, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    import torch

    torch.set_num_threads(2)
    for n in (64, 512):
        ours, theirs = cases(tl, n), cases(torch, n)
        number = 200 if n == 64 else 5
        print(f"\n{n}x{n} float32        tensorlab      torch    ratio")
        for name in ours:
            a = best_of(ours[name], rounds, number)
            b = best_of(theirs[name], rounds, number)
            print(f"  {name:<14} {a:9.1f} us {b:9.1f} us {a / b:7.1f}x")
    x = tl.randn(8, 8)
    plain = best_of(lambda: tl.sum(x, 0), rounds, 5000)
    keyword = best_of(lambda: tl.sum(x, axis=0), rounds, 5000)
    print(f"\nkeyword layer: sum(x, axis=0) {keyword:.1f} us vs sum(x, 0) {plain:.1f} us")

    def step(lib):
        w = lib.randn(64, 64, requires_grad=True)
        i = lib.from_numpy(np.random.default_rng(1).integers(0, 64, size=(64, 16)))
        return lambda: w.gather(1, i).sum().backward()

    a, b = best_of(step(tl), rounds, 50), best_of(step(torch), rounds, 50)
    print(f"gather forward+backward 64x64: {a:.1f} us vs torch {b:.1f} us ({a / b:.1f}x)")


if __name__ == "__main__":
    main()
