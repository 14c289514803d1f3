"""Distance modules (``torch/nn/modules/distance.py``): ``PairwiseDistance``."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Module):
    """``F.pairwise_distance``: the p-norm of ``x1 - x2 + eps`` over the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
