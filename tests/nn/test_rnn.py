"""Recurrent layers against torch 2.13: ``nn.RNN`` (tanh, relu), ``nn.LSTM`` (with ``proj_size``),
``nn.GRU`` and the three cells. Torch's weights are copied in, then outputs, final states and
every gradient (input, initial states, each parameter) are compared at float32 tolerances over
sizes, layers, directions, ``batch_first`` and unbatched inputs; constructor and forward errors
must carry torch's type and message; names, layout, ``repr``, ``state_dict`` order and init
follow torch's. A d2l-style character RNN trains for several steps with torch's losses."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn as nn

RTOL, ATOL = 2e-5, 2e-6


def _pair(torch, kind: str, *args, **kwargs):
    """The same layer in both libraries, torch's weights copied into ours."""
    theirs = getattr(torch.nn, kind)(*args, **kwargs)
    ours = getattr(nn, kind)(*args, **kwargs)
    state = {k: tl.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return ours, theirs


def _inputs(torch, seed: int, *shapes):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ours = [tl.from_numpy(a.copy()).requires_grad_() for a in arrays]
    theirs = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    return ours, theirs


def _close(a, b, rtol=RTOL, atol=ATOL):
    a = a.detach().numpy() if isinstance(a, tl.Tensor) else a
    b = b.detach().numpy()
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def _flat(out):
    """``output, h`` or ``output, (h, c)`` as a flat list of tensors."""
    res = []
    for o in out if isinstance(out, tuple) else (out,):
        res.extend(_flat(o) if isinstance(o, tuple) else [o])
    return res


def _compare_run(torch, ours_mod, theirs_mod, ours_args, theirs_args, leaves, seed=0):
    """Forward and backward (a random weighting of every output) in both; compare all."""
    out_o = _flat(ours_mod(*ours_args))
    out_t = _flat(theirs_mod(*theirs_args))
    assert len(out_o) == len(out_t)
    rng = np.random.default_rng(seed + 100)
    loss_o, loss_t = 0, 0
    for a, b in zip(out_o, out_t):
        _close(a, b)
        w = rng.standard_normal(tuple(b.shape)).astype(np.float32)
        loss_o = loss_o + (a * tl.from_numpy(w)).sum()
        loss_t = loss_t + (b * torch.from_numpy(w)).sum()
    loss_o.backward()
    loss_t.backward()
    for a, b in leaves:
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            _close(a.grad, b.grad, rtol=1e-4, atol=1e-5)
    for (name, p), (name_t, q) in zip(
        ours_mod.named_parameters(), theirs_mod.named_parameters(), strict=True
    ):
        assert name == name_t
        _close(p.grad, q.grad, rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------- full layers
configs = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["RNN_tanh", "RNN_relu", "LSTM", "GRU"]),
        "input_size": st.integers(1, 5),
        "hidden_size": st.integers(1, 6),
        "num_layers": st.integers(1, 3),
        "bias": st.booleans(),
        "batch_first": st.booleans(),
        "bidirectional": st.booleans(),
        "proj": st.integers(0, 3),
        "seq": st.integers(1, 5),
        "batch": st.integers(0, 3),  # 0: unbatched
        "with_h0": st.booleans(),
        "seed": st.integers(0, 2**16),
    }
)


def _build(torch, c):
    kwargs = {
        "num_layers": c["num_layers"],
        "bias": c["bias"],
        "batch_first": c["batch_first"],
        "bidirectional": c["bidirectional"],
    }
    kind = c["kind"]
    if kind.startswith("RNN"):
        kwargs["nonlinearity"] = kind.split("_")[1]
        kind = "RNN"
    proj = 0
    if kind == "LSTM" and c["proj"] and c["proj"] < c["hidden_size"]:
        proj = kwargs["proj_size"] = c["proj"]
    return kind, proj, _pair(torch, kind, c["input_size"], c["hidden_size"], **kwargs)


@settings(max_examples=60)
@given(c=configs)
def test_layers_match_torch_forward_and_backward(torch, c):
    kind, proj, (ours, theirs) = _build(torch, c)
    T, B, n_dirs = c["seq"], c["batch"], 2 if c["bidirectional"] else 1
    if B == 0:
        x_shape = (T, c["input_size"])
        state = (c["num_layers"] * n_dirs, c["hidden_size"])
    else:
        x_shape = (B, T, c["input_size"]) if c["batch_first"] else (T, B, c["input_size"])
        state = (c["num_layers"] * n_dirs, B, c["hidden_size"])
    shapes = [x_shape]
    if c["with_h0"]:
        h_shape = state[:-1] + (proj or c["hidden_size"],)
        shapes += [h_shape, state] if kind == "LSTM" else [h_shape]
    ins_o, ins_t = _inputs(torch, c["seed"], *shapes)
    args_o, args_t = ins_o[:1], ins_t[:1]
    if c["with_h0"]:
        if kind == "LSTM":
            args_o.append(tuple(ins_o[1:]))
            args_t.append(tuple(ins_t[1:]))
        else:
            args_o.append(ins_o[1])
            args_t.append(ins_t[1])
    _compare_run(torch, ours, theirs, args_o, args_t, list(zip(ins_o, ins_t)), c["seed"])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_float64_layers(torch, kind):
    ours, theirs = _pair(torch, kind, 3, 4, num_layers=2, bidirectional=True)
    ours.double()
    theirs.double()
    x = np.random.default_rng(1).standard_normal((5, 2, 3))
    out_o = _flat(ours(tl.from_numpy(x)))
    out_t = _flat(theirs(torch.from_numpy(x)))
    for a, b in zip(out_o, out_t):
        assert a.dtype == tl.float64
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_between_layers_only_in_training(torch, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _pair(torch, kind, 3, 4, num_layers=3, dropout=0.5)
    x = np.random.default_rng(2).standard_normal((6, 2, 3)).astype(np.float32)
    ours.eval()
    theirs.eval()
    _close(_flat(ours(tl.from_numpy(x)))[0], _flat(theirs(torch.from_numpy(x)))[0])
    ours.train()
    tl.manual_seed(0)
    trained = _flat(ours(tl.from_numpy(x)))[0].detach().numpy()
    evaluated = _flat(ours.eval()(tl.from_numpy(x)))[0].detach().numpy()
    assert not np.allclose(trained, evaluated)  # dropout acted between the layers
    one = getattr(nn, kind)(3, 4, num_layers=3, dropout=0.0)
    one.load_state_dict(ours.state_dict())
    np.testing.assert_allclose(one(tl.from_numpy(x))[0].detach().numpy(), evaluated, rtol=1e-6)


def _generator_is_torchs(torch) -> bool:
    tl.manual_seed(7)
    torch.manual_seed(7)
    return bool(np.array_equal(tl.rand(5).numpy(), torch.rand(5).numpy()))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_training_dropout_draws_as_torch(torch, kind):
    """With tensorlab's generator bit-equal to torch's, training-mode dropout between layers
    zeroes the same elements as torch's (one draw per layer output, after each layer)."""
    if not _generator_is_torchs(torch):
        pytest.skip("tensorlab's generator does not reproduce torch's stream on this branch")
    ours, theirs = _pair(torch, kind, 3, 4, num_layers=3, dropout=0.4, bidirectional=True)
    x = np.random.default_rng(4).standard_normal((5, 2, 3)).astype(np.float32)
    tl.manual_seed(11)
    torch.manual_seed(11)
    for a, b in zip(_flat(ours(tl.from_numpy(x))), _flat(theirs(torch.from_numpy(x)))):
        _close(a, b)


def test_grad_fn_names_match_torch(torch):
    # the last node of each output as torch names it (LSTM's oneDNN node aside)
    for kind, kw in [("RNN", {}), ("GRU", {"bidirectional": True}), ("RNN", {"batch_first": True})]:
        ours, theirs = _pair(torch, kind, 3, 4, **kw)
        for x in (np.ones((2, 5, 3), np.float32), np.ones((2, 3), np.float32)):
            o, h = ours(tl.from_numpy(x))
            ot, ht = theirs(torch.from_numpy(x))
            assert o.grad_fn.name() == ot.grad_fn.name()
            assert h.grad_fn.name() == ht.grad_fn.name()
    ours, theirs = _pair(torch, "LSTM", 3, 4, batch_first=True)
    o, (h, c) = ours(tl.ones(2, 5, 3))
    ot, (ht, ct) = theirs(torch.ones(2, 5, 3))
    assert [t.grad_fn.name() for t in (o, h, c)] == [t.grad_fn.name() for t in (ot, ht, ct)]


@pytest.mark.parametrize(
    "kw",
    [{}, {"num_layers": 2}, {"batch_first": True}, {"bidirectional": True}, {"proj_size": 2}],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [True, False])
def test_lstm_nodes_as_torch_names_them_on_the_cpu(torch, kw, dtype, batched):
    """A float32 LSTM runs through oneDNN in torch: each layer's and direction's output node
    (under any transpose, squeeze or cat) is ``MkldnnRnnLayerBackward0``; projections do not
    (torch warns once a process: the first time, both libraries warn alike)."""
    ours, theirs = _pair(torch, "LSTM", 3, 4, **kw)
    ours, theirs = ours.to(getattr(tl, dtype)), theirs.to(getattr(torch, dtype))
    shape = (2, 5, 3) if batched else (5, 3)

    def names(out):
        o, (h, c) = out
        nodes, seen = [o.grad_fn], []
        while nodes:  # the output's nodes down to the first layer (not into the cells)
            node = nodes.pop(0)
            seen.append(node.name())
            if node.name() in ("TransposeBackward0", "SqueezeBackward1", "CatBackward0"):
                nodes += [n for n, _ in node.next_functions if n is not None]
        return seen, h.grad_fn.name(), c.grad_fn.name()

    with warnings.catch_warnings(record=True) as w_ours:
        warnings.simplefilter("always")
        got = names(ours(tl.ones(*shape, dtype=getattr(tl, dtype))))
    with warnings.catch_warnings(record=True) as w_theirs:
        warnings.simplefilter("always")
        want = names(theirs(torch.ones(*shape, dtype=getattr(torch, dtype))))
    assert got == want
    ours_said = [str(x.message) for x in w_ours]
    theirs_said = [str(x.message).split(" (Triggered")[0] for x in w_theirs]
    assert ours_said == theirs_said or (theirs_said == [] and kw.get("proj_size"))


# ---------------------------------------------------------------------------- cells
cell_cfg = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["RNNCell_tanh", "RNNCell_relu", "LSTMCell", "GRUCell"]),
        "input_size": st.integers(1, 6),
        "hidden_size": st.integers(1, 6),
        "bias": st.booleans(),
        "batch": st.integers(0, 4),
        "with_h": st.booleans(),
        "seed": st.integers(0, 2**16),
    }
)


@settings(max_examples=40)
@given(c=cell_cfg)
def test_cells_match_torch(torch, c):
    kind, kwargs = c["kind"], {"bias": c["bias"]}
    if kind.startswith("RNNCell"):
        kind, kwargs["nonlinearity"] = "RNNCell", kind.split("_")[1]
    ours, theirs = _pair(torch, kind, c["input_size"], c["hidden_size"], **kwargs)
    lead = (c["batch"],) if c["batch"] else ()
    shapes = [lead + (c["input_size"],)]
    if c["with_h"]:
        shapes += [lead + (c["hidden_size"],)] * (2 if kind == "LSTMCell" else 1)
    ins_o, ins_t = _inputs(torch, c["seed"], *shapes)
    args_o, args_t = ins_o[:1], ins_t[:1]
    if c["with_h"]:
        args_o.append(tuple(ins_o[1:]) if kind == "LSTMCell" else ins_o[1])
        args_t.append(tuple(ins_t[1:]) if kind == "LSTMCell" else ins_t[1])
    _compare_run(torch, ours, theirs, args_o, args_t, list(zip(ins_o, ins_t)), c["seed"])


def test_cell_loop_equals_layer(torch):
    """The LSTM docs' loop: an LSTMCell stepped by hand gives nn.LSTM's output (same weights)."""
    ours, theirs = _pair(torch, "LSTMCell", 3, 5)
    x = np.random.default_rng(3).standard_normal((6, 2, 3)).astype(np.float32)
    h = c = tl.zeros(2, 5)
    ht = ct = torch.zeros(2, 5)
    for t in range(6):
        h, c = ours(tl.from_numpy(x[t]), (h, c))
        ht, ct = theirs(torch.from_numpy(x[t]), (ht, ct))
    _close(h, ht)
    _close(c, ct)
    layer = nn.LSTM(3, 5)
    for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
        getattr(layer, name + "_l0").data = getattr(ours, name).detach().clone()
    out, (hn, cn) = layer(tl.from_numpy(x))
    np.testing.assert_allclose(hn[0].detach().numpy(), h.detach().numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out[-1].detach().numpy(), h.detach().numpy(), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------------------- errors
CTOR_CASES = [
    ("RNN", (5, 4), {"nonlinearity": "sigmoid"}),
    ("RNN", (5, 4), {"proj_size": 2}),
    ("GRU", (5, 4), {"proj_size": 2}),
    ("LSTM", (5, 4), {"proj_size": 4}),
    ("LSTM", (5, 4), {"proj_size": -1}),
    ("RNN", (5, 4), {"dropout": 1.5}),
    ("RNN", (5, 4), {"dropout": True}),
    ("RNN", (5, 4), {"dropout": "0.1"}),
    ("LSTM", (5, 4), {"bias": 1}),
    ("GRU", (5, 4), {"batch_first": 0}),
    ("RNN", (5.0, 4), {}),
    ("RNN", (0, 4), {}),
    ("LSTM", (5, 4.0), {}),
    ("GRU", (5, 0), {}),
    ("RNN", (5, 4), {"num_layers": 0}),
    ("RNN", (5, 4), {"num_layers": 1.5}),
    ("RNN", (5, 4, 2, "relu", False, True, 0.2, True), {}),
    ("LSTM", (5, 4), {"bogus": 1}),
]


@pytest.mark.parametrize("kind, args, kwargs", CTOR_CASES)
def test_constructor_errors_match_torch(torch, kind, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_same(
            lambda: getattr(nn, kind)(*args, **kwargs),
            lambda: getattr(torch.nn, kind)(*args, **kwargs),
        )


def test_dropout_warning_for_one_layer(torch):
    for lib in (nn, torch.nn):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.GRU(3, 4, dropout=0.2)


def _t(lib, shape, dtype=None):
    x = lib.from_numpy(np.ones(shape, dtype=np.float32))
    return x if dtype is None else x.to(getattr(lib, dtype))


FORWARD_CASES = [
    ("RNN", {}, (2, 3, 6), None),
    ("RNN", {}, (2, 3, 5), (1, 2, 4)),
    ("RNN", {}, (2, 3, 5), (2, 3, 4)),
    ("RNN", {}, (2, 3, 5), (3, 4)),
    ("RNN", {}, (3, 5), (1, 3, 4)),
    ("RNN", {}, (5,), None),
    ("RNN", {}, (2, 3, 4, 5), None),
    ("RNN", {}, (0, 3, 5), None),
    ("GRU", {"batch_first": True}, (3, 2, 5), (1, 2, 4)),
    ("GRU", {}, (5,), None),
    ("GRU", {"bidirectional": True}, (2, 3, 5), (1, 3, 4)),
    ("LSTM", {}, (5,), None),
    ("LSTM", {}, (2, 3, 5), ((1, 3, 4), (1, 2, 4))),
    ("LSTM", {}, (2, 3, 5), ((3, 4), (1, 3, 4))),
    ("LSTM", {}, (3, 5), ((1, 3, 4), (3, 4))),
    ("LSTM", {}, (2, 3, 5), ((2, 3, 4), (1, 3, 4))),
    ("LSTM", {"proj_size": 2}, (2, 3, 5), ((1, 3, 4), (1, 3, 4))),
    ("LSTM", {"proj_size": 2}, (2, 3, 5), ((1, 3, 2), (1, 3, 2))),
    ("LSTM", {}, (2, 3, 5), ((1, 3, 4),)),
    ("LSTM", {}, (2, 3, 5), (1, 3, 4)),
    ("RNNCell", {}, (3, 6), None),
    ("RNNCell", {}, (3, 5), (2, 4)),
    ("RNNCell", {}, (3, 5), (3, 3)),
    ("RNNCell", {}, (5,), (3, 4)),
    ("RNNCell", {}, (3, 5), (4,)),
    ("RNNCell", {}, (2, 3, 5), None),
    ("RNNCell", {}, (3, 5), (1, 3, 4)),
    ("RNNCell", {"nonlinearity": "sigmoid"}, (3, 5), None),
    ("LSTMCell", {}, (3, 5), ((3, 4), (2, 4))),
    ("LSTMCell", {}, (3, 5), ((3, 4), (3, 3))),
    ("LSTMCell", {}, (3, 6), None),
    ("LSTMCell", {}, (3, 5), ((3, 4), (1, 3, 4))),
    ("LSTMCell", {}, (1, 3, 5), None),
    ("GRUCell", {}, (3, 6), None),
    ("GRUCell", {}, (3, 5), (2, 4)),
    ("GRUCell", {}, (4, 3, 5), None),
    ("GRUCell", {}, (3, 5), (1, 1, 4)),
]


@pytest.mark.parametrize("kind, kwargs, x_shape, h", FORWARD_CASES)
def test_forward_errors_match_torch(torch, kind, kwargs, x_shape, h):
    ours, theirs = _pair(torch, kind, 5, 4, **kwargs)

    def call(lib, mod):
        args = [_t(lib, x_shape)]
        if h is not None:
            args.append(tuple(_t(lib, s) for s in h) if isinstance(h[0], tuple) else _t(lib, h))
        out = mod(*args)
        return [tuple(o.shape) for o in _flat(out)]

    got, want = raises_same(lambda: call(tl, ours), lambda: call(torch, theirs))
    assert got == want


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dtype_mismatch_message(torch, kind):
    ours, theirs = _pair(torch, kind, 5, 4)
    raises_same(
        lambda: ours(_t(tl, (2, 3, 5), "float64")), lambda: theirs(_t(torch, (2, 3, 5), "float64"))
    )


# ---------------------------------------------------------------------------- names, layout, repr
LAYOUTS = [
    ("RNN", (10, 20), {}),
    ("RNN", (10, 20, 2, "relu"), {"bias": False, "batch_first": True, "dropout": 0.5}),
    ("RNN", (3, 4), {"bidirectional": True, "num_layers": 3}),
    ("LSTM", (10, 20), {"num_layers": 2}),
    ("LSTM", (10, 20), {"proj_size": 5, "bidirectional": True, "num_layers": 2}),
    ("LSTM", (10, 20), {"proj_size": 5, "bias": False}),
    ("GRU", (10, 20), {"dropout": 0.25, "num_layers": 2, "bidirectional": True}),
    ("RNNCell", (10, 20), {}),
    ("RNNCell", (10, 20), {"bias": False, "nonlinearity": "relu"}),
    ("LSTMCell", (10, 20), {}),
    ("GRUCell", (10, 20), {"bias": False}),
]


@pytest.mark.parametrize("kind, args, kwargs", LAYOUTS)
def test_names_shapes_repr_like_torch(torch, kind, args, kwargs):
    ours, theirs = getattr(nn, kind)(*args, **kwargs), getattr(torch.nn, kind)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in theirs.state_dict().items()
    ]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    for attr in ("input_size", "hidden_size", "bias"):
        assert getattr(ours, attr) == getattr(theirs, attr)
    if not kind.endswith("Cell"):
        for attr in ("num_layers", "batch_first", "dropout", "bidirectional", "proj_size", "mode"):
            assert getattr(ours, attr) == getattr(theirs, attr)
        assert ours._flat_weights_names == theirs._flat_weights_names
        assert [[tuple(p.shape) for p in ws] for ws in ours.all_weights] == [
            [tuple(p.shape) for p in ws] for ws in theirs.all_weights
        ]
        assert all(
            a is getattr(ours, n) for a, n in zip(ours._flat_weights, ours._flat_weights_names)
        )
        assert ours.flatten_parameters() is None
    if kind in ("RNN", "RNNCell"):
        assert ours.nonlinearity == theirs.nonlinearity


@pytest.mark.parametrize("kind, args, kwargs", LAYOUTS)
def test_init_bounds_and_draw_order(kind, args, kwargs, monkeypatch):
    """Every weight and bias from U(-1/sqrt(hidden), 1/sqrt(hidden)), drawn through
    ``nn.init.uniform_`` in parameter order (torch's draw order)."""
    calls = []
    real = nn.init.uniform_

    def spy(tensor, a=0.0, b=1.0, generator=None):
        calls.append((tensor, a, b))
        return real(tensor, a, b, generator)

    monkeypatch.setattr(nn.init, "uniform_", spy)
    m = getattr(nn, kind)(*args, **kwargs)
    params = list(m.parameters())
    assert [id(t) for t, _, _ in calls] == [id(p) for p in params]
    bound = 1 / math.sqrt(m.hidden_size)
    for _, a, b in calls:
        assert (a, b) == (-bound, bound)
    for p in params:
        v = p.detach().numpy()
        assert v.min() >= -bound and v.max() <= bound and v.std() > 0


def test_init_values_follow_the_generator(torch):
    """With tensorlab's generator bit-equal to torch's (the same seed gives the same ``rand``),
    a freshly built layer has torch's very weights."""
    if not _generator_is_torchs(torch):
        pytest.skip("tensorlab's generator does not reproduce torch's stream on this branch")
    for kind, args, kwargs in LAYOUTS:
        tl.manual_seed(3)
        torch.manual_seed(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours, theirs = (
                getattr(nn, kind)(*args, **kwargs),
                getattr(torch.nn, kind)(*args, **kwargs),
            )
        for p, q in zip(ours.parameters(), theirs.parameters(), strict=True):
            np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_module_methods(torch):
    m = nn.LSTM(3, 4, num_layers=2)
    assert m.to(tl.float64).weight_ih_l0.dtype == tl.float64
    assert m.all_weights[1][0] is m.weight_ih_l1
    m.weight_hh_l0 = nn.Parameter(tl.zeros(16, 4, dtype=tl.float64))
    assert m._flat_weights[1] is m.weight_hh_l0  # reassigned weights are used
    out, (h, c) = m(tl.ones(2, 1, 3, dtype=tl.float64))
    assert out.shape == (2, 1, 4) and h.shape == c.shape == (2, 1, 4)
    assert isinstance(m, nn.modules.rnn.RNNBase) and isinstance(nn.GRUCell(2, 3), nn.RNNCellBase)


# ---------------------------------------------------------------------------- a d2l-style char RNN
def _grad_clipping(params, theta, lib):
    """d2l's ``grad_clipping``: scale all gradients so that their joint norm is at most theta."""
    norm = lib.sqrt(sum(lib.sum(p.grad**2) for p in params))
    if norm > theta:
        for p in params:
            p.grad[:] *= theta / norm


def _char_model(lib, vocab, hidden, kind):
    class RNNModel(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(lib.nn, kind)(vocab, hidden)
            self.linear = lib.nn.Linear(hidden, vocab)

        def forward(self, inputs, state):
            X = lib.nn.functional.one_hot(inputs.T.long(), vocab).to(lib.float32)
            Y, state = self.rnn(X, state)
            return self.linear(Y.reshape((-1, Y.shape[-1]))), state

    return RNNModel()


@pytest.mark.parametrize(
    "kind, clip", [("RNN", "d2l"), ("GRU", "d2l"), ("LSTM", "utils"), ("RNN", "utils")]
)
def test_char_rnn_training_steps_match_torch(torch, kind, clip):
    text = "the time traveller for so it will be convenient to speak of him was expounding"
    chars = sorted(set(text))
    idx = np.array([chars.index(ch) for ch in text], dtype=np.int64)
    vocab, hidden, batch, steps = len(chars), 16, 4, 6
    theirs = _char_model(torch, vocab, hidden, kind)
    ours = _char_model(tl, vocab, hidden, kind)
    ours.load_state_dict(
        {k: tl.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    losses = {}
    for lib, model in ((torch, theirs), (tl, ours)):
        loss_fn = lib.nn.CrossEntropyLoss()
        opt = lib.optim.SGD(model.parameters(), lr=1.0)
        state = None
        got = []
        for step in range(8):
            start = (step * steps) % (len(idx) - batch * (steps + 1))
            block = np.stack(
                [idx[start + b * steps : start + b * steps + steps + 1] for b in range(batch)]
            )
            X, Y = lib.from_numpy(block[:, :-1].copy()), lib.from_numpy(block[:, 1:].copy())
            if state is not None:  # detach the state between minibatches (sequential sampling)
                state = (
                    tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
                )
            y_hat, state = model(X, state)
            loss = loss_fn(y_hat, Y.T.reshape(-1))
            opt.zero_grad()
            loss.backward()
            if clip == "d2l":
                _grad_clipping(list(model.parameters()), 1.0, lib)
            else:
                lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            got.append(loss.item())
        losses[lib.__name__] = got
    np.testing.assert_allclose(losses["tensorlab"], losses["torch"], rtol=1e-4)
    assert losses["torch"][-1] < losses["torch"][0]


# ---------------------------------------------------------------------------- the ATen-level kernels
@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_kernels_match_torch_functions(torch, name, bias):
    """``torch.lstm_cell`` & co. (what the cells call) and ours, on the same arrays."""
    from tensorlab.nn._functional import rnn as K

    chunks = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    rng = np.random.default_rng(9)
    arrays = [
        rng.standard_normal(s).astype(np.float32)
        for s in [
            (3, 5),
            (3, 4),
            (3, 4),
            (4 * chunks, 5),
            (4 * chunks, 4),
            (4 * chunks,),
            (4 * chunks,),
        ]
    ]
    x, h, c, w_ih, w_hh, b_ih, b_hh = arrays
    if not bias:
        b_ih = b_hh = None

    def args(lib):
        t = lambda a: None if a is None else lib.from_numpy(a.copy())  # noqa: E731
        hx = (t(h), t(c)) if name == "lstm_cell" else t(h)
        return t(x), hx, t(w_ih), t(w_hh), t(b_ih), t(b_hh)

    ours = _flat(getattr(K, name)(*args(tl)))
    theirs = _flat(getattr(torch, name)(*args(torch)))
    for a, b in zip(ours, theirs, strict=True):
        _close(a, b)


@pytest.mark.parametrize("name", ["rnn_tanh", "rnn_relu", "lstm", "gru"])
def test_layer_kernels_match_torch_functions(torch, name):
    """``torch.lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    batch_first)`` & co. on a module's flat weights."""
    from tensorlab.nn._functional import rnn as K

    kind = {"lstm": "LSTM", "gru": "GRU"}.get(name, "RNN")
    ours, theirs = _pair(torch, kind, 3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = np.random.default_rng(8).standard_normal((2, 5, 3)).astype(np.float32)
    h = np.random.default_rng(9).standard_normal((4, 2, 4)).astype(np.float32)

    def call(lib, mod, fn):
        hx = lib.from_numpy(h.copy())
        hx = (hx, hx * 0.5) if name == "lstm" else hx
        flat = [getattr(mod, n) for n in mod._flat_weights_names]
        return _flat(fn(lib.from_numpy(x.copy()), hx, flat, True, 2, 0.0, False, True, True))

    for a, b in zip(
        call(tl, ours, getattr(K, name)), call(torch, theirs, getattr(torch, name)), strict=True
    ):
        _close(a, b)
