"""Gradients of the views whose elements may repeat: ``as_strided`` and ``Tensor.unfold``.

The shared view node (:class:`tensorlab.autograd.views.ViewBackward`) adds the gradient through
a replayed view, which is only right when every element of the view is a different element of
the input. Overlapping windows read one input element several times, so its gradient is the
*sum* over every place it was read; these nodes do that sum.
"""

from __future__ import annotations

import numpy as np

from .graph import Node
from .views import storage_positions


class AsStridedBackward0(Node):
    """``as_strided`` as PyTorch differentiates it (``as_strided_backward``), in storage space:

    1. scatter-add the gradient at the output's storage positions (overlapping windows add up);
    2. if the *input* itself reads a storage cell several times (an expanded input), divide that
       cell by the number of times it is read, so that summing over the copies gives it once;
    3. read the result at the input's storage positions.

    Storage cells the input does not cover get nothing; cells the output never read get zero.
    """

    def __init__(self, x, out, *, layout=None):
        super().__init__(x)
        self.in_layout = (tuple(x._shape), tuple(x._stride), x._offset)
        self.out_layout = layout or (tuple(out._shape), tuple(out._stride), out._offset)

    def backward(self, g):
        in_pos = storage_positions(*self.in_layout).reshape(-1)
        out_pos = storage_positions(*self.out_layout).reshape(-1)
        g = np.asarray(g)
        if in_pos.size == 0:
            return (np.zeros(self.in_layout[0], dtype=g.dtype),)
        lo = int(min(in_pos.min(), out_pos.min() if out_pos.size else in_pos.min()))
        hi = int(max(in_pos.max(), out_pos.max() if out_pos.size else in_pos.max()))
        cells = np.zeros(hi - lo + 1, dtype=g.dtype)
        if out_pos.size:
            np.add.at(cells, out_pos - lo, g.reshape(-1))
        counts = np.bincount(in_pos - lo, minlength=cells.size)
        if counts.max() > 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                cells = cells / counts.astype(cells.dtype)
        return (cells[in_pos - lo].reshape(self.in_layout[0]),)


class UnfoldBackward0(Node):
    """``x.unfold(dim, size, step)``: window ``i`` element ``k`` is ``x[..., i*step + k, ...]``.
    For each ``k`` the windows read distinct elements, so ``size`` strided additions give each
    input element the sum over every window that read it."""

    def __init__(self, x, dim: int, size: int, step: int):
        super().__init__(x)
        self.dim, self.size, self.step = dim, size, step

    def backward(self, g):
        shape = self._input_meta[0][0]
        g = np.asarray(g)
        if not shape:  # a 0-dim input: a window of its one element (or of none)
            return (g.reshape(-1).sum().reshape(()),)
        out = np.zeros(shape, dtype=g.dtype)
        d, n = self.dim, g.shape[self.dim]
        for k in range(self.size if n else 0):
            idx = (slice(None),) * d + (slice(k, k + (n - 1) * self.step + 1, self.step),)
            out[idx] += g[..., k]
        return (out,)
