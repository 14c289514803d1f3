"""``grad_fn._saved_*`` and ``grad_fn._raw_saved_*`` against the PyTorch oracle: which
attributes each node has, their values and types, which tensors are the very inputs and which
share memory with an output, and the errors once the graph is freed."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _inputs(lib):
    lib.manual_seed(0)
    x = lib.randn(2, 3, requires_grad=True)
    w = lib.randn(4, 3, requires_grad=True)
    b = lib.randn(4, requires_grad=True)
    img = lib.randn(1, 2, 5, 5, requires_grad=True)
    k = lib.randn(3, 2, 3, 3, requires_grad=True)
    return x, w, b, img, k


OPS = {
    "mul": lambda lib, F, x, w, b, img, k: x * w[:2],
    "mul_scalar": lambda lib, F, x, w, b, img, k: x * 2,
    "mul_float_scalar": lambda lib, F, x, w, b, img, k: x * 2.5,
    "mul_const_other": lambda lib, F, x, w, b, img, k: x * w[:2].detach(),
    "add": lambda lib, F, x, w, b, img, k: x + w[:2],
    "sub": lambda lib, F, x, w, b, img, k: x - w[:2],
    "div": lambda lib, F, x, w, b, img, k: x / w[:2],
    "div_scalar": lambda lib, F, x, w, b, img, k: x / 2,
    "pow": lambda lib, F, x, w, b, img, k: x**2,
    "pow_float": lambda lib, F, x, w, b, img, k: x**2.5,
    "pow_tensor": lambda lib, F, x, w, b, img, k: x ** w[:2],
    "rpow": lambda lib, F, x, w, b, img, k: 2**x,
    "exp": lambda lib, F, x, w, b, img, k: x.exp(),
    "log": lambda lib, F, x, w, b, img, k: x.log(),
    "tanh": lambda lib, F, x, w, b, img, k: x.tanh(),
    "sigmoid": lambda lib, F, x, w, b, img, k: x.sigmoid(),
    "relu": lambda lib, F, x, w, b, img, k: x.relu(),
    "F_relu": lambda lib, F, x, w, b, img, k: F.relu(x),
    "sqrt": lambda lib, F, x, w, b, img, k: x.sqrt(),
    "abs": lambda lib, F, x, w, b, img, k: x.abs(),
    "sin": lambda lib, F, x, w, b, img, k: x.sin(),
    "neg": lambda lib, F, x, w, b, img, k: -x,
    "mm": lambda lib, F, x, w, b, img, k: x @ w.t(),
    "mm_const_mat2": lambda lib, F, x, w, b, img, k: x.t().mm(x.detach()),
    "mm_const_self": lambda lib, F, x, w, b, img, k: x.detach().t().mm(x),
    "bmm": lambda lib, F, x, w, b, img, k: lib.bmm(img[0], img[0]),
    "mv": lambda lib, F, x, w, b, img, k: w @ x[0],
    "dot": lambda lib, F, x, w, b, img, k: x[0] @ x[1],
    "linear": lambda lib, F, x, w, b, img, k: F.linear(x, w, b),
    "linear_nobias": lambda lib, F, x, w, b, img, k: F.linear(x, w),
    "linear_const_w": lambda lib, F, x, w, b, img, k: F.linear(x, w.detach(), b),
    "conv2d": lambda lib, F, x, w, b, img, k: F.conv2d(img, k, b[:3], stride=2, padding=1),
    "conv2d_nobias": lambda lib, F, x, w, b, img, k: F.conv2d(img, k),
    "conv2d_dilated": lambda lib, F, x, w, b, img, k: F.conv2d(
        img, k[:2, :1], groups=2, dilation=2
    ),
    "conv1d": lambda lib, F, x, w, b, img, k: F.conv1d(img[:, :, 0], k[:, :, 0], padding=2),
    "sum": lambda lib, F, x, w, b, img, k: x.sum(),
    "sum_dim": lambda lib, F, x, w, b, img, k: x.sum(1),
    "sum_negative_dims": lambda lib, F, x, w, b, img, k: x.sum((-1, 0), keepdim=True),
    "mean": lambda lib, F, x, w, b, img, k: x.mean(),
    "mean_dim": lambda lib, F, x, w, b, img, k: x.mean(-1),
    "view": lambda lib, F, x, w, b, img, k: x.view(3, 2),
    "reshape": lambda lib, F, x, w, b, img, k: x.reshape(6),
    "expand": lambda lib, F, x, w, b, img, k: x[:, :1].expand(2, 3),
    "softmax": lambda lib, F, x, w, b, img, k: x.softmax(1),
    "softmax_last": lambda lib, F, x, w, b, img, k: F.softmax(x, dim=-1),
    "log_softmax": lambda lib, F, x, w, b, img, k: F.log_softmax(x, -1),
    "max_dim": lambda lib, F, x, w, b, img, k: x.max(1)[0],
    "min_dim": lambda lib, F, x, w, b, img, k: x.min(-1, keepdim=True)[0],
    "max": lambda lib, F, x, w, b, img, k: x.max(),
    "cat": lambda lib, F, x, w, b, img, k: lib.cat([x, x], -1),
    "stack": lambda lib, F, x, w, b, img, k: lib.stack([x, x]),
    "mse_loss": lambda lib, F, x, w, b, img, k: F.mse_loss(x, w[:2]),
    "mse_loss_sum": lambda lib, F, x, w, b, img, k: F.mse_loss(x, w[:2], reduction="sum"),
    "clamp": lambda lib, F, x, w, b, img, k: x.clamp(-0.5, 0.5),
    "clamp_min": lambda lib, F, x, w, b, img, k: x.clamp(min=0),
    "gelu": lambda lib, F, x, w, b, img, k: F.gelu(x, approximate="tanh"),
    "leaky_relu": lambda lib, F, x, w, b, img, k: F.leaky_relu(x, 0.1),
    "where": lambda lib, F, x, w, b, img, k: lib.where(x > 0, x, w[:2]),
    "dropout": lambda lib, F, x, w, b, img, k: F.dropout(x, 0.5),
}


def _saved(lib, F, op):
    x, w, b, img, k = _inputs(lib)
    y = op(lib, F, x, w, b, img, k)
    fn = y.grad_fn
    attrs = sorted(a for a in dir(fn) if a.startswith(("_saved_", "_raw_saved_")))
    return fn.name(), {a: getattr(fn, a) for a in attrs}, (x, w, b, img, k), y


def _same_value(ours, theirs, where):
    import torch

    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tl.Tensor), where
        assert_same(ours, theirs, layout=False, exact=False)
        assert ours.requires_grad == theirs.requires_grad, where
        fo, ft = ours.grad_fn, theirs.grad_fn
        assert (fo is None) == (ft is None) and (fo is None or fo.name() == ft.name()), where
    elif type(theirs).__name__ == "SavedTensor":
        assert type(ours).__name__ == "SavedTensor", where
    else:
        assert type(ours) is type(theirs) and ours == theirs, (where, ours, theirs)


@pytest.mark.parametrize("name", sorted(OPS))
def test_saved_attributes_are_torchs(torch, name):
    import torch.nn.functional as TF

    import tensorlab.nn.functional as F

    node_o, attrs_o, _, _ = _saved(tl, F, OPS[name])
    node_t, attrs_t, _, _ = _saved(torch, TF, OPS[name])
    assert node_o == node_t
    assert sorted(attrs_o) == sorted(attrs_t)
    for a in attrs_t:
        _same_value(attrs_o[a], attrs_t[a], f"{node_t}.{a}")


@pytest.mark.parametrize("name", sorted(OPS))
def test_saved_tensors_are_the_inputs_or_share_the_output(torch, name):
    """A saved input is the very tensor; a saved output is a new tensor on the output's memory
    (whose ``grad_fn`` is the node); each read of it is a new tensor (as in PyTorch)."""
    import torch.nn.functional as TF

    import tensorlab.nn.functional as F

    facts = []
    for lib, FF in ((tl, F), (torch, TF)):
        _, attrs, inputs, y = _saved(lib, FF, OPS[name])
        seen = []
        for a, v in sorted(attrs.items()):
            if isinstance(v, lib.Tensor):
                which = [i for i, t in enumerate(inputs) if t is v]
                seen.append(
                    (
                        a,
                        which,
                        v is y,
                        v.data_ptr() == y.data_ptr() and v.shape == y.shape,
                        v.grad_fn is y.grad_fn and y.grad_fn is not None,
                    )
                )
        facts.append(seen)
    assert facts[0] == facts[1]


def _after_backward(lib, name, attr, retain):
    import importlib

    F = importlib.import_module(lib.__name__ + ".nn.functional")
    x, w, b, img, k = _inputs(lib)
    y = OPS[name](lib, F, x, w, b, img, k)
    y.sum().backward(retain_graph=retain)
    v = getattr(y.grad_fn, attr)
    return v if not isinstance(v, lib.Tensor) else v.tolist()


@pytest.mark.parametrize(
    "name, attr",
    [
        ("mul", "_saved_self"),
        ("mul", "_saved_other"),
        ("mul_scalar", "_saved_other"),
        ("mul_scalar", "_saved_self"),
        ("pow", "_saved_self"),
        ("pow", "_saved_exponent"),
        ("exp", "_saved_result"),
        ("sum_dim", "_saved_dim"),
        ("conv2d", "_saved_stride"),
        ("conv2d", "_saved_weight"),
        ("linear", "_saved_mat2"),
        ("linear", "_saved_alpha"),
        ("view", "_saved_self_sym_sizes"),
        ("softmax", "_saved_result"),
        ("mse_loss", "_saved_reduction"),
    ],
)
@pytest.mark.parametrize("retain", [False, True])
def test_after_backward_tensors_are_freed_numbers_stay(torch, name, attr, retain):
    raises_same(
        lambda: _after_backward(tl, name, attr, retain),
        lambda: _after_backward(torch, name, attr, retain),
    )
    if retain:
        ours = _after_backward(tl, name, attr, retain)
        theirs = _after_backward(torch, name, attr, retain)
        assert type(ours) is type(theirs)
        if ours is not None:
            np.testing.assert_allclose(ours, theirs, rtol=1e-6)


def test_modified_saved_tensor_raises_on_access(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        y = a.pow(2)
        a.add_(1)
        return y.grad_fn._saved_self

    raises_same(lambda: run(tl), lambda: run(torch))


def test_missing_attribute_is_an_attribute_error(torch):
    for lib in (tl, torch):
        y = lib.ones(2, requires_grad=True).exp()
        with pytest.raises(AttributeError):
            y.grad_fn._saved_self  # noqa: B018 (exp saves its result, not its input)
        assert not hasattr(y.grad_fn, "_saved_nothing")


def _raw(lib, case):
    x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    log = []
    if case == "pack_now_unpack_in_backward":
        y = x * x
        y.grad_fn._raw_saved_self.register_hooks(
            lambda t: log.append("pack") or t * 2, lambda t: log.append("unpack") or t
        )
        log.append("registered")
        y.sum().backward()
        return log, x.grad.tolist()
    if case == "seen_by_saved_attribute":
        y = x * x
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 2, lambda t: t)
        s = y.grad_fn._saved_self
        return s.tolist(), s is x, s.requires_grad, y.grad_fn._saved_other is x
    if case == "output":
        y = x.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t.detach() + 1, lambda t: t)
        y.sum().backward()
        return x.grad.tolist()
    if case == "twice":
        y = x * x
        r = y.grad_fn._raw_saved_self
        r.register_hooks(lambda t: t, lambda t: t)
        r.register_hooks(lambda t: t, lambda t: t)
    if case == "none":
        (x * 2).grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    if case == "freed":
        y = x.exp()
        y.sum().backward()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
    return None


@pytest.mark.parametrize(
    "case",
    ["pack_now_unpack_in_backward", "seen_by_saved_attribute", "output", "twice", "none", "freed"],
)
def test_raw_saved_register_hooks(torch, case):
    ours, theirs = raises_same(lambda: _raw(tl, case), lambda: _raw(torch, case))
    assert ours == theirs


def test_saved_values_seen_through_hooks(torch):
    """``grad_fn._saved_*`` goes through the unpack hook: a new tensor with the saved tensor's
    history, holding what the hook gave back."""
    for lib in (tl, torch):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: None, lambda p, lib=lib: lib.ones(3) * 5
        ):
            y = x.pow(2)
            r = x.exp()
        s = y.grad_fn._saved_self
        assert s is not x and s.tolist() == [5.0, 5.0, 5.0]
        assert s.requires_grad and s.is_leaf
        res = r.grad_fn._saved_result
        assert res is not r and res.grad_fn is r.grad_fn


def test_saved_result_after_free_under_hooks(torch):
    def run(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = x.exp()
        y.sum().backward()
        return y.grad_fn._saved_result

    raises_same(lambda: run(tl), lambda: run(torch))


@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
    keepdim=st.booleans(),
    mean=st.booleans(),
)
def test_reduction_dims_and_sizes(torch, shape, data, keepdim, mean):
    n = len(shape)
    dims = data.draw(
        st.lists(st.integers(-n, n - 1), min_size=1, max_size=n, unique_by=lambda d: d % n)
    )
    base = tl.arange(int(tl.tensor(shape).prod()), dtype=tl.float32).reshape(shape)
    out = []
    for t in (base, to_torch(torch, base)):
        x = t.clone().requires_grad_(True)
        y = x.mean(tuple(dims), keepdim=keepdim) if mean else x.sum(tuple(dims), keepdim=keepdim)
        fn = y.grad_fn
        out.append({a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")})
    assert out[0] == out[1]


@settings(max_examples=30, deadline=None)
@given(
    stride=st.integers(1, 3),
    padding=st.integers(0, 2),
    dilation=st.integers(1, 2),
    groups=st.sampled_from([1, 2]),
    bias=st.booleans(),
    transposed_input=st.booleans(),
)
def test_convolution_parameters(torch, stride, padding, dilation, groups, bias, transposed_input):
    x0 = tl.arange(2 * 4 * 7 * 6, dtype=tl.float32).reshape(2, 4, 7, 6) / 100
    if transposed_input:
        x0 = x0.transpose(2, 3)
    w0 = tl.arange(6 * (4 // groups) * 9, dtype=tl.float32).reshape(6, 4 // groups, 3, 3) / 50
    b0 = tl.arange(6, dtype=tl.float32)
    out = []
    for lib, cv in ((tl, lambda t: t), (torch, lambda t: to_torch(torch, t))):
        x = cv(x0).clone().requires_grad_(True)
        w = cv(w0).clone().requires_grad_(True)
        b = cv(b0).clone().requires_grad_(True) if bias else None
        y = lib.nn.functional.conv2d(x, w, b, stride, padding, dilation, groups)
        fn = y.grad_fn
        vals = {a: getattr(fn, a) for a in dir(fn) if a.startswith("_saved_")}
        assert vals.pop("_saved_input") is x and vals.pop("_saved_weight") is w
        out.append(vals)
    assert out[0] == out[1]
