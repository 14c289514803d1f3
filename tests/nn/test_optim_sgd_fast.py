"""SGD's numpy fast path (``tensorlab/optim/sgd.py``: ``_fast_update``) against torch 2.13 and
against the tensor-op path it replaces, bit for bit: every option, float32 and float64, layouts
(transposed parameters), version counters, and the cases that must fall back to the tensor ops
(first step, float16, a gradient sharing memory with its parameter, a tensor lr)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab.optim import sgd as sgd_module

OPTIONS = st.fixed_dictionaries(
    {
        "lr": st.sampled_from([0.1, 0.01, 1.0, 0.0, 3e-4]),
        "momentum": st.sampled_from([0.0, 0.9, 1.0, 0.5]),
        "dampening": st.sampled_from([0.0, 0.1, 1.0]),
        "weight_decay": st.sampled_from([0.0, 0.1, 1.0]),
        "nesterov": st.booleans(),
        "maximize": st.booleans(),
    }
)
SHAPES = st.lists(st.integers(1, 7), min_size=0, max_size=3).map(tuple)


def _steps(lib, kwargs, w0, grads, dtype, transpose):
    params = []
    for w in w0:
        p = lib.tensor(w.copy(), dtype=getattr(lib, dtype))
        if transpose and p.dim() == 2:
            p = p.t()  # a non-contiguous (but dense) leaf
        params.append(p.detach().requires_grad_(True))
    opt = lib.optim.SGD(params, **kwargs)
    for step in grads:
        for p, g in zip(params, step):
            p.grad = lib.tensor(g.reshape(p.shape), dtype=getattr(lib, dtype))
        opt.step()
    bufs = [opt.state[p].get("momentum_buffer") if opt.state[p] else None for p in params]
    return params, bufs


def _valid(kwargs) -> bool:
    return not (kwargs["nesterov"] and (kwargs["momentum"] <= 0 or kwargs["dampening"] != 0))


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    kwargs=OPTIONS,
    shapes=st.lists(SHAPES, min_size=1, max_size=3),
    dtype=st.sampled_from(["float32", "float64"]),
    transpose=st.booleans(),
)
def test_fast_sgd_matches_torch_and_the_tensor_ops(torch, data, kwargs, shapes, dtype, transpose):
    if not _valid(kwargs):
        return
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    w0 = [rng.standard_normal(s) for s in shapes]
    grads = [[rng.standard_normal(s) for s in shapes] for _ in range(4)]
    ours, our_bufs = _steps(tl, kwargs, w0, grads, dtype, transpose)
    theirs, their_bufs = _steps(torch, kwargs, w0, grads, dtype, transpose)
    slow = sgd_module._fast_update
    sgd_module._fast_update = lambda *a: False
    try:
        reference, ref_bufs = _steps(tl, kwargs, w0, grads, dtype, transpose)
    finally:
        sgd_module._fast_update = slow
    for a, b, r in zip(ours, theirs, reference):
        np.testing.assert_array_equal(a.detach().numpy(), r.detach().numpy())
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert a._version == b._version == r._version
        assert a.stride() == b.stride()
    for a, b, r in zip(our_bufs, their_bufs, ref_bufs):
        assert (a is None) == (b is None) == (r is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), r.numpy())
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
            assert a._version == b._version == r._version


def test_fast_path_is_taken_after_the_first_momentum_step(monkeypatch):
    calls = []
    real = sgd_module._fast_update

    def spy(*args):
        done = real(*args)
        calls.append(done)
        return done

    monkeypatch.setattr(sgd_module, "_fast_update", spy)
    p = tl.zeros(3, requires_grad=True)
    opt = tl.optim.SGD([p], lr=0.1, momentum=0.9)
    for _ in range(3):
        p.grad = tl.ones(3)
        opt.step()
    assert calls == [False, True, True]  # the first step makes the buffer with the tensor ops


@pytest.mark.parametrize("case", ["float16", "tensor_lr", "grad_is_param", "expanded_grad"])
def test_fallback_cases_match_torch(torch, case):
    def run(lib):
        dtype = getattr(lib, case) if case == "float16" else lib.float32
        p = lib.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -4.0]], dtype=dtype, requires_grad=True)
        lr = lib.tensor(0.1) if case == "tensor_lr" else 0.1
        opt = lib.optim.SGD([p], lr=lr, momentum=0.9, weight_decay=0.1)
        for i in range(3):
            if case == "grad_is_param":
                p.grad = p.detach()
            elif case == "expanded_grad":
                p.grad = lib.tensor([1.0, 2.0, 3.0]).expand(2, 3)
            else:
                p.grad = lib.full((2, 3), 0.5 + i, dtype=dtype)
            opt.step()
        return p.detach().float().numpy(), p._version

    (ours, v_ours), (theirs, v_theirs) = run(tl), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert v_ours == v_theirs
