"""``tensorlab.nn.init``: fill a tensor in place, without recording gradients (``torch/nn/init.py``).

The random fills are ``Tensor.uniform_``/``normal_`` of PyTorch's generator (``tensorlab.manual_seed``),
so layers built after the same seed get PyTorch's parameters, bit for bit. ``dirac_`` builds the identity
convolution kernel: a conv whose weight is ``dirac_``-filled copies its input channels.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._tensor import Tensor

__all__ = [
    "calculate_gain",
    "constant_",
    "dirac_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "sparse_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def _write(tensor: Tensor, values) -> Tensor:
    """Write ``values`` into ``tensor``'s memory (no autograd; the version counter moves)."""
    if not tensor.is_meta:  # a meta tensor has no data to write
        arr = tensor._np()
        arr[...] = values
    tensor._vc[0] += 1
    return tensor


def _drawn(tensor: Tensor, fill, *args) -> Tensor:
    """``fill`` (a random fill of ``_ops.distributions``) in place, as ``tensor.uniform_()``
    under ``no_grad``: the version counter moves."""
    if not tensor.is_meta:  # a meta tensor has no data (and draws nothing from the generator)
        fill(tensor, *args)
    tensor._vc[0] += 1
    return tensor


def calculate_gain(nonlinearity, param=None) -> float:
    """The recommended gain for ``nonlinearity`` (``relu``: sqrt(2), ``tanh``: 5/3, ...)."""
    linear_fns = [
        "linear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
    ]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    """Fill with U(a, b)."""
    from .._ops.distributions import _fill_uniform

    return _drawn(tensor, _fill_uniform, a, b, generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2)."""
    from .._ops.distributions import _fill_normal

    return _drawn(tensor, _fill_normal, mean, std, generator)


def trunc_normal_(tensor: Tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None) -> Tensor:
    """Fill with N(mean, std^2) restricted to [a, b], as torch does it (the same draws): when
    [a, b] holds more than 30% of the mass, normal draws with the outliers redrawn; otherwise
    uniform candidates on [a, b] accepted against the normal density."""
    from .._ops.distributions import _fill_normal, _fill_uniform

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    dt = tensor._np().dtype

    def fresh(fill, *args):
        t = Tensor._from_array(np.empty(tuple(tensor.shape), dt), tensor.dtype)
        return fill(t, *args, generator)._np()

    if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
        lo, hi = dt.type(a), dt.type(b)
        result = fresh(_fill_normal, mean, std)
        while True:
            mask = (result < lo) | (result > hi)
            if not mask.any():
                break
            result = np.where(mask, fresh(_fill_normal, mean, std), result)
        return _write(tensor, result)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_pdf(c):  # candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        c = (c - dt.type(mean)) / dt.type(std)
        return (c * c) * dt.type(-0.5) - dt.type(log_peak)

    result = fresh(_fill_uniform, a, b)
    cand = log_pdf(result)
    with np.errstate(divide="ignore"):
        pending = np.log(fresh(_fill_uniform, 0.0, 1.0)) > cand
        while pending.any():
            c = fresh(_fill_uniform, a, b)
            result = np.where(pending, c, result)
            pending = np.where(
                pending, np.log(fresh(_fill_uniform, 0.0, 1.0)) > log_pdf(c), pending
            )
    return _write(tensor, result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    return _write(tensor, val)


def ones_(tensor: Tensor) -> Tensor:
    return _write(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return _write(tensor, 0)


def eye_(tensor: Tensor) -> Tensor:
    """The 2-d identity (ones on the diagonal of a possibly rectangular matrix)."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity convolution kernel: ``weight[g*out_per_group + d, d, centre...] = 1``, so a
    convolution with this weight (and 'same' padding) copies input channel ``d`` to output
    channel ``d`` of each group."""
    dimensions = tensor.ndimension()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    values = np.zeros(tuple(sizes))
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min_dim):
            values[(g * out_chans_per_grp + d, d, *centre)] = 1
    return _write(tensor, values)


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al.)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator=None,
) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw (the signs fixed by
    ``R``'s diagonal), times ``gain``; dimensions after the first are flattened. The draw is
    torch's; the QR is LAPACK's through numpy, so the values agree with torch's to rounding."""
    from .. import diag, no_grad
    from .. import linalg as _linalg

    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
    if rows < cols:
        flattened.t_()
    q, r = _linalg.qr(flattened)
    d = diag(r, 0)
    ph = d.sign()
    q *= ph
    if rows < cols:
        q.t_()
    with no_grad():
        tensor.view_as(q).copy_(q)
        tensor.mul_(gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """Normal(0, ``std``) values with ``ceil(sparsity * rows)`` zeros in each column (rows
    chosen by ``randperm``, as torch chooses them)."""
    from .. import no_grad, randperm

    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        for col_idx in range(cols):
            row_indices = randperm(rows)
            zero_indices = row_indices[:num_zeros]
            tensor[zero_indices, col_idx] = 0
    return tensor


# the names without the trailing underscore: deprecated in torch, still accepted (FutureWarning)
def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"""{old_name}(...): deprecated, use ``nn.init.{new_name}``."""
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
