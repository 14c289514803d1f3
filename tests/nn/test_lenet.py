"""The bar of issue 12: a LeNet-5 trained with tensorlab gives torch's losses step for step.

LeNet-5 (conv-relu-maxpool x2, flatten, three Linear layers), cross_entropy, SGD with momentum,
batches of 64 images 1x28x28. Both frameworks start from the same weights (tensorlab's, copied
into torch through ``state_dict``) and see the same batches; the losses and the final weights
agree to float32 reduction-order tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import require_torch

import tensorlab as tl


def lenet(nn):
    return nn.Sequential(
        nn.Conv2d(1, 6, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(16 * 4 * 4, 120),
        nn.ReLU(),
        nn.Linear(120, 84),
        nn.ReLU(),
        nn.Linear(84, 10),
    )


def _batches(n_steps: int, seed: int = 0):
    """Two fixed batches, alternately: a net that learns brings their loss down."""
    rng = np.random.default_rng(seed)
    data = [
        (rng.standard_normal((64, 1, 28, 28)).astype(np.float32), rng.integers(0, 10, 64))
        for _ in range(2)
    ]
    for i in range(n_steps):
        yield data[i % 2]


def _train(lib, model, batches, *, lr=0.05, momentum=0.9):
    opt = lib.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(lib.from_numpy(x)), lib.from_numpy(y))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("seed", [0, 1])
def test_lenet_losses_match_torch_step_for_step(seed):
    torch = require_torch()
    tl.manual_seed(seed)
    ours = lenet(tl.nn)
    theirs = lenet(torch.nn)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    steps = 8
    l_ours = _train(tl, ours, _batches(steps, seed))
    l_theirs = _train(torch, theirs, _batches(steps, seed))
    np.testing.assert_allclose(l_ours, l_theirs, rtol=2e-4, atol=1e-5)
    assert sum(l_ours[-2:]) < sum(l_ours[:2])  # it learns the two batches
    for (name, p), (name_t, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == name_t
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-3, atol=2e-5)


def test_lenet_grad_fns_are_torchs():
    torch = require_torch()
    ours, theirs = lenet(tl.nn), lenet(torch.nn)
    x = np.zeros((2, 1, 28, 28), dtype=np.float32)
    a, b = ours, theirs
    h_ours, h_theirs = tl.from_numpy(x), torch.from_numpy(x)
    for layer_ours, layer_theirs in zip(a, b):
        h_ours, h_theirs = layer_ours(h_ours), layer_theirs(h_theirs)
        assert h_ours.grad_fn.name() == h_theirs.grad_fn.name()
        assert tuple(h_ours.shape) == tuple(h_theirs.shape)
        assert h_ours.stride() == h_theirs.stride()
    assert repr(ours) == repr(theirs)
