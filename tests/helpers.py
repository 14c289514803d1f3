"""Helpers for differential tests: tensorlab against the real PyTorch oracle."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorlab as tl

IN_CI = bool(os.environ.get("CI"))


def require_torch():
    """Import torch 2.13.0, or skip (locally) / fail (under CI, where the oracle must exist)."""
    try:
        import torch
    except ImportError:
        if IN_CI:
            raise
        pytest.skip("torch (the oracle extra) is not installed")
    torch.set_num_threads(2)
    return torch


def to_torch(torch, t: tl.Tensor):
    """The same data, same layout, as a real torch tensor (via a contiguous copy + as_strided)."""
    base = torch.from_numpy(np.array(t._storage._array))
    return torch.as_strided(base, t.shape, t.stride(), t.storage_offset())


def dtype_name(d) -> str:
    return str(d).split(".")[-1]


def assert_same(ours, theirs, *, layout: bool = True, exact: bool = True, rtol=1e-6, atol=1e-6):
    """ours (tensorlab) and theirs (torch) agree on dtype, shape, values, and (optionally) layout."""
    import torch

    assert isinstance(ours, tl.Tensor), f"expected a tensorlab.Tensor, got {type(ours)}"
    assert isinstance(theirs, torch.Tensor)
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    if layout:
        assert ours.stride() == theirs.stride(), (ours.stride(), theirs.stride())
        assert ours.storage_offset() == theirs.storage_offset()
        assert ours.is_contiguous() == theirs.is_contiguous()
    a = ours._np()
    b = theirs.detach().numpy()
    if exact or not ours.dtype.is_floating_point:
        np.testing.assert_array_equal(a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def raises_same(f_ours, f_theirs):
    """Both raise, with the same exception type and message (module names aside), or neither does.

    Returns (ours, theirs) results when neither raises.
    """
    err_ours = err_theirs = None
    try:
        r_ours = f_ours()
    except Exception as e:  # noqa: BLE001
        err_ours = e
    try:
        r_theirs = f_theirs()
    except Exception as e:  # noqa: BLE001
        err_theirs = e
    if err_theirs is None and err_ours is None:
        return r_ours, r_theirs
    assert err_ours is not None, f"torch raised {err_theirs!r}, tensorlab did not"
    assert err_theirs is not None, f"tensorlab raised {err_ours!r}, torch did not"
    assert type(err_ours).__name__ == type(err_theirs).__name__, (err_ours, err_theirs)
    msg_t = str(err_theirs).split("\nException raised from")[0].replace("torch.", "tensorlab.")
    assert str(err_ours) == msg_t, (str(err_ours), msg_t)
    return None, None


def onednn_fp16(torch) -> bool:
    """Whether torch runs float16 convolutions through oneDNN on this CPU.

    torch 2.13 does so only where the CPU has float16 arithmetic in hardware (AVX512-FP16 or
    AMX-FP16, e.g. Intel Sapphire Rapids); elsewhere float16 takes ATen's native kernels, whose
    checks run in another order and whose messages differ. tensorlab models the native path.
    """
    probe = getattr(torch.ops.mkldnn, "_is_mkldnn_fp16_supported", None)
    return bool(probe()) if probe is not None else False


def torch_conv_path(torch, dtype: str):
    """A context in which torch takes the path tensorlab models for a ``dtype`` input.

    For float16 on a CPU where torch would route it through oneDNN, the oracle is asked with
    oneDNN switched off (``torch.backends.mkldnn.flags(enabled=False)``), which is the path torch
    takes on every other CPU. Elsewhere this changes nothing.
    """
    import contextlib

    if dtype == "float16" and onednn_fp16(torch):
        return torch.backends.mkldnn.flags(enabled=False)
    return contextlib.nullcontext()


def torch_vectorizes(torch) -> bool:
    """Whether torch runs its vectorised CPU kernels here (AVX2/AVX512; not on a CPU without AVX2,
    or with ``ATEN_CPU_CAPABILITY=default``). The vectorised ``add``/``sub`` with ``alpha`` fuse
    ``a + alpha * b`` into one FMA, as tensorlab does; the scalar kernels round twice, so their
    float results can differ from tensorlab's in the last bit."""
    return torch.backends.cpu.get_cpu_capability() != "DEFAULT"
