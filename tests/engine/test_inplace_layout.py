"""In-place layout ops (``unsqueeze_``, ``squeeze_``, ``transpose_``, ``t_``, ``resize_``) against
the PyTorch oracle: the new layout, the same storage, autograd's node names, gradients and
refusals."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same, to_torch
from hypothesis import given, settings
from hypothesis import strategies as st


@st.composite
def layouts(draw):
    shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=3))
    if draw(st.booleans()) and shape:
        shape[draw(st.integers(0, len(shape) - 1))] = 1  # something to squeeze
    how = draw(st.sampled_from(["contiguous", "transposed", "sliced"]))
    return shape, how


def make(lib, shape, how):
    import tensorlab as tl

    n = int(np.prod(shape)) if shape else 1
    x = (lib.arange(n * 2, dtype=lib.float32) / 3)[:n].reshape(shape)
    if how == "transposed" and len(shape) >= 2:
        x = x.transpose(0, -1)
    elif how == "sliced" and shape:
        x = lib.cat([x, x], dim=-1)[..., ::2]
    assert isinstance(x, (tl.Tensor, lib.Tensor))
    return x


OPS = [
    ("unsqueeze_", lambda t, d: t.unsqueeze_(d), "UnsqueezeBackward1"),
    ("squeeze_", lambda t, d: t.squeeze_(), "SqueezeBackward3"),
    ("squeeze_dim", lambda t, d: t.squeeze_(d), "SqueezeBackward4"),
    ("squeeze_dims", lambda t, d: t.squeeze_((d,)), "SqueezeBackward5"),
    ("transpose_", lambda t, d: t.transpose_(d, 0), "TransposeBackward1"),
    ("swapdims_", lambda t, d: t.swapdims_(0, d), "TransposeBackward1"),
    ("t_", lambda t, d: t.t_(), "TBackward1"),
]


@settings(max_examples=60)
@given(lay=layouts(), op=st.sampled_from(OPS), dim=st.integers(-4, 3), grad=st.booleans())
def test_inplace_layout_ops_match_torch(torch, lay, op, dim, grad):
    import tensorlab as tl

    shape, how = lay
    _, fn, node = op

    def run(lib):
        x = make(lib, shape, how)
        if grad:
            x.requires_grad_(True)
            y = x * 2  # a non-leaf: in-place layout changes are allowed on it
        else:
            y = x
        ptr = y.data_ptr()
        out = fn(y, dim)
        assert out is y and y.data_ptr() == ptr
        return x, y

    r_o, r_t = raises_same(lambda: run(tl), lambda: run(torch))
    if r_t is None:
        return
    (x_o, y_o), (x_t, y_t) = r_o, r_t
    assert_same(y_o.detach(), y_t.detach())
    if grad:
        assert y_o.grad_fn.name() == y_t.grad_fn.name() == node
        w = np.arange(y_t.numel(), dtype=np.float32).reshape(tuple(y_t.shape)) + 1
        (y_o * tl.tensor(w)).sum().backward()
        (y_t * torch.tensor(w)).sum().backward()
        assert_same(x_o.grad, x_t.grad, layout=False)


@pytest.mark.parametrize(
    "expr",
    [
        "lib.ones(2, 3, requires_grad=True).unsqueeze_(0)",
        "lib.ones(2, 3, requires_grad=True).view(3, 2).unsqueeze_(0)",
        "lib.ones(2, 3, requires_grad=True).t_()",
        "lib.ones(2, 3, 4).t_()",
        "lib.ones(2, 3).unsqueeze_(5)",
        "lib.ones(2, 3).squeeze_(4)",
        "lib.ones(2, 3).transpose_(0, 2)",
        "(lib.ones(2, 3, requires_grad=True) * 2).resize_(6)",
        "lib.ones(2).resize_(-1)",
        "lib.ones(2).resize_(2, -1)",
        "lib.ones(2).resize_(2.5)",
        "lib.arange(6.).resize_(2, 2)",
        "lib.arange(6.).resize_(2, 5).shape",
        "lib.arange(6.).resize_((3, 2))",
        "lib.arange(6.).view(2, 3).t().resize_(3, 2).stride()",
        "lib.arange(6.).view(2, 3).t().resize_(2, 3).stride()",
        "lib.ones(2, 3).resize_as_(lib.ones(3)).shape",
        "lib.ones(2, 3).t_().t_().stride()",
    ],
)
def test_inplace_layout_cases(torch, expr):
    import tensorlab as tl

    r_o, r_t = raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    if isinstance(r_t, torch.Tensor):
        assert_same(r_o, r_t)
    elif r_t is not None:
        assert tuple(r_o) == tuple(r_t)


def test_inplace_layout_changes_bump_the_version_and_keep_views_working(torch):
    import tensorlab as tl

    for lib in (tl, torch):
        x = lib.ones(2, 3, requires_grad=True)
        y = x * 2
        v0 = y._version
        y.unsqueeze_(0)
        assert y._version == v0 + 1
        with lib.no_grad():
            x.unsqueeze_(0)  # allowed under no_grad, as in PyTorch
        assert tuple(x.shape) == (1, 2, 3)
    base = tl.arange(6.0).view(2, 3)
    y = base.t()
    y.t_()
    assert_same(y, to_torch(torch, base))
