"""Float ``sum`` and ``mean`` bit for bit with torch's CPU ``cascade_sum`` (ATen SumKernel.cpp).

What the model covers exactly (``tensorlab/_ops/_cascade.py``): the x86-64 kernel torch runs on
AVX2 and AVX512 CPUs (the sum kernels have no AVX512 build: 8-float vectors either way) and its
default build (8-float generic vectors), for every thread count: reductions under 32768 elements
run on one thread; bigger ones are split as torch splits them (a single output in equal ranges
of the iterator's order, one partial per thread; several outputs by column ranges of the outermost
kept dim), and the model splits the same way for ``torch.get_num_threads()`` threads (the tests set
it). Measured exact with 1, 2, 3 and 4 threads. Where the model may not hold — another CPU
architecture (arm64's ``Vectorized<float>`` may have 4 lanes) — the tests compare within a few
ulp instead, and say so.
"""

from __future__ import annotations

import platform

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab._ops import _cascade

NEAR_BOUNDARIES = [*range(1, 10), 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257]
SIZES = st.one_of(st.sampled_from(NEAR_BOUNDARIES), st.integers(1000, 5000))
DTYPES = st.sampled_from(["float32", "float64", "float16"])


def _exact_model(torch) -> bool:
    """The vector width the model assumes (8 floats) is x86-64's on every capability."""
    return platform.machine().lower() in ("x86_64", "amd64") or (
        torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512", "DEFAULT")
    )


@pytest.fixture(scope="module")
def threads(torch):
    """The model splits big reductions for as many threads as torch has."""
    before = _cascade.THREADS
    _cascade.THREADS = torch.get_num_threads()
    yield _cascade.THREADS
    _cascade.THREADS = before


def _same(torch, ours, theirs):
    a, b = ours.numpy(), theirs.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    if _exact_model(torch):
        assert a.tobytes() == b.tobytes(), (a.ravel()[:4], b.ravel()[:4])
    else:  # another vector width: the same sum in another order, a few ulp apart
        ulp = np.spacing(np.abs(b).astype(a.dtype)).astype(np.float64)
        assert np.all(np.abs(a.astype(np.float64) - b) <= 8 * ulp + 1e-30)


def _layout(torch, a: np.ndarray, how: str, pick):
    """The same values in torch and tensorlab, contiguous, permuted, strided or expanded."""
    ours, theirs = tl.tensor(a), torch.from_numpy(a.copy())
    nd = a.ndim
    if how == "permuted" and nd > 1:
        perm = pick(st.permutations(range(nd)))
        ours, theirs = ours.permute(*perm), theirs.permute(*perm)
    elif how == "strided":
        d = pick(st.integers(0, nd - 1))
        index = tuple(slice(None, None, 2) if i == d else slice(None) for i in range(nd))
        ours, theirs = ours[index], theirs[index]
    elif how == "expanded":
        shape = (3, *a.shape)
        ours, theirs = ours.expand(*shape), theirs.expand(*shape)
    return ours, theirs


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    ndim=st.integers(1, 4),
    dtype=DTYPES,
    how=st.sampled_from(["contiguous", "permuted", "strided", "expanded"]),
    op=st.sampled_from(["sum", "mean"]),
    keepdim=st.booleans(),
)
def test_sum_and_mean_bits_equal_torchs(torch, threads, data, ndim, dtype, how, op, keepdim):
    sizes = []
    for _ in range(ndim):
        budget = 200_000 // max(1, int(np.prod(sizes)))
        size = data.draw(SIZES if budget >= 5000 else st.integers(1, max(1, min(budget, 300))))
        sizes.append(max(1, min(size, budget)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    a = (rng.standard_normal(sizes) * 50).astype(dtype)
    ours, theirs = _layout(torch, a, how, data.draw)
    nd = ours.ndim
    dims = data.draw(
        st.one_of(
            st.none(),
            st.integers(-nd, nd - 1),
            st.lists(st.integers(0, nd - 1), min_size=1, max_size=nd, unique=True).map(tuple),
        )
    )
    if dims is None:
        _same(torch, getattr(ours, op)(), getattr(theirs, op)())
    else:
        _same(torch, getattr(ours, op)(dims, keepdim), getattr(theirs, op)(dims, keepdim))


@settings(max_examples=60, deadline=None)
@given(
    n=st.one_of(st.sampled_from(NEAR_BOUNDARIES), st.integers(1000, 5000)), seed=st.integers(0, 99)
)
def test_1d_sums_at_the_chunk_ilp_and_vector_boundaries(torch, threads, n, seed):
    a = (np.random.default_rng(seed).standard_normal(n) * 100).astype(np.float32)
    _same(torch, tl.tensor(a).sum(), torch.from_numpy(a).sum())
    _same(torch, tl.tensor(a).mean(), torch.from_numpy(a).mean())


@pytest.mark.parametrize(
    ("shape", "dims"),
    [
        ((1_000_000,), None),  # split between threads (two_pass_reduction)
        ((40_000, 3), 0),  # outer reduction, several outputs
        ((3, 40_000), 1),  # inner reduction, several outputs
        ((300, 200), 0),  # the kept dim split between threads in column ranges
        ((1119, 39), 0),  # ranges rounded down to 128 bytes: the first empty, the second all 39
        ((1270, 68), 0),  # 64 + 4 columns: the rounded-down split, not 34 + 34
        ((700, 100), 0),
        ((200, 300), 1),
        ((33, 1000, 5), None),  # non-coalescable full reduction cut mid-row
        ((2, 3, 40_000), (0, 1)),
        ((65, 65, 65), 1),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_reductions_torch_splits_between_threads(torch, monkeypatch, shape, dims, dtype, nthreads):
    before = torch.get_num_threads()
    torch.set_num_threads(nthreads)
    monkeypatch.setattr(_cascade, "THREADS", nthreads)
    try:
        a = (np.random.default_rng(7).standard_normal(shape) * 10).astype(dtype)
        for view in (lambda t: t, lambda t: t.transpose(0, -1), lambda t: t[..., ::2]):
            ours, theirs = view(tl.tensor(a)), view(torch.from_numpy(a))
            for op in ("sum", "mean"):
                got = getattr(ours, op)() if dims is None else getattr(ours, op)(dims)
                want = getattr(theirs, op)() if dims is None else getattr(theirs, op)(dims)
                _same(torch, got, want)
    finally:
        torch.set_num_threads(before)


def test_sum_with_a_dtype_and_an_integer_input(torch, threads):
    a = np.random.default_rng(1).standard_normal((70, 90)).astype(np.float32) * 10
    _same(
        torch,
        tl.tensor(a).t().sum(0, dtype=tl.float64),
        torch.from_numpy(a).t().sum(0, dtype=torch.float64),
    )
    i = np.random.default_rng(2).integers(-1000, 1000, (5000,))
    _same(torch, tl.tensor(i).sum(dtype=tl.float32), torch.from_numpy(i).sum(dtype=torch.float32))
    h = a.astype(np.float16)
    _same(torch, tl.tensor(h)[:, ::3].mean(), torch.from_numpy(h)[:, ::3].mean())


def test_a_print_that_differed_by_its_last_digit(torch, threads):
    """16 floats: torch adds 8-float vectors lane-wise, a running sum gives another last digit."""
    a = (np.random.default_rng(0).standard_normal(16) * 100).astype(np.float32)
    assert repr(tl.tensor(a).sum()) == repr(torch.from_numpy(a).sum())
    assert repr(tl.tensor(a).mean()) == repr(torch.from_numpy(a).mean())


def test_negative_zero_and_empty(torch, threads):
    for a in (
        np.array(-0.0, np.float32),
        np.full(40, -0.0, np.float32),
        np.zeros((0, 3), np.float32),
    ):
        _same(torch, tl.tensor(a).sum(), torch.from_numpy(a).sum())
    z = np.zeros((0, 3), np.float32)
    _same(torch, tl.tensor(z).sum(0), torch.from_numpy(z).sum(0))


@pytest.mark.parametrize("nthreads", [1, 2])
def test_big_reductions_split_along_the_outermost_dim(torch, monkeypatch, nthreads):
    """3- and 4-d iterators whose kept dims torch splits between threads."""
    before = torch.get_num_threads()
    torch.set_num_threads(nthreads)
    monkeypatch.setattr(_cascade, "THREADS", nthreads)
    try:
        a = np.random.default_rng(0).standard_normal((64, 17, 3, 33)).astype(np.float32)
        _same(torch, tl.tensor(a)[..., ::2].sum((0, 1)), torch.from_numpy(a)[..., ::2].sum((0, 1)))
        b = np.random.default_rng(1).standard_normal((17, 129, 33, 8)).astype(np.float32)
        ours, theirs = tl.tensor(b).permute(3, 0, 1, 2), torch.from_numpy(b).permute(3, 0, 1, 2)
        _same(torch, ours[..., ::1].mean(3), theirs[..., ::1].mean(3))
        c = np.random.default_rng(2).standard_normal((40000, 7)).astype(np.float32)
        _same(torch, tl.tensor(c)[:, ::2].sum(0), torch.from_numpy(c)[:, ::2].sum(0))
    finally:
        torch.set_num_threads(before)


@settings(max_examples=40, deadline=None)
@given(n=SIZES, seed=st.integers(0, 99), reduction=st.sampled_from(["mean", "sum"]))
def test_mse_loss_and_parameter_gradients(torch, threads, n, seed, reduction):
    """``F.mse_loss`` reduces, and autograd sums broadcast gradients, as ``Tensor.sum`` does."""
    rng = np.random.default_rng(seed)
    x, y = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    got = tl.nn.functional.mse_loss(tl.tensor(x), tl.tensor(y), reduction=reduction)
    want = torch.nn.functional.mse_loss(
        torch.from_numpy(x), torch.from_numpy(y), reduction=reduction
    )
    _same(torch, got, want)
    grads = []
    for lib, make in ((tl, tl.tensor), (torch, torch.from_numpy)):
        p = lib.tensor([1.0, 0.5], requires_grad=True)
        ((p[0] * make(x) + p[1] - make(y)) ** 2).mean().backward()
        grads.append(p.grad)
    _same(torch, *grads)
