"""A non-tuple sequence as an index, against torch 2.13 (issue 38): torch (like old numpy) takes a
list, or any other sequence but a tensor or an array, that is shorter than 32 and holds a
tensor, a sequence, a slice, ``...`` or ``None`` as a tuple of indices, with a deprecation
warning (``x[[t0, t1]]`` is ``x[t0, t1]``; a ``Subset`` of 0-d tensors, too); any other list is
one advanced index."""

from __future__ import annotations

import warnings

import numpy as np
from helpers import assert_same, raises_same, to_torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl

# one item of an index list, as a recipe that builds it for either library
items = st.one_of(
    st.integers(-3, 3).map(lambda i: ("int", i)),
    st.integers(-3, 3).map(lambda i: ("t0", i)),
    st.lists(st.integers(-3, 2), min_size=1, max_size=3).map(lambda v: ("list", tuple(v))),
    st.tuples(st.integers(-3, 3) | st.none(), st.integers(-3, 3) | st.none()).map(
        lambda ab: ("slice", ab)
    ),
    st.just(("none", None)),
    st.just(("ellipsis", None)),
)


def _build(lib, recipe):
    kind, v = recipe
    if kind == "int":
        return v
    if kind == "t0":
        return lib.tensor(v)
    if kind == "list":
        return list(v)
    if kind == "slice":
        return slice(*v)
    return None if kind == "none" else Ellipsis


def _index(lib, recipes, container):
    built = [_build(lib, r) for r in recipes]
    return built if container == "list" else _Seq(built)


class _Seq:
    """A sequence that is not a list (``Subset``-like: ``__getitem__`` and ``__len__``)."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def _warned(f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = f()
        except Exception as e:  # noqa: BLE001 - compared by raises_same
            out = e
    return out, [str(x.message).split(" (Triggered internally")[0] for x in w]


@settings(max_examples=200, deadline=None)
@given(
    recipes=st.lists(items, min_size=1, max_size=4),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
    container=st.sampled_from(["list", "seq"]),
)
def test_a_sequence_index_is_read_as_torch_reads_it(torch, recipes, shape, container):
    assume(sum(k == "ellipsis" for k, _ in recipes) <= 1)  # two `...`: torch's own quirk
    x = tl.arange(float(np.prod(shape))).view(*shape)
    xt = to_torch(torch, x)
    ours, w_ours = _warned(lambda: x[_index(tl, recipes, container)])
    theirs, w_theirs = _warned(lambda: xt[_index(torch, recipes, container)])
    assert w_ours == w_theirs
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            raises_same(
                lambda: x[_index(tl, recipes, container)],
                lambda: xt[_index(torch, recipes, container)],
            )
        return
    assert_same(ours, theirs, layout=False)


@settings(max_examples=60, deadline=None)
@given(
    recipes=st.lists(items, min_size=1, max_size=3),
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
)
def test_assignment_reads_a_sequence_index_the_same_way(torch, recipes, shape):
    assume(sum(k == "ellipsis" for k, _ in recipes) <= 1)
    x = tl.zeros(shape)
    xt = torch.zeros(shape)

    def put(t, lib):
        t[_index(lib, recipes, "list")] = 7.0
        return t

    ours, w_ours = _warned(lambda: put(x, tl))
    theirs, w_theirs = _warned(lambda: put(xt, torch))
    assert w_ours == w_theirs
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        assert type(ours).__name__ == type(theirs).__name__
        return
    assert_same(ours, theirs)


def test_a_subset_of_zero_dim_tensors_indexes_dimension_by_dimension(torch):
    from torch.utils.data import Subset as TSubset

    from tensorlab.utils.data import Subset

    x = tl.arange(12).view(3, 4)
    ours, w_ours = _warned(lambda: x[Subset(tl.arange(10), [1, 2])])
    theirs, w_theirs = _warned(lambda: to_torch(torch, x)[TSubset(torch.arange(10), [1, 2])])
    assert w_ours == w_theirs and len(w_ours) == 1
    assert_same(ours, theirs)
    assert ours.item() == 6


def test_plain_lists_long_lists_ranges_and_arrays_stay_one_index(torch):
    x = tl.arange(40)
    for index in ([0, 1], list(range(33)), range(3), np.array([[0, 1], [2, 3]])):
        ours, w_ours = _warned(lambda index=index: x[index])
        theirs, w_theirs = _warned(lambda index=index: to_torch(torch, x)[index])
        assert w_ours == w_theirs == []
        assert_same(ours, theirs, layout=False)
