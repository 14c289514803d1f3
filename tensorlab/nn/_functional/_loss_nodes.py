"""Nodes that make composed losses print torch's ``grad_fn`` names.

- ``MulBackward1`` / ``AddBackward1``: ATen's C++ losses multiply or add a Python number with
  the ``Tensor, Scalar`` overloads (one graph edge), where Python's ``x * 0.9`` records
  ``MulBackward0`` (two edges, the number's empty): :func:`mul_scalar`, :func:`add_scalar`.
- A loss that is one native op in ATen (``soft_margin_loss`` -> ``SoftMarginLossBackward0``,
  ``multi_margin_loss`` -> ``MultiMarginLossBackward0``) but composed here: :func:`fused` runs the
  composition on detached inputs and records one node of that name whose backward
  differentiates the composition (first derivatives; a second one raises).
"""

from __future__ import annotations

import numpy as np

from ...autograd.grad_mode import STATE
from ...autograd.graph import Node, attach


class MulBackward1(Node):
    """``mul(Tensor, Scalar)``: d/dself = grad * other."""

    def __init__(self, a, other):
        super().__init__(a)
        self.other = other

    def backward(self, g):
        return (g * self.other,)


class AddBackward1(Node):
    """``add(Tensor, Scalar)``: d/dself = grad."""

    def __init__(self, a, other, alpha=1):
        super().__init__(a)
        self.other, self.alpha = other, alpha

    def backward(self, g):
        return (g,)


class DivBackward1(Node):
    """``div(Tensor, Scalar)``: d/dself = grad / other."""

    def __init__(self, a, other):
        super().__init__(a)
        self.other = other

    def backward(self, g):
        return (g / self.other,)


def _scalar(t, other, op, node_cls):
    was = STATE.enabled
    STATE.enabled = False
    try:
        out = op(t, other)
    finally:
        STATE.enabled = was
    if was and t.requires_grad:
        attach(out, node_cls(t, other))
    return out


def mul_scalar(t, other):
    """``t * other`` recorded as ATen's ``mul(Tensor, Scalar)``."""
    return _scalar(t, other, lambda a, b: a * b, MulBackward1)


def div_scalar(t, other):
    """``t / other`` recorded as ATen's ``div(Tensor, Scalar)``."""
    return _scalar(t, other, lambda a, b: a / b, DivBackward1)


def add_scalar(t, other):
    """``t + other`` recorded as ATen's ``add(Tensor, Scalar)``."""
    return _scalar(t, other, lambda a, b: a + b, AddBackward1)


class FusedBackward(Node):
    """One node for a composition of ``input`` (its name given; the only edge, as in ATen's
    losses whose target is not differentiable): backward differentiates the composition."""

    def __init__(self, name, input, leaf, inner):
        super().__init__(input)
        self._name = name
        self._leaf, self._inner = leaf, inner

    def backward(self, g):
        from ... import _dtype as D
        from ..._tensor import Tensor
        from ...autograd.api import grad
        from ...autograd.graph import FREED

        if self._inner is None:
            raise RuntimeError(FREED)
        g = np.asarray(g)
        gt = Tensor._from_array(g, D.from_numpy_dtype(g.dtype))
        (gx,) = grad(self._inner, [self._leaf], gt, retain_graph=True)
        return (gx._np(),)

    def release(self) -> None:
        self._inner = None


def fused(name, fn, input, *others):
    """``fn(input, *others)`` (a composition of recorded ops) recorded as one node ``name``."""
    if not (STATE.enabled and input.requires_grad):
        return fn(input, *others)
    leaf = input.detach().requires_grad_(True)
    inner = fn(leaf, *others)
    out = inner.detach()
    attach(out, FusedBackward(name, input, leaf, inner))
    return out


__all__ = [
    "AddBackward1",
    "DivBackward1",
    "MulBackward1",
    "add_scalar",
    "div_scalar",
    "fused",
    "mul_scalar",
]
