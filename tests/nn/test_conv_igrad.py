"""The input gradient of a convolution (= the transposed convolution's forward) against torch 2.13:
every kernel of :mod:`tensorlab.nn._conv_igrad` (Toeplitz on slabs for one channel per group, one
product per output phase) forced and chosen, 1-d/2-d/3-d, float32/float64, through the kernels and
through autograd."""

from __future__ import annotations

import numpy as np
import pytest
from conv_layouts import assert_close_transposed, transposed_reference
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn import _conv_igrad as I
from tensorlab.nn import _conv_kernels as K

_close = assert_close_transposed


@st.composite
def cases(draw, spatial=2, dilated=True):
    """Transposed convolutions: depthwise (one channel per group) and not, multipliers, strides
    up to 4 with kernels smaller or larger than them, dilations, paddings, output paddings, rows
    wide enough for several band blocks."""
    groups = draw(st.integers(1, 3))
    cin_g = draw(st.sampled_from([1, 1, 2, 3]))  # g channels per group; 1 = depthwise
    mult = draw(st.integers(1, 3))  # result channels per group
    ks = [draw(st.integers(1, 5)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 4)) for _ in range(spatial)]
    dil = [draw(st.sampled_from([1, 1, 2, 3])) if dilated else 1 for _ in range(spatial)]
    pad = [draw(st.integers(0, 3)) for _ in range(spatial)]
    out_pad = [draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dil)]
    sizes = [draw(st.integers(1, 6)) for _ in range(spatial - 1)] + [draw(st.integers(1, 40))]
    return dict(
        x=(draw(st.integers(1, 3)), groups * cin_g, *sizes),
        w=(groups * cin_g, mult, *ks),
        groups=groups,
        stride=stride,
        padding=pad,
        output_padding=out_pad,
        dilation=dil,
        dtype=draw(st.sampled_from(["float64", "float32"])),
        seed=draw(st.integers(0, 2**16)),
    )


@pytest.mark.parametrize("strategy", [None, "toeplitz", "phase"])
@settings(max_examples=60, deadline=None)
@given(case=cases())
def test_input_grad_kernels_match_torch(torch, strategy, case):
    """2-d: the chosen kernel and each new one forced (Toeplitz needs one channel per group and
    no dilation, the phases no dilation unless the stride is 1; else they fall back)."""
    x, w, out, ref = transposed_reference(torch, case)
    args = (out, case["stride"], case["padding"], case["dilation"], case["groups"])
    ours = K.conv_input_grad_nd(x, w, *args, strategy=strategy)
    _close(ours, ref)


@settings(max_examples=60, deadline=None)
@given(case=cases(dilated=False))
def test_phase_kernel_matches_torch(torch, case):
    """:func:`phase_gemm` itself on every stride (also above the phase limit), dilation 1."""
    x, w, out, ref = transposed_reference(torch, case)
    ours = I.phase_gemm(x, w, out, case["stride"], case["padding"], case["groups"])
    _close(ours, ref)


@settings(max_examples=40, deadline=None)
@given(case=cases(dilated=False), cap=st.integers(1, 30))
def test_depthwise_slabs_any_block_width(torch, case, cap):
    """:func:`depthwise_slabs` with every band block width (one channel per group)."""
    case = dict(case, x=(case["x"][0], case["groups"], *case["x"][2:]))
    case["w"] = (case["groups"], *case["w"][1:])
    x, w, out, ref = transposed_reference(torch, case)
    ours = I.depthwise_slabs(x, w, out, case["stride"], case["padding"], cap)
    _close(ours, ref)


@pytest.mark.parametrize("spatial", [1, 3])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_input_grad_1d_3d_match_torch(torch, spatial, data):
    """1-d (run as 2-d by conv_transpose1d, here straight through the N-d kernels) and 3-d."""
    case = data.draw(cases(spatial))
    if spatial == 3:
        case["x"] = case["x"][:2] + tuple(min(s, 8) for s in case["x"][2:])
    x, w, out, ref = transposed_reference(torch, case)
    args = (out, case["stride"], case["padding"], case["dilation"], case["groups"])
    _close(K.conv_input_grad_nd(x, w, *args), ref)


@pytest.mark.parametrize("spatial", [1, 2, 3])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_conv_input_gradient_through_autograd(torch, spatial, data):
    """``conv{1,2,3}d``'s input gradient (and conv_transpose's output) via autograd, against
    torch's, float32 and float64: depthwise, grouped, strided, dilated, padded."""
    groups = data.draw(st.integers(1, 3))
    cg = data.draw(st.sampled_from([1, 1, 2, 3]))
    og = data.draw(st.sampled_from([1, 2]))
    ks = [data.draw(st.integers(1, 4)) for _ in range(spatial)]
    stride = [data.draw(st.integers(1, 3)) for _ in range(spatial)]
    dil = [data.draw(st.sampled_from([1, 1, 2])) for _ in range(spatial)]
    pad = [data.draw(st.integers(0, 2)) for _ in range(spatial)]
    hi = 6 if spatial == 3 else 12
    sizes = [data.draw(st.integers(1, hi)) for _ in range(spatial - 1)]
    sizes.append(data.draw(st.integers(1, 3 * hi)))
    assume(all(s + 2 * p - d * (k - 1) - 1 >= 0 for s, p, d, k in zip(sizes, pad, dil, ks)))
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    x = rng.standard_normal((data.draw(st.integers(1, 3)), groups * cg, *sizes)).astype(dtype)
    w = rng.standard_normal((groups * og, cg, *ks)).astype(dtype)
    kw = dict(stride=stride, padding=pad, dilation=dil, groups=groups)
    fn = f"conv{spatial}d"
    xt = tl.tensor(x, requires_grad=True)
    out = getattr(F, fn)(xt, tl.tensor(w), **kw)
    tx = torch.tensor(x, requires_grad=True)
    ref = getattr(torch.nn.functional, fn)(tx, torch.tensor(w), **kw)
    g = rng.standard_normal(tuple(ref.shape)).astype(dtype)
    (ours,) = tl.autograd.grad(out, (xt,), tl.tensor(g))
    (theirs,) = torch.autograd.grad(ref, (tx,), torch.tensor(g))
    _close(ours._np(), theirs.numpy())


def test_results_do_not_share_the_workspace(torch):
    """Temporaries are reused between calls; results are fresh arrays."""
    rng = np.random.default_rng(0)
    shapes = [((2, 4, 9, 30), (4, 1, 3, 3), (1, 1), 4), ((2, 4, 9, 30), (4, 3, 3, 3), (2, 2), 2)]
    for gs, ws, stride, groups in shapes:
        g1, g2 = rng.standard_normal(gs), rng.standard_normal(gs)
        w = rng.standard_normal(ws)
        out = [(s - 1) * st_ + k for s, st_, k in zip(gs[2:], stride, ws[2:])]
        a = K.conv_input_grad_nd(g1, w, out, stride, (0, 0), (1, 1), groups)
        keep = a.copy()
        b = K.conv_input_grad_nd(g2, w, out, stride, (0, 0), (1, 1), groups)
        np.testing.assert_array_equal(a, keep)
        assert not np.shares_memory(a, b)


@pytest.mark.parametrize(
    "og, nd, dilation, stride, expected",
    [
        (1, 2, (1, 1), (1, 1), "conv"),  # depthwise backward: the forward kernels
        (1, 2, (1, 1), (2, 2), "toeplitz"),
        (1, 2, (2, 1), (1, 1), "conv"),
        (1, 2, (2, 1), (2, 1), "direct"),
        (1, 2, (1, 1), (32, 32), "conv"),  # a depthwise FCN upsampler: the band would be huge
        (1, 3, (1, 1), (2, 2, 2), "direct"),
        (4, 2, (1, 1), (2, 2), "phase"),
        (4, 2, (1, 1), (1, 3), "phase"),
        (4, 2, (1, 1), (32, 32), "conv"),  # d2l's FCN upsampler: 1024 phases, stacked instead
        (4, 2, (1, 1), (1, 1), "conv"),
        (4, 2, (2, 2), (1, 1), "conv"),
        (4, 2, (2, 2), (2, 2), "gemm"),
        (4, 3, (1, 1), (2, 2, 2), "conv"),
    ],
)
def test_scatter_strategy_choice(og, nd, dilation, stride, expected):
    assert K.scatter_strategy(og, nd, dilation, stride) == expected


@pytest.mark.parametrize(
    "xs, ws, kw",
    [
        ((1, 3, 4, 5), (3, 1, 10, 8), dict(stride=(5, 4), padding=(2, 1), groups=3)),
        ((2, 4, 3, 4), (4, 2, 9, 9), dict(stride=(5, 5), padding=2, groups=2)),
        ((1, 2, 3, 3), (2, 2, 4, 4), dict(stride=(4, 4), padding=1, output_padding=3)),
    ],
)
def test_many_phases_match_torch(torch, xs, ws, kw):
    """Past the phase limit (depthwise too) the phases are stacked as channels; at it, not."""
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    ours = F.conv_transpose2d(tl.tensor(x), tl.tensor(w), **kw)
    theirs = torch.nn.functional.conv_transpose2d(torch.tensor(x), torch.tensor(w), **kw)
    _close(ours._np(), theirs.numpy())
