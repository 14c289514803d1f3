"""Ops that attach themselves to ``Tensor`` (and to the ``tensorlab`` namespace) when imported."""

from . import (  # noqa: F401
    copies,
    creation,
    indexing,
    keywords,  # noqa: F401  (last: gives the ops above their keyword forms)
    math,
    reduce,
    scatter_gather,
    shape_ops,
)
