"""Benchmark: what autograd costs.

Run: ``python tests/benchmarks/bench_autograd.py [--threads 1] [--rounds 15]``.

1. The fast path: the grad-mode check every differentiable op makes (measured on a decorated
   no-op) against the time of small ops that do not require grad; view and in-place methods
   against their undecorated selves (``__wrapped__``). Target: the check costs <= 10%.
2. Recording and backward: a small conv training step (forward, ``backward()``, SGD step) and a
   larger conv backward, tensorlab against torch 2.13 (one thread each unless ``--threads N``),
   each library timed in its own block by :mod:`_bench` (best and median of >= 15 rounds; the
   loss after the steps checked against torch's). Printed: tensorlab/torch, withheld when the
   load average moved by more than 0.5.
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
import tensorlab.nn.functional as F  # noqa: E402


def best_of(fn, rounds: int, number: int) -> float:
    """Best time per call, in microseconds (one block of >= 15 rounds)."""
    return _bench.measure(fn, rounds, number=number).best * 1e6


def fast_path(rounds: int) -> None:
    from tensorlab.autograd.graph import differentiable

    x, y = tl.randn(3, 3), tl.randn(3, 3)
    img, w = tl.randn(1, 1, 8, 8), tl.randn(1, 1, 3, 3)

    def noop(a, b):
        return a

    recorded_noop = differentiable(lambda *args, **kwargs: None)(noop)
    overhead = best_of(lambda: recorded_noop(x, y), rounds, 5000) - best_of(
        lambda: noop(x, y), rounds, 5000
    )
    print(f"autograd check on a two-tensor op that records nothing: {overhead:.2f} us per call")
    cases = [
        ("add", lambda: x + y, None),
        ("mul scalar", lambda: x * 2, None),
        ("exp", lambda: x.exp(), None),
        ("sum dim", lambda: x.sum(0), None),
        ("mm", lambda: tl.mm(x, y), None),
        ("conv2d 8x8", lambda: F.conv2d(img, w), None),
    ]
    for name, method, call in (
        ("view", "view", lambda f: f(x, 9)),
        ("transpose", "t", lambda f: f(x)),
        ("add_", "add_", lambda f: f(x, 0)),
    ):
        raw = getattr(getattr(tl.Tensor, method), "__wrapped__", None)
        if raw is None:  # not decorated (any more): nothing to compare with
            print(f"  ({name}: Tensor.{method} has no __wrapped__, skipped)")
            continue
        cases.append(
            (name, lambda m=method, c=call: c(getattr(tl.Tensor, m)), lambda r=raw, c=call: c(r))
        )
    print("ops on 3x3 tensors that do not require grad (microseconds per call):")
    worst = 0.0
    for name, public, raw in cases:
        t_pub = best_of(public, rounds, 500)
        if raw is None:  # share of the check in the op's time
            share = overhead / t_pub
            print(f"  {name:12} {t_pub:8.1f}   check {100 * share:4.1f}% of it")
        else:  # view ops and in-place ops: decorated method against the method itself
            t_raw = best_of(raw, rounds, 500)
            share = t_pub / t_raw - 1
            print(f"  {name:12} {t_pub:8.1f}   undecorated {t_raw:6.1f} ({100 * share:+5.1f}%)")
        worst = max(worst, share)
    print(f"  worst: {100 * worst:.1f}% (target <= 10%)")


def training_step(lib, images, targets, model, opt):
    opt.zero_grad()
    loss = ((model(images) - targets) ** 2).mean()
    loss.backward()
    opt.step()
    return loss


def with_torch(rounds: int) -> None:
    import torch

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
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
                model.bias.zero_()
            opt = lib.optim.SGD(model.parameters(), lr=1e-3)
            setups[lib] = (lib.tensor(x0), lib.tensor(y0), model, opt)
        cases.append((name, setups))
    print("forward + backward + SGD step, tensorlab vs torch (per step, own blocks)")
    run = _bench.LoadGuard()
    for name, setups in cases:
        losses = [training_step(lib, *args).item() for lib, args in setups.items()]
        np.testing.assert_allclose(losses[0], losses[1], rtol=1e-4, err_msg=name)
        steps = [
            lambda lib=lib, args=args: training_step(lib, *args) for lib, args in setups.items()
        ]
        _bench.compare(name, steps[0], steps[1], rounds, unit="ms")
    _bench.summary("autograd", [], run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(parser)
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
