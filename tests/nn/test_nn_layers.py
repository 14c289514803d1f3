"""Layers and their functional ops against torch 2.13: activations, softmax, linear, dropout,
batch norm (train/eval, running statistics), interpolate, padding/flatten modules, containers,
``Module`` as users know it, ``nn.init`` and the printed reprs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from nn_strategies import layouts, make_pair, seeds

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F


def _name(t):
    # (torch's CopySlices node calls itself torch::autograd::CopySlices)
    return None if t.grad_fn is None else t.grad_fn.name().replace("torch::autograd::", "")


def _check(torch, ours, theirs, inputs, *, exact=False, rtol=1e-5, atol=1e-6):
    assert_same(ours, theirs, exact=exact, rtol=rtol, atol=atol)
    assert _name(ours) == _name(theirs)
    if theirs.requires_grad and theirs.numel():
        g = np.random.default_rng(5).standard_normal(tuple(theirs.shape)).astype(np.float32)
        ours.backward(tl.from_numpy(g.astype(ours.dtype.np)))
        theirs.backward(torch.from_numpy(g).to(theirs.dtype))
        for a, b in inputs:
            if b.grad is not None:
                np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)

# ---------------------------------------------------------------------------- activations


@settings(max_examples=50)
@given(
    shape=shapes,
    fn=st.sampled_from(
        [
            ("relu", {}),
            ("leaky_relu", {}),
            ("leaky_relu", {"negative_slope": 0.3}),
            ("elu", {}),
            ("elu", {"alpha": 0.5}),
            ("gelu", {}),
            ("gelu", {"approximate": "tanh"}),
            ("sigmoid", {}),
            ("tanh", {}),
            ("silu", {}),
            ("softplus", {}),
            ("softplus", {"beta": 2.0, "threshold": 1.0}),
            ("hardtanh", {}),
            ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
            ("relu6", {}),
        ]
    ),
    layout=layouts,
    seed=seeds,
)
def test_activations_match_torch(torch, shape, fn, layout, seed):
    name, kwargs = fn
    a, b = make_pair(torch, shape, layout, seed)
    ours = getattr(F, name)(a, **kwargs)
    theirs = getattr(torch.nn.functional, name)(b, **kwargs)
    _check(torch, ours, theirs, [(a, b)])


@settings(max_examples=40)
@given(shape=shapes, data=st.data(), log=st.booleans(), layout=layouts, seed=seeds)
def test_softmax_and_log_softmax_match_torch(torch, shape, data, log, layout, seed):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    dtype = data.draw(st.sampled_from([None, "float64"]))
    a, b = make_pair(torch, shape, layout, seed)
    name = "log_softmax" if log else "softmax"
    ours = getattr(F, name)(a, dim, dtype=None if dtype is None else tl.float64)
    theirs = getattr(torch.nn.functional, name)(
        b, dim, dtype=None if dtype is None else torch.float64
    )
    _check(torch, ours, theirs, [(a, b)])


def test_softmax_implicit_dim_warns_like_torch(torch):
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        a, b = make_pair(torch, shape, "contiguous", 0, requires_grad=False)
        with warnings.catch_warnings(record=True) as w_ours:
            warnings.simplefilter("always")
            ours = F.softmax(a)
        with warnings.catch_warnings(record=True) as w_theirs:
            warnings.simplefilter("always")
            theirs = torch.nn.functional.softmax(b)
        assert [str(w.message) for w in w_ours] == [str(w.message) for w in w_theirs]
        assert_same(ours, theirs, exact=False)


@pytest.mark.parametrize(
    "call",
    [
        "gelu(x, approximate='x')",
        "hardtanh(x, 2, 1)",
        "softmax(x.long(), 0)",
        "softmax(x, 5)",
        "dropout(x, 1.5)",
        "dropout(x, -0.1)",
        "linear(x, w.double())",
        "linear(x, w, b.double())",
        "linear(x.double(), w, b)",
        "linear(x, w[:, :2])",
        "linear(x, w[:, :2], b)",
        "linear(x[0], w[:, :2])",
    ],
)
def test_layer_op_errors_match_torch(torch, call):
    rng = np.random.default_rng(0)
    arrays = {
        "x": rng.standard_normal((3, 4)).astype(np.float32),
        "w": rng.standard_normal((5, 4)).astype(np.float32),
        "b": rng.standard_normal(5).astype(np.float32),
    }
    raises_same(
        lambda: eval(call, {k: tl.from_numpy(v.copy()) for k, v in arrays.items()}, vars(F)),
        lambda: eval(
            call,
            {k: torch.from_numpy(v.copy()) for k, v in arrays.items()},
            vars(torch.nn.functional),
        ),
    )


# ---------------------------------------------------------------------------- linear


@settings(max_examples=50)
@given(
    lead=st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple),
    k=st.integers(1, 6),
    n=st.integers(1, 6),
    bias=st.booleans(),
    layout=st.sampled_from(["contiguous", "transposed", "sliced", "expanded"]),
    w_layout=st.sampled_from(["contiguous", "transposed", "sliced"]),
    seed=seeds,
)
def test_linear_matches_torch(torch, lead, k, n, bias, layout, w_layout, seed):
    x_ours, x_theirs = make_pair(torch, (*lead, k), layout, seed)
    w_ours, w_theirs = make_pair(torch, (n, k), w_layout, seed + 1)
    b_ours, b_theirs = make_pair(torch, (n,), "contiguous", seed + 2) if bias else (None, None)
    ours = F.linear(x_ours, w_ours, b_ours)
    theirs = torch.nn.functional.linear(x_theirs, w_theirs, b_theirs)
    inputs = [(x_ours, x_theirs), (w_ours, w_theirs)] + ([(b_ours, b_theirs)] if bias else [])
    _check(torch, ours, theirs, inputs, rtol=1e-4, atol=1e-5)


def test_linear_module_and_lazy_linear(torch):
    tl.manual_seed(0)
    m = nn.Linear(20, 30)
    assert repr(m) == repr(torch.nn.Linear(20, 30))
    bound = 1 / math.sqrt(20)
    assert float(m.weight.abs().max()) <= bound and float(m.bias.abs().max()) <= bound
    assert float(m.weight.abs().max()) > 0.8 * bound  # U(-bound, bound), not something tighter
    assert m.weight.dtype is tl.float32 and m.weight.requires_grad
    assert nn.Linear(2, 3, bias=False, dtype=tl.float64).weight.dtype is tl.float64
    assert nn.Linear(2, 3, device="cpu").bias.shape == (3,)
    lazy, lazy_t = nn.LazyLinear(4), torch.nn.LazyLinear(4)
    assert repr(lazy) == repr(lazy_t)
    assert repr(lazy.weight) == repr(lazy_t.weight)
    out = lazy(tl.zeros(2, 7))
    lazy_t(torch.zeros(2, 7))
    assert type(lazy).__name__ == type(lazy_t).__name__ == "Linear"
    assert repr(lazy) == repr(lazy_t)
    assert tuple(out.shape) == (2, 4) and tuple(lazy.weight.shape) == (4, 7)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        nn.Linear(2, 3, device="cuda")


# ---------------------------------------------------------------------------- dropout


def test_dropout_train_and_eval(torch):
    tl.manual_seed(0)
    x = tl.ones(200, 100, requires_grad=True)
    m = nn.Dropout(0.3)
    assert repr(m) == repr(torch.nn.Dropout(0.3))
    y = m(x)
    assert (
        y.grad_fn.name() == torch.nn.Dropout(0.3)(torch.ones(2, requires_grad=True)).grad_fn.name()
    )
    values = set(np.unique(y.detach().numpy()).tolist())
    assert values <= {0.0, np.float32(1 / 0.7)}
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # grad = mask / (1 - p)
    m.eval()
    assert m(x) is x  # torch hands back the input itself in eval
    assert F.dropout(x, 0.0) is x
    assert float(F.dropout(x, 1.0).abs().sum()) == 0.0


# ---------------------------------------------------------------------------- batch norm


@settings(max_examples=25)
@given(
    shape=st.sampled_from([(4, 3), (2, 3, 5), (2, 3, 4, 4), (3, 2, 1, 2)]),
    affine=st.booleans(),
    track=st.booleans(),
    momentum=st.sampled_from([0.1, 0.5, None]),
    layout=st.sampled_from(["contiguous", "channels_last", "transposed"]),
    seed=seeds,
)
def test_batch_norm_train_then_eval_matches_torch(
    torch, shape, affine, track, momentum, layout, seed
):
    cls = "BatchNorm2d" if len(shape) == 4 else "BatchNorm1d"
    ours = getattr(nn, cls)(shape[1], affine=affine, track_running_stats=track, momentum=momentum)
    theirs = getattr(torch.nn, cls)(
        shape[1], affine=affine, track_running_stats=track, momentum=momentum
    )
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    if affine:
        w = np.random.default_rng(seed).standard_normal(shape[1]).astype(np.float32)
        ours.weight.data.copy_(tl.from_numpy(w))
        theirs.weight.data.copy_(torch.from_numpy(w))
    for step in range(2):
        a, b = make_pair(torch, shape, layout, seed + step)
        _check(torch, ours(a), theirs(b), [(a, b)], rtol=1e-4, atol=1e-5)
        for (k, v), (k2, v2) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert k == k2
            assert_same(v, v2, exact=False, rtol=1e-5, atol=1e-6)
        if affine:
            np.testing.assert_allclose(
                ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-4, atol=1e-4
            )
            np.testing.assert_allclose(
                ours.bias.grad.numpy(), theirs.bias.grad.numpy(), rtol=1e-4, atol=1e-4
            )
    ours.eval()
    theirs.eval()
    a, b = make_pair(torch, shape, layout, seed + 7)
    _check(torch, ours(a), theirs(b), [(a, b)], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "call",
    [
        "nn.BatchNorm2d(3)(x[:1, :, 0, 0])",
        "nn.BatchNorm1d(3)(x[:1, :, 0, 0])",
        "nn.BatchNorm1d(3)(x[:, :2, 0, 0])",
        "nn.BatchNorm1d(4)(x[:, :, 0, 0])",
        "nn.BatchNorm1d(3)(x[:, :, :1, :1].reshape(2, 3, 1)[:1])",
        "F.batch_norm(x, torch.zeros(4), torch.ones(3))",
    ],
)
def test_batch_norm_errors_match_torch(torch, call):
    x_np = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    raises_same(
        lambda: eval(call, {"x": tl.from_numpy(x_np), "nn": nn, "F": F, "torch": tl}),
        lambda: eval(
            call,
            {
                "x": torch.from_numpy(x_np),
                "nn": torch.nn,
                "F": torch.nn.functional,
                "torch": torch,
            },
        ),
    )


# ---------------------------------------------------------------------------- interpolate


@settings(max_examples=50)
@given(
    shape=st.tuples(st.integers(1, 2), st.integers(1, 3), st.integers(1, 7), st.integers(1, 7)),
    how=st.one_of(
        st.tuples(st.just("size"), st.tuples(st.integers(1, 12), st.integers(1, 12))),
        st.tuples(
            st.just("scale_factor"),
            st.tuples(
                st.sampled_from([0.5, 0.7, 1.0, 1.5, 2.0, 2.5, 3.0]),
                st.sampled_from([0.6, 1.0, 2.0, 1.3]),
            ),
        ),
    ),
    mode=st.sampled_from(["nearest", "bilinear", "bilinear_ac", "area"]),
    layout=st.sampled_from(["contiguous", "channels_last", "transposed"]),
    seed=seeds,
)
def test_interpolate_matches_torch(torch, shape, how, mode, layout, seed):
    kwargs = {how[0]: how[1]}
    if mode == "bilinear_ac":
        mode, kwargs["align_corners"] = "bilinear", True
    kwargs["mode"] = mode
    a, b = make_pair(torch, shape, layout, seed)
    ours, theirs = raises_same(
        lambda: F.interpolate(a, **kwargs), lambda: torch.nn.functional.interpolate(b, **kwargs)
    )
    if theirs is not None:
        _check(torch, ours, theirs, [(a, b)], rtol=1e-4, atol=1e-5)


def test_interpolate_1d_and_upsample_module(torch):
    a, b = make_pair(torch, (2, 3, 5), "contiguous", 0)
    for kwargs in [
        dict(scale_factor=2),
        dict(size=8, mode="linear"),
        dict(size=3, mode="linear", align_corners=True),
    ]:
        _check(torch, F.interpolate(a, **kwargs), torch.nn.functional.interpolate(b, **kwargs), [])
    for args in [
        dict(scale_factor=2),
        dict(size=(3, 4)),
        dict(scale_factor=(2, 3), mode="bilinear", align_corners=True),
    ]:
        m_ours, m_theirs = nn.Upsample(**args), torch.nn.Upsample(**args)
        assert repr(m_ours) == repr(m_theirs)
        a, b = make_pair(torch, (1, 2, 3, 3), "contiguous", 1)
        _check(torch, m_ours(a), m_theirs(b), [(a, b)], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "call",
    [
        "interpolate(x, size=3, mode='bilinear', align_corners=None, scale_factor=2)",
        "interpolate(x, scale_factor=2, align_corners=True)",
        "interpolate(x)",
        "interpolate(x[0], size=3, mode='bilinear')",
        "interpolate(x, size=3, mode='bicubicx')",
        "interpolate(x, size=(3, 4, 5))",
        "interpolate(x, scale_factor=(2, 3, 4))",
        "interpolate(x, size=(3.5, 2))",
        "interpolate(x, size=3, recompute_scale_factor=True)",
    ],
)
def test_interpolate_errors_match_torch(torch, call):
    x_np = np.random.default_rng(0).standard_normal((1, 2, 4, 4)).astype(np.float32)
    raises_same(
        lambda: eval(call, {"x": tl.from_numpy(x_np)}, vars(F)),
        lambda: eval(call, {"x": torch.from_numpy(x_np)}, vars(torch.nn.functional)),
    )


# ---------------------------------------------------------------------------- simple modules


def test_padding_flatten_and_activation_modules(torch):
    a, b = make_pair(torch, (2, 3, 4, 5), "contiguous", 0)
    cases = [
        ("ZeroPad2d", (1,)),
        ("ZeroPad2d", ((1, 0, 2, 1),)),
        ("ConstantPad2d", ((1, 2, 0, 1), 1.5)),
        ("ReflectionPad2d", (2,)),
        ("ReplicationPad2d", ((1, 2, 0, 1),)),
        ("CircularPad2d", (1,)),
        ("Flatten", ()),
        ("Flatten", (0, 2)),
        ("Unflatten", (1, (3, 1))),
        ("Identity", (3, "anything")),
        ("ReLU", ()),
        ("LeakyReLU", (0.2,)),
        ("ELU", (0.5,)),
        ("GELU", ("tanh",)),
        ("Sigmoid", ()),
        ("Tanh", ()),
        ("Softmax", (1,)),
        ("LogSoftmax", (-1,)),
        ("SiLU", ()),
        ("Softplus", (2, 10)),
        ("Hardtanh", (-2, 3)),
        ("ReLU6", ()),
    ]
    for name, args in cases:
        m_ours, m_theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m_ours) == repr(m_theirs), name
        assert type(m_ours).__module__.replace("tensorlab", "torch") == type(m_theirs).__module__
        _check(torch, m_ours(a), m_theirs(b), [], exact=False)
    a, b = make_pair(torch, (2, 3, 5), "contiguous", 0)
    for name, args in [
        ("ConstantPad1d", (2, -1.0)),
        ("ZeroPad1d", ((1, 2),)),
        ("ReflectionPad1d", (2,)),
        ("ReplicationPad1d", (3,)),
        ("CircularPad1d", (1,)),
    ]:
        m_ours, m_theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m_ours) == repr(m_theirs), name
        _check(torch, m_ours(a), m_theirs(b), [], exact=False)


def test_inplace_activation_modules(torch):
    for name, args in [
        ("ReLU", (True,)),
        ("LeakyReLU", (0.1, True)),
        ("ELU", (1.0, True)),
        ("SiLU", (True,)),
        ("ReLU6", (True,)),
        ("Hardtanh", (-0.5, 0.5, True)),
    ]:
        a, b = make_pair(torch, (3, 4), "contiguous", 0, requires_grad=False)
        m_ours, m_theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m_ours) == repr(m_theirs)
        assert m_ours(a) is a and m_theirs(b) is b
        assert_same(a, b, exact=False)


# ---------------------------------------------------------------------------- Module API


def _net(lib):
    nn_ = lib.nn
    return nn_.Sequential(
        nn_.Conv2d(1, 4, 3),
        nn_.BatchNorm2d(4),
        nn_.ReLU(),
        nn_.Sequential(nn_.Flatten(), nn_.Linear(4 * 4 * 4, 5)),
        nn_.ModuleList([nn_.Linear(5, 5), nn_.Linear(5, 5)]),
        nn_.ModuleDict({"head": nn_.Linear(5, 2), "act": nn_.Tanh()}),
    )


def test_module_traversal_state_dict_and_repr(torch):
    ours, theirs = _net(tl), _net(torch)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert len(list(ours.modules())) == len(list(theirs.modules()))
    assert len(list(ours.children())) == len(list(theirs.children()))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    result = ours.load_state_dict(ours.state_dict())
    assert repr(result) == repr(theirs.load_state_dict(theirs.state_dict()))
    ours.eval()
    theirs.eval()
    assert all(not m.training for m in ours.modules())
    x = np.random.default_rng(0).standard_normal((2, 1, 6, 6)).astype(np.float32)
    h_ours = ours[3](ours[2](ours[1](ours[0](tl.from_numpy(x)))))
    h_theirs = theirs[3](theirs[2](theirs[1](theirs[0](torch.from_numpy(x)))))
    assert_same(h_ours, h_theirs, exact=False, rtol=1e-4, atol=1e-5)
    ours.train()
    assert all(m.training for m in ours.modules())


def test_module_errors_match_torch(torch):
    for call in [
        "m.load_state_dict({'weight': lib.zeros(2, 2)})",
        "m.load_state_dict({'weight': lib.zeros(3, 2), 'bias': lib.zeros(3), 'extra': lib.zeros(1)})",
        "m.register_buffer('weight', lib.zeros(1))",
        "m.register_buffer('a.b', lib.zeros(1))",
        "m.add_module('x', 3)",
        "m.train('yes')",
        "nn.Dropout(1.5)",
        "nn.Unflatten(1, 3)",
    ]:
        raises_same(
            lambda call=call: eval(call, {"m": nn.Linear(2, 3), "lib": tl, "nn": nn}),
            lambda call=call: eval(
                call, {"m": torch.nn.Linear(2, 3), "lib": torch, "nn": torch.nn}
            ),
        )


def test_module_buffers_apply_zero_grad_requires_grad(torch):
    m = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    m.register_buffer("steps", tl.zeros(1))
    m.register_buffer("scratch", tl.zeros(2), persistent=False)
    assert "steps" in m.state_dict() and "scratch" not in m.state_dict()
    assert [n for n, _ in m.named_buffers()] == ["steps", "scratch"]
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "ReLU", "Linear", "Sequential"]
    m(tl.ones(4, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(float(p.grad.abs().sum()) == 0 for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.add_module("extra", nn.Identity())
    assert list(dict(m.named_children())) == ["0", "1", "2", "extra"]


def test_containers_like_torch(torch):
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    ml_t = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in range(3)] + [torch.nn.ReLU()])
    assert repr(ml) == repr(ml_t)
    ml.append(nn.Tanh())
    ml.insert(0, nn.Sigmoid())
    ml_t.append(torch.nn.Tanh())
    ml_t.insert(0, torch.nn.Sigmoid())
    assert repr(ml) == repr(ml_t)
    assert repr(ml[1:3]) == repr(ml_t[1:3])
    del ml[0]
    del ml_t[0]
    assert repr(ml) == repr(ml_t)
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Linear(1, 1)})
    md_t = torch.nn.ModuleDict({"a": torch.nn.ReLU(), "b": torch.nn.Linear(1, 1)})
    md["c"] = nn.Tanh()
    md_t["c"] = torch.nn.Tanh()
    assert repr(md) == repr(md_t) and list(md.keys()) == list(md_t.keys())
    assert md.pop("a").__class__.__name__ == md_t.pop("a").__class__.__name__
    assert repr(md) == repr(md_t)
    seq = nn.Sequential(nn.ReLU(), nn.Tanh())
    seq_t = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Tanh())
    seq.insert(1, nn.Sigmoid())
    seq_t.insert(1, torch.nn.Sigmoid())
    seq.extend([nn.Identity()])
    seq_t.extend([torch.nn.Identity()])
    assert repr(seq) == repr(seq_t)
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())
    assert repr(nn.ModuleDict()) == repr(torch.nn.ModuleDict())


def test_public_paths_like_torch(torch):
    for name in ["Linear", "ReLU", "MaxPool2d", "BatchNorm2d", "CrossEntropyLoss", "Sequential"]:
        assert (
            getattr(nn, name).__module__.replace("tensorlab", "torch")
            == getattr(torch.nn, name).__module__
        )
    assert str(type(nn.Parameter(tl.zeros(1)))).replace("tensorlab", "torch") == str(
        type(torch.nn.Parameter(torch.zeros(1)))
    )


# ---------------------------------------------------------------------------- init


def test_init_functions(torch):
    tl.manual_seed(0)
    w = tl.empty(64, 32, 3, 3)
    fan_in, fan_out = 32 * 9, 64 * 9
    for fn, bound in [
        (lambda: nn.init.kaiming_uniform_(w, a=math.sqrt(5)), math.sqrt(6 / ((1 + 5) * fan_in))),
        (lambda: nn.init.kaiming_uniform_(w, nonlinearity="relu"), math.sqrt(6 / fan_in)),
        (lambda: nn.init.xavier_uniform_(w), math.sqrt(6 / (fan_in + fan_out))),
        (lambda: nn.init.uniform_(w, -0.5, 0.5), 0.5),
    ]:
        assert fn() is w
        assert float(w.abs().max()) <= bound
        assert float(w.abs().max()) > 0.95 * bound
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(float(w.std()) - math.sqrt(2 / fan_out)) < 0.05 * math.sqrt(2 / fan_out)
    nn.init.xavier_normal_(w, gain=2.0)
    assert abs(float(w.std()) - 2 * math.sqrt(2 / (fan_in + fan_out))) < 0.1 * math.sqrt(
        2 / (fan_in + fan_out)
    )
    nn.init.normal_(w, 1.0, 0.01)
    assert abs(float(w.mean()) - 1.0) < 0.01
    for fn, value in [
        (nn.init.zeros_, 0.0),
        (nn.init.ones_, 1.0),
        (lambda t: nn.init.constant_(t, 0.25), 0.25),
    ]:
        fn(w)
        assert set(np.unique(w.numpy()).tolist()) == {value}
    for nonlin, param in [
        ("relu", None),
        ("tanh", None),
        ("leaky_relu", 0.2),
        ("selu", None),
        ("conv2d", None),
    ]:
        assert nn.init.calculate_gain(nonlin, param) == torch.nn.init.calculate_gain(nonlin, param)
    e, e_t = tl.empty(3, 5), torch.empty(3, 5)
    assert_same(nn.init.eye_(e), torch.nn.init.eye_(e_t))
    p = nn.Parameter(tl.zeros(3, 2))
    nn.init.ones_(p)  # on a parameter that requires grad: no autograd error, not recorded
    assert p.grad_fn is None and float(p.sum()) == 6.0


@pytest.mark.parametrize(
    "shape,groups", [((4, 4, 3, 3), 1), ((6, 2, 3, 3), 3), ((4, 6, 5), 2), ((2, 2, 3, 3, 3), 1)]
)
def test_dirac_is_the_identity_convolution(torch, shape, groups):
    w, w_t = tl.empty(*shape), torch.empty(*shape)
    assert_same(nn.init.dirac_(w, groups), torch.nn.init.dirac_(w_t, groups))
    if len(shape) == 4 and shape[0] == shape[1] * groups:
        x = tl.randn(1, shape[1] * groups, 6, 6)
        y = F.conv2d(x, w, padding=1, groups=groups)
        assert_same(y, torch.from_numpy(x.numpy()), layout=False)


def test_init_errors_match_torch(torch):
    for call in [
        "init.dirac_(lib.empty(3, 3))",
        "init.dirac_(lib.empty(3, 3, 3, 3), 2)",
        "init.eye_(lib.empty(3, 3, 3))",
        "init.xavier_uniform_(lib.empty(3))",
        "init.kaiming_uniform_(lib.empty(3, 3), mode='fan_x')",
        "init.calculate_gain('softplus')",
        "init.calculate_gain('leaky_relu', 'x')",
    ]:
        raises_same(
            lambda call=call: eval(call, {"init": nn.init, "lib": tl}),
            lambda call=call: eval(call, {"init": torch.nn.init, "lib": torch}),
        )


@pytest.mark.parametrize(
    "op",
    [
        "F.max_pool2d(x, 2)",
        "F.avg_pool2d(x, 2)",
        "F.adaptive_avg_pool2d(x, 3)",
        "F.adaptive_max_pool2d(x, 3)",
        "F.cross_entropy(x.flatten(1), lib.zeros(2).long())",
        "F.batch_norm(x, None, None, training=True)",
        "F.interpolate(x, scale_factor=2)",
        "F.linear(x, x[0, 0])",
        "F.log_softmax(x, 1)",
    ],
)
def test_second_backward_without_retain_graph_like_torch(torch, op):
    def run(lib, functional):
        x = lib.ones(2, 2, 4, 4, requires_grad=True)
        y = eval(op, {"F": functional, "x": x, "lib": lib}).sum()
        y.backward()
        return y.backward

    raises_same(run(tl, F), run(torch, torch.nn.functional))


@pytest.mark.parametrize("shape", [(8, 50, 3, 3), (8, 50, 7), (2, 3)])
def test_dropout2d_zeroes_whole_channels(torch, shape):
    tl.manual_seed(1)
    x = tl.ones(*shape, requires_grad=True)
    m = nn.Dropout2d(0.4)
    assert repr(m) == repr(torch.nn.Dropout2d(0.4))
    with warnings.catch_warnings(record=True) as w_ours:
        warnings.simplefilter("always")
        y = m(x)
    with warnings.catch_warnings(record=True) as w_theirs:
        warnings.simplefilter("always")
        y_t = torch.nn.Dropout2d(0.4)(torch.ones(*shape, requires_grad=True))
    assert [str(w.message) for w in w_ours] == [str(w.message) for w in w_theirs]
    assert y.grad_fn.name() == y_t.grad_fn.name()
    values = y.detach().numpy().reshape(shape[0], shape[1], -1)
    assert (values == values[..., :1]).all()  # one decision per channel
    assert set(np.unique(values).tolist()) <= {0.0, np.float32(1 / 0.6)}
    if values.size > 100:
        assert abs((values[..., 0] != 0).mean() - 0.6) < 0.1
    m.eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the shape warnings come in eval too, as in torch)
        assert m(x) is x


@settings(max_examples=40)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple),
    data=st.data(),
    affine=st.sampled_from(["both", "weight", "none"]),
    layout=layouts,
    seed=seeds,
)
def test_layer_norm_matches_torch(torch, shape, data, affine, layout, seed):
    k = data.draw(st.integers(1, len(shape)))
    ns = shape[len(shape) - k :]
    a, b = make_pair(torch, shape, layout, seed)
    w_ours, w_theirs = make_pair(torch, ns, "contiguous", seed + 1)
    b_ours, b_theirs = make_pair(torch, ns, "contiguous", seed + 2)
    if affine == "none":
        w_ours = w_theirs = None
    if affine != "both":
        b_ours = b_theirs = None
    ours = F.layer_norm(a, ns, w_ours, b_ours, eps=1e-3)
    theirs = torch.nn.functional.layer_norm(b, ns, w_theirs, b_theirs, eps=1e-3)
    pairs = [(a, b)] + [
        (p, q) for p, q in ((w_ours, w_theirs), (b_ours, b_theirs)) if p is not None
    ]
    _check(torch, ours, theirs, pairs, rtol=1e-4, atol=1e-5)


def test_layer_norm_module_and_errors(torch):
    for args in [(4,), ([3, 4],), (4, 1e-3, False), (4, 1e-5, True, False)]:
        assert repr(nn.LayerNorm(*args)) == repr(torch.nn.LayerNorm(*args))
        assert [n for n, _ in nn.LayerNorm(*args).named_parameters()] == [
            n for n, _ in torch.nn.LayerNorm(*args).named_parameters()
        ]
    a, b = make_pair(torch, (2, 3, 4), "contiguous", 0)
    _check(torch, nn.LayerNorm(4)(a), torch.nn.LayerNorm(4)(b), [(a, b)], rtol=1e-4, atol=1e-5)
    x_np = np.zeros((2, 3), dtype=np.float32)
    for call in [
        "F.layer_norm(x, (4,))",
        "F.layer_norm(x, (3,), lib.ones(4))",
        "F.layer_norm(x, (3,), None, lib.ones(4))",
        "F.layer_norm(x, (2, 3, 3))",
        "F.layer_norm(x, 3)",
    ]:
        raises_same(
            lambda call=call: eval(call, {"F": F, "x": tl.from_numpy(x_np), "lib": tl}),
            lambda call=call: eval(
                call, {"F": torch.nn.functional, "x": torch.from_numpy(x_np), "lib": torch}
            ),
        )


@settings(max_examples=30)
@given(
    idx_shape=st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
    n=st.integers(1, 6),
    dim=st.integers(1, 4),
    padding_idx=st.one_of(st.none(), st.integers(-1, 0)),
    seed=seeds,
)
def test_embedding_matches_torch(torch, idx_shape, n, dim, padding_idx, seed):
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, idx_shape)
    w_ours, w_theirs = make_pair(torch, (n, dim), "contiguous", seed)
    ours = F.embedding(tl.from_numpy(idx.copy()), w_ours, padding_idx)
    theirs = torch.nn.functional.embedding(torch.from_numpy(idx.copy()), w_theirs, padding_idx)
    _check(torch, ours, theirs, [(w_ours, w_theirs)], exact=True)


def test_embedding_module_and_errors(torch):
    for args, kwargs in [
        ((10, 3), {}),
        ((10, 3), {"padding_idx": 0}),
        ((10, 3), {"padding_idx": -1}),
        ((10, 3), {"max_norm": 1.0}),
    ]:
        m, m_t = nn.Embedding(*args, **kwargs), torch.nn.Embedding(*args, **kwargs)
        assert repr(m) == repr(m_t) and m.padding_idx == m_t.padding_idx
        if m.padding_idx is not None:
            assert float(m.weight[m.padding_idx].abs().sum()) == 0
    m = nn.Embedding(5, 2, max_norm=1.0)
    m(tl.tensor([0, 1, 1]))
    assert float(m.weight[:2].norm(dim=1).max()) <= 1.0 + 1e-6
    w_np = np.ones((5, 2), dtype=np.float32)
    for call in [
        "F.embedding(lib.tensor([5]), w)",
        "F.embedding(lib.tensor([-1]), w)",
        "F.embedding(lib.tensor([1.0]), w)",
        "F.embedding(lib.tensor([1]), w[0])",
        "nn.Embedding(5, 2, padding_idx=5)",
        "nn.Embedding(5, 2, padding_idx=-6)",
    ]:
        raises_same(
            lambda call=call: eval(call, {"F": F, "nn": nn, "lib": tl, "w": tl.from_numpy(w_np)}),
            lambda call=call: eval(
                call,
                {
                    "F": torch.nn.functional,
                    "nn": torch.nn,
                    "lib": torch,
                    "w": torch.from_numpy(w_np),
                },
            ),
        )
