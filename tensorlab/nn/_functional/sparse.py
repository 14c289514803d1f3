"""``embedding``: rows of a weight matrix looked up by index (``EmbeddingBackward0``)."""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, from_array
from ...autograd import nn_ops as N
from ._util import check_tensor, record


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """``weight[input]``: (*, ) indices -> (*, embedding_dim). ``padding_idx``'s row gets no
    gradient; ``max_norm`` renormalises the looked-up rows of ``weight`` in place first."""
    check_tensor(input, "embedding")
    check_tensor(weight, "embedding", "weight", 2)
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.shape[0]:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.shape[0] + padding_idx
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in (D.int64, D.int32):
        if input.is_meta:  # the words of PyTorch's meta kernel
            raise RuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                f"types: Long, Int; but got tensorlab.{input.dtype.name} instead"
            )
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got tensorlab.{input.dtype._legacy} instead (while checking "
            "arguments for embedding)"
        )
    if input.is_meta or weight.is_meta:  # the meta device: the shape, no data
        from ..._ops import meta

        meta.any_meta(input, weight)
        shape = (*input.shape, weight.shape[1])
        return meta.result(shape, weight, "EmbeddingBackward0", weight)
    idx = input._np().astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= weight.shape[0]):
        raise IndexError("index out of range in self")
    w = weight._np()
    if max_norm is not None:
        rows = np.unique(idx)
        norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w[rows] = (w[rows] * scale[:, None]).astype(w.dtype)
        weight._vc[0] += 1
    out = from_array(w[idx], weight.dtype, fresh=True)
    return record(out, lambda: N.EmbeddingBackward0(weight, idx, padding_idx), weight)
