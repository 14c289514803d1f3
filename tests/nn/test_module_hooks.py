"""``nn.Module`` hooks against torch 2.13: forward pre-hooks and forward hooks (``prepend``,
``with_kwargs``, ``always_call``, replacing args and outputs, removable handles), the global
``nn.modules.module.register_module_*`` variants, and full backward (pre-)hooks: what each
hook sees, what a returned value replaces, the errors and the warning torch gives.

Every scenario is one function run on both libraries (``lib`` is ``tensorlab`` or ``torch``);
the test compares what the two recorded."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl


def _plain(x):
    """A comparable form of what a hook saw: tensors as (shape, values), tuples recursively."""
    if isinstance(x, (tuple, list)):
        return tuple(_plain(v) for v in x)
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if hasattr(x, "detach") and hasattr(x, "shape"):
        return ("tensor", tuple(x.shape), np.round(x.detach().numpy().astype(np.float64), 4))
    return x


def _same(a, b):
    a, b = _plain(a), _plain(b)
    assert _eq(a, b), (a, b)


def _eq(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_eq(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.allclose(a, b, rtol=1e-4, atol=1e-4)
    return a == b


def both(torch, scenario):
    """``scenario(lib)`` for tensorlab and torch (each seeded the same), both results."""
    out = []
    for lib in (tl, torch):
        lib.manual_seed(0)
        out.append(scenario(lib))
    return out


def test_forward_hooks_see_and_replace_like_torch(torch):
    def scenario(lib):
        seen = []
        m = lib.nn.Linear(3, 2)
        m.register_forward_pre_hook(lambda mod, args: seen.append(("pre", _plain(args))))
        m.register_forward_pre_hook(lambda mod, args: args[0] * 2)  # not a tuple: wrapped
        m.register_forward_hook(lambda mod, args, out: seen.append(("post", _plain(out))))
        m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(
            lambda mod, args, out: seen.append(("first", type(mod).__name__)), prepend=True
        )
        x = lib.arange(6.0).view(2, 3)
        y = m(x)
        return seen, _plain(y)

    _same(*both(torch, scenario))


def test_forward_hooks_with_kwargs_and_their_errors(torch):
    class Scale(tl.nn.Module):
        def forward(self, x, *, k=1.0):
            return x * k

    import torch.nn as tnn

    class TScale(tnn.Module):
        def forward(self, x, *, k=1.0):
            return x * k

    def scenario(lib):
        m = (Scale if lib is tl else TScale)()
        seen = []
        m.register_forward_pre_hook(
            lambda mod, args, kwargs: (args, {"k": kwargs.get("k", 1.0) + 1}), with_kwargs=True
        )
        m.register_forward_hook(
            lambda mod, args, kwargs, out: seen.append(dict(kwargs)), with_kwargs=True
        )
        y = m(lib.ones(2), k=2.0)
        bad = (Scale if lib is tl else TScale)()
        bad.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        return seen, _plain(y), bad

    (seen_a, y_a, bad_a), (seen_b, y_b, bad_b) = both(torch, scenario)
    assert seen_a == seen_b == [{"k": 3.0}]
    _same(y_a, y_b)
    raises_same(lambda: bad_a(tl.ones(2)), lambda: bad_b(torch.ones(2)))


def test_handles_remove_hooks_and_their_flags(torch):
    def scenario(lib):
        calls = []
        m = lib.nn.ReLU()
        h1 = m.register_forward_hook(lambda *a: calls.append("a"), with_kwargs=False)
        h2 = m.register_forward_hook(lambda mod, a, k, o: calls.append("b"), with_kwargs=True)
        with m.register_forward_pre_hook(lambda *a: calls.append("pre")):
            m(lib.ones(1))
        m(lib.ones(1))
        h1.remove()
        h1.remove()  # twice is fine
        m(lib.ones(1))
        h2.remove()
        m(lib.ones(1))
        return calls, len(m._forward_hooks), len(m._forward_hooks_with_kwargs), h1.id < h2.id

    a, b = both(torch, scenario)
    assert a == b


def test_always_call_hooks_run_when_forward_raises(torch):
    def scenario(lib):
        calls = []
        m = lib.nn.Linear(3, 2)
        m.register_forward_hook(lambda mod, a, o: calls.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, a, o: calls.append("never"))
        try:
            m(lib.ones(4))
        except RuntimeError as e:
            calls.append(type(e).__name__)
        return calls

    a, b = both(torch, scenario)
    assert a == b == [("always", None), "RuntimeError"]


def test_global_hooks_see_every_module(torch):
    import torch.nn.modules.module as tmod

    import tensorlab.nn.modules.module as lmod

    def scenario(lib):
        mod = lmod if lib is tl else tmod
        names = []
        m = lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.Flatten())
        h = mod.register_module_forward_hook(
            lambda module, args, out: names.append((type(module).__name__, tuple(out.shape)))
        )
        p = mod.register_module_forward_pre_hook(lambda module, args: names.append("pre"))
        try:
            m(lib.zeros(1, 1, 5, 5))
        finally:
            h.remove()
            p.remove()
        m(lib.zeros(1, 1, 5, 5))
        return names

    a, b = both(torch, scenario)
    assert a == b and len(a) == 8


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(1, 3),
    fin=st.integers(1, 4),
    fout=st.integers(1, 4),
    scale=st.sampled_from([None, 0.5, 3.0]),
)
def test_full_backward_hooks_see_and_replace_the_gradients(n, fin, fout, scale):
    from helpers import require_torch

    torch = require_torch()

    def scenario(lib):
        seen = []
        m = lib.nn.Linear(fin, fout)
        x = lib.randn(n, fin, requires_grad=True)

        def pre(mod, gout):
            seen.append(("pre", _plain(gout)))
            return None if scale is None else (gout[0] * scale,)

        def post(mod, gin, gout):
            seen.append(("post", _plain(gin), _plain(gout)))
            return None if scale is None else (gin[0] + 1,)

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(post)
        y = m(x)
        name = y.grad_fn.name()
        (y * lib.arange(float(n * fout)).view(n, fout)).sum().backward()
        return seen, _plain(x.grad), _plain(m.weight.grad), name

    _same(*both(torch, scenario))


def test_backward_hooks_when_no_input_requires_grad_warn_like_torch(torch):
    def scenario(lib):
        seen = []
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gin, gout: seen.append((gin, _plain(gout))))
        y = m(lib.ones(1, 2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y.sum().backward()
        bad = lib.nn.Linear(2, 2)
        bad.register_full_backward_hook(lambda mod, gin, gout: (lib.ones(1, 2),))
        return seen, [str(x.message).split(" See ")[0] for x in w], bad

    (seen_a, w_a, bad_a), (seen_b, w_b, bad_b) = both(torch, scenario)
    _same(seen_a, seen_b)
    assert seen_a[0][0] == (None,)
    assert w_a == w_b and w_a
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raises_same(
            lambda: bad_a(tl.ones(1, 2)).sum().backward(),
            lambda: bad_b(torch.ones(1, 2)).sum().backward(),
        )


def test_a_backward_hook_returning_the_wrong_number_of_gradients_raises_like_torch(torch):
    def make(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
        m.register_full_backward_pre_hook(lambda mod, gout: None)
        return m(lib.ones(1, 2, requires_grad=True)).sum()

    a, b = both(torch, make)
    raises_same(a.backward, b.backward)


def test_modules_without_hooks_have_empty_hook_dicts_and_plain_calls():
    m = tl.nn.Linear(2, 2)
    assert len(m._forward_hooks) == 0 and len(m._backward_pre_hooks) == 0
    y = m(tl.ones(1, 2, requires_grad=True))
    assert y.grad_fn.name() == "AddmmBackward0"
    with pytest.raises(AttributeError):
        m._no_such_hooks  # noqa: B018
