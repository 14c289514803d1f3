"""tensorlab's random numbers are PyTorch's, bit for bit: for every random op, seed, size, dtype and
chain of draws, the same bits and the same 5,056-byte generator state after each draw.

Portability: where PyTorch on this machine takes another path than tensorlab models exactly (a
CPU without AVX2 or ``ATEN_CPU_CAPABILITY=default`` for float32 ``randn``; a C library other than
glibc for the float64 transcendental steps), the tests ask torch which path it takes and compare
those values within a few ulp; the words drawn, and so the generator state, stay exact.
"""

from __future__ import annotations

import platform

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab.random import _kernels as K

SIZES = [0, 1, 15, 16, 17, 100, 100_000]
SEEDS = st.one_of(
    st.integers(0, 2**32 - 1), st.integers(-(2**63), 2**64 - 1), st.sampled_from([0, 1, 42])
)


def _paths(torch):
    """(float32 normal exact, float64 libm exact) on this machine, asked of torch."""
    torch_avx2 = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    return torch_avx2 and K.AVX2, platform.libc_ver()[0] == "glibc" and torch_avx2


def _arrays(x) -> list[np.ndarray]:
    if isinstance(x, (list, tuple)):
        return [a for v in x for a in _arrays(v)]
    if hasattr(x, "_np"):
        return [np.ascontiguousarray(x.detach()._np())]
    return [np.ascontiguousarray(x.detach().numpy())]


def _same(a: np.ndarray, b: np.ndarray, ulps: int | None, where) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype, (where, a.dtype, b.dtype, a.shape, b.shape)
    if ulps is None or a.dtype.kind != "f":
        if not np.array_equal(a.view(np.uint8), b.view(np.uint8)):
            bad = np.nonzero(a.ravel() != b.ravel())[0][:5]
            raise AssertionError(f"{where}: at {bad}: {a.ravel()[bad]} vs {b.ravel()[bad]}")
    else:
        gap = np.abs(a.astype(np.float64) - b.astype(np.float64))
        # ulps at the scale of the draws (r cos θ near 0 carries r's error)
        scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), 4.0).astype(a.dtype)
        assert (gap <= ulps * np.spacing(scale)).all(), (where, gap.max())


def check(torch, call, seed: int, *, ulps: int | None = None, state: bool = True) -> None:
    """``call(lib)`` from ``manual_seed(seed)`` in both libraries, twice in a row: the same bits
    (or within ``ulps`` units in the last place), then the same generator state."""
    torch.manual_seed(seed)
    tl.manual_seed(seed)
    for k in range(2):
        ours, theirs = _arrays(call(tl)), _arrays(call(torch))
        assert len(ours) == len(theirs)
        for i, (b, a) in enumerate(zip(ours, theirs)):
            _same(a, b, ulps, f"draw {k}, tensor {i}")
        if state:
            sa, sb = torch.get_rng_state().numpy(), tl.get_rng_state().numpy()
            assert np.array_equal(sa, sb), (k, np.nonzero(sa != sb)[0][:10])


def _tol(torch, dtype: str, normal: bool):
    f32_exact, libm_exact = _paths(torch)
    if dtype == "float64":
        return None if (libm_exact and (f32_exact or not normal)) else 4
    return None if (f32_exact or not normal) else 4


def _any_tol(torch):
    """The tolerance for a mix of draws (normal ones of every dtype among them)."""
    f32_exact, libm = _paths(torch)
    return None if (f32_exact and libm) else 4


# ---------------------------------------------------------------------------- factories
FACTORIES = {
    "rand": (lambda L, n, d: L.rand(n, dtype=getattr(L, d)), False),
    "randn": (lambda L, n, d: L.randn(n, dtype=getattr(L, d)), True),
    "uniform_": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).uniform_(-1.5, 2.25), False),
    "normal_": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).normal_(0.5, 3.0), True),
    "exponential_": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).exponential_(1.5), True),
    "bernoulli_": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).bernoulli_(0.3), False),
    "random_": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).random_(), False),
    "random_ft": (lambda L, n, d: L.empty(n, dtype=getattr(L, d)).random_(-7, 300), False),
    "strided normal_": (lambda L, n, d: L.empty(n, 3, dtype=getattr(L, d)).t().normal_(), True),
}


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("n", SIZES)
def test_float_factories_bits_and_state(torch, name, dtype, n):
    call, normal = FACTORIES[name]
    if n == 100_000 and dtype == "float16" and normal:
        n = 5_000
    check(torch, lambda L: call(L, n, dtype), 0, ulps=_tol(torch, dtype, normal))


@settings(max_examples=40)
@given(
    seed=SEEDS,
    n=st.sampled_from(SIZES[:-1]) | st.integers(0, 300),
    dtype=st.sampled_from(["float32", "float64", "float16"]),
    name=st.sampled_from(sorted(FACTORIES)),
)
def test_float_factories_over_seeds(torch, seed, n, dtype, name):
    call, normal = FACTORIES[name]
    check(torch, lambda L: call(L, n, dtype), seed, ulps=_tol(torch, dtype, normal))


@settings(max_examples=40)
@given(
    seed=SEEDS,
    n=st.sampled_from(SIZES[:-1]),
    bounds=st.sampled_from(
        [(0, 10), (-5, 5), (0, 2**28 - 1), (0, 2**28), (-(2**40), 2**40), (3, 4), (0, 2**62)]
    ),
    dtype=st.sampled_from(["int64", "int32", "int16", "uint8", "float32", "float64", "bool"]),
)
def test_integers(torch, seed, n, bounds, dtype):
    lo, hi = bounds
    info = np.iinfo(dtype) if dtype not in ("float32", "float64", "bool") else None
    if info is not None and (lo < info.min or hi - 1 > info.max):
        lo, hi = 0, 100
    if dtype == "bool":
        lo, hi = 0, 2
    if dtype in ("float32", "float64") and hi - lo > 2**24:
        lo, hi = -1000, 1000
    check(torch, lambda L: L.randint(lo, hi, (n,), dtype=getattr(L, dtype)), seed)
    check(torch, lambda L: L.empty(n, dtype=getattr(L, dtype)).random_(), seed)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 100_000])
def test_randperm(torch, n):
    check(torch, lambda L: L.randperm(n), 0)
    check(torch, lambda L: L.randperm(n, dtype=L.int32), 5)


@settings(max_examples=25)
@given(seed=SEEDS, n=st.integers(0, 400))
def test_randperm_over_seeds(torch, seed, n):
    check(torch, lambda L: L.randperm(n), seed)


# ---------------------------------------------------------------------------- chains and state
def _chain(L):
    """Draws that interleave the normal cache (scalar path) with the block path and the others."""
    out = [L.randn(3), L.randn(1), L.randn(17), L.randn(1, dtype=L.float64), L.rand(2)]
    out += [L.randn(5).normal_(2.0, 0.5), L.randint(0, 9, (3,)), L.randn(2, 8).t().contiguous()]
    out += [L.empty(7, dtype=L.float64).log_normal_(), L.randn(1)]
    return out


@settings(max_examples=30)
@given(seed=SEEDS)
def test_chained_draws_share_the_normal_cache(torch, seed):
    check(torch, _chain, seed, ulps=_any_tol(torch))


def test_manual_seed_clears_the_cache_and_state_moves_between_libraries(torch):
    tl.manual_seed(3)
    tl.randn(1)  # caches a sample
    tl.manual_seed(3)
    torch.manual_seed(3)
    assert np.array_equal(tl.get_rng_state().numpy(), torch.get_rng_state().numpy())
    torch.randn(3)
    torch.rand(5)
    tl.set_rng_state(tl.from_numpy(torch.get_rng_state().numpy()))  # torch's state, here
    a, b = tl.randn(4), torch.randn(4)
    assert np.array_equal(a.numpy(), b.numpy())
    g = tl.Generator().manual_seed(9)
    tl.rand(700, generator=g)  # past the first regeneration of the 624 words
    torch.set_rng_state(torch.from_numpy(g.get_state().numpy().copy()))  # ours, in torch
    assert np.array_equal(torch.rand(10).numpy(), tl.rand(10, generator=g).numpy())
    fresh = torch.Generator().get_state().numpy()
    assert np.array_equal(tl.Generator().get_state().numpy(), fresh)


@settings(max_examples=20)
@given(seed=SEEDS, n=st.integers(0, 50))
def test_generator_objects(torch, seed, n):
    def call(L):
        g = L.Generator().manual_seed(seed)
        out = [L.randn(n, generator=g), L.rand(n, generator=g), L.randperm(n, generator=g)]
        out += [L.randint(0, 7, (n,), generator=g), L.empty(n).normal_(generator=g)]
        out += [L.empty(n).uniform_(generator=g), L.empty(n).bernoulli_(0.5, generator=g)]
        out += [L.normal(0.0, 1.0, (n,), generator=g), g.get_state()]
        return out + [L.tensor([g.initial_seed() % 2**63])]

    check(torch, call, 0, ulps=_any_tol(torch))


# ---------------------------------------------------------------------------- the others
def _steps(L, n, dtype=None):  # the same float values in both libraries (not linspace's)
    return L.tensor([0.1 + k / n for k in range(n)], dtype=dtype or L.float32)


OTHERS = {
    "normal(T, T)": lambda L: L.normal(L.arange(20.0), _steps(L, 20)),
    "normal(T, f)": lambda L: L.normal(L.arange(20.0).reshape(4, 5), 0.5),
    "normal(f, T)": lambda L: L.normal(1.0, _steps(L, 7)),
    "normal(f, f, size)": lambda L: L.normal(2.0, 3.0, (3, 9)),
    "bernoulli(T)": lambda L: L.bernoulli(_steps(L, 50) - 0.1),
    "bernoulli(T64)": lambda L: L.bernoulli(_steps(L, 50, L.float64) - 0.1),
    "bernoulli_(T)": lambda L: L.empty(4, 5).bernoulli_(_steps(L, 5)),
    "geometric_": lambda L: L.empty(30).geometric_(0.2),
    "cauchy_": lambda L: L.empty(30, dtype=L.float64).cauchy_(1.0, 2.0),
    "log_normal_": lambda L: L.empty(30).log_normal_(0.0, 0.5),
    "multinomial": lambda L: L.multinomial(L.tensor([0.1, 2.0, 0.0, 3.0, 1.0]), 3),
    "multinomial 1": lambda L: L.multinomial(L.rand(4, 6), 1),
    "multinomial rep": lambda L: L.multinomial(L.rand(3, 6), 20, replacement=True),
    "multinomial rep64": lambda L: L.multinomial(L.rand(3, 6, dtype=L.float64), 9, True),
    "rand_like channels_last": lambda L: L.rand_like(
        L.empty(2, 3, 4, 5).to(memory_format=L.channels_last)
    ),
    "randn_like": lambda L: L.randn_like(L.empty(3, 7)),
    "randint_like": lambda L: L.randint_like(L.empty(3, 7), 2, 9),
    "strided uniform_": lambda L: L.empty(6, 8)[:, ::2].uniform_(),
    "dropout": lambda L: L.nn.functional.dropout(L.ones(6, 7), 0.4),
    "dropout2d": lambda L: L.nn.functional.dropout2d(L.ones(2, 5, 3, 3), 0.5),
    "Dropout module": lambda L: L.nn.Dropout(0.1)(L.arange(40.0)),
}


@pytest.mark.parametrize("name", OTHERS)
@pytest.mark.parametrize("seed", [0, 1, 2**40 + 3])
def test_other_random_ops(torch, name, seed):
    check(torch, OTHERS[name], seed, ulps=_any_tol(torch))


# ---------------------------------------------------------------------------- layers and data
LAYERS = {
    "Linear": lambda nn: nn.Linear(7, 5),
    "Linear no bias": lambda nn: nn.Linear(30, 2, bias=False),
    "Conv1d": lambda nn: nn.Conv1d(3, 4, 5),
    "Conv2d": lambda nn: nn.Conv2d(3, 8, 3, padding=1),
    "Conv2d groups": lambda nn: nn.Conv2d(4, 8, 3, groups=2),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(3, 4, 3),
    "Embedding": lambda nn: nn.Embedding(10, 4),
    "BatchNorm2d": lambda nn: nn.BatchNorm2d(3),
    "LeNet-ish": lambda nn: nn.Sequential(
        nn.Conv2d(1, 6, 5), nn.ReLU(), nn.Flatten(), nn.Linear(6 * 24 * 24, 10)
    ),
}


@pytest.mark.parametrize("name", LAYERS)
@pytest.mark.parametrize("seed", [0, 7])
def test_layer_construction_gives_torchs_parameters(torch, name, seed):
    check(torch, lambda L: list(LAYERS[name](L.nn).parameters()), seed, ulps=_any_tol(torch))


INITS = {
    "uniform_": lambda L, t: L.nn.init.uniform_(t, -0.3, 0.7),
    "normal_": lambda L, t: L.nn.init.normal_(t, 0.1, 0.02),
    "xavier_uniform_": lambda L, t: L.nn.init.xavier_uniform_(t),
    "xavier_normal_": lambda L, t: L.nn.init.xavier_normal_(t, gain=2.0),
    "kaiming_uniform_": lambda L, t: L.nn.init.kaiming_uniform_(t, mode="fan_out"),
    "kaiming_normal_": lambda L, t: L.nn.init.kaiming_normal_(t, nonlinearity="relu"),
    "trunc_normal_": lambda L, t: L.nn.init.trunc_normal_(t, std=0.5),
    "trunc_normal_ narrow": lambda L, t: L.nn.init.trunc_normal_(t, 0.0, 1.0, 1.0, 1.2),
}


@pytest.mark.parametrize("name", INITS)
def test_nn_init(torch, name):
    check(torch, lambda L: INITS[name](L, L.empty(6, 20)), 0, ulps=_any_tol(torch))


def test_data_loading_shuffles_as_torch(torch):
    def call(L):
        data = L.utils.data
        ds = data.TensorDataset(L.arange(23))
        out = [b[0] for b in data.DataLoader(ds, batch_size=5, shuffle=True)]
        out += [L.tensor(list(s.indices)) for s in data.random_split(range(10), [3, 7])]
        out += [L.tensor(list(data.RandomSampler(range(9))))]
        out += [L.tensor(list(data.WeightedRandomSampler([0.1, 0.5, 0.2, 0.9], 8)))]
        return out

    check(torch, call, 0)
    check(torch, call, 123)


def test_default_generator_paths_are_torchs(torch):
    """The path tensorlab takes for float32 randn is the one torch takes here, or the test
    machine is one where the README says the numbers are close, not exact."""
    f32_exact, _ = _paths(torch)
    if not f32_exact:
        pytest.skip("torch takes another normal path on this machine (compared within 4 ulp)")
    torch.manual_seed(0)
    tl.manual_seed(0)
    assert torch.randn(3, 4).tolist() == tl.randn(3, 4).tolist()


@pytest.mark.parametrize(
    "expr",
    [
        "lib.randn(3, dtype=lib.int64)",
        "lib.rand(2, dtype=lib.bool)",
        "lib.randn_like(lib.zeros(3, dtype=lib.int64))",
        "lib.randint(0, 5, (3,), dtype=lib.bool)",
        "lib.randint(0, 300, (2,), dtype=lib.uint8)",
        "lib.randint(-1, 5, (2,), dtype=lib.uint8)",
        "lib.randint(0, 2**17, (2,), dtype=lib.float16)",
        "lib.randint(0, 2**40, (2,), dtype=lib.int32)",
        "lib.empty(2, dtype=lib.int16).random_(0, 2**16)",
    ],
)
def test_bad_dtypes_and_ranges_raise_before_drawing(torch, expr):
    from helpers import raises_same

    torch.manual_seed(0)
    tl.manual_seed(0)
    with pytest.raises(Exception):  # noqa: B017, PT011 - which one: raises_same checks
        eval(expr, {"lib": torch})
    raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    assert np.array_equal(torch.get_rng_state().numpy(), tl.get_rng_state().numpy())
