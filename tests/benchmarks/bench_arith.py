"""Redraw time per control change of ``ArithExplorer`` (Agg, no browser), measured like the
other explorers in ``bench_widgets.py`` (whose helpers it reuses).

    MPLBACKEND=Agg python tests/benchmarks/bench_arith.py [--quick]

Target on this machine: median < 50 ms, worst < 150 ms on the PNG path (issue 15's goal).
"""

from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.dirname(__file__))
import _bench  # noqa: E402

_bench.setup()  # --threads N (default 1) for numpy, before it loads

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

import bench_widgets as bw  # noqa: E402

from tensorlab.widgets import ArithExplorer  # noqa: E402


def main():
    print(_bench.banner())
    load = _bench.LoadGuard()
    e = ArithExplorer()
    cold = bw.run(e, "png")
    warm = bw.run(e, "png")
    agg = bw.run(e, "agg")
    print(f"{'control':15s} {'n':>4s}  {'png median/worst ms':>19s}  {'agg median/worst ms':>19s}")
    all_png = []
    for name in cold:
        png = cold[name] + warm[name]
        all_png += png
        print(f"{name:15s} {len(png):4d}  {bw.fmt(png)}      {bw.fmt(agg[name])}")
    med, worst = statistics.median(all_png), max(all_png)
    print(
        f"\nArithExplorer: {len(all_png)} changes, PNG path median {med:.1f} ms, worst {worst:.1f} ms"
    )
    print(
        "target (median < 50 ms, worst < 150 ms):", "met" if med < 50 and worst < 150 else "NOT met"
    )
    print(f"load average {load.stop().before:.2f} before, {load.after:.2f} after")


if __name__ == "__main__":
    main()
