"""Ops that attach themselves to ``Tensor`` (and to the ``tensorlab`` namespace) when imported."""

from . import copies, creation, indexing, math, reduce, scatter_gather, shape_ops  # noqa: F401

# isort: split
from . import sorting, views  # noqa: F401  (strided views; sorting and counting)

# isort: split
# last: gives the ops imported above PyTorch's keyword forms
from . import keywords  # noqa: F401
