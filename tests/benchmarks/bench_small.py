"""Benchmark: the per-operation cost on small models (issue 39), tensorlab against torch 2.13.

Run: ``python tests/benchmarks/bench_small.py [--threads 1] [--rounds 15] [--case NAME]``.

Rows: tiny ops (``a + b`` on 3 elements, ``a.view(3, 1)``, basic indexing, ``Linear(16, 8)`` on
4x16), a small graph's backward (``(w * 2).sum().backward()``), a makemore MLP training step and
one step of an LSTM/GRU/RNN character model (embedding 30x32, 32->128 batch_first, B=32, T=20,
Linear, cross-entropy, Adam). Each library is timed in its own block by :mod:`_bench` (one thread
each unless ``--threads N``, set before numpy and torch load; best and median of >= 15 rounds), the
load average printed before and after; a ratio is withheld when the load moved by more than 0.5.
The training steps' first losses are checked against torch's (same weights, same batch).

Targets (issue 39): tiny ops <= 4x torch, the small backward <= 3x, makemore step <= 2x, the
recurrent steps <= 2.5x.
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

TARGETS = {"tiny": 4.0, "backward": 3.0, "makemore": 2.0, "recurrent": 2.5}


# ---------------------------------------------------------------------------- tiny ops
def case_add(lib):
    a, b = lib.tensor([1.0, 2.0, 3.0]), lib.tensor([4.0, 5.0, 6.0])
    return lambda: a + b


def case_view(lib):
    a = lib.tensor([1.0, 2.0, 3.0])
    return lambda: a.view(3, 1)


def case_index(lib):
    a = lib.arange(12.0).reshape(3, 4)
    return lambda: a[1, 1:3]


def case_linear(lib):
    lib.manual_seed(0)
    m = lib.nn.Linear(16, 8)
    x = lib.ones(4, 16)
    return lambda: m(x)


def case_backward(lib):
    w = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def step():
        (w * 2).sum().backward()

    return step


# ---------------------------------------------------------------------------- training steps
def _copy_params(model, torch, ours):
    """Give the torch ``model`` the weights of tensorlab's ``ours``."""
    model.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )


def case_makemore(lib, torch):
    """makemore part 2: embedding 27x10, block 3, 30->200 tanh, 200->27, batch 32, manual SGD."""
    rng = np.random.default_rng(0)
    params0 = [
        rng.standard_normal(s).astype(np.float32) * sc
        for s, sc in (
            ((27, 10), 1.0),
            ((30, 200), 0.2),
            ((200,), 0.01),
            ((200, 27), 0.1),
            ((27,), 0.0),
        )  # fmt: skip
    ]
    xs = rng.integers(0, 27, (32, 3))
    ys = rng.integers(0, 27, 32)
    params = [lib.tensor(p, requires_grad=True) for p in params0]
    C, W1, b1, W2, b2 = params
    X, Y = lib.tensor(xs), lib.tensor(ys)
    F = lib.nn.functional

    def step():
        emb = C[X]
        h = lib.tanh(emb.view(-1, 30) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y)
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -0.1 * p.grad
        return loss.item()

    return step


def _char_model(lib, kind):
    nn = lib.nn
    cls = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[kind]

    class CharModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(30, 32)
            self.rnn = cls(32, 128, batch_first=True)
            self.out = nn.Linear(128, 30)

        def forward(self, x):
            h = self.rnn(self.emb(x))[0]
            return self.out(h)

    return CharModel()


def _recurrent(kind):
    def case(lib, torch):
        rng = np.random.default_rng(0)
        xs = rng.integers(0, 30, (32, 20))
        ys = rng.integers(0, 30, (32, 20))
        tl.manual_seed(0)
        ours = _char_model(tl, kind)
        model = ours if lib is tl else _char_model(torch, kind)
        if lib is torch:
            _copy_params(model, torch, ours)
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        X, Y = lib.tensor(xs), lib.tensor(ys)
        F = lib.nn.functional

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(model(X).reshape(-1, 30), Y.reshape(-1))
            loss.backward()
            opt.step()
            return loss.item()

        return step

    return case


TINY = {
    "a + b (3 elements)": case_add,
    "a.view(3, 1)": case_view,
    "a[1, 1:3]": case_index,
    "Linear(16, 8) on 4x16": case_linear,
}
STEPS = {
    "(w * 2).sum().backward()": ("backward", lambda lib, torch: case_backward(lib), "us"),
    "makemore MLP step": ("makemore", case_makemore, "ms"),
    "LSTM step": ("recurrent", _recurrent("lstm"), "ms"),
    "GRU step": ("recurrent", _recurrent("gru"), "ms"),
    "RNN step": ("recurrent", _recurrent("rnn"), "ms"),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    _bench.add_arguments(ap)
    ap.add_argument("--case", default=None, help="only the rows whose name contains this")
    args = ap.parse_args(argv)
    import torch

    _bench.torch_threads(torch)
    print(_bench.banner(torch))
    run = _bench.LoadGuard()
    worst: dict[str, float] = {}
    print(f"  {'case':<30} {'tensorlab':>13} {'torch':>13} {'ratio':>7}")
    for name, make in TINY.items():
        if args.case and args.case not in name:
            continue
        r = _bench.compare(name, make(tl), make(torch), args.rounds, number=200)
        if r is not None:
            worst["tiny"] = max(worst.get("tiny", 0.0), r)
    for name, (group, make, unit) in STEPS.items():
        if args.case and args.case not in name:
            continue
        ours, theirs = make(tl, torch), make(torch, torch)
        if group != "backward":  # same weights, same batch: the same first loss
            np.testing.assert_allclose(ours(), theirs(), rtol=1e-4, err_msg=name)
        number = 50 if unit == "us" else 1
        r = _bench.compare(name, ours, theirs, args.rounds, number=number, unit=unit)
        if r is not None:
            worst[group] = max(worst.get(group, 0.0), r)
    _bench.summary("small", [], run)
    for group, r in worst.items():
        verdict = "met" if r <= TARGETS[group] else "NOT met"
        print(f"  {group:<10} worst {r:5.2f}x torch (target <= {TARGETS[group]}x): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
