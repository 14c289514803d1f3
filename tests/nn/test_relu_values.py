"""relu's special values against torch 2.13: signed zeros, NaN and infinities, forward and
backward (the fast ``np.maximum`` kernel must keep ``-0.0``; a NaN result passes its gradient)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl

VALUES = [-0.0, 0.0, float("nan"), -float("inf"), float("inf"), -1.5, 2.0, -1e-45, 1e-45]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_special_values_match_torch(torch, dtype):
    x, tx = (
        tl.tensor(VALUES, dtype=getattr(tl, dtype)),
        torch.tensor(VALUES, dtype=getattr(torch, dtype)),
    )
    a, b = tl.relu(x)._np(), torch.relu(tx).numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_gradient_special_values_match_torch(torch, dtype):
    x = tl.tensor(VALUES, dtype=getattr(tl, dtype), requires_grad=True)
    tx = torch.tensor(VALUES, dtype=getattr(torch, dtype), requires_grad=True)
    g = np.arange(1, len(VALUES) + 1, dtype=dtype) * (-1) ** np.arange(len(VALUES))
    tl.nn.functional.relu(x).backward(tl.tensor(g))
    torch.nn.functional.relu(tx).backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad._np(), tx.grad.numpy())
    np.testing.assert_array_equal(np.signbit(x.grad._np()), np.signbit(tx.grad.numpy()))


def test_relu_integers_and_layouts(torch):
    a = np.arange(-12, 12).reshape(4, 6)
    np.testing.assert_array_equal(
        tl.relu(tl.tensor(a).t())._np(), torch.relu(torch.tensor(a).t()).numpy()
    )
    assert tl.relu(tl.tensor(-0.0)).item() == 0 and np.signbit(tl.relu(tl.tensor(-0.0)).item())
