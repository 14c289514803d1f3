"""Benchmark: making tensors (from Python data, by shape, legacy constructors) and a DataLoader
epoch, tensorlab against torch (2 threads) in the same run.

Run: python tests/benchmarks/bench_creation.py
Prints the best time per call of each and the ratio tensorlab / torch.
"""

from __future__ import annotations

import time

import numpy as np


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best


def main() -> None:
    import torch

    import tensorlab as tl

    torch.set_num_threads(2)
    floats = [[float(i * j) for j in range(300)] for i in range(300)]
    ints = list(range(100_000))
    mixed = [[1, 2.5, True], [np.float32(1), 2, 3]] * 50
    arr = np.arange(1_000_000, dtype=np.float32).reshape(1000, 1000).T
    cases = {
        "tensor(90k floats, nested)": (lambda lib: lib.tensor(floats), 20),
        "tensor(100k ints)": (lambda lib: lib.tensor(ints), 20),
        "tensor(mixed 300, slow path)": (lambda lib: lib.tensor(mixed), 200),
        "tensor(numpy 1M, transposed)": (lambda lib: lib.tensor(arr), 20),
        "zeros(3)": (lambda lib: lib.zeros(3), 5000),
        "zeros(1000, 1000)": (lambda lib: lib.zeros(1000, 1000), 50),
        "Tensor(2, 3)": (lambda lib: lib.Tensor(2, 3), 5000),
        "FloatTensor([[1, 2]])": (lambda lib: lib.FloatTensor([[1, 2]]), 5000),
        "x.new_zeros(2, 3)": (lambda lib: lib.ones(1).new_zeros(2, 3), 5000),
    }

    def epoch(lib):
        ds = lib.utils.data.TensorDataset(lib.ones(1000, 1, 8, 8), lib.zeros(1000))
        for _ in lib.utils.data.DataLoader(ds, batch_size=64, shuffle=True):
            pass

    cases["DataLoader epoch (1000, bs 64)"] = (epoch, 3)
    print(f"{'case':<34}{'tensorlab':>12}{'torch':>12}{'ratio':>8}")
    for name, (fn, repeat) in cases.items():
        ours = best_of(lambda fn=fn: fn(tl), repeat)
        theirs = best_of(lambda fn=fn: fn(torch), repeat)
        print(f"{name:<34}{ours * 1e6:>10.1f}us{theirs * 1e6:>10.1f}us{ours / theirs:>8.2f}")


if __name__ == "__main__":
    main()
