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


def test_the_recipe_adds_an_op(torch):
    """The module docstring's recipe, followed by a late row (installed at once)."""
    from tensorlab.autograd import formulas as AG

    @table.op("recipe_neg", formula=AG.unary_node("neg"))
    def recipe_neg(input, *, out=None):
        return tensorlab.neg(input, out=out)

    try:
        x = tensorlab.tensor([1.5, -2.0, 3.0], requires_grad=True)
        xt = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
        y, yt = tensorlab.recipe_neg(x), torch.neg(xt)
        assert y.tolist() == yt.tolist() == x.recipe_neg().tolist()
        assert type(y.grad_fn).__name__ == type(yt.grad_fn).__name__
        (y * tensorlab.tensor([1.0, 2.0, 3.0])).sum().backward()
        (yt * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
        assert x.grad.tolist() == xt.grad.tolist()
    finally:
        for t in (table.METHODS, table.FUNCTIONS):
            t.pop("recipe_neg", None)
        table.MODULE_FUNCTIONS.pop("recipe_neg", None)
        for owner in (Tensor, tensorlab):
            if "recipe_neg" in vars(owner):
                delattr(owner, "recipe_neg")
