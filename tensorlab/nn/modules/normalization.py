"""``LayerNorm`` (``torch/nn/modules/normalization.py``)."""

from __future__ import annotations

import numbers

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ._factory import empty_param
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    """Normalises the last ``len(normalized_shape)`` dims of each sample, then applies a
    learnable elementwise ``weight`` (ones) and ``bias`` (zeros)."""

    def __init__(
        self,
        normalized_shape,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(empty_param(self.normalized_shape, device, dtype))
            if bias:
                self.bias = Parameter(empty_param(self.normalized_shape, device, dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )
