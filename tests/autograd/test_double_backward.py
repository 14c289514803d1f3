"""Double backward (``create_graph=True``) against PyTorch 2.13 and against finite differences.

For each expression of ``x`` (a vector) and ``W`` (a matrix), both requiring grad, the full
Hessian is computed the way users do it (``autograd.grad(..., create_graph=True)`` then one
``autograd.grad`` per gradient entry) in float64, and compared with torch's and with central
differences of the (separately tested) first derivative.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl

N = 4
EXPRESSIONS = [
    "(x ** 3).sum()",
    "(x * x.sin()).sum() + x.cos().sum(0) * 2",
    "x.exp().mean() + x.log().sum()",
    "x.tanh().sum() + x.sigmoid().sum()",
    "x.sqrt().sum() + x.rsqrt().sum() + x.reciprocal().sum()",
    "(x / (1 + x * x)).sum() + (1 - x).pow(2).sum() + (2 - x).sum()",
    "x @ W @ x",
    "(W @ x).cos().sum()",
    "W.mm(W.t()).pow(2).sum()",
    "x.dot(x.exp())",
    "W.mv(x).pow(2).sum()",
    "lib.matmul(W.unsqueeze(0).expand(2, -1, -1), x.unsqueeze(-1)).pow(3).sum()",
    "x.reshape(2, -1).t().pow(3)[0].sum()",
    "x[1:].pow(3).sum() + x[[0, 0, 2]].sin().sum()",
    "(x - 1).relu().pow(3).sum()",
    "(x ** W[0]).sum() + (2 ** x).sum() + (x ** 2.5).sum()",
    "lib.where(x > 1, x ** 2, x ** 3).sum()",
    "x.clamp(0.5, 1.5).pow(2).sum() + x.abs().pow(3).sum()",
    "(lib.maximum(x, x.flip(0)) ** 2).sum()",
    "lib.cat([x, x * 2]).pow(3).sum() + lib.stack([x, x.sin()]).pow(2).sum()",
    "x.unsqueeze(0).expand(3, -1).pow(3).sum()",
    "x.view(-1, 1).squeeze().pow(3).mean()",
    "W.transpose(0, 1).permute(1, 0)[:, 1:].exp().sum()",
    "(W * x).sum(1, keepdim=True).pow(2).sum() + W.mean(0).pow(3).sum()",
    "(x.log2() + x.log10() + x.log1p() + x.expm1()).sum() + x.sinh().sum() + x.cosh().sum()",
    "x.atan().sum() + (x / 3).asin().sum() + (x + 1).acosh().sum() + x.asinh().sum()",
    "(W.select(1, 2) * x).sum() ** 2",
]


def _hessian(lib, expr: str, x0: np.ndarray, w0: np.ndarray):
    x = lib.tensor(x0).requires_grad_()
    W = lib.tensor(w0).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = eval(expr, {"lib": lib, "x": x, "W": W})  # noqa: S307 - the table above
    gx, gw = lib.autograd.grad(y, (x, W), create_graph=True, allow_unused=True)
    gx = lib.zeros_like(x) if gx is None else gx
    gw = lib.zeros_like(W) if gw is None else gw
    flat = lib.cat([gx.reshape(-1), gw.reshape(-1)])
    rows = []
    for i in range(flat.shape[0]):
        if not flat.requires_grad:
            rows.append(np.zeros(N + N * N))
            continue
        hx, hw = lib.autograd.grad(flat[i], (x, W), retain_graph=True, allow_unused=True)
        rows.append(
            np.concatenate(
                [
                    np.zeros(N) if hx is None else hx.detach().numpy().reshape(-1),
                    np.zeros(N * N) if hw is None else hw.detach().numpy().reshape(-1),
                ]
            )
        )
    return np.asarray(flat.detach().numpy()), np.array(rows)


def _gradient(expr: str, x0, w0) -> np.ndarray:
    x = tl.tensor(x0).requires_grad_()
    W = tl.tensor(w0).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = eval(expr, {"lib": tl, "x": x, "W": W})  # noqa: S307
    gx, gw = tl.autograd.grad(y, (x, W), allow_unused=True, materialize_grads=True)
    return np.concatenate([gx.numpy().reshape(-1), gw.numpy().reshape(-1)])


def _finite_differences(expr: str, x0, w0, h=1e-6) -> np.ndarray:
    """Central differences of the first derivative (float64)."""
    v0 = np.concatenate([x0, w0.reshape(-1)])
    cols = []
    for j in range(v0.size):
        vp, vm = v0.copy(), v0.copy()
        vp[j] += h
        vm[j] -= h
        gp = _gradient(expr, vp[:N], vp[N:].reshape(N, N))
        gm = _gradient(expr, vm[:N], vm[N:].reshape(N, N))
        cols.append((gp - gm) / (2 * h))
    return np.array(cols).T


X0 = np.array([0.7, 1.3, 0.4, 1.9])
W0 = np.linspace(0.2, 1.7, N * N).reshape(N, N) * np.array([1, -1, 1, 1])


@pytest.mark.oracle
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_hessian_matches_torch_and_finite_differences(torch, expr):
    g_o, h_o = _hessian(tl, expr, X0, W0)
    g_t, h_t = _hessian(torch, expr, X0, W0)
    np.testing.assert_allclose(g_o, g_t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h_o, h_t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h_o, _finite_differences(expr, X0, W0), rtol=1e-5, atol=1e-5)


@pytest.mark.oracle
@settings(max_examples=15)
@given(
    x0=hnp.arrays(np.float64, N, elements=st.floats(0.2, 2.0)),
    w0=hnp.arrays(np.float64, (N, N), elements=st.floats(-2.0, 2.0)),
    expr=st.sampled_from(EXPRESSIONS),
)
def test_hessian_random_points(torch, x0, w0, expr):
    # away from the kinks of relu/clamp/abs/where/maximum (finite differences straddle them)
    x0 = np.where(np.abs(x0 - 1) < 1e-3, x0 + 0.01, x0)
    x0 = np.where(np.abs(x0 - 0.5) < 1e-3, x0 + 0.01, x0)
    x0 = np.where(np.abs(x0 - 1.5) < 1e-3, x0 + 0.01, x0)
    if len(set(np.round(x0, 3))) < N:
        x0 = x0 + np.arange(N) * 0.013
    g_o, h_o = _hessian(tl, expr, x0, w0)
    g_t, h_t = _hessian(torch, expr, x0, w0)
    np.testing.assert_allclose(g_o, g_t, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(h_o, h_t, rtol=1e-9, atol=1e-10)


@pytest.mark.oracle
def test_backward_create_graph_then_backward_again(torch):
    def run(lib):
        x = lib.tensor([0.5, 1.5, 2.5], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x**3).sum().backward(create_graph=True)
        g = x.grad
        x.grad = None
        (g * g).sum().backward()  # d/dx sum((3x^2)^2) = 36 x^3
        return g.requires_grad, x.grad.numpy()

    (rq_o, h_o), (rq_t, h_t) = run(tl), run(torch)
    assert rq_o is rq_t is True
    np.testing.assert_allclose(h_o, h_t, rtol=1e-12)


@pytest.mark.oracle
def test_gradient_penalty_through_a_vjp(torch):
    """A grad_outputs that requires grad (the double-backward trick jvp uses)."""

    def run(lib):
        x = lib.tensor([[0.3, -1.2], [0.8, 2.0]], dtype=lib.float64, requires_grad=True)
        u = lib.zeros(2, 2, dtype=lib.float64, requires_grad=True)
        y = (x.sin() * x).exp()
        (gx,) = lib.autograd.grad(y, x, u, create_graph=True)
        v = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
        (jv,) = lib.autograd.grad(gx, u, v)
        return jv.numpy()

    np.testing.assert_allclose(run(tl), run(torch), rtol=1e-12)


def test_create_graph_false_gives_no_graph():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    (g,) = tl.autograd.grad((x**3).sum(), x)
    assert not g.requires_grad and g.grad_fn is None


def test_unsupported_second_derivative_raises_never_zero():
    """max() has no tensor formula: its gradient can be used, not differentiated again."""
    x = tl.tensor([0.5, 3.0, 1.0], requires_grad=True)
    (g,) = tl.autograd.grad(x.max() ** 2, x, create_graph=True)
    assert g.tolist() == [0.0, 6.0, 0.0] and g.requires_grad
    with pytest.raises(RuntimeError, match=re.escape("derivative of MaxBackward1 is not")):
        g.sum().backward()


@pytest.mark.oracle
def test_hessian_of_a_small_network_loss(torch):
    """linear (addmm), tanh, mse_loss, softmax and log_softmax twice differentiated."""

    def run(lib):
        F = lib.nn.functional
        X = lib.tensor(np.linspace(-2, 2, 15).reshape(5, 3))
        T = lib.tensor(np.linspace(0, 1, 10).reshape(5, 2))
        b1 = lib.tensor(np.linspace(-0.5, 0.5, 4))

        def loss(w1, w2):
            o = F.linear(F.linear(X, w1, b1).tanh(), w2)
            return (
                F.mse_loss(o, T) + F.log_softmax(o, 1).sum() * 0.1 + F.softmax(o, 0)[0].pow(2).sum()
            )

        w1 = lib.tensor(np.linspace(-1, 1, 12).reshape(4, 3))
        w2 = lib.tensor(np.linspace(-0.7, 0.9, 8).reshape(2, 4))
        H = lib.autograd.functional.hessian(loss, (w1, w2))
        return [[h.numpy() for h in row] for row in H]

    for row_o, row_t in zip(run(tl), run(torch)):
        for h_o, h_t in zip(row_o, row_t):
            np.testing.assert_allclose(h_o, h_t, rtol=1e-9, atol=1e-12)


ACTIVATIONS = [
    "F.leaky_relu(x - 1, 0.1)",
    "F.hardtanh(x - 1, -0.5, 0.5)",
    "F.relu6(3 * x)",
    "F.elu(x - 1, 0.7)",
    "F.silu(x - 1)",
    "F.softplus(x - 1, 2.0, 1.0)",
]


@pytest.mark.oracle
@pytest.mark.parametrize("act", ACTIVATIONS)
def test_hessian_through_activations(torch, act):
    expr = f"({act} * x.exp()).sum() + ({act} @ W).pow(3).sum()"

    def run(lib):
        def f(x, W):
            return eval(expr, {"F": lib.nn.functional, "x": x, "W": W})  # noqa: S307

        H = lib.autograd.functional.hessian(f, (lib.tensor(X0), lib.tensor(W0)))
        return [h.numpy() for row in H for h in row]

    for h_o, h_t in zip(run(tl), run(torch)):
        np.testing.assert_allclose(h_o, h_t, rtol=1e-9, atol=1e-12)


@pytest.mark.oracle
def test_hessian_of_functions_that_write_in_place(torch):
    """Outputs built by assignment (CopySlices, AsStrided), masked_fill_, fill."""

    def run(lib):
        def f(x):
            out = lib.zeros(3, dtype=lib.float64)
            out[0] = x[0] ** 2 * x[1]
            out[1:] = x.sin()[1:] * x[0]
            out[2] += x[2] ** 3
            return out

        def g(x):
            y = x.clone()
            y[1] = 0.0
            y.masked_fill_(x > 1.8, 2.0)
            y[0] = x[2] * x[1]
            return (y**3).sum() + y.exp().sum()

        x = lib.tensor([0.7, 1.3, 1.9], dtype=lib.float64)
        F = lib.autograd.functional
        return [
            F.jacobian(f, x).numpy(),
            F.hessian(lambda x: f(x).pow(2).sum(), x).numpy(),
            F.hessian(g, x).numpy(),
        ]

    for h_o, h_t in zip(run(tl), run(torch)):
        np.testing.assert_allclose(h_o, h_t, rtol=1e-10, atol=1e-12)
