"""Derivative formulas for the pointwise and cumulative ops added with the everyday API:
``atan2``, ``cumprod``, ``cummax``/``cummin``, ``logcumsumexp``, ``logsumexp`` and the shape ops
(``diag``, ``diag_embed``, ``triu``/``tril``, ``roll``, ``rot90``). Named as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .graph import Node


def _t(x):
    return x if isinstance(x, Tensor) else None


class Atan2Backward0(Node):
    def __init__(self, a, b):
        super().__init__(_t(a), _t(b))
        self.a, self.b = self.save(a), self.save(b)

    def backward(self, g):
        a, b = self.a.unpack(), self.b.unpack()
        with np.errstate(all="ignore"):
            r = a * a + b * b
            return (g * b / r, -g * a / r)


class CumprodBackward0(Node):
    """d out_j / d x_i = prod_{k<=j, k!=i} x_k: computed exactly, zeros included."""

    def __init__(self, x, dim):
        super().__init__(_t(x))
        self.x, self.dim = self.save(x), dim

    def backward(self, g):
        shape = self._input_meta[0][0] or (1,)
        x = np.moveaxis(np.asarray(self.x.unpack()).reshape(shape), self.dim, -1)
        gm = np.moveaxis(np.asarray(g).reshape(shape), self.dim, -1)
        n = x.shape[-1]
        out = np.zeros_like(gm)
        for i in range(n):
            others = x.copy()
            others[..., i] = 1
            prods = np.cumprod(others, axis=-1)
            out[..., i] = np.sum(gm[..., i:] * prods[..., i:], axis=-1)
        return (np.moveaxis(out, -1, self.dim).reshape(self._input_meta[0][0]),)


class CumExtremeBackward(Node):
    """``CummaxBackward0``/``CumminBackward0``: each output's gradient goes to the element its
    index names."""

    def __init__(self, name, x, indices, dim):
        super().__init__(_t(x))
        self._name = name
        self.indices, self.dim = indices, dim

    def backward(self, g):
        shape = self._input_meta[0][0]
        out = np.zeros(shape or (1,), dtype=g.dtype)
        idx = self.indices.reshape(shape or (1,))
        grids = list(np.ogrid[tuple(slice(0, s) for s in idx.shape)])
        grids[self.dim] = idx
        np.add.at(out, tuple(grids), np.asarray(g).reshape(idx.shape))
        return (out.reshape(shape),)


class LogcumsumexpBackward0(Node):
    def __init__(self, x, out, dim):
        super().__init__(_t(x))
        self.x, self.out, self.dim = self.save(x), self.save(out, output=True), dim

    def backward(self, g):
        shape = self._input_meta[0][0] or (1,)
        x = np.asarray(self.x.unpack()).reshape(shape)
        r = np.asarray(self.out.unpack()).reshape(shape)
        g = np.asarray(g).reshape(shape)
        d = self.dim
        with np.errstate(all="ignore"):
            # grad_i = sum_{j>=i} g_j * exp(x_i - r_j)
            xm = np.moveaxis(x, d, -1)
            rm = np.moveaxis(r, d, -1)
            gm = np.moveaxis(g, d, -1)
            w = gm[..., None, :] * np.exp(xm[..., :, None] - rm[..., None, :])
            n = xm.shape[-1]
            upper = np.triu(np.ones((n, n), dtype=bool))
            gi = np.where(upper, w, 0).sum(axis=-1)
        return (np.moveaxis(gi, -1, d).reshape(self._input_meta[0][0]),)


class LogsumexpBackward0(Node):
    def __init__(self, x, out, dims, keepdim):
        super().__init__(_t(x))
        self.x, self.out = self.save(x), self.save(out, output=True)
        self.dims, self.keepdim = dims, keepdim

    def backward(self, g):
        x, r = self.x.unpack(), self.out.unpack()
        g = np.asarray(g)
        if not self.keepdim:
            for d in sorted(self.dims):
                r = np.expand_dims(r, d)
                g = np.expand_dims(g, d)
        with np.errstate(all="ignore"):
            return (g * np.exp(x - r),)


class GradFromFunction(Node):
    """A node whose backward is a function of the gradient alone (linear ops: diag, triu, roll,
    rot90...): ``fn(g)`` returns the input's gradient."""

    def __init__(self, name, x, fn):
        super().__init__(_t(x))
        self._name = name
        self.fn = fn

    def backward(self, g):
        return (self.fn(np.asarray(g)),)


class LinalgCrossBackward0(Node):
    """``cross(a, b)``: d/da = b x g, d/db = g x a (``cross`` is the op's own product)."""

    def __init__(self, a, b, cross):
        super().__init__(_t(a), _t(b))
        self.a, self.b, self.cross = self.save(a), self.save(b), cross

    def backward(self, g):
        ga = gb = None
        if self.needs_grad(0):
            ga = self.cross(np.broadcast_to(self.b.unpack(), g.shape), g)
        if self.needs_grad(1):
            gb = self.cross(g, np.broadcast_to(self.a.unpack(), g.shape))
        return (ga, gb)
