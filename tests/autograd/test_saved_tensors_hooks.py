"""``torch.autograd.graph.saved_tensors_hooks`` / ``save_on_cpu`` /
``disable_saved_tensors_hooks`` against the PyTorch oracle: which tensors each op hands to the
pack hook, in which order, which the backward unpacks, nesting, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as TLF


def _trace(lib, F, op):
    """Run ``op`` on fixed seeded inputs under hooks that log what they see (by name: an input's
    name, or the op that made the tensor and its shape), then run backward."""
    lib.manual_seed(0)
    x = lib.randn(2, 3, requires_grad=True)
    w = lib.randn(4, 3, requires_grad=True)
    b = lib.randn(4, requires_grad=True)
    img = lib.randn(1, 2, 5, 5, requires_grad=True)
    k = lib.randn(3, 2, 3, 3, requires_grad=True)
    names = {id(x): "x", id(w): "w", id(b): "b", id(img): "img", id(k): "k"}
    log = []

    def label(t):
        if id(t) in names:
            return names[id(t)]
        fn = t.grad_fn
        made = fn.name() if fn is not None else ("leaf" if t.requires_grad else "const")
        return f"{made}{list(t.shape)}"

    def pack(t):
        log.append(f"pack {label(t)}" + (" (grad mode)" if lib.is_grad_enabled() else ""))
        return ("packed", t)

    def unpack(p):
        log.append(f"unpack {label(p[1])}")
        return p[1]

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = op(lib, F, x, w, b, img, k)
    names[id(y)] = "out"
    log.append(f"backward of {y.grad_fn.name()}")
    (y.sum() if y.dim() else y).backward()
    grads = [t.grad for t in (x, w, b, img, k)]
    return log, grads


OPS = {
    "mul": lambda lib, F, x, w, b, img, k: x * w[:2],
    "mul_other_const": lambda lib, F, x, w, b, img, k: x * w[:2].detach(),
    "mul_self_const": lambda lib, F, x, w, b, img, k: x.detach() * w[:2],
    "mul_self": lambda lib, F, x, w, b, img, k: x * x,
    "mul_scalar": lambda lib, F, x, w, b, img, k: x * 2,
    "div": lambda lib, F, x, w, b, img, k: x / w[:2],
    "pow": lambda lib, F, x, w, b, img, k: x**2,
    "pow_float": lambda lib, F, x, w, b, img, k: x.abs() ** 2.5,
    "pow_tensor": lambda lib, F, x, w, b, img, k: x.abs() ** x,
    "pow_tensor_const_exp": lambda lib, F, x, w, b, img, k: x ** w[:2].detach(),
    "pow_tensor_const_base": lambda lib, F, x, w, b, img, k: x.detach() ** w[:2],
    "rpow": lambda lib, F, x, w, b, img, k: 2**x,
    "exp": lambda lib, F, x, w, b, img, k: x.exp(),
    "log": lambda lib, F, x, w, b, img, k: x.abs().log(),
    "tanh": lambda lib, F, x, w, b, img, k: x.tanh(),
    "sigmoid": lambda lib, F, x, w, b, img, k: x.sigmoid(),
    "matmul": lambda lib, F, x, w, b, img, k: x @ w.t(),
    "mm": lambda lib, F, x, w, b, img, k: x.mm(w.t()),
    "bmm": lambda lib, F, x, w, b, img, k: lib.bmm(img[0], img[0]),
    "conv2d": lambda lib, F, x, w, b, img, k: F.conv2d(img, k, b[:3], padding=1),
    "conv2d_nobias": lambda lib, F, x, w, b, img, k: F.conv2d(img, k),
    "conv2d_const_weight": lambda lib, F, x, w, b, img, k: F.conv2d(img, k.detach()),
    "conv2d_const_input": lambda lib, F, x, w, b, img, k: F.conv2d(img.detach(), k),
    "conv1d": lambda lib, F, x, w, b, img, k: F.conv1d(img[:, :, 0], k[:, :, 0]),
    "relu": lambda lib, F, x, w, b, img, k: x.relu(),
    "F_relu": lambda lib, F, x, w, b, img, k: F.relu(x),
    "sum": lambda lib, F, x, w, b, img, k: x.sum(),
    "sum_dim": lambda lib, F, x, w, b, img, k: x.sum(1),
    "mean": lambda lib, F, x, w, b, img, k: x.mean(),
    "mean_dim": lambda lib, F, x, w, b, img, k: x.mean(0),
    "linear": lambda lib, F, x, w, b, img, k: F.linear(x, w, b),
    "linear_nobias": lambda lib, F, x, w, b, img, k: F.linear(x, w),
    "linear_const_w": lambda lib, F, x, w, b, img, k: F.linear(x, w.detach(), b),
    "linear_const_x": lambda lib, F, x, w, b, img, k: F.linear(x.detach(), w, b),
    "softmax": lambda lib, F, x, w, b, img, k: x.softmax(1),
    "log_softmax": lambda lib, F, x, w, b, img, k: F.log_softmax(x, 1),
    "mse_loss": lambda lib, F, x, w, b, img, k: F.mse_loss(x, w[:2]),
    "mlp": lambda lib, F, x, w, b, img, k: (F.linear(x, w, b).relu() * 3).exp().mean(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_pack_and_unpack_see_what_torch_saves_in_its_order(torch, name):
    import torch.nn.functional as TF

    log_o, grads_o = _trace(tl, TLF, OPS[name])
    log_t, grads_t = _trace(torch, TF, OPS[name])
    assert log_o == log_t
    for go, gt in zip(grads_o, grads_t):
        assert (go is None) == (gt is None)
        if go is not None:
            assert_same(go, gt, layout=False, exact=False, rtol=1e-5, atol=1e-6)


def _offload(lib, shape_x, out_features, bias, hooks):
    """A linear layer, relu and mean of squares under ``hooks`` (a context-manager factory)."""
    lib.manual_seed(1)
    x = lib.randn(*shape_x, requires_grad=True)
    w = lib.randn(out_features, shape_x[-1], requires_grad=True)
    b = lib.randn(out_features, requires_grad=True) if bias else None
    with hooks(lib):
        y = lib.nn.functional.linear(x, w, b).relu()
        z = (y * y).mean()
    z.backward()
    return x.grad, w.grad, None if b is None else b.grad


HOOKS = {
    "save_on_cpu": lambda lib: lib.autograd.graph.save_on_cpu(),
    "save_on_cpu_pinned": lambda lib: lib.autograd.graph.save_on_cpu(pin_memory=True),
    "detach_clone": lambda lib: lib.autograd.graph.saved_tensors_hooks(
        lambda t: t.detach().clone(), lambda t: t
    ),
}


@settings(max_examples=25, deadline=None)
@given(
    rows=st.integers(1, 5),
    inner=st.integers(1, 5),
    out_features=st.integers(1, 4),
    bias=st.booleans(),
    hooks=st.sampled_from(sorted(HOOKS)),
)
def test_gradients_under_hooks_are_torchs(torch, rows, inner, out_features, bias, hooks):
    ours = _offload(tl, (rows, inner), out_features, bias, HOOKS[hooks])
    theirs = _offload(torch, (rows, inner), out_features, bias, HOOKS[hooks])
    plain = _offload(tl, (rows, inner), out_features, bias, lambda lib: _nothing())
    for a, b, c in zip(ours, theirs, plain):
        if a is None:
            assert b is None and c is None
            continue
        assert_same(a, b, layout=False, exact=False, rtol=1e-5, atol=1e-6)
        assert tl.equal(a, c)  # hooks that give the tensor back change no bit


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_pack_counts_and_shapes_follow_torch(torch, shape):
    """Every saved tensor of a small chain (pow, mul, exp, sum) is packed once and unpacked once,
    with torch's shapes, in torch's order."""
    base = tl.arange(int(np.prod(shape)), dtype=tl.float32).reshape(shape) / 5 - 0.3

    def run(lib, x0):
        x = x0.clone().requires_grad_(True)
        seen = []

        def pack(t):
            seen.append(("pack", tuple(t.shape), t.grad_fn is not None))
            return t

        def unpack(t):
            seen.append(("unpack", tuple(t.shape)))
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = ((x**2) * x).exp().sum()
        y.backward()
        return seen, x.grad

    seen_o, g_o = run(tl, base)
    seen_t, g_t = run(torch, to_torch(torch, base))
    assert seen_o == seen_t
    assert_same(g_o, g_t, layout=False, exact=False, rtol=1e-5)


def test_only_the_innermost_hooks_apply(torch):
    def run(lib):
        log = []
        outer = lib.autograd.graph.saved_tensors_hooks(
            lambda t: log.append("outer pack") or t, lambda t: log.append("outer unpack") or t
        )
        inner = lib.autograd.graph.saved_tensors_hooks(
            lambda t: log.append("inner pack") or t, lambda t: log.append("inner unpack") or t
        )
        x = lib.ones(3, requires_grad=True)
        with outer:
            a = x.exp()
            with inner:
                b = a.sin()
            c = b.cos()
        c.sum().backward()
        return log, x.grad

    (log_o, g_o), (log_t, g_t) = run(tl), run(torch)
    assert log_o == log_t
    assert_same(g_o, g_t, layout=False, exact=False)


def test_save_for_backward_of_a_custom_function_is_packed(torch):
    def run(lib):
        log = []

        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * a * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return 2 * g * a * b, g * a * a

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: log.append(("pack", t.tolist())) or t.detach() * 1,
            lambda t: log.append(("unpack", t.tolist())) or t,
        ):
            z = Square.apply(x, y)
        z.sum().backward()
        return log, x.grad, y.grad

    o, t = run(tl), run(torch)
    assert o[0] == t[0]
    assert_same(o[1], t[1])
    assert_same(o[2], t[2])


def _error(lib, case):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    H = lib.autograd.graph.saved_tensors_hooks
    D = lib.autograd.graph.disable_saved_tensors_hooks
    if case == "unpack_returns_int":
        with H(lambda t: t, lambda t: 3):
            y = x.exp()
        y.sum().backward()
    elif case == "pack_writes_in_place":
        with H(lambda t: t.add_(1), lambda t: t):
            (x * 1).exp()
    elif case == "pack_raises":
        with H(lambda t: 1 / 0, lambda t: t):
            x.pow(2)
    elif case == "backward_twice":
        with H(lambda t: t, lambda t: t):
            y = x.exp()
        y.sum().backward()
        y.sum().backward()
    elif case == "disabled_then_hooks":
        with D("saved tensors default hooks are disabled"):
            with lib.autograd.graph.save_on_cpu():
                pass
    elif case == "hooks_then_disabled":
        with H(lambda t: t, lambda t: t):
            with D("no hooks here"):
                x * x
    elif case == "disabled_nested":
        with D("outer message"):
            with D("inner message"):
                pass
            with H(lambda t: t, lambda t: t):
                pass
    elif case == "disabled_without_hooks":
        with D("never raised"):
            y = x * x
        y.sum().backward()
        return x.grad
    elif case == "retain_graph":
        with H(lambda t: t, lambda t: t):
            y = x.exp()
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return x.grad
    return None


@pytest.mark.parametrize(
    "case",
    [
        "unpack_returns_int",
        "pack_writes_in_place",
        "pack_raises",
        "backward_twice",
        "disabled_then_hooks",
        "hooks_then_disabled",
        "disabled_nested",
        "disabled_without_hooks",
        "retain_graph",
    ],
)
def test_errors_are_torchs(torch, case):
    ours, theirs = raises_same(lambda: _error(tl, case), lambda: _error(torch, case))
    if ours is not None:
        assert_same(ours, theirs)


def test_the_version_check_is_off_under_hooks(torch):
    """With hooks PyTorch cannot follow versions: an in-place change after saving goes
    unnoticed (the hook's packed copy is used); without hooks it is refused."""
    for lib in (tl, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = a.pow(2)
        a.add_(10)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 4.0]
