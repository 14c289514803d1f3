"""Gradients of ``conv1d``/``conv2d`` and ``pad`` against PyTorch 2.13 and finite differences.

Random configurations (batch, channels, groups, kernel, stride, padding incl. 'same' and
'valid', dilation, bias, unbatched inputs) in float64: values, ``grad_fn`` names and every
input's gradient must match torch's.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn.functional as F


def _pair(lib, arrays, flags, dtype="float64"):
    dt = getattr(lib, dtype)
    return [
        None if a is None else lib.tensor(a, dtype=dt).requires_grad_(bool(f))
        for a, f in zip(arrays, flags)
    ]


def _chain(t) -> list[str]:
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def _grads_match(ours, theirs, rtol=1e-9, atol=1e-11):
    for a, b in zip(ours, theirs):
        if a is None:
            continue
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            assert tuple(a.grad.shape) == tuple(b.grad.shape)
            assert str(a.grad.dtype).split(".")[-1] == str(b.grad.dtype).split(".")[-1]
            np.testing.assert_allclose(a.grad._np(), b.grad.numpy(), rtol=rtol, atol=atol)


def _backward_both(ours_out, theirs_out, torch, seed=5):
    g = np.random.default_rng(seed).standard_normal(tuple(ours_out.shape))
    ours_out.backward(tl.tensor(g, dtype=ours_out.dtype))
    theirs_out.backward(torch.tensor(g, dtype=theirs_out.dtype))


@st.composite
def conv_configs(draw):
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cin = groups * draw(st.integers(1, 2))
    cout = groups * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = draw(
        st.one_of(
            st.sampled_from(["same", "valid"]),
            st.tuples(st.integers(0, 2), st.integers(0, 2)),
            st.integers(0, 2),
        )
    )
    stride = 1 if padding == "same" else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    h, w = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    return {
        "n": draw(st.integers(1, 2)),
        "batched": draw(st.booleans()),
        "shape_w": (cout, cin // groups, kh, kw),
        "shape_x": (cin, h, w),
        "bias": draw(st.booleans()),
        "flags": draw(st.tuples(st.booleans(), st.booleans(), st.booleans())),
        "kwargs": {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups},
    }


@settings(max_examples=60)
@given(cfg=conv_configs(), seed=st.integers(0, 1000))
def test_conv2d_gradients_match_torch(torch, cfg, seed):
    assume(any(cfg["flags"][: 2 + cfg["bias"]]))
    rng = np.random.default_rng(seed)
    x_shape = ((cfg["n"],) if cfg["batched"] else ()) + cfg["shape_x"]
    arrays = [
        rng.standard_normal(x_shape),
        rng.standard_normal(cfg["shape_w"]),
        rng.standard_normal(cfg["shape_w"][0]) if cfg["bias"] else None,
    ]
    theirs = _pair(torch, arrays, cfg["flags"])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_out = torch.nn.functional.conv2d(*theirs, **cfg["kwargs"])
    except RuntimeError:
        assume(False)
    ours = _pair(tl, arrays, cfg["flags"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o_out = F.conv2d(*ours, **cfg["kwargs"])
    np.testing.assert_allclose(o_out._np(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert _chain(o_out) == _chain(t_out)
    assert o_out.requires_grad == t_out.requires_grad
    _backward_both(o_out, t_out, torch, seed)
    _grads_match(ours, theirs)


@settings(max_examples=15)
@given(
    k=st.integers(1, 3),
    stride=st.integers(1, 2),
    padding=st.sampled_from([0, 1, "same"]),
    dilation=st.integers(1, 2),
    length=st.integers(3, 8),
    seed=st.integers(0, 100),
)
def test_conv1d_gradients_match_torch(torch, k, stride, padding, dilation, length, seed):
    if padding == "same":
        stride = 1
    rng = np.random.default_rng(seed)
    arrays = [
        rng.standard_normal((2, 2, length)),
        rng.standard_normal((3, 2, k)),
        rng.standard_normal(3),
    ]
    theirs = _pair(torch, arrays, (True, True, True))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_out = torch.nn.functional.conv1d(
                *theirs, stride=stride, padding=padding, dilation=dilation
            )
    except RuntimeError:
        assume(False)
    ours = _pair(tl, arrays, (True, True, True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        o_out = F.conv1d(*ours, stride=stride, padding=padding, dilation=dilation)
    assert _chain(o_out) == _chain(t_out)
    _backward_both(o_out, t_out, torch, seed)
    _grads_match(ours, theirs)


@st.composite
def pad_configs(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    k = draw(st.integers(1, 3))
    ndim = draw(st.sampled_from([k + 1, k + 2])) if mode != "constant" else draw(st.integers(k, 4))
    shape = tuple(draw(st.integers(1, 4)) for _ in range(ndim))
    pads = []
    for i in range(k):
        size = shape[ndim - 1 - i]
        lo = -size + 1 if mode != "circular" else -size // 2
        hi = {"reflect": size - 1, "circular": size}.get(mode, 3)
        pads += [draw(st.integers(max(lo, -2), hi)), draw(st.integers(max(lo, -2), hi))]
    return mode, shape, pads


@settings(max_examples=60)
@given(cfg=pad_configs(), seed=st.integers(0, 100))
def test_pad_gradients_match_torch(torch, cfg, seed):
    mode, shape, pads = cfg
    x0 = np.random.default_rng(seed).standard_normal(shape)
    theirs = torch.tensor(x0, requires_grad=True)
    try:
        t_out = torch.nn.functional.pad(theirs, pads, mode=mode)
    except (RuntimeError, NotImplementedError):
        assume(False)
    assume(t_out.numel() > 0)
    ours = tl.tensor(x0, requires_grad=True)
    o_out = F.pad(ours, pads, mode=mode)
    np.testing.assert_array_equal(o_out._np(), t_out.detach().numpy())
    assert type(o_out.grad_fn).__name__ == type(t_out.grad_fn).__name__
    _backward_both(o_out, t_out, torch, seed)
    _grads_match([ours], [theirs])


def test_conv_finite_differences():
    """Independent of torch: conv2d with stride, dilation, groups, padding and bias."""
    rng = np.random.default_rng(0)
    arrays = [
        rng.standard_normal((1, 4, 5, 6)),
        rng.standard_normal((2, 2, 2, 3)),
        rng.standard_normal(2),
    ]
    kwargs = {"stride": (2, 1), "padding": (1, 2), "dilation": (1, 2), "groups": 2}
    leaves = [tl.tensor(a, requires_grad=True) for a in arrays]
    out = F.conv2d(*leaves, **kwargs)
    G = rng.standard_normal(tuple(out.shape))
    out.backward(tl.tensor(G))
    eps = 1e-6
    for k, leaf in enumerate(leaves):
        numeric = np.zeros_like(arrays[k])
        for idx in np.ndindex(arrays[k].shape):
            vals = []
            for sign in (1, -1):
                moved = [a.copy() for a in arrays]
                moved[k][idx] += sign * eps
                with tl.no_grad():
                    y = F.conv2d(*(tl.tensor(m) for m in moved), **kwargs)
                vals.append(float((y._np() * G).sum()))
            numeric[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(leaf.grad._np(), numeric, rtol=1e-6, atol=1e-7)


def test_conv2d_module_float32(torch):
    """nn.Conv2d: a Parameter weight (a leaf) and ConvolutionBackward0 on the output."""
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w0 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    results = []
    for lib in (tl, torch):
        conv = lib.nn.Conv2d(3, 4, 3, padding=1, bias=True)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(w0))
            conv.bias.copy_(lib.tensor([0.1, -0.2, 0.3, 0.0]))
        out = conv(lib.tensor(x0))
        assert conv.weight.is_leaf and conv.weight.requires_grad and conv.weight.grad is None
        assert type(out.grad_fn).__name__ == "ConvolutionBackward0"
        assert len(out.grad_fn.next_functions) == 3
        (out * out).mean().backward()
        results.append((conv.weight.grad, conv.bias.grad, repr(out.grad_fn).split(" ")[0]))
    np.testing.assert_allclose(results[0][0]._np(), results[1][0].numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(results[0][1]._np(), results[1][1].numpy(), rtol=1e-4, atol=1e-5)
    assert results[0][2] == results[1][2] == "<ConvolutionBackward0"


def test_printing_a_conv_output(torch):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    w = np.array([[[[-1.0, 0.0, 1.0]] * 3]], dtype=np.float32)
    ours = F.conv2d(tl.tensor(x), tl.nn.Parameter(tl.tensor(w)))
    theirs = torch.nn.functional.conv2d(torch.tensor(x), torch.nn.Parameter(torch.tensor(w)))
    assert repr(ours) == repr(theirs).replace("torch.", "tensorlab.")
    assert "grad_fn=<ConvolutionBackward0>" in repr(ours)


def test_sgd_learns_the_edge_kernel():
    """The lesson's experiment in small: gradient descent recovers [-1, 0, 1] from image pairs."""
    tl.manual_seed(0)
    kernel = tl.tensor([[[[-1.0, 0.0, 1.0]] * 3]])
    images = tl.rand(8, 1, 10, 10)
    with tl.no_grad():
        targets = F.conv2d(images, kernel)
    conv = tl.nn.Conv2d(1, 1, 3, bias=False)
    opt = tl.optim.SGD(conv.parameters(), lr=0.5, momentum=0.9)
    for _ in range(200):
        opt.zero_grad()
        loss = ((conv(images) - targets) ** 2).mean()
        loss.backward()
        opt.step()
    assert loss.item() < 1e-6
    np.testing.assert_allclose(conv.weight.detach()._np(), kernel._np(), atol=1e-3)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_node_names(torch, mode):
    for k in (1, 2, 3):
        x0 = np.ones((1, 2, 4, 4, 4)[: k + 2])
        o = F.pad(tl.tensor(x0, requires_grad=True), [1, 1] * k, mode=mode)
        t = torch.nn.functional.pad(torch.tensor(x0, requires_grad=True), [1, 1] * k, mode=mode)
        assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__
