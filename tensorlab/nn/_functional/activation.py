"""Activations and dropout: ``relu``, ``leaky_relu``, ``elu``, ``gelu``, ``sigmoid``, ``tanh``,
``softmax``, ``log_softmax``, ``dropout`` (torch/nn/functional.py's activation section)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import _dtype as D
from ... import _layout as L
from ..._ops._elementwise import output_strides
from ..._tensor import Tensor, from_array
from ...autograd import nn_ops as N
from ._util import check_tensor, compute_dtype, record

_erf_scalar = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, in float64 (numpy has none; ``math.erf`` is exact)."""
    return _erf_scalar(np.asarray(x, dtype=np.float64)).astype(np.float64)


def _float_input(x: Tensor, name: str) -> None:
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"{name}\" not implemented for '{D.SCALAR_NAME[x.dtype.name]}'")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)`` elementwise (``ReluBackward0``)."""
    check_tensor(input, "relu")
    return input.relu_() if inplace else input.relu()


def relu_(input: Tensor) -> Tensor:
    return input.relu_()


def _meta_result(input: Tensor, node: str, inplace: bool) -> Tensor:
    """An activation of a meta tensor: ``input`` itself in place, else a result shaped like it."""
    from ..._ops import meta

    return input.mul_(1.0) if inplace else meta.same_shape(input, node, input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, ``negative_slope * x`` elsewhere (``LeakyReluBackward0``)."""
    check_tensor(input, "leaky_relu")
    _float_input(input, "leaky_relu_cpu")
    if input.is_meta:  # the meta device: the shape, no data
        return _meta_result(input, "LeakyReluBackward0", inplace)
    x = input._np()
    slope = np.asarray(negative_slope, dtype=x.dtype)
    res = np.where(x > 0, x, x * slope)
    if inplace:
        from ..._tensor import check_inplace

        check_inplace(input)
        x[...] = res
        return input
    out = from_array(res, input.dtype, stride=output_strides(np.shape(res), (input,)))
    return record(out, lambda: N.LeakyReluBackward0(input, negative_slope), input)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere (``EluBackward0``)."""
    check_tensor(input, "elu")
    _float_input(input, "elu")
    if input.is_meta:  # the meta device: the shape, no data
        return _meta_result(input, "EluBackward0", inplace)
    x = input._np()
    ct = compute_dtype(input.dtype)
    xc = x.astype(ct, copy=False)
    res = np.where(xc > 0, xc, np.asarray(alpha, dtype=ct) * np.expm1(np.minimum(xc, 0)))
    if inplace:
        from ..._tensor import check_inplace

        check_inplace(input)
        x[...] = res
        return input
    out = from_array(res, input.dtype, stride=output_strides(np.shape(res), (input,)))
    return record(out, lambda: N.EluBackward0(input, alpha), input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (Phi the standard normal CDF), or its tanh approximation."""
    check_tensor(input, "gelu")
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _float_input(input, "GeluKernelImpl")
    if input.is_meta:  # the meta device: the shape, no data
        return _meta_result(input, "GeluBackward0", False)
    x = input._np().astype(np.float64)
    if approximate == "tanh":
        res = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    else:
        res = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    out = from_array(res, input.dtype, stride=output_strides(np.shape(res), (input,)))
    return record(out, lambda: N.GeluBackward0(input, approximate), input)


def sigmoid(input: Tensor) -> Tensor:
    check_tensor(input, "sigmoid")
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    check_tensor(input, "tanh")
    return input.tanh()


def _get_softmax_dim(name: str, ndim: int, stacklevel: int = 3) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_common(input, dim, dtype, name: str, log: bool) -> Tensor:
    check_tensor(input, name)
    if dim is None:
        dim = _get_softmax_dim(name, input.ndim, stacklevel=4)
    x = input if dtype is None else input.to(dtype)
    d = L.wrap_dim(dim, x.ndim) if x.ndim else 0
    if not x.dtype.is_floating_point:
        kernel = ("log_" if log else "") + (
            "softmax_lastdim_kernel_impl" if d == x.ndim - 1 else "softmax_kernel_impl"
        )
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{D.SCALAR_NAME[x.dtype.name]}'"
        )
    if x.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        node = "LogSoftmaxBackward0" if log else "SoftmaxBackward0"
        return meta.same_shape(x, node, x)
    arr = x._np()
    ct = compute_dtype(x.dtype)
    a = arr.astype(ct, copy=False)
    if a.ndim == 0:
        a = a.reshape(1)
    m = a.max(axis=d, keepdims=True) if a.size else a
    with np.errstate(invalid="ignore", over="ignore"):
        shifted = a - m
        e = np.exp(shifted)
        s = e.sum(axis=d, keepdims=True)
        res = shifted - np.log(s) if log else e / s
    res = res.reshape(arr.shape)
    out = from_array(res, x.dtype, fresh=True)
    node = N.LogSoftmaxBackward0 if log else N.SoftmaxBackward0
    return record(out, lambda: _dim_as_given(node(x, out, d if x.ndim else 0), dim), x)


def _dim_as_given(node, dim):
    node._dim_arg = dim  # (``grad_fn._saved_dim`` shows the dim as the caller gave it)
    return node


def softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``SoftmaxBackward0``)."""
    return _softmax_common(input, dim, dtype, "softmax", log=False)


def log_softmax(input: Tensor, dim=None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``, computed stably (``LogSoftmaxBackward0``)."""
    return _softmax_common(input, dim, dtype, "log_softmax", log=True)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` (training
    only; the identity in eval). The mask comes from tensorlab's seeded generator."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    check_tensor(input, "dropout")
    if not training or p == 0:
        return input  # torch hands back the input itself
    if input.is_meta:  # the meta device: the shape, no data (and no draw from the generator)
        from ..._ops import meta

        return input.mul_(1.0) if inplace else meta.same_shape(input, "MulBackward0", input)
    if p == 1:
        m = from_array(np.zeros((), dtype=input.dtype.np), input.dtype, fresh=True)
    else:
        m = _dropout_noise(input, tuple(input.shape), p)
    return input.mul_(m) if inplace else input.mul(m)


def _dropout_noise(like, shape, p, dtype=None):
    """ATen's dropout noise: ``bernoulli_(1 - p)`` (laid out like ``like``: ``empty_like``), then
    ``div_(1 - p)`` in the input's dtype."""
    from ..._ops.creation import empty, empty_like
    from ..._ops.distributions import _fill_bernoulli

    noise = empty(shape, dtype=dtype) if like is None else empty_like(like)
    _fill_bernoulli(noise, 1 - p)
    arr = noise._np()
    arr[...] = arr / np.asarray(1 - p, dtype=arr.dtype)
    return noise


def torch_softmax(input: Tensor, dim=None, dtype=None) -> Tensor:
    """``tensorlab.softmax(input, dim, dtype=None)``: ``dim`` is required (torch.softmax)."""
    if dim is None:
        raise TypeError('softmax() missing 1 required positional arguments: "dim"')
    return _softmax_common(input, dim, dtype, "softmax", log=False)


def torch_log_softmax(input: Tensor, dim=None, dtype=None) -> Tensor:
    """``tensorlab.log_softmax(input, dim, dtype=None)``: ``dim`` is required."""
    if dim is None:
        raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
    return _softmax_common(input, dim, dtype, "log_softmax", log=True)


def _elementwise_result(input: Tensor, res, inplace: bool, make_node) -> Tensor:
    if inplace:
        from ..._tensor import check_inplace

        check_inplace(input)
        input._np()[...] = res
        return input
    out = from_array(res, input.dtype, stride=output_strides(np.shape(res), (input,)))
    return record(out, make_node, input)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (``SiluBackward0``)."""
    check_tensor(input, "silu")
    _float_input(input, "silu")
    if input.is_meta:  # the meta device: the shape, no data
        return _meta_result(input, "SiluBackward0", inplace)
    x = input._np()
    with np.errstate(over="ignore"):
        res = x / (1 + np.exp(-x))
    return _elementwise_result(input, res, inplace, lambda: N.SiluBackward0(input))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta x)) / beta``, and ``x`` where ``beta x > threshold``."""
    check_tensor(input, "softplus")
    _float_input(input, "softplus")
    if input.is_meta:  # the meta device: the shape, no data
        return _meta_result(input, "SoftplusBackward0", False)
    x = input._np()
    bx = x * np.asarray(beta, dtype=x.dtype)
    with np.errstate(over="ignore"):
        res = np.where(bx > threshold, x, np.log1p(np.exp(bx)) / np.asarray(beta, dtype=x.dtype))
    return _elementwise_result(
        input, res.astype(x.dtype), False, lambda: N.SoftplusBackward0(input, beta, threshold)
    )


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``clamp(x, min_val, max_val)`` (``HardtanhBackward0``)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    check_tensor(input, "hardtanh")
    x = input._np()
    res = np.clip(x, np.asarray(min_val).astype(x.dtype), np.asarray(max_val).astype(x.dtype))
    return _elementwise_result(
        input, res, inplace, lambda: N.HardtanhBackward0(input, min_val, max_val)
    )


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``hardtanh(x, 0, 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels (dim 1 of (N, C, H, W); of (N, C, L) for a 3-d input, as torch does
    today) with probability ``p``, scaling the kept ones by ``1/(1-p)``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    check_tensor(input, "dropout2d")
    inp_dim = input.ndim
    if inp_dim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {inp_dim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if inp_dim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if not training or p == 0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * max(input.ndim - 2, 0)
    if p == 1:
        m = from_array(np.zeros((), dtype=input.dtype.np), input.dtype, fresh=True)
    else:
        m = _dropout_noise(None, shape, p, input.dtype)
    return input.mul_(m) if inplace else input.mul(m)
