"""Every explainer, figure and explorer takes real torch tensors, and those that take a
convolution's settings take a real (or tensorlab) conv layer; the numbers are torch's own."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

viz = pytest.importorskip("tensorlab.viz")


def same_model(a, b):
    """Two figures drew the same thing (their scenes' models agree field by field)."""
    ma, mb = a._tensorlab_scene.model, b._tensorlab_scene.model
    for k, v in vars(ma).items():
        w = getattr(mb, k)
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, w)
        elif not hasattr(v, "_np"):
            assert str(v) == str(w), k


def test_view_explainers_take_torch_tensors(torch):
    t = torch.arange(24.0).view(2, 3, 4).transpose(0, 2)
    x = tl.from_torch(t)
    assert tl.explain_view(t, -1).lines == tl.explain_view(x, -1).lines
    assert str(tl.explain_unfold(t, 0, 2, 1)) == str(tl.explain_unfold(x, 0, 2, 1))
    assert str(tl.explain_as_strided(t, (2, 2), (1, 2), 1)) == str(
        tl.explain_as_strided(x, (2, 2), (1, 2), 1)
    )
    img = torch.rand(1, 2, 5, 5)
    cols = tl.explain_im2col(img, 3, padding=1)
    assert cols.shape == tuple(torch.nn.functional.unfold(img, 3, padding=1).shape)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "circular"])
def test_explain_conv_takes_a_real_conv2d(torch, mode):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(4, 6, 3, padding=1, groups=2, padding_mode=mode)
    x = torch.randn(1, 4, 5, 5)
    e = tl.explain_conv(x, conv, index=(0, 5, 0, 4))
    assert e.total == pytest.approx(conv(x)[0, 5, 0, 4].item(), abs=1e-5)
    assert e.groups == 2 and e.padding_mode == mode and e.in_channels == (2, 3)
    # tensorlab's own layer with the same weights gives the same explanation
    mine = tl.nn.Conv2d(4, 6, 3, padding=1, groups=2, padding_mode=mode)
    mine.weight = tl.nn.Parameter(tl.from_torch(conv.weight.detach()))
    mine.bias = tl.nn.Parameter(tl.from_torch(conv.bias.detach()))
    assert str(tl.explain_conv(tl.from_torch(x), mine, index=(0, 5, 0, 4))) == str(e)
    with pytest.raises(ValueError, match="not both"):
        tl.explain_conv(x, conv, stride=2, index=(0, 0, 0, 0))
    with pytest.raises(ValueError, match="explains 2-d convolutions"):
        tl.explain_conv(torch.randn(1, 4, 8), torch.nn.Conv1d(4, 4, 3), index=(0, 0, 0))


def test_matmul_and_transpose_explainers_take_layers(torch):
    torch.manual_seed(1)
    x = torch.randn(2, 4, 6, 6)
    conv = torch.nn.Conv2d(4, 6, 3, stride=2, groups=2)
    m = tl.explain_conv_matmul(x, conv)
    np.testing.assert_allclose(m.output.numpy(), conv(x).detach().numpy(), atol=1e-5)
    ct = torch.nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
    t = tl.explain_conv_transpose(x, ct)
    np.testing.assert_allclose(t.output.numpy(), ct(x).detach().numpy(), atol=1e-5)
    with pytest.raises(TypeError, match="explain_conv_transpose"):
        tl.explain_conv(x, ct, index=(0, 0, 0, 0))
    with pytest.raises(TypeError, match="ConvTranspose"):
        tl.explain_conv_transpose(x, conv)


def test_figures_take_torch_tensors_and_layers(torch):
    t = torch.arange(10).view(2, 5)
    same_model(
        viz.memory_figure(t, ".T\n.view(-1)"), viz.memory_figure(tl.from_torch(t), ".T\n.view(-1)")
    )
    assert t.tolist() == [list(range(5)), list(range(5, 10))]  # x is never modified
    for layer in (
        torch.nn.Conv2d(4, 8, 3, groups=2),
        torch.nn.Conv1d(4, 8, 3, groups=4),
        torch.nn.ConvTranspose2d(4, 8, 3, groups=2),
        tl.nn.Conv2d(4, 8, 3, groups=2),
    ):
        k = layer.kernel_size[0]
        same_model(viz.groups_figure(layer), viz.groups_figure(4, 8, layer.groups, k))
    img = torch.rand(6, 6)
    one = torch.nn.Conv2d(1, 1, 3, padding=1, stride=2, padding_mode="reflect")
    drawn = viz.conv_figure(img, one, position=(1, 2))
    ref = viz.conv_figure(
        img.numpy(),
        one.weight[0, 0].detach().numpy(),
        padding=1,
        stride=2,
        padding_mode="reflect",
        position=(1, 2),
    )
    same_model(drawn, ref)
    with pytest.raises(ValueError, match="one input and one output channel"):
        viz.conv_figure(img, torch.nn.Conv2d(1, 2, 3))


def test_explorers_take_torch_tensors_and_layers(torch):
    widgets = pytest.importorskip("tensorlab.widgets")
    g = widgets.GroupsExplorer(torch.nn.Conv2d(6, 12, 5, groups=3), display="agg")
    assert (g.in_channels.value, g.out_channels.value, g.groups.value, g.kernel_size.value) == (
        6,
        12,
        3,
        5,
    )
    one = torch.nn.Conv2d(1, 1, 3, padding=1, padding_mode="circular")
    c = widgets.ConvExplorer(torch.rand(5, 5), one, display="agg")
    assert c.last_error is None
    # the kernel goes through the explorer's weights box, which shows 4 significant digits
    np.testing.assert_allclose(c.model.kernel, one.weight[0, 0].detach().numpy(), rtol=1e-3)
    assert c.model.padding == 1 and c.model.padding_mode == "circular"
    t = torch.arange(6).view(2, 3)
    m = widgets.MemoryExplorer(t, ".T; .contiguous()", display="agg")
    assert m.last_error is None and m.shape.value == "2, 3"


@settings(max_examples=60)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    data=st.data(),
)
def test_explain_view_on_torch_views_agrees_with_torch(torch, shape, data):
    """The verdict and the strides explain_view gives for a real torch view are torch's own."""
    perm = data.draw(st.permutations(range(len(shape))))
    step = data.draw(st.integers(1, 2))
    n = int(np.prod(shape))
    t = torch.arange(float(n * step))[::step].view(*shape).permute(*perm)
    new = data.draw(st.sampled_from([(-1,), (t.shape[0], -1), (-1, t.shape[-1]), tuple(t.shape)]))
    ex = tl.explain_view(t, *new)
    try:
        v = t.view(*new)
    except RuntimeError:
        assert not ex.ok
    else:
        assert ex.ok and ex.new_stride == v.stride() and ex.new_shape == tuple(v.shape)
