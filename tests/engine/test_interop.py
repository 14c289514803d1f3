"""from_torch / to_torch against real torch 2.13: layout, shared memory (both ways), aliasing of
views, dtypes, refusals; and ``import tensorlab`` never importing torch."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def test_import_tensorlab_never_imports_torch():
    code = (
        "import sys, tensorlab\n"
        "tensorlab.from_torch, tensorlab.to_torch, tensorlab.explain_view, tensorlab.explain_errors\n"
        "import tensorlab.interop, tensorlab.explain\n"
        "x = tensorlab.as_tensor([1, 2]); tensorlab.explain_view(x, 2, 1)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@st.composite
def torch_views(draw):
    """(torch module -> a strided view of a fresh torch tensor): permuted, stepped, offset or
    expanded, as the user's own tensors come."""
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))
    dtype = draw(st.sampled_from(DTYPES))
    perm = draw(st.permutations(range(len(shape))))
    steps = [draw(st.integers(1, 2)) for _ in shape]
    start = [draw(st.integers(0, 1)) for _ in shape]
    expand = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))

    def build(torch):
        g = torch.Generator().manual_seed(seed)
        big = [s * k + 1 for s, k in zip(shape, steps)]
        base = (torch.rand(big, generator=g) * 100).to(getattr(torch, dtype))
        if dtype == "bool":
            base = torch.rand(big, generator=g) < 0.5
        idx = tuple(slice(a, a + s * k, k) for a, s, k in zip(start, shape, steps))
        v = base[idx].permute(*perm) if shape else base
        if expand and v.ndim:
            v = v[:1].expand(3, *v.shape[1:]) if v.shape[0] == 1 else v
        return base, v

    return build


@settings(max_examples=60)
@given(torch_views())
def test_from_torch_keeps_layout_values_and_memory(torch, build):
    base, t = build(torch)
    x = tl.from_torch(t)
    assert tuple(x.shape) == tuple(t.shape)
    assert x.stride() == t.stride()
    assert x.storage_offset() == t.storage_offset()
    assert x.dtype.name == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    assert x.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    # the base and the view share one tensorlab storage (MemoryExplorer draws them aliasing)
    assert tl.from_torch(base)._storage is x._storage
    if t.numel():  # writes go both ways
        idx = (0,) * t.ndim
        new = (not t[idx].item()) if t.dtype == torch.bool else 9
        x[idx] = new
        assert t[idx].item() == new
        t[idx] = False if t.dtype == torch.bool else 3
        assert x[idx].item() == t[idx].item()


@settings(max_examples=60)
@given(torch_views())
def test_to_torch_is_the_inverse(torch, build):
    _, t = build(torch)
    x = tl.from_torch(t)
    back = tl.to_torch(x)
    assert back.dtype == t.dtype and back.shape == t.shape
    assert back.stride() == t.stride() and back.storage_offset() == t.storage_offset()
    assert back.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert torch.equal(back, t)


@settings(max_examples=40)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    dtype=st.sampled_from(DTYPES),
    transpose=st.booleans(),
)
def test_to_torch_of_a_tensorlab_view_shares_and_keeps_layout(torch, shape, dtype, transpose):
    n = int(np.prod(shape))
    x = (tl.arange(n) % 7).to(getattr(tl, dtype)).view(*shape)
    if transpose:
        x = x.transpose(0, -1)
    x = x[..., ::2] if x.shape[-1] > 1 else x
    t = tl.to_torch(x)
    ref = torch.from_numpy(np.array(x._storage._array))  # the oracle: torch's own strided view
    ref = torch.as_strided(ref, tuple(x.shape), x.stride(), x.storage_offset())
    assert t.stride() == ref.stride() and t.storage_offset() == ref.storage_offset()
    assert torch.equal(t, ref)
    if t.numel():
        t[(0,) * t.ndim] = 1
        assert x[(0,) * x.ndim].item() == 1


def test_views_of_one_storage_share_one_tensorlab_storage(torch):
    a = torch.arange(10.0)
    v1, v2 = tl.from_torch(a.view(2, 5)), tl.from_torch(a[3:].view(7, 1).T)
    assert v1._storage is v2._storage and v2.storage_offset() == 3
    v1[1, 0] = -1.0  # a[5]
    assert v2[0, 2].item() == -1.0 and a[5].item() == -1.0
    other = tl.from_torch(a.clone())
    assert other._storage is not v1._storage


def test_as_tensor_and_tensor_take_torch_tensors(torch):
    t = torch.arange(6).view(2, 3).T
    x = tl.as_tensor(t)  # shares, as torch.as_tensor(ndarray) does
    assert x.stride() == t.stride() and x.dtype is tl.int64
    x[0, 0] = 42
    assert t[0, 0].item() == 42
    y = tl.tensor(t)  # copies, as torch.tensor(ndarray) does
    y[0, 1] = -7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        oracle = torch.tensor(t)
    assert t[0, 1].item() != -7 and y[0, 1].item() == -7 and y.stride() == oracle.stride()
    assert tl.as_tensor(torch.tensor(2.5)).item() == 2.5
    assert tl.as_tensor(t, dtype=tl.float32).dtype is tl.float32
    z = tl.asarray(t, copy=False)  # aliases, as torch.asarray(ndarray, copy=False)
    z[1, 1] = 11
    assert t[1, 1].item() == 11
    assert tl.asarray(t, copy=True).untyped_storage().data_ptr() != t.data_ptr()


def test_requires_grad_is_detached_with_a_warning(torch):
    w = torch.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="detached"):
        x = tl.from_torch(w)
    assert not x.requires_grad
    x[0] = 5.0  # the memory is the parameter's
    assert w[0].item() == 5.0
    y = tl.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="detached"):
        assert not tl.to_torch(y).requires_grad


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda torch: torch.ones(2, dtype=torch.bfloat16), TypeError, "no bfloat16 dtype"),
        (lambda torch: torch.ones(2, dtype=torch.complex64), TypeError, "no complex64 dtype"),
        (lambda torch: torch.ones(2).to_sparse(), ValueError, "sparse_coo tensors"),
        (lambda torch: torch.ones(2, device="meta"), ValueError, "on meta"),
        (
            lambda torch: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
            ValueError,
            "nested",
        ),
        (
            lambda torch: torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8),
            ValueError,
            "quantized",
        ),
    ],
)
def test_refusals_are_one_line(torch, make, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = make(torch)
    with pytest.raises(error, match=match) as e:
        tl.from_torch(t)
    assert "\n" not in str(e.value)


def test_not_a_torch_tensor(torch):
    with pytest.raises(TypeError, match="expects a torch.Tensor"):
        tl.from_torch(np.ones(2))
    with pytest.raises(TypeError, match="expects a tensorlab Tensor"):
        tl.to_torch(torch.ones(2))
