"""Benchmark: convolutions against torch 2.13, one thread each unless ``--threads N``.

Run: ``python tests/benchmarks/bench_conv.py [--threads 1] [--rounds 15] [--budget 0]
[--suite conv2d --suite tconv ...] [--case NAME]``.

Suites (``--suite``, repeatable; default all):

* ``conv2d``      ``F.conv2d`` forward on 7 cases. Target: geometric mean <= 1.5x, no case > 3x.
* ``conv2d-bwd``  the input and weight gradients of the same 7 (``autograd.grad``). Target <= 2x.
* ``tconv``       ``F.conv_transpose2d`` on 4 cases (target: geometric mean <= 1.5x, none > 3x),
                  plus conv_transpose1d/3d (<= 3x) and d2l's FCN upsampler (64x64 kernel,
                  stride 32, to a 320x480 image; goal about a second at most).
* ``tconv-bwd``   the gradients of the 4 conv_transpose2d cases. Target <= 2x.
* ``fold``        ``F.unfold`` / ``F.fold`` (informative).

Every case is timed by :mod:`_bench`: each library in its own block (warm-up, then best and
median of >= 15 calls), float32, the result checked against torch first. The load average is
printed before and after each suite; ratios are withheld when it moved by more than 0.5.
``--cpu-time`` times with ``time.process_time`` (steadier than wall time on a busy machine).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tensorlab as tl  # noqa: E402
import tensorlab.nn.functional as F  # noqa: E402
from tensorlab.nn import _conv_kernels as K  # noqa: E402

# name, input shape, weight shape, keyword arguments
CONV2D = [
    ("resnet 3x3", (8, 64, 56, 56), (64, 64, 3, 3), dict(padding=1)),
    ("gray 256 3x3", (1, 1, 256, 256), (1, 1, 3, 3), {}),
    ("cifar 5x5", (32, 3, 32, 32), (16, 3, 5, 5), dict(padding=2)),
    ("depthwise 3x3", (16, 32, 28, 28), (32, 1, 3, 3), dict(groups=32, padding=1)),
    ("grouped s2", (8, 64, 32, 32), (64, 16, 3, 3), dict(groups=4, stride=2, padding=1)),
    ("dilated same", (4, 16, 64, 64), (16, 16, 3, 3), dict(dilation=2, padding="same")),
    ("1x1", (8, 128, 14, 14), (256, 128, 1, 1), {}),
]

# name, function, input shape, weight shape, keyword arguments; "main" cases make the 2-d suite
TCONV2D = [
    ("tconv resnet s2", (8, 64, 28, 28), (64, 64, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("tconv dcgan 4x4", (4, 16, 16, 16), (16, 8, 4, 4), dict(stride=2, padding=1)),
    ("tconv depthwise 4x4 s2", (16, 32, 28, 28), (32, 1, 4, 4), dict(stride=2, padding=1, groups=32)),
    ("tconv 1-channel s2", (1, 1, 128, 128), (1, 1, 3, 3), dict(stride=2, padding=1, output_padding=1)),
]  # fmt: skip
TCONV_OTHER = [
    ("tconv1d s2", "conv_transpose1d", (8, 64, 256), (64, 32, 4), dict(stride=2, padding=1)),
    ("tconv3d s2", "conv_transpose3d", (2, 16, 8, 16, 16), (16, 8, 4, 4, 4), dict(stride=2, padding=1)),
    # d2l 14.11: nn.ConvTranspose2d(21, 21, kernel_size=64, padding=16, stride=32) on (1, 21, 10, 15)
    ("fcn upsampler 64x64 s32", "conv_transpose2d", (1, 21, 10, 15), (21, 21, 64, 64), dict(stride=32, padding=16)),
]  # fmt: skip
FOLD = [
    ("unfold resnet", "unfold", (4, 64, 56, 56), dict(kernel_size=3, padding=1)),
    ("unfold small", "unfold", (1, 3, 32, 32), dict(kernel_size=5, stride=1)),
    ("fold resnet", "fold", (4, 64 * 9, 56 * 56), dict(output_size=(56, 56), kernel_size=3, padding=1)),
    ("fold small", "fold", (1, 3 * 25, 28 * 28), dict(output_size=(32, 32), kernel_size=5)),
]  # fmt: skip


def _arrays(xs, ws):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(np.float32)
    if ws is None:
        return x, None
    fan = np.prod(ws[1:]) if len(ws) > 1 else 1
    w = (rng.standard_normal(ws) / math.sqrt(fan)).astype(np.float32)
    return x, w


def _close(ours, ref, what):
    ours, ref = np.asarray(ours), np.asarray(ref)
    scale = max(1.0, float(np.abs(ref).max(initial=0)))
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4 * scale, err_msg=what)


def forward_pair(torch, fn, xs, ws, kw):
    """(tensorlab call, torch call), checked against each other."""
    x, w = _arrays(xs, ws)
    a_tl = [tl.from_numpy(x)] + ([tl.from_numpy(w)] if w is not None else [])
    a_t = [torch.from_numpy(x)] + ([torch.from_numpy(w)] if w is not None else [])
    ours = lambda: getattr(F, fn)(*a_tl, **kw)  # noqa: E731
    theirs = lambda: getattr(torch.nn.functional, fn)(*a_t, **kw)  # noqa: E731
    _close(ours().numpy(), theirs().numpy(), fn)
    return ours, theirs


def backward_pair(torch, fn, xs, ws, kw):
    """(tensorlab, torch) calls computing the input and weight gradients of one recorded call."""
    x, w = _arrays(xs, ws)
    calls, grads = [], []
    for lib in (tl, torch):
        xt = lib.tensor(x, requires_grad=True)
        wt = lib.tensor(w, requires_grad=True)
        out = getattr(lib.nn.functional, fn)(xt, wt, **kw)
        g = lib.from_numpy(
            np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
        )
        ag = lib.autograd

        def call(out=out, xt=xt, wt=wt, g=g, ag=ag):
            return ag.grad(out, (xt, wt), g, retain_graph=True)

        calls.append(call)
        grads.append([t.detach().numpy() for t in call()])
    for a, b, what in zip(grads[0], grads[1], ("grad input", "grad weight")):
        _close(a, b, f"{fn} {what}")
    return calls


def run_suite(title, rows, args, target=""):
    """rows: (name, info, make) with make() -> (ours, theirs). Prints a table and a summary."""
    import torch

    print(f"\n== {title} ==")
    head = f"{'case':<26} {'info':<10} {'torch ms':>9} {'tl ms':>9} {'tl/torch':>9} {'median':>7}"
    print(head)
    run = _bench.LoadGuard()
    ratios = []
    for name, info, make in rows:
        if args.case and not any(c in name for c in args.case):
            continue
        ours, theirs = make(torch)
        guard = _bench.LoadGuard()
        t_tl = _bench.measure(ours, args.rounds, budget=args.budget)
        t_to = _bench.measure(theirs, args.rounds, budget=args.budget)
        guard.stop()
        r = _bench.ratio(t_tl, t_to, guard)
        if guard.ok:
            ratios.append(t_tl.best / t_to.best)
        med = f"{t_tl.median / t_to.median:7.2f}" if guard.ok else "     --"
        print(f"{name:<26} {info:<10} {t_to.ms()} {t_tl.ms()} {r:>9} {med}")
        if not guard.ok:
            print(f"    {guard.why()}")
    _bench.summary(title, ratios, run, target)


def _strategy(xs, ws, kw):
    s, g = kw.get("stride", 1), kw.get("groups", 1)
    try:
        return K.choose_strategy(ws[1], ws[0] // g, ws[2:], (s, s), xs[0], g)
    except TypeError:  # an older tensorlab (before/after comparisons)
        return K.choose_strategy(ws[1], ws[0] // g, ws[2:], (s, s))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    ap.add_argument("--budget", type=float, default=0.0, help="seconds per library and case")
    ap.add_argument("--case", action="append", help="only cases whose name contains this")
    ap.add_argument("--suite", action="append", help="conv2d, conv2d-bwd, tconv, tconv-bwd, fold")
    args = ap.parse_args(argv)
    import torch

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
    suites = args.suite or ["conv2d", "conv2d-bwd", "tconv", "tconv-bwd", "fold"]

    def fwd(fn, xs, ws, kw):
        return lambda torch: forward_pair(torch, fn, xs, ws, kw)

    def bwd(fn, xs, ws, kw):
        return lambda torch: backward_pair(torch, fn, xs, ws, kw)

    if "conv2d" in suites:
        rows = [(n, _strategy(xs, ws, kw), fwd("conv2d", xs, ws, kw)) for n, xs, ws, kw in CONV2D]
        run_suite("conv2d forward", rows, args, "<= 1.5, none > 3")
    if "conv2d-bwd" in suites:
        rows = [(n, "", bwd("conv2d", xs, ws, kw)) for n, xs, ws, kw in CONV2D]
        run_suite("conv2d backward (input + weight)", rows, args, "<= 2")
    if "tconv" in suites:
        rows = [(n, "", fwd("conv_transpose2d", xs, ws, kw)) for n, xs, ws, kw in TCONV2D]
        run_suite("conv_transpose2d forward", rows, args, "<= 1.5, none > 3")
        rows = [(n, "", fwd(fn, xs, ws, kw)) for n, fn, xs, ws, kw in TCONV_OTHER]
        run_suite("conv_transpose 1d/3d, FCN", rows, args, "each <= 3; FCN ~1 s")
    if "tconv-bwd" in suites:
        rows = [(n, "", bwd("conv_transpose2d", xs, ws, kw)) for n, xs, ws, kw in TCONV2D]
        run_suite("conv_transpose2d backward (input + weight)", rows, args, "<= 2")
    if "fold" in suites:
        rows = [(n, "", fwd(fn, xs, None, kw)) for n, fn, xs, kw in FOLD]
        run_suite("unfold / fold", rows, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
