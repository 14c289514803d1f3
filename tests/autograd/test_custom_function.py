"""Custom ``autograd.Function`` against PyTorch 2.13: the same classes are defined for both
libraries (``_fns(lib)``), run on the same inputs, and compared: results, ``grad_fn`` names and
prints, gradients, and the errors with their messages."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl


def _fns(lib):
    """The tutorial's examples and a few more, written once for ``lib`` (torch or tensorlab)."""
    Function = lib.autograd.Function
    once_differentiable = lib.autograd.function.once_differentiable

    class MyReLU(Function):  # "Learning PyTorch with Examples"
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    class LegendrePolynomial3(Function):  # the same tutorial
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    class Exp(Function):  # torch.autograd.Function's docstring: saves its output
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class MulConstant(Function):  # a non-tensor input, setup_context style
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.constant = inputs[1]

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    class Double_(Function):  # in place, mark_dirty
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class SortWithIdx(Function):  # two outputs, one non-differentiable, plus a number
        @staticmethod
        def forward(ctx, x):
            values, idx = x.sort()
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return values, idx, 7

        @staticmethod
        def backward(ctx, g_values, g_idx, g_number):
            (idx,) = ctx.saved_tensors
            out = lib.zeros_like(g_values)
            out.scatter_(0, idx, g_values)
            return out + 0 * g_idx.sum() if g_number is None else None

    class Split(Function):  # two differentiable outputs; materialize off: None for unused
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            ctx.seen = (ga is None, gb is None)
            out = 0
            if ga is not None:
                out = out + ga * 2
            if gb is not None:
                out = out + gb * 3
            return out

    class Cube(Function):  # a backward made of tensor ops: differentiable again
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    class CubeOnce(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    class Identity(Function):  # returns its input unchanged
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class TooMany(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    class GradForNumber(Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g[:1]

    class ExtraNones(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    class Broadcast(Function):  # a gradient that broadcasts to the input is summed
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            return g.expand(2, 3) * 1.0

    return {k: v for k, v in locals().items() if isinstance(v, type)}


@pytest.fixture(scope="module")
def both(torch):
    return _fns(torch), _fns(tl)


def _pair(torch, data, dtype="float64", grad=True):
    a = np.asarray(data, dtype=dtype)
    return (
        torch.tensor(a).requires_grad_(grad),
        tl.tensor(a).requires_grad_(grad),
    )


def _same(ours, theirs, rtol=1e-12):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)


def _name(fn):
    return None if fn is None else fn.name()


@pytest.mark.oracle
@pytest.mark.parametrize("cls", ["MyReLU", "LegendrePolynomial3", "Exp", "Cube", "Identity"])
@given(
    a=hnp.arrays(np.float64, hnp.array_shapes(max_dims=3, max_side=4), elements=st.floats(-2, 2))
)
def test_one_input_functions(torch, both, cls, a):
    (F_t, F_o) = both
    xt, xo = _pair(torch, a)
    yt, yo = F_t[cls].apply(xt), F_o[cls].apply(xo)
    _same(yo, yt)
    assert _name(yo.grad_fn) == _name(yt.grad_fn) == cls + "Backward"
    assert repr(yo.grad_fn).startswith(f"<tensorlab.autograd.function.{cls}Backward object at")
    g = np.random.default_rng(0).standard_normal(a.shape)
    yt.backward(torch.tensor(g))
    yo.backward(tl.tensor(g))
    _same(xo.grad, xt.grad)


@pytest.mark.oracle
def test_tutorial_legendre_fit(torch, both):
    """The tutorial's training loop (shortened): the same coefficients after 50 steps."""

    def fit(lib, F):
        x = lib.linspace(-3.14159, 3.14159, 200, dtype=lib.float64)
        y = lib.sin(x)
        a = lib.full((), 0.0, dtype=lib.float64, requires_grad=True)
        b = lib.full((), -1.0, dtype=lib.float64, requires_grad=True)
        c = lib.full((), 0.0, dtype=lib.float64, requires_grad=True)
        d = lib.full((), 0.3, dtype=lib.float64, requires_grad=True)
        for _ in range(50):
            P3 = F["LegendrePolynomial3"].apply
            y_pred = a + b * P3(c + d * x)
            loss = (y_pred - y).pow(2).sum()
            loss.backward()
            with lib.no_grad():
                for p in (a, b, c, d):
                    p -= 5e-6 * p.grad
                    p.grad = None
        return [float(p.detach()) for p in (a, b, c, d)]

    F_t, F_o = both
    np.testing.assert_allclose(fit(tl, F_o), fit(torch, F_t), rtol=1e-10, atol=1e-15)


@pytest.mark.oracle
def test_print_and_next_functions(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0, -2.0], "float32")
    yt, yo = F_t["Exp"].apply(xt), F_o["Exp"].apply(xo)
    assert repr(yo) == repr(yt).replace("torch", "tensorlab")  # grad_fn=<ExpBackward>
    mask = re.compile(r"0x[0-9a-f]+")
    assert mask.sub("0x", repr(yo.grad_fn.next_functions)) == mask.sub(
        "0x", repr(yt.grad_fn.next_functions)
    )
    assert mask.sub("0x", repr(yo.grad_fn.next_functions)) == (
        "((<AccumulateGrad object at 0x>, 0),)"
    )
    assert yo.grad_fn.needs_input_grad == yt.grad_fn.needs_input_grad == (True,)


@pytest.mark.oracle
def test_non_tensor_input_and_setup_context(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [[1.0, 2.0], [3.0, -4.0]])
    yt, yo = F_t["MulConstant"].apply(xt, 2.5), F_o["MulConstant"].apply(xo, 2.5)
    _same(yo, yt)
    assert len(yo.grad_fn.next_functions) == len(yt.grad_fn.next_functions)
    assert yo.grad_fn.constant == 2.5
    yt.sum().backward()
    yo.sum().backward()
    _same(xo.grad, xt.grad)


@pytest.mark.oracle
def test_needs_input_grad(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0])
    yt = F_t["MulConstant"].apply(xt, 2.0)
    yo = F_o["MulConstant"].apply(xo, 2.0)
    assert yo.grad_fn.needs_input_grad == yt.grad_fn.needs_input_grad == (True, False)


@pytest.mark.oracle
def test_mark_dirty(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0, -2.0, 3.0])
    zt, zo = xt.clone(), xo.clone()
    wt, wo = F_t["Double_"].apply(zt), F_o["Double_"].apply(zo)
    assert (wo is zo) and (wt is zt)
    assert zo._version == zt._version
    assert _name(zo.grad_fn) == _name(zt.grad_fn) == "Double_Backward"
    (wt * wt).sum().backward()
    (wo * wo).sum().backward()
    _same(xo.grad, xt.grad)
    # a leaf that requires grad cannot be modified in place
    lt, lo = _pair(torch, [1.0])
    raises_same(lambda: F_o["Double_"].apply(lo), lambda: F_t["Double_"].apply(lt))


@pytest.mark.oracle
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_saved_tensor_modified_in_place(torch, both, dtype):
    F_t, F_o = both
    xt, xo = _pair(torch, [0.5, 1.0, 2.0], dtype)
    yt, yo = F_t["Exp"].apply(xt), F_o["Exp"].apply(xo)
    with torch.no_grad():
        yt.add_(1)
    with tl.no_grad():
        yo.add_(1)
    raises_same(lambda: yo.sum().backward(), lambda: yt.sum().backward())
    # a saved input
    xt, xo = _pair(torch, [0.5, -1.0], dtype)
    at, ao = xt * 1, xo * 1
    yt, yo = F_t["MyReLU"].apply(at), F_o["MyReLU"].apply(ao)
    with torch.no_grad():
        at.mul_(2)
    with tl.no_grad():
        ao.mul_(2)
    raises_same(lambda: yo.sum().backward(), lambda: yt.sum().backward())


@pytest.mark.oracle
def test_saved_tensors_freed_after_backward(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [0.5, 1.0])
    yt, yo = F_t["Exp"].apply(xt), F_o["Exp"].apply(xo)
    yt.sum().backward()
    yo.sum().backward()
    raises_same(lambda: yo.grad_fn.saved_tensors, lambda: yt.grad_fn.saved_tensors)
    raises_same(lambda: yo.sum().backward(), lambda: yt.sum().backward())


@pytest.mark.oracle
def test_non_differentiable_and_non_tensor_outputs(torch, both, capsys):
    F_t, F_o = both
    xt, xo = _pair(torch, [3.0, -1.0, 2.0])
    vt, it, nt = F_t["SortWithIdx"].apply(xt)
    vo, io, no = F_o["SortWithIdx"].apply(xo)
    assert no == nt == 7
    assert io.requires_grad is it.requires_grad is False
    assert io.tolist() == it.tolist()
    _same(vo, vt)
    g = np.array([1.0, 10.0, 100.0])
    vt.backward(torch.tensor(g))
    vo.backward(tl.tensor(g))
    _same(xo.grad, xt.grad)


@pytest.mark.oracle
def test_materialize_grads_off(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0, 2.0])
    at, bt = F_t["Split"].apply(xt)
    ao, bo = F_o["Split"].apply(xo)
    at.sum().backward()
    ao.sum().backward()
    assert ao.grad_fn.seen == at.grad_fn.seen == (False, True)
    _same(xo.grad, xt.grad)
    xt.grad = xo.grad = None
    at, bt = F_t["Split"].apply(xt)
    ao, bo = F_o["Split"].apply(xo)
    (at.sum() + 5 * bt.sum()).backward()
    (ao.sum() + 5 * bo.sum()).backward()
    _same(xo.grad, xt.grad)


@pytest.mark.oracle
@pytest.mark.parametrize("cls", ["TooMany", "WrongShape", "ExtraNones", "Broadcast"])
def test_errors_of_backward(torch, both, cls):
    F_t, F_o = both
    xt, xo = _pair(torch, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def run(F, x):
        F[cls].apply(x).sum().backward()
        return x.grad

    ours, theirs = raises_same(lambda: run(F_o, xo), lambda: run(F_t, xt))
    if ours is not None:
        _same(ours, theirs)


@pytest.mark.oracle
def test_gradient_for_a_number_input(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0, 2.0])
    raises_same(
        lambda: F_o["GradForNumber"].apply(xo, 3).sum().backward(),
        lambda: F_t["GradForNumber"].apply(xt, 3).sum().backward(),
    )


@pytest.mark.oracle
def test_no_grad_and_no_input_requiring_grad(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [1.0, 2.0], grad=False)
    yt, yo = F_t["Exp"].apply(xt), F_o["Exp"].apply(xo)
    assert yo.grad_fn is None and yt.grad_fn is None
    xt, xo = _pair(torch, [1.0, 2.0])
    with torch.no_grad():
        yt = F_t["Exp"].apply(xt)
    with tl.no_grad():
        yo = F_o["Exp"].apply(xo)
    assert yo.requires_grad is yt.requires_grad is False


@pytest.mark.oracle
def test_double_backward_through_a_custom_function(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [0.5, -1.5, 2.0])
    (gt,) = torch.autograd.grad(F_t["Cube"].apply(xt).sum(), xt, create_graph=True)
    (go,) = tl.autograd.grad(F_o["Cube"].apply(xo).sum(), xo, create_graph=True)
    _same(go, gt)
    (ht,) = torch.autograd.grad(gt.sum(), xt)
    (ho,) = tl.autograd.grad(go.sum(), xo)
    _same(ho, ht)
    np.testing.assert_allclose(ho.numpy(), 6 * np.array([0.5, -1.5, 2.0]))


@pytest.mark.oracle
def test_once_differentiable_refuses_a_second_derivative(torch, both):
    F_t, F_o = both
    xt, xo = _pair(torch, [0.5, -1.5])
    vt, vo = torch.ones(2, dtype=torch.float64), tl.ones(2, dtype=tl.float64)
    vt.requires_grad_()
    vo.requires_grad_()
    (gt,) = torch.autograd.grad(F_t["CubeOnce"].apply(xt), xt, vt, create_graph=True)
    (go,) = tl.autograd.grad(F_o["CubeOnce"].apply(xo), xo, vo, create_graph=True)
    _same(go, gt)
    assert go.requires_grad and gt.requires_grad
    raises_same(lambda: go.sum().backward(), lambda: gt.sum().backward())


def test_instantiating_and_calling_are_refused():
    class F(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        f = F()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
        f(tl.ones(1))
    x = tl.ones(1, requires_grad=True)
    with pytest.raises(NotImplementedError, match="implement either the backward or vjp"):
        F.apply(x).sum().backward()


def test_a_dirty_view_is_refused_clearly():
    class Double_(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    base = tl.ones(4, requires_grad=True).clone()
    with pytest.raises(NotImplementedError, match="marks a view as dirty"):
        Double_.apply(base[:2])


@pytest.mark.oracle
def test_keywords_integer_outputs_and_save_errors(torch):
    def run(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k=2.0):
                return x * k

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        class ToLong(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.long()

            @staticmethod
            def backward(ctx, g):
                return g

        class SavesANumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None, 3)
                return x

        x = lib.ones(2, requires_grad=True)
        z = ToLong.apply(x)
        out = [repr(F.apply(x, k=3.0)), repr(F.apply(x)), repr(z), z.requires_grad, z.grad_fn]
        try:
            SavesANumber.apply(x)
        except TypeError as e:
            out.append(str(e))
        return [str(o).replace("torch", "tensorlab") for o in out]

    assert run(tl) == run(torch)


def test_grad_of_an_output_of_a_several_output_function_refuses_clearly():
    """(Hooks and retain_grad() on such an output work: test_hooks_several_outputs.py.)"""

    class Split(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2 + gb * 3

    x = tl.ones(2, requires_grad=True)
    a, b = Split.apply(x)
    with pytest.raises(NotImplementedError, match="several outputs"):
        tl.autograd.grad(a.sum(), b)
