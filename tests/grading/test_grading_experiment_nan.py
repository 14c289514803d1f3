"""The "experiment" question (conv2d is cross-correlation): NaN or infinite inputs make every
output differ from every other, so they prove nothing and must not score (issue 37, also)."""

from __future__ import annotations

import numpy as np
import pytest

from tensorlab.grading.encode import roundtrip
from tensorlab.grading.judge import judge_value
from tensorlab.grading.registry import get

SYMMETRIC = np.array([[1.0, 2.0, 1.0], [0.0, 5.0, 0.0], [1.0, 2.0, 1.0]])
ASYMMETRIC = np.array([[1.0, 2.0, 3.0]] * 3)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", ["input", "kernel"])
def test_non_finite_numbers_prove_nothing(bad, where):
    x = np.arange(25.0).reshape(5, 5)
    k = SYMMETRIC.copy()
    (x if where == "input" else k)[1, 1] = bad
    v = judge_value(get("xcorr.experiment"), roundtrip((x, k)))
    assert v.status == "failed", v
    assert "finite" in v.message


def test_outputs_that_overflow_prove_nothing():
    x = np.full((4, 4), 1e308)
    x[0, 0] = 0.0
    v = judge_value(get("xcorr.experiment"), roundtrip((x, ASYMMETRIC)))
    assert v.status == "failed" and "overflow" in v.message, v


def test_a_real_experiment_still_passes():
    x = np.zeros((5, 5))
    x[2, 2] = 1.0
    assert judge_value(get("xcorr.experiment"), roundtrip((x, ASYMMETRIC))).status == "passed"
