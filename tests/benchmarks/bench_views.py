"""Benchmark: views are O(1) metadata changes; `import tensorlab` is light.

Run: python tests/benchmarks/bench_views.py [--threads 1] [--rounds 15]
Prints, for a 100 MB float32 tensor, the time of each view op in tensorlab and torch (same run,
each library in its own block by :mod:`_bench`; ratios withheld when the load average moved),
the Python-object bytes each allocates (storage stays shared: asserted), and `import tensorlab` time in a fresh
interpreter with the heavy modules it must not import.

The window views (``unfold``, ``as_strided`` with overlapping windows, ``diagonal``) are asserted to
allocate nothing: same storage, and under ``tracemalloc`` less than ``NO_ALLOC`` bytes (a copy of
even one window row of the 100 MB tensor would be ~20 kB; a full copy is 100 MB or more).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _bench  # noqa: E402

_bench.setup()

import numpy as np  # noqa: E402

NO_ALLOC = 16_384  # bytes: Python objects only, no data buffer
WINDOW_OPS = {"unfold(1,3,1)", "unfold(0,64,32)", "as_strided win", "diagonal()", "storage[...]"}


def best_of(fn, rounds=_bench.MIN_ROUNDS, repeat=400):
    """Best time per call (one block of >= 15 rounds of ``repeat`` calls)."""
    return _bench.measure(fn, rounds, number=repeat).best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    rounds = ap.parse_args().rounds
    import tensorlab as tl

    try:
        import torch

        _bench.torch_threads(torch)
    except ImportError:
        torch = None
    print(_bench.banner(torch))
    run = _bench.LoadGuard()

    n = 25_000_000  # 100 MB of float32
    arr = np.zeros(n, dtype=np.float32)
    x = tl.from_numpy(arr).view(5000, 5000)
    tx = torch.from_numpy(arr).view(5000, 5000) if torch else None
    ops = {
        "view(-1)": lambda t: t.view(-1),
        "transpose(0,1)": lambda t: t.transpose(0, 1),
        "permute(1,0)": lambda t: t.permute(1, 0),
        "unsqueeze(0)": lambda t: t.unsqueeze(0),
        "t[::2, 1:]": lambda t: t[::2, 1:],
        "expand(3,-1,-1)": lambda t: t.unsqueeze(0).expand(3, -1, -1),
        "reshape(2500,-1)": lambda t: t.reshape(2500, -1),
        "unfold(1,3,1)": lambda t: t.unfold(1, 3, 1),
        "unfold(0,64,32)": lambda t: t.unfold(0, 64, 32),
        "as_strided win": lambda t: t.as_strided((4998, 4998, 3, 3), (5000, 1, 5000, 1)),
        "diagonal()": lambda t: t.diagonal(),
    }
    print(f"{'op':<18}{'tensorlab':>12}{'torch':>12}{'ratio':>8}{'py alloc B':>12}")
    for name, fn in ops.items():
        guard = _bench.LoadGuard()
        ours = best_of(lambda fn=fn: fn(x), rounds)
        theirs = best_of(lambda fn=fn: fn(tx), rounds) if torch else float("nan")
        ratio = f"{ours / theirs:8.1f}" if guard.stop().ok else "      --"
        tracemalloc.start()
        out = fn(x)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        same = out.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert same, name
        if name in WINDOW_OPS:
            assert peak < NO_ALLOC, f"{name} allocated {peak} bytes"
        print(f"{name:<18}{ours * 1e6:>10.2f}us{theirs * 1e6:>10.2f}us{ratio}{peak:>12d}")

    code = (
        "import sys, time; t0 = time.perf_counter(); import tensorlab; "
        "dt = time.perf_counter() - t0; "
        "heavy = [m for m in ('matplotlib', 'scipy', 'ipywidgets', 'nbclient', 'torch') "
        "if m in sys.modules]; print(f'{dt:.3f} {heavy}')"
    )
    times = []
    for _ in range(5):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        dt, heavy = out.stdout.split(" ", 1)
        times.append(float(dt))
    print(
        f"import tensorlab: best {min(times):.3f} s, median {sorted(times)[2]:.3f} s; "
        f"heavy modules imported: {heavy.strip()}"
    )
    _bench.summary("views", [], run)


if __name__ == "__main__":
    main()
