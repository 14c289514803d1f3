"""Benchmark: a LeNet-5 training step, pooling and Linear (forward + backward), tensorlab against
torch 2.13 (2 threads) in the same run.

Run: ``python tests/benchmarks/bench_nn.py [--rounds 10] [--budget 3] [--case NAME]
[--blas-threads N]``.

Both run on the same float32 data, interleaved round by round (a busy machine slows them alike),
for at least ``--rounds`` rounds and ``--budget`` seconds per case; each is timed by its best
round. Printed: milliseconds and the ratio tensorlab/torch. Target (issue 12): the LeNet training
step (batch 64 of 1x28x28: forward, cross_entropy, backward, SGD momentum step) <= 3x torch.

``--blas-threads N`` sets ``OPENBLAS_NUM_THREADS`` for numpy (torch keeps its 2 threads). On a
machine whose cores are all busy (load average above the core count, printed first), OpenBLAS's
worker threads wait for a core on every small matrix product and numpy's matmuls become many
times slower than their arithmetic; ``--blas-threads 1`` shows the cost of the arithmetic.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

if "--blas-threads" in sys.argv:  # must be set before numpy loads OpenBLAS
    os.environ["OPENBLAS_NUM_THREADS"] = sys.argv[sys.argv.index("--blas-threads") + 1]

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "nn"))

import tensorlab as tl  # noqa: E402


def _lenet(nn):
    from test_lenet import lenet

    return lenet(nn)


def case_lenet_step(lib, torch):
    """One SGD-momentum training step of LeNet-5 on a batch of 64 (same weights in both)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    tl.manual_seed(0)
    model = _lenet(lib.nn)
    if lib is torch:
        ours = _lenet(tl.nn)
        model.load_state_dict(
            {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
        )
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    xt, yt = lib.from_numpy(x), lib.from_numpy(y)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(xt), yt)
        loss.backward()
        opt.step()

    return step


def _fwd_bwd(lib, fn, *shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    def run():
        ts = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *ts)
        out.sum().backward()

    return run


def case_maxpool(lib, torch):
    return _fwd_bwd(lib, lambda L, x: L.nn.functional.max_pool2d(x, 2), (64, 16, 28, 28))


def case_maxpool_3s2(lib, torch):
    return _fwd_bwd(lib, lambda L, x: L.nn.functional.max_pool2d(x, 3, 2, 1), (32, 32, 32, 32))


def case_avgpool(lib, torch):
    return _fwd_bwd(lib, lambda L, x: L.nn.functional.avg_pool2d(x, 2), (64, 16, 28, 28))


def case_adaptive_avg(lib, torch):
    return _fwd_bwd(lib, lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 7), (16, 64, 14, 14))


def case_linear(lib, torch):
    return _fwd_bwd(
        lib,
        lambda L, x, w, b: L.nn.functional.linear(x, w, b),
        (64, 256),
        (120, 256),
        (120,),
    )


def case_linear_big(lib, torch):
    return _fwd_bwd(
        lib,
        lambda L, x, w, b: L.nn.functional.linear(x, w, b),
        (256, 1024),
        (512, 1024),
        (512,),
    )


CASES = {
    "lenet step": case_lenet_step,
    "max_pool2d 2x2": case_maxpool,
    "max_pool2d 3 s2 p1": case_maxpool_3s2,
    "avg_pool2d 2x2": case_avgpool,
    "adaptive_avg 7": case_adaptive_avg,
    "linear 64x256->120": case_linear,
    "linear 256x1024->512": case_linear_big,
}


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--budget", type=float, default=3.0)
    ap.add_argument("--case", default=None)
    ap.add_argument("--blas-threads", default=None, help="OPENBLAS_NUM_THREADS for numpy")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"cores: {os.cpu_count()}, load average: {load:.1f}, numpy BLAS threads: "
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'default')}, torch threads: 2"
    )
    ratios = []
    print(f"{'case':24s} {'tensorlab ms':>13s} {'torch ms':>9s} {'ratio':>7s}")
    for name, make in CASES.items():
        if args.case and args.case not in name:
            continue
        ours, theirs = make(tl, torch), make(torch, torch)
        ours(), theirs()  # warm up
        best_o = best_t = math.inf
        start, rounds = time.perf_counter(), 0
        while rounds < args.rounds or time.perf_counter() - start < args.budget:
            best_o = min(best_o, _time(ours))
            best_t = min(best_t, _time(theirs))
            rounds += 1
            if time.perf_counter() - start > 10 * args.budget:
                break
        ratio = best_o / best_t
        ratios.append(ratio)
        print(f"{name:24s} {best_o * 1e3:13.2f} {best_t * 1e3:9.2f} {ratio:7.2f}")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"geometric mean ratio: {geo:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
