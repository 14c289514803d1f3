"""einsum, tensordot, kron and out= on the matrix products against the PyTorch oracle: random
equations (repeated indices, ellipsis, implicit output, broadcasting) over random strided
operands (transposed, sliced, expanded), comparing values (with tolerances: BLAS may differ in
the last bits), shapes, strides, grad_fn names, gradients and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

TOL = {"exact": False, "rtol": 1e-10, "atol": 1e-10}


def strided(torch, shape, mode, seed, dtype="float64", requires_grad=False):
    """The same values, laid out non-contiguously as ``mode`` says, in both libraries."""
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    if mode == "transposed":
        arr = rng.standard_normal(shape[::-1]).astype(dtype)
        make = lambda lib, a: lib.from_numpy(a.copy()).permute(*range(len(shape) - 1, -1, -1))  # noqa: E731
    elif mode == "sliced":
        arr = rng.standard_normal(tuple(2 * s for s in shape)).astype(dtype)
        idx = tuple(slice(None, None, 2) for _ in shape)
        make = lambda lib, a: lib.from_numpy(a.copy())[idx]  # noqa: E731
    elif mode == "expanded":
        small = tuple(1 if i == 0 else s for i, s in enumerate(shape))
        arr = rng.standard_normal(small).astype(dtype)
        make = lambda lib, a: lib.from_numpy(a.copy()).expand(*shape)  # noqa: E731
    else:
        arr = rng.standard_normal(shape).astype(dtype)
        make = lambda lib, a: lib.from_numpy(a.copy())  # noqa: E731
    ours, theirs = make(tl, arr), make(torch, arr)
    leaves = None
    if requires_grad:
        ours, theirs = ours.detach(), theirs.detach()
        ours._requires_grad = True  # a leaf with this very layout
        theirs.requires_grad_(True)
        leaves = (ours, theirs)
    return ours, theirs, leaves


@st.composite
def equations(draw):
    letters = "abcdeB"
    sizes = {c: draw(st.integers(1, 4)) for c in letters}
    n_ops = draw(st.integers(1, 3))
    ell = draw(st.booleans())
    ell_shape = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))] if ell else []
    subs, shapes = [], []
    for _ in range(n_ops):
        labels = draw(st.lists(st.sampled_from(letters), min_size=0, max_size=3))
        shape = [sizes[c] if not draw(st.integers(0, 6)) == 0 else 1 for c in labels]
        # a repeated label needs equal sizes
        for k, c in enumerate(labels):
            if labels.index(c) != k:
                shape[k] = shape[labels.index(c)]
        sub = "".join(labels)
        if ell and draw(st.booleans()):
            pos = draw(st.integers(0, len(labels)))
            e = ell_shape[draw(st.integers(0, len(ell_shape))) :]
            sub = sub[:pos] + "..." + sub[pos:]
            shape = shape[:pos] + list(e) + shape[pos:]
        subs.append(sub)
        shapes.append(shape)
    seen = sorted({c for s in subs for c in s if c.isalpha()})
    if draw(st.booleans()):
        out = "".join(draw(st.permutations(seen))[: draw(st.integers(0, len(seen)))])
        if any("..." in s for s in subs) and draw(st.booleans()):
            out = "..." + out
        eq = ",".join(subs) + "->" + out
    else:
        eq = ",".join(subs)
    return eq, shapes


@settings(max_examples=80)
@given(eq=equations(), data=st.data())
def test_einsum_matches_torch(torch, eq, data):
    equation, shapes = eq
    modes = [
        data.draw(st.sampled_from(["contig", "transposed", "sliced", "expanded"])) for _ in shapes
    ]
    pairs = [
        strided(torch, s, m if s else "contig", k, requires_grad=True)
        for k, (s, m) in enumerate(zip(shapes, modes))
    ]
    ours = [p[0] for p in pairs]
    theirs = [p[1] for p in pairs]
    r, tr = raises_same(lambda: tl.einsum(equation, *ours), lambda: torch.einsum(equation, *theirs))
    if r is None:
        return
    assert_same(r, tr, **TOL)  # values, shape, strides, storage offset
    assert r.grad_fn.name() == tr.grad_fn.name()
    assert (r._base is not None) == (tr._base is not None)
    g = np.asarray(np.random.default_rng(1).standard_normal(tuple(tr.shape)))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    for la, lb in [p[2] for p in pairs]:
        assert_same(la.grad, lb.grad, layout=False, **TOL)


@pytest.mark.parametrize(
    "args",
    [
        ("ij,jk->ik", (2, 3), (3, 4)),
        ("ii->i", (3, 3)),
        ("ii", (3, 3)),
        ("iij->ji", (2, 2, 4)),
        ("bij,bjk->bik", (5, 2, 3), (5, 3, 4)),
        ("...ij,...jk", (5, 2, 3), (3, 4)),
        ("i,j", (3,), (2,)),
        ("i,i", (3,), (3,)),
        ("ij,ij->", (2, 3), (2, 3)),
        ("ij->", (2, 3)),
        ("Ab,bA->A", (2, 3), (3, 2)),
        ("ij,jk->ik", (2, 3), (4, 4)),
        ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)),
        ("ij->ik", (2, 3)),
        ("ij->ii", (2, 3)),
        ("ij", (2, 3, 4)),
        ("ij,jk", (2, 3)),
        ("ij", (2, 3), (3, 4)),
        ("i.j", (2, 3)),
        ("...i...", (2, 3)),
        ("i->..", (2,)),
        ("i->...i...", (2,)),
        ("i1", (2, 3)),
        ("ij->i1", (2, 3)),
        ("ii", (2, 3)),
        ("...i,...i", (2, 3), (4, 3)),
        ("i,i", (2,), (3,)),
    ],
)
def test_einsum_examples_and_errors(torch, args):
    eq, *shapes = args
    ops = [strided(torch, s, "contig", k) for k, s in enumerate(shapes)]
    r, tr = raises_same(
        lambda: tl.einsum(eq, *[o[0] for o in ops]), lambda: torch.einsum(eq, *[o[1] for o in ops])
    )
    if r is not None:
        assert_same(r, tr, **TOL)


def test_einsum_argument_forms(torch):
    a, ta, _ = strided(torch, (2, 3), "transposed", 0)
    b, tb, _ = strided(torch, (3, 4), "sliced", 1)
    assert_same(tl.einsum("ij,jk", [a, b]), torch.einsum("ij,jk", [ta, tb]), **TOL)
    assert_same(tl.einsum("ij,jk", (a, b)), torch.einsum("ij,jk", (ta, tb)), **TOL)
    assert_same(
        tl.einsum(a, [0, 1], b, [1, 2], [0, 2]), torch.einsum(ta, [0, 1], tb, [1, 2], [0, 2]), **TOL
    )
    assert_same(
        tl.einsum(a, [30, 27], b, [27, 40]), torch.einsum(ta, [30, 27], tb, [27, 40]), **TOL
    )
    assert_same(tl.einsum(a, [..., 1], b, [1, 2]), torch.einsum(ta, [..., 1], tb, [1, 2]), **TOL)
    raises_same(lambda: tl.einsum(a, [0, 52]), lambda: torch.einsum(ta, [0, 52]))
    raises_same(lambda: tl.einsum("ij"), lambda: torch.einsum("ij"))
    from torch.functional import einsum as teinsum

    from tensorlab.functional import einsum

    assert einsum is tl.einsum
    assert_same(einsum("ij->j", a), teinsum("ij->j", ta), **TOL)


def test_einsum_int_and_dtype_mismatch(torch):
    a, ta = tl.arange(6).view(2, 3), torch.arange(6).view(2, 3)
    assert_same(tl.einsum("ij,kj->ik", a, a), torch.einsum("ij,kj->ik", ta, ta))
    raises_same(
        lambda: tl.einsum("ij,jk", a.float(), a.t().double()),
        lambda: torch.einsum("ij,jk", ta.float(), ta.t().double()),
    )


# ----------------------------------------------------------------------------- tensordot, kron
@settings(max_examples=60)
@given(data=st.data())
def test_tensordot_matches_torch(torch, data):
    na, nb = data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))
    sa = [data.draw(st.integers(1, 4)) for _ in range(na)]
    sb = [data.draw(st.integers(1, 4)) for _ in range(nb)]
    form = data.draw(st.sampled_from(["int", "lists", "tensor"]))
    if form == "int":
        n = data.draw(st.integers(-1, min(na, nb) + 1))
        # make the contracted sizes agree most of the time
        if 0 <= n <= min(na, nb) and data.draw(st.integers(0, 4)):
            for k in range(n):
                sb[k] = sa[na - n + k]
        dims = n
    else:
        k = data.draw(st.integers(0, min(na, nb)))
        da = data.draw(st.permutations(range(na)))[:k]
        db = data.draw(st.permutations(range(nb)))[:k]
        if data.draw(st.integers(0, 4)):
            for x, y in zip(da, db):
                sb[y] = sa[x] if data.draw(st.integers(0, 5)) else 1
        if data.draw(st.booleans()):
            da = [d - na for d in da]
        dims = (list(da), list(db))
        if form == "tensor" and k:
            dims = "tensor"
            tdims = (np.array([da, db]) % [[max(na, 1)], [max(nb, 1)]]).tolist()
    ma, mb = data.draw(st.sampled_from(["contig", "transposed", "sliced"])), "sliced"
    a, ta, la = strided(torch, sa, ma if sa else "contig", 0, requires_grad=True)
    b, tb, lb = strided(torch, sb, mb if sb else "contig", 1, requires_grad=True)
    if dims == "tensor":
        fo = lambda: tl.tensordot(a, b, tl.tensor(tdims))  # noqa: E731
        ft = lambda: torch.tensordot(ta, tb, torch.tensor(tdims))  # noqa: E731
    else:
        fo = lambda: tl.tensordot(a, b, dims)  # noqa: E731
        ft = lambda: torch.tensordot(ta, tb, dims)  # noqa: E731
    r, tr = raises_same(fo, ft)
    if r is None:
        return
    assert_same(r, tr, **TOL)
    assert r.grad_fn.name() == tr.grad_fn.name()
    g = np.asarray(np.random.default_rng(2).standard_normal(tuple(tr.shape)))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    assert_same(la[0].grad, la[1].grad, layout=False, **TOL)
    assert_same(lb[0].grad, lb[1].grad, layout=False, **TOL)


@settings(max_examples=50)
@given(data=st.data())
def test_kron_matches_torch(torch, data):
    sa = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 3)))]
    sb = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 3)))]
    ma = data.draw(st.sampled_from(["contig", "transposed", "sliced", "expanded"]))
    mb = data.draw(st.sampled_from(["contig", "transposed", "sliced", "expanded"]))
    a, ta, la = strided(torch, sa, ma if sa else "contig", 0, requires_grad=True)
    b, tb, lb = strided(torch, sb, mb if sb else "contig", 1, requires_grad=True)
    r, tr = raises_same(lambda: tl.kron(a, b), lambda: torch.kron(ta, tb))
    if r is None:  # torch's _unsafe_view of a mul result laid out like a transposed operand
        return
    assert_same(r, tr, **TOL)
    assert r.grad_fn.name() == tr.grad_fn.name()
    g = np.asarray(np.random.default_rng(2).standard_normal(tuple(tr.shape)))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    assert_same(la[0].grad, la[1].grad, layout=False, **TOL)
    assert_same(lb[0].grad, lb[1].grad, layout=False, **TOL)
    assert_same(a.detach().kron(b.detach()), ta.detach().kron(tb.detach()), **TOL)


def test_kron_of_a_transposed_operand_raises_as_torch(torch):
    # mul's result follows the transposed operand's memory order; kron's _unsafe_view refuses it
    raises_same(
        lambda: tl.kron(tl.ones(2, 2), tl.ones(2, 2).t()),
        lambda: torch.kron(torch.ones(2, 2), torch.ones(2, 2).t()),
    )


def test_kron_promotes_like_mul(torch):
    assert_same(tl.kron(tl.arange(3), tl.ones(2)), torch.kron(torch.arange(3), torch.ones(2)))


# ----------------------------------------------------------------------------- out=
OUT_CASES = [
    ("mm", [(2, 3), (3, 4)], (2, 4), "float32"),
    ("mm", [(2, 3), (3, 4)], (2, 4), "float64"),
    ("mm", [(2, 3), (3, 4)], (3,), "float32"),
    ("mm", [(2, 3), (3, 4)], (0,), "float32"),
    ("mm", [(2, 3), (3, 4)], "transposed", "float32"),
    ("mm", [(2, 3), (3, 4)], "expanded", "float32"),
    ("bmm", [(5, 2, 3), (5, 3, 4)], (5, 2, 4), "float32"),
    ("bmm", [(5, 2, 3), (5, 3, 4)], (5, 2, 4), "int64"),
    ("mv", [(2, 3), (3,)], (2,), "float32"),
    ("mv", [(2, 3), (3,)], (2,), "int64"),
    ("dot", [(3,), (3,)], (), "float32"),
    ("dot", [(3,), (3,)], (2,), "float32"),
    ("dot", [(3,), (3,)], (), "float64"),
    ("matmul", [(5, 2, 3), (3, 4)], (5, 2, 4), "float32"),
    ("matmul", [(2, 3), (3, 4)], (5,), "float32"),
    ("matmul", [(2, 3), (3, 4)], (2, 4), "float64"),
    ("matmul", [(3,), (3,)], (), "float32"),
    ("outer", [(3,), (2,)], (3, 2), "float64"),
    ("outer", [(3,), (2,)], (3, 2), "int64"),
    ("kron", [(2, 3), (3, 4)], (6, 12), "float32"),
    ("kron", [(2, 3), (3, 4)], (6, 12), "float64"),
    ("kron", [(2, 3), (3, 4)], (6,), "float32"),
    ("tensordot", [(2, 3), (3, 4)], (2, 4), "float32"),
    ("tensordot", [(2, 3), (3, 4)], (2, 4), "float64"),
]


@pytest.mark.parametrize("name, shapes, out_shape, out_dtype", OUT_CASES)
def test_out_matches_torch(torch, name, shapes, out_shape, out_dtype):
    rng = np.random.default_rng(0)
    arrs = [rng.standard_normal(s).astype(np.float32) for s in shapes]

    def run(lib):
        ops = [lib.from_numpy(a.copy()) for a in arrs]
        dt = getattr(lib, out_dtype)
        if out_shape == "transposed":
            out = lib.empty(4, 2, dtype=dt).t()
        elif out_shape == "expanded":
            out = lib.empty(1, 4, dtype=dt).expand(2, 4)
        else:
            out = lib.empty(out_shape, dtype=dt)
        extra = (1,) if name == "tensordot" else ()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = getattr(lib, name)(*ops, *extra, out=out)
        return r, out, [str(x.message).split(" (Triggered")[0] for x in w]

    res, tres = raises_same(lambda: run(tl), lambda: run(torch))
    if res is None:
        return
    (r, out, w), (tr, tout, tw) = res, tres
    assert r is out and tr is tout
    assert_same(out, tout, exact=False, rtol=1e-5, atol=1e-5)
    assert w == tw  # the resize warning, when torch gives it


@pytest.mark.parametrize(
    "name, shape, extra",
    [
        ("mm", (2, 2), ()),
        ("matmul", (2, 2), ()),
        ("bmm", (1, 2, 2), ()),
        ("mv", None, ()),
        ("dot", (2,), ()),
        ("outer", (2,), ()),
        ("kron", (2, 2), ()),
    ],
)
def test_out_refuses_autograd(torch, name, shape, extra):
    def run(lib):
        if shape is None:
            a, b = lib.ones(2, 2, requires_grad=True), lib.ones(2)
        else:
            a, b = lib.ones(shape, requires_grad=True), lib.ones(shape)
        return getattr(lib, name)(a, b, *extra, out=lib.empty(0))

    raises_same(lambda: run(tl), lambda: run(torch))


def test_tensordot_out_is_a_tracked_copy(torch):
    # torch's tensordot_out copies the result into out: out gets CopyBackwards, grads flow
    a, ta = tl.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
    o, to = tl.empty(0), torch.empty(0)
    r, tr = (
        tl.tensordot(a, tl.ones(2, 2), 1, out=o),
        torch.tensordot(ta, torch.ones(2, 2), 1, out=to),
    )
    assert r is o and tr is to
    assert_same(o.detach(), to.detach())
    assert o.grad_fn.name() == to.grad_fn.name()  # torch::autograd::CopyBackwards, as torch
    o.sum().backward()
    to.sum().backward()
    assert_same(a.grad, ta.grad)
