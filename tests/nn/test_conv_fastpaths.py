"""The shortcuts on the LeNet training step's path, against the full code they skip and against
torch 2.13: ``parse_conv_args``'s positional fast path, ``conv2d``'s result adopted without a
copy, and ReLU's gradient mask (special values, 0-d, non-contiguous gradients)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl
from tensorlab.nn import _args

INTS = st.one_of(
    st.integers(1, 3),
    st.tuples(st.integers(1, 3), st.integers(1, 3)),
    st.lists(st.integers(1, 3), min_size=1, max_size=2),
)


@settings(max_examples=100, deadline=None)
@given(
    stride=INTS,
    padding=st.one_of(st.integers(0, 2), st.tuples(st.integers(0, 2)), st.just("same")),
    dilation=INTS,
    groups=st.integers(1, 2),
    bias=st.booleans(),
    n_args=st.integers(2, 7),
)
def test_positional_fast_path_binds_like_the_parser(
    stride, padding, dilation, groups, bias, n_args
):
    x, w = tl.zeros(1, 2, 5, 5), tl.zeros(2, 1, 3, 3)
    args = (x, w, tl.zeros(2) if bias else None, stride, padding, dilation, groups)[:n_args]
    fast = _args._fast_conv_args(args, 2)
    assert fast is not None
    names = _args.CONV_PARAMS[2:n_args]
    full = _args.parse_conv_args("conv2d", 2, args[:2], dict(zip(names, args[2:])))
    assert fast[:3] == full[:3] or all(a is b for a, b in zip(fast[:3], full[:3]))
    assert fast[3:] == full[3:]


@pytest.mark.parametrize(
    "weight_is_array, tail",
    [
        (True, ()),  # a numpy weight: the parser's TypeError
        (False, (None, 1.5, 0, 1, 1)),  # a float stride
        (False, (None, (), 0, 1, 1)),  # an empty tuple
        (False, (None, 1, 0, 1, True)),  # bool groups
        (False, (None, [1, 2.0], 0, 1, 1)),  # a float inside the list
    ],
)
def test_fast_path_declines_and_the_parser_decides(torch, weight_is_array, tail):
    w = np.zeros((1, 1, 2, 2), np.float32)
    args_tl = (tl.zeros(1, 1, 4, 4), w if weight_is_array else tl.from_numpy(w), *tail)
    args_t = (torch.zeros(1, 1, 4, 4), w if weight_is_array else torch.from_numpy(w), *tail)
    assert _args._fast_conv_args(args_tl, 2) is None
    errors = []
    for conv, args in ((tl.nn.functional.conv2d, args_tl), (torch.nn.functional.conv2d, args_t)):
        with pytest.raises(Exception) as info:
            conv(*args)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1])  # (the parser's message: tests/nn/test_conv.py)
    first = [str(e).splitlines()[0].replace("torch.", "tensorlab.") for e in errors]
    assert first[0] == first[1]


@pytest.mark.parametrize("channels_last", [False, True])
def test_conv2d_result_owns_its_memory(torch, channels_last):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    xt, wt = tl.from_numpy(x), tl.from_numpy(w)
    xr, wr = torch.from_numpy(x), torch.from_numpy(w)
    if channels_last:
        xt, xr = xt.to(memory_format=tl.channels_last), xr.to(memory_format=torch.channels_last)
    ours, theirs = (
        tl.nn.functional.conv2d(xt, wt, padding=1),
        torch.nn.functional.conv2d(xr, wr, padding=1),
    )
    assert ours.stride() == theirs.stride() and ours.storage_offset() == 0
    assert ours.untyped_storage().nbytes() == theirs.untyped_storage().nbytes()
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-5)
    before = x.copy()
    ours.fill_(7.0)  # writes into the result only
    np.testing.assert_array_equal(x, before)


SPECIAL = [1.5, -2.0, 0.0, -0.0, float("nan"), -float("nan"), float("inf"), -float("inf")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["0-d", "contiguous", "transposed"])
def test_relu_gradient_bits_match_torch(torch, dtype, layout):
    rng = np.random.default_rng(1)
    values = np.array(SPECIAL * 3)
    grads = rng.standard_normal(values.shape)
    grads[::5] = np.inf
    cases = (
        [(np.array(v), np.array(g)) for v, g in zip(values, grads)]
        if layout == "0-d"
        else [(values.reshape(4, 6), grads.reshape(6, 4).T)]
    )
    for v, g in cases:
        out = []
        for lib in (tl, torch):
            x = lib.tensor(v, dtype=getattr(lib, dtype), requires_grad=True)
            gt = lib.tensor(g.copy(), dtype=getattr(lib, dtype))
            if layout == "transposed":
                gt = lib.tensor(np.ascontiguousarray(g.T), dtype=getattr(lib, dtype)).t()
            lib.relu(x).backward(gt)
            out.append(x.grad.numpy())
        u = np.uint32 if dtype == "float32" else np.uint64
        assert out[0].shape == out[1].shape
        np.testing.assert_array_equal(out[0].view(u), out[1].view(u))
