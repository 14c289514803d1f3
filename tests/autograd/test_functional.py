"""``autograd.functional`` (jacobian, hessian, vjp, jvp, hvp, vhp) against PyTorch 2.13: the same
functions on the same inputs give the same nested structure (tuples where torch has tuples),
the same values, the same ``requires_grad``, and the same errors. Hessians are also checked
against finite differences of the gradient in float64."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl


def _same(ours, theirs, rtol=1e-10):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), (ours, theirs)
        for o, t in zip(ours, theirs):
            _same(o, t, rtol)
        return
    assert not isinstance(ours, tuple), ours
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=1e-12
    )


def _t(lib, *arrays):
    out = tuple(lib.tensor(np.asarray(a, dtype=np.float64)) for a in arrays)
    return out if len(out) > 1 else out[0]


def f_scalar(lib):
    return lambda x: (x**3 * x.sin()).sum() + x.exp().mean()


def f_two(lib):
    return lambda x, w: (w @ x).tanh().sum() + (x * x).sum() * w[0, 0]


def f_vec(lib):
    return lambda x: x.exp() * x[0] + x.pow(2).flip(0)


def f_multi(lib):
    return lambda x, w: (w.mv(x).sigmoid(), (x.sin() * w[1]).sum())


X = [0.5, 1.5, -0.7]
W = [[0.3, -0.2, 0.9], [1.1, 0.7, -0.4]]
WSQ = [[0.3, -0.2, 0.9], [1.1, 0.7, -0.4], [0.2, 0.5, 1.3]]


@pytest.mark.oracle
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian(torch, create_graph, vectorize):
    kw = dict(create_graph=create_graph, vectorize=vectorize)
    _same(
        tl.autograd.functional.jacobian(f_vec(tl), _t(tl, X), **kw),
        torch.autograd.functional.jacobian(f_vec(torch), _t(torch, X), **kw),
    )
    _same(
        tl.autograd.functional.jacobian(f_multi(tl), _t(tl, X, W), **kw),
        torch.autograd.functional.jacobian(f_multi(torch), _t(torch, X, W), **kw),
    )
    _same(
        tl.autograd.functional.jacobian(f_multi(tl), (_t(tl, X), _t(tl, W)), **kw),
        torch.autograd.functional.jacobian(f_multi(torch), (_t(torch, X), _t(torch, W)), **kw),
    )


@pytest.mark.oracle
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian(torch, create_graph):
    _same(
        tl.autograd.functional.hessian(f_scalar(tl), _t(tl, X), create_graph=create_graph),
        torch.autograd.functional.hessian(f_scalar(torch), _t(torch, X), create_graph=create_graph),
    )
    _same(
        tl.autograd.functional.hessian(f_two(tl), _t(tl, X, WSQ), create_graph=create_graph),
        torch.autograd.functional.hessian(
            f_two(torch), _t(torch, X, WSQ), create_graph=create_graph
        ),
    )


def _fd_hessian(f, x0, h=1e-6):
    def grad(v):
        x = tl.tensor(v).requires_grad_()
        return tl.autograd.grad(f(x), x)[0].numpy().reshape(-1)

    cols = []
    for j in range(x0.size):
        e = np.zeros_like(x0)
        e.flat[j] = h
        cols.append((grad(x0 + e) - grad(x0 - e)) / (2 * h))
    return np.array(cols).T


@pytest.mark.oracle
@settings(max_examples=20)
@given(
    a=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3), elements=st.floats(-2, 2)
    )
)
def test_hessian_of_shapes(torch, a):
    def f(lib):
        return lambda x: (x.sin() * x.reshape(-1)[0]).sum() + (x**2).exp().mean()

    ours = tl.autograd.functional.hessian(f(tl), tl.tensor(a))
    theirs = torch.autograd.functional.hessian(f(torch), torch.tensor(a))
    _same(ours, theirs, rtol=1e-9)
    assert tuple(ours.shape) == a.shape + a.shape
    fd = _fd_hessian(f(tl), a)
    np.testing.assert_allclose(ours.numpy().reshape(a.size, a.size), fd, rtol=1e-5, atol=1e-5)


@pytest.mark.oracle
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_jvp_hvp_vhp(torch, create_graph):
    def call(lib, name, f, inputs, v):
        return getattr(lib.autograd.functional, name)(f(lib), inputs, v, create_graph=create_graph)

    for lib_args in [
        ("vjp", f_vec, lambda lib: _t(lib, X), lambda lib: _t(lib, [1.0, -2.0, 0.5])),
        ("jvp", f_vec, lambda lib: _t(lib, X), lambda lib: _t(lib, [1.0, -2.0, 0.5])),
        ("hvp", f_scalar, lambda lib: _t(lib, X), lambda lib: _t(lib, [1.0, -2.0, 0.5])),
        ("vhp", f_scalar, lambda lib: _t(lib, X), lambda lib: _t(lib, [1.0, -2.0, 0.5])),
        (
            "vjp",
            f_multi,
            lambda lib: _t(lib, X, W),
            lambda lib: (_t(lib, [1.0, 2.0]), _t(lib, 3.0)),
        ),
        ("jvp", f_multi, lambda lib: _t(lib, X, W), lambda lib: (_t(lib, X), _t(lib, W))),
        ("hvp", f_two, lambda lib: _t(lib, X, WSQ), lambda lib: (_t(lib, X), _t(lib, WSQ))),
        ("vhp", f_two, lambda lib: _t(lib, X, WSQ), lambda lib: (_t(lib, X), _t(lib, WSQ))),
    ]:
        name, f, inputs, v = lib_args
        _same(call(tl, name, f, inputs(tl), v(tl)), call(torch, name, f, inputs(torch), v(torch)))


@pytest.mark.oracle
def test_scalar_v_may_be_omitted(torch):
    f = lambda lib: lambda x: (x * x).sum()  # noqa: E731
    for name in ("vjp", "hvp", "vhp", "jvp"):
        ours = getattr(tl.autograd.functional, name)(f(tl), _t(tl, [1.5]))
        theirs = getattr(torch.autograd.functional, name)(f(torch), _t(torch, [1.5]))
        _same(ours, theirs)


@pytest.mark.oracle
def test_strict_and_unused_inputs(torch):
    def lin(lib):
        return lambda x, w: (x * 2).sum()

    for strict in (False, True):
        for name in ("jacobian", "hessian"):
            raises_same(
                lambda n=name, s=strict: _same(
                    getattr(tl.autograd.functional, n)(lin(tl), _t(tl, X, WSQ), strict=s),
                    getattr(torch.autograd.functional, n)(lin(torch), _t(torch, X, WSQ)),
                ),
                lambda n=name, s=strict: getattr(torch.autograd.functional, n)(
                    lin(torch), _t(torch, X, WSQ), strict=s
                ),
            )


@pytest.mark.oracle
@pytest.mark.parametrize(
    "call",
    [
        "F.vjp(lambda x: x * 2, lib.ones(3, dtype=lib.float64))",
        "F.vjp(lambda x: x * 2, lib.ones(3, dtype=lib.float64), lib.ones(2, dtype=lib.float64))",
        "F.jvp(lambda x: x * 2, (lib.ones(3), lib.ones(2)), (lib.ones(3),))",
        "F.hessian(lambda x: x * 2, lib.ones(3))",
        "F.hessian(lambda x: (x.sum(), x.sum()), lib.ones(3))",
        "F.hvp(lambda x: x * 2, lib.ones(3), lib.ones(3))",
        "F.jacobian(lambda x: x * 2, [1.0, 2.0])",
        "F.jacobian(lambda x: x * 2, (lib.ones(2), 3.0))",
        "F.jacobian(lambda x: x * 2, lib.ones(2), strategy='sideways')",
        "F.jacobian(lambda x: x * 2, lib.ones(2), strict=True, vectorize=True)",
        "F.jacobian(lambda x: x.detach(), lib.ones(2), strict=True)",
    ],
)
def test_errors(torch, call):
    def run(lib):
        return eval(call, {"lib": lib, "F": lib.autograd.functional})  # noqa: S307

    raises_same(lambda: run(tl), lambda: run(torch))


def test_forward_mode_is_refused_clearly():
    with pytest.raises(NotImplementedError, match="tensorlab has no forward-mode AD"):
        tl.autograd.functional.jacobian(lambda x: x * 2, tl.ones(2), strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="tensorlab has no forward-mode AD"):
        tl.autograd.functional.hessian(
            lambda x: x.sum(), tl.ones(2), outer_jacobian_strategy="forward-mode"
        )
