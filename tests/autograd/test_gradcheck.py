"""``autograd.gradcheck`` / ``gradgradcheck`` against torch 2.13: the verdict on correct and wrong
gradients (built-in ops and custom Functions, slow and fast mode), torch's defaults and
tolerances, the exact error messages (Jacobians printed as torch prints them), the warnings,
``raise_exception=False``, and the random numbers they draw from the global generator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl


def _fns(lib):
    Function = lib.autograd.Function

    class Triple(Function):  # right
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    class WrongTriple(Function):  # backward off by one
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Ignores(Function):  # backward ignores grad_output
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return lib.ones_like(g) * 3

    class Flaky(Function):  # a different result each backward
        calls = 0

        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            Flaky.calls += 1
            return g * (3 + 1e-7 * (Flaky.calls % 3))

    class Cube(Function):  # first derivative right, second wrong (backward not differentiable)
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2

    return {
        "Triple": Triple.apply,
        "WrongTriple": WrongTriple.apply,
        "Ignores": Ignores.apply,
        "Flaky": Flaky.apply,
        "Cube": Cube.apply,
        "sin_mul": lambda x: x.sin() * x,
        "two_inputs": lambda x, y: (x * y).sum(0) + y.exp(),
        "two_outputs": lambda x: (x.tanh(), (x * x).sum()),
        "detached": lambda x: x.detach() * 2,
        "softmax": lambda x: lib.softmax(x, -1),
        "mm": lambda x: x @ x.T,
        "off": lambda x: x * 3 + (x.detach() * 1e-2),
    }


def _inputs(lib, values, n=1, dtype="float64"):
    return tuple(
        lib.tensor(np.asarray(values) + i, dtype=getattr(lib, dtype), requires_grad=True)
        for i in range(n)
    )


def _call(lib, fn, values, check="gradcheck", n=1, seed=0, **kw):
    lib.manual_seed(seed)
    f = _fns(lib)[fn]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib.autograd, check)(f, _inputs(lib, values, n), **kw)


SMOOTH = ["Triple", "sin_mul", "softmax", "two_outputs"]


@settings(max_examples=25)
@given(
    x=hnp.arrays(
        np.float64, hnp.array_shapes(min_dims=1, max_dims=2, max_side=4), elements=st.floats(-2, 2)
    ),
    fn=st.sampled_from(SMOOTH),
    fast=st.booleans(),
)
def test_correct_gradients_pass_as_in_torch(torch, x, fn, fast):
    ours = _call(tl, fn, x, fast_mode=fast)
    theirs = _call(torch, fn, x, fast_mode=fast)
    assert ours is theirs is True


@settings(max_examples=15)
@given(
    x=hnp.arrays(np.float64, st.integers(1, 4), elements=st.floats(-2, 2)),
    fn=st.sampled_from(["sin_mul", "softmax", "Triple"]),
)
def test_gradgradcheck_passes_as_in_torch(torch, x, fn):
    assert _call(tl, fn, x, "gradgradcheck") is _call(torch, fn, x, "gradgradcheck") is True


def _outcome(lib, fn, values, check, n, kw):
    """The result, or the exception's type and message read with torch's names."""
    try:
        return _call(lib, fn, values, check, n=n, **kw)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).replace("tensorlab.", "torch.")


@pytest.mark.parametrize(
    "fn, values, check, kw",
    [
        ("WrongTriple", [1.0, 2.0], "gradcheck", {}),
        ("WrongTriple", [[1.0, 2.0], [0.5, -1.0]], "gradcheck", {}),
        ("Ignores", [1.0], "gradcheck", {}),
        ("Flaky", [1.0, 2.0], "gradcheck", {}),
        ("Cube", [1.0, 2.0], "gradgradcheck", {}),
        ("detached", [1.0, 2.0], "gradcheck", {}),
        ("off", [1.0, 2.0], "gradcheck", {}),
        ("off", [1.0, 2.0], "gradcheck", {"atol": 0.05}),
        ("off", [1.0, 2.0], "gradcheck", {"rtol": 0.0, "atol": 1e-3}),
        ("off", [1.0, 2.0], "gradcheck", {"eps": 1e-3}),
        ("Flaky", [1.0, 2.0], "gradcheck", {"nondet_tol": 1e-6}),
        ("WrongTriple", [1.0], "gradcheck", {"fast_mode": True}),
        ("WrongTriple", [1.0, 2.0, 4.0], "gradcheck", {"fast_mode": True}),
        ("off", [1.0, 2.0], "gradcheck", {"fast_mode": True}),
        ("Cube", [1.0, 2.0], "gradgradcheck", {"fast_mode": True}),
        ("Triple", [1.0, 2.0], "gradcheck", {"check_backward_ad": False}),
        ("Triple", [1.0], "gradgradcheck", {"check_rev_over_rev": False}),
        ("two_inputs", [[1.0, 2.0], [0.5, 0.25]], "gradcheck", {}),
        ("two_outputs", [1.0, -2.0], "gradgradcheck", {"gen_non_contig_grad_outputs": True}),
        ("mm", [[1.0, 2.0], [3.0, 4.0]], "gradgradcheck", {}),
    ],
)
def test_verdicts_and_errors_match_torch(torch, fn, values, check, kw):
    """The same result, or the same exception type and message (Jacobians printed)."""
    n = 2 if fn == "two_inputs" else 1
    assert _outcome(tl, fn, values, check, n, kw) == _outcome(torch, fn, values, check, n, kw)
    if kw.get("check_backward_ad", True) and kw.get("check_rev_over_rev", True):
        ours = _call(tl, fn, values, check, n=n, raise_exception=False, **kw)
        assert ours == _call(torch, fn, values, check, n=n, raise_exception=False, **kw)


def test_wrong_gradient_message_text(torch):
    """The message a learner sees, spelled out (tensorlab's own printing)."""
    from tensorlab.autograd.gradcheck import GradcheckError

    with pytest.raises(GradcheckError) as err:
        _call(tl, "WrongTriple", [1.0, 2.0])
    assert str(err.value) == (
        "Jacobian mismatch for output 0 with respect to input 0,\n"
        "numerical:tensor([[3.0000, 0.0000],\n        [0.0000, 3.0000]], dtype=tensorlab.float64)\n"
        "analytical:tensor([[2., 0.],\n        [0., 2.]], dtype=tensorlab.float64)\n"
    )
    assert issubclass(GradcheckError, RuntimeError) and err.type is GradcheckError
    assert _call(tl, "WrongTriple", [1.0], raise_exception=False) is False


def _warnings(lib, code):
    p = lib.ones(3, requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            exec(code, {"lib": lib, "p": p, "f": _fns(lib)})
        except Exception as e:  # noqa: BLE001
            out = type(e).__name__, str(e).replace("torch.", "tensorlab.")
        else:
            out = None
    return out, [(m.category.__name__, str(m.message)) for m in w]


@pytest.mark.parametrize(
    "code",
    [
        "lib.autograd.gradcheck(f['sin_mul'], (p,))",  # float32: warns, passes within tolerance?
        "lib.autograd.gradcheck(f['sin_mul'], (p.detach(),))",
        "lib.autograd.gradcheck(f['sin_mul'], (lib.ones(1, dtype=lib.float64, requires_grad=True).expand(3),))",
        "lib.autograd.gradcheck(f['sin_mul'], p.double().detach().requires_grad_())",
        "lib.autograd.gradcheck(f['Triple'], [p.double().detach().requires_grad_(), 3])",
        "lib.autograd.gradcheck(f['Triple'], (p.double().detach().requires_grad_(),), check_backward_ad=False)",
        "lib.autograd.gradcheck(f['Triple'], (p.double(),), check_batched_grad=True, check_backward_ad=False, check_forward_ad=True)",
        "lib.autograd.gradcheck(f['Triple'], (p.double(),), check_batched_forward_grad=True)",
        "lib.autograd.gradgradcheck(f['Triple'], (p.double(),), check_rev_over_rev=False)",
        "lib.autograd.gradgradcheck(f['Triple'], (p.double(),), check_batched_grad=True, check_undefined_grad=False, check_rev_over_rev=False, check_fwd_over_rev=True)",
    ],
)
def test_input_checks_and_warnings_match_torch(torch, code):
    ours, theirs = _warnings(tl, code), _warnings(torch, code)
    assert ours == theirs


def test_random_numbers_drawn_as_in_torch(torch):
    """gradgradcheck's grad_outputs and check_batched_grad's vectors come from the global
    generator: the next random numbers match torch's."""

    def run(lib):
        lib.manual_seed(7)
        x = lib.tensor([0.5, 1.5, -1.0], dtype=lib.float64, requires_grad=True)
        lib.autograd.gradgradcheck(lambda a: a.sin() * a, (x,), check_batched_grad=True)
        lib.autograd.gradcheck(lambda a: (a.tanh(), a.exp()), (x,), check_batched_grad=True)
        return lib.rand(4).tolist()

    assert run(tl) == run(torch)


def test_public_names(torch):
    import sys

    gc = sys.modules["tensorlab.autograd.gradcheck"]

    assert tl.autograd.gradcheck is gc.gradcheck and tl.autograd.gradgradcheck is gc.gradgradcheck
    assert sorted(gc.__all__) == sorted(["gradcheck", "gradgradcheck", "GradcheckError"])
    import inspect

    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(tl.autograd, name))
        theirs = inspect.signature(getattr(torch.autograd, name))
        assert [(p.name, p.default) for p in ours.parameters.values()] == [
            (p.name, p.default) for p in theirs.parameters.values()
        ]


def test_forward_mode_checks_say_tensorlab_has_no_forward_ad():
    x = tl.ones(2, dtype=tl.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="no forward-mode AD: check_forward_ad"):
        tl.autograd.gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)
    with pytest.raises(NotImplementedError, match="check_fwd_over_rev"):
        tl.autograd.gradgradcheck(lambda a: a * 2, (x,), check_fwd_over_rev=True)
