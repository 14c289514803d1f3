"""``autograd.Variable`` (PyTorch's legacy wrapper) against PyTorch 2.13."""

from __future__ import annotations

import pytest
from helpers import raises_same

import tensorlab as tl


@pytest.mark.oracle
@pytest.mark.parametrize("requires_grad", [False, True])
def test_variable_is_a_tensor_sharing_memory(torch, requires_grad):
    for lib in (tl, torch):
        x = lib.tensor([1.0, 2.0])
        v = lib.autograd.Variable(x, requires_grad=requires_grad)
        assert v is not x and v.data_ptr() == x.data_ptr()
        assert v.requires_grad is requires_grad and v.is_leaf
        assert isinstance(x, lib.autograd.Variable)
        assert not isinstance([1.0], lib.autograd.Variable)
    assert repr(tl.autograd.Variable(tl.ones(2), requires_grad=True)) == repr(
        torch.autograd.Variable(torch.ones(2), requires_grad=True)
    )
    assert repr(tl.autograd.Variable()) == repr(torch.autograd.Variable())


@pytest.mark.oracle
def test_variable_of_a_list_is_refused(torch):
    raises_same(lambda: tl.autograd.Variable([1.0]), lambda: torch.autograd.Variable([1.0]))


def test_is_grads_batched_is_refused_clearly():
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="is_grads_batched"):
        tl.autograd.grad(x * 2, x, tl.eye(2), is_grads_batched=True)
