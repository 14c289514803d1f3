"""The one-node-per-layer recurrent backward (issue 39) keeps torch's autograd behaviour: a
gradient from only ``h_n`` or ``c_n``, a second backward with and without ``retain_graph``, a
weight changed in place before backward, no graph under ``no_grad``; values against torch."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn

KINDS = ["RNN", "LSTM", "GRU"]


def _pair(torch, kind, *args, **kwargs):
    theirs = getattr(torch.nn, kind)(*args, **kwargs)
    ours = getattr(nn, kind)(*args, **kwargs)
    ours.load_state_dict(
        {k: tl.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    return ours, theirs


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("which", ["h", "c"])
@pytest.mark.parametrize("kw", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 2}])
def test_gradient_from_the_final_states_only(torch, kind, which, kw):
    if (which == "c" or "proj_size" in kw) and kind != "LSTM":
        pytest.skip("only LSTM has a cell state and projections")
    ours, theirs = _pair(torch, kind, 3, 4, **kw)
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    grads = []
    for lib, mod in ((tl, ours), (torch, theirs)):
        xt = lib.from_numpy(x.copy()).requires_grad_()
        _, hidden = mod(xt)
        state = hidden if kind != "LSTM" else hidden[0 if which == "h" else 1]
        (state * lib.arange(state.numel()).reshape(state.shape)).sum().backward()
        grads.append([xt.grad] + [p.grad for p in mod.parameters()])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("kind", KINDS)
def test_backward_twice(torch, kind):
    ours = getattr(nn, kind)(3, 4)
    out, _ = ours(tl.randn(5, 2, 3))
    loss = out.sum()
    loss.backward(retain_graph=True)
    first = ours.weight_hh_l0.grad.clone()
    loss.backward()
    np.testing.assert_allclose(ours.weight_hh_l0.grad.numpy(), 2 * first.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        loss.backward()


@pytest.mark.parametrize("kind", KINDS)
def test_weight_changed_in_place_before_backward(torch, kind):
    for lib in (tl, torch):
        mod = getattr(lib.nn, kind)(3, 4)
        out, _ = mod(lib.randn(5, 2, 3))
        with lib.no_grad():
            mod.weight_hh_l0.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


@pytest.mark.parametrize("kind", KINDS)
def test_no_graph_under_no_grad(kind):
    mod = getattr(nn, kind)(3, 4, num_layers=2)
    with tl.no_grad():
        out, hidden = mod(tl.randn(5, 2, 3))
    assert out.grad_fn is None and not out.requires_grad
    out2, _ = mod(tl.randn(5, 2, 3))
    assert out2.requires_grad
