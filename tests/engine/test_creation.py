"""Creation ops and dtypes against the PyTorch oracle."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, dtype_name, raises_same
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

# ----------------------------------------------------------------------------- tensor(data)

scalars = st.one_of(
    st.booleans(),
    st.integers(-1000, 1000),
    st.floats(-1e6, 1e6, allow_nan=False, width=32),
)


@st.composite
def nested(draw, max_depth=3):
    """Nested lists of one scalar kind mix, sometimes ragged on purpose."""
    shape = draw(st.lists(st.integers(0, 3), min_size=0, max_size=max_depth))
    kinds = draw(st.lists(st.sampled_from(["bool", "int", "float"]), min_size=1, max_size=2))
    leaf = st.one_of(
        *[
            {
                "bool": st.booleans(),
                "int": st.integers(-50, 50),
                "float": st.floats(-50, 50, width=32),
            }[k]
            for k in kinds
        ]
    )

    def build(dims):
        if not dims:
            return draw(leaf)
        n = dims[0]
        if draw(st.integers(0, 15)) == 0 and len(dims) > 1:
            n = max(0, n + draw(st.sampled_from([-1, 1])))  # ragged on purpose
        return [build(dims[1:]) for _ in range(n)]

    return build(shape)


@settings(max_examples=300)
@given(data=nested())
def test_tensor_from_nested_lists(torch, data):
    r_o, r_t = raises_same(lambda: tl.tensor(data), lambda: torch.tensor(data))
    if r_t is not None:
        assert_same(r_o, r_t)


@pytest.mark.parametrize(
    "data",
    [
        [[1, 2, 3], [4, 5]],
        [[[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10]]],  # the article's "view" example
        [[1], 2],
        "a",
        [1, "a"],
        None,
        [],
        [[]],
        [True, 2],
        [1, 2.5],
        3,
        2.5,
        True,
        [np.float64(1.0)],
        [np.int32(1)],
        np.float32(1.5),
    ],
    ids=repr,
)
def test_tensor_data_cases(torch, data):
    r_o, r_t = raises_same(lambda: tl.tensor(data), lambda: torch.tensor(data))
    if r_t is not None:
        assert_same(r_o, r_t)


def test_ragged_list_fails_at_construction_not_at_view(torch):
    """The article (000) blames view(); the tensor is never built."""
    data = [[[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10]]]
    for lib in (tl, torch):
        with pytest.raises(ValueError, match="expected sequence of length 3 at dim 2"):
            lib.tensor(data)


@pytest.mark.parametrize(
    "dtype",
    [None, "float64", "float32", "int64", "int32", "bool", "uint8", "float16", "int8", "int16"],
)
def test_tensor_dtype_argument(torch, dtype):
    data = [[0, 1.5, -2.7], [3, 4, 250.9]]
    td = None if dtype is None else getattr(tl, dtype)
    rd = None if dtype is None else getattr(torch, dtype)
    r_o, r_t = raises_same(lambda: tl.tensor(data, dtype=td), lambda: torch.tensor(data, dtype=rd))
    if r_t is not None:
        assert_same(r_o, r_t)


def test_python_types_as_dtypes(torch):
    for py in (float, int, bool):
        assert_same(tl.tensor([1, 0, 2], dtype=py), torch.tensor([1, 0, 2], dtype=py))
        assert_same(tl.zeros(2, dtype=py), torch.zeros(2, dtype=py))
    assert tl.get_default_dtype() is tl.float32
    assert repr(tl.float32) == "tensorlab.float32"
    assert tl.float is tl.float32 and tl.double is tl.float64 and tl.long is tl.int64


# ----------------------------------------------------------------------------- numpy bridge

np_dtypes = st.sampled_from(
    [np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_]
)


@settings(max_examples=100)
@given(
    shape=st.lists(st.integers(0, 4), max_size=3).map(tuple),
    dtype=np_dtypes,
    transpose=st.booleans(),
    step=st.integers(1, 2),
)
def test_from_numpy_layout_and_sharing(torch, shape, dtype, transpose, step):
    arr = (np.arange(int(np.prod(shape))) % 5).astype(dtype).reshape(shape)
    if transpose:
        arr = arr.T
    if arr.ndim:
        arr = arr[::step]
    ours = tl.from_numpy(arr)
    theirs = torch.from_numpy(arr)
    assert_same(ours, theirs)
    assert ours.data_ptr() == arr.__array_interface__["data"][0] or arr.size == 0
    if arr.size:
        # numpy -> tensor
        idx = (0,) * arr.ndim
        arr[idx] = 1
        assert ours[idx].item() == 1
        # tensor -> numpy
        ours[idx] = 0
        assert arr[idx] == 0
        back = ours.numpy()
        assert np.shares_memory(back, arr)


def test_from_numpy_errors(torch):
    for arr in (np.arange(5)[::-1], np.zeros(3, dtype="U3"), [1, 2]):
        raises_same(lambda arr=arr: tl.from_numpy(arr), lambda arr=arr: torch.from_numpy(arr))


def test_tensor_copies_numpy_but_as_tensor_shares(torch):
    for lib in (tl, torch):
        arr = np.zeros(3)
        t = lib.tensor(arr)
        a = lib.as_tensor(arr)
        arr[0] = 7
        assert t[0].item() == 0
        assert a[0].item() == 7
        assert t.dtype == lib.float64


# ----------------------------------------------------------------------------- by shape


@pytest.mark.parametrize("fn", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize(
    "size", [(2, 3), ((2, 3),), ([4, 1, 5],), (0,), (), (-1,), (2.5,)], ids=repr
)
def test_shape_constructors(torch, fn, size):
    if size == () and fn in ("rand", "randn"):
        # PyTorch lists its overloads here; tensorlab says the same thing more briefly
        for lib in (tl, torch):
            with pytest.raises(TypeError):
                getattr(lib, fn)()
        return
    r_o, r_t = raises_same(lambda: getattr(tl, fn)(*size), lambda: getattr(torch, fn)(*size))
    if r_t is not None:
        assert r_o.shape == r_t.shape and r_o.stride() == r_t.stride()
        assert dtype_name(r_o.dtype) == dtype_name(r_t.dtype)
        if fn in ("zeros", "ones"):
            assert_same(r_o, r_t)


def test_full_like_eye(torch):
    for v in (2, 2.5, True):
        assert_same(tl.full((2, 3), v), torch.full((2, 3), v))
    x_o, x_t = tl.arange(6).view(2, 3), torch.arange(6).view(2, 3)
    for f in ("zeros_like", "ones_like"):
        assert_same(getattr(tl, f)(x_o), getattr(torch, f)(x_t))
        assert_same(
            getattr(tl, f)(x_o, dtype=tl.float64), getattr(torch, f)(x_t, dtype=torch.float64)
        )
    assert_same(tl.full_like(x_o, 7), torch.full_like(x_t, 7))
    assert_same(tl.eye(3), torch.eye(3))
    assert_same(tl.eye(2, 4, dtype=tl.int64), torch.eye(2, 4, dtype=torch.int64))


@settings(max_examples=200)
@given(
    start=st.one_of(st.integers(-20, 20), st.floats(-20, 20).map(lambda x: round(x, 2))),
    end=st.one_of(st.integers(-20, 20), st.floats(-20, 20).map(lambda x: round(x, 2))),
    step=st.one_of(st.integers(-5, 5), st.sampled_from([0.1, 0.25, -0.5, 0.3, 1.5])),
    dtype=st.sampled_from([None, "float64", "int64", "float32"]),
)
def test_arange_matches_torch(torch, start, end, step, dtype):
    """Same length, dtype and formula (start + i * step in double precision). PyTorch's SIMD path
    computes chunks of 8 or 16 values as base + i * step with the base rounded to the dtype (the
    width depends on the CPU), so float values may differ by about 1 ulp of the largest magnitude;
    integer results must be exact."""
    kw_o = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    r_o, r_t = raises_same(
        lambda: tl.arange(start, end, step, **kw_o), lambda: torch.arange(start, end, step, **kw_t)
    )
    if r_t is not None:
        # SIMD rounds the chunk base to float32: errors scale with the largest magnitude
        scale = max(1.0, abs(start), abs(end))
        ulp = 2.5e-7 if r_o.dtype is tl.float32 else 5e-16
        assert_same(r_o, r_t, exact=not r_o.dtype.is_floating_point, rtol=0, atol=ulp * scale)


@settings(max_examples=200)
@given(
    start=st.floats(-100, 100, width=32),
    end=st.floats(-100, 100, width=32),
    steps=st.integers(0, 40),
    dtype=st.sampled_from([None, "float64", "float32", "int64"]),
)
def test_linspace_matches_torch(torch, start, end, steps, dtype):
    """Same formula as PyTorch (from the start for the first half, from the end for the second);
    PyTorch's SIMD path switches formula per vector of 8, so a value may differ by 1 ulp."""
    kw_o = {} if dtype is None else {"dtype": getattr(tl, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    r_o, r_t = raises_same(
        lambda: tl.linspace(start, end, steps, **kw_o),
        lambda: torch.linspace(start, end, steps, **kw_t),
    )
    if r_t is not None:
        if dtype == "int64":
            # the same 1-ulp difference can land on either side of an integer
            np.testing.assert_allclose(r_o.numpy(), r_t.numpy(), atol=1)
            assert r_o.dtype is tl.int64 and r_o.shape == r_t.shape
        else:
            assert_same(r_o, r_t, exact=False, rtol=2e-7, atol=2e-5)


def test_random_is_seeded_and_in_range(torch):
    tl.manual_seed(0)
    a = tl.rand(1000)
    tl.manual_seed(0)
    b = tl.rand(1000)
    assert a.tolist() == b.tolist()
    assert a.dtype is tl.float32 and 0 <= min(a.tolist()) and max(a.tolist()) < 1
    n = np.array(tl.randn(20000).tolist())
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1) < 0.05
    r = tl.randint(3, 7, (1000,))
    assert r.dtype is tl.int64 and set(r.tolist()) == {3, 4, 5, 6}
    raises_same(lambda: tl.randint(5, 3, (2,)), lambda: torch.randint(5, 3, (2,)))


def test_requires_grad_only_for_floats(torch):
    raises_same(
        lambda: tl.zeros(2, dtype=tl.int64, requires_grad=True),
        lambda: torch.zeros(2, dtype=torch.int64, requires_grad=True),
    )
    raises_same(
        lambda: tl.tensor([1, 2], requires_grad=True),
        lambda: torch.tensor([1, 2], requires_grad=True),
    )
    assert tl.ones(2, requires_grad=True).requires_grad


def test_metadata_and_type_names(torch):
    for name in [
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "bool",
    ]:
        o = tl.zeros(2, 3, dtype=getattr(tl, name))
        t = torch.zeros(2, 3, dtype=getattr(torch, name))
        assert o.type() == t.type().replace("torch.", "tensorlab.")
        assert o.element_size() == t.element_size()
        assert o.dim() == t.dim() == o.ndim
        assert o.numel() == t.numel()
        assert repr(o.shape) == repr(t.shape).replace("torch.", "tensorlab.")
        assert o.untyped_storage().nbytes() == t.untyped_storage().nbytes()
    assert_same(tl.zeros(2, 3).type(tl.float64), torch.zeros(2, 3).type(torch.float64))
    assert_same(
        tl.zeros(2, 3).type("tensorlab.IntTensor"), torch.zeros(2, 3).type("torch.IntTensor")
    )


@settings(max_examples=150)
@given(
    values=st.lists(st.floats(-300, 300, allow_nan=False), min_size=1, max_size=8),
    src=st.sampled_from(
        ["float64", "float32", "float16", "int64", "int32", "int8", "uint8", "bool"]
    ),
    dst=st.sampled_from(["float64", "float32", "float16", "int64", "int32", "int16", "bool"]),
)
def test_casts_match_torch(torch, values, src, dst):
    o = tl.tensor(values, dtype=tl.float64).to(getattr(tl, src)).to(getattr(tl, dst))
    t = torch.tensor(values, dtype=torch.float64).to(getattr(torch, src)).to(getattr(torch, dst))
    if src in ("int8", "uint8") or (src in ("int32", "int16") and dst in ("int8",)):
        return  # out-of-range float -> small int casts are implementation-defined in C
    assert_same(o, t)


def test_conversions_to_python(torch):
    for lib in (tl, torch):
        x = lib.tensor([[2.5]])
        assert x.item() == 2.5 and float(x) == 2.5 and int(x) == 2 and bool(x)
        assert lib.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    for expr in ["int(x)", "float(x)", "x.item()", "bool(x)"]:
        raises_same(
            lambda e=expr: eval(e, {"x": tl.zeros(3)}),
            lambda e=expr: eval(e, {"x": torch.zeros(3)}),
        )


@pytest.mark.parametrize(
    "name", ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8"]
)
def test_finfo_iinfo(torch, name):
    info = "finfo" if "float" in name else "iinfo"
    ours = getattr(tl, info)(getattr(tl, name))
    theirs = getattr(torch, info)(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    assert ours.max == theirs.max and ours.min == theirs.min and ours.bits == theirs.bits
    if info == "finfo":
        assert ours.eps == theirs.eps and ours.tiny == theirs.tiny


def test_requires_grad_error_wordings(torch):
    """PyTorch words the same refusal three ways; each entry point keeps its own."""
    raises_same(
        lambda: tl.zeros(2, dtype=tl.int64).requires_grad_(),
        lambda: torch.zeros(2, dtype=torch.int64).requires_grad_(),
    )
    raises_same(
        lambda: setattr(tl.zeros(2, dtype=tl.int64), "requires_grad", True),
        lambda: setattr(torch.zeros(2, dtype=torch.int64), "requires_grad", True),
    )
    raises_same(
        lambda: tl.ones(2, dtype=tl.int32, requires_grad=True),
        lambda: torch.ones(2, dtype=torch.int32, requires_grad=True),
    )
