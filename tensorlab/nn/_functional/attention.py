"""``scaled_dot_product_attention``, composed of tensor ops as torch's math kernel is
(aten/src/ATen/native/transformers/attention.cpp, ``_scaled_dot_product_attention_math``):
``q`` and ``k`` each scaled by ``sqrt(scale)``, the mask added, a "safe" softmax (rows with
every position masked give zeros, not NaN), dropout from the seeded generator, ``@ v``. Its
autograd graph is the ops' own, as torch's is when an input requires grad."""

from __future__ import annotations

import math

from ... import _dtype as D
from ..._tensor import Tensor
from ._util import check_tensor


def _type_name(t: Tensor) -> str:
    return D.TYPE_NAME.get(t.dtype.name, t.dtype.name)  # the C++ names torch's messages print


def _check(query: Tensor, key: Tensor, value: Tensor, attn_mask, dropout_p: float, is_causal):
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_tensor(t, "scaled_dot_product_attention", name, {"query": 1, "key": 2}.get(name, 3))
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_type_name(query)} key.dtype: {_type_name(key)} and value.dtype: "
            f"{_type_name(value)} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got "
            f"query.dim: {query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead."
        )
    if attn_mask is not None and is_causal:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    if attn_mask is not None and not isinstance(attn_mask, Tensor):
        raise TypeError(
            "scaled_dot_product_attention(): argument 'attn_mask' must be Tensor, not "
            f"{type(attn_mask).__name__}"
        )
    if (
        attn_mask is not None
        and attn_mask.dtype is not D.bool_
        and attn_mask.dtype is not query.dtype
    ):
        raise RuntimeError(
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            f"attn_mask.dtype: {_type_name(attn_mask)} and  query.dtype: {_type_name(query)} "
            "instead."
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")


def _bool_to_additive(mask: Tensor, dtype) -> Tensor:
    """torch's ``convert_boolean_attn_mask``: True takes part (0.0), False is ``-inf``."""
    from ... import full, where, zeros

    dev = mask.device
    return where(
        mask.logical_not(),
        full((), -math.inf, dtype=dtype, device=dev),
        zeros((), dtype=dtype, device=dev),
    )


def _safe_softmax(x: Tensor) -> Tensor:
    """Softmax over the last dim, with rows that are all ``-inf`` giving zeros."""
    from ... import where, zeros

    out = x.softmax(-1)
    if x.device.type == "meta":  # shapes only: no values to look at
        return out
    masked_rows = (x == -math.inf).all(-1, keepdim=True)
    if bool(masked_rows.any()):
        out = where(masked_rows, zeros((), dtype=out.dtype, device=out.device), out)
    return out


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q @ k.T * scale + mask) @ v`` over the last two dims (``scale`` defaults to
    ``1/sqrt(E)``; a bool mask marks the positions that take part; ``is_causal`` keeps the
    lower triangle; ``enable_gqa`` repeats key/value heads to the query's head count)."""
    from ... import ones

    _check(query, key, value, attn_mask, dropout_p, is_causal)
    negative = scale is not None and scale < 0
    base = 1.0 / math.sqrt(query.shape[-1]) if scale is None else abs(scale)
    factor = math.sqrt(base)
    q = query * (-factor if negative else factor)
    mask = attn_mask
    if mask is not None and mask.dtype is D.bool_:
        mask = _bool_to_additive(mask, query.dtype)
    if is_causal:
        L, S = query.shape[-2], key.shape[-2]
        causal = ones((L, S), dtype=D.bool_).tril().to(query.device)  # tril has no meta kernel
        mask = _bool_to_additive(causal, query.dtype)
    k, v = key, value
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError(
                "Number of heads in key and value must divide the number of heads in query"
            )
        if hk != hq:
            k = key.repeat_interleave(hq // hk, -3)
        if hv != hq:
            v = value.repeat_interleave(hq // hv, -3)
    attn = q.matmul(k.transpose(-2, -1) * factor)
    if mask is not None:
        attn = attn + mask
    attn = _safe_softmax(attn)
    if dropout_p > 0.0:
        from .activation import dropout

        attn = dropout(attn, dropout_p, True)
    return attn.matmul(v)
