"""Ops that attach themselves to ``Tensor`` (and to the ``tensorlab`` namespace) when imported."""

from . import copies, creation, indexing, math, reduce, scatter_gather, shape_ops  # noqa: F401

# isort: split
from . import distributions, sorting, views  # noqa: F401  (random fills; views; sorting)

# isort: split
# last: gives the ops imported above PyTorch's keyword forms
from . import keywords  # noqa: F401
