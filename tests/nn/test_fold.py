"""F.unfold / F.fold / nn.Unfold / nn.Fold against torch 2.13: values, layout, errors, autograd."""

from __future__ import annotations

import numpy as np
import pytest
from conv_layouts import LAYOUTS, strided
from helpers import assert_same, raises_same, to_torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F


def _maybe_pair(draw, lo, hi):
    a, b = draw(st.integers(lo, hi)), draw(st.integers(lo, hi))
    return draw(st.sampled_from([a, (a, b), [a, b]]))


@st.composite
def unfold_cases(draw, valid=True):
    lo = 1 if valid else -1
    return dict(
        shape=tuple(
            ([] if draw(st.booleans()) else [draw(st.integers(0 if not valid else 1, 3))])
            + [draw(st.integers(1, 3)), draw(st.integers(1, 7)), draw(st.integers(1, 7))]
        ),
        kernel=_maybe_pair(draw, 0 if not valid else 1, 3),
        dilation=_maybe_pair(draw, 0 if not valid else 1, 2),
        padding=_maybe_pair(draw, lo - 1 if not valid else 0, 2),
        stride=_maybe_pair(draw, 0 if not valid else 1, 3),
        layout=draw(st.sampled_from(LAYOUTS)),
        dtype=draw(st.sampled_from(["float32", "float64", "float16", "bool", "int64"])),
        seed=draw(st.integers(0, 2**16)),
    )


def _array(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    return (a > 0) if dtype == "bool" else a.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(unfold_cases(valid=False))
def test_unfold_matches_torch(torch, case):
    x = strided(_array(case["shape"], case["dtype"], case["seed"]), case["layout"])
    args = (case["kernel"], case["dilation"], case["padding"], case["stride"])
    ours, theirs = raises_same(
        lambda: F.unfold(x, *args), lambda: torch.nn.functional.unfold(to_torch(torch, x), *args)
    )
    if theirs is not None:
        assert_same(ours, theirs)


@settings(max_examples=60, deadline=None)
@given(unfold_cases(valid=True), st.data())
def test_fold_matches_torch(torch, case, data):
    """fold of a random (N, C*k*k, L) with L the right block count (or a wrong one, sometimes)."""
    n_c_h_w = case["shape"]
    k, d, p, s = (
        (v, v) if isinstance(v, int) else tuple(v)
        for v in (case["kernel"], case["dilation"], case["padding"], case["stride"])
    )
    h, w = n_c_h_w[-2:]
    blocks = [(h + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i, h in enumerate((h, w))]
    length = blocks[0] * blocks[1] + data.draw(st.sampled_from([0, 0, 0, 1, -1]))
    planes = n_c_h_w[-3] * k[0] * k[1] + data.draw(st.sampled_from([0, 0, 0, 1]))
    shape = n_c_h_w[:-3] + (planes, max(length, 0))
    x = strided(_array(shape, case["dtype"], case["seed"]), case["layout"])
    args = ((h, w), case["kernel"], case["dilation"], case["padding"], case["stride"])
    ours, theirs = raises_same(
        lambda: F.fold(x, *args), lambda: torch.nn.functional.fold(to_torch(torch, x), *args)
    )
    if theirs is not None:
        assert_same(ours, theirs, exact=case["dtype"] != "float16", rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.unfold(x, 2.5),
        lambda F, x: F.unfold(x, "a"),
        lambda F, x: F.unfold(x, (2, 3, 4)),
        lambda F, x: F.unfold(x, (2,)),
        lambda F, x: F.unfold(x, 2, (1, 2, 3)),
        lambda F, x: F.unfold(x, 2, 1, (1, 2, 3)),
        lambda F, x: F.unfold(x, 2, 1, 0, (1, 2, 3)),
        lambda F, x: F.unfold(x, (2, 1.0)),
        lambda F, x: F.unfold(x, 9),
        lambda F, x: F.unfold(x[0, 0], 2),
        lambda F, x: F.unfold(x[None], 2),
        lambda F, x: F.unfold([1.0], 2),
        lambda F, x: F.unfold(x, 0, dilation=0, padding=-1, stride=0),
        lambda F, x: F.unfold(x, 1, dilation=0, padding=-1, stride=0),
        lambda F, x: F.unfold(x, 1, dilation=1, padding=-1, stride=0),
        lambda F, x: F.fold(x[0], (5, 6), 2),
        lambda F, x: F.fold(x[0, 0], (5, 6, 7), (1, 2, 3)),
        lambda F, x: F.fold(x[0, 0], (5, 6), (1, 2, 3)),
        lambda F, x: F.fold(x[0, 0], (5,), 2),
        lambda F, x: F.fold(x[0, 0], 5, 0, dilation=0, padding=-1, stride=0),
        lambda F, x: F.fold(x[0, 0], 5, 1, dilation=0, padding=-1, stride=0),
        lambda F, x: F.fold(x[0, 0], 5, 1, dilation=0, padding=-1, stride=1),
        lambda F, x: F.fold(x[0, 0], 5, 1, dilation=1, padding=-1, stride=1),
        lambda F, x: F.fold([1.0], 5, 1),
        lambda F, x: F.fold(x[0, :1, :1], (1, 1), 3),  # (-1) * (-1) blocks: "too small"
        lambda F, x: F.fold(x[0, :4, :1], (1, 1), 2, padding=1),
    ],
)
def test_fold_unfold_errors(torch, call):
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype(np.float32)
    raises_same(
        lambda: call(F, tl.from_numpy(x)), lambda: call(torch.nn.functional, torch.from_numpy(x))
    )


@settings(max_examples=40, deadline=None)
@given(unfold_cases(valid=True))
def test_unfold_fold_gradients_match_torch(torch, case):
    shape = case["shape"]
    x = _array(shape, "float64", case["seed"])
    args = (case["kernel"], case["dilation"], case["padding"], case["stride"])
    try:
        torch.nn.functional.unfold(torch.tensor(x), *args)
    except RuntimeError:
        assume(False)  # no sliding block fits: the error is tested above
    ours = tl.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    u, ut = F.unfold(ours, *args), torch.nn.functional.unfold(theirs, *args)
    assert type(u.grad_fn).__name__ == type(ut.grad_fn).__name__ == "Im2ColBackward0"
    g = np.random.default_rng(1).standard_normal(tuple(u.shape))
    u.backward(tl.tensor(g))
    ut.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad._np(), theirs.grad.numpy(), rtol=1e-12, atol=1e-12)
    # fold: its input is shaped like u
    c = tl.tensor(g, requires_grad=True)
    ct = torch.tensor(g, requires_grad=True)
    f, ft = F.fold(c, shape[-2:], *args), torch.nn.functional.fold(ct, shape[-2:], *args)
    assert type(f.grad_fn).__name__ == type(ft.grad_fn).__name__ == "Col2ImBackward0"
    np.testing.assert_allclose(f._np(), ft.detach().numpy(), rtol=1e-12, atol=1e-12)
    f.backward(tl.tensor(x))
    ft.backward(torch.tensor(x))
    np.testing.assert_allclose(c.grad._np(), ct.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_modules_repr_and_forward(torch):
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 6)).astype(np.float32)
    for ours, theirs in [
        (tl.nn.Unfold(2), torch.nn.Unfold(2)),
        (
            tl.nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
            torch.nn.Unfold((2, 3), dilation=2, padding=1, stride=(1, 2)),
        ),
    ]:
        assert repr(ours) == repr(theirs)
        assert_same(ours(tl.from_numpy(x)), theirs(torch.from_numpy(x)))
    fold, tfold = tl.nn.Fold((5, 6), 2, padding=1), torch.nn.Fold((5, 6), 2, padding=1)
    assert repr(fold) == repr(tfold)
    assert repr(tl.nn.Fold(3, 2, 1, 0, 1)) == repr(torch.nn.Fold(3, 2, 1, 0, 1))
    c = np.random.default_rng(1).standard_normal((2, 12, 42)).astype(np.float32)
    assert_same(fold(tl.from_numpy(c)), tfold(torch.from_numpy(c)))


def test_fold_of_unfold_counts_the_blocks_covering_each_pixel(torch):
    """The course's point: fold is the adjoint of unfold, not its inverse."""
    ones = tl.ones(1, 1, 4, 4)
    counts = F.fold(F.unfold(ones, 2), (4, 4), 2)
    ref = torch.nn.functional.fold(torch.nn.functional.unfold(torch.ones(1, 1, 4, 4), 2), (4, 4), 2)
    assert_same(counts, ref)
