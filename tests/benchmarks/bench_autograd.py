"""Benchmark: what autograd costs.

Run: ``python tests/benchmarks/bench_autograd.py [--rounds 7]``.

1. The fast path: the grad-mode check every differentiable op makes (measured on a decorated
   no-op) against the time of small ops that do not require grad; view and in-place methods
   against their undecorated selves (``__wrapped__``). Target: the check costs <= 10%.
2. Recording and backward: a small conv training step (forward, ``backward()``, SGD step) and a
   larger conv backward, tensorlab against torch 2.13 (2 threads), interleaved round by round and
   timed by their best round. Printed: tensorlab/torch (informative; the backward formulas are
   plain numpy).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tensorlab as tl  # noqa: E402
import tensorlab.nn.functional as F  # noqa: E402


def best_of(fn, rounds: int, number: int) -> float:
    """Best time per call, in microseconds."""
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def fast_path(rounds: int) -> None:
    from tensorlab.autograd.graph import differentiable

    x, y = tl.randn(3, 3), tl.randn(3, 3)
    img, w = tl.randn(1, 1, 8, 8), tl.randn(1, 1, 3, 3)

    def noop(a, b):
        return a

    recorded_noop = differentiable(lambda *args, **kwargs: None)(noop)
    overhead = best_of(lambda: recorded_noop(x, y), rounds, 20000) - best_of(
        lambda: noop(x, y), rounds, 20000
    )
    print(f"autograd check on a two-tensor op that records nothing: {overhead:.2f} us per call")
    cases = [
        ("add", lambda: x + y, None),
        ("mul scalar", lambda: x * 2, None),
        ("exp", lambda: x.exp(), None),
        ("sum dim", lambda: x.sum(0), None),
        ("mm", lambda: tl.mm(x, y), None),
        ("conv2d 8x8", lambda: F.conv2d(img, w), None),
        ("view", lambda: x.view(9), lambda: tl.Tensor.view.__wrapped__(x, 9)),
        ("transpose", lambda: x.t(), lambda: tl.Tensor.t.__wrapped__(x)),
        ("add_", lambda: x.add_(0), lambda: tl.Tensor.add_.__wrapped__(x, 0)),
    ]
    print("ops on 3x3 tensors that do not require grad (microseconds per call):")
    worst = 0.0
    for name, public, raw in cases:
        t_pub = best_of(public, rounds, 2000)
        if raw is None:  # share of the check in the op's time
            share = overhead / t_pub
            print(f"  {name:12} {t_pub:8.1f}   check {100 * share:4.1f}% of it")
        else:  # view ops and in-place ops: decorated method against the method itself
            t_raw = best_of(raw, rounds, 2000)
            share = t_pub / t_raw - 1
            print(f"  {name:12} {t_pub:8.1f}   undecorated {t_raw:6.1f} ({100 * share:+5.1f}%)")
        worst = max(worst, share)
    print(f"  worst: {100 * worst:.1f}% (target <= 10%)")


def training_step(lib, images, targets, model, opt):
    opt.zero_grad()
    loss = ((model(images) - targets) ** 2).mean()
    loss.backward()
    opt.step()


def with_torch(rounds: int) -> None:
    import torch

    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    cases = []
    # the lesson's step: 16 images 12x12, Conv2d(1, 1, 3)
    for name, x_shape, w_shape in [
        ("lesson step", (16, 1, 12, 12), (1, 1, 3, 3)),
        ("conv 3->16 32x32", (8, 3, 32, 32), (16, 3, 3, 3)),
        ("conv 16->16 64x64", (4, 16, 64, 64), (16, 16, 3, 3)),
    ]:
        x0 = rng.random(x_shape, dtype=np.float32)
        y0 = rng.random((x_shape[0], w_shape[0], x_shape[2] - 2, x_shape[3] - 2), dtype=np.float32)
        w0 = rng.standard_normal(w_shape).astype(np.float32)
        setups = {}
        for lib in (tl, torch):
            model = lib.nn.Conv2d(w_shape[1], w_shape[0], 3, bias=True)
            with lib.no_grad():
                model.weight.copy_(lib.tensor(w0))
            opt = lib.optim.SGD(model.parameters(), lr=1e-3)
            setups[lib] = (lib.tensor(x0), lib.tensor(y0), model, opt)
        cases.append((name, setups))
    print("forward + backward + SGD step, tensorlab vs torch (ms per step, best round)")
    for name, setups in cases:
        best = {lib: float("inf") for lib in setups}
        for _ in range(rounds):  # interleaved: a busy machine slows both alike
            for lib, args in setups.items():
                t0 = time.perf_counter()
                for _ in range(5):
                    training_step(lib, *args)
                best[lib] = min(best[lib], (time.perf_counter() - t0) / 5 * 1e3)
        ratio = best[tl] / best[torch]
        print(
            f"  {name:18} tensorlab {best[tl]:7.2f}  torch {best[torch]:7.2f}  ratio {ratio:5.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    fast_path(args.rounds)
    try:
        import torch  # noqa: F401
    except ImportError:
        print("torch not installed: skipping the comparison")
        return
    with_torch(args.rounds)


if __name__ == "__main__":
    main()
