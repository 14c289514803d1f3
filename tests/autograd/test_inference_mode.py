"""``inference_mode`` against torch 2.13: the context manager and the decorator (with and without
parentheses, ``mode=False``), nesting with ``no_grad``, ``is_inference()`` of what is made inside
(and of views and detaches), and torch's errors when an inference tensor meets autograd or an
in-place write outside the mode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl


def _state(lib):
    return (lib.is_grad_enabled(), lib.is_inference_mode_enabled())


def _outcome(lib, code, env):
    try:
        return "ok", eval(code, {"lib": lib, **env})
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("tensorlab.", "torch.")


def _env(lib):
    with lib.inference_mode():
        x = lib.ones(3)
        v = x[:2]
        n = lib.ones(3)
    w = lib.ones(3, requires_grad=True)
    lin = lib.nn.Linear(3, 2)
    return {"x": x, "v": v, "w": w, "lin": lin, "F": lib.nn.functional, "n": n}


@pytest.mark.parametrize(
    "code",
    [
        "x.is_inference()",
        "v.is_inference()",
        "x.detach().is_inference()",
        "(x + 1).is_inference()",
        "(x + 1).requires_grad",
        "lib.is_inference(x)",
        "w.is_inference()",
        "x.requires_grad_()",
        "x.requires_grad_(False).is_inference()",
        "setattr(x, 'requires_grad', True)",
        "x.add_(1)",
        "v.mul_(2)",
        "x.zero_()",
        "x.__setitem__(0, 5.0)",
        "x._version",
        "(w * x).sum()",
        "(w + x).sum().backward() or w.grad.tolist()",
        "F.linear(x.view(1, 3), w.view(1, 3))",
        "lin(x).sum()",
        "lin(x.clone()).sum().backward() or lin.weight.grad.tolist()",
        "x.clone().is_inference()",
        "x.clone().add_(1).tolist()",
        "(x * 2).tolist()",
        "lin(x).requires_grad",
    ],
)
def test_inference_tensors_outside_the_mode_match_torch(torch, code):
    assert _outcome(tl, code, _env(tl)) == _outcome(torch, code, _env(torch))


def _inside(lib):
    out = []
    n = lib.ones(3)
    w = lib.ones(3, requires_grad=True)
    lin = lib.nn.Linear(3, 2)
    with lib.inference_mode():
        out.append(_state(lib))
        y = lin(n)
        out.append((y.requires_grad, y.is_inference(), y.grad_fn is None))
        nv = n[:2]
        out.append(nv.is_inference())  # a view of a normal tensor stays normal
        n.add_(1)
        out.append(n._version)
        t = lib.ones(2)
        t.mul_(3)  # in place on an inference tensor, inside: allowed
        t.requires_grad_()
        out.append((t.tolist(), t.requires_grad))
        out.append(((w * 2).requires_grad, (w * 2).is_inference()))
        with lib.inference_mode(False):
            out.append((_state(lib), lib.ones(1).is_inference(), (w * 2).requires_grad))
        with lib.no_grad():
            out.append(_state(lib))
        with lib.enable_grad():
            out.append((_state(lib), lib.ones(1).is_inference()))
        out.append(_state(lib))
    out.append(_state(lib))
    with lib.no_grad():
        with lib.inference_mode(False):
            out.append(_state(lib))
        out.append(_state(lib))
    return out


def test_modes_nest_as_in_torch(torch):
    assert _inside(tl) == _inside(torch)


def test_decorator_forms_match_torch(torch):
    def run(lib):
        w = lib.ones(2, requires_grad=True)

        @lib.inference_mode
        def bare(a):
            return a * 2, _state(lib)

        @lib.inference_mode()
        def called(a):
            return a * 2, _state(lib)

        @lib.inference_mode(mode=False)
        def off(a):
            return a * 2, _state(lib)

        @lib.autograd.inference_mode(False)
        def off2(a):
            return a * 2

        res = []
        for f in (bare, called, off):
            y, st_ = f(w)
            res.append((y.is_inference(), y.requires_grad, st_))
        res.append((off2(w).requires_grad, bare.__name__, _state(lib)))
        ctx = lib.inference_mode()
        res.append((type(ctx.clone()).__name__, ctx.clone().mode))
        return res

    assert run(tl) == run(torch)


def test_exception_inside_restores_everything(torch):
    plain_init = tl.Tensor.__init__
    with pytest.raises(ValueError):
        with tl.inference_mode():
            raise ValueError
    assert _state(tl) == (True, False)
    assert not tl.ones(1).is_inference()
    with tl.inference_mode():
        assert tl.Tensor.__init__ is not plain_init
    assert tl.Tensor.__init__ is plain_init  # nothing added to tensor creation outside the mode


@settings(max_examples=25)
@given(
    x=hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
        elements=st.floats(-3, 3, width=32),
    ),
    op=st.sampled_from(["relu", "sum", "t", "softmax", "square", "flatten", "unsqueeze"]),
)
def test_results_are_no_grad_results_marked_inference(torch, x, op):
    def run(lib):
        a = lib.tensor(x, requires_grad=True)
        f = {
            "relu": lambda t: lib.relu(t * 2),
            "sum": lambda t: t.sum(-1),
            "t": lambda t: t.mT if t.dim() > 1 else t,
            "softmax": lambda t: lib.softmax(t, -1),
            "square": lambda t: t.square(),
            "flatten": lambda t: t.flatten(),
            "unsqueeze": lambda t: t.unsqueeze(0),
        }[op]
        with lib.inference_mode():
            y = f(a)
        return y.detach().numpy().tolist(), y.is_inference(), y.requires_grad, a.is_inference()

    ours, theirs = run(tl), run(torch)
    assert ours[1:] == theirs[1:]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)


def test_public_names(torch):
    from tensorlab.autograd import grad_mode

    assert tl.inference_mode is tl.autograd.inference_mode is grad_mode.inference_mode
    assert tl.is_inference_mode_enabled is grad_mode.is_inference_mode_enabled
    assert tl.inference_mode.__module__ == torch.inference_mode.__module__.replace(
        "torch", "tensorlab"
    )
