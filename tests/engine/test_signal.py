"""tensorlab.signal against scipy.signal, and the scipy <-> conv2d bridge."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal as ss
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
import tensorlab.signal as S

BOUNDARIES = ["fill", "wrap", "symm", "pad", "circular", "symmetric"]
MODES = ["full", "same", "valid"]


def outcome(f):
    try:
        return f()
    except Exception as e:  # noqa: BLE001
        return e


def assert_same_outcome(ours, theirs, rtol=1e-10):
    if isinstance(theirs, Exception) or isinstance(ours, Exception):
        assert type(ours) is type(theirs) and str(ours) == str(theirs), (ours, theirs)
        return
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (
        ours.dtype,
        theirs.dtype,
        ours.shape,
        theirs.shape,
    )
    if ours.dtype.kind in "iub":
        np.testing.assert_array_equal(ours, theirs)
    else:
        tol = 1e-4 if ours.dtype in (np.float32, np.complex64) else rtol
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@st.composite
def signal_cases(draw):
    m, n = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    p, q = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    dtype = draw(st.sampled_from(["float64", "float32", "int64", "int8", "complex128"]))
    return dict(
        x=(m, n),
        k=(p, q),
        dtype=dtype,
        mode=draw(st.sampled_from(MODES)),
        boundary=draw(st.sampled_from(BOUNDARIES)),
        fillvalue=draw(st.sampled_from([0, 1.5, -2])),
        seed=draw(st.integers(0, 999)),
    )


def _arrays(case):
    rng = np.random.default_rng(case["seed"])
    x = rng.standard_normal(case["x"]) * 3
    k = rng.standard_normal(case["k"]) * 3
    if case["dtype"] == "complex128":
        x = x + 1j * rng.standard_normal(case["x"])
        k = k - 2j * rng.standard_normal(case["k"])
    return x.astype(case["dtype"]), k.astype(case["dtype"])


@pytest.mark.parametrize("func", ["convolve2d", "correlate2d"])
@settings(max_examples=300)
@given(case=signal_cases())
def test_matches_scipy(func, case):
    x, k = _arrays(case)
    kw = dict(mode=case["mode"], boundary=case["boundary"], fillvalue=case["fillvalue"])
    assert_same_outcome(
        outcome(lambda: getattr(S, func)(x, k, **kw)),
        outcome(lambda: getattr(ss, func)(x, k, **kw)),
    )


@pytest.mark.parametrize("func", ["convolve2d", "correlate2d"])
@pytest.mark.parametrize(
    "x, k, kw",
    [
        (np.ones((3, 3)), np.ones((2, 2)), dict(mode="foo")),
        (np.ones((3, 3)), np.ones((2, 2)), dict(boundary="foo")),
        (np.ones((3, 3)), np.ones((2, 2)), dict(boundary="reflect")),
        (np.ones((3, 3)), np.ones((2, 2)), dict(fillvalue=[1, 2])),
        (np.ones((3, 3)), np.ones((3, 3)), dict(fillvalue=np.array([2.0]))),
        (np.ones((3, 3)), np.ones((2, 2, 2)), {}),
        (np.ones(3), np.ones(3), {}),
        (np.ones((3, 1)), np.ones((1, 3)), dict(mode="valid")),
        (np.ones((2, 2)), np.ones((4, 5)), dict(mode="valid")),
        (np.ones((2, 2), bool), np.ones((2, 2), bool), {}),
        (np.ones((0, 3)), np.ones((1, 3)), {}),
        (np.ones((4, 4), np.int8) * 100, np.ones((2, 2), np.int8), {}),
        (
            np.ones((4, 4), np.float32),
            np.ones((2, 2), np.int64),
            dict(mode="same", boundary="symm"),
        ),
        ([[1, 2], [3, 4]], [[1, 0], [0, -1]], {}),
        (np.arange(4.0).reshape(2, 2), np.ones((5, 5)), dict(boundary="symm")),
        (np.arange(4.0).reshape(2, 2), np.ones((5, 5)), dict(boundary="wrap", mode="same")),
    ],
)
def test_edge_cases_match_scipy(func, x, k, kw):
    assert_same_outcome(
        outcome(lambda: getattr(S, func)(x, k, **kw)),
        outcome(lambda: getattr(ss, func)(x, k, **kw)),
    )


def test_tensors_in_tensor_out():
    x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tl.float64)
    k = tl.tensor([[1.0, -1.0]], dtype=tl.float64)
    out = S.convolve2d(x, k, mode="valid")
    assert isinstance(out, tl.Tensor) and out.dtype == tl.float64
    np.testing.assert_array_equal(out._np(), ss.convolve2d(x._np(), k._np(), mode="valid"))


def test_lecture_convo2d_definition():
    """The lecture's loop (flip, then slide) is convolve2d(..., 'valid')."""
    rng = np.random.default_rng(0)
    arr, ker = rng.standard_normal((8, 7)), rng.standard_normal((3, 2))

    def convo2d(inp, kernel):
        h, w = inp.shape
        m, n = kernel.shape
        out = np.zeros((h - m + 1, w - n + 1))
        kernel = np.flip(kernel)
        for i in range(h - m + 1):
            for j in range(w - n + 1):
                out[i, j] = np.sum(inp[i : i + m, j : j + n] * kernel)
        return out

    np.testing.assert_allclose(S.convolve2d(arr, ker, mode="valid"), convo2d(arr, ker), rtol=1e-12)


@pytest.mark.parametrize("boundary", ["fill", "wrap", "symm"])
def test_boundary_index_is_numpy_pad(boundary):
    np_mode = {"fill": "constant", "wrap": "wrap", "symm": "symmetric"}[boundary]
    extra = {"constant_values": -1} if boundary == "fill" else {}
    for n in range(1, 6):
        for b in range(0, 12):
            for a in range(0, 12):
                ref = np.pad(np.arange(n), (b, a), mode=np_mode, **extra)
                np.testing.assert_array_equal(S.boundary_index(n, b, a, boundary), ref)


def test_padding_mode_table_is_true(torch):
    """Each row's names really pad the same way in torch (F.pad), numpy.pad and scipy."""
    x = np.arange(1.0, 6.0)
    for _, torch_mode, fpad_mode, numpy_mode, scipy_boundary in S.PADDING_MODES:
        ref = np.pad(x, (2, 2), mode=numpy_mode)
        if fpad_mode is not None:
            got = torch.nn.functional.pad(torch.from_numpy(x)[None], (2, 2), mode=fpad_mode)[
                0
            ].numpy()
            np.testing.assert_array_equal(got, ref)
            ours = tl.nn.functional.pad(tl.from_numpy(x)[None], (2, 2), mode=fpad_mode)[0]._np()
            np.testing.assert_array_equal(ours, ref)
        if torch_mode is not None:
            conv = torch.nn.Conv2d(
                1, 1, (1, 5), padding=(0, 2), padding_mode=torch_mode, bias=False
            ).double()
            with torch.no_grad():
                conv.weight.zero_()
                conv.weight[0, 0, 0, 0] = 1.0  # output j reads padded j: shows the first 5 of ref
            np.testing.assert_array_equal(
                conv(torch.from_numpy(x)[None, None, None])[0, 0, 0].detach().numpy(), ref[:5]
            )
        if scipy_boundary is not None:
            # a delta kernel at the corner of a 'full' correlation reads the padded image
            k = np.zeros((1, 5))
            k[0, 2] = 1.0  # full[j] reads the image padded by 4 at j + 2: padded-by-2 image
            full = ss.correlate2d(x[None], k, mode="full", boundary=scipy_boundary)[0]
            np.testing.assert_array_equal(full, ref)
    assert "symmetric" in S.padding_mode_table() and "replicate" in S.padding_mode_table()


@st.composite
def bridge_cases(draw):
    return dict(
        func=draw(st.sampled_from(["convolve2d", "correlate2d"])),
        mode=draw(st.sampled_from(MODES)),
        boundary=draw(st.sampled_from(["fill", "wrap", "symm", "circular", "symmetric"])),
        fillvalue=draw(st.sampled_from([0, 0.5])),
        k=(draw(st.integers(1, 5)), draw(st.integers(1, 5))),
        x=(draw(st.integers(5, 9)), draw(st.integers(5, 9))),
        seed=draw(st.integers(0, 999)),
    )


@settings(max_examples=150)
@given(bridge_cases())
def test_from_scipy_bridge_verifies(case):
    br = S.from_scipy(case["func"], case["mode"], case["boundary"], case["fillvalue"], case["k"])
    rng = np.random.default_rng(case["seed"])
    x, k = rng.standard_normal(case["x"]), rng.standard_normal(case["k"])
    check = br.verify(x, k)
    assert check.ok, (str(br), check.max_abs_diff)
    # the bridge's own statements, checked against first principles
    assert br.flip_kernel == (case["func"] == "convolve2d")
    left, right, top, bottom = br.pad
    if case["mode"] == "full":
        assert (top, bottom, left, right) == (case["k"][0] - 1,) * 2 + (case["k"][1] - 1,) * 2
    if case["mode"] == "same":
        assert top + bottom == case["k"][0] - 1 and left + right == case["k"][1] - 1
        if case["k"][0] % 2 == 0:
            assert (top > bottom) == (case["func"] == "convolve2d")


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [0, 1, 2, (1, 0), "same", "valid"])
@pytest.mark.parametrize("k", [(3, 3), (2, 4), (4, 1), (1, 1)])
@pytest.mark.filterwarnings("ignore:Using padding=.same.")
def test_to_scipy_bridge_verifies(torch, padding_mode, padding, k):
    br = S.to_scipy(k, padding, padding_mode)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((6, 7)), rng.standard_normal(k)
    check = br.verify(x, w)
    assert check.ok, str(br)
    # and the tensorlab side is what torch's nn.Conv2d computes
    conv = torch.nn.Conv2d(1, 1, k, padding=padding, padding_mode=padding_mode, bias=False).double()
    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(w)[None, None])
    ref = conv(torch.from_numpy(x)[None, None])[0, 0].detach().numpy()
    np.testing.assert_allclose(check.tensorlab_result, ref, rtol=1e-12, atol=1e-12)
    assert "correlate2d" in br.scipy_call and not br.flip_kernel


def test_bridge_text_states_the_conventions():
    br = S.from_scipy("convolve2d", "same", "symm", 0, (4, 4))
    text = str(br)
    assert "w.flip(-1, -2)" in text and "top/left" in text and "symm" in text
    assert br.pad == (2, 1, 2, 1) and br.pad_mode is None and br.numpy_mode == "symmetric"
    assert "<table>" in br._repr_html_()
    br2 = S.from_scipy("correlate2d", "same", "fill", 0, (4, 4))
    assert br2.pad == (1, 2, 1, 2) and "bottom/right" in str(br2)
    br3 = S.to_scipy((3, 3), 1, "reflect")
    assert "numpy.pad" in br3.scipy_call and br3.numpy_mode == "reflect"
    with pytest.raises(ValueError, match="shape"):
        br.verify(np.ones((5, 5)), np.ones((3, 3)))


def test_signal_imports_scipy_lazily():
    import subprocess
    import sys

    code = (
        "import sys, tensorlab.signal as S, numpy as np\n"
        "S.convolve2d(np.ones((3, 3)), np.ones((2, 2)), 'same', 'symm')\n"
        "S.from_scipy('convolve2d', 'same')\n"
        "assert 'scipy' not in sys.modules\n"
        "S.from_scipy('convolve2d', 'same').verify(np.ones((4, 4)), np.ones((3, 3)))\n"
        "assert 'scipy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
