"""The rest of torch.optim against torch 2.13, step for step: RMSprop, Adagrad, Adamax, NAdam,
RAdam, ASGD, Rprop, Adafactor (every option that changes the arithmetic), LBFGS with and without
the strong-Wolfe line search, Muon (its bfloat16 Newton-Schulz), SparseAdam's refusal of dense gradients, reprs, state dicts and
the constructors' errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from test_optim import _run

import tensorlab as tl

B = st.booleans
OPTIONS = {
    "RMSprop": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-2, 1e-3]),
            "alpha": st.sampled_from([0.99, 0.5]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "momentum": st.sampled_from([0.0, 0.9]),
            "centered": B(),
            "maximize": B(),
        }
    ),
    "Adagrad": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-2, 0.1]),
            "lr_decay": st.sampled_from([0.0, 0.1]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "initial_accumulator_value": st.sampled_from([0.0, 0.5]),
            "maximize": B(),
        }
    ),
    "Adamax": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([2e-3, 0.1]),
            "betas": st.sampled_from([(0.9, 0.999), (0.5, 0.9)]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "maximize": B(),
        }
    ),
    "NAdam": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([2e-3, 0.1]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "momentum_decay": st.sampled_from([4e-3, 0.1]),
            "decoupled_weight_decay": B(),
            "maximize": B(),
        }
    ),
    "RAdam": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-3, 0.1]),
            "betas": st.sampled_from([(0.9, 0.999), (0.5, 0.6)]),  # 0.6: rectified from step 2
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "decoupled_weight_decay": B(),
            "maximize": B(),
        }
    ),
    "ASGD": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-2, 0.1]),
            "lambd": st.sampled_from([1e-4, 0.1]),
            "t0": st.sampled_from([1e6, 2.0]),  # 2: the average starts moving at step 3
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "maximize": B(),
        }
    ),
    "Rprop": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-2, 0.1]),
            "etas": st.sampled_from([(0.5, 1.2), (0.3, 2.0)]),
            "step_sizes": st.sampled_from([(1e-6, 50), (1e-3, 0.05)]),
            "maximize": B(),
        }
    ),
    "Adafactor": st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-2, 0.1]),
            "beta2_decay": st.sampled_from([-0.8, -0.5]),
            "d": st.sampled_from([1.0, 2.0]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "maximize": B(),
        }
    ),
}


def _compare(ours, theirs, opt, opt_t):
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert repr(opt) == repr(opt_t)
    sd, sd_t = opt.state_dict(), opt_t.state_dict()
    assert sd["param_groups"] == sd_t["param_groups"]
    assert sd["state"].keys() == sd_t["state"].keys()
    for k in sd["state"]:
        assert list(sd["state"][k]) == list(sd_t["state"][k])
        for key, v in sd["state"][k].items():
            w = sd_t["state"][k][key]
            np.testing.assert_allclose(v.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)
            assert str(v.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
            assert tuple(v.shape) == tuple(w.shape)


@settings(max_examples=60)
@given(data=st.data(), name=st.sampled_from(sorted(OPTIONS)), groups=st.booleans())
def test_optimizers_match_torch_step_for_step(torch, data, name, groups):
    kwargs = data.draw(OPTIONS[name])
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    w0 = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)]
    xs = [rng.standard_normal(4).astype(np.float32) for _ in range(6)]
    ours, opt, _ = _run(tl, name, kwargs, w0, xs, groups=groups)
    theirs, opt_t, _ = _run(torch, name, kwargs, w0, xs, groups=groups)
    _compare(ours, theirs, opt, opt_t)


def _lbfgs(lib, problem, steps, dtype, **kwargs):
    rng = np.random.default_rng(0)
    a = lib.from_numpy(rng.standard_normal((6, 3)).astype(dtype))
    b = lib.from_numpy(rng.standard_normal(6).astype(dtype))
    x = lib.tensor(np.array([-1.5, 2.0, 0.5], dtype), requires_grad=True)
    opt = lib.optim.LBFGS([x], **kwargs)

    def closure():
        opt.zero_grad()
        if problem == "rosenbrock":  # ill-conditioned: float32 rounding grows after a few steps
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2 + x[2] ** 2
        else:  # least squares: well-conditioned, so the runs stay together for many steps
            loss = ((a @ x - b) ** 2).sum()
        loss.backward()
        return loss

    losses = [float(opt.step(closure).detach()) for _ in range(steps)]
    state = opt.state[x]
    return x.detach().numpy(), losses, state["func_evals"], state["n_iter"], repr(opt)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize(
    "problem, steps, dtype",
    [
        ("rosenbrock", 1, np.float32),
        ("rosenbrock", 4, np.float64),
        ("least_squares", 5, np.float64),
    ],
)
@pytest.mark.parametrize("history_size", [100, 2])
def test_lbfgs_steps_as_torch_does(torch, line_search_fn, problem, steps, dtype, history_size):
    """float32 runs agree for a step; after that rounding steers the stopping tests (a loss
    change under tolerance_change), so longer runs compare in float64."""
    kwargs = {"lr": 0.5, "max_iter": 8, "history_size": history_size}
    ours = _lbfgs(tl, problem, steps, dtype, line_search_fn=line_search_fn, **kwargs)
    theirs = _lbfgs(torch, problem, steps, dtype, line_search_fn=line_search_fn, **kwargs)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    assert ours[2:] == theirs[2:]  # the same number of evaluations and iterations, same repr


def test_sparse_adam_refuses_dense_gradients_as_torch_does(torch):
    def run(lib):
        p = lib.ones(3, requires_grad=True)
        opt = lib.optim.SparseAdam([p], lr=0.1)
        (p * 2).sum().backward()
        opt.step()

    raises_same(lambda: run(tl), lambda: run(torch))
    assert repr(tl.optim.SparseAdam([tl.ones(1, requires_grad=True)])) == repr(
        torch.optim.SparseAdam([torch.ones(1, requires_grad=True)])
    )


def test_adagrad_state_exists_before_the_first_step(torch):
    p, q = tl.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    sd = tl.optim.Adagrad([p], initial_accumulator_value=0.3).state_dict()
    sd_t = torch.optim.Adagrad([q], initial_accumulator_value=0.3).state_dict()
    assert list(sd["state"][0]) == list(sd_t["state"][0]) == ["step", "sum"]
    assert sd["state"][0]["sum"].tolist() == sd_t["state"][0]["sum"].tolist()


@pytest.mark.parametrize(
    "call",
    [
        "optim.RMSprop([p], lr=-1)",
        "optim.RMSprop([p], eps=-1)",
        "optim.RMSprop([p], momentum=-1)",
        "optim.RMSprop([p], alpha=-1)",
        "optim.Adagrad([p], lr_decay=-1)",
        "optim.Adagrad([p], initial_accumulator_value=-1)",
        "optim.Adamax([p], betas=(0.9, 1.0))",
        "optim.NAdam([p], momentum_decay=-1)",
        "optim.RAdam([p], weight_decay=-1)",
        "optim.ASGD([p], weight_decay=-1)",
        "optim.Rprop([p], etas=(1.5, 1.2))",
        "optim.Adafactor([p], beta2_decay=0.5)",
        "optim.Adafactor([p], eps=(-1, 1e-3))",
        "optim.Adafactor([p], d=0.5)",
        "optim.SparseAdam([p], betas=(1.0, 0.9))",
        "optim.LBFGS([p], lr=-1)",
        "optim.LBFGS([{'params': [p]}, {'params': [q]}])",
    ],
)
def test_optim_errors_match_torch(torch, call):
    def build(lib):
        names = {"p": lib.ones(2, requires_grad=True), "q": lib.ones(2, requires_grad=True)}
        return eval(call, {"optim": lib.optim, **names})

    raises_same(lambda: build(tl), lambda: build(torch))


def test_every_optimizer_torch_has_is_here(torch):
    theirs = {n for n in dir(torch.optim) if isinstance(getattr(torch.optim, n), type)}
    theirs = {n for n in theirs if issubclass(getattr(torch.optim, n), torch.optim.Optimizer)}
    assert theirs <= set(dir(tl.optim)), theirs - set(dir(tl.optim))


@settings(max_examples=25)
@given(
    shape=st.sampled_from([(6, 4), (4, 6), (5, 5), (1, 3)]),
    kwargs=st.fixed_dictionaries(
        {
            "lr": st.sampled_from([1e-3, 0.02]),
            "weight_decay": st.sampled_from([0.0, 0.1]),
            "momentum": st.sampled_from([0.95, 0.5]),
            "nesterov": B(),
            "ns_steps": st.sampled_from([5, 2]),
            "adjust_lr_fn": st.sampled_from([None, "original", "match_rms_adamw"]),
        }
    ),
    seed=st.integers(0, 1000),
)
def test_muon_matches_torch_step_for_step(torch, shape, kwargs, seed):
    """Muon's Newton-Schulz runs in bfloat16 in torch; tensorlab rounds float32 to bfloat16
    after each of torch's bfloat16 operations (here it agrees to the bit)."""
    rng = np.random.default_rng(seed)
    w0 = rng.standard_normal(shape).astype(np.float32)
    xs = [rng.standard_normal(shape[1]).astype(np.float32) for _ in range(4)]

    def run(lib):
        w = lib.tensor(w0.copy(), requires_grad=True)
        opt = lib.optim.Muon([w], **kwargs)
        for x in xs:
            opt.zero_grad()
            ((w @ lib.from_numpy(x)) ** 2).sum().backward()
            opt.step()
        return w.detach().numpy(), opt

    (ours, opt), (theirs, opt_t) = run(tl), run(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert repr(opt) == repr(opt_t)
    assert list(opt.state_dict()["state"][0]) == list(opt_t.state_dict()["state"][0])


@pytest.mark.parametrize(
    "call",
    [
        "optim.Muon([p2], lr=-1)",
        "optim.Muon([p2], momentum=-1)",
        "optim.Muon([p2], weight_decay=-1)",
        "optim.Muon([p2], adjust_lr_fn='nope')",
        "optim.Muon([p1])",
    ],
)
def test_muon_errors_match_torch(torch, call):
    def build(lib):
        names = {"p1": lib.ones(3, requires_grad=True), "p2": lib.ones(2, 3, requires_grad=True)}
        return eval(call, {"optim": lib.optim, **names})

    raises_same(lambda: build(tl), lambda: build(torch))
