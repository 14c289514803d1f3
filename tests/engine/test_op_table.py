"""The op table (``tensorlab/_ops/native_functions.py``): every row is installed once, and the
``out=`` rule written there answers as PyTorch does on each path that reaches it."""

import pytest

import tensorlab
from tensorlab import Tensor
from tensorlab._ops import native_functions as table


def test_every_row_is_installed():
    for name in table.METHODS:
        assert name in vars(Tensor), name
    for name in table.FUNCTIONS:
        assert hasattr(tensorlab, name), name


def test_a_name_is_registered_once():
    with pytest.raises(RuntimeError, match="registered twice"):
        table.op("add")(lambda input, other: None)


@pytest.mark.parametrize(
    "call",
    [
        "torch.add(a, b, out=o)",  # the op takes out= itself (autograd.graph.differentiable)
        "torch.sum(a, 0, out=o)",  # out= given by the table (OUT)
        "torch.matmul(a, b, out=o)",  # matmul's own out= path
        "torch.arange(3.0, out=g)",  # a factory: only out itself requires grad
    ],
)
def test_out_with_grad_raises_like_torch(torch, call):
    def run(lib):
        a = lib.ones(3, 3, requires_grad=True)
        b = lib.ones(3, 3)
        o = lib.empty(3, 3)
        g = lib.empty(3, requires_grad=True)
        try:
            eval(call, {"torch": lib, "a": a, "b": b, "o": o, "g": g})
        except RuntimeError as e:
            return str(e)
        return None

    ours, theirs = run(tensorlab), run(torch)
    assert theirs is not None
    assert ours == theirs.split("\n")[0]
