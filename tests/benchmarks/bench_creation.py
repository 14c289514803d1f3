"""Benchmark: making tensors (from Python data, by shape, legacy constructors) and a DataLoader
epoch, tensorlab against torch in the same run, one thread each unless ``--threads N``.

Run: python tests/benchmarks/bench_creation.py [--threads 1] [--rounds 15]
Prints the best time per call of each (each library timed in its own block by :mod:`_bench`), the
ratio tensorlab / torch and the median ratio; ratios are withheld when the load average moved.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()

import numpy as np  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    args = ap.parse_args()
    import torch

    import tensorlab as tl

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
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
    print(f"  {'case':<30} {'tensorlab':>13} {'torch':>13} {'ratio':>7}")
    run = _bench.LoadGuard()
    ratios = []
    for name, (fn, repeat) in cases.items():
        number = max(1, repeat // 5)
        r = _bench.compare(name, lambda fn=fn: fn(tl), lambda fn=fn: fn(torch), args.rounds, number)
        if r is not None:
            ratios.append(r)
    _bench.summary("creation", ratios, run)


if __name__ == "__main__":
    main()
