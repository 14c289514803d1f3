"""Benchmark: the indexing family and everyday ops against torch 2.13, one thread each unless
``--threads N``.

Run: ``python tests/benchmarks/bench_indexing.py [--threads 1] [--rounds 15]``.

Each op runs forward on a small (64x64) and a larger (512x512) float32 input, each library timed
in its own block by :mod:`_bench` (best and median of >= 15 rounds); printed: both times and the
ratio tensorlab/torch (informative: the kernels are numpy), withheld when the load average moved. Also the cost of the keyword layer
(``sum(x, axis=0)`` against ``sum(x, 0)``) and of a gather/scatter forward+backward.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tensorlab as tl  # noqa: E402


def best_of(fn, rounds: int, number: int) -> float:
    """Best time per call in microseconds (one block of >= 15 rounds)."""
    return _bench.measure(fn, rounds, number=number).best * 1e6


def _check(a, b, name) -> None:
    """tensorlab's result equals torch's (values, or each of a tuple's)."""
    if isinstance(a, tuple):
        for u, v in zip(a, b):
            _check(u, v, name)
        return
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5, err_msg=name)


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(parser)
    rounds = parser.parse_args().rounds
    import torch

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
    run = _bench.LoadGuard()
    for n in (64, 512):
        ours, theirs = cases(tl, n), cases(torch, n)
        number = 50 if n == 64 else 2
        print(f"\n{n}x{n} float32                   tensorlab          torch   ratio")
        for name in ours:
            _check(ours[name](), theirs[name](), name)
            _bench.compare(name, ours[name], theirs[name], rounds, number)
    x = tl.randn(8, 8)
    plain = best_of(lambda: tl.sum(x, 0), rounds, 1000)
    keyword = best_of(lambda: tl.sum(x, axis=0), rounds, 1000)
    print(f"\nkeyword layer: sum(x, axis=0) {keyword:.1f} us vs sum(x, 0) {plain:.1f} us")

    def step(lib):
        w = lib.randn(64, 64, requires_grad=True)
        i = lib.from_numpy(np.random.default_rng(1).integers(0, 64, size=(64, 16)))
        return lambda: w.gather(1, i).sum().backward()

    print("gather forward+backward 64x64:")
    _bench.compare("gather fwd+bwd", step(tl), step(torch), rounds, 20)
    _bench.summary("indexing", [], run)


if __name__ == "__main__":
    main()
