"""Deprecated spellings torch 2.13 still accepts, with its warnings (``nn.init.constant`` & co.
without the underscore, ``torch.range``, ``chain_matmul``, ``Variable(volatile=...)``),
``Tensor.type_as``, and the removed functions (``torch.eig``, ``symeig``, ``lstsq``, ``solve``,
``matrix_rank``) raising torch's own text; ``nn.init.orthogonal_``/``sparse_`` behind two of them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _run(lib, code, env=None):
    """The result (as a list, dtype name) or the error, and the warnings, read with torch's names."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = eval(code, {"lib": lib, **(env or {})})
            out = (
                (r.tolist(), str(r.dtype).split(".")[-1])
                if isinstance(r, (tl.Tensor,)) or type(r).__name__ == "Tensor"
                else r
            )
        except Exception as e:  # noqa: BLE001
            out = type(e).__name__, str(e).split("\nException raised from")[0]
    msgs = [(m.category.__name__, str(m.message).split(" (Triggered internally")[0]) for m in w]
    norm = lambda s: s.replace("tensorlab.", "torch.") if isinstance(s, str) else s  # noqa: E731
    if isinstance(out, tuple):
        out = tuple(norm(o) for o in out)
    return out, [(c, norm(m)) for c, m in msgs]


@pytest.mark.parametrize(
    "code",
    [
        "lib.range(0, 3)",
        "lib.range(3)",
        "lib.range(1, 2, 0.3)",
        "lib.range(5, 1, -1.5)",
        "lib.range(0, 10, 3, dtype=lib.int64)",
        "lib.range(0, 1, 0.1, dtype=lib.float64)",
        "lib.range(-3, 3, 0.7, requires_grad=True).requires_grad",
        "lib.range(0, 3, 0)",
        "lib.range(0, 3, -1)",
        "lib.range(3, 0, 1)",
        "lib.range(0, float('inf'))",
        "lib.range(2, 2)",
        "lib.chain_matmul(lib.ones(2, 3), lib.ones(3, 4), lib.ones(4, 1))",
        "lib.chain_matmul(lib.ones(2, 2))",
        "lib.chain_matmul()",
        "lib.ones(2).type_as(lib.ones(1, dtype=lib.float64))",
        "lib.arange(3).type_as(lib.ones(1))",
        "lib.ones(2).type_as(lib.ones(1, dtype=lib.bool))",
        "lib.ones(2).type_as(3)",
        "lib.autograd.Variable(lib.ones(2), volatile=True)",
        "lib.autograd.Variable(lib.ones(2), requires_grad=True, volatile=True)",
        "lib.eig(lib.ones(2, 2))",
        "lib.ones(2, 2).eig()",
        "lib.ones(2, 2).eig(eigenvectors=True)",
        "lib.symeig(lib.ones(2, 2))",
        "lib.ones(2, 2).symeig(True)",
        "lib.lstsq(lib.ones(2, 2), lib.ones(2, 2))",
        "lib.ones(2, 2).lstsq(lib.ones(2, 2))",
        "lib.solve(lib.ones(2, 2), lib.ones(2, 2))",
        "lib.ones(2, 2).solve(lib.ones(2, 2))",
        "lib.matrix_rank(lib.ones(2, 2))",
    ],
)
def test_matches_torch_with_its_warnings(torch, code):
    (ours, w_ours), (theirs, w_theirs) = _run(tl, code), _run(torch, code)
    assert ours == theirs
    # the deprecation warnings both give; another warning-once of either library may have fired
    # earlier in this process (it depends on the order the suite runs in)
    theirs_said = _deprecations(w_theirs)
    # torch says some of these once a process (chain_matmul): then only ours may say it
    assert _deprecations(w_ours) == theirs_said or (not theirs_said and "chain_matmul" in code)


def _deprecations(ws):
    words = ("deprecat", "removed", "no longer", "will be")
    return [w for w in ws if any(k in w[1].lower() for k in words)]


def test_type_as_returns_self_when_the_dtype_is_the_same(torch):
    x = tl.ones(2)
    assert x.type_as(tl.zeros(3)) is x
    y = tl.ones(2, requires_grad=True)
    z = y.type_as(tl.ones(1, dtype=tl.float64))
    assert (
        z.grad_fn is not None
        and z.grad_fn.name() == torch.ones(1, requires_grad=True).double().grad_fn.name()
    )


@settings(max_examples=80)
@given(
    start=st.sampled_from([0, 1, -2, 0.5, -1.25, 3, 0.1]),
    length=st.floats(0, 40),
    step=st.sampled_from([1, 2, 0.1, 0.25, 0.3, 0.7, 1.5, 3]),
    sign=st.sampled_from([1, -1]),
    dtype=st.sampled_from([None, "float64", "int64", "float32"]),
)
def test_range_values_match_torch(torch, start, length, step, sign, dtype):
    end = start + sign * length
    step = sign * step
    if dtype == "int64" and step != int(step):
        step = sign  # a fractional step truncated to 0 crashes torch (SIGFPE)

    def run(lib):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.range(start, end, step, **kw)

    raises_same(lambda: run(tl), lambda: run(torch))
    try:
        ours = run(tl)
    except RuntimeError:
        return
    assert_same(ours, run(torch))


INIT = [
    ("uniform", "(w, -0.5, 0.5)"),
    ("normal", "(w, 0.0, 2.0)"),
    ("constant", "(w, 0.25)"),
    ("eye", "(w)"),
    ("xavier_uniform", "(w, gain=2.0)"),
    ("xavier_normal", "(w)"),
    ("kaiming_uniform", "(w, a=0.1)"),
    ("kaiming_normal", "(w, mode='fan_out', nonlinearity='relu')"),
    ("orthogonal", "(w)"),
    ("sparse", "(w, 0.5)"),
    ("dirac", "(c)"),
]


@pytest.mark.parametrize("name, args", INIT)
def test_init_without_underscore_warns_and_fills_as_torch(torch, name, args):
    def run(lib):
        lib.manual_seed(3)
        w = lib.empty(4, 6)
        c = lib.empty(2, 2, 3)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = eval(f"lib.nn.init.{name}{args}", {"lib": lib, "w": w, "c": c})
        msgs = [(m.category.__name__, str(m.message)) for m in rec]
        return out, msgs, getattr(lib.nn.init, name).__name__

    ours, theirs = run(tl), run(torch)
    assert ours[1:] == theirs[1:]
    assert_same(ours[0], theirs[0], exact=name != "orthogonal", rtol=1e-5, atol=1e-6)


@settings(max_examples=20)
@given(
    rows=st.integers(1, 6),
    cols=st.integers(1, 6),
    extra=st.sampled_from([(), (2,), (1, 3)]),
    gain=st.sampled_from([1.0, 2.0, 0.5]),
)
def test_orthogonal_matches_torch(torch, rows, cols, extra, gain):
    def run(lib):
        lib.manual_seed(rows * 7 + cols)
        w = lib.empty(rows, cols, *extra)
        lib.nn.init.orthogonal_(w, gain=gain)
        return w

    ours, theirs = run(tl), run(torch)
    assert_same(ours, theirs, exact=False, rtol=1e-4, atol=1e-5)
    flat = ours.reshape(rows, -1).double()
    if rows <= flat.shape[1]:
        np.testing.assert_allclose((flat @ flat.T).numpy(), gain**2 * np.eye(rows), atol=1e-5)
    assert tl.rand(1).item() == torch.rand(1).item()  # the same draws consumed


@pytest.mark.parametrize(
    "call",
    [
        "lib.nn.init.orthogonal_(lib.empty(3))",
        "lib.nn.init.sparse_(lib.empty(3), 0.1)",
        "lib.nn.init.orthogonal_(lib.empty(0, 3)).shape",
    ],
)
def test_init_errors_match_torch(torch, call):
    raises_same(lambda: eval(call, {"lib": tl}), lambda: eval(call, {"lib": torch}))


def test_qr_and_cholesky_warn_once_and_match_torch(torch):
    """``torch.qr``/``torch.cholesky`` (and the methods): torch's ``TORCH_WARN_ONCE`` text on
    the first call of the process only, the values of ``linalg.qr``/``linalg.cholesky``."""
    from tensorlab._ops import deprecated

    deprecated._WARNED.clear()
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.0], [0.5, 0.0, 2.0]]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ours = [tl.qr(tl.tensor(a)), tl.tensor(a).qr(some=False), tl.qr(tl.tensor(a)[:, :2], False)]
        chol = [tl.cholesky(tl.tensor(a)), tl.tensor(a).cholesky(upper=True)]
    assert [str(m.message) for m in w] == [deprecated.QR_WARNING, deprecated.CHOLESKY_WARNING]
    assert deprecated.QR_WARNING.startswith("tensorlab.qr is deprecated in favor of")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = [
            torch.qr(torch.tensor(a)),
            torch.tensor(a).qr(some=False),
            torch.qr(torch.tensor(a)[:, :2], False),
        ]
        chol_t = [torch.cholesky(torch.tensor(a)), torch.tensor(a).cholesky(upper=True)]
    for o, t in zip(ours, theirs):
        assert type(o).__name__ == type(t).__name__ == "qr"
        assert repr(o).split("(")[0].replace("tensorlab", "torch") == repr(t).split("(")[0]
        # the values to rounding (LAPACK through numpy against torch's); layouts are linalg's
        np.testing.assert_allclose(o.Q.numpy(), t.Q.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(o.R.numpy(), t.R.numpy(), rtol=1e-5, atol=1e-6)
    for o, t in zip(chol, chol_t):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6)
