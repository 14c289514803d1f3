"""Differential tests of tensor printing: ``repr`` must equal torch's, module name aside.

Every test builds the same data in tensorlab and in torch (numpy array -> both), checks the data and
layout agree, then compares ``repr``/``str`` character for character after replacing ``torch.``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import currently_in_test_context, event, given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab import _dtype as D
from tensorlab import _printing as P

pytestmark = pytest.mark.oracle

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
FLOATS = ["float16", "float32", "float64"]


@pytest.fixture(autouse=True)
def _restore_defaults(torch):
    """Every test starts and ends with both libraries on default print options and dtype."""
    torch.set_printoptions(profile="default")
    P.reset_printoptions()
    torch.set_default_dtype(torch.float32)
    D.set_default_dtype(D.float32)
    yield
    torch.set_printoptions(profile="default")
    P.reset_printoptions()
    torch.set_default_dtype(torch.float32)
    D.set_default_dtype(D.float32)


def expected(theirs) -> str:
    return repr(theirs).replace("torch.", "tensorlab.")


def assert_prints_same(ours, theirs) -> None:
    """Same data and dtype (so a failure is about printing), then the same text."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours._np(), theirs.detach().numpy())
    want = expected(theirs)
    got = repr(ours)
    if currently_in_test_context():  # coverage notes for --hypothesis-show-statistics
        if "..." in want:
            event("summarized")
        if "e+" in want or "e-" in want:
            event("scientific")
        if "\n" in want.split("[")[-1]:  # a row longer than one line
            event("wrapped row")
    assert got == want, f"\nours:\n{got}\ntorch:\n{want}"
    assert str(ours) == want


def pair(torch, arr: np.ndarray):
    """(tensorlab, torch) tensors holding the same data; tensorlab shares ``arr``, torch copies."""
    return tl.from_numpy(arr), torch.from_numpy(arr.copy())


# ---------------------------------------------------------------------------------- data makers
def make_values(seed: int, shape: tuple[int, ...], dtype: str, kind: str) -> np.ndarray:
    """Deterministic data of one 'kind' (scale/special values), cast to ``dtype``."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in FLOATS:
        normal = rng.standard_normal(shape)
        if kind == "unit":
            out = normal
        elif kind == "integral":
            out = rng.integers(-50, 50, shape).astype(np.float64)
        elif kind == "big_integral":
            out = rng.integers(-(10**6), 10**6, shape).astype(np.float64) * 1000
        elif kind == "tiny":
            out = normal * 1e-6
        elif kind == "huge":
            out = normal * 1e10
        elif kind == "wide":
            out = normal * 10.0 ** rng.integers(-6, 7, shape)
        elif kind == "ratio":  # ratio of magnitudes just around 1000
            out = rng.choice([1.0, -2.5, 999.0, 1000.0, 1001.0, 2500.0], shape)
        elif kind == "nonfinite":
            out = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -3.0, 7.0], shape)
        elif kind == "nonfinite_integral":
            out = rng.choice([np.nan, np.inf, -np.inf, 0.0, 12.0, -100.0], shape)
        elif kind == "zeros":
            out = rng.choice([0.0, -0.0], shape)
        else:  # "rounding": values near the 4th-decimal rounding boundary
            out = np.round(normal, 4) + rng.choice([0.00005, -0.00005, 0.0], shape)
        with np.errstate(over="ignore"):  # float16 turns huge values into inf, as torch does
            return np.asarray(out, dtype=np.float64).astype(dtype)
    info = np.iinfo(dtype)
    if kind in ("huge", "wide", "big_integral"):
        lo, hi = int(info.min), int(info.max)
    else:
        lo, hi = max(int(info.min), -50), min(int(info.max), 50)
    return np.asarray(rng.integers(lo, hi, shape, endpoint=True, dtype=np.int64)).astype(dtype)


KINDS = [
    "unit",
    "integral",
    "big_integral",
    "tiny",
    "huge",
    "wide",
    "ratio",
    "nonfinite",
    "nonfinite_integral",
    "zeros",
    "rounding",
]
LAYOUTS = ["contiguous", "transpose", "slice", "expand", "permute"]

small_shapes = st.lists(st.integers(0, 6), min_size=0, max_size=5).map(tuple)
wide_shapes = st.lists(st.integers(1, 30), min_size=1, max_size=3).map(tuple)
big_shapes = st.one_of(
    st.tuples(st.integers(1001, 2500)),
    st.sampled_from(
        [
            (40, 30),
            (3, 400),
            (400, 3),
            (11, 10, 10),
            (2, 3, 4, 5, 9),
            (7, 1, 150),
            (1, 1, 2000),
            (10, 101),
            (2, 2, 2, 2, 70),
            (4, 6, 50),
        ]
    ),
)
shapes = st.one_of(small_shapes, wide_shapes, big_shapes)


def apply_layout(ours, theirs, layout: str):
    """The same non-contiguous view on both sides."""
    nd = ours.ndim
    if nd == 0 or layout == "contiguous":
        return ours, theirs
    if layout == "transpose":
        return ours.transpose(0, -1), theirs.transpose(0, -1)
    if layout == "slice":
        return ours[::2], theirs[::2]
    if layout == "expand":
        size = (2, *ours.shape)
        return ours.unsqueeze(0).expand(*size), theirs.unsqueeze(0).expand(*size)
    dims = tuple(reversed(range(nd)))
    return ours.permute(*dims), theirs.permute(*dims)


def add_grad(torch, ours, theirs, grad: str):
    """Mark both sides as requiring grad, or give both a real history (grad_fn=<MulBackward0>)."""
    if grad == "none":
        return ours, theirs
    if grad == "requires_grad":
        ours.requires_grad = True
        return ours, theirs.detach().requires_grad_()
    # a real history on both sides: grad_fn=<MulBackward0> wins over requires_grad in the repr
    return ours.detach().requires_grad_() * 1, theirs.detach().requires_grad_() * 1


# ---------------------------------------------------------------------------------- properties
@settings(max_examples=300)
@given(
    shape=shapes,
    dtype=st.sampled_from(DTYPES),
    kind=st.sampled_from(KINDS),
    layout=st.sampled_from(LAYOUTS),
    seed=st.integers(0, 2**16),
)
def test_repr_matches_torch(torch, shape, dtype, kind, layout, seed):
    arr = make_values(seed, shape, dtype, kind)
    ours, theirs = apply_layout(*pair(torch, arr), layout)
    assert_prints_same(ours, theirs)


@given(
    shape=st.one_of(small_shapes, wide_shapes),
    dtype=st.sampled_from(FLOATS),
    kind=st.sampled_from(KINDS),
    grad=st.sampled_from(["requires_grad", "grad_fn", "grad_fn_type_name"]),
    seed=st.integers(0, 2**16),
)
def test_grad_suffixes_match_torch(torch, shape, dtype, kind, grad, seed):
    arr = make_values(seed, shape, dtype, kind)
    ours, theirs = add_grad(torch, *pair(torch, arr), grad)
    assert_prints_same(ours, theirs)


print_options = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 1, 5, 20, 100, 1000, math.inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.sampled_from([10, 20, 40, 80, 120]),
        "sci_mode": st.sampled_from([None, True, False]),
        "profile": st.sampled_from(["default", "short", "full"]),
    },
)


@settings(max_examples=300)
@given(
    options=print_options,
    shape=st.one_of(small_shapes, wide_shapes),
    dtype=st.sampled_from(DTYPES),
    kind=st.sampled_from(KINDS),
    layout=st.sampled_from(LAYOUTS),
    grad=st.sampled_from(["none", "requires_grad", "grad_fn"]),
    seed=st.integers(0, 2**16),
)
def test_printoptions_match_torch(torch, options, shape, dtype, kind, layout, grad, seed):
    arr = make_values(seed, shape, dtype, kind)
    ours, theirs = apply_layout(*pair(torch, arr), layout)
    if dtype in FLOATS:
        ours, theirs = add_grad(torch, ours, theirs, grad)
    torch.set_printoptions(**options)
    tl.set_printoptions(**options)
    try:
        assert P.get_printoptions() == dict(torch._tensor_str.get_printoptions())
        assert_prints_same(ours, theirs)
    finally:
        torch.set_printoptions(profile="default")
        P.reset_printoptions()


# ---------------------------------------------------------------------------------- the lecture
def test_lecture_step_image_float64(torch):
    arr = np.zeros((8, 8), dtype=float)
    arr[:, :4] = 4.0
    arr[:, 4:] = 1.0
    ours, theirs = pair(torch, arr)
    assert_prints_same(ours, theirs)
    assert repr(ours).startswith("tensor([[4., 4., 4., 4., 1., 1., 1., 1.],\n        [4.")
    assert repr(ours).endswith("1., 1.]], dtype=tensorlab.float64)")
    ours4, theirs4 = ours.unsqueeze(0).unsqueeze(0), theirs.unsqueeze(0).unsqueeze(0)
    assert_prints_same(ours4, theirs4)
    assert_prints_same(ours4.float(), theirs4.float())


def test_lecture_kernel_and_conv_output(torch):
    ker = np.zeros((3, 3), dtype=float)
    ker[:, 0], ker[:, 2] = -1.0, 1.0
    ours, theirs = pair(torch, ker)
    assert_prints_same(ours, theirs)
    assert repr(ours).splitlines()[0] == "tensor([[-1.,  0.,  1.],"
    assert_prints_same(ours.unsqueeze(0).unsqueeze(0), theirs.unsqueeze(0).unsqueeze(0))
    out = np.zeros((1, 1, 6, 6))
    out[..., 2:4] = -9.0
    assert_prints_same(*pair(torch, out))


def test_lecture_int_tensors(torch):
    cases = [
        [1, 2, 3, 4],
        [[1, 2, 3, 4]],
        [[1], [2], [3], [4]],
        [[[1, 2, 1, 2], [3, 4, 3, 4], [1, 3, 1, 3]], [[5, 6, 5, 6], [6, 7, 6, 7], [8, 9, 8, 9]]],
        [[[[1, 2, 3, 4]]]],
        [[0, 0, -1, 0, 5, 0], [-3, 0, -3, 0, -1, 0]],
    ]
    for data in cases:
        assert_prints_same(tl.tensor(data), torch.tensor(data))
    assert (
        repr(tl.tensor([[1], [2], [3], [4]]))
        == "tensor([[1],\n        [2],\n        [3],\n        [4]])"
    )
    x = tl.tensor(cases[3])
    assert_prints_same(x.unsqueeze(1), torch.tensor(cases[3]).unsqueeze(1))
    r, rt = tl.arange(10), torch.arange(10)
    assert_prints_same(r, rt)
    assert_prints_same(r.view(2, 5), rt.view(2, 5))
    assert_prints_same(r.view(2, 5).t(), rt.view(2, 5).t())


def test_lecture_zeros_and_bool(torch):
    assert_prints_same(tl.zeros(4, 1, 5), torch.zeros(4, 1, 5))
    assert_prints_same(tl.zeros(4, 1, 5).squeeze(), torch.zeros(4, 1, 5).squeeze())
    b = np.ones((2, 6), dtype=bool)
    assert_prints_same(*pair(torch, b))
    b[1, 2] = False
    assert_prints_same(*pair(torch, b))
    assert repr(tl.tensor(True)) == "tensor(True)"
    assert_prints_same(tl.tensor(False), torch.tensor(False))


def test_lecture_randn_values(torch):
    vals = [1.5410, -0.2934, -2.1788, 0.5684, -1.0845, -1.3986, 0.4033, 0.8380, -0.7193, -0.4033]
    arr = np.array(vals + [-0.5966, 0.1820], dtype=np.float32)
    ours, theirs = pair(torch, arr)
    assert_prints_same(ours.view(3, 4), theirs.view(3, 4))
    assert repr(ours.view(3, 4)).splitlines()[0] == "tensor([[ 1.5410, -0.2934, -2.1788,  0.5684],"
    assert_prints_same(ours.view(2, 6), theirs.view(2, 6))


# ---------------------------------------------------------------------------------- explicit cases
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 4), (3, 0), (0, 0, 0, 0, 1)])
def test_empty(torch, dtype, shape):
    assert_prints_same(*pair(torch, np.zeros(shape, dtype=dtype)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_dim(torch, dtype):
    for v in [0, 1, -1, 7, 100, 0.5, 1e-7, 3e9, -0.0, float("nan"), float("inf")]:
        if dtype not in FLOATS and (isinstance(v, float) and not np.isfinite(v)):
            continue
        with np.errstate(invalid="ignore", over="ignore"):
            arr = np.array(v).astype(dtype)
        assert_prints_same(*pair(torch, arr))


def test_float_special_values(torch):
    cases = [
        [0.0, float("nan")],
        [1.0, float("nan"), 100.0],
        [float("inf"), -float("inf"), float("nan")],
        [-0.0, 0.0, 1.0],
        [-0.0, 0.5],
        [1e-5, 1.0],
        [1e8, 1.0],
        [1.0e9],
        [123456789.0],
        [0.0001, 0.1],
        [0.00009999],
        [1.0, 1000.0],
        [1.0, 1000.5],
        [1.0, 1001.0],
        [float("nan"), 1e-10, 5.0],
    ]
    for data in cases:
        for dtype in FLOATS:
            with np.errstate(over="ignore"):
                arr = np.array(data).astype(dtype)
            assert_prints_same(*pair(torch, arr))


def test_line_wrapping_and_suffix_breaks(torch):
    arr = np.linspace(-1000, 1000, 37)
    ours, theirs = pair(torch, arr)
    assert_prints_same(ours, theirs)
    assert "\n" in repr(ours)
    for n in range(1, 16):  # last line lengths around the 80 column limit for the suffixes
        a = np.arange(n, dtype=np.float64) * 1.25 - 3
        ours, theirs = add_grad(torch, *pair(torch, a), "requires_grad")
        assert_prints_same(ours, theirs)
        ours, theirs = add_grad(torch, *pair(torch, a.astype(np.float16)), "grad_fn")
        assert_prints_same(ours, theirs)


def test_suffix_breaks_across_linewidths(torch):
    """Two suffixes (dtype, then grad): each one may or may not start a new line."""
    for linewidth in range(20, 61, 3):
        torch.set_printoptions(linewidth=linewidth)
        tl.set_printoptions(linewidth=linewidth)
        for n in (1, 2, 3, 5):
            a = np.arange(n, dtype=np.float64) - 0.5
            for grad in ("requires_grad", "grad_fn"):
                assert_prints_same(*add_grad(torch, *pair(torch, a), grad))
            assert_prints_same(*pair(torch, np.zeros((0, n), dtype=np.int16)))


def test_nested_summarization(torch):
    arr = np.arange(2 * 300 * 4 * 10, dtype=np.float64).reshape(2, 300, 4, 10) / 7
    ours, theirs = pair(torch, arr)
    assert_prints_same(ours, theirs)
    assert "..." in repr(ours)
    assert_prints_same(ours.transpose(1, 3), theirs.transpose(1, 3))
    big = np.arange(100 * 100, dtype=np.int64).reshape(100, 100)
    ours, theirs = pair(torch, big)
    assert_prints_same(ours, theirs)
    assert_prints_same(ours[::3, 1::2], theirs[::3, 1::2])


def test_set_printoptions_profiles_round_trip(torch):
    arr = np.linspace(0, 1, 2000, dtype=np.float32).reshape(40, 50)
    ours, theirs = pair(torch, arr)
    for profile in ["short", "full", "default"]:
        torch.set_printoptions(profile=profile)
        tl.set_printoptions(profile=profile)
        assert_prints_same(ours, theirs)
    torch.set_printoptions(precision=2, sci_mode=True)
    tl.set_printoptions(precision=2, sci_mode=True)
    assert_prints_same(ours[:2, :3], theirs[:2, :3])
    assert "e-" in repr(ours[:2, :3])
    # sci_mode is reset by any call that does not pass it, as in torch
    torch.set_printoptions(precision=2)
    tl.set_printoptions(precision=2)
    assert P.get_printoptions()["sci_mode"] is None
    assert_prints_same(ours[:2, :3], theirs[:2, :3])
    with P.printoptions(precision=6, linewidth=30):
        assert P.get_printoptions()["linewidth"] == 30
    assert P.get_printoptions() == dict(torch._tensor_str.get_printoptions())
    P.reset_printoptions()
    torch.set_printoptions(profile="default")
    assert P.get_printoptions() == dict(torch._tensor_str.get_printoptions())
    assert_prints_same(ours, theirs)


def test_default_dtype_float64(torch):
    torch.set_default_dtype(torch.float64)
    D.set_default_dtype(D.float64)
    for dtype in FLOATS + ["int64"]:
        for shape in [(3,), (0, 2), (0,)]:
            assert_prints_same(*pair(torch, np.ones(shape, dtype=dtype) / 3))


def test_parameter_repr(torch):
    arr = np.array([[0.25, -1.5], [3.0, 4.125]], dtype=np.float32)
    ours = tl.from_numpy(arr)
    ours.requires_grad = True
    want = repr(torch.nn.Parameter(torch.from_numpy(arr.copy()))).replace("torch.", "tensorlab.")
    assert P.parameter_repr(ours) == want
    assert want.startswith("Parameter containing:\ntensor(")


def test_format_spec_on_tensor_str(torch):
    ours, theirs = pair(torch, np.array([1.0, 2.5]))
    assert f"{ours}" == f"{theirs}".replace("torch.", "tensorlab.")
