"""Derivative formulas of the indexing family (PyTorch's ``TensorAdvancedIndexing``): gather and
scatter, ``index_*``, the masked ops, ``put``/``take``.

Index arguments are kept as numpy int64 arrays already wrapped to non-negative positions;
``coords`` helpers turn a (gather/scatter) index into the tuple of numpy index arrays it stands for.
Gradients travel as numpy arrays (see :mod:`tensorlab.autograd.formulas`).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .graph import Node


def _t(x):
    return x if isinstance(x, Tensor) else None


def scatter_coords(index: np.ndarray, dim: int) -> tuple:
    """The numpy index that ``gather``/``scatter`` along ``dim`` with ``index`` addresses: the
    position of ``index[i0, .., id, .., in]`` is ``(i0, .., index[...], .., in)``."""
    grids = list(np.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[dim] = index
    return tuple(grids)


def leading(arr: np.ndarray, shape) -> np.ndarray:
    """The part of ``arr`` with ``shape`` (from the start of each dim): src sliced to the index."""
    return arr[tuple(slice(0, s) for s in shape)]


def _as_1d(a: np.ndarray) -> np.ndarray:
    return a.reshape(1) if a.ndim == 0 else a


# ---------------------------------------------------------------------------------------------
# gather / scatter
# ---------------------------------------------------------------------------------------------


class GatherBackward0(Node):
    def __init__(self, x, dim, index):
        super().__init__(_t(x))
        self.dim, self.index = dim, index

    def backward(self, g):
        shape = self._input_meta[0][0]
        out = np.zeros(shape or (1,), dtype=g.dtype)
        np.add.at(out, scatter_coords(_as_1d(self.index), self.dim), _as_1d(g))
        return (out.reshape(shape),)


class ScatterBackward(Node):
    """``ScatterBackward0`` (src), ``ScatterBackward1`` (a number), ``ScatterAddBackward0``."""

    def __init__(self, name, x, src, dim, index):
        super().__init__(_t(x), *([_t(src)] if name != "ScatterBackward1" else []))
        self._name = name
        self.dim, self.index = dim, index

    def backward(self, g):
        coords = scatter_coords(_as_1d(self.index), self.dim)
        g1 = _as_1d(np.asarray(g))
        gx = None
        if self.needs_grad(0):
            gx = g1.copy()
            if self.name() != "ScatterAddBackward0":
                gx[coords] = 0
            gx = gx.reshape(np.shape(g))
        if len(self.next_functions) == 1:
            return (gx,)
        gsrc = None
        if self.needs_grad(1):
            src_shape = self._input_meta[1][0]
            gsrc = np.zeros(src_shape or (1,), dtype=g1.dtype)
            gsrc[tuple(slice(0, s) for s in _as_1d(self.index).shape)] = g1[coords]
            gsrc = gsrc.reshape(src_shape)
        return (gx, gsrc)


class ScatterReduceBackward0(Node):
    """``scatter_reduce`` with sum, mean, prod, amax or amin (PyTorch's formulas: evenly
    distributed among equal extremes; products without the zero factor)."""

    def __init__(self, x, src, dim, index, reduce, include_self, self_arr, src_arr, result):
        super().__init__(_t(x), _t(src))
        self.dim, self.index, self.reduce, self.include_self = dim, index, reduce, include_self
        self.x, self.src, self.result = self_arr, src_arr, result

    def backward(self, g):
        g = _as_1d(np.asarray(g))
        index = _as_1d(self.index)
        coords = scatter_coords(index, self.dim)
        x, res = _as_1d(self.x), _as_1d(self.result)
        src = leading(_as_1d(self.src), index.shape)
        touched = np.zeros(x.shape, dtype=bool)
        touched[coords] = True
        red = self.reduce
        with np.errstate(all="ignore"):
            if red == "sum":
                gx, gs = g.copy(), g[coords]
            elif red == "mean":
                n = np.full(x.shape, 1.0 if self.include_self else 0.0, dtype=g.dtype)
                np.add.at(n, coords, 1.0)
                n[n == 0] = 1
                gx, gs = g / n, (g / n)[coords]
            elif red == "prod":
                # self is a member where include_self, and wherever nothing was scattered
                self_in = self.include_self | ~touched
                zeros = (self_in & (x == 0)).astype(np.int64)
                np.add.at(zeros, coords, (src == 0).astype(np.int64))
                nz = np.where(self_in & (x != 0), x, 1).astype(g.dtype)
                np.multiply.at(nz, coords, np.where(src == 0, 1, src))

                def others(v, zc, prod_nz, gv):
                    # the product of the other members: prod_nz / v when no member is zero;
                    # for the single zero member, the product of the nonzero ones
                    return np.where(
                        zc == 0, gv * prod_nz / v, np.where((zc == 1) & (v == 0), gv * prod_nz, 0)
                    )

                gx = others(x, zeros, nz, g)
                gs = others(src, zeros[coords], nz[coords], g[coords])
            else:  # amax / amin
                hit_x = (x == res) & (self.include_self | ~touched)
                count = hit_x.astype(g.dtype)
                hit_s = src == res[coords]
                np.add.at(count, coords, hit_s.astype(g.dtype))
                gx = np.where(hit_x, g / count, 0)
                gs = np.where(hit_s, (g / count)[coords], 0)
        if not self.include_self or red in ("amax", "amin"):
            gx = np.where(touched & (not self.include_self), 0, gx)
        gsrc = None
        if self.needs_grad(1):
            src_shape = self._input_meta[1][0]
            gsrc = np.zeros(src_shape or (1,), dtype=g.dtype)
            gsrc[tuple(slice(0, s) for s in index.shape)] = gs
            gsrc = gsrc.reshape(src_shape)
        return (gx.reshape(self._input_meta[0][0]), gsrc)


# ---------------------------------------------------------------------------------------------
# index_add / index_copy / index_fill
# ---------------------------------------------------------------------------------------------


def _index_slots(ndim: int, dim: int, index: np.ndarray) -> tuple:
    return tuple(index if d == dim else slice(None) for d in range(max(ndim, 1)))


class IndexAlongDim(Node):
    """``IndexAddBackward0``, ``IndexCopyBackward0``, ``IndexFillBackward0/1``: self's gradient
    passes (zeroed at the written slots unless added to); source's gradient is picked out."""

    def __init__(self, name, x, source, dim, index, alpha=1):
        has_source = isinstance(source, Tensor)
        super().__init__(_t(x), *([_t(source)] if has_source or name.endswith("1") else []))
        self._name = name
        self.dim, self.index, self.alpha = dim, index, alpha

    def backward(self, g):
        shape = self._input_meta[0][0]
        g1 = np.asarray(g).reshape(shape or (1,))
        slots = _index_slots(len(shape), self.dim, self.index)
        gx = g1.copy()
        name = self.name()
        if name != "IndexAddBackward0":
            gx[slots] = 0
        out = [gx.reshape(shape)]
        if len(self.next_functions) == 2:
            if name == "IndexFillBackward1":
                out.append(np.asarray(g1[slots].sum()))
            else:
                picked = g1[slots]
                if name == "IndexAddBackward0" and self.alpha != 1:
                    picked = picked * self.alpha
                out.append(picked.reshape(self._input_meta[1][0]))
        return tuple(out)


# ---------------------------------------------------------------------------------------------
# masked ops
# ---------------------------------------------------------------------------------------------


class MaskedFillBackward(Node):
    """``MaskedFillBackward0`` (a number) and ``MaskedFillBackward1`` (a 0-d tensor value)."""

    def __init__(self, x, value, mask):
        tensor_value = isinstance(value, Tensor)
        super().__init__(_t(x), *([value] if tensor_value else []))
        self._name = "MaskedFillBackward1" if tensor_value else "MaskedFillBackward0"
        self.mask = mask

    def backward(self, g):
        g = np.asarray(g)
        mask = np.broadcast_to(self.mask, g.shape)
        out = [np.where(mask, 0, g)]
        if len(self.next_functions) == 2:
            out.append(np.asarray(g[mask].sum()))
        return tuple(out)


class MaskedSelectBackward0(Node):
    def __init__(self, x, mask, shape):
        super().__init__(_t(x))
        self.mask, self.shape = mask, shape

    def backward(self, g):
        out = np.zeros(self.shape, dtype=g.dtype)
        out[np.broadcast_to(self.mask, self.shape)] = g
        return (out,)


class MaskedScatterBackward0(Node):
    def __init__(self, x, source, mask):
        super().__init__(_t(x), _t(source))
        self.mask = mask

    def backward(self, g):
        g = np.asarray(g)
        mask = np.broadcast_to(self.mask, g.shape)
        gsrc = None
        if self.needs_grad(1):
            shape = self._input_meta[1][0]
            flat = np.zeros(int(np.prod(shape)), dtype=g.dtype)
            picked = g[mask]
            flat[: picked.size] = picked
            gsrc = flat.reshape(shape)
        return (np.where(mask, 0, g), gsrc)


# ---------------------------------------------------------------------------------------------
# take / put / index_put
# ---------------------------------------------------------------------------------------------


class TakeBackward0(Node):
    def __init__(self, x, index):
        super().__init__(_t(x))
        self.index = index

    def backward(self, g):
        shape = self._input_meta[0][0]
        flat = np.zeros(int(np.prod(shape)), dtype=g.dtype)
        np.add.at(flat, self.index.reshape(-1), np.asarray(g).reshape(-1))
        return (flat.reshape(shape),)


class PutBackward0(Node):
    def __init__(self, x, index, source, accumulate):
        super().__init__(_t(x), _t(source))
        self.index, self.accumulate = index, accumulate

    def backward(self, g):
        g = np.asarray(g)
        flat = g.reshape(-1).copy()
        gsrc = None
        if self.needs_grad(1):
            gsrc = flat[self.index.reshape(-1)].reshape(self._input_meta[1][0])
        if not self.accumulate:
            flat[self.index.reshape(-1)] = 0
        return (flat.reshape(g.shape), gsrc)


class IndexPutBackward(Node):
    """``IndexPutBackward0`` of ``index_put``: with ``accumulate`` self's gradient passes whole."""

    def __init__(self, x, values, np_index, accumulate):
        super().__init__(_t(x), _t(values))
        self._name = "IndexPutBackward0"
        self.np_index, self.accumulate = np_index, accumulate

    def backward(self, g):
        g = np.asarray(g)
        gx = g
        if not self.accumulate:
            gx = g.copy()
            gx[self.np_index] = 0
        gv = g[self.np_index] if self.needs_grad(1) else None
        return (gx, gv)
