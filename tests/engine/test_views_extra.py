"""Tensor.unfold, diagonal, Tensor.storage() and the argument forms of the older view ops
(movedim, swapaxes, unbind, chunk, split, tensor_split, narrow, view_as, expand_as, select)
against the PyTorch oracle: values, strides, storage offsets, sharing, grad_fn names, gradients
and errors, on random strided inputs (transposed, sliced, expanded)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from strided_chains import apply, make_bases, view_chains

import tensorlab as tl


def shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _grad_check(torch, shape, ops, op, data):
    """Backward through ``op`` of a strided view of a leaf: same grad_fn name, same gradient."""
    ours, theirs = make_bases(torch, shape, requires_grad=True)
    r, tr = op(apply(ours, ops)), op(apply(theirs, ops))
    assert r.grad_fn.name() == tr.grad_fn.name()
    g = np.asarray(np.random.default_rng(data.draw(st.integers(0, 99))).standard_normal(tr.shape))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    assert_same(ours.grad, theirs.grad, layout=False, exact=False, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------- unfold
@settings(max_examples=60)
@given(chain=view_chains(min_dims=0), data=st.data())
def test_unfold_matches_torch(torch, chain, data):
    shape, ops = chain
    ours, theirs = make_bases(torch, shape)
    x, tx = apply(ours, ops), apply(theirs, ops)
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    size = data.draw(st.integers(-1, 5))
    step = data.draw(st.integers(-1, 3))
    r, tr = raises_same(lambda: x.unfold(dim, size, step), lambda: tx.unfold(dim, size, step))
    if r is None:
        return
    assert_same(r, tr)
    assert shares(r, ours) and r._base is ours
    if size > 0:  # windows of at least one element can be differentiated (and may overlap)
        _grad_check(torch, shape, ops, lambda t: t.unfold(dim, size, step), data)


def test_unfold_overlapping_windows_share_memory(torch):
    x = tl.arange(6.0)
    w = x.unfold(0, 3, 1)
    assert w.stride() == torch.arange(6.0).unfold(0, 3, 1).stride() == (1, 1)
    w[0, 2] = 100.0  # element 2: also window 1 position 1 and window 2 position 0
    assert w[1, 1].item() == w[2, 0].item() == x[2].item() == 100.0


def test_unfold_is_not_a_module_function(torch):
    assert not hasattr(torch, "unfold") and not hasattr(tl, "unfold")


# ----------------------------------------------------------------------------- diagonal
@settings(max_examples=60)
@given(chain=view_chains(min_dims=1, max_dims=4), data=st.data())
def test_diagonal_matches_torch(torch, chain, data):
    shape, ops = chain
    ours, theirs = make_bases(torch, shape)
    x, tx = apply(ours, ops), apply(theirs, ops)
    offset = data.draw(st.integers(-4, 4))
    d1 = data.draw(st.integers(-x.ndim - 1, x.ndim))
    d2 = data.draw(st.integers(-x.ndim - 1, x.ndim))
    r, tr = raises_same(lambda: x.diagonal(offset, d1, d2), lambda: tx.diagonal(offset, d1, d2))
    if r is None:
        return
    assert_same(r, tr)
    assert shares(r, ours)
    kw = {"offset": offset, "dim1": d1, "dim2": d2}
    assert_same(tl.diagonal(x, **kw), torch.diagonal(tx, **kw))
    _grad_check(torch, shape, ops, lambda t: t.diagonal(offset, d1, d2), data)


# ----------------------------------------------------------------------------- storage()
def test_storage_is_the_legacy_typed_view_and_warns_once(torch):
    import torch.storage as ts

    import tensorlab.storage as ls

    for mod in (ts, ls):
        mod._reset_warn_typed_storage_removal()
    x, tx = tl.arange(24.0).view(4, 6)[1:, 2:], torch.arange(24.0).view(4, 6)[1:, 2:]
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        s = x.storage()
        x.storage()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        tst = tx.storage()
        tx.storage()
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs]
    assert len(ours) == 1 and ours[0].category is UserWarning
    assert ours[0].filename == __file__  # points at the caller, as torch's
    assert len(s) == len(tst) == s.size() == 24
    assert s[3] == tst[3] and s[-1] == tst[-1] and s.tolist() == tst.tolist()
    assert s.data_ptr() == x.untyped_storage().data_ptr() != x.data_ptr()
    assert s.nbytes() == tst.nbytes() and s.element_size() == tst.element_size()
    assert s.untyped().nbytes() == tst.untyped().nbytes()
    assert isinstance(s, tl.TypedStorage) and isinstance(tst, torch.TypedStorage)
    assert s.type() == tst.type().replace("torch.", "tensorlab.")
    assert repr(s) == repr(tst).replace("torch.", "tensorlab.")
    raises_same(lambda: s[100], lambda: tst[100])
    raises_same(lambda: s[1:3], lambda: tst[1:3])
    s[0] = 100.0
    assert x._base[0].item() == 100.0  # writes go to the tensor's memory


@pytest.mark.parametrize(
    "make",
    [
        "torch.arange(3)",
        "torch.zeros(0)",
        "torch.tensor([True, False])",
        "torch.ones(2, 2, dtype=torch.float64) / 3",
    ],
)
def test_storage_repr_matches_torch(torch, make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = eval(make, {"torch": tl}).storage()
        theirs = eval(make, {"torch": torch}).storage()
    assert repr(ours) == repr(theirs).replace("torch.", "tensorlab.")


# ----------------------------------------------------------------------------- argument forms
FORMS = [
    "t.movedim(0, -1)",
    "t.movedim((0, 1), (2, 0))",
    "t.movedim([0, 1], [-1, -2])",
    "t.movedim((0, 0), (1, 2))",
    "t.movedim((0,), (1, 2))",
    "t.movedim(3, 0)",
    "t.moveaxis(-1, 0)",
    "torch.movedim(t, source=1, destination=0)",
    "torch.moveaxis(t, (1, 2), (0, 1))",
    "t.swapaxes(0, -1)",
    "t.swapdims(1, 2)",
    "torch.swapaxes(t, 0, 2)",
    "torch.swapdims(t, -1, -2)",
    "t.swapaxes(0, 3)",
    "t.unbind(-1)",
    "t.unbind(dim=1)",
    "torch.unbind(t, 2)",
    "t.unbind(3)",
    "t.chunk(2)",
    "t.chunk(3, -1)",
    "t.chunk(chunks=5, dim=2)",
    "t.chunk(0)",
    "torch.chunk(t, 2, 1)",
    "t.split(2)",
    "t.split(2, -1)",
    "t.split([1, 3], 1)",
    "t.split((2, 0, 2), dim=2)",
    "t.split([1, 1], 1)",
    "t.split(split_size=1, dim=0)",
    "torch.split(t, [1, 1], 0)",
    "torch.split(t, 3, dim=-1)",
    "t.tensor_split(3)",
    "t.tensor_split(3, -1)",
    "t.tensor_split([1, 3], 1)",
    "t.tensor_split((1, 3, 2), 2)",
    "t.tensor_split([-1, 10], 1)",
    "t.tensor_split(torch.tensor([1, 2]), 1)",
    "t.tensor_split(torch.tensor(2), 1)",
    "t.tensor_split(indices=[1], dim=0)",
    "t.tensor_split(sections=2, dim=1)",
    "t.tensor_split(tensor_indices_or_sections=torch.tensor([1]), dim=2)",
    "t.tensor_split(0)",
    "t.tensor_split(torch.tensor([1.0]))",
    "t.tensor_split(torch.tensor([[1]]))",
    "torch.tensor_split(t, 2, dim=-1)",
    "torch.tensor_split(t, [1, 2])",
    "t.narrow(-1, 1, 2)",
    "t.narrow(1, torch.tensor(1), 2)",
    "t.narrow(0, -2, 2)",
    "t.narrow(dim=2, start=0, length=3)",
    "torch.narrow(t, 1, 0, 4)",
    "t.narrow(1, 0, 5)",
    "t.select(-1, -1)",
    "t.select(dim=1, index=2)",
    "torch.select(t, 0, 1)",
    "t.select(1, torch.tensor(1))",
    "t.select(0, 2)",
    "t.view_as(t.reshape(4, 6))",
    "t.view_as(other=t.reshape(24))",
    "t.transpose(0, 2).view_as(t.reshape(24))",
    "t[:, :1].expand_as(t)",
    "t[:1].expand_as(other=t)",
    "t.expand_as(t[:1])",
]


def _eval(expr, lib, t):
    return eval(expr, {"torch": lib, "t": t})


@pytest.mark.parametrize("expr", FORMS)
def test_argument_forms_match_torch(torch, expr):
    x = tl.arange(24.0).view(4, 3, 2).permute(2, 1, 0)
    tx = torch.arange(24.0).view(4, 3, 2).permute(2, 1, 0)
    r, tr = raises_same(lambda: _eval(expr, tl, x), lambda: _eval(expr, torch, tx))
    if r is None:
        return
    if isinstance(tr, tuple):
        assert isinstance(r, tuple) and len(r) == len(tr)
        pairs = list(zip(r, tr))
    else:
        pairs = [(r, tr)]
    for a, b in pairs:
        assert_same(a, b)
        assert shares(a, x)


@pytest.mark.parametrize(
    "expr",
    [
        "t.movedim((0, 1), (2, 0))",
        "t.swapaxes(0, 2)",
        "t.unbind(1)[1]",
        "t.chunk(2, 2)[1]",
        "t.split([1, 3], 2)[1]",
        "t.split(2, 2)[0]",
        "t.tensor_split([1, 2], 1)[1]",
        "t.tensor_split(2, 0)[0]",
        "t.narrow(1, 1, 2)",
        "t.select(2, 1)",
        "t.view_as(t.reshape(4, 6))",
        "t[:1].expand_as(t)",
    ],
)
def test_argument_forms_grad_fn_names(torch, expr):
    x = tl.arange(24.0).view(2, 3, 4).requires_grad_()
    tx = torch.arange(24.0).view(2, 3, 4).requires_grad_()
    r, tr = _eval(expr, tl, x * 1), _eval(expr, torch, tx * 1)
    assert r.grad_fn.name() == tr.grad_fn.name()
    r.sum().backward()
    tr.sum().backward()
    assert_same(x.grad, tx.grad, layout=False)


@settings(max_examples=60)
@given(chain=view_chains(min_dims=0), data=st.data())
def test_splitting_ops_match_torch(torch, chain, data):
    """split / tensor_split / chunk / unbind / narrow / select / movedim / swapaxes with random
    arguments (invalid ones included) on random strided inputs: same pieces, same errors."""
    shape, ops = chain
    ours, theirs = make_bases(torch, shape)
    x, tx = apply(ours, ops), apply(theirs, ops)
    nd = x.ndim
    dim = data.draw(st.integers(-nd - 1, nd))
    n = data.draw(st.integers(-1, 4))
    idx = data.draw(st.lists(st.integers(-5, 5), max_size=3))
    sizes = data.draw(st.lists(st.integers(-1, 3), max_size=3))
    calls = [
        lambda t, lib: t.split(n, dim),
        lambda t, lib: t.split(sizes, dim),
        lambda t, lib: lib.split(t, sizes, dim),
        lambda t, lib: t.tensor_split(n, dim),
        lambda t, lib: t.tensor_split(idx, dim),
        lambda t, lib: t.tensor_split(lib.tensor(idx, dtype=lib.long), dim),
        lambda t, lib: t.chunk(n, dim),
        lambda t, lib: t.unbind(dim),
        lambda t, lib: (t.narrow(dim, n, 1),),
        lambda t, lib: (t.select(dim, n),),
        lambda t, lib: (t.movedim(dim, n),),
        lambda t, lib: (t.swapaxes(dim, n),),
    ]
    call = data.draw(st.sampled_from(calls))
    r, tr = raises_same(lambda: call(x, tl), lambda: call(tx, torch))
    if r is None:
        return
    assert len(r) == len(tr)
    for a, b in zip(r, tr):
        assert_same(a, b)
        assert shares(a, ours)
