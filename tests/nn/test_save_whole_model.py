"""A whole model saved with ``tensorlab.save(model)`` loads in real torch as torch modules, and a
whole torch model loads in tensorlab as tensorlab modules (issue 38): the pickled class names
are mapped both ways, and the module state carries what torch's ``Module.__setstate__`` needs.

The torch side runs in a subprocess where ``import tensorlab`` is impossible, so nothing of
tensorlab can stand in for torch's classes."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.serialization import _mirrors_torch


def _public_module_classes():
    out = []
    for name, obj in sorted(vars(tl.nn).items()):
        if inspect.isclass(obj) and issubclass(obj, tl.nn.Module) and not name.startswith("_"):
            out.append(obj)
    return out


def test_every_public_module_class_is_saved_under_a_name_torch_has(torch):
    missing = []
    for cls in _public_module_classes():
        assert _mirrors_torch(cls.__module__), cls
        path = "torch" + cls.__module__[len("tensorlab") :]
        try:
            getattr(importlib.import_module(path), cls.__qualname__)
        except (ImportError, AttributeError):
            missing.append(f"{path}.{cls.__qualname__}")
    assert not missing, missing


def _models(lib):
    nn = lib.nn
    return {
        "cnn": (
            nn.Sequential(
                nn.Conv2d(1, 3, 3, padding=1, padding_mode="reflect"),
                nn.BatchNorm2d(3),
                nn.ReLU(),
                nn.MaxPool2d(2),
                nn.Flatten(),
                nn.Dropout(0.5),
                nn.Linear(12, 2),
            ),
            (2, 1, 4, 4),
        ),
        "grouped": (nn.Sequential(nn.Conv2d(4, 4, 3, groups=2), nn.Tanh()), (1, 4, 5, 5)),
        "transposed": (nn.ConvTranspose2d(2, 1, 3, stride=2, output_padding=1), (1, 2, 3, 3)),
        "lstm": (nn.LSTM(3, 4, num_layers=2, batch_first=True), (2, 5, 3)),
        "gru": (nn.GRU(3, 2), (4, 1, 3)),
        "norms": (nn.Sequential(nn.LayerNorm(6), nn.GELU(), nn.Linear(6, 6)), (3, 6)),
        "own": (Net() if lib is tl else None, (4, 3)),
    }


class Net(tl.nn.Module):
    """A learner's own module (pickled as ``__main__.Net``, as from a notebook or a script)."""

    def __init__(self):
        super().__init__()
        self.fc = tl.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x).relu() * 2


def _out(y):
    return y[0] if isinstance(y, tuple) else y


TORCH_SIDE = textwrap.dedent(
    """
    import json, sys
    sys.modules["tensorlab"] = None  # torch alone: no tensorlab class can stand in
    import numpy as np
    import torch

    class Net(torch.nn.Module):  # the learner's own class, as their torch program defines it
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(x).relu() * 2

    kinds = {}
    for spec in json.loads(sys.argv[1]):
        m = torch.load(spec["path"], weights_only=False)
        m.eval()
        y = m(torch.from_numpy(np.load(spec["x"])))
        y = y[0] if isinstance(y, tuple) else y
        kinds[spec["name"]] = sorted({type(s).__module__.split(".")[0] for s in m.modules()})
        np.save(spec["y"], y.detach().numpy())
    print(json.dumps(kinds))
    """
)


def test_tensorlab_models_load_in_torch_as_torch_modules(tmp_path, torch, monkeypatch):
    """Every model of ``_models`` saved by tensorlab, loaded and run by torch alone (one
    subprocess for all: importing torch is the slow part); a learner's own class is found in
    the loading program's ``__main__``, as torch does it."""
    monkeypatch.setattr(Net, "__module__", "__main__")
    monkeypatch.setattr(sys.modules["__main__"], "Net", Net, raising=False)
    specs, expected = [], {}
    for name in _models(tl):
        tl.manual_seed(0)
        model, shape = _models(tl)[name]
        model.eval()
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        expected[name] = _out(model(tl.from_numpy(x))).detach().numpy()
        tl.save(model, tmp_path / f"{name}.pt")
        np.save(tmp_path / f"{name}-x.npy", x)
        specs.append(
            {
                "name": name,
                "path": str(tmp_path / f"{name}.pt"),
                "x": str(tmp_path / f"{name}-x.npy"),
                "y": str(tmp_path / f"{name}-y.npy"),
            }
        )
    done = subprocess.run(
        [sys.executable, "-c", TORCH_SIDE, json.dumps(specs)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    kinds = json.loads(done.stdout)
    assert kinds.pop("own") == ["__main__", "torch"]
    assert kinds == {name: ["torch"] for name in expected if name != "own"}
    for name, want in expected.items():
        got = np.load(tmp_path / f"{name}-y.npy")
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", [n for n in _models(tl) if n != "own"])
def test_a_torch_model_loads_in_tensorlab_as_tensorlab_modules(name, tmp_path, torch):
    torch.manual_seed(0)
    model, shape = _models(torch)[name]
    model.eval()
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    expected = _out(model(torch.from_numpy(x))).detach().numpy()
    torch.save(model, tmp_path / "m.pt")
    ours = tl.load(tmp_path / "m.pt", weights_only=False)
    assert all(type(m).__module__.startswith("tensorlab.") for m in ours.modules())
    got = _out(ours(tl.from_numpy(x))).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(Exception, match="Unsupported global"):
        tl.load(tmp_path / "m.pt")  # weights_only=True by default, as in torch 2.6+
