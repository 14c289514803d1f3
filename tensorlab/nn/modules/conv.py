"""Convolution layers: ``Conv1d``, ``Conv2d`` (``torch/nn/modules/conv.py``)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .. import functional as F
from ..parameter import Parameter
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single

__all__ = ["Conv1d", "Conv2d"]


class _ConvNd(Module):
    """What ``Conv1d`` and ``Conv2d`` share: checks, parameters, initialisation, ``repr``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: tuple[int, ...],
        stride: tuple[int, ...],
        padding: str | tuple[int, ...],
        dilation: tuple[int, ...],
        transposed: bool,
        output_padding: tuple[int, ...],
        groups: int,
        bias: bool,
        padding_mode: str,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}"
                )
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(
                f"padding_mode must be one of {valid_padding_modes}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            rev = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    rev[2 * i] = left
                    rev[2 * i + 1] = total - left
            self._reversed_padding_repeated_twice = rev
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(self.padding, 2)
        from ..._ops.creation import empty

        dtype = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
        self.weight = Parameter(
            empty((out_channels, in_channels // groups, *kernel_size), dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: kaiming-uniform with ``a=sqrt(5)``, i.e. U(-b, b), b = 1/sqrt(fan_in).

        The bias uses the same bound. Values come from tensorlab's seeded generator
        (``tensorlab.manual_seed``); they follow PyTorch's distribution, not its exact numbers.
        """
        fan_in = _fan_in(self.weight)
        if 0 in tuple(self.weight.shape):
            warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        else:
            _uniform_(self.weight, 1.0 / math.sqrt(fan_in))
        if self.bias is not None:
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            _uniform_(self.bias, bound)

    def extra_repr(self) -> str:
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


def _fan_in(weight: Tensor) -> int:
    if weight.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tuple(weight.shape)[2:]:
        receptive *= s
    return weight.shape[1] * receptive


def _uniform_(t: Tensor, bound: float) -> None:
    """Fill ``t`` in place with U(-bound, bound) from tensorlab's default generator."""
    from ..._ops.creation import default_generator

    values = default_generator._rng.uniform(-bound, bound, size=tuple(t.shape))
    t._np()[...] = np.asarray(values, dtype=t.dtype.np)


class Conv1d(_ConvNd):
    """1-D convolution layer: ``Conv1d(in_channels, out_channels, kernel_size, ...)``."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            _single(kernel_size),
            _single(stride),
            padding if isinstance(padding, str) else _single(padding),
            _single(dilation),
            False,
            _single(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv1d(
                F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                _single(0),
                self.dilation,
                self.groups,
            )
        return F.conv1d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


class Conv2d(_ConvNd):
    """2-D convolution layer, exactly like ``torch.nn.Conv2d``.

    ``Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    bias=True, padding_mode='zeros')``. ``weight`` has shape
    (out_channels, in_channels/groups, kH, kW); both ``in_channels`` and ``out_channels`` must be
    divisible by ``groups``. ``padding_mode`` other than ``'zeros'`` pads with ``F.pad``
    (``reflect``, ``replicate``, ``circular``) and then convolves without padding.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        super().__init__(
            in_channels,
            out_channels,
            _pair(kernel_size),
            _pair(stride),
            padding if isinstance(padding, str) else _pair(padding),
            _pair(dilation),
            False,
            _pair(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv2d(
                F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                _pair(0),
                self.dilation,
                self.groups,
            )
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)
