"""The derivative formulas of ``tensorlab.linalg`` (named as torch's nodes) and the numpy
helpers they share with the ops."""

from __future__ import annotations

import numpy as np

from ..autograd.graph import Node, sum_to


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


class LinalgInvExBackward0(Node):
    """d(A^-1) = -A^-1 dA A^-1: grad_A = -A^-T g A^-T."""

    def __init__(self, A, out):
        super().__init__(A)
        self.out = self.save(out, output=True)

    def backward(self, g):
        inv_t = _mT(self.out.unpack())
        return (-(inv_t @ g @ inv_t),)


def _det_grad(a: np.ndarray, det: np.ndarray) -> np.ndarray:
    """d det(A) / dA = adj(A)^T, for singular matrices too (through the SVD, as torch does)."""
    out = np.empty_like(a)
    flat_a = a.reshape(-1, *a.shape[-2:])
    flat_d = np.asarray(det).reshape(-1)
    flat_o = out.reshape(-1, *a.shape[-2:])
    for i, (m, d) in enumerate(zip(flat_a, flat_d)):
        if d != 0:
            flat_o[i] = d * np.linalg.inv(m).T
            continue
        u, s, vh = np.linalg.svd(m)
        n = s.shape[0]
        prods = np.array([np.prod(np.delete(s, j)) for j in range(n)], dtype=a.dtype)
        sign = np.linalg.det(u) * np.linalg.det(vh)
        flat_o[i] = sign * (u * prods) @ vh
    return out


class LinalgDetBackward0(Node):
    def __init__(self, A, out):
        super().__init__(A)
        self.A, self.out = self.save(A), self.save(out, output=True)

    def backward(self, g):
        a, det = self.A.unpack(), self.out.unpack()
        if a.shape[-1] == 0:
            return (np.zeros_like(a),)
        return (np.asarray(g)[..., None, None] * _det_grad(a, det),)


class LinalgSlogdetBackward0(Node):
    """d log|det A| / dA = A^-T."""

    def __init__(self, A):
        super().__init__(A)
        self.A = self.save(A)

    def backward(self, g):
        a = self.A.unpack()
        with np.errstate(all="ignore"):
            return (np.asarray(g)[..., None, None] * _mT(np.linalg.inv(a)),)


class LinalgSolveExBackward0(Node):
    """X = A^-1 B: grad_B = A^-T g, grad_A = -grad_B X^T (summed back over broadcasting)."""

    def __init__(self, A, B, X, vector):
        super().__init__(A, B)
        self.A, self.X, self.vector = self.save(A), self.save(X, output=True), vector

    def backward(self, g):
        a, x = self.A.unpack(), self.X.unpack()
        g = np.asarray(g)
        if self.vector:
            gb = np.linalg.solve(_mT(a), g[..., None])
            ga = -gb @ x[..., None, :]
            gb = gb[..., 0]
        else:
            gb = np.linalg.solve(_mT(a), g)
            ga = -gb @ _mT(x)
        (a_shape, _), (b_shape, _) = self._input_meta
        return (
            sum_to(ga, a_shape) if self.needs_grad(0) else None,
            sum_to(gb, b_shape) if self.needs_grad(1) else None,
        )


class LinalgEighBackward0(Node):
    """Eigenvalues only (eigvalsh): grad_A = V diag(g) V^T."""

    def __init__(self, A, V):
        super().__init__(A)
        self.V = V

    def backward(self, g):
        v = self.V
        return ((v * np.asarray(g)[..., None, :]) @ _mT(v),)


def _svd_np(arr: np.ndarray, full_matrices: bool, compute_uv: bool = True):
    m, n = arr.shape[-2:]
    if arr.size == 0:
        k = min(m, n)
        s = np.zeros((*arr.shape[:-2], k), arr.dtype)
        if not compute_uv:
            return s
        eye_u = np.eye(m, m if full_matrices else k, dtype=arr.dtype)
        eye_v = np.eye(n if full_matrices else k, n, dtype=arr.dtype)
        return (
            np.broadcast_to(eye_u, (*arr.shape[:-2], *eye_u.shape)),
            s,
            np.broadcast_to(eye_v, (*arr.shape[:-2], *eye_v.shape)),
        )
    return np.linalg.svd(arr, full_matrices=full_matrices, compute_uv=compute_uv)


class LinalgSvdBackward0(Node):
    """Singular values only (svdvals): grad_A = U diag(g) Vh."""

    def __init__(self, A):
        super().__init__(A)
        self.A = self.save(A)

    def backward(self, g):
        u, _, vh = _svd_np(self.A.unpack(), False)
        return ((u * np.asarray(g)[..., None, :]) @ vh,)


class LinalgCholeskyExBackward0(Node):
    """A = L L^T: grad_A = sym(L^-T Phi(L^T g) L^-1), Phi the lower triangle with half its
    diagonal (``upper=True``: L = U^T, g transposed)."""

    def __init__(self, A, out, upper):
        super().__init__(A)
        self.out, self.upper = self.save(out, output=True), upper

    def backward(self, g):
        low, g = self.out.unpack(), np.asarray(g)
        if self.upper:
            low, g = _mT(low), _mT(g)
        phi = np.tril(_mT(low) @ g)
        n = phi.shape[-1]
        phi[..., range(n), range(n)] *= 0.5
        with np.errstate(all="ignore"):
            linv = np.linalg.inv(low) if low.size else low
        s = _mT(linv) @ phi @ linv
        return (0.5 * (s + _mT(s)),)
