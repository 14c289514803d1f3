"""Broadcasting: the shapes tensorlab gives, and the dimension PyTorch names when shapes clash."""

from __future__ import annotations

import pytest
from helpers import raises_same
from hypothesis import given
from hypothesis import strategies as st

import tensorlab as tl

shapes = st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple)


@pytest.mark.oracle
@given(a=shapes, b=shapes)
def test_binary_broadcast_shape_or_error(torch, a, b):
    """ATen's infer_size walks from the trailing dim: the dim named is the last one that clashes."""
    ours, theirs = raises_same(
        lambda: tl.ones(a) * tl.ones(b), lambda: torch.ones(a) * torch.ones(b)
    )
    if theirs is not None:
        assert tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.oracle
@given(a=shapes, b=shapes, c=shapes)
def test_three_operands_broadcast_pairwise(torch, a, b, c):
    """``where`` broadcasts condition, input and other pairwise, left to right."""
    ours, theirs = raises_same(
        lambda: tl.where(tl.ones(a) > 0, tl.ones(b), tl.ones(c)),
        lambda: torch.where(torch.ones(a) > 0, torch.ones(b), torch.ones(c)),
    )
    if theirs is not None:
        assert tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.oracle
@pytest.mark.parametrize(
    "a, b", [((2, 3), (3, 2)), ((2, 3, 4), (3, 2, 5)), ((5, 1, 4), (3, 1, 2)), ((2, 3), (2, 3, 4))]
)
def test_several_mismatches_name_the_trailing_one(torch, a, b):
    raises_same(lambda: tl.ones(a) + tl.ones(b), lambda: torch.ones(a) + torch.ones(b))
