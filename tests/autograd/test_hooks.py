"""``Tensor.register_hook`` against the PyTorch oracle: hooks observe and replace gradients of
leaves and of intermediate results, run in order, and are removed by their handle."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _run(lib, base, where, hook_kind, remove):
    x = base.clone().requires_grad_(True)
    seen = []
    hook = {
        "scale": lambda g: g * 3,
        "add": lambda g: g + 1,
        "observe": lambda g: seen.append(g.clone()),
        "inplace": lambda g: (g.mul_(2), None)[1],
    }[hook_kind]
    y = x.t() * 2 if x.ndim == 2 else x * 2
    z = y.sin() if hasattr(y, "sin") else y
    target = {"leaf": x, "view": y, "result": z}[where]
    handle = target.register_hook(hook)
    if remove:
        handle.remove()
    (z * z).sum().backward()
    return x.grad, seen


@settings(max_examples=40)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=2),
    where=st.sampled_from(["leaf", "view", "result"]),
    hook_kind=st.sampled_from(["scale", "add", "observe", "inplace"]),
    remove=st.booleans(),
    transposed=st.booleans(),
)
def test_hooks_change_gradients_like_torch(torch, shape, where, hook_kind, remove, transposed):
    base = tl.arange(int(np.prod(shape)), dtype=tl.float32).reshape(shape) / 7
    if transposed and base.ndim == 2:
        base = base.t()
    g_o, seen_o = _run(tl, base, where, hook_kind, remove)
    g_t, seen_t = _run(torch, to_torch(torch, base), where, hook_kind, remove)
    assert_same(g_o, g_t, layout=False, exact=False)
    assert len(seen_o) == len(seen_t)
    for a, b in zip(seen_o, seen_t):
        assert_same(a, b, layout=False, exact=False)


def test_hooks_run_in_order_and_retain_grad_sees_the_result(torch):
    results = []
    for lib in (tl, torch):
        order = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        y.register_hook(lambda g, order=order: order.append(1))
        y.register_hook(lambda g, order=order: order.append(2) or g * 10)
        y.register_hook(lambda g, order=order: order.append(3))
        y.sum().backward()
        results.append((order, y.grad.tolist(), x.grad.tolist()))
    assert results[0] == results[1]


def test_hooks_apply_to_autograd_grad(torch):
    out = []
    for lib in (tl, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.register_hook(lambda g: g * 5)
        (a,) = lib.autograd.grad((x * 2).sum(), x)
        y = x * 2
        y.register_hook(lambda g: g + 1)
        (b,) = lib.autograd.grad(y.sum(), x)
        out.append((a.tolist(), b.tolist()))
    assert out[0] == out[1]


def _bad_size(lib):
    def bad(g):
        return lib.zeros(3)

    return bad


@pytest.mark.parametrize(
    "expr",
    [
        "lib.tensor([1.]).register_hook(print)",
        "reg(lib.tensor([1., 2.], requires_grad=True), bad_size(lib))",
        "reg(lib.tensor([1., 2.], requires_grad=True), lambda g: 1)",
        "reg(lib.tensor([1., 2.], requires_grad=True), lambda g: g.double())",
    ],
)
def test_hook_errors(torch, expr):
    def reg(x, hook):
        x.register_hook(hook)
        (x * 1).sum().backward()

    raises_same(
        lambda: eval(expr, {"lib": tl, "reg": reg, "bad_size": _bad_size}),
        lambda: eval(expr, {"lib": torch, "reg": reg, "bad_size": _bad_size}),
    )


def test_handle_remove_twice_and_context_manager():
    x = tl.tensor([1.0], requires_grad=True)
    calls = []
    with x.register_hook(lambda g: calls.append(1)):
        (x * 2).sum().backward()
    h = x.register_hook(lambda g: calls.append(2))
    h.remove()
    h.remove()
    (x * 2).sum().backward()
    assert calls == [1]


@pytest.mark.parametrize("call", ["backward", "grad"])
def test_a_hook_on_the_output_may_write_the_gradient_the_caller_gave(torch, call):
    """The caller's gradient is given to the graph as is (not copied; the formulas only read
    it): a hook on the output that changes its gradient in place still works, as in torch."""

    def run(lib):
        x = lib.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        g = lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t()  # not contiguous: copied, the other path
        gc = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        grads = []
        for grad_out in (g, gc):
            y = x * 2
            y.register_hook(lambda t: (t.mul_(2), None)[1])
            if call == "backward":
                x.grad = None
                y.backward(grad_out)
                grads.append(x.grad)
            else:
                grads.append(lib.autograd.grad(y, x, grad_out)[0])
        return grads

    for ours, theirs in zip(run(tl), run(torch)):
        # (torch keeps a transposed gradient's layout in x * 2's gradient; tensorlab's
        # autograd.grad returns it contiguous: a known difference, values are the point here)
        assert_same(ours, theirs, layout=call == "backward")


def test_the_gradient_given_is_never_written(torch):
    """Every formula reads the caller's gradient (given without a copy) and never writes it:
    through a conv, a pooling, a ReLU, a view and a sum of two paths."""
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w0 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    g0 = rng.standard_normal((2, 4, 2, 2)).astype(np.float32)
    res = []
    for lib in (tl, torch):
        x = lib.tensor(x0, requires_grad=True)
        w = lib.tensor(w0, requires_grad=True)
        y = lib.nn.functional.conv2d(x, w, padding=1).relu()
        y = lib.nn.functional.max_pool2d(y, 2) + lib.nn.functional.avg_pool2d(y, 2)
        y = y.view(2, 4, 3, 3)[:, :, :2, :2]
        g = lib.tensor(g0)
        res.append((lib.autograd.grad(y, (x, w), g), g))
    for a, b in zip(res[0][0], res[1][0]):
        assert_same(a, b, exact=False, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(res[0][1].numpy(), g0)
