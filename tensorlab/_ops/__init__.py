"""Ops that attach themselves to ``Tensor`` (and to the ``tensorlab`` namespace) when imported."""

from . import copies, creation, indexing, math, reduce  # noqa: F401

# isort: split
from . import sorting, views  # noqa: F401  (strided views; sorting and counting)
