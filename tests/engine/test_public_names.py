"""Public classes print their public path, as PyTorch's do (``<class 'torch.Tensor'>``)."""

from __future__ import annotations

import pickle
import re

import pytest

import tensorlab as tl

PUBLIC = [
    "Tensor",
    "Size",
    "dtype",
    "device",
    "memory_format",
    "layout",
    "finfo",
    "iinfo",
    "UntypedStorage",
    "FloatTensor",
    "LongTensor",
    "tensortype",
]


@pytest.mark.parametrize("name", PUBLIC)
def test_public_classes_show_their_public_path(name):
    cls = getattr(tl, name)
    assert cls.__module__ == "tensorlab"
    assert cls.__qualname__ == name
    assert repr(cls) == f"<class 'tensorlab.{name}'>"


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.zeros(2),
        lambda lib: lib.zeros(2).shape,
        lambda lib: lib.float32,
        lambda lib: lib.manual_seed(0),
        lambda lib: lib.zeros(1).device,
        lambda lib: lib.contiguous_format,
        lambda lib: lib.strided,
        lambda lib: lib.finfo(lib.float32),
        lambda lib: lib.iinfo(lib.int8),
    ],
)
def test_types_of_values_match_torch(torch, make):
    """``type(x)`` of everyday values: torch's name with ``tensorlab`` for ``torch`` (the
    generator's class too: ``tensorlab._C.Generator`` as ``torch._C.Generator``)."""
    ours = repr(type(make(tl)))
    theirs = repr(type(make(torch))).replace("torch.", "tensorlab.")
    assert ours == theirs


def test_manual_seed_repr_names_the_generator_as_torch_does(torch):
    ours, theirs = repr(tl.manual_seed(0)), repr(torch.manual_seed(0))
    pattern = r"<{}\._C\.Generator object at 0x[0-9a-f]+>"
    assert re.fullmatch(pattern.format("torch"), theirs)
    assert re.fullmatch(pattern.format("tensorlab"), ours)
    assert repr(tl.Generator) == repr(torch.Generator).replace("torch", "tensorlab")
    g = pickle.loads(pickle.dumps(tl.Generator().manual_seed(7)))
    assert type(g) is tl.Generator and g.initial_seed() == 7


def test_public_objects_still_pickle():
    t = tl.tensor([1.0, 2.0])
    assert tl.equal(pickle.loads(pickle.dumps(t)), t) if hasattr(tl, "equal") else True
    assert pickle.loads(pickle.dumps(tl.float64)) is tl.float64
    assert pickle.loads(pickle.dumps(tl.Size([2, 3]))) == tl.Size([2, 3])
    assert pickle.loads(pickle.dumps(tl.device("cpu"))) == tl.device("cpu")
