"""tensorlab.nn: Module, Parameter, Conv1d, Conv2d, Sequential against torch 2.13."""

from __future__ import annotations

import copy
import math
import pickle
import re

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn as nn


def copy_weights(ours, theirs, torch):
    """Give the torch module our module's parameter values."""
    with torch.no_grad():
        for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters()):
            assert n1 == n2
            p2.copy_(torch.from_numpy(p1._np().copy()))


def close(ours, theirs, dtype="float32"):
    a, b = ours._np(), theirs.detach().numpy()
    assert a.shape == b.shape and str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert ours.stride() == theirs.stride()
    tol = 1e-10 if dtype == "float64" else 2e-4
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---------------------------------------------------------------------------- Parameter


def test_parameter_shares_storage_and_requires_grad():
    t = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    p = nn.Parameter(t)
    assert isinstance(p, tl.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and not t.requires_grad
    assert p.data_ptr() == t.data_ptr()
    t[0, 0] = 10.0
    assert p._np()[0, 0] == 10.0
    assert (
        type(p.detach()) is tl.Tensor and type(p.clone()) is tl.Tensor and type(p[0]) is tl.Tensor
    )
    assert not nn.Parameter(t, requires_grad=False).requires_grad


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.nn.Parameter(m.tensor([1.0, 2.0])),
        lambda m: m.nn.Parameter(m.tensor([1.0, 2.0]), requires_grad=False),
        lambda m: m.nn.Parameter(m.tensor([[1.5, -2.0]], dtype=m.float64)),
        lambda m: m.nn.Parameter(m.zeros(2, 1, 2, 2)),
        lambda m: m.nn.Parameter(m.tensor([1, 2]), requires_grad=False),
    ],
)
def test_parameter_repr_like_torch(torch, make):
    assert repr(make(tl)) == repr(make(torch)).replace("torch.", "tensorlab.")
    assert str(make(tl)) == str(make(torch)).replace("torch.", "tensorlab.")


def test_parameter_errors_like_torch(torch):
    raises_same(
        lambda: nn.Parameter(tl.tensor([1, 2])), lambda: torch.nn.Parameter(torch.tensor([1, 2]))
    )
    raises_same(lambda: nn.Parameter([1.0]), lambda: torch.nn.Parameter([1.0]))
    assert tuple(nn.Parameter().shape) == tuple(torch.nn.Parameter().shape) == (0,)


def test_parameter_copy_and_pickle():
    p = nn.Parameter(tl.tensor([1.0, 2.0]))
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad and q.data_ptr() != p.data_ptr()
    r = pickle.loads(pickle.dumps(p))
    assert isinstance(r, nn.Parameter) and r.tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------- Conv2d construction

CONV_CONFIGS = [
    (1, 1, 3, {}),
    (1, 1, 3, dict(bias=False)),
    (
        2,
        4,
        (3, 5),
        dict(
            stride=(2, 1),
            padding=(4, 2),
            dilation=(3, 1),
            groups=2,
            bias=False,
            padding_mode="circular",
        ),
    ),
    (4, 4, 3, dict(groups=4, padding="same")),
    (4, 8, 2, dict(padding="valid", padding_mode="reflect")),
    (3, 6, 1, dict(stride=2, padding=0, dilation=1)),
    (16, 64, 3, dict(groups=4)),
    (2, 3, (3,), {}),
    (2, 2, 3, dict(padding=1, padding_mode="replicate")),
    (2, 2, [2, 3], dict(padding=[1, 0], stride=[1, 2], dilation=[2, 2])),
    (2, 2, 4, dict(padding="same", dilation=3, padding_mode="zeros")),
]


@pytest.mark.parametrize("cin, cout, k, kw", CONV_CONFIGS)
def test_conv2d_repr_and_shapes_like_torch(torch, cin, cout, k, kw):
    ours = nn.Conv2d(cin, cout, k, **kw)
    theirs = torch.nn.Conv2d(cin, cout, k, **kw)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    for attr in (
        "in_channels",
        "out_channels",
        "kernel_size",
        "stride",
        "padding",
        "dilation",
        "groups",
        "padding_mode",
        "output_padding",
        "transposed",
        "_reversed_padding_repeated_twice",
    ):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.weight.dtype == tl.float32 and ours.weight.requires_grad


@pytest.mark.parametrize(
    "cin, cout, k, kw",
    [
        (2, 3, 3, dict(groups=2)),
        (3, 2, 3, dict(groups=2)),
        (2, 2, 3, dict(groups=0)),
        (2, 2, 3, dict(groups=-1)),
        (2, 2, 3, dict(padding="foo")),
        (2, 2, 3, dict(padding="same", stride=2)),
        (2, 2, 3, dict(padding_mode="zero")),
        (2, 2, 3, dict(padding="SAME")),
    ],
)
def test_conv2d_constructor_errors_like_torch(torch, cin, cout, k, kw):
    def run(f):
        """Python prints a set in hash order (it varies between runs): sort the set's items."""
        try:
            f()
        except ValueError as e:
            msg = re.sub(r"\{[^}]*\}", lambda m: str(sorted(m.group(0)[1:-1].split(", "))), str(e))
            raise ValueError(msg) from None

    raises_same(
        lambda: run(lambda: nn.Conv2d(cin, cout, k, **kw)),
        lambda: run(lambda: torch.nn.Conv2d(cin, cout, k, **kw)),
    )


def test_conv1d_and_sequential_repr_like_torch(torch):
    def build(m):
        return m.nn.Sequential(
            m.nn.Conv1d(2, 4, 3, padding="valid"),
            m.nn.Conv1d(4, 4, 3, groups=2, padding=1, padding_mode="circular"),
            m.nn.Sequential(m.nn.Conv2d(1, 1, 3, bias=False)),
        )

    assert repr(build(tl)) == repr(build(torch))
    assert [n for n, _ in build(tl).named_parameters()] == [
        n for n, _ in build(torch).named_parameters()
    ]
    assert repr(nn.Module()) == repr(torch.nn.Module())


def test_default_init_bounds_and_spread():
    """kaiming-uniform(a=sqrt(5)): weight and bias in U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    tl.manual_seed(0)
    conv = nn.Conv2d(8, 64, 3, groups=2)
    bound = 1 / math.sqrt(4 * 9)
    w, b = conv.weight._np(), conv.bias._np()
    assert np.all(np.abs(w) <= bound) and np.all(np.abs(b) <= bound)
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound  # the std of U(-b, b)
    assert w.max() > 0.95 * bound and w.min() < -0.95 * bound
    assert abs(w.mean()) < 0.05 * bound
    assert b.max() > 0.5 * bound and b.min() < -0.5 * bound


def test_init_is_seeded():
    tl.manual_seed(3)
    a = nn.Conv2d(2, 3, 3).weight._np().copy()
    tl.manual_seed(3)
    b = nn.Conv2d(2, 3, 3).weight._np().copy()
    c = nn.Conv2d(2, 3, 3).weight._np().copy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


def test_dtype_argument_and_zero_channels(torch):
    conv = nn.Conv2d(2, 3, 3, dtype=tl.float64)
    assert conv.weight.dtype == tl.float64 and conv.bias.dtype == tl.float64
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        z = nn.Conv2d(0, 3, 3)
    assert z.bias.tolist() == [0.0, 0.0, 0.0]


# ---------------------------------------------------------------------------- forward


@st.composite
def module_cases(draw):
    groups = draw(st.integers(1, 3))
    cin, cout = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    mode = draw(st.sampled_from(["zeros", "reflect", "replicate", "circular"]))
    padding = draw(st.sampled_from([0, 1, 2, (1, 0), (0, 2), "valid", "same"]))
    stride = 1 if padding == "same" else draw(st.sampled_from([1, 2, (1, 2)]))
    dilation = draw(st.sampled_from([1, 2, (2, 1)]))
    h, w = draw(st.integers(1, 8)), draw(st.integers(1, 8))
    batched = draw(st.booleans())
    dtype = draw(st.sampled_from(["float32", "float64"]))
    return dict(
        cin=cin,
        cout=cout,
        k=k,
        groups=groups,
        padding_mode=mode,
        padding=padding,
        stride=stride,
        dilation=dilation,
        h=h,
        w=w,
        batched=batched,
        dtype=dtype,
        bias=draw(st.booleans()),
        seed=draw(st.integers(0, 999)),
    )


@settings(max_examples=150)
@given(module_cases())
def test_conv2d_forward_matches_torch(torch, case):
    import warnings

    kw = dict(
        stride=case["stride"],
        padding=case["padding"],
        dilation=case["dilation"],
        groups=case["groups"],
        bias=case["bias"],
        padding_mode=case["padding_mode"],
    )
    tl.manual_seed(case["seed"])
    ours = nn.Conv2d(case["cin"], case["cout"], case["k"], **kw)
    theirs = torch.nn.Conv2d(case["cin"], case["cout"], case["k"], **kw)
    if case["dtype"] == "float64":
        ours.double()
        theirs.double()
    copy_weights(ours, theirs, torch)
    shape = ((2,) if case["batched"] else ()) + (case["cin"], case["h"], case["w"])
    x = np.random.default_rng(case["seed"]).standard_normal(shape).astype(case["dtype"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = raises_same(lambda: ours(tl.from_numpy(x)), lambda: theirs(torch.from_numpy(x)))
    if b is not None:
        close(a, b, case["dtype"])
        assert a.requires_grad


def test_conv1d_forward_matches_torch(torch):
    for mode in ["zeros", "reflect", "replicate", "circular"]:
        ours = nn.Conv1d(2, 4, 3, padding=1, padding_mode=mode, groups=2)
        theirs = torch.nn.Conv1d(2, 4, 3, padding=1, padding_mode=mode, groups=2)
        copy_weights(ours, theirs, torch)
        x = np.random.default_rng(0).standard_normal((3, 2, 7)).astype(np.float32)
        close(ours(tl.from_numpy(x)), theirs(torch.from_numpy(x)))


def test_forward_dtype_error_like_torch(torch):
    """The lecture's pitfall: a float64 input into a float32 layer."""
    x = np.zeros((1, 1, 8, 8))
    conv = nn.Conv2d(1, 1, 3)
    tconv = torch.nn.Conv2d(1, 1, 3)
    raises_same(lambda: conv(tl.from_numpy(x)), lambda: tconv(torch.from_numpy(x)))
    raises_same(
        lambda: conv(tl.from_numpy(np.zeros((2, 1, 8, 8)))),
        lambda: tconv(torch.from_numpy(np.zeros((2, 1, 8, 8)))),
    )


# ---------------------------------------------------------------------------- Module machinery


def test_assigning_parameters_and_errors_like_torch(torch):
    ours, theirs = nn.Conv2d(1, 1, 3), torch.nn.Conv2d(1, 1, 3)
    new = nn.Parameter(tl.ones(1, 1, 3, 3))
    ours.weight = new
    assert ours.weight is new and list(ours.parameters())[0] is new
    raises_same(
        lambda: setattr(ours, "weight", tl.ones(1, 1, 3, 3)),
        lambda: setattr(theirs, "weight", torch.ones(1, 1, 3, 3)),
    )
    raises_same(lambda: setattr(ours, "bias", 3), lambda: setattr(theirs, "bias", 3))
    raises_same(
        lambda: ours.register_parameter("a.b", None), lambda: theirs.register_parameter("a.b", None)
    )
    raises_same(
        lambda: ours.register_parameter("w2", tl.ones(1)),
        lambda: theirs.register_parameter("w2", torch.ones(1)),
    )
    raises_same(lambda: ours.train(1), lambda: theirs.train(1))
    raises_same(lambda: ours.to(tl.int64), lambda: theirs.to(torch.int64))
    raises_same(lambda: nn.Module()(1), lambda: torch.nn.Module()(1))
    raises_same(lambda: ours.nothing, lambda: theirs.nothing)
    ours.bias = None
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    assert "bias=False" in repr(ours)


def test_custom_module_registers_children(torch):
    def build(m):
        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = m.nn.Conv2d(1, 2, 3)
                self.body = m.nn.Sequential(m.nn.Conv2d(2, 2, 3, groups=2), m.nn.Conv2d(2, 1, 1))
                self.scale = m.nn.Parameter(m.ones(1))

            def forward(self, x):
                return self.body(self.conv1(x)) * 1

        return Net()

    ours, theirs = build(tl), build(torch)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert len(list(ours.parameters(recurse=False))) == 1
    ours.eval()
    assert not ours.training and not ours.body[0].training
    ours.train()
    assert ours.body[1].training
    assert len(ours.body) == 2 and isinstance(ours.body[-1], nn.Conv2d)


def test_dtype_conversions_keep_parameter_objects():
    conv = nn.Conv2d(2, 2, 3)
    w = conv.weight
    assert conv.double() is conv
    assert conv.weight is w and w.dtype == tl.float64 and conv.bias.dtype == tl.float64
    conv.float()
    assert conv.weight.dtype == tl.float32
    conv.to(tl.float64)
    assert conv.weight.dtype == tl.float64 and conv.weight.requires_grad
    conv.to(dtype=tl.float32)
    assert conv.weight.dtype == tl.float32
    conv.to(tl.zeros(1, dtype=tl.float64))
    assert conv.weight.dtype == tl.float64
    assert conv.to("cpu") is conv


def test_lecture_double_input_after_conversion(torch):
    """conv.double() then a float64 input works, as in PyTorch."""
    x = np.random.default_rng(0).standard_normal((1, 1, 8, 8))
    ours, theirs = nn.Conv2d(1, 1, 3).double(), torch.nn.Conv2d(1, 1, 3).double()
    copy_weights(ours, theirs, torch)
    close(ours(tl.from_numpy(x)), theirs(torch.from_numpy(x)), "float64")


def test_state_dict_round_trip():
    a, b = nn.Conv2d(2, 3, 3), nn.Conv2d(2, 3, 3)
    sd = a.state_dict()
    assert list(sd) == ["weight", "bias"] and type(sd["weight"]) is tl.Tensor
    assert sd["weight"].data_ptr() == a.weight.data_ptr()
    res = b.load_state_dict(sd)
    assert repr(res) == "<All keys matched successfully>"
    np.testing.assert_array_equal(b.weight._np(), a.weight._np())
    with pytest.raises(RuntimeError, match="Missing key"):
        b.load_state_dict({"weight": sd["weight"]})


def test_requires_grad_and_zero_grad():
    conv = nn.Conv2d(1, 1, 3)
    conv.requires_grad_(False)
    assert not any(p.requires_grad for p in conv.parameters())
    out = conv(tl.ones(1, 1, 4, 4))
    assert not out.requires_grad
    conv.weight.grad = tl.ones(1, 1, 3, 3)
    conv.zero_grad()
    assert conv.weight.grad is None


def test_module_deepcopy_and_pickle():
    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Conv2d(2, 2, 1, bias=False))
    x = tl.randn(1, 1, 5, 5)
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert repr(other) == repr(net)
        assert isinstance(other[0].weight, nn.Parameter) and other[0].weight.requires_grad
        assert other[0].weight.data_ptr() != net[0].weight.data_ptr()
        np.testing.assert_array_equal(other(x)._np(), net(x)._np())
