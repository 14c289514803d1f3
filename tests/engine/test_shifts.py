"""Bit shifts as ATen computes them: ``<<``/``>>`` and ``bitwise_left/right_shift`` (also
reflected, ``2 << t``, and in place), wrapping at the dtype's width, shifts < 0 or past the
width giving 0 (or the sign), promotion, and the errors for float and bool."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from helpers import assert_same, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


@settings(max_examples=150)
@given(
    dtype=st.sampled_from(INT_DTYPES),
    shift_dtype=st.sampled_from(INT_DTYPES),
    data=st.data(),
    how=st.sampled_from(["<<", ">>", "lshift", "rshift", "r<<", "r>>", "<<=", ">>="]),
)
def test_shifts_match_torch(torch, dtype, shift_dtype, data, how):
    info = np.iinfo(dtype)
    values = np.array(
        data.draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=1, max_size=6)),
        dtype,
    )
    lo, hi = max(-3, int(np.iinfo(shift_dtype).min)), min(70, int(np.iinfo(shift_dtype).max))
    shifts = np.array(data.draw(st.lists(st.integers(lo, hi), min_size=1, max_size=1)), shift_dtype)
    scalar = data.draw(st.integers(-3, 70))

    def run(lib):
        a, b = lib.from_numpy(values.copy()), lib.from_numpy(shifts.copy())
        if how == "<<":
            return a << b
        if how == ">>":
            return a >> scalar
        if how == "lshift":
            return lib.bitwise_left_shift(a, scalar)
        if how == "rshift":
            return lib.bitwise_right_shift(a, b)
        if how == "r<<":
            return scalar << a
        if how == "r>>":
            return scalar >> a
        op = operator.ilshift if how == "<<=" else operator.irshift
        if np.result_type(values, shifts) != values.dtype:
            return op(a, scalar)
        return op(a, b)

    ours, theirs = run(tl), run(torch)
    assert_same(ours, theirs)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.tensor([1.5]) << 1",
        "lib.tensor([1.5]) >> 1",
        "lib.bitwise_left_shift(lib.tensor([1.0]), 1)",
        "lib.tensor([True]) << lib.tensor([True])",
        "1.5 << lib.tensor([1])",
        "lib.tensor([True]) << 1",
        "lib.tensor([1, 2]) << 'a'",
    ],
)
def test_shift_errors_and_promotions_match_torch(torch, expr):
    raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    try:
        ours, theirs = eval(expr, {"lib": tl}), eval(expr, {"lib": torch})
    except Exception:  # noqa: BLE001 - both raised the same, checked above
        return
    assert_same(ours, theirs)
