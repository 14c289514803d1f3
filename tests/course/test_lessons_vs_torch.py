"""Lessons 14-18 and 21 run unchanged on real torch 2.13.0 and print what tensorlab printed.

Each code cell is run with ``import torch`` in place of ``import tensorlab as torch`` (explorer
and figure cells are skipped: nbval does not compare them, and no later cell needs them); every
cell nbval compares must print exactly the saved text, module name aside. That includes the cells
whose numbers come from the random generator (lesson 16's initial weights, its training losses):
tensorlab's generator is PyTorch's, so the same seed prints the same digits.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LESSONS = [
    "14_convolution_as_strided_view",
    "15_transposed_conv_and_pooling",
    "16_tiny_cnn",
    "17_why_convolution",
    "18_upsampling_and_checkerboards",
    "21_subpixel_invariance_kernels_backward",
]
# (lesson, the start of the cell): cells that must run but are not compared (none: random
# numbers are PyTorch's)
RANDOM: set[tuple[str, str]] = set()
SWAP = [
    ("import tensorlab as torch", "import torch"),
    ("import tensorlab.nn.functional as F", "import torch.nn.functional as F"),
    ("from tensorlab import nn", "from torch import nn"),
    ("%matplotlib inline", ""),
]


def cells(stem: str, path: Path | None = None):
    nb = json.loads((path or ROOT / "lessons" / f"{stem}.ipynb").read_text())
    for c in nb["cells"]:
        if c["cell_type"] == "code":
            src = "".join(c["source"])
            saved = "".join(
                "".join(o.get("text", "")) for o in c["outputs"] if o["output_type"] == "stream"
            )
            yield src, saved


@pytest.mark.parametrize("stem", LESSONS)
def test_lesson_prints_what_torch_prints(torch, stem):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only add overhead on a shared machine
    try:
        compared = run_lesson(stem)
    finally:
        torch.set_num_threads(threads)
    assert compared >= 5


def run_lesson(stem: str, path: Path | None = None) -> int:
    """Run the lesson's code cells under real torch; compare with the outputs saved in ``path``
    (the lesson itself by default). Returns the number of cells compared."""
    ns: dict = {}
    compared = 0
    for src, saved in cells(stem, path):
        if re.search(r"Explorer\b|explorer\.|plt\.subplots", src):
            continue
        code = src
        for a, b in SWAP:
            code = code.replace(a, b)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"<{stem}>", "exec"), ns)  # noqa: S102 - our own lesson
        if src.startswith("# NBVAL_IGNORE_OUTPUT") or any(
            s == stem and src.startswith(start) for s, start in RANDOM
        ):
            continue
        got = out.getvalue().replace("torch.", "tensorlab.")
        assert got == saved, f"{stem}: torch prints\n{got}\nthe lesson saved\n{saved}\nfor\n{src}"
        compared += 1
    return compared
