"""Lazy layers as torch has them: ``UninitializedParameter``/``UninitializedBuffer`` until the
first call (their ``shape`` raises, so does every method but a few), then the plain layer with
the first input's channels; ``LazyBatchNorm1d/2d/3d`` (d2l's ResNet block) and ``BatchNorm3d``."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same

import tensorlab as tl

LAZY = [
    "LazyLinear(3)",
    "LazyConv1d(4, 3)",
    "LazyConv2d(4, 3, bias=False)",
    "LazyConv3d(2, 1)",
    "LazyConvTranspose2d(4, 3)",
    "LazyBatchNorm1d()",
    "LazyBatchNorm2d(affine=False)",
    "LazyBatchNorm3d(track_running_stats=False)",
]


@pytest.mark.parametrize("build", LAZY)
def test_before_the_first_call(torch, build):
    ours, theirs = eval(build, {}, vars(tl.nn)), eval(build, {}, vars(torch.nn))
    assert repr(ours) == repr(theirs)
    sd, sd_t = ours.state_dict(), theirs.state_dict()
    assert list(sd) == list(sd_t)
    assert [repr(v) for v in sd.values()] == [repr(v) for v in sd_t.values()]
    for name, p in ours.named_parameters():
        q = dict(theirs.named_parameters())[name]
        assert type(p).__name__ == type(q).__name__ == "UninitializedParameter"
        raises_same(lambda p=p: p.shape, lambda q=q: q.shape)
        for method in ("numel", "detach", "sum"):  # torch names its C method: compare the rest
            with pytest.raises(ValueError, match=f"uninitialized parameter in <method '{method}'"):
                getattr(p, method)()
            with pytest.raises(ValueError, match=f"uninitialized parameter in <method '{method}'"):
                getattr(q, method)()
        assert tuple(p.size()) == tuple(q.size()) == (0,) and p.dtype.name == "float32"


SHAPES = {"Linear": (2, 5), "1d": (2, 3, 7), "2d": (2, 3, 6, 5), "3d": (2, 3, 4, 4, 4)}


@pytest.mark.parametrize("build", LAZY)
def test_the_first_call_gives_torchs_layer_and_values(torch, build):
    key = next(k for k in SHAPES if k in build)
    if "BatchNorm1d" in build:
        key = "1d"
    x = np.random.default_rng(0).standard_normal(SHAPES[key]).astype(np.float32)
    tl.manual_seed(0)
    torch.manual_seed(0)
    ours, theirs = eval(build, {}, vars(tl.nn)), eval(build, {}, vars(torch.nn))
    y = ours(tl.from_numpy(x))
    z = theirs(torch.from_numpy(x))
    assert repr(ours) == repr(theirs) and type(ours).__name__ == type(theirs).__name__
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert tuple(a.shape) == tuple(b.shape), name
    if "BatchNorm" in build:  # no random initialisation: the values agree
        assert_same(y.detach(), z.detach(), exact=False, rtol=1e-5, atol=1e-6)
        for a, b in zip(ours.state_dict().values(), theirs.state_dict().values()):
            assert_same(a, b, exact=False, rtol=1e-5, atol=1e-6)


def test_d2l_residual_block_with_lazy_layers(torch):
    """d2l's ``Residual`` (modern CNNs, 8.6): LazyConv2d + LazyBatchNorm2d, 1x1 shortcut."""

    def residual(lib, num_channels, use_1x1conv=False, strides=1):
        nn, F = lib.nn, lib.nn.functional

        class Residual(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.LazyConv2d(num_channels, 3, padding=1, stride=strides)
                self.conv2 = nn.LazyConv2d(num_channels, 3, padding=1)
                self.conv3 = nn.LazyConv2d(num_channels, 1, stride=strides) if use_1x1conv else None
                self.bn1, self.bn2 = nn.LazyBatchNorm2d(), nn.LazyBatchNorm2d()

            def forward(self, X):
                Y = F.relu(self.bn1(self.conv1(X)))
                Y = self.bn2(self.conv2(Y))
                if self.conv3:
                    X = self.conv3(X)
                return F.relu(Y + X)

        return Residual()

    x = np.random.default_rng(1).standard_normal((4, 3, 6, 6)).astype(np.float32)
    ours, theirs = residual(tl, 6, True, 2), residual(torch, 6, True, 2)
    assert ours(tl.from_numpy(x)).shape == theirs(torch.from_numpy(x)).shape == (4, 6, 3, 3)
    ours.load_state_dict(_to_tl(theirs.state_dict()))  # the same weights: the same output
    assert_same(
        ours(tl.from_numpy(x)).detach(), theirs(torch.from_numpy(x)).detach(), exact=False,
        rtol=1e-4, atol=1e-5,
    )  # fmt: skip
    assert repr(ours) == repr(theirs).replace("Residual", "Residual")


def _to_tl(state):
    return {k: tl.from_numpy(v.detach().numpy().copy()) for k, v in state.items()}


def test_a_lazy_layer_loads_a_saved_state_dict(torch):
    torch.manual_seed(0)
    real = torch.nn.Conv2d(3, 4, 3)
    lazy = tl.nn.LazyConv2d(4, 3)
    lazy.load_state_dict(_to_tl(real.state_dict()))
    assert tuple(lazy.weight.shape) == (4, 3, 3, 3)
    assert_same(lazy.weight.detach(), real.weight.detach())


def test_batchnorm3d_matches_torch(torch):
    x = np.random.default_rng(2).standard_normal((2, 3, 2, 3, 4)).astype(np.float32)
    ours, theirs = tl.nn.BatchNorm3d(3), torch.nn.BatchNorm3d(3)
    assert repr(ours) == repr(theirs)
    y, z = ours(tl.from_numpy(x)), theirs(torch.from_numpy(x))
    assert_same(y.detach(), z.detach(), exact=False, rtol=1e-5, atol=1e-6)
    assert_same(ours.running_var, theirs.running_var, exact=False, rtol=1e-5, atol=1e-6)
    raises_same(lambda: ours(tl.ones(2, 3, 4)), lambda: theirs(torch.ones(2, 3, 4)))
