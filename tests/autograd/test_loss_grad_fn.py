"""Every loss in ``tensorlab.nn`` records the ``grad_fn`` torch prints (``F.cross_entropy`` ->
``NllLossBackward0``, ``F.mse_loss`` -> ``MseLossBackward0``, ``soft_margin_loss`` ->
``SoftMarginLossBackward0``...), the nodes under it down the graph (ATen's ``Tensor, Scalar``
overloads record ``MulBackward1``/``AddBackward1``), the same edges, and torch's gradients."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _inputs(lib):
    lib.manual_seed(0)
    return {
        "x": lib.randn(4, 3, requires_grad=True),
        "t": lib.randn(4, 3),
        "p": lib.rand(4, 3, requires_grad=True),
        "tp": lib.rand(4, 3),
        "cls": lib.tensor([0, 2, 1, 2]),
        "img": lib.randn(2, 3, 4, 4, requires_grad=True),
        "imgt": lib.randint(0, 3, (2, 4, 4)),
    }


LOSSES = {
    "cross_entropy": lambda F, nn, v: F.cross_entropy(v["x"], v["cls"]),
    "cross_entropy_none": lambda F, nn, v: F.cross_entropy(v["x"], v["cls"], reduction="none"),
    "cross_entropy_sum": lambda F, nn, v: F.cross_entropy(v["x"], v["cls"], reduction="sum"),
    "cross_entropy_label_smoothing": lambda F, nn, v: F.cross_entropy(
        v["x"], v["cls"], label_smoothing=0.1
    ),
    "cross_entropy_label_smoothing_none": lambda F, nn, v: F.cross_entropy(
        v["x"], v["cls"], label_smoothing=0.2, reduction="none"
    ),
    "cross_entropy_probs": lambda F, nn, v: F.cross_entropy(v["x"], v["tp"]),
    "cross_entropy_2d": lambda F, nn, v: F.cross_entropy(v["img"], v["imgt"]),
    "nll_loss": lambda F, nn, v: F.nll_loss(v["x"], v["cls"]),
    "nll_loss2d": lambda F, nn, v: F.nll_loss(v["img"], v["imgt"]),
    "nll_loss2d_none": lambda F, nn, v: F.nll_loss(v["img"], v["imgt"], reduction="none"),
    "mse_loss": lambda F, nn, v: F.mse_loss(v["x"], v["t"]),
    "mse_loss_none": lambda F, nn, v: F.mse_loss(v["x"], v["t"], reduction="none"),
    "l1_loss": lambda F, nn, v: F.l1_loss(v["x"], v["t"]),
    "l1_loss_sum": lambda F, nn, v: F.l1_loss(v["x"], v["t"], reduction="sum"),
    "smooth_l1_loss": lambda F, nn, v: F.smooth_l1_loss(v["x"], v["t"]),
    "smooth_l1_loss_beta0": lambda F, nn, v: F.smooth_l1_loss(v["x"], v["t"], beta=0.0),
    "huber_loss": lambda F, nn, v: F.huber_loss(v["x"], v["t"]),
    "huber_loss_none": lambda F, nn, v: F.huber_loss(v["x"], v["t"], reduction="none"),
    "binary_cross_entropy": lambda F, nn, v: F.binary_cross_entropy(v["p"], v["tp"]),
    "binary_cross_entropy_with_logits": lambda F, nn, v: F.binary_cross_entropy_with_logits(
        v["x"], v["tp"]
    ),
    "bce_with_logits_pos_weight": lambda F, nn, v: F.binary_cross_entropy_with_logits(
        v["x"], v["tp"], pos_weight=v["tp"][0] + 0.5
    ),
    "kl_div_batchmean": lambda F, nn, v: F.kl_div(v["x"], v["tp"], reduction="batchmean"),
    "kl_div_mean": lambda F, nn, v: F.kl_div(v["x"], v["tp"]),
    "kl_div_log_target": lambda F, nn, v: F.kl_div(
        v["x"], v["tp"].log(), reduction="sum", log_target=True
    ),
    "soft_margin_loss": lambda F, nn, v: F.soft_margin_loss(v["x"], v["t"].sign()),
    "soft_margin_loss_none": lambda F, nn, v: F.soft_margin_loss(
        v["x"], v["t"].sign(), reduction="none"
    ),
    "multilabel_soft_margin_loss": lambda F, nn, v: F.multilabel_soft_margin_loss(
        v["x"], v["tp"].round()
    ),
    "multi_margin_loss": lambda F, nn, v: F.multi_margin_loss(v["x"], v["cls"]),
    "multi_margin_loss_p2": lambda F, nn, v: F.multi_margin_loss(
        v["x"], v["cls"], p=2, margin=0.5, reduction="sum"
    ),
    "multi_margin_loss_1d": lambda F, nn, v: F.multi_margin_loss(v["x"][0], v["cls"][:1]),
    "multilabel_margin_loss": lambda F, nn, v: F.multilabel_margin_loss(
        v["x"], v["cls"].new_tensor([[2, 0, -1], [1, 1, -1], [0, 1, 2], [-1, 0, 1]])
    ),
    "multilabel_margin_loss_none": lambda F, nn, v: F.multilabel_margin_loss(
        v["x"],
        v["cls"].new_tensor([[2, 0, -1], [1, 1, -1], [0, 1, 2], [-1, 0, 1]]),
        reduction="none",
    ),
    "multilabel_margin_loss_1d": lambda F, nn, v: F.multilabel_margin_loss(
        v["x"][1], v["cls"].new_tensor([2, -1, 0]), reduction="none"
    ),
    "nn.MultiLabelMarginLoss": lambda F, nn, v: nn.MultiLabelMarginLoss(reduction="sum")(
        v["x"], v["cls"].new_tensor([[2, 0, -1], [1, -1, 2], [0, 1, 2], [1, 0, -1]])
    ),
    "hinge_embedding_loss": lambda F, nn, v: F.hinge_embedding_loss(v["x"], v["t"].sign()),
    "margin_ranking_loss": lambda F, nn, v: F.margin_ranking_loss(
        v["x"][:, 0], v["x"][:, 1], v["t"][:, 0].sign(), margin=0.3
    ),
    "cosine_embedding_loss": lambda F, nn, v: F.cosine_embedding_loss(
        v["x"], v["p"], v["t"][:, 0].sign()
    ),
    "triplet_margin_loss": lambda F, nn, v: F.triplet_margin_loss(v["x"], v["p"], v["t"]),
    "triplet_margin_with_distance_loss": lambda F, nn, v: F.triplet_margin_with_distance_loss(
        v["x"], v["p"], v["t"]
    ),
    "poisson_nll_loss": lambda F, nn, v: F.poisson_nll_loss(v["x"], v["tp"]),
    "poisson_nll_loss_full": lambda F, nn, v: F.poisson_nll_loss(
        v["p"], v["tp"], log_input=False, full=True
    ),
    "gaussian_nll_loss": lambda F, nn, v: F.gaussian_nll_loss(v["x"], v["t"], v["p"] + 0.1),
    "nn.CrossEntropyLoss": lambda F, nn, v: nn.CrossEntropyLoss(label_smoothing=0.05)(
        v["x"], v["cls"]
    ),
    "nn.MSELoss": lambda F, nn, v: nn.MSELoss()(v["x"], v["t"]),
    "nn.BCEWithLogitsLoss": lambda F, nn, v: nn.BCEWithLogitsLoss()(v["x"], v["tp"]),
    "nn.SmoothL1Loss": lambda F, nn, v: nn.SmoothL1Loss(beta=0.5)(v["x"], v["t"]),
    "nn.HuberLoss": lambda F, nn, v: nn.HuberLoss(delta=0.5)(v["x"], v["t"]),
    "nn.KLDivLoss": lambda F, nn, v: nn.KLDivLoss(reduction="batchmean")(v["x"], v["tp"]),
    "nn.SoftMarginLoss": lambda F, nn, v: nn.SoftMarginLoss()(v["x"], v["t"].sign()),
    "nn.MultiMarginLoss": lambda F, nn, v: nn.MultiMarginLoss()(v["x"], v["cls"]),
}


def _graph(node, depth=3):
    """The nodes under ``node`` breadth first: (name, number of edges, which edges are empty)."""
    out, queue, seen = [], [node], set()
    while queue and len(out) < depth:
        n = queue.pop(0)
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        name = n.name().replace("torch::autograd::", "")
        out.append((name, tuple(f is None for f, _ in n.next_functions)))
        queue.extend(f for f, _ in n.next_functions if f is not None)
    return out


def _run(lib, name):
    F = importlib.import_module(lib.__name__ + ".nn.functional")
    nn = importlib.import_module(lib.__name__ + ".nn")
    v = _inputs(lib)
    y = LOSSES[name](F, nn, v)
    graph = _graph(y.grad_fn)
    (y.sum() if y.dim() else y).backward()
    grads = {k: t.grad for k, t in v.items() if t.grad is not None}
    return graph, grads


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_grad_fn_and_gradients_are_torchs(torch, name):
    g_o, grads_o = _run(tl, name)
    g_t, grads_t = _run(torch, name)
    assert g_o == g_t
    assert sorted(grads_o) == sorted(grads_t)
    for k in grads_t:
        np.testing.assert_allclose(grads_o[k]._np(), grads_t[k].numpy(), rtol=1e-5, atol=1e-6)


def test_scalar_nodes_have_one_edge_and_saved_other(torch):
    for lib in (tl, torch):
        F = importlib.import_module(lib.__name__ + ".nn.functional")
        x = lib.randn(3, 4, requires_grad=True)
        y = F.cross_entropy(x, lib.tensor([0, 1, 3]), label_smoothing=0.25)
        mul = y.grad_fn.next_functions[0][0]
        assert mul.name() == "MulBackward1" and len(mul.next_functions) == 1
        assert mul._saved_other == 0.75
        z = F.cross_entropy(x, lib.rand(3, 4))
        assert z.grad_fn.name() == "DivBackward1" and len(z.grad_fn.next_functions) == 1
        assert z.grad_fn._saved_other == 3 and type(z.grad_fn._saved_other) is int


def _fused_second_backward(lib):
    F = importlib.import_module(lib.__name__ + ".nn.functional")
    x = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    y = F.soft_margin_loss(x, lib.tensor([[1.0, -1.0], [-1.0, 1.0]]))
    y.backward()
    y.backward()


def test_fused_loss_is_freed_after_backward(torch):
    raises_same(lambda: _fused_second_backward(tl), lambda: _fused_second_backward(torch))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 6),
    c=st.integers(2, 6),
    reduction=st.sampled_from(["mean", "sum", "none"]),
    p=st.sampled_from([1, 2]),
    margin=st.sampled_from([0.5, 1.0, 2.0]),
    data=st.data(),
)
def test_margin_losses_gradients(torch, n, c, reduction, p, margin, data):
    vals = data.draw(st.lists(st.integers(-20, 20), min_size=n * c, max_size=n * c))
    x0 = np.array(vals, dtype=np.float32).reshape(n, c) / 8
    cls = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)))
    sign = np.where(np.arange(n * c).reshape(n, c) % 3 == 0, -1.0, 1.0).astype(np.float32)
    out = []
    for lib in (tl, torch):
        F = importlib.import_module(lib.__name__ + ".nn.functional")
        x = lib.tensor(x0, requires_grad=True)
        a = F.multi_margin_loss(x, lib.tensor(cls), p=p, margin=margin, reduction=reduction)
        b = F.soft_margin_loss(x, lib.tensor(sign), reduction=reduction)
        (a.sum() + b.sum()).backward()
        out.append((a.grad_fn.name(), b.grad_fn.name(), a.detach(), b.detach(), x.grad))
    assert out[0][:2] == out[1][:2]
    for o, t in zip(out[0][2:], out[1][2:]):
        np.testing.assert_allclose(o._np(), t.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "target",
    [[[0, 1, 2], [1, -1, 0]], [[0, 5, -1, 0], [1, -1, 0, 0]], [[0.0, 1, -1, 2], [1, 0, -1, 2]]],
)
def test_multilabel_margin_loss_errors(torch, target):
    def run(lib):
        F = importlib.import_module(lib.__name__ + ".nn.functional")
        t = lib.tensor(target)
        return F.multilabel_margin_loss(lib.zeros(2, 4, requires_grad=True), t)

    raises_same(lambda: run(tl), lambda: run(torch))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 5),
    c=st.integers(1, 6),
    reduction=st.sampled_from(["mean", "sum", "none"]),
    data=st.data(),
)
def test_multilabel_margin_loss_values_and_gradients(torch, n, c, reduction, data):
    vals = data.draw(st.lists(st.integers(-16, 16), min_size=n * c, max_size=n * c))
    x0 = np.array(vals, dtype=np.float32).reshape(n, c) / 8
    t0 = np.array(
        data.draw(st.lists(st.integers(-1, c - 1), min_size=n * c, max_size=n * c))
    ).reshape(n, c)
    out = []
    for lib in (tl, torch):
        F = importlib.import_module(lib.__name__ + ".nn.functional")
        x = lib.tensor(x0, requires_grad=True)
        y = F.multilabel_margin_loss(x, lib.tensor(t0), reduction=reduction)
        y.sum().backward()
        out.append((y.grad_fn.name(), y.detach(), x.grad))
    assert out[0][0] == out[1][0]
    for o, t in zip(out[0][1:], out[1][1:]):
        np.testing.assert_allclose(o._np(), t.numpy(), rtol=1e-5, atol=1e-6)
