"""Gradients of the sorting family: ``SortBackward0``, ``TopkBackward0``, ``KthvalueBackward0``.

Each output element *is* one input element (the one its index names), so the gradient goes back
to that position; positions no output picked get zero.
"""

from __future__ import annotations

import numpy as np

from .graph import Node, NotImplementedNode


class NotDifferentiable(NotImplementedNode):
    """``unique`` & co.: recorded, but backward raises ``NotImplementedError`` (as PyTorch's
    ``not_implemented("_unique2")`` formulas do)."""

    def backward(self, grad):
        raise NotImplementedError(self.message)


class _ScatterBack(Node):
    """Gradient to ``input`` at ``indices`` along ``dim`` (PyTorch's
    ``value_selecting_reduction_backward`` / ``gather``'s backward)."""

    def __init__(self, x, indices, dim: int, keepdim: bool = True):
        super().__init__(x)
        self.indices = self.save(indices)
        self.dim, self.keepdim = dim, keepdim

    def backward(self, g):
        shape, dtype = self._input_meta[0]
        idx = np.asarray(self.indices.unpack())
        g = np.asarray(g)
        out = np.zeros(shape, dtype=g.dtype)
        if not shape:
            return (g.reshape(()) if idx.size else out,)
        if not self.keepdim:
            idx, g = np.expand_dims(idx, self.dim), np.expand_dims(g, self.dim)
        np.put_along_axis(out, idx, g, self.dim)
        return (out,)


class SortBackward0(_ScatterBack):
    pass


class TopkBackward0(_ScatterBack):
    pass


class KthvalueBackward0(_ScatterBack):
    pass


def _dim(input, dim) -> int:
    return dim % input.ndim if input.ndim else 0


def make_sort(out, input, dim=-1, descending=False, stable=False, **kwargs):
    return SortBackward0(input, out[1], _dim(input, dim))


def make_topk(out, input, k, dim=-1, largest=True, sorted=True, **kwargs):
    return TopkBackward0(input, out[1], _dim(input, dim))


def make_kthvalue(out, input, k, dim=-1, keepdim=False, **kwargs):
    return KthvalueBackward0(input, out[1], _dim(input, dim), keepdim)
