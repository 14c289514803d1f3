"""The sorting family against the PyTorch oracle on random strided inputs (transposed, sliced,
expanded) with many ties and NaNs: sort/argsort/msort (stable, descending, NaN order, layout of
the results), topk, kthvalue, unique, unique_consecutive, searchsorted, bucketize, bincount,
histc; grad_fn names and gradients; the namedtuple results and their repr."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st
from strided_chains import apply, view_chains

import tensorlab as tl

DTYPES = ["float64", "float32", "int64", "int32", "uint8", "bool"]


def _pair(torch, shape, ops, dtype, seed, nan=True, requires_grad=False):
    rng = np.random.default_rng(seed)
    arr = rng.integers(-3, 4, size=shape).astype(np.float64)
    if dtype.startswith("float") and nan and arr.size:
        arr[rng.random(shape) < 0.15] = np.nan
        arr[rng.random(shape) < 0.05] = np.inf
    if dtype == "uint8":
        arr = np.abs(arr)
    arr = np.asarray(arr).astype(dtype)
    ours, theirs = tl.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    if requires_grad:
        ours.requires_grad_(True)
        theirs.requires_grad_(True)
    return ours, theirs, apply(ours, ops), apply(theirs, ops)


def _same_pair(r, tr, layout=True):
    assert type(r).__name__ == type(tr).__name__
    assert len(r) == len(tr)
    for a, b in zip(r, tr):
        assert_same(a, b, layout=layout)


@settings(max_examples=60)
@given(
    chain=view_chains(min_dims=0),
    dtype=st.sampled_from(DTYPES),
    desc=st.booleans(),
    data=st.data(),
)
def test_sort_matches_torch(torch, chain, dtype, desc, data):
    shape, ops = chain
    _, _, x, tx = _pair(torch, shape, ops, dtype, data.draw(st.integers(0, 999)))
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    r, tr = raises_same(lambda: x.sort(dim, desc), lambda: tx.sort(dim, desc))
    if r is None:
        return
    _same_pair(r, tr)  # values, indices (stable: ties in input order), strides of empty_like
    assert_same(tl.argsort(x, dim, desc), torch.argsort(tx, dim, desc))
    assert_same(
        x.sort(dim=dim, descending=desc, stable=True).values,
        tx.sort(dim=dim, descending=desc, stable=True).values,
    )
    if x.ndim:
        assert_same(x.msort(), tx.msort())


@settings(max_examples=80)
@given(chain=view_chains(min_dims=0), dtype=st.sampled_from(DTYPES), data=st.data())
def test_topk_and_kthvalue_match_torch(torch, chain, dtype, data):
    """Values *and* indices, ties and NaNs included: equal values come back with the indices
    PyTorch's selection algorithms leave (and topk(sorted=False) in PyTorch's order)."""
    shape, ops = chain
    _, _, x, tx = _pair(torch, shape, ops, dtype, data.draw(st.integers(0, 999)))
    dim = data.draw(st.integers(-x.ndim - 1, x.ndim))
    k = data.draw(st.integers(-1, 5))
    largest, srt = data.draw(st.booleans()), data.draw(st.booleans())
    r, tr = raises_same(lambda: x.topk(k, dim, largest, srt), lambda: tx.topk(k, dim, largest, srt))
    if r is not None:
        _same_pair(r, tr)
    keep = data.draw(st.booleans())
    r, tr = raises_same(lambda: x.kthvalue(k, dim, keep), lambda: tx.kthvalue(k, dim, keep))
    if r is not None:
        _same_pair(r, tr)


@settings(max_examples=30)
@given(
    n=st.integers(1, 300),
    k=st.integers(0, 300),
    largest=st.booleans(),
    srt=st.booleans(),
    seed=st.integers(0, 999),
)
def test_topk_long_rows_with_ties_match_torch(torch, n, k, largest, srt, seed):
    """Both of PyTorch's paths: partial_sort (k * 64 <= n) and nth_element + sort."""
    k = min(k, n) if k * 64 > n else k
    arr = np.random.default_rng(seed).integers(-3, 4, size=(2, n)).astype(np.float32)
    arr[arr == 3] = np.nan
    x, tx = tl.from_numpy(arr), torch.from_numpy(arr)
    _same_pair(x.topk(k, 1, largest, srt), tx.topk(k, 1, largest, srt))
    kk = max(1, min(k, n))
    _same_pair(x.kthvalue(kk, 1), tx.kthvalue(kk, 1))


def test_topk_without_ties_gives_torchs_indices(torch):
    rng = np.random.default_rng(0)
    arr = rng.permutation(60).reshape(5, 12).astype(np.float32)
    x, tx = tl.from_numpy(arr).t(), torch.from_numpy(arr).t()
    for k, dim, largest in [(3, 0, True), (2, 1, False), (12 if False else 5, 1, True)]:
        _same_pair(x.topk(k, dim, largest), tx.topk(k, dim, largest))
        _same_pair(x.kthvalue(k, dim), tx.kthvalue(k, dim))
        _same_pair(x.kthvalue(k, dim, True), tx.kthvalue(k, dim, True))


@settings(max_examples=40)
@given(chain=view_chains(min_dims=1), data=st.data())
def test_sort_topk_kthvalue_gradients(torch, chain, data):
    shape, ops = chain
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    arr = rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64)  # no ties
    base, tbase = tl.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    base.requires_grad_(True)
    tbase.requires_grad_(True)
    x, tx = apply(base, ops), apply(tbase, ops)
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[dim]
    k = data.draw(st.integers(1, n))
    keep = data.draw(st.booleans())
    op = data.draw(
        st.sampled_from(
            [
                lambda t: t.sort(dim, descending=True).values,
                lambda t: t.msort(),
                lambda t: t.topk(k, dim).values,
                lambda t: t.topk(k, dim, largest=False).values,
                lambda t: t.kthvalue(k, dim, keep).values,
            ]
        )
    )
    r, tr = op(x), op(tx)
    assert r.grad_fn.name() == tr.grad_fn.name()
    g = np.asarray(rng.standard_normal(tuple(tr.shape)))
    r.backward(tl.from_numpy(g))
    tr.backward(torch.from_numpy(g))
    assert_same(base.grad, tbase.grad, layout=False)


def test_sort_repr_and_namedtuple(torch):
    x, tx = tl.tensor([[3.0, 1, 2], [1, 1, 0]]), torch.tensor([[3.0, 1, 2], [1, 1, 0]])
    for f in (lambda m, t: t.sort(), lambda m, t: m.topk(t, 2), lambda m, t: t.kthvalue(1)):
        r, tr = f(tl, x), f(torch, tx)
        assert repr(r) == repr(tr).replace("torch.", "tensorlab.")
        values, indices = r
        assert values is r.values and indices is r.indices and r[0] is values
    assert isinstance(x.sort(), tuple) and type(x.sort()) is tl.return_types.sort


# ----------------------------------------------------------------------------- unique
@settings(max_examples=120)
@given(chain=view_chains(min_dims=0), dtype=st.sampled_from(DTYPES), data=st.data())
def test_unique_matches_torch(torch, chain, dtype, data):
    shape, ops = chain
    _, _, x, tx = _pair(torch, shape, ops, dtype, data.draw(st.integers(0, 999)), nan=False)
    inv, cnt = data.draw(st.booleans()), data.draw(st.booleans())
    dim = data.draw(st.none() | st.integers(-x.ndim - 1, x.ndim))
    srt = data.draw(st.booleans())  # torch's CPU unique sorts even with sorted=False
    kw = {"sorted": srt, "return_inverse": inv, "return_counts": cnt, "dim": dim}
    r, tr = raises_same(lambda: x.unique(**kw), lambda: tx.unique(**kw))
    if r is None:
        return
    if isinstance(tr, tuple):
        assert isinstance(r, tuple) and len(r) == len(tr)
        for a, b in zip(r, tr):
            assert_same(a, b)
    else:
        assert_same(r, tr)
    r, tr = raises_same(lambda: tl.unique(x, **kw), lambda: torch.unique(tx, **kw))
    kw.pop("dim")
    kw.pop("sorted")
    r, tr = raises_same(
        lambda: x.unique_consecutive(dim=dim, **kw), lambda: tx.unique_consecutive(dim=dim, **kw)
    )
    if r is None:
        return
    for a, b in zip(r if isinstance(r, tuple) else (r,), tr if isinstance(tr, tuple) else (tr,)):
        assert_same(a, b)


def test_histc_of_nan_data_says_the_range_is_not_finite(torch):
    # torch prints the NaN as "nan" or "-nan" depending on its min/max kernel: compare the rest
    with pytest.raises(RuntimeError, match=r"histc: range of \[-?nan, -?nan\] is not finite"):
        tl.histc(tl.tensor([1.0, float("nan")]), bins=4)
    with pytest.raises(RuntimeError, match=r"histc: range of \[-?nan, -?nan\] is not finite"):
        torch.histc(torch.tensor([1.0, float("nan")]), bins=4)


def test_unique_keeps_every_nan_and_refuses_backward(torch):
    x = tl.tensor([1.0, float("nan"), float("nan"), 1.0], requires_grad=True)
    tx = torch.tensor([1.0, float("nan"), float("nan"), 1.0], requires_grad=True)
    assert_same(x.unique(), tx.unique())
    for f in (
        lambda t: t.unique(),
        lambda t: t.unique(dim=0),
        lambda t: t.unique_consecutive(),
        lambda t: t.unique(return_counts=True)[0],
    ):
        r, tr = f(x), f(tx)
        assert r.grad_fn.name() == tr.grad_fn.name()
        raises_same(lambda r=r: r.sum().backward(), lambda tr=tr: tr.sum().backward())


# ----------------------------------------------------------------------------- searchsorted
@settings(max_examples=60)
@given(
    chain=view_chains(min_dims=1, max_dims=2),
    dtype=st.sampled_from(["float64", "float32", "int64", "int32"]),
    right=st.booleans(),
    data=st.data(),
)
def test_searchsorted_and_bucketize_match_torch(torch, chain, dtype, right, data):
    shape, ops = chain
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    _, _, v, tv = _pair(torch, shape, ops, dtype, data.draw(st.integers(0, 999)), nan=False)
    bounds = np.sort(rng.integers(-4, 5, size=data.draw(st.integers(1, 6)))).astype(dtype)
    b, tb = tl.from_numpy(bounds.copy()), torch.from_numpy(bounds.copy())
    int32 = data.draw(st.booleans())
    assert_same(
        tl.searchsorted(b, v, right=right, out_int32=int32),
        torch.searchsorted(tb, tv, right=right, out_int32=int32),
    )
    side = "right" if right else "left"
    assert_same(tl.searchsorted(b, v, side=side), torch.searchsorted(tb, tv, side=side))
    assert_same(tl.bucketize(v, b, right=right), torch.bucketize(tv, tb, right=right))
    assert_same(tl.bucketize(v, b, out_int32=int32), torch.bucketize(tv, tb, out_int32=int32))
    # batched boundaries: one sorted row per leading index of the values
    if v.ndim == 2:
        rows = np.sort(rng.integers(-4, 5, size=(v.shape[0], 4)), axis=1).astype(dtype)
        assert_same(
            tl.searchsorted(tl.from_numpy(rows), v, right=right),
            torch.searchsorted(torch.from_numpy(rows), tv, right=right),
        )
    # sorter: boundaries given unsorted with the permutation that sorts them
    perm = rng.permutation(len(bounds))
    shuffled, sorter = bounds[perm], np.argsort(perm)
    assert_same(
        tl.searchsorted(tl.from_numpy(shuffled), v, sorter=tl.from_numpy(sorter)),
        torch.searchsorted(torch.from_numpy(shuffled), tv, sorter=torch.from_numpy(sorter)),
    )


@pytest.mark.parametrize(
    "expr",
    [
        "torch.searchsorted(torch.tensor([1, 3, 5, 7]), 3, right=True)",
        "torch.searchsorted(torch.tensor([1, 3, 5, 7]), 4.5)",
        "torch.bucketize(1.5, torch.tensor([1, 2]))",
        "torch.searchsorted(torch.tensor([1.0, 2]), torch.tensor([1, 2]))",
        "torch.searchsorted(torch.tensor([1, 3]), torch.tensor([3]), side='left', right=True)",
        "torch.searchsorted(torch.tensor([1, 3]), torch.tensor([3]), side='middle')",
        "torch.searchsorted(torch.tensor([[1, 3], [5, 7]]), torch.tensor([3]))",
        "torch.searchsorted(torch.tensor(1), torch.tensor([3]))",
        "torch.searchsorted(torch.tensor([1, 3]), torch.tensor([3]), sorter=torch.tensor([0]))",
        "torch.searchsorted(torch.tensor([1, 3]), torch.tensor([3]), sorter=torch.tensor([0, 1.0]))",
        "torch.bucketize(torch.tensor([3]), torch.tensor([[1, 3]]))",
        "torch.bincount(torch.tensor([0, 1, 1, 3]), minlength=6)",
        "torch.bincount(torch.tensor([0, 1, 1, 3], dtype=torch.uint8))",
        "torch.bincount(torch.tensor([0, -1]))",
        "torch.bincount(torch.tensor([[0, 1]]))",
        "torch.bincount(torch.tensor([0.0, 1]))",
        "torch.bincount(torch.tensor([0, 1]), minlength=-1)",
        "torch.bincount(torch.tensor([0, 1]), weights=torch.tensor([1.0]))",
        "torch.bincount(torch.tensor([], dtype=torch.long))",
        "torch.bincount(torch.tensor([], dtype=torch.long), minlength=3)",
        "torch.tensor([2, 0, 2]).bincount(torch.tensor([1, 2, 3]))",
        "torch.histc(torch.tensor([1.0, 2, 1]), bins=4, min=0, max=3)",
        "torch.histc(torch.tensor([1.0, 2, 1, 5]), bins=4)",
        "torch.histc(torch.tensor([1.0, 1]), bins=4)",
        "torch.histc(torch.tensor([], dtype=torch.float64), bins=3)",
        "torch.histc(torch.tensor([1, 2]), bins=4)",
        "torch.histc(torch.tensor([1.0, 2]), bins=0)",
        "torch.histc(torch.tensor([1.0, 2]), bins=4, min=3, max=1)",
        "torch.histc(torch.tensor([1.0, float('nan'), 2]), bins=4, min=0, max=3)",
        "torch.tensor([0.5, 2.5, -1.0, 7.0]).histc(3, 0, 3)",
        "torch.topk(torch.tensor([1.0, 2]), 3)",
        "torch.kthvalue(torch.tensor([1.0, 2]), 0)",
        "torch.sort(torch.tensor([[1, 2]]), 2)",
    ],
)
def test_examples_and_errors_match_torch(torch, expr):
    r, tr = raises_same(lambda: eval(expr, {"torch": tl}), lambda: eval(expr, {"torch": torch}))
    if r is not None:
        assert_same(r, tr)


@settings(max_examples=40)
@given(
    n=st.integers(0, 30),
    top=st.integers(0, 9),
    minlength=st.integers(0, 12),
    weighted=st.sampled_from([None, "float32", "float64", "int64"]),
    data=st.data(),
)
def test_bincount_matches_torch(torch, n, top, minlength, weighted, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    arr = rng.integers(0, top + 1, size=2 * n)[::2]  # a strided input
    x, tx = tl.from_numpy(arr), torch.from_numpy(arr)
    w = tw = None
    if weighted:
        warr = (
            rng.standard_normal(2 * n).astype(weighted)
            if weighted != "int64"
            else rng.integers(-3, 4, 2 * n)
        )
        w, tw = tl.from_numpy(warr[1::2]), torch.from_numpy(warr[1::2])
    assert_same(
        tl.bincount(x, w, minlength), torch.bincount(tx, tw, minlength), exact=False, rtol=1e-5
    )


@settings(max_examples=60)
@given(
    dtype=st.sampled_from(["float32", "float64"]),
    bins=st.integers(1, 12),
    lo=st.integers(-5, 5),
    width=st.integers(0, 6),
    data=st.data(),
)
def test_histc_matches_torch(torch, dtype, bins, lo, width, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    arr = (rng.standard_normal((3, 8)) * 4).round(data.draw(st.integers(0, 2))).astype(dtype).T
    x, tx = tl.from_numpy(arr), torch.from_numpy(arr)  # a transposed input
    assert_same(tl.histc(x, bins, lo, lo + width), torch.histc(tx, bins, lo, lo + width))
    assert_same(x.histc(bins), tx.histc(bins))


@pytest.mark.parametrize(
    "expr",
    [
        "torch.sort(x, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))",
        "torch.sort(x, 0, True, out=(torch.empty(2, 3), torch.empty(2, 3, dtype=torch.long)))",
        "torch.sort(x, out=(torch.empty(3, 2).t(), torch.empty(3, 2, dtype=torch.long).t()))",
        "torch.sort(x, out=(torch.empty(0), torch.empty(0)))",
        "torch.sort(x, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long)))",
        "torch.topk(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))",
        "torch.topk(x, 2, out=(torch.empty(5), torch.empty(0, dtype=torch.long)))",
        "torch.kthvalue(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))",
        "torch.msort(x, out=torch.empty(0))",
        "torch.searchsorted(torch.tensor([1, 2]), torch.tensor([1]), out=torch.empty(0, dtype=torch.long))",
        "torch.searchsorted(torch.tensor([1, 2]), torch.tensor([1]), out=torch.empty(0))",
        "torch.searchsorted(torch.tensor([1, 2]), torch.tensor([1]), out_int32=True, out=torch.empty(0, dtype=torch.long))",
        "torch.bucketize(torch.tensor([1]), torch.tensor([1, 2]), out=torch.empty(0, dtype=torch.long))",
        "torch.histc(x, 4, out=torch.empty(0))",
        "torch.histc(x, 4, out=torch.empty(0, dtype=torch.float64))",
        "torch.sort(x.requires_grad_(), out=(torch.empty(0), torch.empty(0, dtype=torch.long)))",
    ],
)
def test_out_matches_torch(torch, expr):
    import warnings

    def run(lib):
        x = lib.tensor([[3.0, 1, 2], [0, 5, 4]])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = eval(expr, {"torch": lib, "x": x})
        return r, [str(m.message).split(" (Triggered")[0] for m in w]

    res, tres = raises_same(lambda: run(tl), lambda: run(torch))
    if res is None:
        return
    (r, w), (tr, tw) = res, tres
    assert w == tw
    assert type(r).__name__ == type(tr).__name__
    for a, b in zip(r if isinstance(r, tuple) else (r,), tr if isinstance(tr, tuple) else (tr,)):
        assert_same(a, b)


EMPTY_CALLS = [
    "x.sort()",
    "x.sort(0)",
    "x.topk(0)",
    "x.kthvalue(1)",
    "x.unique(return_inverse=True, return_counts=True)",
    "x.unique(dim=0, return_inverse=True, return_counts=True)",
    "x.unique(dim=-1, return_inverse=True, return_counts=True)",
    "x.unique_consecutive(dim=0, return_inverse=True, return_counts=True)",
    "x.unique_consecutive(dim=-1, return_counts=True)",
    "x.unique_consecutive(return_inverse=True, return_counts=True)",
    "torch.searchsorted(torch.tensor([1.0, 2]), x)",
    "torch.histc(x, 3)",
]


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
@pytest.mark.parametrize("expr", EMPTY_CALLS)
def test_empty_inputs_match_torch(torch, shape, expr):
    r, tr = raises_same(
        lambda: eval(expr, {"torch": tl, "x": tl.zeros(shape)}),
        lambda: eval(expr, {"torch": torch, "x": torch.zeros(shape)}),
    )
    if r is None:
        return
    for a, b in zip(r if isinstance(r, tuple) else (r,), tr if isinstance(tr, tuple) else (tr,)):
        assert_same(a, b)


def test_searchsorted_warns_once_for_non_contiguous_arguments(torch):
    import warnings

    from tensorlab._ops import sorting

    def run(lib):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(2):
                lib.searchsorted(lib.tensor([[1, 3], [2, 4]]).t(), lib.tensor([[1], [2]]))
                lib.searchsorted(lib.tensor([1, 2]), lib.tensor([[1, 2], [3, 4]]).t())
        return [str(m.message).split(" (Triggered")[0].replace("torch.", "tensorlab.") for m in w]

    sorting._WARNED.clear()
    ours = run(tl)
    theirs = run(torch)  # once per program: torch may have warned earlier in this process
    assert len(ours) == 2 and ours[0].startswith("tensorlab.searchsorted(): boundary")
    assert set(theirs) <= set(ours)
