"""``tensorlab.utils.data`` against ``torch.utils.data``: the same batches (values, dtypes, shapes,
types of containers) in order; shuffling is a seeded permutation (tensorlab's generator is not
PyTorch's, so the orders differ, as documented); the same errors."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab.utils import data as tl_data


def assert_batches_equal(ours, theirs):
    import torch

    assert type(ours).__name__ == type(theirs).__name__ or (
        isinstance(ours, tl.Tensor) and isinstance(theirs, torch.Tensor)
    ), (type(ours), type(theirs))
    if isinstance(theirs, torch.Tensor):
        assert_same(ours, theirs)
    elif isinstance(theirs, dict):
        assert ours.keys() == theirs.keys()
        for k in theirs:
            assert_batches_equal(ours[k], theirs[k])
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert_batches_equal(a, b)
    else:
        assert ours == theirs


@st.composite
def datasets(draw):
    n = draw(st.integers(1, 9))
    cols = draw(st.integers(1, 3))
    how = draw(st.sampled_from(["contiguous", "transposed", "sliced"]))
    x = tl.arange(n * cols * 2, dtype=tl.float32).reshape(n, cols * 2)
    if how == "transposed":
        x = tl.arange(n * cols * 2, dtype=tl.float32).reshape(cols * 2, n).t()
    elif how == "sliced":
        x = x[:, ::2]
    y = tl.arange(n) % 3
    return x, y


@settings(max_examples=50)
@given(
    xy=datasets(),
    batch_size=st.one_of(st.none(), st.integers(1, 4)),
    drop_last=st.booleans(),
)
def test_dataloader_batches_match_torch(torch, xy, batch_size, drop_last):
    x, y = xy
    if batch_size is None:
        drop_last = False
    ours = tl_data.DataLoader(
        tl_data.TensorDataset(x, y), batch_size=batch_size, drop_last=drop_last
    )
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(to_torch(torch, x), to_torch(torch, y)),
        batch_size=batch_size,
        drop_last=drop_last,
    )
    assert len(ours) == len(theirs)
    got, want = list(ours), list(theirs)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert_batches_equal(a, b)


Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: [1, 2, 3],
        lambda lib: [1.5, 2.0],
        lambda lib: [True, False],
        lambda lib: ["a", "b"],
        lambda lib: [(1, 2.0), (3, 4.0)],
        lambda lib: [[1, 2], [3, 4]],
        lambda lib: [{"a": 1, "b": lib.ones(2)}, {"a": 2, "b": lib.zeros(2)}],
        lambda lib: [Point(1, 2.0), Point(3, 4.0)],
        lambda lib: [np.array([1, 2]), np.array([3, 4])],
        lambda lib: [np.float32(1.5), np.float32(2)],
        lambda lib: [np.int16(1), np.int16(2)],
        lambda lib: [lib.tensor(1), lib.tensor(2)],
        lambda lib: [lib.ones(2, 3).t(), lib.zeros(2, 3).t()],
        lambda lib: [(lib.ones(2), 1, "x"), (lib.zeros(2), 0, "y")],
    ],
)
def test_default_collate_matches_torch(torch, make):
    ours = tl_data.default_collate(make(tl))
    theirs = torch.utils.data.default_collate(make(torch))
    assert_batches_equal(ours, theirs)


@pytest.mark.parametrize(
    "batch",
    [[object(), object()], [[1, 2], [3]], [np.array(["a"]), np.array(["b"])]],
    ids=["object", "ragged", "strings"],
)
def test_default_collate_errors(torch, batch):
    with pytest.raises(Exception) as ours:
        tl_data.default_collate(batch)
    with pytest.raises(Exception) as theirs:
        torch.utils.data.default_collate(batch)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).split("found")[0] == str(theirs.value).split("found")[0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"shuffle": True, "sampler": [0, 1]},
        {"batch_sampler": [[0]], "batch_size": 2},
        {"batch_size": None, "drop_last": True},
        {"batch_size": 0},
        {"batch_size": -1},
        {"batch_size": 1.5},
        {"num_workers": -1},
        {"timeout": -1},
        {"prefetch_factor": 2},
        {"persistent_workers": True},
        {"drop_last": 1},
    ],
    ids=repr,
)
def test_dataloader_argument_errors(torch, kwargs):
    with pytest.raises(Exception) as ours:
        tl_data.DataLoader(tl_data.TensorDataset(tl.zeros(4)), **kwargs)
    with pytest.raises(Exception) as theirs:
        torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.zeros(4)), **kwargs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


def test_tensordataset_size_mismatch(torch):
    for lib in (tl, torch):
        with pytest.raises(AssertionError, match="Size mismatch between tensors"):
            lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4))
        ds = lib.utils.data.TensorDataset(lib.arange(4), lib.arange(4) * 2)
        assert len(ds) == 4 and [v.item() for v in ds[2]] == [2, 4]


@settings(max_examples=30)
@given(n=st.integers(1, 20), batch_size=st.integers(1, 5), seed=st.integers(0, 2**32))
def test_shuffle_is_a_seeded_permutation(n, batch_size, seed):
    ds = tl_data.TensorDataset(tl.arange(n))

    def order(**kw):
        return [
            int(v) for (b,) in tl_data.DataLoader(ds, batch_size, shuffle=True, **kw) for v in b
        ]

    g = order(generator=tl.Generator().manual_seed(seed))
    assert sorted(g) == list(range(n))
    assert g == order(generator=tl.Generator().manual_seed(seed))
    tl.manual_seed(seed)
    a = order()
    tl.manual_seed(seed)
    assert order() == a  # manual_seed makes a generator-less shuffle reproducible
    assert sorted(a) == list(range(n))


def test_random_split_lengths_and_errors(torch):
    for lib in (tl, torch):
        gen = lib.Generator().manual_seed(0)
        parts = lib.utils.data.random_split(range(10), [3, 7], generator=gen)
        assert [len(p) for p in parts] == [3, 7]
        assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
        parts = lib.utils.data.random_split(range(30), [0.3, 0.3, 0.4])
        assert [len(p) for p in parts] == [9, 9, 12]
        parts = lib.utils.data.random_split(range(5), [0.5, 0.5])
        assert [len(p) for p in parts] == [3, 2]
        with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
            lib.utils.data.random_split(range(10), [3, 3])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.utils.data.random_split(range(1), [0.1, 0.9])
        assert any("Length of split at index 1 is 0" in str(x.message) for x in w)


def test_custom_dataset_subset_concat_and_pin_memory_warning(torch):
    class Squares(tl_data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return tl.tensor(float(i * i)), i

    ds = Squares() + tl_data.Subset(Squares(), [4, 0])
    assert len(ds) == 7
    xb, yb = next(iter(tl_data.DataLoader(ds, batch_size=7)))
    assert xb.tolist() == [0, 1, 4, 9, 16, 16, 0] and yb.tolist() == [0, 1, 2, 3, 4, 4, 0]
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true"):
        list(tl_data.DataLoader(tl_data.TensorDataset(tl.zeros(2)), pin_memory=True))


def test_iterable_dataset(torch):
    def make(lib):
        class Stream(lib.utils.data.IterableDataset):
            def __iter__(self):
                return iter([lib.tensor([i, i]) for i in range(5)])

        return list(lib.utils.data.DataLoader(Stream(), batch_size=2))

    assert_batches_equal(make(tl), make(torch))


@pytest.mark.parametrize(
    "args",
    [
        ([0.1, 0.9, 0.4], 0, True),
        ([0.1, 0.9, 0.4], 2, 1),
        ([[0.1, 0.9]], 2, True),
        ([0.1, -1.0], 2, True),
        ([0.0, 0.0], 2, True),
        ([0.0, 1.0, 2.0], 3, False),
        ([0.1, 0.9, 0.4], 5, True),
        ([0.1, 0.9, 0.4, 0.2], 3, False),
    ],
    ids=repr,
)
def test_weighted_random_sampler(torch, args):
    """The same errors as torch; draws in range, without repeats when asked (the values come
    from tensorlab's generator, not torch's)."""
    weights, n, replacement = args

    def draw(lib):
        return list(lib.utils.data.WeightedRandomSampler(weights, n, replacement))

    ours, theirs = raises_same(lambda: draw(tl), lambda: draw(torch))
    if theirs is not None:
        assert len(ours) == len(theirs) == n
        assert all(0 <= i < len(weights) for i in ours)
        if replacement:
            assert all(weights[i] > 0 for i in ours)
        else:
            assert len(set(ours)) == n
            nonzero = sum(w > 0 for w in weights)
            assert all(weights[i] > 0 for i in ours[:nonzero])  # zero weights come last
