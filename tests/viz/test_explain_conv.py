"""explain_conv: the terms of one output element, checked against torch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.nn as nn


@st.composite
def explain_cases(draw):
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    mode = draw(st.sampled_from(["zeros", "reflect", "replicate", "circular"]))
    padding = draw(st.sampled_from([0, 1, 2, (2, 1), "valid", "same"]))
    stride = (1, 1) if padding == "same" else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    hw = (draw(st.integers(3, 7)), draw(st.integers(3, 7)))
    return dict(
        groups=groups,
        cin=groups * cg,
        cout=groups * og,
        k=k,
        padding_mode=mode,
        padding=padding,
        stride=stride,
        dilation=dilation,
        hw=hw,
        batched=draw(st.booleans()),
        bias=draw(st.booleans()),
        dtype=draw(st.sampled_from(["float32", "float64"])),
        pick=draw(st.integers(0, 10**6)),
        seed=draw(st.integers(0, 999)),
    )


def _torch_module(torch, case, w, b):
    conv = torch.nn.Conv2d(
        case["cin"],
        case["cout"],
        case["k"],
        stride=case["stride"],
        padding=case["padding"],
        dilation=case["dilation"],
        groups=case["groups"],
        bias=case["bias"],
        padding_mode=case["padding_mode"],
    ).to(getattr(torch, case["dtype"]))
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(w))
        if b is not None:
            conv.bias.copy_(torch.from_numpy(b))
    return conv


@settings(max_examples=150)
@given(explain_cases())
@pytest.mark.filterwarnings("ignore:Using padding=.same.")
def test_terms_sum_to_torch_output_and_pads_agree_with_torch(torch, case):
    rng = np.random.default_rng(case["seed"])
    shape = ((2,) if case["batched"] else ()) + (case["cin"], *case["hw"])
    x = rng.standard_normal(shape).astype(case["dtype"])
    w = rng.standard_normal((case["cout"], case["cin"] // case["groups"], *case["k"])).astype(
        case["dtype"]
    )
    b = rng.standard_normal(case["cout"]).astype(case["dtype"]) if case["bias"] else None
    tconv = _torch_module(torch, case, w, b)
    try:
        ref = tconv(torch.from_numpy(x)).detach().numpy()
    except RuntimeError:
        return  # torch refuses this configuration (e.g. reflect padding >= size): nothing to explain
    idx = np.unravel_index(case["pick"] % ref.size, ref.shape)
    mode = case["padding_mode"]
    ours = tl.explain_conv(
        tl.from_numpy(x),
        tl.from_numpy(w),
        None if b is None else tl.from_numpy(b),
        stride=case["stride"],
        padding=case["padding"],
        dilation=case["dilation"],
        groups=case["groups"],
        padding_mode=mode,
        index=tuple(int(i) for i in idx),
    )
    tol = 1e-9 if case["dtype"] == "float64" else 1e-4
    assert abs(ours.total - float(ref[idx])) <= tol * (1 + abs(float(ref[idx])))
    assert abs(ours.output_value - float(ref[idx])) <= tol * (1 + abs(float(ref[idx])))
    # every term's pixel is the pixel torch's padding puts at that place
    top, bottom, left, right = ours.padding
    fmode = "constant" if mode == "zeros" else mode
    xb = torch.from_numpy(x if case["batched"] else x[None])
    padded = torch.nn.functional.pad(xb, (left, right, top, bottom), mode=fmode).numpy()
    n = ours.batch
    for t in ours.terms:
        assert t.value == pytest.approx(float(padded[n, t.in_channel, t.row + top, t.col + left]))
        assert t.weight_value == pytest.approx(float(w[t.weight_index]))
        h, wd = case["hw"]
        assert t.padded == (not (0 <= t.row < h and 0 <= t.col < wd))
        if t.source is not None:
            assert t.padded and mode != "zeros"
            assert t.value == pytest.approx(
                float(xb.numpy()[n, t.in_channel, t.source[0], t.source[1]])
            )
        elif t.padded:
            assert mode == "zeros" and t.value == 0
    # the group's input channels, and only those
    og = case["cout"] // case["groups"]
    cg = case["cin"] // case["groups"]
    g = ours.out_channel // og
    assert ours.group == g and ours.in_channels == tuple(range(g * cg, (g + 1) * cg))
    assert {t.in_channel for t in ours.terms} == set(ours.in_channels)
    assert len(ours.terms) == cg * case["k"][0] * case["k"][1]


def test_module_in_place_of_weight(torch):
    tl.manual_seed(1)
    conv = nn.Conv2d(4, 4, 3, padding=1, groups=2, padding_mode="reflect")
    x = tl.randn(1, 4, 5, 5)
    e = tl.explain_conv(x, conv, index=(0, 3, 0, 4))
    tconv = torch.nn.Conv2d(4, 4, 3, padding=1, groups=2, padding_mode="reflect")
    with torch.no_grad():
        tconv.weight.copy_(torch.from_numpy(conv.weight._np()))
        tconv.bias.copy_(torch.from_numpy(conv.bias._np()))
    ref = tconv(torch.from_numpy(x._np().copy()))[0, 3, 0, 4].item()
    assert e.total == pytest.approx(ref, abs=1e-5)
    assert e.group == 1 and e.in_channels == (2, 3) and e.padding_mode == "reflect"
    # row -1 mirrors row 1, column 5 mirrors column 3
    t = next(t for t in e.terms if (t.row, t.col) == (-1, 5))
    assert t.padded and t.source == (1, 3)
    text = str(e)
    assert "pad(-1, 5)=x[0, 2, 1, 3]" in text and "(bias)" in text and "group 1" in text
    assert "<table>" in e._repr_html_()
    with pytest.raises(ValueError, match="not both"):
        tl.explain_conv(x, conv, stride=2, index=(0, 0, 0, 0))


def test_lecture_cross_correlation_element():
    """out[0,0,0,2] = 9 of the lecture's proof: the column of ones meets the kernel's 3s."""
    inp = tl.zeros(1, 1, 8, 8, dtype=tl.float64)
    inp[0, 0, :, 4] = 1
    ker = np.zeros((1, 1, 3, 3))
    ker[0, 0, :] = [1, 2, 3]
    e = tl.explain_conv(inp, tl.from_numpy(ker), index=(0, 0, 0, 2))
    assert e.total == 9.0 and e.output_value == 9.0
    nonzero = [t for t in e.terms if t.product != 0]
    assert [(t.row, t.col, t.weight_value) for t in nonzero] == [
        (0, 4, 3.0),
        (1, 4, 3.0),
        (2, 4, 3.0),
    ]
    assert not e.padded_terms
    assert e.sum_text(None).endswith("= 9.0000")


def test_zero_padding_hallucinated_pixels_and_unbatched():
    x = tl.arange(1.0, 10.0).reshape(1, 3, 3)
    w = tl.ones(1, 1, 3, 3)
    e = tl.explain_conv(x, w, padding=1, index=(0, 0, 0))
    assert e.index == (0, 0, 0) and len(e.padded_terms) == 5
    assert all(t.value == 0 and t.source is None for t in e.padded_terms)
    assert e.total == 1 + 2 + 4 + 5
    assert e.window_rows == (-1, 0, 1) and e.window_cols == (-1, 0, 1)


def test_integer_input_and_errors(torch):
    x = tl.arange(16).reshape(1, 1, 4, 4)
    w = tl.ones(1, 1, 2, 2, dtype=tl.int64)
    e = tl.explain_conv(x, w, index=(0, 0, 1, 1))
    assert e.total == 5 + 6 + 9 + 10 and isinstance(e.total, int)
    with pytest.raises(IndexError, match="out of bounds"):
        tl.explain_conv(x, w, index=(0, 0, 3, 0))
    with pytest.raises(IndexError, match="4 entries"):
        tl.explain_conv(x, w, index=(0, 0))
    with pytest.raises(RuntimeError, match="Given groups=1"):  # torch's message for the call
        tl.explain_conv(x, tl.ones(1, 2, 2, 2, dtype=tl.int64), index=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="padding_mode"):
        tl.explain_conv(x, w, padding_mode="zero", index=(0, 0, 0, 0))


# ---------------------------------------------------------------------------- as matmul / transposed


@st.composite
def matmul_cases(draw, transposed=False):
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    out_pad = tuple(draw(st.integers(0, max(s, d) - 1)) for s, d in zip(stride, dilation))
    hw = (draw(st.integers(4, 7)), draw(st.integers(4, 7)))
    return dict(
        groups=groups,
        shape_x=((draw(st.integers(1, 2)),) if draw(st.booleans()) else ()) + (groups * cg,) + hw,
        shape_w=(groups * cg, og, *k) if transposed else (groups * og, cg, *k),
        bias=draw(st.booleans()),
        stride=stride,
        dilation=dilation,
        padding=padding,
        output_padding=out_pad,
        dtype=draw(st.sampled_from(["float32", "float64"])),
        seed=draw(st.integers(0, 999)),
    )


def _arrays(case, n_bias):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["shape_x"]).astype(case["dtype"])
    w = rng.standard_normal(case["shape_w"]).astype(case["dtype"])
    b = rng.standard_normal(n_bias).astype(case["dtype"]) if case["bias"] else None
    return x, w, b


def _tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(matmul_cases())
def test_conv_as_unfold_matmul_view(torch, case):
    x, w, b = _arrays(case, case["shape_w"][0])
    kw = dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"])
    kw["groups"] = case["groups"]
    tb = None if b is None else torch.from_numpy(b)
    try:
        ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), tb, **kw)
    except RuntimeError:
        return  # the kernel does not fit: explain_conv_matmul raises the same (tested in F)
    e = tl.explain_conv_matmul(x, w, b, **kw)
    np.testing.assert_allclose(e.output._np(), ref.numpy(), **_tol(case["dtype"]))
    xb = torch.from_numpy(x if x.ndim == 4 else x[None])
    cols = torch.nn.functional.unfold(
        xb, w.shape[2:], case["dilation"], case["padding"], case["stride"]
    )
    np.testing.assert_array_equal(e.cols._np(), cols.numpy() if x.ndim == 4 else cols[0].numpy())
    # the last step is a view of the product: no copy
    assert e.output.untyped_storage().data_ptr() == e.product.untyped_storage().data_ptr()
    assert e.max_abs_diff <= _tol(case["dtype"])["atol"] * (1 + np.abs(ref.numpy()).max())
    assert "F.unfold" in str(e) and "view" in str(e)


@settings(max_examples=40, deadline=None)
@given(matmul_cases(transposed=True))
def test_transposed_conv_as_zero_insertion_and_flipped_kernel(torch, case):
    g = case["groups"]
    x, w, b = _arrays(case, case["shape_w"][1] * g)
    args = (case["stride"], case["padding"], case["output_padding"], g, case["dilation"])
    tb = None if b is None else torch.from_numpy(b)
    tx, tw = torch.from_numpy(x), torch.from_numpy(w)
    try:
        ref = torch.nn.functional.conv_transpose2d(tx, tw, tb, *args)
    except RuntimeError:
        return
    e = tl.explain_conv_transpose(x, w, b, *args)
    np.testing.assert_allclose(e.output._np(), ref.numpy(), **_tol(case["dtype"]))
    # every step against torch's own construction
    xb = tx if x.ndim == 4 else tx[None]
    (sh, sw), (dh, dw) = case["stride"], case["dilation"]
    n, c, h, wd = xb.shape
    z = torch.zeros(n, c, (h - 1) * sh + 1, (wd - 1) * sw + 1, dtype=xb.dtype)
    z[:, :, ::sh, ::sw] = xb
    kh, kw = w.shape[2:]
    top, left = dh * (kh - 1) - case["padding"][0], dw * (kw - 1) - case["padding"][1]
    opad = case["output_padding"]
    zp = torch.nn.functional.pad(z, (left, left + opad[1], top, top + opad[0]))
    kernel = tw.reshape(g, c // g, -1, kh, kw).transpose(1, 2).reshape(-1, c // g, kh, kw)
    kernel = kernel.flip(2, 3)
    unb = (lambda t: t) if x.ndim == 4 else (lambda t: t[0])
    np.testing.assert_array_equal(e.dilated._np(), unb(z).numpy())
    np.testing.assert_array_equal(e.padded._np(), unb(zp).numpy())
    np.testing.assert_array_equal(e.kernel._np(), kernel.numpy())
    if ref.numel() == 0:
        return
    via_conv = torch.nn.functional.conv2d(zp, kernel, tb, 1, 0, case["dilation"], g)
    np.testing.assert_allclose(e.output._np(), unb(via_conv).numpy(), **_tol(case["dtype"]))
    assert "zero-insertion" in str(e) and "flipped" in str(e)
