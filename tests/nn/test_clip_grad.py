"""``nn.utils.clip_grad_norm_`` / ``clip_grad_value_`` / ``get_total_norm`` against torch 2.13:
the returned norm and the clipped gradients over shapes, norm types and thresholds."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

shapes = st.lists(
    st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple), min_size=1, max_size=4
)


def _params(lib, arrays, with_grad):
    ps = []
    for a, g in zip(arrays, with_grad):
        p = lib.nn.Parameter(lib.from_numpy(np.zeros_like(a)))
        if g:
            p.grad = lib.from_numpy(a.copy())
        ps.append(p)
    return ps


@settings(max_examples=60)
@given(
    shp=shapes,
    norm_type=st.sampled_from([2.0, 1.0, 3.0, math.inf, 0.5]),
    max_norm=st.floats(0.01, 20),
    seed=st.integers(0, 2**16),
    data=st.data(),
)
def test_clip_grad_norm_matches_torch(torch, shp, norm_type, max_norm, seed, data):
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(rng.standard_normal(s) * 3, dtype=np.float32) for s in shp]
    with_grad = data.draw(st.lists(st.booleans(), min_size=len(shp), max_size=len(shp)))
    ours, theirs = _params(tl, arrays, with_grad), _params(torch, arrays, with_grad)
    n_o = tl.nn.utils.clip_grad_norm_(ours, max_norm, norm_type=norm_type)
    n_t = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert str(n_o.dtype).split(".")[-1] == str(n_t.dtype).split(".")[-1]
    np.testing.assert_allclose(n_o.numpy(), n_t.numpy(), rtol=1e-5, atol=1e-6)
    for p, q in zip(ours, theirs):
        assert (p.grad is None) == (q.grad is None)
        if q.grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_value_and_errors(torch):
    a = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)
    ours, theirs = _params(tl, [a], [True]), _params(torch, [a], [True])
    tl.nn.utils.clip_grad_value_(ours, 1.25)
    torch.nn.utils.clip_grad_value_(theirs, 1.25)
    np.testing.assert_array_equal(ours[0].grad.numpy(), theirs[0].grad.numpy())
    bad = np.array([1.0, np.inf], np.float32)
    raises_same(
        lambda: tl.nn.utils.clip_grad_norm_(
            _params(tl, [bad], [True]), 1.0, error_if_nonfinite=True
        ),
        lambda: torch.nn.utils.clip_grad_norm_(
            _params(torch, [bad], [True]), 1.0, error_if_nonfinite=True
        ),
    )
    for lib in (tl, torch):
        assert lib.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
        with pytest.warns(UserWarning, match="empty generator"):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert lib.nn.utils.clip_grad_norm(_params(lib, [a], [True]), 1.0).item() > 1
