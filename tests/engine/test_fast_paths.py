"""The fast paths of issue 39 keep torch's semantics: operators on contiguous same-dtype tensors
(equal shapes or a trailing-shape operand), ``view`` of a contiguous tensor, sums of up to four
elements, in-place writes and a leaf's first ``.grad``. Each case is compared with torch 2.13
(values bit for bit, dtype, shape, strides) and with what the general path promises (a fresh
result that aliases nothing, its own version counter, autograd recorded when needed)."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

OPS = [operator.add, operator.sub, operator.mul, operator.truediv]
DTYPES = ["float32", "float64", "int64", "int32"]

shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


def _arrays(seed: int, dtype: str, *shapes_):
    rng = np.random.default_rng(seed)
    out = []
    for s in shapes_:
        a = rng.standard_normal(s) * 10
        if dtype.startswith("int"):
            a = np.where(a == 0, 1, np.round(a))  # no division by zero
        out.append(np.asarray(a.astype(dtype)))
    return out


def _same(ours, theirs) -> None:
    assert ours.dtype.name == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.stride() == theirs.stride()
    assert ours.numpy().tobytes() == theirs.numpy().tobytes()


@settings(max_examples=60, deadline=None)
@given(shape=shapes, k=st.integers(0, 3), dtype=st.sampled_from(DTYPES),
       op=st.sampled_from(OPS), swap=st.booleans(), seed=st.integers(0, 2**16))  # fmt: skip
def test_operators_match_torch(torch, shape, k, dtype, op, swap, seed):
    """Equal shapes or a trailing part of the shape (a bias), either side."""
    small = shape[len(shape) - min(k, len(shape)) :]
    a, b = _arrays(seed, dtype, shape, small)
    if swap:
        a, b = b, a
    ta, tb = tl.from_numpy(a.copy()), tl.from_numpy(b.copy())
    out = op(ta, tb)
    _same(out, op(torch.from_numpy(a.copy()), torch.from_numpy(b.copy())))
    # a fresh tensor: its own storage and version counter, no base
    assert out._base is None
    for t in (ta, tb):
        assert out.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    v = ta._version
    out.add_(1)
    assert ta._version == v
    np.testing.assert_array_equal(ta.numpy(), a)


@pytest.mark.parametrize("op", OPS)
def test_operators_with_a_scalar_and_mixed_dtypes(torch, op):
    a = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    i = np.arange(1, 7, dtype=np.int64).reshape(2, 3)
    for x, y in [(a, 2.5), (a, 3), (i, 2), (i, 0.5), (a, i), (i, a)]:
        args = [tl.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for v in (x, y)]
        targs = [torch.from_numpy(v.copy()) if isinstance(v, np.ndarray) else v for v in (x, y)]
        _same(op(*args), op(*targs))


def test_non_contiguous_and_float16_operands_take_the_general_path(torch):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    for f in (lambda L, x: x.t() + x.t(), lambda L, x: x[:, ::2] * x[:, 1::2],
              lambda L, x: x.half() + x.half(), lambda L, x: x.t() + L.ones(3)):  # fmt: skip
        _same(f(tl, tl.from_numpy(a.copy())), f(torch, torch.from_numpy(a.copy())))


def test_operators_record_autograd_when_needed(torch):
    w = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = tl.tensor([4.0, 5.0, 6.0])
    for op, name in zip(OPS, ["AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0"]):
        assert op(w, b).grad_fn.name() == name
        assert op(b, w).grad_fn.name() == name
        with tl.no_grad():
            assert op(w, b).grad_fn is None
    (w * b / 2 + w - b).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 3.5, 4.0])


def test_results_made_in_inference_mode_are_inference_tensors():
    a, b = tl.ones(3), tl.ones(3)
    with tl.inference_mode():
        for t in (a + b, a * 2, tl.ones(2, 3) + tl.ones(3)):
            assert t.is_inference()
        assert not a.view(3, 1).is_inference()  # a view of a normal tensor stays normal
    assert not (a + b).is_inference()


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_view_of_a_contiguous_tensor(torch, shape, data):
    n = int(np.prod(shape))
    new = data.draw(st.sampled_from([(n,), (1, n), (n, 1), shape[::-1], (-1,), (1, -1, 1)]))
    a = np.arange(n, dtype=np.float32).reshape(shape)
    ours, theirs = tl.from_numpy(a.copy()).view(*new), torch.from_numpy(a.copy()).view(*new)
    _same(ours, theirs)
    x = tl.from_numpy(a.copy())
    v = x.view(*new)
    assert v._base is x and v._is_view()
    v.view(-1)[0] = 42  # a view: writes reach the base, versions are shared
    assert x.reshape(-1)[0].item() == 42 and x._version == v._version == 1


def test_view_errors_unchanged():
    x = tl.arange(6.0)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        x.view(4, 2)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        tl.arange(6.0).reshape(2, 3).t().view(6)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 6), dtype=st.sampled_from(["float32", "float64"]),
       lead=st.booleans(), seed=st.integers(0, 2**16))  # fmt: skip
def test_small_sums_bit_equal_torch(torch, n, dtype, lead, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)).astype(dtype)
    if n and seed % 3 == 0:
        a[0] = -0.0
    if lead:
        a = a.reshape(1, n)
    _same(tl.from_numpy(a.copy()).sum(), torch.from_numpy(a.copy()).sum())


def test_in_place_writes(torch):
    for lib in (tl, torch):
        x = lib.arange(6.0)
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            x[1:].add_(x[:-1])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    for f in (lambda L, x: x.add_(x), lambda L, x: x.mul_(L.ones(3)),
              lambda L, x: x.t().sub_(L.ones(3, 2)), lambda L, x: x.div_(2)):  # fmt: skip
        ours, theirs = tl.from_numpy(a.copy()), torch.from_numpy(a.copy())
        f(tl, ours), f(torch, theirs)
        _same(ours, theirs)
        assert ours._version == theirs._version


def test_first_grad_of_a_leaf_is_its_own_copy():
    w = tl.ones(2, 3, requires_grad=True)
    g = tl.full((2, 3), 2.0)
    y = w * 1
    y.backward(g)
    assert w.grad.stride() == (3, 1)
    assert w.grad.untyped_storage().data_ptr() != g.untyped_storage().data_ptr()
    g.add_(1)
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 2.0, np.float32))
    wt = tl.ones(3, 2).t().requires_grad_()
    (wt * 1).sum().backward()
    assert wt.grad.stride() == wt.stride()
