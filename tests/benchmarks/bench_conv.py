"""Benchmark: tensorlab conv2d forward against torch 2.13 (2 threads) and a plain numpy im2col;
then conv_transpose2d, F.unfold and F.fold against torch.

Run: ``python tests/benchmarks/bench_conv.py [--rounds 15] [--budget 4] [--case NAME]``.

All three implementations run on the same float32 arrays, interleaved round by round (so that a
busy machine slows them alike) for at least ``--rounds`` rounds and ``--budget`` seconds per case;
each is timed by its best round (the median ratio is printed too). Printed ratios are
tensorlab/torch and tensorlab/numpy-im2col (below 1: tensorlab is faster), with their geometric
means. Target: geometric mean tensorlab/torch <= 2.0, no case above 4. The second table times
``conv_transpose2d``, ``F.unfold`` and ``F.fold`` (a ResNet-sized and a small case each) against
torch the same way; target: each at most 2.5x torch.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tensorlab as tl  # noqa: E402
import tensorlab.nn.functional as F  # noqa: E402
from tensorlab.nn import _conv_kernels as K  # noqa: E402

# name, input shape, weight shape, conv2d keyword arguments
CASES = [
    ("resnet 3x3", (8, 64, 56, 56), (64, 64, 3, 3), dict(padding=1)),
    ("gray 256 3x3", (1, 1, 256, 256), (1, 1, 3, 3), {}),
    ("cifar 5x5", (32, 3, 32, 32), (16, 3, 5, 5), dict(padding=2)),
    ("depthwise 3x3", (16, 32, 28, 28), (32, 1, 3, 3), dict(groups=32, padding=1)),
    ("grouped s2", (8, 64, 32, 32), (64, 16, 3, 3), dict(groups=4, stride=2, padding=1)),
    ("dilated same", (4, 16, 64, 64), (16, 16, 3, 3), dict(dilation=2, padding="same")),
    ("1x1", (8, 128, 14, 14), (256, 128, 1, 1), {}),
]


# name, function name, input shape, second-argument shape (weight) or None, keyword arguments
OTHER_CASES = [
    (
        "tconv resnet s2",
        "conv_transpose2d",
        (8, 64, 28, 28),
        (64, 64, 3, 3),
        dict(stride=2, padding=1, output_padding=1),
    ),
    (
        "tconv dcgan 4x4",
        "conv_transpose2d",
        (4, 16, 16, 16),
        (16, 8, 4, 4),
        dict(stride=2, padding=1),
    ),
    ("unfold resnet", "unfold", (4, 64, 56, 56), None, dict(kernel_size=3, padding=1)),
    ("unfold small", "unfold", (1, 3, 32, 32), None, dict(kernel_size=5, stride=1)),
    (
        "fold resnet",
        "fold",
        (4, 64 * 9, 56 * 56),
        None,
        dict(output_size=(56, 56), kernel_size=3, padding=1),
    ),
    ("fold small", "fold", (1, 3 * 25, 28 * 28), None, dict(output_size=(32, 32), kernel_size=5)),
]


def numpy_im2col(x: np.ndarray, w: np.ndarray, stride=1, padding=0, dilation=1, groups=1):
    """The plain numpy way: np.pad, sliding_window_view, one reshape + matmul per group."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    s, d = stride, dilation
    if padding == "same":
        tot = d * (kh - 1)
        ph0, ph1 = tot // 2, tot - tot // 2
        tot = d * (kw - 1)
        pw0, pw1 = tot // 2, tot - tot // 2
    else:
        ph0 = ph1 = pw0 = pw1 = padding
    xp = np.pad(x, ((0, 0), (0, 0), (ph0, ph1), (pw0, pw1)))
    win = np.lib.stride_tricks.sliding_window_view(
        xp, (d * (kh - 1) + 1, d * (kw - 1) + 1), axis=(2, 3)
    )
    win = win[:, :, ::s, ::s, ::d, ::d]  # (N, C, Ho, Wo, kh, kw)
    ho, wo = win.shape[2:4]
    og = o // groups
    outs = []
    for g in range(groups):
        cols = (
            win[:, g * cg : (g + 1) * cg]
            .transpose(0, 2, 3, 1, 4, 5)
            .reshape(n * ho * wo, cg * kh * kw)
        )
        res = cols @ w[g * og : (g + 1) * og].reshape(og, -1).T  # (N*Ho*Wo, og)
        outs.append(res.reshape(n, ho, wo, og).transpose(0, 3, 1, 2))
    return np.concatenate(outs, axis=1)


def bench_case(torch, name, xs, ws, kw, rounds, budget):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    w = (rng.standard_normal(ws) / math.sqrt(np.prod(ws[1:]))).astype(np.float32)
    xt, wt = tl.from_numpy(x), tl.from_numpy(w)
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    np_kw = dict(
        stride=kw.get("stride", 1),
        padding=kw.get("padding", 0),
        dilation=kw.get("dilation", 1),
        groups=kw.get("groups", 1),
    )
    fns = {
        "tensorlab": lambda: F.conv2d(xt, wt, **kw),
        "torch": lambda: torch.nn.functional.conv2d(tx, tw, **kw),
        "numpy": lambda: numpy_im2col(x, w, **np_kw),
    }
    ref = fns["torch"]().numpy()
    np.testing.assert_allclose(fns["tensorlab"]()._np(), ref, rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(fns["numpy"](), ref, rtol=1e-3, atol=1e-3)
    times = {k: [] for k in fns}
    start = time.perf_counter()
    done = 0
    # at least `rounds` rounds, and more while under the time budget (a busy machine needs more
    # rounds before each implementation gets an undisturbed one)
    while done < rounds or (time.perf_counter() - start < budget and done < 20 * rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
        done += 1
    best = {k: min(v) for k, v in times.items()}
    med = {k: statistics.median(v) for k, v in times.items()}
    s, g = kw.get("stride", 1), kw.get("groups", 1)
    strategy = K.choose_strategy(ws[1], ws[0] // g, ws[2:], (s, s))
    return best, med, strategy


def bench_other(torch, fn, xs, ws, kw, rounds, budget):
    """Best (and median) times of tensorlab and torch for one call of ``F.<fn>``, interleaved."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    args_tl, args_t = [tl.from_numpy(x)], [torch.from_numpy(x)]
    if ws is not None:
        w = (rng.standard_normal(ws) / math.sqrt(np.prod(ws[1:]))).astype(np.float32)
        args_tl.append(tl.from_numpy(w))
        args_t.append(torch.from_numpy(w))
    fns = {
        "tensorlab": lambda: getattr(F, fn)(*args_tl, **kw),
        "torch": lambda: getattr(torch.nn.functional, fn)(*args_t, **kw),
    }
    np.testing.assert_allclose(
        fns["tensorlab"]()._np(), fns["torch"]().numpy(), rtol=1e-3, atol=1e-3
    )
    times = {k: [] for k in fns}
    start = time.perf_counter()
    done = 0
    while done < rounds or (time.perf_counter() - start < budget and done < 20 * rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
        done += 1
    return {k: min(v) for k, v in times.items()}, {
        k: statistics.median(v) for k, v in times.items()
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15, help="minimum rounds per case")
    ap.add_argument("--budget", type=float, default=4.0, help="seconds per case (more rounds)")
    ap.add_argument("--case", action="append", help="only cases whose name contains this")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    print(
        f"torch {torch.__version__} ({torch.get_num_threads()} threads), numpy {np.__version__}, best of >= {args.rounds} rounds and {args.budget:g} s per case"
    )
    head = f"{'case':<15} {'strategy':<10} {'torch ms':>9} {'tl ms':>9} {'numpy ms':>9} {'tl/torch':>9} {'tl/numpy':>9} {'(median tl/torch)':>18}"
    print(head)
    print("-" * len(head))
    r_torch, r_numpy = [], []
    for name, xs, ws, kw in CASES:
        if args.case and not any(c in name for c in args.case):
            continue
        best, med, strategy = bench_case(torch, name, xs, ws, kw, args.rounds, args.budget)
        a, b = best["tensorlab"] / best["torch"], best["tensorlab"] / best["numpy"]
        r_torch.append(a)
        r_numpy.append(b)
        print(
            f"{name:<15} {strategy:<10} {best['torch'] * 1e3:9.3f} {best['tensorlab'] * 1e3:9.3f} "
            f"{best['numpy'] * 1e3:9.3f} {a:9.2f} {b:9.2f} {med['tensorlab'] / med['torch']:18.2f}"
        )
    gm = lambda v: math.exp(sum(map(math.log, v)) / len(v))  # noqa: E731
    print("-" * len(head))
    if r_torch:
        print(
            f"geometric mean tensorlab/torch = {gm(r_torch):.2f} (worst {max(r_torch):.2f}); tensorlab/numpy-im2col = {gm(r_numpy):.2f}"
        )
    print()
    head = f"{'case':<17} {'torch ms':>9} {'tl ms':>9} {'tl/torch':>9} {'(median)':>9}"
    print(head)
    print("-" * len(head))
    worst = 0.0
    for name, fn, xs, ws, kw in OTHER_CASES:
        if args.case and not any(c in name for c in args.case):
            continue
        best, med = bench_other(torch, fn, xs, ws, kw, args.rounds, args.budget)
        a = best["tensorlab"] / best["torch"]
        worst = max(worst, a)
        print(
            f"{name:<17} {best['torch'] * 1e3:9.3f} {best['tensorlab'] * 1e3:9.3f} {a:9.2f} "
            f"{med['tensorlab'] / med['torch']:9.2f}"
        )
    print("-" * len(head))
    print(f"worst tensorlab/torch = {worst:.2f} (target <= 2.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
