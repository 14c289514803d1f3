"""Hooks and ``retain_grad()`` on one output of a node with several outputs (a recurrent layer's
node, a custom Function returning two tensors) act on that output's gradient only, as in torch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _lstm_grads(lib, mode, seed, scale, bidirectional):
    lib.manual_seed(seed)
    layer = getattr(lib.nn, mode)(3, 4, bidirectional=bidirectional)
    x = lib.randn(5, 2, 3)
    out, state = layer(x)
    parts = [out] + (list(state) if isinstance(state, tuple) else [state])
    seen = []
    for p in parts:
        p.retain_grad()
    handles = [parts[1].register_hook(lambda g: g * scale)]
    handles.append(parts[0].register_hook(lambda g: seen.append(g.sum().item())))
    loss = sum((p * (i + 1)).pow(2).sum() for i, p in enumerate(parts))
    loss.backward()
    return (
        [p.grad.detach().numpy().copy() for p in parts],
        seen,
        layer.weight_ih_l0.grad.numpy().copy(),
        type(out.grad_fn).__name__,
    )


@pytest.mark.oracle
@given(
    mode=st.sampled_from(["LSTM", "GRU", "RNN"]),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([0.0, 0.5, 3.0]),
    bidirectional=st.booleans(),
)
@settings(max_examples=12)
def test_hooks_and_retained_grads_on_a_recurrent_layers_outputs(
    torch, mode, seed, scale, bidirectional
):
    ours = _lstm_grads(tl, mode, seed, scale, bidirectional)
    theirs = _lstm_grads(torch, mode, seed, scale, bidirectional)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-4, atol=1e-4)
    assert ours[3] == theirs[3]


def _two_outputs(lib):
    class Split(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3

    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a, b = Split.apply(x)
    a.retain_grad()
    b.retain_grad()
    h = b.register_hook(lambda g: g * 10)
    (a.sum() + (b * b).sum()).backward()
    first = (x.grad.tolist(), a.grad.tolist(), b.grad.tolist())
    h.remove()
    x.grad = None
    a2, b2 = Split.apply(x)
    a2.register_hook(lambda g: g * 0)
    (a2.sum() + b2.sum()).backward()
    return first, x.grad.tolist()


@pytest.mark.oracle
def test_hooks_on_each_output_of_a_custom_function(torch):
    assert _two_outputs(tl) == _two_outputs(torch)
