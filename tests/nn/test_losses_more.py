"""The losses added for issue 38 against torch 2.13: ``smooth_l1_loss``/``huber_loss`` exactly
(values, ``grad_fn`` names; gradients to the last bit), and soft margin, margin ranking, hinge and cosine
embedding, Poisson and Gaussian NLL, KL divergence, multilabel soft margin and triplet margin
losses (values and gradients to rounding), every reduction; modules, reprs and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl

REDUCTIONS = st.sampled_from(["mean", "sum", "none"])
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, max_side=5)


def _leaf(lib, a):
    return lib.tensor(a, requires_grad=True)


def _pair(lib, x, y):
    return _leaf(lib, x), lib.tensor(y)


@settings(max_examples=60)
@given(
    data=st.data(),
    shape=SHAPES,
    reduction=REDUCTIONS,
    which=st.sampled_from(["smooth_l1", "huber"]),
    param=st.sampled_from([1.0, 0.5, 2.0, 0.1, 0.0]),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_smooth_l1_and_huber_match_torch_exactly(
    torch, data, shape, reduction, which, param, dtype
):
    # (no values near float32's smallest normals: torch's vectorized kernel rounds the
    # subnormal products of its backward in another order)
    el = st.floats(-4, 4, width=32).filter(lambda v: v == 0 or abs(v) > 1e-6)
    x = data.draw(hnp.arrays(dtype, shape, elements=el))
    y = data.draw(hnp.arrays(dtype, shape, elements=el))

    def run(lib):
        a, b = _pair(lib, x, y)
        F = lib.nn.functional
        if which == "smooth_l1":
            loss = F.smooth_l1_loss(a, b, reduction=reduction, beta=param)
        else:
            if param == 0.0:
                return None
            loss = F.huber_loss(a, b, reduction=reduction, delta=param)
        loss.backward(lib.ones_like(loss))
        return loss, a.grad

    ours, theirs = run(tl), run(torch)
    if ours is None:
        return
    np.testing.assert_array_equal(ours[0].detach().numpy(), theirs[0].detach().numpy())
    # the gradient to the last bit: ATen's vectorized backward kernel rounds in its own order
    np.testing.assert_allclose(ours[1].numpy(), theirs[1].numpy(), rtol=3e-7, atol=1e-30)
    assert str(ours[0].dtype).split(".")[-1] == str(theirs[0].dtype).split(".")[-1]


def test_grad_fn_names_match_torch(torch):
    def names(lib):
        a, b = _pair(lib, np.array([0.2, 3.0]), np.array([0.0, 0.0]))
        F = lib.nn.functional
        return [
            F.smooth_l1_loss(a, b).grad_fn.name(),
            F.huber_loss(a, b, reduction="none").grad_fn.name(),
            F.smooth_l1_loss(a, b, beta=0.0).grad_fn.name(),
        ]

    assert names(tl) == names(torch)


def _x(data, shape, lo=-3, hi=3):
    return data.draw(hnp.arrays(np.float64, shape, elements=st.floats(lo, hi)))


def _signs(data, shape):
    return data.draw(hnp.arrays(np.float64, shape, elements=st.sampled_from([-1.0, 1.0])))


CASES = {
    "soft_margin": lambda d, s: (
        lambda lib, X: lib.nn.functional.soft_margin_loss(X[0], X[1], reduction=X[-1]),
        [_x(d, s)],
        [_signs(d, s)],
    ),
    "margin_ranking": lambda d, s: (
        lambda lib, X: lib.nn.functional.margin_ranking_loss(
            X[0], X[1], X[2], margin=0.3, reduction=X[-1]
        ),
        [_x(d, s), _x(d, s)],
        [_signs(d, s)],
    ),
    "hinge_embedding": lambda d, s: (
        lambda lib, X: lib.nn.functional.hinge_embedding_loss(
            X[0], X[1], margin=1.5, reduction=X[-1]
        ),
        [_x(d, s)],
        [_signs(d, s)],
    ),
    "cosine_embedding": lambda d, s: (
        lambda lib, X: lib.nn.functional.cosine_embedding_loss(
            X[0], X[1], X[2], margin=0.2, reduction=X[-1]
        ),
        [_x(d, (s[0], 4)), _x(d, (s[0], 4))],
        [_signs(d, (s[0],))],
    ),
    "poisson_nll": lambda d, s: (
        lambda lib, X: lib.nn.functional.poisson_nll_loss(X[0], X[1], reduction=X[-1]),
        [_x(d, s)],
        [_x(d, s, 0, 5)],
    ),
    "poisson_nll_full": lambda d, s: (
        lambda lib, X: lib.nn.functional.poisson_nll_loss(
            X[0], X[1], log_input=False, full=True, reduction=X[-1]
        ),
        [_x(d, s, 0.1, 3)],
        [_x(d, s, 0, 5)],
    ),
    "gaussian_nll": lambda d, s: (
        lambda lib, X: lib.nn.functional.gaussian_nll_loss(
            X[0], X[2], X[1], reduction=X[-1], full=True
        ),
        [_x(d, s), _x(d, s, 0.0, 2)],
        [_x(d, s)],
    ),
    "kl_div": lambda d, s: (
        lambda lib, X: lib.nn.functional.kl_div(
            X[0], X[1], reduction="batchmean" if X[-1] == "mean" else X[-1]
        ),
        [_x(d, s, -4, 0)],
        [_x(d, s, 0, 1)],
    ),
    "kl_div_log_target": lambda d, s: (
        lambda lib, X: lib.nn.functional.kl_div(X[0], X[1], reduction=X[-1], log_target=True),
        [_x(d, s, -4, 0)],
        [_x(d, s, -4, 0)],
    ),
    "multilabel_soft_margin": lambda d, s: (
        lambda lib, X: lib.nn.functional.multilabel_soft_margin_loss(X[0], X[1], reduction=X[-1]),
        [_x(d, s)],
        [d.draw(hnp.arrays(np.float64, s, elements=st.sampled_from([0.0, 1.0])))],
    ),
    "triplet_margin": lambda d, s: (
        lambda lib, X: lib.nn.functional.triplet_margin_loss(
            X[0], X[1], X[2], margin=0.5, swap=True, reduction=X[-1]
        ),
        [_x(d, (s[0], 3)), _x(d, (s[0], 3)), _x(d, (s[0], 3))],
        [],
    ),
    "multi_margin": lambda d, s: (
        lambda lib, X: lib.nn.functional.multi_margin_loss(
            X[0], X[1].long(), p=2, margin=0.7, weight=X[2], reduction=X[-1]
        ),
        [_x(d, (s[0], 4))],
        [
            d.draw(hnp.arrays(np.int64, (s[0],), elements=st.integers(0, 3))).astype(np.float64),
            _x(d, (4,), 0, 2),
        ],
    ),
    "triplet_with_distance": lambda d, s: (
        lambda lib, X: lib.nn.functional.triplet_margin_with_distance_loss(
            X[0],
            X[1],
            X[2],
            distance_function=lambda a, b: (a - b).abs().sum(-1),
            swap=True,
            reduction=X[-1],
        ),
        [_x(d, (s[0], 3)), _x(d, (s[0], 3)), _x(d, (s[0], 3))],
        [],
    ),
}


@settings(max_examples=80)
@given(
    data=st.data(),
    name=st.sampled_from(sorted(CASES)),
    shape=hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=4),
    reduction=REDUCTIONS,
)
def test_losses_match_torch(torch, data, name, shape, reduction):
    fn, grads, plain = CASES[name](data, shape)

    def run(lib):
        xs = [_leaf(lib, g) for g in grads]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = fn(lib, [*xs, *[lib.tensor(p) for p in plain], reduction])
        loss.backward(lib.ones_like(loss))
        return loss.detach().numpy(), [x.grad.numpy() for x in xs]

    ours, theirs = run(tl), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9, atol=1e-12)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(
    "code",
    [
        "nn.SmoothL1Loss()",
        "nn.SmoothL1Loss(beta=0.5)",
        "nn.HuberLoss(delta=2.0)",
        "nn.SoftMarginLoss()",
        "nn.MarginRankingLoss(margin=0.1)",
        "nn.HingeEmbeddingLoss()",
        "nn.CosineEmbeddingLoss()",
        "nn.PoissonNLLLoss()",
        "nn.GaussianNLLLoss()",
        "nn.KLDivLoss(reduction='batchmean')",
        "nn.MultiLabelSoftMarginLoss()",
        "nn.TripletMarginLoss(margin=2.0)",
        "nn.MultiMarginLoss(p=2, margin=0.5)",
        "nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True)",
    ],
)
def test_modules_match_torch(torch, code):
    def run(lib):
        lib.manual_seed(0)
        m = eval(code, {"nn": lib.nn})
        n = type(m).__name__
        x, y = lib.randn(3, 4, dtype=lib.float64), lib.randn(3, 4, dtype=lib.float64)
        s = lib.tensor([1.0, -1.0, 1.0], dtype=lib.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if n in ("MarginRankingLoss",):
                out = m(x, y, s.view(3, 1).expand(3, 4))
            elif n == "CosineEmbeddingLoss":
                out = m(x, y, s)
            elif n == "GaussianNLLLoss":
                out = m(x, y, y.abs())
            elif n == "MultiMarginLoss":
                out = m(x, lib.tensor([0, 3, 1]))
            elif n in ("TripletMarginLoss", "TripletMarginWithDistanceLoss"):
                out = m(x, y, x.flip(0))
            elif n in ("SoftMarginLoss", "HingeEmbeddingLoss"):
                out = m(x, y.sign())
            elif n == "MultiLabelSoftMarginLoss":
                out = m(x, (y > 0).double())
            elif n == "KLDivLoss":
                out = m(x.log_softmax(1), y.softmax(1))
            else:
                out = m(x, y)
        return repr(m), out.item(), sorted(m.__dict__.get("_buffers", {}))

    ours, theirs = run(tl), run(torch)
    assert ours[0] == theirs[0] and ours[2] == theirs[2]
    assert ours[1] == pytest.approx(theirs[1], rel=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        "F.smooth_l1_loss(a, b, beta=-1.0)",
        "F.huber_loss(a, b, delta=0.0)",
        "F.huber_loss(a, b, reduction='avg')",
        "F.smooth_l1_loss(a, b, reduction='avg')",
        "F.smooth_l1_loss(a.long(), b.long())",
        "F.margin_ranking_loss(a, b, b[0])",
        "F.cosine_embedding_loss(a, b, b)",
        "F.cosine_embedding_loss(a[0], b[0], b[0])",
        "F.cosine_embedding_loss(a, b, b[0, 0])",
        "F.gaussian_nll_loss(a, b, -b.abs())",
        "F.gaussian_nll_loss(a, b, b[:, :1, None])",
        "F.gaussian_nll_loss(a, b, b.abs(), reduction='avg')",
        "F.kl_div(a, b, reduction='avg')",
        "F.triplet_margin_loss(a, b, b[0])",
        "nn.TripletMarginLoss(margin=0)",
        "F.multi_margin_loss(a, b.long(), p=3)",
        "F.multi_margin_loss(a, lib.tensor([0, 5]))",
        "F.multi_margin_loss(a, b[0].long(), weight=a)",
        "F.triplet_margin_with_distance_loss(a, b, b, margin=0)",
        "F.triplet_margin_with_distance_loss(a, b, b, reduction='avg')",
        "nn.MultiMarginLoss(p=3)",
        "F.smooth_l1_loss(a, 3)",
    ],
)
def test_errors_match_torch(torch, call):
    def env(lib):
        return {
            "F": lib.nn.functional,
            "nn": lib.nn,
            "lib": lib,
            "a": lib.ones(2, 3),
            "b": lib.ones(2, 3) * 2,
        }

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_same(lambda: eval(call, env(tl)), lambda: eval(call, env(torch)))


def test_size_mismatch_and_mean_warnings_match_torch(torch):
    def msgs(lib):
        F = lib.nn.functional
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            F.smooth_l1_loss(lib.ones(2, 3), lib.ones(3))
            F.huber_loss(lib.ones(2, 1), lib.ones(2))
            F.kl_div(lib.zeros(2), lib.ones(2))
            F.smooth_l1_loss(lib.ones(2), lib.ones(2), size_average=False)
        return [(m.category.__name__, str(m.message).replace("tensorlab.", "torch.")) for m in w]

    assert msgs(tl) == msgs(torch)
