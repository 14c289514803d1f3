"""``tensorlab.autograd.Variable``: PyTorch's legacy wrapper, which today just gives a tensor.

``Variable(t, requires_grad=True)`` is a new leaf sharing ``t``'s memory (``t.detach()`` with
``requires_grad`` set), and every tensor is an instance of ``Variable``, as in PyTorch."""

from __future__ import annotations


class VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._tensor import Tensor

        if data is None:
            import tensorlab

            data = tensorlab.tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
