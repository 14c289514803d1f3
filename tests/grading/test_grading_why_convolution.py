"""Exercises 10 (lessons 17 and 18): every reference agrees with real torch 2.13 on the cases the
grader draws (the catalogue and solution tests in test_grading_questions.py cover the rest)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tensorlab.grading import get
from tensorlab.grading.judge import HUGE, largest_size
from tensorlab.grading.model import make_cases

SEEDS = (0, 1, 2)


def _cases(qid: str):
    return [  # the hidden huge inputs of derive questions are tested in test_grading_derive
        args for seed in SEEDS for args in make_cases(get(qid), seed) if largest_size(args) < HUGE
    ]


def _count(module) -> int:
    return sum(p.numel() for p in module.parameters())


def _build(torch, c, layers):
    mods = []
    for layer in layers:
        if layer[0] == "conv":
            _, out, k, s, p = layer
            mods.append(torch.nn.Conv2d(c, out, k, stride=s, padding=p))
            c = out
        elif layer[0] == "pool":
            mods.append(torch.nn.MaxPool2d(layer[1], layer[2]))
        else:
            mods.append(torch.nn.ReLU())
    return mods


def test_dense_vs_conv_matches_torch(torch):
    q = get("why.dense_vs_conv")
    for c_in, c_out, h, w, k in _cases(q.id):
        conv = torch.nn.Conv2d(c_in, c_out, k, padding=k // 2)
        x = torch.zeros(1, c_in, h, w)
        assert conv(x).shape == (1, c_out, h, w)  # the same map, so the Linear maps n to m
        n_in, n_out = c_in * h * w, c_out * h * w
        dense = n_in * n_out + n_out  # nn.Linear(n_in, n_out) would be too large to build here
        assert q.reference(c_in, c_out, h, w, k) == (_count(conv), dense)
    lin = torch.nn.Linear(2 * 3 * 4, 5 * 3 * 4)
    assert q.reference(2, 5, 3, 4, 3)[1] == _count(lin)


def test_shifted_feature_map_is_the_conv_of_the_rolled_image(torch):
    q = get("why.shifted_feature_map")
    F = torch.nn.functional
    rng = np.random.default_rng(0)
    for y, dy, dx, s in _cases(q.id):
        _, c, ho, wo = np.shape(y)
        for k in (1, 3, 5):
            p = (k - 1) // 2
            if p > ho * s:  # circular padding needs p <= the size
                continue
            x = torch.from_numpy(rng.standard_normal((1, 2, ho * s, wo * s)))
            w = torch.from_numpy(rng.standard_normal((c, 2, k, k)))

            def fmap(img, w=w, p=p, s=s):
                return F.conv2d(F.pad(img, (p, p, p, p), mode="circular"), w, stride=s)

            y0 = fmap(x).numpy()
            assert y0.shape == (1, c, ho, wo)
            shifted = fmap(torch.roll(x, shifts=(dy, dx), dims=(2, 3))).numpy()
            np.testing.assert_allclose(q.reference(y0, dy, dx, s), shifted, atol=1e-10)


def test_stack_vs_single_matches_torch(torch):
    q = get("why.stack_vs_single")
    for c, n in _cases(q.id):
        stack = [torch.nn.Conv2d(c, c, 3, bias=False) for _ in range(n)]
        K, ws, w1 = q.reference(c, n)
        assert ws == sum(_count(m) for m in stack)
        assert w1 == _count(torch.nn.Conv2d(c, c, K, bias=False))
    for n in (1, 2, 3, 4):  # the field, by autograd on a one-channel stack of ones
        x = torch.zeros(1, 1, 21, 21, requires_grad=True)
        h = x + 1.0
        for _ in range(n):
            h = torch.relu(torch.nn.functional.conv2d(h, torch.ones(1, 1, 3, 3)))
        h[0, 0, h.shape[-1] // 2, h.shape[-1] // 2].backward()
        seen = (x.grad[0, 0] != 0).any(dim=0).nonzero().flatten()
        assert int(seen.max() - seen.min() + 1) == q.reference(1, n)[0]


def test_activation_bytes_matches_a_torch_forward(torch):
    q = get("why.activation_bytes")
    for n, c, h, w, layers in _cases(q.id)[:24]:
        x = torch.zeros(min(n, 2), c, h, w)
        total = 0
        with torch.no_grad():
            for m in _build(torch, c, layers):
                x = m(x)
                total += x.numel() * x.element_size()
        assert q.reference(n, c, h, w, layers) == total * n // min(n, 2)


def test_adaptive_in_features_matches_torch(torch):
    q = get("why.adaptive_in_features")
    for c, h, w, layers, o in _cases(q.id):
        net = torch.nn.Sequential(
            *_build(torch, c, layers), torch.nn.AdaptiveAvgPool2d(o), torch.nn.Flatten()
        )
        with torch.no_grad():
            assert net(torch.zeros(2, c, h, w)).shape[1] == q.reference(c, h, w, layers, o)


def test_pooling_references_match_torch(torch):
    F = torch.nn.functional
    q = get("why.pooled_shape")
    for shape, k, s in _cases(q.id):
        small = (1, min(shape[1], 4)) + tuple(shape[2:])
        got = tuple(F.max_pool2d(torch.zeros(small), k, stride=s).shape)
        assert q.reference(shape, k, s) == (shape[0], shape[1]) + got[2:]
    q = get("why.overlapping_max_pool")
    for values, k, s in _cases(q.id):
        x = torch.tensor([[float(v) for v in values]], dtype=torch.float64)
        assert q.reference(values, k, s) == tuple(F.max_pool1d(x, k, stride=s)[0].tolist())


def test_transposed_conv_references_match_torch(torch):
    F = torch.nn.functional
    q = get("why.stamp_counts")
    for n, k, s in _cases(q.id):
        out = F.conv_transpose1d(torch.ones(1, 1, n), torch.ones(1, 1, k), stride=s)
        assert q.reference(n, k, s) == tuple(int(v) for v in out[0, 0].tolist())
    q = get("why.interior_pattern")
    for w, s in _cases(q.id):
        kernel = torch.tensor([[list(w)]], dtype=torch.float64)
        out = F.conv_transpose1d(torch.ones(1, 1, 40, dtype=torch.float64), kernel, stride=s)
        start = 20 * s  # far from both borders
        got = out[0, 0, start : start + s].tolist()
        assert all(math.isclose(a, b, abs_tol=1e-12) for a, b in zip(q.reference(w, s), got))
        flat = len(set(round(v, 9) for v in got)) == 1
        assert flat == (max(got) - min(got) < 1e-9)


def _d2l_bilinear_kernel(torch, in_channels, out_channels, kernel_size):
    """d2l 14.11's bilinear_kernel, verbatim."""
    factor = (kernel_size + 1) // 2
    if kernel_size % 2 == 1:
        center = factor - 1
    else:
        center = factor - 0.5
    og = (torch.arange(kernel_size).reshape(-1, 1), torch.arange(kernel_size).reshape(1, -1))
    filt = (1 - torch.abs(og[0] - center) / factor) * (1 - torch.abs(og[1] - center) / factor)
    weight = torch.zeros((in_channels, out_channels, kernel_size, kernel_size))
    weight[range(in_channels), range(out_channels), :, :] = filt
    return weight


def test_bilinear_taps_build_d2l_kernel_and_upsample_bilinearly(torch):
    q = get("why.bilinear_taps")
    for (k,) in _cases(q.id):
        taps = torch.tensor(q.reference(k))
        np.testing.assert_allclose(
            torch.outer(taps, taps).numpy(),
            _d2l_bilinear_kernel(torch, 1, 1, k)[0, 0].numpy(),
            rtol=1e-6,  # d2l computes in float32
        )
    # the prompt's claim: stride s = (k + 1) // 2 and padding (k - s) / 2 give bilinear
    # interpolation away from the border whenever k - s is even (k = 4: lesson 18's s 2, p 1)
    for k in (1, 4, 5, 8, 9):
        s = (k + 1) // 2
        up = torch.nn.ConvTranspose2d(2, 2, k, stride=s, padding=(k - s) // 2, bias=False)
        with torch.no_grad():
            up.weight.copy_(_d2l_bilinear_kernel(torch, 2, 2, k))
            img = torch.rand(1, 2, 5, 5)
            a = up(img)
        b = torch.nn.functional.interpolate(
            img, scale_factor=s, mode="bilinear", align_corners=False
        )
        assert a.shape == b.shape
        m = max(1, s // 2)  # the border ring where the tent reaches past the input
        torch.testing.assert_close(a[..., m:-m, m:-m], b[..., m:-m, m:-m])


@pytest.mark.parametrize(
    "qid",
    [
        "why.shifted_feature_map",
        "why.activation_bytes",
        "why.adaptive_in_features",
        "why.overlapping_max_pool",
        "why.interior_pattern",
    ],
)
def test_hidden_inputs_are_drawn_at_grade_time(qid):
    q = get(qid)
    assert repr(make_cases(q, 1)) != repr(make_cases(q, 2))
