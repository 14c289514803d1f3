"""Derivatives of pooling and upsampling (``MaxPool2DWithIndicesBackward0``,
``AvgPool2DBackward0``, ``AdaptiveAvgPool2DBackward0``, ``AdaptiveMaxPool2DBackward0``,
``MaxUnpool2DBackward0``, ``UpsampleNearest2DBackward0``, ``UpsampleBilinear2DBackward0``).

Max pooling sends each output gradient to the input element that won its window (the saved
flat indices); average pooling spreads it evenly over the window, one kernel tap at a time.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .graph import Node


def _t(x):
    return x if isinstance(x, Tensor) else None


def scatter_by_index(g: np.ndarray, idx: np.ndarray, in_shape) -> np.ndarray:
    """Add each ``g`` into position ``idx`` (flat over the last two dims of ``in_shape``)."""
    g4 = g if g.ndim == 4 else g[None]
    i4 = idx if idx.ndim == 4 else idx[None]
    n, c = g4.shape[:2]
    hw = in_shape[-1] * in_shape[-2]
    flat = (np.arange(n * c, dtype=np.int64)[:, None] * hw + i4.reshape(n * c, -1)).ravel()
    out = np.bincount(flat, weights=g4.reshape(-1), minlength=n * c * hw)
    return out.astype(g.dtype, copy=False).reshape(in_shape)


class MaxPool2DWithIndicesBackward0(Node):
    """Each output gradient goes to its window's maximum; windows that overlap add up."""

    def __init__(self, x, idx, geometry, name: str | None = None):
        super().__init__(_t(x))
        if name is not None:
            self._name = name
        # int64 numpy array (N, C, oh, ow): saved like torch's indices (freed after backward)
        self._idx = self.save(idx)
        self.geometry = geometry
        self.in_shape = tuple(x.shape)

    def backward(self, g):
        self.idx = self._idx.unpack()
        g = np.asarray(g)
        if self.geometry is not None:
            (kh, kw), (sh, sw), _, (dh, dw) = self.geometry
            if sh >= (kh - 1) * dh + 1 and sw >= (kw - 1) * dw + 1:
                # windows do not overlap: every input element gets at most one gradient
                g4 = g if g.ndim == 4 else g[None]
                i4 = self.idx
                n, c = g4.shape[:2]
                hw = self.in_shape[-1] * self.in_shape[-2]
                out = np.zeros(n * c * hw, dtype=g.dtype)
                # one flat fancy index (put_along_axis builds a 2-d one: ~1.4x slower)
                flat = i4.reshape(n * c, -1) + (np.arange(n * c, dtype=np.int64) * hw)[:, None]
                out[flat.ravel()] = g4.reshape(-1)
                return (out.reshape(self.in_shape),)
        return (scatter_by_index(g, self.idx, self.in_shape),)


class AvgPool2DBackward0(Node):
    """Each output gradient, divided by its divisor, goes to every input element of its window."""

    def __init__(self, x, div, geometry):
        super().__init__(_t(x))
        self.div, self.geometry = div, geometry
        self.in_shape = tuple(x.shape)
        self._x = self.save(x)  # torch saves the input (a second backward then fails alike)

    def backward(self, g):
        self._x.unpack()
        (kh, kw), (sh, sw), (ph, pw) = self.geometry
        g4 = g if g.ndim == 4 else g[None]
        n, c, oh, ow = g4.shape
        h, w = self.in_shape[-2:]
        ct = np.float32 if g.dtype == np.float16 else g.dtype
        share = np.where(self.div > 0, g4 / np.maximum(self.div, 1).astype(ct), 0).astype(ct)
        hn = max((oh - 1) * sh + kh, h + ph) + ph
        wn = max((ow - 1) * sw + kw, w + pw) + pw
        gx = np.zeros((n, c, hn, wn), dtype=ct)
        for a in range(kh):
            for b in range(kw):
                gx[:, :, a : a + (oh - 1) * sh + 1 : sh, b : b + (ow - 1) * sw + 1 : sw] += share
        gx = gx[:, :, ph : ph + h, pw : pw + w].astype(g.dtype)
        return (gx.reshape(self.in_shape),)


class AdaptiveAvgPool2DBackward0(Node):
    """Each output gradient, divided by its window's size, goes to every element of it."""

    def __init__(self, x, bounds):
        super().__init__(_t(x))
        self.bounds = bounds
        self.in_shape = tuple(x.shape)
        self._x = self.save(x)  # torch saves the input (a second backward then fails alike)

    def backward(self, g):
        self._x.unpack()
        hs, he, ws, we = self.bounds
        g4 = g if g.ndim == 4 else g[None]
        n, c, oh, ow = g4.shape
        h, w = self.in_shape[-2:]
        gx = np.zeros((n, c, h, w), dtype=g.dtype)
        if oh and ow and h % oh == 0 and w % ow == 0:  # equal windows that tile the input
            kh, kw = h // oh, w // ow
            share = g4 / np.asarray(kh * kw, dtype=g.dtype)
            for a in range(kh):
                for b in range(kw):
                    gx[:, :, a::kh, b::kw] = share
            return (gx.reshape(self.in_shape),)
        for i in range(oh):
            for j in range(ow):
                size = (he[i] - hs[i]) * (we[j] - ws[j])
                gx[:, :, hs[i] : he[i], ws[j] : we[j]] += (g4[:, :, i, j] / size)[:, :, None, None]
        return (gx.reshape(self.in_shape),)


class MaxUnpool2DBackward0(Node):
    """The gradient of an unpooled value is the output gradient where it was put."""

    def __init__(self, x, idx):
        super().__init__(_t(x))
        self._idx = self.save(idx)
        self.in_shape = tuple(x.shape)

    def backward(self, g):
        idx = self._idx.unpack()
        g4 = g if g.ndim == 4 else g[None]
        n, c = g4.shape[:2]
        flat = g4.reshape(n * c, -1)
        picked = np.take_along_axis(flat, idx.reshape(n * c, -1), axis=1)
        return (picked.reshape(self.in_shape),)


class UpsampleBackward(Node):
    """``UpsampleNearest2DBackward0`` / ``UpsampleBilinear2DBackward0``: the output is a fixed
    linear map of the input along each spatial axis (a gather, or a two-tap blend); the gradient
    applies the transposed map."""

    def __init__(self, name, x, maps):
        super().__init__(_t(x))
        self._name = name
        self.maps = maps  # per spatial axis: (idx0, idx1, w0, w1) numpy arrays
        self.in_shape = tuple(x.shape)

    def backward(self, g):
        ct = np.float32 if g.dtype == np.float16 else g.dtype
        out = g.astype(ct, copy=False)
        nsp = len(self.maps)
        for k in range(nsp - 1, -1, -1):
            axis = out.ndim - nsp + k
            size = self.in_shape[axis]
            i0, i1, w0, w1 = self.maps[k]
            moved = np.moveaxis(out, axis, 0)
            acc = np.zeros((size,) + moved.shape[1:], dtype=ct)
            shape = (-1,) + (1,) * (moved.ndim - 1)
            if w0 is None:
                np.add.at(acc, i0, moved)
            else:
                np.add.at(acc, i0, moved * w0.astype(ct).reshape(shape))
                np.add.at(acc, i1, moved * w1.astype(ct).reshape(shape))
            out = np.moveaxis(acc, 0, axis)
        return (out.astype(g.dtype),)
