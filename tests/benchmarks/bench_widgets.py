"""Redraw time per control change for each explorer (Agg, no browser).

    MPLBACKEND=Agg python tests/benchmarks/bench_widgets.py [--quick]

For every control of every explorer, the control is moved through its values and each change is
timed from ``control.value = v`` until the new picture exists:

- ``png``: what a notebook with the inline backend gets: model + artist updates + Agg draw +
  PNG encoding into the ``ipywidgets.Image`` (the default display path);
- ``agg``: the same without PNG encoding (model + artists + ``canvas.draw()``), the floor for an
  ipympl canvas;
- ``savefig``: for comparison, re-displaying the figure the way the inline backend does
  (``fig.savefig(png, bbox_inches="tight")``), e.g. with ``Output.clear_output`` + ``display``.

The first pass over each control runs on cold caches (glyph bitmaps are rendered on first use), so
"worst" includes that. Target on this machine: median < 50 ms, worst < 200 ms.
"""

from __future__ import annotations

import io
import os
import statistics
import sys
import time

os.environ.setdefault("MPLBACKEND", "Agg")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from tensorlab.widgets import AxesExplorer, ConvExplorer, GroupsExplorer, MemoryExplorer  # noqa: E402

QUICK = "--quick" in sys.argv


def values_of(control, name):
    if hasattr(control, "options"):
        vals = [o[1] if isinstance(o, tuple) else o for o in control.options]
    else:
        hi = control.max if not QUICK else min(control.max, control.min + 6)
        vals = list(range(control.min, hi + 1))
        if name in ("in_channels", "out_channels", "groups") and len(vals) > 24:
            vals = vals[:16] + vals[16::8] + [control.max]
    return vals


def text_values(name):
    return {
        "kernel_text": ["1 2 1; 2 4 2; 1 2 1", "-1 0 1; -2 0 2; -1 0 1", "0 1 0; 1 -4 1; 0 1 0"],
        "shape": ["16, 16", "1, 16, 16", "1, 1, 16, 16", "2, 3, 4"],
        "chain": [".T", ".T\n.contiguous()\n.view(-1)", "[1:, ::2]", ".T\n.view(-1)"],
        "value": [1, 2, 3],
    }.get(name)


NO_REDRAW = {"pick", "value"}  # choose what a button will do; they redraw nothing themselves


def plan(explorer):
    """(name, control, values) for every control, values cycling away from and back to the start."""
    out = []
    for name, control in explorer.controls().items():
        if name in NO_REDRAW:
            continue
        vals = text_values(name) or values_of(control, name)
        out.append((name, control, vals))
    return out


CPU: list[float] = []  # process CPU ms of every PNG-path change (load-independent)


def run(explorer, mode):
    """Time each change (wall clock); returns {control: [ms, ...]}."""
    view = explorer.view
    render_png = view.render

    def render_agg():
        explorer.figure.canvas.draw()

    view.render = render_png if mode == "png" else render_agg
    times = {}
    for name, control, vals in plan(explorer):
        start = control.value
        ms = []
        for v in [*vals, start]:
            if v == control.value:
                continue
            c0, t0 = time.process_time(), time.perf_counter()
            control.value = v
            ms.append((time.perf_counter() - t0) * 1000)
            if mode == "png":
                CPU.append((time.process_time() - c0) * 1000)
        times[name] = ms
    view.render = render_png
    return times


def actions(explorer):
    """Button actions, timed like control changes."""
    ms = []

    def timed(fn):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1000)

    if isinstance(explorer, MemoryExplorer):
        for op in (".view(-1)", ".contiguous()", "[tensor([0, 2])]"):
            timed(lambda op=op: explorer.append_op(op))
            timed(explorer.write_value)
            timed(explorer.remove_last_op)
        timed(explorer.clear_writes)
    if isinstance(explorer, AxesExplorer):
        for _ in range(3):
            timed(explorer.apply_result)
        timed(explorer.reset_shape)
    return ms


def savefig_ms(explorer, n=5):
    ms = []
    for _ in range(n):
        t0 = time.perf_counter()
        explorer.figure.savefig(io.BytesIO(), format="png", bbox_inches="tight")
        ms.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ms)


def fmt(ms):
    return f"{statistics.median(ms):7.1f} {max(ms):7.1f}" if ms else "      -       -"


def main():
    explorers = [ConvExplorer, GroupsExplorer, AxesExplorer, MemoryExplorer]
    print(
        f"{'explorer':15s} {'control':13s} {'n':>4s}  {'png median/worst ms':>19s}  {'agg median/worst ms':>19s}"
    )
    summary = []
    for cls in explorers:
        e = cls()
        cold = run(e, "png")  # first pass: cold glyph caches, PNG path
        warm_png = run(e, "png")
        agg = run(e, "agg")
        all_png, all_agg = [], []
        for name in cold:
            png = cold[name] + warm_png[name]
            all_png += png
            all_agg += agg[name]
            print(f"{cls.__name__:15s} {name:13s} {len(png):4d}  {fmt(png)}      {fmt(agg[name])}")
        buttons = actions(e)
        if buttons:
            all_png += buttons
            print(f"{cls.__name__:15s} {'buttons':13s} {len(buttons):4d}  {fmt(buttons)}")
        errors = e.last_error
        summary.append((cls.__name__, all_png, all_agg, savefig_ms(e), errors))
    print()
    print(
        f"{'explorer':15s} {'changes':>7s}  {'png median/worst':>16s}  {'agg median/worst':>16s}  {'savefig (inline re-display) ms':>30s}"
    )
    ok = True
    for name, png, agg, sf, _ in summary:
        print(f"{name:15s} {len(png):7d}  {fmt(png)}  {fmt(agg)}  {sf:30.1f}")
        ok &= statistics.median(png) < 50 and max(png) < 200
    print()
    print("target (median < 50 ms, worst < 200 ms, PNG path):", "met" if ok else "NOT met")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"CPU time per change (PNG path, all explorers): median {statistics.median(CPU):.1f} ms, "
        f"worst {max(CPU):.1f} ms; load average {load:.1f} on {os.cpu_count()} CPUs "
        "(wall times above grow with other processes' load; CPU time does not)"
    )


if __name__ == "__main__":
    main()
