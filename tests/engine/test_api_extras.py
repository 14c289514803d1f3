"""Small pieces of torch's namespace that pasted code leans on: constants and method forms."""

from __future__ import annotations

import math

import pytest
from helpers import assert_same, raises_same

import tensorlab as tl


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["e", "pi", "inf", "nan", "newaxis"])
def test_constants(torch, name):
    ours, theirs = getattr(tl, name), getattr(torch, name)
    assert ours is theirs or (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


@pytest.mark.oracle
@pytest.mark.parametrize(
    "call",
    [
        "x.softmax(1)",
        "x.softmax(dim=0)",
        "x.log_softmax(-1)",
        "x.softmax(1, dtype=lib.float64)",
        "x.log_softmax(dim=0, dtype=lib.float64)",
        "x.softmax()",
        "x.softmax(2)",
        "x.t().softmax(0)",
    ],
)
def test_softmax_methods(torch, call):
    def make(lib):
        x = lib.arange(6.0).view(2, 3).requires_grad_()
        return eval(call, {"x": x, "lib": lib})

    ours, theirs = raises_same(lambda: make(tl), lambda: make(torch))
    if theirs is not None:
        assert_same(ours, theirs, exact=False, rtol=1e-6)
        assert ours.grad_fn.name() == theirs.grad_fn.name()


@pytest.mark.oracle
@pytest.mark.parametrize(
    "layer", ["Conv1d(2, 3, 3)", "Conv2d(2, 3, 3)", "ConvTranspose2d(2, 3, 3)", "Linear(4, 2)"]
)
def test_fresh_parameters_were_written_once_by_their_init(torch, layer):
    """PyTorch initialises a layer's parameters in place: each starts at version 1."""
    ours, theirs = eval("tl.nn." + layer), eval("torch.nn." + layer)
    assert [p._version for p in ours.parameters()] == [p._version for p in theirs.parameters()]
