"""Benchmark: a LeNet-5 training step, pooling and Linear (forward + backward), tensorlab against
torch 2.13, one thread each unless ``--threads N``.

Run: ``python tests/benchmarks/bench_nn.py [--threads 1] [--rounds 15] [--budget 0] [--case NAME]``.

Both run on the same float32 data; each library is timed in its own block by :mod:`_bench`
(warm-up, then best and median of >= 15 calls), the load average printed before and after, and a
ratio printed only when the load moved by at most 0.5. Target (issue 25): the LeNet training step
(batch 64 of 1x28x28: forward, cross_entropy, backward, SGD momentum step) <= 2x torch. The
LeNet step's loss is checked against torch's.
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
        return loss.item()

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


def _check_lenet(torch) -> None:
    """The first step's loss and gradients agree with torch's (same weights, same batch)."""
    losses = []
    for lib in (tl, torch):
        step = case_lenet_step(lib, torch)
        losses.append(float(step()))
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    ap.add_argument("--budget", type=float, default=0.0, help="seconds per library and case")
    ap.add_argument("--case", default=None)
    args = ap.parse_args(argv)
    import torch

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
    _check_lenet(torch)
    run = _bench.LoadGuard()
    ratios = []
    print(f"{'case':24s} {'tensorlab ms':>13s} {'torch ms':>9s} {'ratio':>7s} {'median':>7s}")
    for name, make in CASES.items():
        if args.case and args.case not in name:
            continue
        ours, theirs = make(tl, torch), make(torch, torch)
        guard = _bench.LoadGuard()
        t_o = _bench.measure(ours, args.rounds, budget=args.budget)
        t_t = _bench.measure(theirs, args.rounds, budget=args.budget)
        guard.stop()
        med = f"{t_o.median / t_t.median:7.2f}" if guard.ok else "     --"
        print(
            f"{name:24s} {t_o.best * 1e3:13.2f} {t_t.best * 1e3:9.2f} "
            f"{_bench.ratio(t_o, t_t, guard):>7s} {med}"
        )
        if guard.ok:
            ratios.append(t_o.best / t_t.best)
        else:
            print(f"    {guard.why()}")
    _bench.summary("nn", ratios, run, "lenet step <= 2")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
