"""``tensorlab.linalg`` against ``torch.linalg`` (torch 2.13.0): values over random shapes,
batches and dtypes (float32/float64, within a relative tolerance: both run a LAPACK, not the same
one), sign-ambiguous factors compared by reconstruction and by absolute values, errors (types
and messages, ``LinAlgError`` included), ``out=`` and gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import raises_same, require_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

torch = require_torch()

TOL = {"float32": (2e-4, 2e-5), "float64": (1e-10, 1e-12)}
dtypes = st.sampled_from(["float32", "float64"])
batches = st.lists(st.integers(0, 3), min_size=0, max_size=2).map(tuple)
sizes = st.integers(1, 5)


def pair(arr: np.ndarray, requires_grad: bool = False):
    ours = tl.tensor(arr, requires_grad=requires_grad)
    theirs = torch.tensor(arr, requires_grad=requires_grad)
    return ours, theirs


def close(ours, theirs, dtype="float64", scale: float = 1.0):
    rtol, atol = TOL[dtype]
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    np.testing.assert_allclose(
        ours.detach().numpy().astype(np.float64),
        theirs.detach().numpy().astype(np.float64),
        rtol=rtol * scale,
        atol=atol * scale,
    )


def well_conditioned(rng, shape, dtype):
    """Square matrices n x n with a dominant diagonal (condition number small)."""
    n = shape[-1]
    a = (
        rng.standard_normal(shape)
        + 2 * n * np.eye(n) * rng.choice([-1, 1], size=shape[:-1])[..., None]
    )
    return a.astype(dtype)


# ---------------------------------------------------------------------------------------------
# norms
# ---------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    batch=batches,
    n=sizes,
    dtype=dtypes,
    ord=st.sampled_from([2, 1, 0, 3, 0.5, math.inf, -math.inf, -1]),
    keepdim=st.booleans(),
    which=st.sampled_from([None, -1, 0, (0, -1)]),
    seed=st.integers(0, 2**16),
)
def test_vector_norm(batch, n, dtype, ord, keepdim, which, seed):
    arr = np.random.default_rng(seed).standard_normal((*batch, n)).astype(dtype)
    ours, theirs = pair(arr)
    dim = None if which is None or (which == (0, -1) and len(batch) == 0) else which
    if dim == 0 and not batch:
        dim = -1
    r_ours, r_theirs = raises_same(
        lambda: tl.linalg.vector_norm(ours, ord, dim, keepdim),
        lambda: torch.linalg.vector_norm(theirs, ord, dim, keepdim),
    )
    if r_theirs is not None:
        close(r_ours, r_theirs, dtype)


MATRIX_ORDS = ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf]


@settings(max_examples=40, deadline=None)
@given(
    batch=batches,
    m=sizes,
    n=sizes,
    dtype=dtypes,
    ord=st.sampled_from(MATRIX_ORDS),
    keepdim=st.booleans(),
    dim=st.sampled_from([(-2, -1), (-1, -2), (0, -1)]),
    seed=st.integers(0, 2**16),
)
def test_matrix_norm(batch, m, n, dtype, ord, keepdim, dim, seed):
    arr = np.random.default_rng(seed).standard_normal((*batch, m, n)).astype(dtype)
    ours, theirs = pair(arr)
    r_ours, r_theirs = raises_same(
        lambda: tl.linalg.matrix_norm(ours, ord, dim, keepdim),
        lambda: torch.linalg.matrix_norm(theirs, ord, dim, keepdim),
    )
    if r_theirs is not None:
        close(r_ours, r_theirs, dtype, scale=10)


@pytest.mark.parametrize("ord", [None, "fro", "nuc", 2, -2, 1, -1, math.inf, 3])
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("dim", [None, 1, (0, 1), (0, 1, 2)])
def test_norm_dispatch(ord, shape, dim):
    arr = np.random.default_rng(0).standard_normal(shape)
    ours, theirs = pair(arr)
    r_ours, r_theirs = raises_same(
        lambda: tl.linalg.norm(ours, ord, dim), lambda: torch.linalg.norm(theirs, ord, dim)
    )
    if r_theirs is not None:
        close(r_ours, r_theirs)


def test_norm_shares_torch_norm_kernel():
    arr = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    ours, _ = pair(arr)
    assert tl.linalg.norm(ours).item() == tl.norm(ours).item()
    assert tl.linalg.matrix_norm(ours, "nuc").item() == tl.norm(ours, "nuc").item()


# ---------------------------------------------------------------------------------------------
# inv, det, slogdet, solve, matrix_power
# ---------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(batch=batches, n=sizes, dtype=dtypes, seed=st.integers(0, 2**16))
def test_inv_det_slogdet(batch, n, dtype, seed):
    arr = well_conditioned(np.random.default_rng(seed), (*batch, n, n), dtype)
    ours, theirs = pair(arr)
    close(tl.linalg.inv(ours), torch.linalg.inv(theirs), dtype, scale=10)
    close(tl.linalg.det(ours), torch.linalg.det(theirs), dtype, scale=10)
    s_ours, s_theirs = tl.linalg.slogdet(ours), torch.linalg.slogdet(theirs)
    close(s_ours.sign, s_theirs.sign, dtype)
    close(s_ours.logabsdet, s_theirs.logabsdet, dtype, scale=10)
    close(tl.det(ours), torch.det(theirs), dtype, scale=10)
    close(ours.inverse(), theirs.inverse(), dtype, scale=10)


@settings(max_examples=40, deadline=None)
@given(
    batch_a=batches,
    batch_b=st.sampled_from(["same", "none", "one"]),
    n=sizes,
    k=st.integers(0, 3),
    dtype=dtypes,
    left=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_solve(batch_a, batch_b, n, k, dtype, left, seed):
    rng = np.random.default_rng(seed)
    a = well_conditioned(rng, (*batch_a, n, n), dtype)
    bb = {"same": batch_a, "none": (), "one": (1,) * len(batch_a)}[batch_b]
    b_shape = (*bb, n) if k == 0 else ((*bb, n, k) if left else (*bb, k, n))
    b = rng.standard_normal(b_shape).astype(dtype)
    (A, tA), (B, tB) = pair(a), pair(b)
    r_ours, r_theirs = raises_same(
        lambda: tl.linalg.solve(A, B, left=left), lambda: torch.linalg.solve(tA, tB, left=left)
    )
    if r_theirs is not None:
        close(r_ours, r_theirs, dtype, scale=10)


@pytest.mark.parametrize("n", [-3, -1, 0, 1, 2, 3, 5, 6, 7])
def test_matrix_power(n):
    arr = well_conditioned(np.random.default_rng(n + 10), (2, 3, 3), "float64") / 6
    ours, theirs = pair(arr)
    close(tl.linalg.matrix_power(ours, n), torch.linalg.matrix_power(theirs, n))
    ints = np.arange(9).reshape(3, 3)
    if n >= 0:
        o, t = pair(ints)
        np.testing.assert_array_equal(
            tl.linalg.matrix_power(o, n).numpy(), torch.linalg.matrix_power(t, n).numpy()
        )


# ---------------------------------------------------------------------------------------------
# matmul, cross, vecdot
# ---------------------------------------------------------------------------------------------


def test_products():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((4, 3))
    (A, tA), (B, tB) = pair(a), pair(b)
    close(tl.linalg.matmul(A, B.mT), torch.linalg.matmul(tA, tB.mT))
    close(tl.linalg.cross(A, B[None]), torch.linalg.cross(tA, tB[None]))
    close(tl.linalg.cross(A.mT, B.mT[None], dim=1), torch.linalg.cross(tA.mT, tB.mT[None], dim=1))
    close(tl.linalg.vecdot(A, B), torch.linalg.vecdot(tA, tB))
    close(tl.linalg.vecdot(A, B, dim=-2), torch.linalg.vecdot(tA, tB, dim=-2))
    close(tl.linalg.vecdot(A[0, 0], B[0]), torch.linalg.vecdot(tA[0, 0], tB[0]))


# ---------------------------------------------------------------------------------------------
# factorizations
# ---------------------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(batch=batches, n=sizes, dtype=dtypes, uplo=st.sampled_from("LU"), seed=st.integers(0, 99))
def test_eigh(batch, n, dtype, uplo, seed):
    rng = np.random.default_rng(seed)
    arr = rng.standard_normal((*batch, n, n)).astype(dtype)
    ours, theirs = pair(arr)  # not symmetric: only the UPLO triangle is read
    w, v = tl.linalg.eigh(ours, uplo)
    tw, tv = torch.linalg.eigh(theirs, uplo)
    close(w, tw, dtype, scale=50)
    close(tl.linalg.eigvalsh(ours, uplo), tw, dtype, scale=50)
    close(v.abs() @ v.abs().mT * 0, tv.abs() @ tv.abs().mT * 0, dtype)  # shapes and dtypes
    sym = torch.tril(theirs) if uplo == "L" else torch.triu(theirs)
    sym = sym + sym.mT - torch.diag_embed(torch.diagonal(sym, 0, -2, -1))
    recon = v.numpy() @ (w.numpy()[..., None] * v.mT.numpy())
    np.testing.assert_allclose(recon, sym.numpy(), rtol=0, atol=TOL[dtype][0] * 50)


@settings(max_examples=30, deadline=None)
@given(batch=batches, m=sizes, n=sizes, dtype=dtypes, full=st.booleans(), seed=st.integers(0, 99))
def test_svd(batch, m, n, dtype, full, seed):
    arr = np.random.default_rng(seed).standard_normal((*batch, m, n)).astype(dtype)
    ours, theirs = pair(arr)
    u, s, vh = tl.linalg.svd(ours, full)
    tu, ts, tvh = torch.linalg.svd(theirs, full)
    close(s, ts, dtype, scale=10)
    close(tl.linalg.svdvals(ours), ts, dtype, scale=10)
    assert u.shape == tuple(tu.shape) and vh.shape == tuple(tvh.shape)
    k = min(m, n)
    recon = (u.numpy()[..., :k] * s.numpy()[..., None, :]) @ vh.numpy()[..., :k, :]
    np.testing.assert_allclose(recon, arr, atol=TOL[dtype][0] * 20)


@settings(max_examples=30, deadline=None)
@given(
    batch=batches,
    m=sizes,
    n=sizes,
    dtype=dtypes,
    mode=st.sampled_from(["reduced", "complete", "r"]),
    seed=st.integers(0, 99),
)
def test_qr(batch, m, n, dtype, mode, seed):
    arr = np.random.default_rng(seed).standard_normal((*batch, m, n)).astype(dtype)
    ours, theirs = pair(arr)
    q, r = tl.linalg.qr(ours, mode)
    tq, tr = torch.linalg.qr(theirs, mode)
    assert q.shape == tuple(tq.shape) and r.shape == tuple(tr.shape)
    close(r.abs(), tr.abs(), dtype, scale=20)  # Householder QR: signs as LAPACK's
    if mode != "r":
        np.testing.assert_allclose(q.numpy() @ r.numpy(), arr, atol=TOL[dtype][0] * 20)


@settings(max_examples=30, deadline=None)
@given(batch=batches, n=sizes, dtype=dtypes, upper=st.booleans(), seed=st.integers(0, 99))
def test_cholesky(batch, n, dtype, upper, seed):
    a = np.random.default_rng(seed).standard_normal((*batch, n, n))
    spd = (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)
    ours, theirs = pair(spd)
    close(
        tl.linalg.cholesky(ours, upper=upper),
        torch.linalg.cholesky(theirs, upper=upper),
        dtype,
        scale=10,
    )


def with_singular_values(rng, batch, m, n, rank):
    """m x n matrices U diag(s) V^T whose first ``rank`` singular values lie in [1, 10] and the
    rest are 0 (up to the rounding of the product, ~eps * 10)."""
    k = min(m, n)
    u = np.linalg.qr(rng.standard_normal((*batch, m, m)))[0][..., :k]
    v = np.linalg.qr(rng.standard_normal((*batch, n, n)))[0][..., :k]
    s = np.where(np.arange(k) < rank, rng.uniform(1, 10, (*batch, k)), 0.0)
    return (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)


@settings(max_examples=30, deadline=None)
@given(
    batch=batches, m=sizes, n=sizes, rank=st.integers(1, 5), dtype=dtypes, seed=st.integers(0, 99)
)
def test_pinv_matrix_rank_lstsq(batch, m, n, rank, dtype, seed):
    """The rank of a rank-deficient float matrix is only defined up to a tolerance that lies
    well between its rounding noise (~eps * smax) and its smallest true singular value. The
    default tolerance (``max(m, n) * eps * smax``) sits on that noise: whether a noise singular
    value falls under it is each LAPACK's rounding (measured: up to 0.66 of it, numpy's OpenBLAS
    and torch's MKL). So the default is compared with torch on full-rank matrices, and the
    rank-deficient ones with an explicit ``rtol`` (1e-3 in float32: the Gram matrices square the
    singular values)."""
    rng = np.random.default_rng(seed)
    r = min(rank, m, n)
    rtol = {"float32": 1e-3, "float64": 1e-9}[dtype]
    for arr, kw in (
        (with_singular_values(rng, batch, m, n, min(m, n)), {}),
        (with_singular_values(rng, batch, m, n, r), {"rtol": rtol}),
    ):
        arr = arr.astype(dtype)
        ours, theirs = pair(arr)
        close(tl.linalg.pinv(ours, **kw), torch.linalg.pinv(theirs, **kw), dtype, scale=1000)
        rk, trk = tl.linalg.matrix_rank(ours, **kw), torch.linalg.matrix_rank(theirs, **kw)
        np.testing.assert_array_equal(rk.numpy(), trk.numpy())
        want = min(m, n) if not kw else r
        np.testing.assert_array_equal(rk.numpy(), np.full(batch, want))
        assert rk.dtype is tl.int64
        # the smaller Gram matrix (A A^T or A^T A) has the rank of A, so it is full rank too
        at = np.swapaxes(arr, -1, -2)
        o, t = pair(arr @ at if m <= n else at @ arr)
        rk = tl.linalg.matrix_rank(o, hermitian=True, **kw)
        np.testing.assert_array_equal(
            rk.numpy(), torch.linalg.matrix_rank(t, hermitian=True, **kw).numpy()
        )
        np.testing.assert_array_equal(rk.numpy(), np.full(batch, want))
    full = rng.standard_normal((*batch, m, n)).astype(dtype)
    b = rng.standard_normal((*batch, m, 2)).astype(dtype)
    (A, tA), (B, tB) = pair(full), pair(b)
    res, tres = tl.linalg.lstsq(A, B), torch.linalg.lstsq(tA, tB)
    close(res.solution, tres.solution, dtype, scale=1e3)
    np.testing.assert_array_equal(res.rank.numpy(), tres.rank.numpy())
    for driver in ("gelsd", "gelss"):
        res, tres = tl.linalg.lstsq(A, B, driver=driver), torch.linalg.lstsq(tA, tB, driver=driver)
        close(res.solution, tres.solution, dtype, scale=1e3)
        close(res.singular_values, tres.singular_values, dtype, scale=10)
        close(res.residuals, tres.residuals, dtype, scale=1e3)


# ---------------------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------------------

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]


def _cases():
    sq, rect, ints, vec = (
        np.eye(2),
        np.ones((2, 3)),
        np.ones((2, 2), np.int64),
        np.ones(3),
    )
    batch_singular = np.stack([np.eye(2), np.array(SINGULAR)])
    half = np.ones((2, 2), np.float16)
    not_pd = np.stack([np.eye(2), -np.eye(2)])
    cases = []
    for name in "inv det slogdet cholesky eigh eigvalsh svd svdvals qr pinv matrix_rank".split():
        for arr in (np.array(SINGULAR), rect, ints, vec, batch_singular, not_pd, half):
            cases.append((name, (arr,), {}))
    cases += [
        ("solve", (np.array(SINGULAR), np.ones(2)), {}),
        ("solve", (rect, np.ones(2)), {}),
        ("solve", (ints, ints), {}),
        ("solve", (sq, np.ones(3)), {}),
        ("solve", (batch_singular, np.ones((2, 2))), {}),
        ("solve", (sq, np.ones(2, np.float32)), {}),
        ("solve", (half, half), {}),
        ("matrix_power", (np.array(SINGULAR), -1), {}),
        ("matrix_power", (rect, 2), {}),
        ("matrix_power", (ints, -1), {}),
        ("matrix_power", (vec, 2), {}),
        ("vecdot", (vec, np.ones(4)), {}),
        ("vecdot", (vec, np.ones(3, np.int64)), {}),
        ("cross", (vec, np.ones(4)), {}),
        ("cross", (np.ones(2), np.ones(2)), {}),
        ("cross", (np.ones((2, 3)), np.ones(3)), {}),
        ("cross", (np.ones((2, 3)), np.ones((1, 3))), {"dim": 0}),
        ("solve", (sq, np.ones(2)), {"left": False}),
        ("solve", (np.ones((1, 1)), np.ones(1)), {"left": False}),
        ("matrix_norm", (sq, 3), {}),
        ("matrix_norm", (sq, "abc"), {}),
        ("matrix_norm", (ints,), {}),
        ("matrix_norm", (vec,), {}),
        ("matrix_norm", (sq,), {"dim": (0, 0)}),
        ("matrix_norm", (sq, 2), {"dim": (1, -1)}),
        ("norm", (np.ones((2, 2, 2)),), {}),
        ("norm", (np.ones((2, 2, 2)), 2), {}),
        ("norm", (vec, "fro"), {}),
        ("norm", (np.ones((2, 2, 2)), "fro"), {}),
        ("norm", (np.ones((2, 2, 2)),), {"dim": (0, 1, 2)}),
        ("norm", (ints,), {}),
        ("vector_norm", (ints,), {}),
        ("vector_norm", (vec,), {"dtype": "int64"}),
        ("vector_norm", (vec, "fro"), {}),
        ("vector_norm", (np.ones((0, 3)), math.inf), {}),
        ("lstsq", (rect, np.ones(3)), {}),
        ("lstsq", (ints, ints), {}),
        ("qr", (sq,), {"mode": "full"}),
        ("eigh", (sq,), {"UPLO": "X"}),
    ]
    return cases


def _convert(lib, x):
    if isinstance(x, np.ndarray):
        return lib.tensor(x)
    if x == "int64":
        return lib.int64
    return x


@pytest.mark.parametrize("name, args, kwargs", _cases())
def test_errors(name, args, kwargs):
    ours_args = [_convert(tl, a) for a in args]
    theirs_args = [_convert(torch, a) for a in args]
    ok = {k: _convert(tl, v) for k, v in kwargs.items()}
    tk = {k: _convert(torch, v) for k, v in kwargs.items()}
    r_ours, r_theirs = raises_same(
        lambda: getattr(tl.linalg, name)(*ours_args, **ok),
        lambda: getattr(torch.linalg, name)(*theirs_args, **tk),
    )


def test_linalg_error_class():
    assert issubclass(tl.linalg.LinAlgError, RuntimeError)
    with pytest.raises(tl.linalg.LinAlgError):
        tl.linalg.inv(tl.tensor(SINGULAR))


# ---------------------------------------------------------------------------------------------
# out= and gradients
# ---------------------------------------------------------------------------------------------


def test_out():
    arr = well_conditioned(np.random.default_rng(5), (2, 3, 3), "float64")
    ours, theirs = pair(arr)
    o, t = tl.empty(0, dtype=tl.float64), torch.empty(0, dtype=torch.float64)
    r = tl.linalg.inv(ours, out=o)
    torch.linalg.inv(theirs, out=t)
    assert r is o
    close(o, t)
    o, t = tl.empty(0, dtype=tl.float64), torch.empty(0, dtype=torch.float64)
    tl.linalg.vector_norm(ours, 3, out=o)
    torch.linalg.vector_norm(theirs, 3, out=t)
    close(o, t)


GRAD_CASES = {
    "vector_norm": lambda L, x: L.vector_norm(x, 3, dim=-1),
    "vector_norm_2": lambda L, x: L.vector_norm(x),
    "matrix_norm_fro": lambda L, x: L.matrix_norm(x),
    "matrix_norm_2": lambda L, x: L.matrix_norm(x, 2),
    "matrix_norm_inf": lambda L, x: L.matrix_norm(x, -math.inf),
    "norm": lambda L, x: L.norm(x, dim=(-2, -1)),
    "inv": lambda L, x: L.inv(x),
    "det": lambda L, x: L.det(x),
    "logabsdet": lambda L, x: L.slogdet(x)[1],
    "solve_matrix": lambda L, x: L.solve(x, x.mT[..., :2]),
    "solve_vector": lambda L, x: L.solve(x, x[..., 0]),
    "solve_right": lambda L, x: L.solve(x, x[..., :2, :], left=False),
    "svdvals": lambda L, x: L.svdvals(x),
    "eigvalsh": lambda L, x: L.eigvalsh(x + x.mT),
    "matrix_power": lambda L, x: L.matrix_power(x, -3),
    "cholesky": lambda L, x: L.cholesky(x @ x.mT),
    "cholesky_upper": lambda L, x: L.cholesky(x @ x.mT, upper=True),
    "vecdot": lambda L, x: L.vecdot(x, x.sin()),
    "cross": lambda L, x: L.cross(x, x.cos()),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
@pytest.mark.parametrize("batch", [(), (2,)])
def test_gradients(case, batch):
    f = GRAD_CASES[case]
    arr = well_conditioned(np.random.default_rng(7), (*batch, 3, 3), "float64") / 6
    ours, theirs = pair(arr, requires_grad=True)
    r_ours, r_theirs = f(tl.linalg, ours), f(torch.linalg, theirs)
    close(r_ours, r_theirs)
    weights = np.random.default_rng(8).standard_normal(tuple(r_theirs.shape))
    (r_ours * tl.tensor(weights)).sum().backward()
    (r_theirs * torch.tensor(weights)).sum().backward()
    close(ours.grad, theirs.grad, scale=100)
    assert (r_ours.grad_fn is None) == (r_theirs.grad_fn is None)


def test_grad_fn_names():
    arr = well_conditioned(np.random.default_rng(9), (3, 3), "float64")
    ours, theirs = pair(arr, requires_grad=True)
    for name in ("inv", "det", "svdvals", "vector_norm"):
        a, b = getattr(tl.linalg, name)(ours), getattr(torch.linalg, name)(theirs)
        assert a.grad_fn.name() == b.grad_fn.name(), name
    a, b = tl.linalg.solve(ours, ours[0]), torch.linalg.solve(theirs, theirs[0])
    assert a.grad_fn.name() == b.grad_fn.name()


def _exact_det(m: list[list[int]]) -> int:
    """The determinant by cofactor expansion along the first row, in Python integers (exact)."""
    if not m:
        return 1
    return sum(
        (-1) ** j * m[0][j] * _exact_det([row[:j] + row[j + 1 :] for row in m[1:]])
        for j in range(len(m))
    )


def _exact_cofactors(m: list[list[int]]) -> np.ndarray:
    """The cofactor matrix C[i][j] = (-1)^(i+j) det(minor_ij) = d det(A) / dA_ij, exactly."""
    n = len(m)
    minor = lambda i, j: [row[:j] + row[j + 1 :] for k, row in enumerate(m) if k != i]  # noqa: E731
    return np.array(
        [[(-1) ** (i + j) * _exact_det(minor(i, j)) for j in range(n)] for i in range(n)],
        dtype=np.float64,
    )


def _check_singular_det_gradient(m: list[list[int]]):
    """tensorlab returns the cofactor matrix (the true gradient, defined for singular matrices
    too). torch 2.13 returns it as well unless its LU finds the matrix *exactly* singular (its
    det is 0.0, which depends on the CPU's BLAS: on an AMD EPYC with AVX-512 the matrix of
    ``test_det_gradient_of_a_singular_matrix`` is, on Intel Xeons it is not); then its backward
    formula ``det * A^-T`` gives zeros. So torch is held to that set of answers, not to ours."""
    assert _exact_det(m) == 0
    cof = _exact_cofactors(m)
    scale = max(1.0, float(np.abs(cof).max()))
    arr = np.array(m, dtype=np.float64)
    ours, theirs = pair(arr, requires_grad=True)
    tl.linalg.det(ours).backward()
    np.testing.assert_allclose(ours.grad.numpy(), cof, rtol=0, atol=1e-9 * scale)
    det_theirs = torch.linalg.det(theirs)
    det_theirs.backward()
    got = theirs.grad.numpy()
    if det_theirs.item() == 0.0:
        np.testing.assert_array_equal(got, np.zeros_like(cof))
    else:
        np.testing.assert_allclose(got, cof, rtol=0, atol=1e-9 * scale)


def test_det_gradient_of_a_singular_matrix():
    # row 2 is twice row 1; the cofactors, by hand: [[4, 4, -4], [-2, -2, 2], [0, 0, 0]]
    m = [[1, 2, 3], [2, 4, 6], [1, 0, 1]]
    np.testing.assert_array_equal(_exact_cofactors(m), [[4, 4, -4], [-2, -2, 2], [0, 0, 0]])
    _check_singular_det_gradient(m)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 5),
    data=st.data(),
)
def test_det_gradient_of_singular_integer_matrices(n, data):
    """Rank n-1 (or less): one row is an integer combination of the others."""
    entries = st.integers(-5, 5)
    rows = data.draw(st.lists(st.lists(entries, min_size=n, max_size=n), min_size=n, max_size=n))
    r = data.draw(st.integers(0, n - 1))
    coef = data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    rows[r] = [sum(coef[k] * rows[k][j] for k in range(n) if k != r) for j in range(n)]
    _check_singular_det_gradient(rows)


def test_import_is_lazy():
    import subprocess
    import sys

    code = "import sys, tensorlab; print('tensorlab.linalg' in sys.modules, 'scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# ---------------------------------------------------------------------------------------------
# torch.det / torch.inverse / torch.logdet and the methods; lstsq's broadcast batch
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_top_level_functions(seed):
    arr = np.random.default_rng(seed).standard_normal((3, 3, 3))
    ours, theirs = pair(arr, requires_grad=True)
    close(tl.logdet(ours), torch.logdet(theirs))
    close(ours.logdet(), theirs.logdet())
    close(ours.det(), theirs.det())
    close(tl.inverse(ours), torch.inverse(theirs), scale=100)
    fine = torch.logdet(theirs).isfinite()
    tl.logdet(ours)[tl.tensor(fine.numpy())].sum().backward()
    torch.logdet(theirs)[fine].sum().backward()
    close(ours.grad, theirs.grad, scale=100)
    assert tl.logdet(ours).grad_fn.name() == torch.logdet(theirs).grad_fn.name()
    for bad in (
        np.ones((2, 3)),
        np.ones((2, 2), np.int64),
        np.ones((2, 2), np.float16),
        np.ones(2),
    ):
        raises_same(
            lambda bad=bad: tl.logdet(tl.tensor(bad)),
            lambda bad=bad: torch.logdet(torch.tensor(bad)),
        )


def test_lstsq_rank_has_the_batch_of_A():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 3, 3)).astype(np.float32)
    a[:, 0] = 0
    b = rng.standard_normal((2, 3, 3)).astype(np.float32)
    (A, tA), (B, tB) = pair(a), pair(b)
    for driver in (None, "gelsd", "gels"):
        res, tres = tl.linalg.lstsq(A, B, driver=driver), torch.linalg.lstsq(tA, tB, driver=driver)
        np.testing.assert_array_equal(res.rank.numpy(), tres.rank.numpy())
        assert res.singular_values.shape == tuple(tres.singular_values.shape)
        if driver == "gelsd":  # the minimum-norm solution (gelsy/gels: LAPACK's own choice)
            close(res.solution, tres.solution, "float32", scale=100)
    raises_same(lambda: tl.linalg.lstsq(A[0], B), lambda: torch.linalg.lstsq(tA[0], tB))


@pytest.mark.parametrize(
    "f",
    [
        lambda L, x: L.eigh(x)[0],
        lambda L, x: L.svd(x)[0],
        lambda L, x: L.qr(x)[0],
        lambda L, x: L.pinv(x),
        lambda L, x: L.lstsq(x, x).solution,
    ],
)
def test_factorizations_keep_the_graph(f):
    """torch differentiates these; tensorlab records the node (torch's name) and its backward
    raises instead of silently cutting the graph."""
    arr = well_conditioned(np.random.default_rng(4), (3, 3), "float64")
    ours, theirs = pair(arr, requires_grad=True)
    r_ours, r_theirs = f(tl.linalg, ours), f(torch.linalg, theirs)
    assert r_ours.requires_grad and r_theirs.requires_grad
    assert r_ours.grad_fn.name() == r_theirs.grad_fn.name()
    with pytest.raises(RuntimeError, match="not implemented"):
        r_ours.sum().backward()


@settings(max_examples=30, deadline=None)
@given(
    shapes=st.lists(st.integers(1, 5), min_size=3, max_size=6),
    vec_first=st.booleans(),
    vec_last=st.booleans(),
    seed=st.integers(0, 99),
)
def test_multi_dot(shapes, vec_first, vec_last, seed):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal((shapes[i], shapes[i + 1])) for i in range(len(shapes) - 1)]
    if vec_first:
        arrs[0] = arrs[0][0]
    if vec_last:
        arrs[-1] = arrs[-1][:, 0]
    ours = [tl.tensor(a, requires_grad=True) for a in arrs]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrs]
    r_ours, r_theirs = tl.linalg.multi_dot(ours), torch.linalg.multi_dot(theirs)
    close(r_ours, r_theirs)
    r_ours.sum().backward()
    r_theirs.sum().backward()
    for o, t in zip(ours, theirs):
        close(o.grad, t.grad)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("N", [None, 2, 5])
def test_vander_and_diagonal(dtype, N):
    arr = (np.arange(-3, 3).reshape(2, 3) * 0.7).astype(dtype)
    ours, theirs = pair(arr)
    o, t = tl.linalg.vander(ours, N=N), torch.linalg.vander(theirs, N=N)
    assert o.dtype is getattr(tl, dtype)
    np.testing.assert_array_equal(o.numpy(), t.numpy())
    d_o, d_t = tl.linalg.diagonal(ours, offset=1), torch.linalg.diagonal(theirs, offset=1)
    np.testing.assert_array_equal(d_o.numpy(), d_t.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda L, lib: L.multi_dot([lib.ones(3)]),
        lambda L, lib: L.multi_dot([lib.ones(3), lib.ones(2, 2)]),
        lambda L, lib: L.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]),
        lambda L, lib: L.multi_dot([lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)]),
        lambda L, lib: L.multi_dot([]),
        lambda L, lib: L.vander(lib.ones(3), N=1),
        lambda L, lib: L.vander(lib.ones(3, dtype=lib.bool)),
        lambda L, lib: L.diagonal(lib.ones(3)),
    ],
)
def test_more_errors(call):
    raises_same(lambda: call(tl.linalg, tl), lambda: call(torch.linalg, torch))


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("kind", ["random", "singular", "empty"])
def test_cond(p, kind):
    if kind == "random":
        arr = np.random.default_rng(2).standard_normal((2, 3, 3))
    elif kind == "singular":
        arr = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 3.0]]])
    else:
        arr = np.zeros((2, 0, 0))
    ours, theirs = pair(arr)
    o, t = tl.linalg.cond(ours, p), torch.linalg.cond(theirs, p)
    if kind == "singular" and p not in ("fro", 1, -1, math.inf, -math.inf):
        # the smallest singular value of an exactly singular matrix is LAPACK's rounding
        assert o.shape == tuple(t.shape)
        close(o[1], t[1], scale=100)
        return
    close(o, t, scale=100)


@pytest.mark.parametrize(
    "arr, p",
    [
        (np.ones((2, 3)), 1),
        (np.ones((2, 3)), math.inf),
        (np.ones((2, 3)), "fro"),
        (np.ones(3), 2),
        (np.ones(3), 1),
        (np.ones(3), "fro"),
        (np.ones((2, 2)), 3),
        (np.ones((2, 2)), "abc"),
        (np.ones((2, 2), np.int64), None),
        (np.ones((2, 2), np.int64), 1),
    ],
)
def test_cond_errors(arr, p):
    raises_same(
        lambda: tl.linalg.cond(tl.tensor(arr), p), lambda: torch.linalg.cond(torch.tensor(arr), p)
    )


OUT_GRAD = {
    "inv": lambda L, x, o: L.inv(x, out=o),
    "det": lambda L, x, o: L.det(x, out=o),
    "solve": lambda L, x, o: L.solve(x, x, out=o),
    "cholesky": lambda L, x, o: L.cholesky(x, out=o),
    "vector_norm": lambda L, x, o: L.vector_norm(x, out=o),
    "matrix_norm": lambda L, x, o: L.matrix_norm(x, out=o),
    "matrix_norm_2": lambda L, x, o: L.matrix_norm(x, 2, out=o),
    "norm": lambda L, x, o: L.norm(x, out=o),
    "svdvals": lambda L, x, o: L.svdvals(x, out=o),
    "eigvalsh": lambda L, x, o: L.eigvalsh(x, out=o),
    "pinv": lambda L, x, o: L.pinv(x, out=o),
    "cross": lambda L, x, o: L.cross(x, x, out=o),
    "vecdot": lambda L, x, o: L.vecdot(x, x, out=o),
    "matrix_power": lambda L, x, o: L.matrix_power(x, 2, out=o),
    "matrix_rank": lambda L, x, o: L.matrix_rank(x, out=o),
    "cond": lambda L, x, o: L.cond(x, out=o),
    "multi_dot": lambda L, x, o: L.multi_dot([x, x], out=o),
    "qr": lambda L, x, o: L.qr(x, out=(o, o.new_empty(0))),
}


@pytest.mark.parametrize("name", sorted(OUT_GRAD))
def test_out_with_an_input_that_requires_grad(name):
    """torch refuses out= when an input requires grad, naming its own kernel; its composite
    norms (matrix_norm, norm, cond, matrix_rank) accept it."""
    f = OUT_GRAD[name]
    arr = np.eye(3) * 2
    ours, theirs = pair(arr, requires_grad=True)
    o_out, t_out = tl.empty(0, dtype=tl.float64), torch.empty(0, dtype=torch.float64)
    if name == "matrix_rank":
        o_out, t_out = tl.empty(0, dtype=tl.int64), torch.empty(0, dtype=torch.int64)
    raises_same(lambda: f(tl.linalg, ours, o_out), lambda: f(torch.linalg, theirs, t_out))
