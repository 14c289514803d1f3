"""``SparseAdam`` (``torch/optim/sparse_adam.py``): Adam for sparse gradients only.

tensorlab has no sparse tensors, so every gradient a ``SparseAdam`` meets here is dense and its
``step()`` raises what torch raises for one (use ``Adam``); it is here so that code naming it
builds, prints and fails as it does in torch.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._tensor import Tensor
from ._single import check_betas, check_lr, check_nonneg
from .optimizer import Optimizer

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    def __init__(
        self,
        params: Iterable,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        check_lr(lr)
        check_nonneg(eps=eps)
        check_betas(betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group) -> None:
        raise RuntimeError(
            "SparseAdam does not support dense gradients, please consider Adam instead"
        )
