"""``arange`` and ``linspace`` bit for bit with torch's CPU kernels: arange's vectors of 8 floats
(4 doubles) and its scalar tail, both with the compiler's fused multiply-add; linspace from both
ends, in half arithmetic for float16 and via a truncated start for integers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

FLOATS = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)
STEPS = st.sampled_from([0.1, 0.01, 0.37, 0.3, 0.7, 1 / 3, 0.25, -0.1, -0.37, 2.5e-3, 7.77, -1e-3])


def _bits_equal(ours, theirs):
    a, b = ours.numpy(), theirs.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes(), np.nonzero(a != b)[0][:8]


def _fma_path(torch) -> bool:
    """torch's kernels were compiled with FMA contraction on every x86-64 capability we have
    seen; without SIMD (ATEN_CPU_CAPABILITY=default) they may round twice."""
    return torch.backends.cpu.get_cpu_capability() != "DEFAULT"


@settings(max_examples=300)
@given(
    start=FLOATS, step=STEPS, n=st.integers(0, 2000), dtype=st.sampled_from(["float32", "float64"])
)
def test_float_arange_is_torchs_bit_for_bit(torch, start, step, n, dtype):
    start = round(start, 3)
    end = start + step * n
    try:
        theirs = torch.arange(start, end, step, dtype=getattr(torch, dtype))
    except RuntimeError:
        return  # an inconsistent bound: tested elsewhere
    ours = tl.arange(start, end, step, dtype=getattr(tl, dtype))
    if _fma_path(torch):
        _bits_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_the_arange_the_issue_names(torch):
    """``torch.arange(-8., 8., 0.1)[80]`` is 4.4e-16, not 0 (so relu's gradient there is 1)."""
    _bits_equal(tl.arange(-8.0, 8.0, 0.1), torch.arange(-8.0, 8.0, 0.1))
    assert tl.arange(-8.0, 8.0, 0.1)[80].item() == torch.arange(-8.0, 8.0, 0.1)[80].item() > 0


@settings(max_examples=300)
@given(
    start=FLOATS,
    end=FLOATS,
    steps=st.integers(0, 400),
    dtype=st.sampled_from(["float16", "float32", "float64", "int64", "int32", "int16"]),
)
def test_linspace_is_torchs_bit_for_bit(torch, start, end, steps, dtype):
    start, end = round(start, 2), round(end, 2)
    if dtype == "float16":
        start, end = start / 100, end / 100  # within half's range
    theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
    ours = tl.linspace(start, end, steps, dtype=getattr(tl, dtype))
    if _fma_path(torch) or dtype == "float16":
        _bits_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_linspace_small_step_counts(torch, steps):
    _bits_equal(tl.linspace(-1.5, 2.25, steps), torch.linspace(-1.5, 2.25, steps))
