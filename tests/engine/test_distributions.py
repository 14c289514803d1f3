"""Random fills and samplers: PyTorch's arguments, checks, messages, dtypes, shapes and grad_fn
names, and the values' distributions (their bits are compared with torch's in
test_random_bits.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given
from hypothesis import strategies as st

import tensorlab as tl

CALLS = [
    "lib.ones(3, 4).uniform_()",
    "lib.ones(3, 4).uniform_(-2, 5)",
    "lib.ones(3, 4).uniform_(2, 1)",
    "lib.ones(3, dtype=lib.int64).uniform_()",
    "lib.ones(3, 4).normal_()",
    "lib.ones(3, 4).normal_(2, 0.5)",
    "lib.ones(3, 4).normal_(0, -1)",
    "lib.ones(3, dtype=lib.int64).normal_()",
    "lib.ones(3, dtype=lib.int64).random_()",
    "lib.ones(3, dtype=lib.uint8).random_(0, 10)",
    "lib.ones(3).random_(5)",
    "lib.ones(3).random_(5, 2)",
    "lib.ones(3).bernoulli_(0.5)",
    "lib.ones(3).bernoulli_(1.5)",
    "lib.ones(3).bernoulli_(lib.full((3,), 0.25))",
    "lib.ones(3, dtype=lib.int64).bernoulli_(0.5)",
    "lib.ones(3).exponential_()",
    "lib.ones(3).exponential_(0)",
    "lib.ones(3).geometric_(0.5)",
    "lib.ones(3).geometric_(1.5)",
    "lib.ones(3).log_normal_()",
    "lib.ones(3).cauchy_()",
    "lib.normal(0, 1, (2, 3))",
    "lib.normal(2, 3, size=(1, 4))",
    "lib.normal(0.0, 1.0, (2,), dtype=lib.float64)",
    "lib.normal(0, -1, (2,))",
    "lib.normal(0, 1)",
    "lib.normal(lib.zeros(2, 3), 1.0)",
    "lib.normal(0.0, lib.ones(4))",
    "lib.normal(lib.zeros(2), lib.ones(2))",
    "lib.normal(lib.zeros(2), lib.ones(3))",
    "lib.normal(lib.zeros(2, 1), lib.ones(3))",
    "lib.normal(lib.zeros(2, dtype=lib.int64), 1.0)",
    "lib.bernoulli(lib.full((2, 2), 0.5))",
    "lib.bernoulli(lib.full((2,), 0.5), 0.3)",
    "lib.bernoulli(lib.full((2,), 0.5, dtype=lib.float64))",
    "lib.multinomial(lib.tensor([0.1, 0.9]), 4, replacement=True)",
    "lib.multinomial(lib.tensor([[0.1, 0.9], [0.5, 0.5]]), 2)",
    "lib.multinomial(lib.tensor([0.1, 0.9]), 3)",
    "lib.multinomial(lib.tensor([1, 2]), 1)",
    "lib.dist(lib.ones(3), lib.zeros(3))",
    "lib.dist(lib.ones(3), lib.zeros(3), 1)",
    "lib.ones(2, 3).dist(lib.zeros(3), float('inf'))",
]


@pytest.mark.oracle
@pytest.mark.parametrize("call", CALLS)
def test_calls_match_torch_but_for_the_values(torch, call):
    ours, theirs = raises_same(lambda: eval(call, {"lib": tl}), lambda: eval(call, {"lib": torch}))
    if theirs is None:
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.stride() == theirs.stride()
    if call.startswith("lib.dist") or ".dist(" in call:
        assert ours.item() == pytest.approx(theirs.item())


@pytest.mark.oracle
@pytest.mark.parametrize(
    "op",
    [
        "uniform_()",
        "normal_()",
        "random_(0, 5)",
        "bernoulli_(0.5)",
        "bernoulli_(lib.full((3,), 0.5))",
        "exponential_()",
        "geometric_(0.5)",
        "log_normal_()",
        "cauchy_()",
    ],
)
def test_a_random_fill_records_torch_node_and_cuts_the_gradient(torch, op):
    names, grads = [], []
    for lib in (tl, torch):
        leaf = lib.ones(3, requires_grad=True)
        a = leaf * 2
        r = eval("a." + op, {"a": a, "lib": lib})
        names.append(r.grad_fn.name())
        (r.sum() + a.sum()).backward()
        grads.append(leaf.grad.tolist())
    assert names[0] == names[1]
    assert grads[0] == grads[1]  # only a.sum() reaches the leaf


@pytest.mark.oracle
def test_a_leaf_that_requires_grad_refuses_a_random_fill(torch):
    raises_same(
        lambda: tl.ones(3, requires_grad=True).uniform_(),
        lambda: torch.ones(3, requires_grad=True).uniform_(),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("call", ["normal(m, 1.0)", "normal(0.0, s)", "normal(m, s)"])
def test_normal_gives_its_parameters_zero_gradient(torch, call):
    out = []
    for lib in (tl, torch):
        m = lib.zeros(3, requires_grad=True)
        s = lib.ones(3, requires_grad=True)
        r = eval("lib." + call, {"lib": lib, "m": m, "s": s})
        r.sum().backward()
        out.append((r.grad_fn.name(), m.grad is None, s.grad is None))
    assert out[0] == out[1]


N = 20_000


def _close(sample_mean, mean, std, n=N):
    return abs(sample_mean - mean) < 6 * std / math.sqrt(n)


@given(lo=st.floats(-5, 5), width=st.floats(0.1, 10))
def test_uniform_stays_in_range_with_the_right_mean(lo, width):
    t = tl.empty(N).uniform_(lo, lo + width)
    a = t.numpy()
    assert a.min() >= lo and a.max() <= lo + width
    assert _close(a.mean(), lo + width / 2, width / math.sqrt(12))


@given(mean=st.floats(-5, 5), std=st.floats(0.1, 5))
def test_normal_has_its_mean_and_std(mean, std):
    a = tl.empty(N, dtype=tl.float64).normal_(mean, std).numpy()
    assert _close(a.mean(), mean, std)
    assert abs(a.std() - std) < 0.05 * std
    b = tl.normal(mean, std, (N,)).numpy()
    assert _close(b.mean(), mean, std)


@given(p=st.floats(0, 1))
def test_bernoulli_is_one_with_probability_p(p):
    a = tl.empty(N).bernoulli_(p).numpy()
    assert set(np.unique(a)) <= {0.0, 1.0}
    assert _close(a.mean(), p, max(math.sqrt(p * (1 - p)), 1e-3))


@given(low=st.integers(-50, 50), span=st.integers(1, 40))
def test_random_draws_every_integer_of_its_range(low, span):
    a = tl.empty(N, dtype=tl.int64).random_(low, low + span).numpy()
    assert a.min() == low and a.max() == low + span - 1


def test_the_generator_makes_draws_reproducible():
    g = tl.Generator().manual_seed(3)
    a = tl.empty(5).normal_(generator=g)
    g.manual_seed(3)
    assert tl.equal(a, tl.empty(5).normal_(generator=g))
    tl.manual_seed(7)
    b = tl.normal(0.0, 1.0, (4,))
    tl.manual_seed(7)
    assert tl.equal(b, tl.normal(0.0, 1.0, (4,)))


def test_multinomial_follows_the_weights():
    a = tl.multinomial(tl.tensor([1.0, 3.0]), N, replacement=True).numpy()
    assert _close(a.mean(), 0.75, math.sqrt(0.75 * 0.25))
    b = tl.multinomial(tl.tensor([1.0, 1.0, 1.0, 1.0]), 4).numpy()
    assert sorted(b.tolist()) == [0, 1, 2, 3]  # without replacement: a permutation
