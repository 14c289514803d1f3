"""Every ``lr_scheduler`` class against torch 2.13: the learning rates (and cycled momentum/betas)
step by step, exactly (the same floats), in the chainable form (``step()``) and the closed form
(``step(epoch)``), ``get_last_lr``, ``state_dict``/``load_state_dict`` resuming identically,
torch's warnings and its errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

LRS = st.sampled_from([0.1, 0.05, 1.0, 0.3, 1e-3])
STEPS = st.integers(1, 40)

# name -> strategy of keyword arguments (all valid)
KWARGS = {
    "StepLR": st.fixed_dictionaries(
        {"step_size": st.integers(1, 7), "gamma": st.sampled_from([0.1, 0.5, 0.9, 0.7])}
    ),
    "MultiStepLR": st.fixed_dictionaries(
        {
            "milestones": st.lists(st.integers(1, 30), max_size=5),
            "gamma": st.sampled_from([0.1, 0.5, 0.3]),
        }
    ),
    "ConstantLR": st.fixed_dictionaries(
        {"factor": st.sampled_from([1 / 3, 0.5, 0.1, 0.9, 1.0]), "total_iters": st.integers(0, 9)}
    ),
    "LinearLR": st.fixed_dictionaries(
        {
            "start_factor": st.sampled_from([1 / 3, 0.5, 0.1, 1.0]),
            "end_factor": st.sampled_from([1.0, 0.5, 0.0, 0.25]),
            "total_iters": st.integers(1, 12),
        }
    ),
    "ExponentialLR": st.fixed_dictionaries({"gamma": st.sampled_from([0.9, 0.5, 0.99, 0.95])}),
    "PolynomialLR": st.fixed_dictionaries(
        {"total_iters": st.integers(1, 12), "power": st.sampled_from([1.0, 2.0, 0.5, 3.0])}
    ),
    "CosineAnnealingLR": st.fixed_dictionaries(
        {"T_max": st.integers(1, 12), "eta_min": st.sampled_from([0.0, 1e-4, 0.01])}
    ),
    "CosineAnnealingWarmRestarts": st.fixed_dictionaries(
        {
            "T_0": st.integers(1, 8),
            "T_mult": st.integers(1, 3),
            "eta_min": st.sampled_from([0.0, 1e-4, 0.01]),
        }
    ),
    "CyclicLR": st.fixed_dictionaries(
        {
            "base_lr": st.sampled_from([1e-3, 0.01]),
            "max_lr": st.sampled_from([0.1, 0.06]),
            "step_size_up": st.integers(1, 6),
            "step_size_down": st.sampled_from([None, 2, 5]),
            "mode": st.sampled_from(["triangular", "triangular2", "exp_range"]),
            "gamma": st.sampled_from([1.0, 0.9]),
        }
    ),
    "OneCycleLR": st.fixed_dictionaries(
        {
            "max_lr": st.sampled_from([0.1, 1.0, 0.01]),
            "total_steps": st.just(40),
            "pct_start": st.sampled_from([0.3, 0.25, 0.5, 0.1]),
            "anneal_strategy": st.sampled_from(["cos", "linear"]),
            "three_phase": st.booleans(),
            "div_factor": st.sampled_from([25.0, 10.0]),
        }
    ),
}


def _optimizer(lib, name, groups, lr):
    p = [lib.ones(3, requires_grad=True), lib.ones(2, requires_grad=True)]
    spec = [{"params": [p[0]]}, {"params": [p[1]], "lr": lr / 2}] if groups else p
    if name == "Adam":
        return p, lib.optim.Adam(spec, lr=lr)
    return p, lib.optim.SGD(spec, lr=lr, momentum=0.9)


def _lambda(epoch):
    return 0.95**epoch


def _make(lib, opt, name, kwargs):
    S = lib.optim.lr_scheduler
    if name == "LambdaLR":
        return S.LambdaLR(opt, _lambda)
    if name == "MultiplicativeLR":
        return S.MultiplicativeLR(opt, lambda epoch: 0.9 if epoch % 3 else 0.5)
    if name == "SequentialLR":
        first = S.LinearLR(opt, start_factor=0.1, total_iters=4)
        second = S.ExponentialLR(opt, gamma=0.9)
        return S.SequentialLR(opt, [first, second], milestones=[kwargs["milestone"]])
    if name == "ChainedScheduler":
        return S.ChainedScheduler(
            [S.ConstantLR(opt, factor=0.5, total_iters=3), S.ExponentialLR(opt, gamma=0.9)]
        )
    return getattr(S, name)(opt, **kwargs)


def _trace(lib, sched_name, kwargs, opt_name, groups, lr, steps, *, closed=False, metrics=()):
    """Every step's get_last_lr, the groups' lr and momentum/betas, warnings aside."""
    p, opt = _optimizer(lib, opt_name, groups, lr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = _make(lib, opt, sched_name, kwargs)
        out = [(list(sched.get_last_lr()), _groups(opt))]
        for i in range(steps):
            (p[0].sum() + p[1].sum()).backward()
            opt.step()
            opt.zero_grad()
            if sched_name == "ReduceLROnPlateau":
                sched.step(metrics[i])
            elif closed:
                sched.step(i + 1)
            else:
                sched.step()
            out.append((list(sched.get_last_lr()), _groups(opt)))
    return out, sched, opt


def _groups(opt):
    keys = ("lr", "momentum", "betas", "initial_lr", "max_lr", "min_lr")
    return [{k: g[k] for k in keys if k in g} for g in opt.param_groups]


def _plain(state):
    """A state_dict without the values that are objects of each library (functions, tensors)."""
    drop = ("_scale_fn_ref", "_scale_fn_custom", "lr_lambdas")
    out = {}
    for k, v in state.items():
        if k in drop:
            continue
        if k == "_schedulers":
            v = [_plain(s) for s in v]
        out[k] = v
    return out


@settings(max_examples=120)
@given(
    data=st.data(),
    name=st.sampled_from(sorted(KWARGS) + ["LambdaLR", "MultiplicativeLR", "ChainedScheduler"]),
    opt_name=st.sampled_from(["SGD", "Adam"]),
    groups=st.booleans(),
    lr=LRS,
    steps=STEPS,
)
def test_chainable_form_matches_torch_step_for_step(torch, data, name, opt_name, groups, lr, steps):
    kwargs = data.draw(KWARGS.get(name, st.just({})))
    ours, sched, _ = _trace(tl, name, kwargs, opt_name, groups, lr, steps)
    theirs, sched_t, _ = _trace(torch, name, kwargs, opt_name, groups, lr, steps)
    assert ours == theirs  # the same floats, every step
    assert _plain(sched.state_dict()) == _plain(sched_t.state_dict())
    assert list(sched.state_dict()) == list(sched_t.state_dict())


@settings(max_examples=40)
@given(data=st.data(), milestone=st.integers(1, 10), groups=st.booleans(), steps=STEPS)
def test_sequential_lr_matches_torch(torch, data, milestone, groups, steps):
    kw = {"milestone": milestone}
    ours, sched, _ = _trace(tl, "SequentialLR", kw, "SGD", groups, 0.1, steps)
    theirs, sched_t, _ = _trace(torch, "SequentialLR", kw, "SGD", groups, 0.1, steps)
    assert ours == theirs
    assert _plain(sched.state_dict()) == _plain(sched_t.state_dict())


CLOSED = [
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "CosineAnnealingWarmRestarts",
]


@settings(max_examples=60)
@given(data=st.data(), name=st.sampled_from(CLOSED), groups=st.booleans(), steps=STEPS)
def test_closed_form_matches_torch(torch, data, name, groups, steps):
    """``step(epoch)``: the closed form (with the deprecation warning)."""
    kwargs = data.draw(KWARGS[name])
    ours, _, _ = _trace(tl, name, kwargs, "SGD", groups, 0.1, steps, closed=True)
    theirs, _, _ = _trace(torch, name, kwargs, "SGD", groups, 0.1, steps, closed=True)
    assert ours == theirs


def test_warm_restarts_fractional_epochs_match_torch(torch):
    def run(lib):
        _, opt = _optimizer(lib, "SGD", False, 0.1)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in np.arange(0, 20, 0.37):
                sched.step(float(epoch))
                out.append((sched.get_last_lr(), sched.T_cur, sched.T_i, sched.last_epoch))
        return out

    assert run(tl) == run(torch)


@settings(max_examples=60)
@given(
    metrics=st.lists(st.sampled_from([1.0, 0.9, 0.5, 0.49995, 2.0, 0.1]), min_size=1, max_size=40),
    kwargs=st.fixed_dictionaries(
        {
            "mode": st.sampled_from(["min", "max"]),
            "factor": st.sampled_from([0.1, 0.5]),
            "patience": st.integers(0, 4),
            "threshold": st.sampled_from([1e-4, 0.1]),
            "threshold_mode": st.sampled_from(["rel", "abs"]),
            "cooldown": st.integers(0, 3),
            "min_lr": st.sampled_from([0, 1e-3, [0.0, 0.01]]),
        }
    ),
    groups=st.booleans(),
)
def test_reduce_lr_on_plateau_matches_torch(torch, metrics, kwargs, groups):
    if isinstance(kwargs["min_lr"], list) and not groups:
        kwargs = {**kwargs, "min_lr": 0.0}
    n = len(metrics)
    ours, sched, _ = _trace(tl, "ReduceLROnPlateau", kwargs, "SGD", groups, 0.1, n, metrics=metrics)
    theirs, sched_t, _ = _trace(
        torch, "ReduceLROnPlateau", kwargs, "SGD", groups, 0.1, n, metrics=metrics
    )
    assert ours == theirs
    assert sched.state_dict() == sched_t.state_dict()


def test_plateau_takes_a_tensor_metric(torch):
    _, opt = _optimizer(tl, "SGD", False, 0.1)
    sched = tl.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    sched.step(tl.tensor(1.0))
    sched.step(tl.tensor(2.0))
    assert sched.get_last_lr() == [0.1 * 0.1]


@pytest.mark.parametrize(
    "name", ["StepLR", "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts", "LinearLR"]
)
def test_state_dict_resumes_identically(torch, name):
    """Save after 7 steps, load into a fresh optimizer + scheduler, go on beside the original:
    the same floats as torch doing the same (a chainable scheduler built on the loaded optimizer
    scales its lr once more, in torch too)."""
    kwargs = {
        "StepLR": {"step_size": 3},
        "OneCycleLR": {"max_lr": 0.5, "total_steps": 20},
        "CyclicLR": {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3, "mode": "triangular2"},
        "CosineAnnealingWarmRestarts": {"T_0": 3, "T_mult": 2},
        "LinearLR": {"total_iters": 10},
    }[name]

    def run(lib):
        _, opt = _optimizer(lib, "SGD", True, 0.1)
        sched = _make(lib, opt, name, kwargs)
        for _ in range(7):
            opt.step()
            sched.step()
        saved_opt, saved = opt.state_dict(), sched.state_dict()
        _, opt2 = _optimizer(lib, "SGD", True, 0.1)
        opt2.load_state_dict(saved_opt)
        sched2 = _make(lib, opt2, name, kwargs)
        sched2.load_state_dict(saved)
        out = []
        for _ in range(10):
            opt.step()
            sched.step()
            opt2.step()
            sched2.step()
            out.append((sched.get_last_lr(), sched2.get_last_lr(), _groups(opt2)))
        return out

    assert run(tl) == run(torch)


def test_lambda_state_dict_keeps_callable_objects(torch):
    class Warmup:
        def __init__(self, n):
            self.n = n

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.n)

    def run(lib):
        _, opt = _optimizer(lib, "SGD", False, 0.1)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, Warmup(4))
        state = sched.state_dict()
        fresh = lib.optim.lr_scheduler.LambdaLR(opt, Warmup(9))
        fresh.load_state_dict(state)
        return state["lr_lambdas"], fresh.lr_lambdas[0].n

    assert run(tl) == run(torch) == ([{"n": 4}], 4)


def _messages(lib, code):
    p = lib.ones(2, requires_grad=True)
    opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exec(code, {"opt": opt, "S": lib.optim.lr_scheduler, "p": p})
    return [(m.category.__name__, str(m.message)) for m in w]


@pytest.mark.parametrize(
    "code",
    [
        "s = S.CosineAnnealingLR(opt, 5); s.step()",  # before optimizer.step()
        "s = S.CosineAnnealingLR(opt, 5); opt.step(); s.step(); s.get_lr()",
        "s = S.ExponentialLR(opt, 0.9); opt.step(); s.step(3)",  # deprecated epoch
        "s = S.ReduceLROnPlateau(opt); s.step(1.0, 4)",
        "s = S.OneCycleLR(opt, 0.1, total_steps=3); opt.step(); s.step(); s.get_lr()",
        "s = S.StepLR(opt, 2); opt.step = lambda: None; s.step()",  # step overridden
        "s = S.LinearLR(opt); opt.step(); [s.step() for _ in range(3)]",
    ],
)
def test_warnings_match_torch(torch, code):
    assert _messages(tl, code) == _messages(torch, code)


@pytest.mark.parametrize(
    "call",
    [
        "S.ConstantLR(opt, factor=1.5)",
        "S.LinearLR(opt, start_factor=0)",
        "S.LinearLR(opt, end_factor=2)",
        "S.LambdaLR(opt, [lambda e: 1, lambda e: 2])",
        "S.MultiplicativeLR(opt, 3)",
        "S.MultiplicativeLR(opt, [1, 2])",
        "S.ExponentialLR(opt, 0.9, last_epoch=4)",
        "S.ReduceLROnPlateau(opt, factor=1.0)",
        "S.ReduceLROnPlateau(opt, mode='mid')",
        "S.ReduceLROnPlateau(opt, threshold_mode='x')",
        "S.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])",
        "S.ReduceLROnPlateau(object())",
        "S.CyclicLR(opt, 0.1, 1.0, mode='saw')",
        "S.CyclicLR(opt, [0.1, 0.2], 1.0)",
        "S.CyclicLR(object(), 0.1, 1.0)",
        "S.CyclicLR(adam_nomomentum, 0.1, 1.0)",
        "S.OneCycleLR(opt, 0.1)",
        "S.OneCycleLR(opt, 0.1, total_steps=0)",
        "S.OneCycleLR(opt, 0.1, epochs=0, steps_per_epoch=3)",
        "S.OneCycleLR(opt, 0.1, epochs=2, steps_per_epoch=-1)",
        "S.OneCycleLR(opt, 0.1, total_steps=5, pct_start=1)",
        "S.OneCycleLR(opt, 0.1, total_steps=5, anneal_strategy='exp')",
        "S.OneCycleLR(opt, [0.1, 0.2], total_steps=5)",
        "S.OneCycleLR(adam_nomomentum, 0.1, total_steps=5)",
        "[S.OneCycleLR(opt, 0.1, total_steps=2).step() for _ in range(3)]",
        "S.CosineAnnealingWarmRestarts(opt, 0)",
        "S.CosineAnnealingWarmRestarts(opt, 2.5)",
        "S.CosineAnnealingWarmRestarts(opt, 2, T_mult=0)",
        "S.CosineAnnealingWarmRestarts(opt, 2, eta_min='0')",
        "S.CosineAnnealingWarmRestarts(opt, 2).step(-1)",
        "S.SequentialLR(opt, [], [])",
        "S.SequentialLR(opt, [S.StepLR(opt, 2)], [3])",
        "S.SequentialLR(opt, [S.ReduceLROnPlateau(opt)], [])",
        "S.SequentialLR(opt, [object()], [])",
        "S.SequentialLR(opt, [S.StepLR(other, 2)], [])",
        "S.ChainedScheduler([])",
        "S.ChainedScheduler([S.StepLR(opt, 2), S.ReduceLROnPlateau(opt)])",
        "S.LRScheduler(opt)",
    ],
)
def test_errors_match_torch(torch, call):
    def env(lib):
        p = lib.ones(2, requires_grad=True)
        return {
            "S": lib.optim.lr_scheduler,
            "opt": lib.optim.SGD([p], lr=0.1, momentum=0.9),
            "other": lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1),
            "adam_nomomentum": lib.optim.Adagrad([p], lr=0.1),
        }

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_same(lambda: eval(call, env(tl)), lambda: eval(call, env(torch)))


def test_plateau_errors_when_groups_grow_with_per_group_min_lrs(torch):
    def run(lib):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, min_lr=[0.0])
        opt.add_param_group({"params": [lib.ones(1, requires_grad=True)]})
        sched.step(1.0)
        sched.step(2.0)

    raises_same(lambda: run(tl), lambda: run(torch))


def test_public_names_follow_torch(torch):
    names = sorted(torch.optim.lr_scheduler.__all__)
    assert sorted(tl.optim.lr_scheduler.__all__) == names
    for name in names:
        cls = getattr(tl.optim.lr_scheduler, name)
        assert cls.__module__ == "tensorlab.optim.lr_scheduler"
        assert cls.__mro__[-2].__name__ in ("LRScheduler", name)
    assert issubclass(tl.optim.lr_scheduler._LRScheduler, tl.optim.lr_scheduler.LRScheduler)
