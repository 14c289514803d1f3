"""Shared pieces of the convolution-family tests: strided twins of a numpy array (the same values
in a chosen memory layout: channels-last, transposed, sliced, expanded) as tensorlab tensors, and
torch's transposed convolution of a hypothesis case (:func:`transposed_reference`)."""

from __future__ import annotations

import numpy as np

import tensorlab as tl

LAYOUTS = ("contiguous", "channels_last", "transposed", "sliced", "expanded")


def strided(arr: np.ndarray, how: str) -> tl.Tensor:
    """A tensorlab tensor with ``arr``'s values laid out as ``how`` says (a view of a base)."""
    if how == "channels_last" and arr.ndim in (4, 5):
        perm = (0, *range(2, arr.ndim), 1)
        inv = tuple(int(i) for i in np.argsort(perm))
        return tl.from_numpy(np.ascontiguousarray(arr.transpose(perm))).permute(*inv)
    if how == "transposed" and arr.ndim >= 2:
        base = np.ascontiguousarray(np.swapaxes(arr, -1, -2))
        return tl.from_numpy(base).transpose(-1, -2)
    if how == "sliced" and arr.ndim >= 1:
        big = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],), dtype=arr.dtype)
        big[..., ::2] = arr
        return tl.from_numpy(big)[..., ::2]
    if how == "expanded" and arr.ndim >= 1 and arr.shape[0] >= 1:
        # the same image repeated along dim 0 (stride 0): only valid when all are equal
        first = np.ascontiguousarray(arr[:1])
        arr[...] = first
        return tl.from_numpy(first).expand(*arr.shape)
    return tl.from_numpy(np.ascontiguousarray(arr))


def transposed_reference(torch, case: dict):
    """(x, w, output sizes, torch's ``conv_transposeNd``) for a hypothesis case dict with shapes
    ``x``/``w``, ``stride``, ``padding``, ``dilation``, ``output_padding``, ``groups``, ``seed``
    and optionally ``dtype`` (default float64); cases with an empty output are rejected."""
    from hypothesis import assume

    from tensorlab.nn._conv_transpose import transposed_out_sizes

    rng = np.random.default_rng(case["seed"])
    dtype = case.get("dtype", "float64")
    x = rng.standard_normal(case["x"]).astype(dtype)
    w = rng.standard_normal(case["w"]).astype(dtype)
    out = transposed_out_sizes(
        case["x"][2:],
        case["w"][2:],
        case["stride"],
        case["padding"],
        case["dilation"],
        case["output_padding"],
    )
    assume(all(o > 0 for o in out))
    fn = getattr(torch.nn.functional, f"conv_transpose{len(case['x']) - 2}d")
    ref = fn(
        torch.from_numpy(x),
        torch.from_numpy(w),
        stride=case["stride"],
        padding=case["padding"],
        output_padding=case["output_padding"],
        groups=case["groups"],
        dilation=case["dilation"],
    ).numpy()
    return x, w, out, ref


#: tolerances of a transposed-convolution result against torch's (float32 sums in another order)
TRANSPOSED_TOL = {"float64": 1e-10, "float32": 2e-4}


def assert_close_transposed(ours: np.ndarray, ref: np.ndarray) -> None:
    """``ours`` equals torch's ``ref`` within :data:`TRANSPOSED_TOL`, relative to its largest
    value (same dtype and shape)."""
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    tol = TRANSPOSED_TOL[str(ref.dtype)]
    scale = max(1.0, float(np.abs(ref).max(initial=0)))
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol * scale)
