"""Optimizers against torch 2.13: SGD, Adam, AdamW step for step (every option), param_groups,
state_dict/load_state_dict, zero_grad(set_to_none), lr_scheduler.StepLR, reprs and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _run(lib, name, kwargs, w0, xs, *, groups=False, scheduler=None):
    params = [lib.tensor(w.copy(), requires_grad=True) for w in w0]
    if groups:
        spec = [{"params": params[:1]}, {"params": params[1:], "lr": 0.05}]
    else:
        spec = params
    opt = getattr(lib.optim, name)(spec, **kwargs)
    sched = lib.optim.lr_scheduler.StepLR(opt, **scheduler) if scheduler else None
    for x in xs:
        opt.zero_grad()
        loss = sum(((p * lib.from_numpy(x[: p.shape[-1]])).sum() ** 2) for p in params)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
    return params, opt, sched


OPTIONS = {
    "SGD": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([0.1, 0.01]),
            "momentum": st.sampled_from([0.0, 0.9]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "maximize": st.booleans(),
        }
    ),
    "Adam": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-3, 0.1]),
            "betas": st.sampled_from([(0.9, 0.999), (0.5, 0.9)]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "amsgrad": st.booleans(),
            "maximize": st.booleans(),
        }
    ),
    "Adadelta": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1.0, 0.1]),
            "rho": st.sampled_from([0.9, 0.5]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "maximize": st.booleans(),
        }
    ),
    "AdamW": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-3, 0.1]),
            "eps": st.sampled_from([1e-8, 1e-3]),
            "weight_decay": st.sampled_from([0.0, 0.01, 0.5]),
            "amsgrad": st.booleans(),
        }
    ),
}


@settings(max_examples=40)
@given(data=st.data(), name=st.sampled_from(sorted(OPTIONS)), groups=st.booleans())
def test_optimizers_match_torch_step_for_step(torch, data, name, groups):
    kwargs = data.draw(OPTIONS[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    w0 = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    xs = [rng.standard_normal(4).astype(np.float32) for _ in range(5)]
    ours, opt, _ = _run(tl, name, kwargs, w0, xs, groups=groups)
    theirs, opt_t, _ = _run(torch, name, kwargs, w0, xs, groups=groups)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(opt) == repr(opt_t)
    sd, sd_t = opt.state_dict(), opt_t.state_dict()
    assert sd["param_groups"] == sd_t["param_groups"]
    assert sd["state"].keys() == sd_t["state"].keys()
    for k in sd["state"]:
        assert sd["state"][k].keys() == sd_t["state"][k].keys()
        for key, v in sd["state"][k].items():
            np.testing.assert_allclose(
                v.numpy(), sd_t["state"][k][key].numpy(), rtol=1e-5, atol=1e-6
            )
            assert str(v.dtype).split(".")[-1] == str(sd_t["state"][k][key].dtype).split(".")[-1]


def test_state_dict_round_trip_continues_identically(torch):
    rng = np.random.default_rng(0)
    w0 = [rng.standard_normal((2, 3)).astype(np.float32)]
    xs = [rng.standard_normal(3).astype(np.float32) for _ in range(6)]
    full, _, _ = _run(tl, "Adam", {"lr": 0.1}, w0, xs)
    half, opt, _ = _run(tl, "Adam", {"lr": 0.1}, w0, xs[:3])
    resumed = [tl.tensor(half[0].detach().numpy().copy(), requires_grad=True)]
    opt2 = tl.optim.Adam(resumed, lr=0.5)
    opt2.load_state_dict(opt.state_dict())
    assert opt2.param_groups[0]["lr"] == 0.1 and opt2.param_groups[0]["params"] == resumed
    for x in xs[3:]:
        opt2.zero_grad()
        ((resumed[0] * tl.from_numpy(x)).sum() ** 2).backward()
        opt2.step()
    np.testing.assert_allclose(resumed[0].detach().numpy(), full[0].detach().numpy(), rtol=1e-6)


def test_zero_grad_set_to_none(torch):
    p = tl.ones(3, requires_grad=True)
    opt = tl.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and float(p.grad.abs().sum()) == 0
    (p * 2).sum().backward()
    opt.zero_grad()
    assert p.grad is None


def test_step_lr_matches_torch(torch):
    rng = np.random.default_rng(1)
    w0 = [rng.standard_normal((2, 3)).astype(np.float32), rng.standard_normal(3).astype(np.float32)]
    xs = [rng.standard_normal(3).astype(np.float32) for _ in range(7)]
    kw = dict(step_size=2, gamma=0.5)
    ours, opt, sched = _run(
        tl, "SGD", {"lr": 0.1, "momentum": 0.9}, w0, xs, groups=True, scheduler=kw
    )
    theirs, opt_t, sched_t = _run(
        torch, "SGD", {"lr": 0.1, "momentum": 0.9}, w0, xs, groups=True, scheduler=kw
    )
    assert sched.get_last_lr() == sched_t.get_last_lr()
    assert sched.last_epoch == sched_t.last_epoch
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in opt_t.param_groups]
    assert [g["initial_lr"] for g in opt.param_groups] == [
        g["initial_lr"] for g in opt_t.param_groups
    ]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(sched.state_dict()) == list(sched_t.state_dict())


def test_step_lr_warns_when_called_before_optimizer_step(torch):
    def messages(lib):
        p = lib.ones(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1)
        sched = lib.optim.lr_scheduler.StepLR(opt, 1)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sched.step()
            sched.get_lr()
        return [str(m.message) for m in w]

    assert messages(tl) == messages(torch)


@pytest.mark.parametrize(
    "call",
    [
        "optim.Adam([p], lr=-1)",
        "optim.Adam([p], eps=-1)",
        "optim.Adam([p], betas=(1.0, 0.9))",
        "optim.Adam([p], betas=(0.9, -0.1))",
        "optim.Adam([p], weight_decay=-1)",
        "optim.AdamW([p], lr=-0.5)",
        "optim.Adadelta([p], rho=1.5)",
        "optim.Adadelta([p], eps=-1)",
        "optim.Adam([], lr=0.1)",
        "optim.Adam(p)",
        "optim.SGD([p], lr=0.1, nesterov=True)",
        "optim.lr_scheduler.StepLR(object(), 2)",
        "optim.lr_scheduler.StepLR(optim.SGD([p]), 2, last_epoch=3)",
        "optim.SGD([p]).load_state_dict({'state': {}, 'param_groups': []})",
    ],
)
def test_optim_errors_match_torch(torch, call):
    raises_same(
        lambda: eval(call, {"optim": tl.optim, "p": tl.ones(2, requires_grad=True)}),
        lambda: eval(call, {"optim": torch.optim, "p": torch.ones(2, requires_grad=True)}),
    )


def test_optimizer_layout_follows_torch():
    from tensorlab.optim import adam, adamw, lr_scheduler, optimizer, sgd

    assert tl.optim.SGD is sgd.SGD and tl.optim.Adam is adam.Adam and tl.optim.AdamW is adamw.AdamW
    assert tl.optim.Optimizer is optimizer.Optimizer
    assert tl.optim.lr_scheduler.StepLR is lr_scheduler.StepLR
    assert issubclass(tl.optim.AdamW, tl.optim.Adam)
