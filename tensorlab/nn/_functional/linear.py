"""``linear`` (one matrix product, ``AddmmBackward0``) and ``one_hot``."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, from_array
from ...autograd import nn_ops as N
from .._blas import matmul
from ._util import check_tensor, needs_record, record

_C_NAME = {
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def _addmm(x2: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """``bias + x2 @ weight.T`` for 2-d ``x2``, recorded as one node."""
    if x2.is_meta or weight.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        node = "MmBackward0" if bias is None else "AddmmBackward0"
        meta.any_meta(x2, weight, bias)
        return meta.result((x2.shape[0], weight.shape[0]), x2, node, x2, weight, bias)
    a, w = x2._np(), weight._np()
    res = matmul(a, w.T)  # one BLAS thread for small products (see nn/_blas.py)
    if bias is not None:
        res += bias._np()
    out = from_array(res, x2.dtype, fresh=True)
    return record(out, lambda: N.AddmmBackward0(bias, x2, weight), x2, weight, bias)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: weight is (out_features, in_features)."""
    check_tensor(input, "linear")
    check_tensor(weight, "linear", "weight", 2)
    if bias is not None:
        check_tensor(bias, "linear", "bias", 3)
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
            f"{weight.ndim}D"
        )
    if weight.ndim != 2:
        return _general(input, weight, bias)
    k = input.shape[-1]
    rows = 1
    for s in input.shape[:-1]:
        rows *= s
    if k != weight.shape[1]:
        if input.is_meta or weight.is_meta:  # the words of PyTorch's meta kernel
            raise RuntimeError(
                f"a and b must have same reduction dim, but got [{rows}, {k}] X "
                f"[{weight.shape[1]}, {weight.shape[0]}]."
            )
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and "
            f"{weight.shape[1]}x{weight.shape[0]})"
        )
    if bias is not None and bias.dtype is not weight.dtype:
        raise RuntimeError(
            "self and mat2 must have the same dtype, but got "
            f"{D.SCALAR_NAME[bias.dtype.name]} and {D.SCALAR_NAME[weight.dtype.name]}"
        )
    if input.dtype is not weight.dtype:
        if bias is not None:
            raise RuntimeError(
                "mat1 and mat2 must have the same dtype, but got "
                f"{D.SCALAR_NAME[input.dtype.name]} and {D.SCALAR_NAME[weight.dtype.name]}"
            )
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_C_NAME[input.dtype.name]} != {_C_NAME[weight.dtype.name]}"
        )
    if input.ndim == 2:
        return _addmm(input, weight, bias)
    if bias is not None and not input.is_contiguous():
        # torch: matmul(input, weight.t()), then the bias is added (AddBackward0)
        return linear(input, weight) + bias
    x2 = input.reshape(rows, k) if input.ndim > 1 else input.unsqueeze(0)
    out = _addmm(x2, weight, bias)
    shape = (*input.shape[:-1], weight.shape[0])
    if input.ndim == 1:
        if bias is not None:
            return out.view(shape)
        out = out.squeeze(0)
        if out.grad_fn is not None:
            out.grad_fn._name = "SqueezeBackward4"  # torch squeezes a dims list here
        return out
    if bias is None and needs_record(input, weight):
        return out._unsafe_view(shape)
    return out.view(shape)


def _general(input, weight, bias):
    """``weight`` of 1 dimension: ``input @ weight`` (+ bias), as torch's matmul fallback."""
    out = input.matmul(weight.t() if weight.ndim == 2 else weight)
    return out + bias if bias is not None else out


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``(*, num_classes)`` int64 zeros with a 1 at each index (``num_classes=-1``: max + 1)."""
    check_tensor(tensor, "one_hot", "self")
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    idx = tensor._np()
    if num_classes == -1:
        if idx.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(idx.max()) + 1
    if idx.size and idx.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if idx.size and idx.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    res = np.zeros((*idx.shape, num_classes), dtype=np.int64)
    np.put_along_axis(res, idx[..., None], 1, axis=-1)
    return from_array(res, D.int64, fresh=True)
