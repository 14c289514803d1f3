"""Losses against torch 2.13: nll_loss, cross_entropy (indices and probabilities, weight,
ignore_index, label_smoothing, every reduction), mse, l1, bce, bce with logits; the loss modules;
their gradients, grad_fn names and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_strategies import make_pair, seeds

import tensorlab as tl
import tensorlab.nn.functional as F

REDUCTIONS = ("mean", "sum", "none")


def _name(t):
    return None if t.grad_fn is None else t.grad_fn.name()


def _check(torch, ours, theirs, inputs, *, rtol=1e-5, atol=1e-6):
    assert_same(ours, theirs, exact=False, rtol=rtol, atol=atol)
    assert _name(ours) == _name(theirs)
    if theirs.requires_grad:
        g = np.random.default_rng(2).standard_normal(tuple(theirs.shape)).astype(np.float32)
        ours.backward(tl.from_numpy(g.astype(ours.dtype.np)))
        theirs.backward(torch.from_numpy(g).to(theirs.dtype))
        for a, b in inputs:
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)


def _targets(torch, shape, n_classes, seed, ignore=None):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, n_classes, shape)
    if ignore is not None and t.size:
        t.flat[rng.integers(0, t.size)] = ignore
    return tl.from_numpy(t.copy()), torch.from_numpy(t.copy())


@settings(max_examples=60)
@given(
    n=st.integers(1, 5),
    c=st.integers(1, 5),
    spatial=st.sampled_from([(), (3,), (2, 3), (2, 1, 2)]),
    reduction=st.sampled_from(REDUCTIONS),
    weighted=st.booleans(),
    ignore=st.sampled_from([None, -100, 1]),
    smoothing=st.sampled_from([0.0, 0.0, 0.1, 1.0]),
    layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
    seed=seeds,
)
def test_cross_entropy_with_class_indices(
    torch, n, c, spatial, reduction, weighted, ignore, smoothing, layout, seed
):
    x_ours, x_theirs = make_pair(torch, (n, c, *spatial), layout, seed)
    t_ours, t_theirs = _targets(torch, (n, *spatial), c, seed, ignore)
    kw = dict(reduction=reduction, label_smoothing=smoothing)
    if ignore is not None:
        kw["ignore_index"] = ignore
    w = np.abs(np.random.default_rng(seed).standard_normal(c)).astype(np.float32) + 0.1
    ours, theirs = raises_same(
        lambda: F.cross_entropy(x_ours, t_ours, tl.from_numpy(w) if weighted else None, **kw),
        lambda: torch.nn.functional.cross_entropy(
            x_theirs, t_theirs, torch.from_numpy(w) if weighted else None, **kw
        ),
    )
    if theirs is not None:
        _check(torch, ours, theirs, [(x_ours, x_theirs)], rtol=1e-4, atol=1e-5)


@settings(max_examples=40)
@given(
    n=st.integers(1, 5),
    c=st.integers(1, 5),
    spatial=st.sampled_from([(), (3,), (2, 2)]),
    reduction=st.sampled_from(REDUCTIONS),
    weighted=st.booleans(),
    smoothing=st.sampled_from([0.0, 0.25]),
    seed=seeds,
)
def test_cross_entropy_with_class_probabilities(
    torch, n, c, spatial, reduction, weighted, smoothing, seed
):
    x_ours, x_theirs = make_pair(torch, (n, c, *spatial), "contiguous", seed)
    p = np.random.default_rng(seed + 1).random((n, c, *spatial)).astype(np.float32)
    p /= p.sum(axis=1, keepdims=True)
    p_ours, p_theirs = make_pair(torch, p.shape, "contiguous", 0)
    p_ours._np()[...] = p
    p_theirs.data.copy_(torch.from_numpy(p))
    w = np.abs(np.random.default_rng(seed).standard_normal(c)).astype(np.float32) + 0.1
    ours = F.cross_entropy(
        x_ours,
        p_ours,
        tl.from_numpy(w) if weighted else None,
        reduction=reduction,
        label_smoothing=smoothing,
    )
    theirs = torch.nn.functional.cross_entropy(
        x_theirs,
        p_theirs,
        torch.from_numpy(w) if weighted else None,
        reduction=reduction,
        label_smoothing=smoothing,
    )
    _check(torch, ours, theirs, [(x_ours, x_theirs), (p_ours, p_theirs)], rtol=1e-4, atol=1e-5)


@settings(max_examples=40)
@given(
    shape=st.sampled_from([(4,), (3, 4), (2, 4, 3), (2, 3, 2, 2), (2, 3, 1, 2, 2)]),
    reduction=st.sampled_from(REDUCTIONS),
    weighted=st.booleans(),
    ignore=st.sampled_from([-100, 0]),
    seed=seeds,
)
def test_nll_loss(torch, shape, reduction, weighted, ignore, seed):
    x_ours, x_theirs = make_pair(torch, shape, "contiguous", seed)
    c = shape[0] if len(shape) == 1 else shape[1]
    t_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    t_ours, t_theirs = _targets(torch, t_shape, c, seed)
    w = np.abs(np.random.default_rng(seed).standard_normal(c)).astype(np.float32)
    ours = F.nll_loss(
        x_ours,
        t_ours,
        tl.from_numpy(w) if weighted else None,
        ignore_index=ignore,
        reduction=reduction,
    )
    theirs = torch.nn.functional.nll_loss(
        x_theirs,
        t_theirs,
        torch.from_numpy(w) if weighted else None,
        ignore_index=ignore,
        reduction=reduction,
    )
    _check(torch, ours, theirs, [(x_ours, x_theirs)])


def test_nll_loss_all_ignored_mean_is_nan(torch):
    x = np.zeros((2, 3), dtype=np.float32)
    t = np.array([-100, -100])
    ours = F.nll_loss(tl.from_numpy(x), tl.from_numpy(t))
    theirs = torch.nn.functional.nll_loss(torch.from_numpy(x), torch.from_numpy(t))
    assert_same(ours, theirs, exact=False)


@pytest.mark.parametrize(
    "call",
    [
        "cross_entropy(x, t.int())",
        "cross_entropy(x, t.float())",
        "cross_entropy(x, t + 7)",
        "cross_entropy(x, t[:2])",
        "cross_entropy(x, t, label_smoothing=1.5)",
        "cross_entropy(x, x.long())",
        "cross_entropy(x, x, ignore_index=1)",
        "cross_entropy(x, x, weight=x[0])",
        "cross_entropy(x, t, reduction='bad')",
        "nll_loss(x, t.int())",
        "nll_loss(x, t - 1)",
        "nll_loss(x, t, weight=x[0, :2])",
        "nll_loss(x[0, 0], t)",
        "nll_loss(x, t[:, None])",
        "nll_loss(x[..., None, None], t[:, None])",
        "mse_loss(x, x[:, :3])",
        "mse_loss(x, t, reduction='bad')",
        "l1_loss(x, x[:, :3])",
        "binary_cross_entropy(x, x.sigmoid())",
        "binary_cross_entropy(x.sigmoid(), x[:, :1])",
        "binary_cross_entropy_with_logits(x, x[:, :1])",
        "one_hot(t, 2)",
        "one_hot(t.float())",
        "one_hot(t - 1)",
        "one_hot(t[:0])",
    ],
)
def test_loss_errors_match_torch(torch, call):
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((3, 4)).astype(np.float32)
    t_np = np.array([0, 1, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_same(
            lambda: eval(
                call, {"x": tl.from_numpy(x_np.copy()), "t": tl.from_numpy(t_np.copy())}, vars(F)
            ),
            lambda: eval(
                call,
                {"x": torch.from_numpy(x_np.copy()), "t": torch.from_numpy(t_np.copy())},
                vars(torch.nn.functional),
            ),
        )


@settings(max_examples=40)
@given(
    shape=st.sampled_from([(3,), (2, 3), (2, 3, 4)]),
    broadcast=st.booleans(),
    reduction=st.sampled_from(REDUCTIONS),
    layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
    seed=seeds,
)
def test_mse_and_l1_loss(torch, shape, broadcast, reduction, layout, seed):
    x_ours, x_theirs = make_pair(torch, shape, layout, seed)
    t_shape = shape[:-1] + (1,) if broadcast else shape
    t_ours, t_theirs = make_pair(torch, t_shape, "contiguous", seed + 1)
    for name in ("mse_loss", "l1_loss"):
        x_ours.grad = None
        x_theirs.grad = None
        t_ours.grad = None
        t_theirs.grad = None
        with warnings.catch_warnings(record=True) as w_ours:
            warnings.simplefilter("always")
            ours = getattr(F, name)(x_ours, t_ours, reduction=reduction)
        with warnings.catch_warnings(record=True) as w_theirs:
            warnings.simplefilter("always")
            theirs = getattr(torch.nn.functional, name)(x_theirs, t_theirs, reduction=reduction)
        assert [str(w.message).replace("torch.", "tensorlab.") for w in w_theirs] == [
            str(w.message) for w in w_ours
        ]
        _check(torch, ours, theirs, [(x_ours, x_theirs), (t_ours, t_theirs)])


@settings(max_examples=40)
@given(
    shape=st.sampled_from([(3,), (2, 3), (2, 3, 2)]),
    reduction=st.sampled_from(REDUCTIONS),
    weighted=st.booleans(),
    pos_weighted=st.booleans(),
    seed=seeds,
)
def test_binary_cross_entropy_losses(torch, shape, reduction, weighted, pos_weighted, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(shape).astype(np.float32)
    p[rng.random(shape) < 0.1] = 0.0  # log(0) is clamped at -100
    t = rng.random(shape).astype(np.float32)
    w = rng.random(shape[-1:]).astype(np.float32)
    p_ours, p_theirs = tl.tensor(p, requires_grad=True), torch.tensor(p, requires_grad=True)
    t_ours, t_theirs = tl.tensor(t), torch.tensor(t)
    w_ours = tl.from_numpy(w) if weighted else None
    w_theirs = torch.from_numpy(w) if weighted else None
    ours = F.binary_cross_entropy(p_ours, t_ours, w_ours, reduction=reduction)
    theirs = torch.nn.functional.binary_cross_entropy(
        p_theirs, t_theirs, w_theirs, reduction=reduction
    )
    _check(torch, ours, theirs, [(p_ours, p_theirs)], rtol=1e-4, atol=1e-4)
    x_ours, x_theirs = make_pair(torch, shape, "contiguous", seed)
    t_ours, t_theirs = tl.tensor(t, requires_grad=True), torch.tensor(t, requires_grad=True)
    pw_ours = tl.from_numpy(w * 3) if pos_weighted else None
    pw_theirs = torch.from_numpy(w * 3) if pos_weighted else None
    ours = F.binary_cross_entropy_with_logits(
        x_ours, t_ours, w_ours, reduction=reduction, pos_weight=pw_ours
    )
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(
        x_theirs, t_theirs, w_theirs, reduction=reduction, pos_weight=pw_theirs
    )
    _check(torch, ours, theirs, [(x_ours, x_theirs), (t_ours, t_theirs)], rtol=1e-4, atol=1e-5)


def test_one_hot(torch):
    t = np.array([[0, 2], [1, 4]])
    assert_same(F.one_hot(tl.from_numpy(t)), torch.nn.functional.one_hot(torch.from_numpy(t)))
    assert_same(F.one_hot(tl.from_numpy(t), 6), torch.nn.functional.one_hot(torch.from_numpy(t), 6))


def test_loss_modules_match_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    t = np.array([0, 2, 1, 2])
    p = rng.random((4, 3)).astype(np.float32)
    w = np.array([0.5, 1.0, 2.0], dtype=np.float32)
    cases = [
        ("CrossEntropyLoss", dict(weight=w, label_smoothing=0.1), x, t),
        ("CrossEntropyLoss", dict(reduction="sum", ignore_index=2), x, t),
        ("NLLLoss", dict(weight=w), x, t),
        ("MSELoss", dict(reduction="none"), x, p),
        ("L1Loss", {}, x, p),
        ("BCELoss", dict(weight=w), p, p[::-1].copy()),
        ("BCEWithLogitsLoss", dict(pos_weight=w), x, p),
    ]
    for name, kwargs, a, b in cases:
        kw_ours = {
            k: tl.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()
        }
        kw_theirs = {
            k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()
        }
        m_ours, m_theirs = getattr(tl.nn, name)(**kw_ours), getattr(torch.nn, name)(**kw_theirs)
        assert repr(m_ours) == repr(m_theirs)
        assert list(dict(m_ours.named_buffers())) == list(dict(m_theirs.named_buffers()))
        a_ours, a_theirs = tl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        _check(
            torch,
            m_ours(a_ours, tl.from_numpy(b)),
            m_theirs(a_theirs, torch.from_numpy(b)),
            [(a_ours, a_theirs)],
            rtol=1e-4,
            atol=1e-5,
        )


def test_legacy_size_average_and_reduce(torch):
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    y = np.zeros((3, 4), dtype=np.float32)
    for size_average, reduce in [(False, None), (None, False), (True, True)]:
        with warnings.catch_warnings(record=True) as w_ours:
            warnings.simplefilter("always")
            ours = F.mse_loss(tl.from_numpy(x), tl.from_numpy(y), size_average, reduce)
        with warnings.catch_warnings(record=True) as w_theirs:
            warnings.simplefilter("always")
            theirs = torch.nn.functional.mse_loss(
                torch.from_numpy(x), torch.from_numpy(y), size_average, reduce
            )
        assert [str(w.message) for w in w_ours] == [str(w.message) for w in w_theirs]
        assert_same(ours, theirs, exact=False)


_BCE_DTYPES = st.sampled_from(["float32", "float64"])


@given(
    xd=_BCE_DTYPES,
    td=_BCE_DTYPES,
    pwd=st.none() | _BCE_DTYPES,
    wd=st.none() | _BCE_DTYPES,
    reduction=st.sampled_from(["none", "mean", "sum"]),
    n=st.integers(1, 9),
    seed=seeds,
)
@settings(max_examples=40)
def test_bce_with_logits_has_the_targets_dtype(torch, xd, td, pwd, wd, reduction, n, seed):
    """ATen works in place on ``1 - target``: the loss has the target's dtype, every step computed
    in the promoted dtype and rounded back (Step-by-Step's float64 logits, float32 labels)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(xd) * 3
    t = rng.random(n).astype(td)
    pw = None if pwd is None else (rng.random(n) * 3).astype(pwd)
    w = None if wd is None else rng.random(n).astype(wd)

    def run(lib, fn):
        xs = lib.tensor(x, requires_grad=True)
        opt = lambda a: None if a is None else lib.tensor(a)
        out = fn(xs, lib.tensor(t), weight=opt(w), pos_weight=opt(pw), reduction=reduction)
        out.sum().backward()
        return out, xs.grad

    ours, og = run(tl, F.binary_cross_entropy_with_logits)
    theirs, tg = run(torch, torch.nn.functional.binary_cross_entropy_with_logits)
    # the dtype exactly; the values to rounding (log_sigmoid is transcendental: torch's SLEEF)
    assert_same(ours.detach(), theirs.detach(), exact=False, rtol=1e-5)
    assert_same(og, tg, exact=False, rtol=1e-5)
