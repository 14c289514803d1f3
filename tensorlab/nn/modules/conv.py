"""Convolution layers (``torch/nn/modules/conv.py``): ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d``
and ``LazyConv1d/2d/3d`` (``in_channels`` taken from the first input)."""

from __future__ import annotations

import math
import warnings

from ... import _dtype as D
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .module import Module
from .utils import _pair, _reverse_repeat_tuple, _single, _triple

__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
]


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
        if transposed:
            shape = (in_channels, out_channels // groups, *kernel_size)
        else:
            shape = (out_channels, in_channels // groups, *kernel_size)
        from ._factory import _meta_or_none, check_device

        check_device(device)
        device = _meta_or_none(device)
        self.weight = Parameter(empty(shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """PyTorch's default: kaiming-uniform with ``a=sqrt(5)``, i.e. U(-b, b), b = 1/sqrt(fan_in).

        The bias uses the same bound. Values come from tensorlab's seeded generator
        (``tensorlab.manual_seed``); they follow PyTorch's distribution, not its exact numbers.
        """
        fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
        if 0 in tuple(self.weight.shape):
            warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        else:
            init.uniform_(self.weight, -1.0 / math.sqrt(fan_in), 1.0 / math.sqrt(fan_in))
        if self.bias is not None:
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

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


class Conv3d(_ConvNd):
    """3-D convolution layer, exactly like ``torch.nn.Conv3d``: (N, C_in, D, H, W) inputs."""

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
            _triple(kernel_size),
            _triple(stride),
            padding if isinstance(padding, str) else _triple(padding),
            _triple(dilation),
            False,
            _triple(0),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _conv_forward(self, input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
        if self.padding_mode != "zeros":
            return F.conv3d(
                F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode),
                weight,
                bias,
                self.stride,
                _triple(0),
                self.dilation,
                self.groups,
            )
        return F.conv3d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input: Tensor) -> Tensor:
        return self._conv_forward(input, self.weight, self.bias)


# ---------------------------------------------------------------------------- transposed


class _ConvTransposeNd(_ConvNd):
    """What the transposed layers share: zero padding only, and ``forward(input, output_size)``.

    The weight is (in_channels, out_channels/groups, *kernel_size): the shape of the convolution
    this layer transposes.
    """

    _spatial = 0
    _ntuple = staticmethod(_single)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups: int = 1,
        bias: bool = True,
        dilation=1,
        padding_mode: str = "zeros",
        device=None,
        dtype=None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        t = self._ntuple
        super().__init__(
            in_channels,
            out_channels,
            t(kernel_size),
            t(stride),
            t(padding),
            t(dilation),
            True,
            t(output_padding),
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )

    def _output_padding(
        self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None
    ) -> list[int]:
        """The ``output_padding`` that gives ``output_size`` (PyTorch's rule and messages)."""
        if output_size is None:
            return list(_single(self.output_padding))
        has_batch_dim = input.dim() == num_spatial_dims + 2
        num_non_spatial_dims = 2 if has_batch_dim else 1
        if len(output_size) == num_non_spatial_dims + num_spatial_dims:
            output_size = output_size[num_non_spatial_dims:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must "
                f"have {num_spatial_dims} or {num_non_spatial_dims + num_spatial_dims} elements "
                f"(got {len(output_size)})"
            )
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            dim_size = (
                (input.size(d + num_non_spatial_dims) - 1) * stride[d]
                - 2 * padding[d]
                + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1)
                + 1
            )
            min_sizes.append(dim_size)
            max_sizes.append(min_sizes[d] + stride[d] - 1)
        for i in range(len(output_size)):
            size, lo, hi = output_size[i], min_sizes[i], max_sizes[i]
            if size < lo or size > hi:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range "
                    f"from {min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [output_size[d] - min_sizes[d] for d in range(num_spatial_dims)]

    def forward(self, input: Tensor, output_size=None) -> Tensor:
        n = self._spatial
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for ConvTranspose{n}d")
        output_padding = self._output_padding(
            input, output_size, self.stride, self.padding, self.kernel_size, n, self.dilation
        )
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            output_padding,
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution layer, exactly like ``torch.nn.ConvTranspose1d``.

    ``ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros')``.
    """

    _spatial = 1
    _ntuple = staticmethod(_single)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution layer ("deconvolution"), exactly like ``torch.nn.ConvTranspose2d``.

    ``forward(input, output_size=None)``: a strided convolution maps several input sizes to one
    output size; ``output_size`` picks which one to go back to (it sets ``output_padding``).
    """

    _spatial = 2
    _ntuple = staticmethod(_pair)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution layer, exactly like ``torch.nn.ConvTranspose3d``."""

    _spatial = 3
    _ntuple = staticmethod(_triple)


# ---------------------------------------------------------------------------- lazy


class _LazyConvXdMixin:
    """``in_channels`` is read from the first input (the d2l book's ``nn.LazyConv2d``).

    Until then the layer has ``in_channels == 0`` and ``UninitializedParameter`` weights (their
    ``shape`` raises); the first call materialises and initialises them, and the layer becomes
    the plain class it stands for (``cls_to_become``), as in PyTorch.
    """

    cls_to_become: type = Module
    _lazy_spatial = 2

    def reset_parameters(self) -> None:
        if self.in_channels != 0:
            super().reset_parameters()

    def __call__(self, *args, **kwargs):
        if self.in_channels == 0 and args:
            self.initialize_parameters(args[0])  # now an instance of ``cls_to_become``
            return self(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def initialize_parameters(self, input: Tensor) -> None:
        n = self._lazy_spatial
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(
                f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                f"{self.__class__.__name__}, but got input of size: {input.shape}"
            )
        self.in_channels = input.shape[1] if input.dim() == n + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()
        self.__class__ = self.cls_to_become


def _lazy(name: str, base: type, spatial: int) -> type:
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        bias=True,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        # PyTorch builds the layer with 0 input and 0 output channels, then sets out_channels
        # (so out_channels % groups is never checked)
        base.__init__(
            self,
            0,
            0,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    doc = (
        f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first input: "
        f"``{name}(out_channels, kernel_size, ...)``."
    )
    return type(
        name,
        (_LazyConvXdMixin, base),
        {
            "__init__": __init__,
            "__doc__": doc,
            "cls_to_become": base,
            "_lazy_spatial": spatial,
            "__module__": __name__,
        },
    )


LazyConv1d = _lazy("LazyConv1d", Conv1d, 1)
LazyConv2d = _lazy("LazyConv2d", Conv2d, 2)
LazyConv3d = _lazy("LazyConv3d", Conv3d, 3)


def _lazy_transpose(name: str, base: type, spatial: int) -> type:
    def __init__(
        self,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        bias=True,
        dilation=1,
        padding_mode="zeros",
        device=None,
        dtype=None,
    ):
        # as PyTorch: built with 0 in/out channels and no bias, then out_channels (and a bias
        # to come) are set
        base.__init__(
            self,
            0,
            0,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            False,
            dilation,
            padding_mode,
            device,
            dtype,
        )
        self.out_channels = out_channels
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    doc = (
        f"A :class:`{base.__name__}` whose ``in_channels`` is inferred from the first input: "
        f"``{name}(out_channels, kernel_size, ...)``."
    )
    return type(
        name,
        (_LazyConvXdMixin, base),
        {
            "__init__": __init__,
            "__doc__": doc,
            "cls_to_become": base,
            "_lazy_spatial": spatial,
            "__module__": __name__,
        },
    )


LazyConvTranspose1d = _lazy_transpose("LazyConvTranspose1d", ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_transpose("LazyConvTranspose2d", ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_transpose("LazyConvTranspose3d", ConvTranspose3d, 3)
