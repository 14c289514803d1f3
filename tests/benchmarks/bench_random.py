"""Benchmark: random numbers (PyTorch's generator, bit for bit), tensorlab against torch.

Run: ``python tests/benchmarks/bench_random.py [--threads 1] [--rounds 15] [--cpu-time]
[--case NAME]``.

Timed by :mod:`_bench` (issue 25's protocol): the thread count is set before numpy and torch
load (one each unless ``--threads N``), each library is timed in its own block per case
(warm-up, then best and median of >= 15 rounds), the load average is printed before and after
and a ratio is withheld when it moved by more than 0.5. Every case is first checked against
torch: from the same seed both libraries must give the same bits and the same generator state.
Targets (issue 23): rand/randn/randint of 10^6 elements within 5x torch's time (1 thread),
randperm(10^6) under 0.5 s.
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

N = 1_000_000
# name: (call, calls per timed round, target ratio or None)
CASES = {
    "rand(1e6)": (lambda lib: lib.rand(N), 1, 5.0),
    "randn(1e6)": (lambda lib: lib.randn(N), 1, 5.0),
    "randn(1e6, float64)": (lambda lib: lib.randn(N, dtype=lib.float64), 1, None),
    "empty(1e6).normal_(0.5, 3)": (lambda lib: lib.empty(N).normal_(0.5, 3.0), 1, None),
    "randint(0, 10, (1e6,))": (lambda lib: lib.randint(0, 10, (N,)), 1, 5.0),
    "randperm(1e6)": (lambda lib: lib.randperm(N), 1, None),
    "randn(3, 4)": (lambda lib: lib.randn(3, 4), 200, None),
    "empty(1e6).bernoulli_(0.5)": (lambda lib: lib.empty(N).bernoulli_(0.5), 1, None),
    "nn.Linear(1000, 1000)": (lambda lib: lib.nn.Linear(1000, 1000), 1, None),
}


def _arrays(x) -> list[np.ndarray]:
    if hasattr(x, "parameters"):
        return [a for p in x.parameters() for a in _arrays(p)]
    x = x.detach()
    return [np.ascontiguousarray(x._np() if hasattr(x, "_np") else x.numpy())]


def same_as_torch(tl, torch, fn) -> bool:
    """The call from seed 0 in both libraries: the same bits and generator state after."""
    tl.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = _arrays(fn(tl)), _arrays(fn(torch))
    same = len(ours) == len(theirs) and all(
        a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
        for a, b in zip(ours, theirs)
    )
    return same and tl.get_rng_state().numpy().tobytes() == torch.get_rng_state().numpy().tobytes()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    ap.add_argument("--case", action="append", help="only cases whose name contains this")
    args = ap.parse_args(argv)
    import torch

    import tensorlab as tl

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
    print(f"  {'case':<28} {'tensorlab ms':>12} {'torch ms':>10} {'ratio':>7} {'median':>7}  bits")
    run = _bench.LoadGuard()
    ratios, missed = [], []
    for name, (fn, number, target) in CASES.items():
        if args.case and not any(c in name for c in args.case):
            continue
        exact = same_as_torch(tl, torch, fn)
        tl.manual_seed(0)
        torch.manual_seed(0)
        guard = _bench.LoadGuard()
        # five warm-up calls: the first calls of a block also grow the C heap for 4-8 MB arrays
        ours = _bench.measure(lambda fn=fn: fn(tl), args.rounds, warmup=5, number=number)
        theirs = _bench.measure(lambda fn=fn: fn(torch), args.rounds, warmup=5, number=number)
        guard.stop()
        r = _bench.ratio(ours, theirs, guard)
        med = f"{ours.median / theirs.median:7.2f}" if guard.ok else "     --"
        print(
            f"  {name:<28} {ours.best * 1e3:12.3f} {theirs.best * 1e3:10.3f} {r:>7} {med}  "
            + ("exact" if exact else "DIFFER")
        )
        if not guard.ok:
            print(f"    {guard.why()}")
        elif target is not None:
            ratios.append(ours.best / theirs.best)
            if ours.best / theirs.best > target:
                missed.append(f"{name} {ours.best / theirs.best:.2f}x > {target}x")
        if name == "randperm(1e6)" and ours.best >= 0.5:
            missed.append(f"randperm(1e6) {ours.best:.2f} s >= 0.5 s")
        if not exact:
            missed.append(f"{name}: not torch's bits")
    _bench.summary("rand/randn/randint(1e6)", ratios, run, "each <= 5x; randperm(1e6) < 0.5 s")
    print("targets: " + ("all met" if not missed else "; ".join(missed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
