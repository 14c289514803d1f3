"""The input gradient of a stride-1 2-d convolution with one output channel per group
(depthwise, any channel multiplier on the input side, any dilation): it runs the forward
kernels with the flipped kernel (``scatter_strategy`` -> ``"conv"``). Against torch 2.13's
``conv_transpose2d`` (the same operation) and through autograd against torch's gradient."""

from __future__ import annotations

import numpy as np
from conv_layouts import assert_close_transposed, transposed_reference
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn import _conv_kernels as K

_close = assert_close_transposed


@st.composite
def cases(draw):
    """One g channel per group, stride 1: dilations, paddings up to beyond the kernel's reach
    (the flipped kernel then needs a crop), output paddings (below the dilation), multipliers."""
    groups = draw(st.integers(1, 6))
    mult = draw(st.integers(1, 3))
    ks = [draw(st.integers(1, 5)) for _ in range(2)]
    dil = [draw(st.integers(1, 3)) for _ in range(2)]
    pad = [draw(st.integers(0, 6)) for _ in range(2)]
    out_pad = [draw(st.integers(0, d - 1)) for d in dil]
    sizes = [draw(st.integers(1, 12)), draw(st.integers(1, 40))]
    return dict(
        x=(draw(st.integers(1, 3)), groups, *sizes),
        w=(groups, mult, *ks),
        groups=groups,
        stride=[1, 1],
        padding=pad,
        output_padding=out_pad,
        dilation=dil,
        dtype=draw(st.sampled_from(["float64", "float32"])),
        seed=draw(st.integers(0, 2**16)),
    )


def test_the_strategy_is_the_forward_convolution():
    assert K.scatter_strategy(1, 2, (1, 1), (1, 1)) == "conv"
    assert K.scatter_strategy(1, 2, (2, 3), (1, 1)) == "conv"
    assert K.scatter_strategy(1, 2, (1, 1), (2, 1)) == "toeplitz"


@settings(max_examples=80, deadline=None)
@given(case=cases())
def test_depthwise_stride1_input_grad_matches_torch(torch, case):
    x, w, out, ref = transposed_reference(torch, case)
    args = (out, case["stride"], case["padding"], case["dilation"], case["groups"])
    _close(K.conv_input_grad_nd(x, w, *args), ref)
    _close(K.conv_input_grad_nd(x, w, *args, strategy="direct"), ref)  # the former way


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 3),
    c=st.integers(1, 5),
    size=st.integers(1, 20),
    k=st.integers(1, 4),
    dilation=st.integers(1, 3),
    padding=st.integers(0, 3),
    dtype=st.sampled_from(["float32", "float64"]),
    seed=st.integers(0, 2**16),
)
def test_depthwise_conv2d_input_gradient_through_autograd(
    torch, n, c, size, k, dilation, padding, dtype, seed
):
    assume(size + 2 * padding - dilation * (k - 1) - 1 >= 0)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, size, size + 3)).astype(dtype)
    w = rng.standard_normal((c, 1, k, k)).astype(dtype)
    kw = dict(padding=padding, dilation=dilation, groups=c)
    xt = tl.tensor(x, requires_grad=True)
    out = F.conv2d(xt, tl.tensor(w), **kw)
    tx = torch.tensor(x, requires_grad=True)
    ref = torch.nn.functional.conv2d(tx, torch.tensor(w), **kw)
    g = rng.standard_normal(tuple(ref.shape)).astype(dtype)
    (ours,) = tl.autograd.grad(out, (xt,), tl.tensor(g))
    (theirs,) = torch.autograd.grad(ref, (tx,), torch.tensor(g))
    _close(ours._np(), theirs.numpy())
