"""``torch.histogram`` (int bins with ``range``/``weight``/``density``, or a tensor of edges),
``histc`` and ``bincount`` beside it, and ``Tensor.matrix_power``/``torch.matrix_power``, against
torch 2.13: values, dtypes, the named result, errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl

VALUES = st.floats(-10, 10, width=32)


@settings(max_examples=80)
@given(
    x=hnp.arrays(
        st.sampled_from([np.float32, np.float64]),
        hnp.array_shapes(max_dims=3, max_side=6),
        elements=VALUES,
    ),
    bins=st.integers(1, 12),
    rng=st.sampled_from([None, (-5.0, 5.0), (0.0, 1.0), (2.0, 2.0)]),
    weighted=st.booleans(),
    density=st.booleans(),
)
def test_histogram_matches_torch(torch, x, bins, rng, weighted, density):
    w = np.linspace(0.5, 2, x.size).astype(x.dtype).reshape(-1) if weighted else None

    def run(lib):
        kw = {"density": density}
        if rng is not None:
            kw["range"] = rng
        if w is not None:
            kw["weight"] = lib.tensor(w)
        return lib.histogram(lib.tensor(x), bins, **kw)

    ours, theirs = run(tl), run(torch)
    assert_same(ours.bin_edges, theirs.bin_edges)
    assert_same(ours.hist, theirs.hist, exact=not density, rtol=1e-6, atol=1e-7)
    assert ours[0] is ours.hist and type(ours).__name__ == "histogram"


@settings(max_examples=40)
@given(
    x=hnp.arrays(np.float32, st.integers(0, 30), elements=VALUES),
    edges=st.lists(
        st.sampled_from([-8.0, -3.5, -1.0, 0.0, 0.25, 2.0, 7.5]),
        min_size=2,
        max_size=6,
        unique=True,
    ),
    density=st.booleans(),
)
def test_histogram_with_edges_matches_torch(torch, x, edges, density):
    edges = sorted(edges)

    def run(lib):
        return lib.histogram(lib.tensor(x), lib.tensor(edges), density=density)

    ours, theirs = run(tl), run(torch)
    assert_same(ours.bin_edges, theirs.bin_edges)
    assert_same(ours.hist, theirs.hist, exact=not density, rtol=1e-6)


def test_histogram_repr_and_method(torch):
    def run(lib):
        x = lib.tensor([0.0, 1.0, 1.5, 3.0, 3.0])
        return repr(x.histogram(3)).replace("tensorlab", "torch"), repr(lib.histogram(x, bins=2))

    ours, theirs = run(tl), run(torch)
    assert ours[0] == theirs[0]
    assert ours[1].replace("tensorlab", "torch") == theirs[1]


@pytest.mark.parametrize(
    "call",
    [
        "lib.histogram(lib.arange(3), 3)",
        "lib.histogram(x, 0)",
        "lib.histogram(x, 3, range=(1.0, 0.0))",
        "lib.histogram(x, 3, range=(0.0, float('inf')))",
        "lib.histogram(x, 3, weight=lib.ones(3))",
        "lib.histogram(x, lib.tensor([0.0, 1.0]), range=(0.0, 1.0))",
        "lib.histogram([1.0], 3)",
        "lib.histc(x, 0)",
        "lib.bincount(lib.tensor([1, 3, 3]), minlength=5)",
        "lib.bincount(lib.tensor([1, 3, 3]), weights=lib.tensor([0.5, 1.0, 2.0]))",
        "lib.bincount(lib.tensor([-1]))",
        "lib.ones(2, 2).matrix_power(2.5)",
        "lib.matrix_power(lib.ones(2, 3), 2)",
        "lib.matrix_power(lib.ones(3), 2)",
        "lib.matrix_power(lib.eye(2) * 2, -2)",
        "lib.matrix_power(lib.zeros(2, 2), -1)",
    ],
)
def test_errors_and_small_cases_match_torch(torch, call):
    def env(lib):
        return {"lib": lib, "x": lib.linspace(-1, 1, 10)}

    ours, theirs = raises_same(lambda: eval(call, env(tl)), lambda: eval(call, env(torch)))
    if ours is not None:
        assert_same(ours, theirs)


@settings(max_examples=40)
@given(
    a=hnp.arrays(
        np.float64, st.sampled_from([(2, 2), (3, 3), (2, 3, 3), (1, 1)]), elements=st.floats(-2, 2)
    ),
    n=st.integers(0, 6),
)
def test_matrix_power_matches_torch(torch, a, n):
    ours = tl.tensor(a).matrix_power(n)
    theirs = torch.tensor(a).matrix_power(n)
    assert_same(ours, theirs, exact=False, rtol=1e-10, atol=1e-10)
    assert_same(
        tl.matrix_power(tl.tensor(a), n),
        torch.matrix_power(torch.tensor(a), n),
        exact=False,
        rtol=1e-10,
        atol=1e-10,
    )
