"""Figures carry the engine's numbers: each test draws a figure and reads its artists back,
comparing them with real PyTorch (the oracle), scipy, or a loop written here."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorlab as tl

viz = pytest.importorskip("tensorlab.viz")
from tensorlab.viz import _draw  # noqa: E402
from tensorlab.viz._axes_model import nest_layout, shown_items  # noqa: E402
from tensorlab.viz._conv_model import copy_links, parse_kernel, photo_image  # noqa: E402
from tensorlab.viz._memory_model import parse_chain  # noqa: E402
from tensorlab.viz.memory import MemoryScene, cell_rc, memory_layout  # noqa: E402


def scene_of(fig):
    return fig._tensorlab_scene


def needs_functional():
    """ConvExplorer's numbers come from tensorlab.nn.functional (written by another helper)."""
    try:
        from tensorlab.nn import functional as F

        F.conv2d, F.pad  # noqa: B018
    except (ImportError, AttributeError) as e:
        pytest.skip(f"tensorlab.nn.functional is not available yet: {e}")


def torch_conv(torch, image, kernel, p, mode, s, d, flip=False):
    """The oracle: PyTorch pads then runs conv2d on the same float64 data."""
    x = torch.from_numpy(np.array(image, dtype=float))[None, None]
    w = torch.from_numpy(np.array(np.flip(kernel) if flip else kernel, dtype=float).copy())[
        None, None
    ]
    F = torch.nn.functional
    xp = F.pad(x, (p,) * 4, mode="constant" if mode == "zeros" else mode)
    return xp[0, 0].numpy(), F.conv2d(xp, w, stride=s, dilation=d)[0, 0].numpy()


# ---------------------------------------------------------------------------------- import hygiene
def test_import_tensorlab_imports_no_matplotlib_or_ipywidgets():
    code = (
        "import sys, tensorlab\n"
        "bad = [m for m in ('matplotlib', 'ipywidgets', 'scipy', 'nbclient') if m in sys.modules]\n"
        "assert not bad, bad\n"
        "import tensorlab.viz\n"
        "assert 'matplotlib' in sys.modules and 'ipywidgets' not in sys.modules\n"
        "import tensorlab.widgets\n"
        "assert 'ipywidgets' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env={"MPLBACKEND": "Agg", **_env()})


def _env():
    import os

    return {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}


def test_figures_are_made_without_pyplot():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    viz.groups_figure(4, 4, 2)
    viz.axes_figure((16, 16))
    viz.memory_figure(chain=".T")
    assert plt.get_fignums() == before


# ---------------------------------------------------------------------------------- drawing helpers
def test_cell_labels_stamp_text_where_a_real_text_would_be():
    """The fast Agg path puts ink in the same place (within a pixel or two) as matplotlib's Text."""
    from matplotlib.text import Text

    def ink_bbox(fig):
        fig.canvas.draw()
        a = np.asarray(fig.canvas.buffer_rgba())[..., 3] >= 128  # ink on the transparent ground
        rows, cols = np.nonzero(a)
        return rows.min(), rows.max(), cols.min(), cols.max()

    for s in ("-1", "0.25", "@12", "99"):
        f1 = _draw.new_figure(2, 1)
        ax = f1.add_axes((0, 0, 1, 1))
        ax.set_axis_off()
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        lab = _draw.CellLabels(ax, size=12, cell=None)
        lab.set_labels([0.5], [0.5], [s])
        f2 = _draw.new_figure(2, 1)
        ax2 = f2.add_axes((0, 0, 1, 1))
        ax2.set_axis_off()
        ax2.add_artist(Text(0.5, 0.5, s, fontsize=12, ha="center", va="center"))
        b1, b2 = ink_bbox(f1), ink_bbox(f2)
        # same width and height of ink, centred within 2 px (va="center" centres on the box)
        assert abs((b1[1] - b1[0]) - (b2[1] - b2[0])) <= 1, (s, b1, b2)
        assert abs((b1[3] - b1[2]) - (b2[3] - b2[2])) <= 1, (s, b1, b2)
        assert abs((b1[2] + b1[3]) - (b2[2] + b2[3])) <= 4, (s, b1, b2)
        assert abs((b1[0] + b1[1]) - (b2[0] + b2[1])) <= 6, (s, b1, b2)


def test_fast_text_matches_text_layout():
    from matplotlib.text import Text

    def ink(fig):
        fig.canvas.draw()
        a = np.asarray(fig.canvas.buffer_rgba())[..., 3] >= 128  # ink on the transparent ground
        rows, cols = np.nonzero(a)
        return rows.min(), rows.max(), cols.min(), cols.max()

    for ha in ("left", "center", "right"):
        for va in ("top", "center", "bottom"):
            f1 = _draw.new_figure(4, 1)
            _draw.fig_text(f1, 0.5, 0.5, "H_out = 8·(3−1)", ha=ha, va=va, fontsize=11)
            f2 = _draw.new_figure(4, 1)
            f2.add_artist(
                Text(
                    0.5, 0.5, "H_out = 8·(3−1)", ha=ha, va=va, fontsize=11, transform=f2.transFigure
                )
            )
            b1, b2 = ink(f1), ink(f2)
            assert all(abs(a - b) <= 3 for a, b in zip(b1, b2)), (ha, va, b1, b2)


def test_cell_grid_pixels_show_each_cells_colour():
    fig = _draw.new_figure(3, 3)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    grid = _draw.CellGrid(ax)
    rng = np.random.default_rng(1)
    rgba = np.concatenate([rng.random((3, 4, 3)), np.ones((3, 4, 1))], axis=2)
    grid.set_cells(rgba)
    ax.set_xlim(-0.5, 3.5)
    ax.set_ylim(2.5, -0.5)  # row 0 on top, as imshow
    fig.canvas.draw()
    buf = np.asarray(fig.canvas.buffer_rgba())
    H = buf.shape[0]
    for r in range(3):
        for c in range(4):
            x, y = ax.transData.transform((c, r))
            px = buf[int(H - y), int(x), :3]
            assert np.abs(px.astype(int) - np.round(rgba[r, c, :3] * 255)).max() <= 1


def test_cell_grid_on_vector_backends_scales_the_small_image_the_right_way_up():
    """Vector renderers get the (h, w) image and an affine map; matplotlib's convention (image.py):
    array row r sits at y = r before the map. Each cell must land on its data position."""
    from matplotlib.backend_bases import RendererBase

    class Recorder(RendererBase):
        def __init__(self):
            super().__init__()
            self.calls = []

        def option_scale_image(self):
            return True

        def draw_image(self, gc, x, y, im, transform=None):
            self.calls.append((im, transform))

    for flip_y in (False, True):
        fig = _draw.new_figure(3, 3)
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
        grid = _draw.CellGrid(ax)
        rgba = np.zeros((2, 3, 4), np.uint8)
        rgba[..., 0] = np.arange(6).reshape(2, 3) * 40  # cell (r, c) has red = 40 * (3r + c)
        rgba[..., 3] = 255
        grid.set_cells(rgba)
        ax.set_xlim(-0.5, 2.5)
        ax.set_ylim((1.5, -0.5) if flip_y else (-0.5, 1.5))
        rec = Recorder()
        grid.draw(rec)
        ((im, t),) = rec.calls
        for r in range(2):
            for c in range(3):
                target = ax.transData.transform((c, r))
                # find the image pixel whose centre maps onto the cell's centre
                hits = [
                    (i, j)
                    for i in range(im.shape[0])
                    for j in range(im.shape[1])
                    if np.allclose(t.transform((j + 0.5, i + 0.5)), target, atol=1e-6)
                ]
                assert len(hits) == 1
                assert im[hits[0]][0] == 40 * (3 * r + c), (flip_y, r, c)


def test_vector_backends_draw_real_text():
    fig = viz.groups_figure(4, 4, 2)
    out = io.StringIO()
    fig.savefig(out, format="svg")
    svg = out.getvalue()
    assert "group 0" in svg or "group" in svg.replace("\n", "")
    fig.savefig(io.BytesIO(), format="pdf")


@pytest.mark.parametrize(
    "value, text",
    [(4.0, "4"), (-1.0, "-1"), (0.25, "0.25"), (1 / 3, "0.33"), (-0.0, "0"), (12.5, "12.5")],
)
def test_fmt_number(value, text):
    assert _draw.fmt_number(value) == text


# ---------------------------------------------------------------------------------- conv
def test_lecture_step_image_and_edge_kernel(torch):
    """The lecture's convo2d (a true convolution) gives 9s; PyTorch's conv2d gives -9s."""
    needs_functional()
    import scipy.signal

    img = viz.image_preset("step (lecture)")
    ker = viz.kernel_preset("edge [-1, 0, 1] (lecture)")
    conv = viz.conv_model(img, ker, operation="convolution")
    np.testing.assert_array_equal(conv.output, scipy.signal.convolve2d(img, ker, mode="valid"))
    assert conv.output.max() == 9 and conv.out_shape == (6, 6)
    xcorr = viz.conv_model(img, ker)
    np.testing.assert_array_equal(xcorr.output, scipy.signal.correlate2d(img, ker, mode="valid"))
    np.testing.assert_array_equal(xcorr.output, torch_conv(torch, img, ker, 0, "zeros", 1, 1)[1])


def test_conv_window_is_conv_figure_at_a_position():
    needs_functional()
    img, ker = viz.image_preset("noise"), viz.kernel_preset("Sobel x")
    a = scene_of(viz.conv_window(img, ker, 2, 1, padding=1, mode="circular")).model
    b = viz.conv_model(img, ker, padding=1, padding_mode="circular", position=(2, 1))
    assert a.position == (2, 1) and a.value == b.value
    np.testing.assert_array_equal(a.output, b.output)


def test_lecture_cross_correlation_proof_rows():
    """The lecture prints rows [0, 0, 9, 6, 3, 0] for the one-column image and the [1,2,3] kernel."""
    needs_functional()
    fig = viz.conv_figure(
        viz.image_preset("one column (lecture)"), viz.kernel_preset("rows [1, 2, 3] (lecture)")
    )
    out = scene_of(fig).im_out.values
    np.testing.assert_array_equal(out, np.tile([0.0, 0.0, 9.0, 6.0, 3.0, 0.0], (6, 1)))


conv_settings = st.fixed_dictionaries(
    {
        "h": st.integers(3, 9),
        "w": st.integers(3, 9),
        "kh": st.integers(1, 3),
        "kw": st.integers(1, 3),
        "p": st.integers(0, 2),
        "mode": st.sampled_from(viz.PADDING_MODES),
        "s": st.integers(1, 3),
        "d": st.integers(1, 2),
        "flip": st.booleans(),
        "seed": st.integers(0, 2**16),
        "pos": st.tuples(st.integers(0, 10), st.integers(0, 10)),
    }
)


@settings(max_examples=40)
@given(conv_settings)
def test_conv_figure_artists_carry_torch_numbers(torch, c):
    """Padded image, output image, labels, window, products and lit cell all match PyTorch."""
    needs_functional()
    rng = np.random.default_rng(c["seed"])
    img = rng.integers(-3, 4, (c["h"], c["w"])).astype(float)
    ker = rng.integers(-2, 3, (c["kh"], c["kw"])).astype(float)
    p, mode, s, d = c["p"], c["mode"], c["s"], c["d"]
    ho = (c["h"] + 2 * p - d * (c["kh"] - 1) - 1) // s + 1
    wo = (c["w"] + 2 * p - d * (c["kw"] - 1) - 1) // s + 1
    if ho < 1 or wo < 1 or (mode == "reflect" and p >= min(c["h"], c["w"])):
        return  # errors are tested separately
    pos = (c["pos"][0] % ho, c["pos"][1] % wo)
    op = "convolution" if c["flip"] else "cross-correlation"
    fig = viz.conv_figure(
        img, ker, padding=p, padding_mode=mode, stride=s, dilation=d, position=pos, operation=op
    )
    sc = scene_of(fig)
    padded, out = torch_conv(torch, img, ker, p, mode, s, d, flip=c["flip"])
    np.testing.assert_allclose(sc.im_in.values, padded)
    np.testing.assert_allclose(sc.im_out.values, out, atol=1e-12)
    # the numbers written on the output are the output
    if sc.lab_out.texts:
        assert sc.lab_out.texts == [_draw.fmt_number(v) for v in out.ravel()]
    # window squares sit on the taps i*s + d*a
    centres = sorted(
        (float(seg[:4, 1].mean()), float(seg[:4, 0].mean())) for seg in sc.window.get_segments()
    )
    expected = sorted(
        (float(pos[0] * s + d * a), float(pos[1] * s + d * b))
        for a in range(c["kh"])
        for b in range(c["kw"])
    )
    np.testing.assert_allclose(centres, expected)
    # products = window x applied weight, and they sum to the lit output cell
    w_applied = np.flip(ker) if c["flip"] else ker
    window = padded[
        pos[0] * s : pos[0] * s + d * (c["kh"] - 1) + 1 : d,
        pos[1] * s : pos[1] * s + d * (c["kw"] - 1) + 1 : d,
    ]
    np.testing.assert_allclose(sc.im_p.values, window * w_applied)
    assert sc.im_p.values.sum() == pytest.approx(out[pos])
    (lit,) = sc.out_cell.get_segments()
    assert (lit[:4, 1].mean(), lit[:4, 0].mean()) == pytest.approx(pos)


@settings(max_examples=30)
@given(
    n=st.integers(2, 7),
    p=st.integers(0, 4),
    mode=st.sampled_from(["reflect", "replicate", "circular"]),
)
def test_every_invented_pixel_is_linked_to_the_pixel_it_copies(torch, n, p, mode):
    """Each link goes from an invented pixel to a real pixel holding the same value in F.pad."""
    needs_functional()
    if (mode == "reflect" and p >= n) or (mode == "circular" and p > n):
        return
    img = np.arange(n * (n + 1), dtype=float).reshape(n, n + 1)  # distinct values
    m = viz.conv_model(img, np.ones((1, 1)), padding=p, padding_mode=mode)
    padded, _ = torch_conv(torch, img, np.ones((1, 1)), p, mode, 1, 1)
    links = copy_links(m)
    assert len(links) == int(m.invented.sum())
    for (r, c), (sr, sc) in links:
        assert m.invented[r, c] and not m.invented[sr, sc]
        assert padded[r, c] == padded[sr, sc]  # distinct values: it is *the* pixel copied


def test_zeros_padding_invents_zeros_and_links_nothing():
    needs_functional()
    fig = viz.conv_figure(viz.image_preset("step (lecture)"), np.ones((3, 3)), padding=2)
    sc = scene_of(fig)
    m = sc.model
    assert m.invented.sum() == 12 * 12 - 64
    assert np.all(m.padded[m.invented] == 0)
    assert len(sc.links.get_segments()) == 0 and len(sc.links_hot.get_segments()) == 0


def test_window_over_padding_links_its_invented_pixels():
    needs_functional()
    fig = viz.conv_figure(
        np.arange(16.0).reshape(4, 4), np.ones((3, 3)), padding=1, padding_mode="replicate"
    )
    sc = scene_of(fig)
    # the window at output (0, 0) covers 5 invented pixels: 5 bold links, the rest faint
    assert len(sc.links_hot.get_segments()) == 5
    assert len(sc.links.get_segments()) == 36 - 16 - 5


@settings(max_examples=40)
@given(
    n=st.integers(1, 12),
    k=st.integers(1, 5),
    p=st.integers(0, 3),
    s=st.integers(1, 3),
    d=st.integers(1, 3),
)
def test_output_size_formula_is_filled_in_correctly(torch, n, k, p, s, d):
    from tensorlab.viz._conv_model import size_formula

    formula = size_formula("H", n, k, p, s, d)
    size = viz.output_size(n, k, p, s, d)
    assert formula.endswith(f"= {size}")
    assert f"({n} + 2·{p} − {d}·({k}−1) − 1) / {s}" in formula
    if size >= 1:
        x = torch.zeros(1, 1, n, n)
        y = torch.nn.functional.conv2d(x, torch.zeros(1, 1, k, k), stride=s, padding=p, dilation=d)
        assert y.shape[-1] == size


def test_conv_errors_are_pytorchs(torch):
    needs_functional()
    from helpers import raises_same

    img = np.zeros((2, 2))
    raises_same(
        lambda: viz.conv_model(img, np.ones((3, 3))),
        lambda: torch.nn.functional.conv2d(
            torch.zeros(1, 1, 2, 2, dtype=torch.float64),
            torch.ones(1, 1, 3, 3, dtype=torch.float64),
        ),
    )
    raises_same(
        lambda: viz.conv_model(img, np.ones((1, 1)), padding=3, padding_mode="reflect"),
        lambda: torch.nn.functional.pad(
            torch.zeros(1, 1, 2, 2, dtype=torch.float64), (3, 3, 3, 3), mode="reflect"
        ),
    )
    with pytest.raises(IndexError, match="outside the 6×6 output"):
        viz.conv_model(np.zeros((8, 8)), np.ones((3, 3)), position=(6, 0))
    with pytest.raises(ValueError, match="padding_mode"):
        viz.conv_model(img, np.ones((1, 1)), padding_mode="mirror")


def test_photo_preset_is_a_grey_square_from_the_sample_data():
    img = photo_image()
    assert img.shape == (24, 24) and img.min() >= 0 and img.max() <= 1 and img.std() > 0.1
    for name in viz.IMAGE_PRESETS:
        assert viz.image_preset(name).ndim == 2


@pytest.mark.parametrize(
    "text, expected",
    [
        ("-1 0 1; -1 0 1; -1 0 1", [[-1, 0, 1]] * 3),
        ("[[1, 2], [3, 4]]", [[1, 2], [3, 4]]),
        ("1/9 1/9\n1/9 1/9", [[1 / 9, 1 / 9]] * 2),
        ("5", [[5]]),
    ],
)
def test_parse_kernel(text, expected):
    np.testing.assert_allclose(parse_kernel(text), expected)


@pytest.mark.parametrize("text", ["", "1 2; 3", "a b"])
def test_parse_kernel_rejects(text):
    with pytest.raises(ValueError):
        parse_kernel(text)


# ---------------------------------------------------------------------------------- groups
def test_groups_match_torch_conv2d_for_every_small_configuration(torch):
    """Error text, weight shape and operator count agree with torch.nn.Conv2d."""
    for cin in range(1, 7):
        for cout in range(1, 7):
            for g in range(0, 7):
                m = viz.groups_model(cin, cout, g, 3)
                try:
                    conv = torch.nn.Conv2d(cin, cout, 3, groups=g, bias=False)
                except ValueError as e:
                    assert m.error == str(e), (cin, cout, g)
                    continue
                assert m.error is None, (cin, cout, g, m.error)
                assert m.weight_shape == tuple(conv.weight.shape)
                assert m.parameters == conv.weight.numel()
                assert m.operators == conv.weight.numel() // 9


def test_lecture_16_to_64_groups_4_has_256_operators_not_64():
    m = viz.groups_model(16, 64, 4, 3)
    assert m.weight_shape == (64, 4, 3, 3)
    assert m.operators == 256 and m.parameters == 2304


@settings(max_examples=25)
@given(g=st.integers(1, 4), a=st.integers(1, 3), b=st.integers(1, 3))
def test_connections_are_the_channels_torch_actually_mixes(torch, g, a, b):
    """Feed one input channel at a time through a real grouped conv with all-ones weights."""
    cin, cout = g * a, g * b
    m = viz.groups_model(cin, cout, g, 1)
    conv = torch.nn.Conv2d(cin, cout, 1, groups=g, bias=False)
    with torch.no_grad():
        conv.weight.fill_(1.0)
    seen = set()
    for i in range(cin):
        x = torch.zeros(1, cin, 1, 1)
        x[0, i] = 1.0
        y = conv(x)[0, :, 0, 0]
        seen |= {(i, o) for o in range(cout) if y[o] != 0}
    assert {(i, o) for i, o, _ in m.connections} == seen
    for i, o, k in m.connections:
        assert m.in_group[i] == m.out_group[o] == k


def test_groups_figure_artists():
    fig = viz.groups_figure(4, 4, 2)
    sc = scene_of(fig)
    assert len(sc.lines.get_segments()) == 8
    colours = {tuple(c) for c in sc.lines.get_colors()}
    assert len(colours) == 2  # one per group
    owner = sc.blocks.values
    # each output channel (column) holds C_in/groups = 2 operators of 3x3 = 18 cells
    for o in range(4):
        assert (owner == o).sum() == 2 * 9
    assert "(4, 2, 3, 3)" in sc.shape_text.get()
    assert "8 operators" in sc.count_text.get()


def test_groups_figure_shows_pytorchs_error(torch):
    with pytest.raises(ValueError) as info:
        torch.nn.Conv2d(2, 3, 3, groups=2)
    fig = viz.groups_figure(2, 3, 2)
    sc = scene_of(fig)
    assert sc.error_text() == f"ValueError: {info.value}"  # said once, in the weight panel
    lines = (sc.shape_text.get(), sc.count_text.get(), sc.code_text.get(), sc.title_c.get_text())
    assert not any(str(info.value) in t for t in lines)
    assert len(sc.lines.get_segments()) == 0
    assert sc.blocks.rgba.size == 0


# ---------------------------------------------------------------------------------- axes
_SCENES: dict = {}


def _axes_scene():
    if "axes" not in _SCENES:
        _SCENES["axes"] = viz.AxesScene()
    return _SCENES["axes"]


small_shapes = st.lists(st.sampled_from([1, 1, 2, 3, 16]), min_size=0, max_size=4).map(tuple)


@settings(max_examples=60)
@given(
    shape=small_shapes,
    op=st.sampled_from(["unsqueeze", "squeeze(dim)", "squeeze()"]),
    dim=st.integers(-6, 5),
)
def test_axes_model_matches_torch(torch, shape, op, dim):
    m = viz.axes_model(shape, op, dim)
    _axes_scene().update(m)  # every model can be drawn
    x = torch.empty(shape)
    try:
        if op == "unsqueeze":
            y = x.unsqueeze(dim)
        elif op == "squeeze(dim)":
            y = x.squeeze(dim)
        else:
            y = x.squeeze()
    except IndexError as e:
        assert m.error == f"IndexError: {e}"
        return
    assert m.error is None
    assert m.new_shape == tuple(y.shape)
    assert m.new_stride == y.stride()
    assert m.stride == x.stride()
    assert len(m.new_ids) == len(m.new_shape)
    if op == "unsqueeze":
        assert m.new_shape[m.inserted] == 1 and m.new_ids[m.inserted] not in m.ids
    else:
        kept = [s for k, s in enumerate(shape) if k not in m.removed]
        assert tuple(kept) == tuple(y.shape)


def test_lecture_unsqueeze_chain_16_16_to_1_1_16_16(torch):
    a = viz.axes_model((16, 16), "unsqueeze", 0)
    b = viz.axes_model(a.new_shape, "unsqueeze", 0, ids=a.new_ids)
    t = torch.zeros(16, 16).unsqueeze(0).unsqueeze(0)
    assert b.new_shape == (1, 1, 16, 16) == tuple(t.shape)
    assert b.new_stride == t.stride()
    assert b.new_ids[2:] == (0, 1)  # the original axes are the last two


@settings(max_examples=40)
@given(shape=st.lists(st.integers(0, 9), min_size=0, max_size=5).map(tuple))
def test_nested_brackets_are_nested(shape):
    """Every bracket box of axis k+1 sits inside one box of axis k; elements sit in the innermost."""
    lay = nest_layout(shape)

    def inside(inner, outer):
        return (
            outer[0] < inner[0] <= inner[2] < outer[2]
            and outer[1] < inner[1] <= inner[3] < outer[3]
        )

    for k in range(1, len(shape)):
        for box in (b for b in lay.boxes if b[4] == k):
            assert sum(inside(box, o) for o in lay.boxes if o[4] == k - 1) == 1
    innermost = [b for b in lay.boxes if b[4] == len(shape) - 1]
    for x, y in lay.leaves:
        pt = (x - 0.1, y - 0.1, x + 0.1, y + 0.1)
        assert not innermost or sum(inside(pt, o) for o in innermost) == 1
    assert len(lay.boxes) == sum(1 for b in lay.boxes)  # no duplicates by construction


@settings(max_examples=40)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple))
def test_small_shapes_draw_every_element(shape):
    lay = nest_layout(shape)
    assert len(lay.leaves) == int(np.prod(shape)) and not lay.ellipses
    assert shown_items(10, 5) == [0, 1, 2, None, 9]


def test_one_more_axis_of_size_1_is_one_more_pair_of_brackets():
    a, b, c = nest_layout((16, 16)), nest_layout((1, 16, 16)), nest_layout((1, 1, 16, 16))
    assert len(b.boxes) == len(a.boxes) + 1 and len(c.boxes) == len(b.boxes) + 1
    assert len(a.leaves) == len(b.leaves) == len(c.leaves)


def test_axes_figure_labels_carry_sizes_and_strides(torch):
    fig = viz.axes_figure((1, 16, 16), "unsqueeze", 2)
    sc = scene_of(fig)
    y = torch.zeros(1, 16, 16).unsqueeze(2)
    n_before = 3
    assert sc.lab_size.texts[n_before:] == [f"size {s}" for s in y.shape]
    assert sc.lab_stride.texts[n_before:] == [f"stride {s}" for s in y.stride()]
    assert len(sc.links.get_segments()) == 3  # the three old axes, each joined to itself
    fig = viz.axes_figure((1, 16, 16), "squeeze()")
    sc = scene_of(fig)
    assert len(sc.crosses.get_segments()) == 2  # one X (two strokes) over axis 0


def test_axes_figure_draws_the_index_error(torch):
    with pytest.raises(IndexError) as info:
        torch.zeros(16, 16).unsqueeze(5)
    sc = scene_of(viz.axes_figure((16, 16), "unsqueeze", 5))
    assert str(info.value) in sc.error.get()


# ---------------------------------------------------------------------------------- memory
def torch_chain(torch, shape, ops):
    """The same chain in PyTorch, step by step (None where it raises) -> (tensors, error)."""
    x = torch.arange(int(np.prod(shape))).view(shape)
    out = [x]
    for op in ops:
        t = out[-1]
        try:
            if op.kind == "attr":
                t = getattr(t, op.name)
            elif op.kind == "method":
                t = getattr(t, op.name)(*op.args, **dict(op.kwargs))
            else:
                key = op.args[0]
                key = (
                    tuple(_torch_key(torch, k) for k in key)
                    if isinstance(key, tuple)
                    else _torch_key(torch, key)
                )
                t = t[key]
        except Exception as e:  # noqa: BLE001
            return out, e
        out.append(t)
    return out, None


def _torch_key(torch, k):
    from tensorlab.viz._memory_model import IndexTensor

    return torch.tensor(list(k.values)) if isinstance(k, IndexTensor) else k


# ``.T`` is left out of random chains: on a 0-d tensor tensorlab raises where torch returns the
# tensor (reported to the engine's owner); it is covered on 2-d tensors by explicit tests.
view_ops = st.sampled_from(
    [
        ".transpose(0, 1)",
        ".t()",
        "[:, 1:]",
        "[::2]",
        "[1:]",
        ".view(-1)",
        ".reshape(-1)",
        ".contiguous()",
        ".clone()",
        ".unsqueeze(0)",
        ".squeeze()",
        ".flatten()",
        "[tensor([0, 1])]",
        ".view(2, -1)",
        ".permute(1, 0)",
        "[0]",
        ".expand(2, -1)",
    ]
)


@settings(max_examples=60)
@given(
    shape=st.sampled_from([(2, 5), (3, 4), (4, 3), (2, 6), (1, 4), (6,)]),
    ops=st.lists(view_ops, min_size=0, max_size=4),
)
def test_memory_model_layouts_offsets_and_sharing_match_torch(torch, shape, ops):
    chain = "\n".join(ops)
    m = viz.memory_model(chain=chain, shape=shape)
    theirs, err = torch_chain(torch, shape, parse_chain(chain))
    assert len(m.steps) == len(theirs)
    base_ptr = theirs[0].untyped_storage().data_ptr()
    ptrs = []
    for ours, t in zip(m.steps, theirs):
        assert ours.shape == tuple(t.shape)
        assert ours.stride == t.stride()
        assert ours.offset == t.storage_offset()
        ptrs.append(t.untyped_storage().data_ptr())
        if t.untyped_storage().data_ptr() == base_ptr:
            # x = arange(n): a view's values are exactly the storage positions it reads
            np.testing.assert_array_equal(ours.offsets, t.reshape(-1).numpy())
        np.testing.assert_array_equal(ours.values, t.reshape(-1).numpy())
    # steps share a storage exactly when torch's share one
    for i in range(len(ptrs)):
        for j in range(len(ptrs)):
            assert (m.steps[i].storage == m.steps[j].storage) == (ptrs[i] == ptrs[j])
    if err is None:
        assert m.error is None
    else:  # the engine's error, shown as is (exact texts are the engine's tests' business)
        assert m.error.message.startswith(f"{type(err).__name__}: ")


@settings(max_examples=40)
@given(
    ops=st.lists(view_ops, min_size=1, max_size=3),
    step=st.integers(0, 3),
    element=st.integers(0, 11),
)
def test_writing_through_a_view_lights_every_alias(torch, ops, step, element):
    chain = "\n".join(ops)
    m0 = viz.memory_model(chain=chain, shape=(3, 4))
    step = step % len(m0.steps)
    n = m0.steps[step].offsets.size
    if n == 0:
        return
    element %= n
    theirs, _ = torch_chain(torch, (3, 4), parse_chain(chain))
    theirs = theirs[: len(m0.steps)]
    t = theirs[step]
    idx = np.unravel_index(element, tuple(t.shape)) if t.ndim else ()
    try:
        t[tuple(int(i) for i in idx)] = 99
        torch_error = None
    except RuntimeError as e:
        torch_error = e
    m = viz.memory_model(chain=chain, shape=(3, 4), writes=[(step, element, 99)], selected=step)
    if torch_error is not None:
        assert m.writes[0].error == f"RuntimeError: {torch_error}"
        return
    assert m.writes[0].error is None
    lit = m.lit()
    for ours, t in zip(m.steps, theirs):
        flat = t.reshape(-1).numpy()
        np.testing.assert_array_equal(ours.values, flat)
        # values start as 0..11, so torch shows 99 exactly in the elements aliasing the write
        lit_cells = np.isin(ours.offsets, list(lit.get(ours.storage, set())))
        np.testing.assert_array_equal(lit_cells, flat == 99)


def test_memory_figure_highlights_the_cells_the_view_covers():
    fig = viz.memory_figure(chain="x[1:, 1:3]", shape=(3, 4))
    sc = scene_of(fig)
    m = sc.model
    assert m.view.offsets.tolist() == [5, 6, 9, 10]
    lay = sc.layout
    cov = _rgba(_draw.COVERED)
    blue = [p for p in range(12) if sc.faces[lay.storage_xy(0, p)] == cov]
    assert blue == [5, 6, 9, 10]
    # and what the collection draws is that dict
    assert len(sc.cells.get_paths()) == len(sc.faces)
    np.testing.assert_allclose(sc.cells.get_facecolors(), list(sc.faces.values()))
    # the grid of the selected step says where each element lives
    sel = [t for t in sc.offsets.texts][-4:]
    assert sel == ["@5", "@6", "@9", "@10"]
    # the walk: 5 -> 6 -> 9 -> 10
    assert len(sc.arcs.get_segments()) == 3


def _rgba(c):
    from matplotlib import colors

    return colors.to_rgba(c)


def test_memory_figure_a_copy_gets_its_own_strip_and_aliasing_is_yellow():
    fig = viz.memory_figure(
        chain="x.T\n.contiguous()", shape=(2, 5), writes=[(1, 1, 99)], selected=1
    )
    sc = scene_of(fig)
    m = sc.model
    assert [s.kind for s in m.steps] == ["base", "view", "copy"]
    assert len(m.storages) == 2 and len(sc.layout.strip_origin) == 2
    yellow = _rgba(_draw.HIGHLIGHT)
    # x.T[0, 1] is storage A[5]: lit in x (at [1, 0]) and in x.T, not in the copy (made before)
    lit_cells = []
    for k, step in enumerate(m.steps):
        for e in range(step.offsets.size):
            if sc.faces[sc.layout.cell_xy(m, k, e)] == yellow:
                lit_cells.append((k, e))
    assert lit_cells == [(0, 5), (1, 1)]


def test_failed_view_shows_torchs_message_and_the_explanation(torch):
    with pytest.raises(RuntimeError) as info:
        torch.arange(10).view(2, 5).T.view(-1)
    fig = viz.memory_figure(chain="x.T\n.view(-1)", shape=(2, 5))
    sc = scene_of(fig)
    assert sc.model.error.message == f"RuntimeError: {info.value}"
    assert "view size is not compatible" in sc.error.get()
    explanation = sc.model.error.explanation
    assert explanation == str(tl.explain_view(tl.arange(10).view(2, 5).T, -1))
    assert explanation.split("\n")[0] in sc.error.get()


def test_memory_figure_never_writes_to_your_tensor():
    x = tl.arange(6).view(2, 3)
    viz.memory_figure(x, ".T", writes=[(1, 0, 99), (0, 4, 7)])
    assert x.tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize(
    "bad",
    ["__import__('os')", ".numpy()", "x.storage", ".view(y)", "[x > 1]", "x + 1", ".T(", "y.T"],
)
def test_chain_parser_runs_nothing_but_whitelisted_ops(bad):
    with pytest.raises(ValueError):
        parse_chain(bad)


def test_chain_parser_reads_code_as_written():
    ops = parse_chain("x.T.contiguous()\n.view(2, -1); [:, ::2]\n# comment\n[tensor([0, 2])]")
    assert [o.text for o in ops] == [
        ".T",
        ".contiguous()",
        ".view(2, -1)",
        "[:, ::2]",
        "[tensor([0, 2])]",
    ]


def test_memory_layout_places_every_cell_once():
    m = viz.memory_model(chain="x.T\n.contiguous()\n.view(-1)\n.unsqueeze(0)", shape=(3, 4))
    lay = memory_layout(m)
    cells = set()
    for k, step in enumerate(m.steps):
        for e in range(step.offsets.size):
            xy = lay.cell_xy(m, k, e)
            assert xy not in cells
            cells.add(xy)
    for j, s in enumerate(m.storages):
        for p in range(len(s.values)):
            xy = lay.storage_xy(j, p)
            assert xy not in cells
            cells.add(xy)
    assert cell_rc((3, 4), 7) == (1, 3)
    MemoryScene().update(m)  # draws without error


# ---------------------------------------------------------------------------------- layout
# Lesson authors saw figures cut by savefig(bbox_inches="tight") (Jupyter's inline backend): the
# fast text artists reported no window extent, so the tight box missed them, and some content
# sat outside the figure. They also saw the conv figure's code line drawn over the output panel.


def _ink(fig):
    """Display box (pixels, y up) of every pixel drawn on the (transparent) ground."""
    from matplotlib.transforms import Bbox

    fig.canvas.draw()
    a = np.asarray(fig.canvas.buffer_rgba())[..., 3] > 5
    rows, cols = np.nonzero(a)
    H = a.shape[0]
    return Bbox.from_extents(cols.min(), H - rows.max() - 1, cols.max() + 1, H - rows.min())


def _inside(inner, outer, tol=1.0) -> bool:
    return (
        inner.x0 >= outer.x0 - tol
        and inner.y0 >= outer.y0 - tol
        and inner.x1 <= outer.x1 + tol
        and inner.y1 <= outer.y1 + tol
    )


def _overlap(a, b, tol=0.5) -> bool:
    """Whether two boxes share more than a ``tol``-pixel sliver."""
    return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol


def _drawn(fig, renderer):
    """(artist, window extent) of every visible artist that puts something on the canvas."""
    from matplotlib.axis import Axis
    from matplotlib.spines import Spine
    from matplotlib.text import Text

    candidates = [a for a in (*fig.texts, *fig.artists) if a.get_visible()]
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for c in ax.get_children():
            if isinstance(c, (Axis, Spine)) or c is ax.patch or not c.get_visible():
                continue
            if isinstance(c, Text) and not c.get_text():
                continue
            if hasattr(c, "get_xydata") and len(c.get_xydata()) == 0:  # an empty Line2D
                continue
            candidates.append(c)
    out = []
    for a in candidates:
        b = _box_of(a, renderer)
        if np.all(np.isfinite(b.get_points())) and (b.width > 0 or b.height > 0):
            out.append((a, b))
    return out


def _box_of(a, renderer):
    """Display box of an artist: its window extent, except for grids and collections, whose
    boxes are worked out here from their data (collections report no extent of their own)."""
    from matplotlib.collections import Collection
    from matplotlib.transforms import Bbox

    if isinstance(a, _draw.CellGrid):
        left, right, top, bottom = a.extent()
        pts = a.axes.transData.transform([(left, top), (right, bottom)])
    elif isinstance(a, Collection) and len(a.get_offsets()) == 0:
        lim = a.get_datalim(a.axes.transData)
        if not np.all(np.isfinite(lim.get_points())):
            return Bbox.null()
        pts = a.axes.transData.transform(lim.get_points())
    else:
        return a.get_window_extent(renderer)
    return Bbox.from_extents(*pts.min(axis=0), *pts.max(axis=0))


def _label_boxes(labels, renderer):
    """The box matplotlib's own ``Text`` gives each label of a CellLabels artist (as drawn)."""
    from matplotlib.text import Text

    fig, tr = labels.figure, labels.get_transform()
    boxes = []
    for (x, y), s in zip(tr.transform(labels.positions), labels.texts):
        t = Text(x, y, s, ha=labels.ha, va="center", fontsize=labels.drawn_size or labels.size)
        t.set_fontweight(labels.weight)
        t.set_figure(fig)
        boxes.append(t.get_window_extent(renderer))
    return boxes


def layout_problems(fig, *, cropped: bool) -> list[str]:
    """Everything wrong with where things are drawn (an empty list when all is well).

    - every visible artist's window extent lies inside the figure (a plain ``savefig`` shows
      it all);
    - every inked pixel lies inside ``get_tightbbox`` (``bbox_inches="tight"`` cuts nothing);
    - no text line or title covers a panel (the union of an axes' drawn, non-text artists) or
      another text; in the memory figure, no step title or info line covers a cell or another
      title;
    - ``cropped`` (the one-shot figures): no margin wider than 20 px around the ink.
    """
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    ink = _ink(fig)
    renderer = fig.canvas.get_renderer()
    drawn = _drawn(fig, renderer)
    problems = []
    for a, b in drawn:
        if not _inside(b, fig.bbox):
            problems.append(f"outside the figure: {a} {b.bounds}")
    tight = Bbox(fig.get_tightbbox(renderer).get_points() * fig.dpi)
    if not _inside(ink, tight):
        problems.append(f"ink {ink.extents} outside the tight bbox {tight.extents}")
    texts = [(a, b) for a, b in drawn if isinstance(a, Text) and a.get_bbox_patch() is None]
    panels = []
    for ax in fig.axes:
        parts = [
            b for a, b in drawn if a.axes is ax and not isinstance(a, (Text, _draw.CellLabels))
        ]
        if parts:
            panels.append(Bbox.union(parts))
    for a, b in texts:
        problems += [f"{a.get_text()!r} covers a panel" for p in panels if _overlap(b, p)]
    for i, (a, b) in enumerate(texts):
        for c, d in texts[i + 1 :]:
            if _overlap(b, d):
                problems.append(f"{a.get_text()!r} covers {c.get_text()!r}")
    scene = getattr(fig, "_tensorlab_scene", None)
    if isinstance(scene, MemoryScene):
        tr = scene.ax.transData
        cells = [
            Bbox(tr.transform([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)])) for x, y in scene.faces
        ]
        cells = [Bbox.from_extents(*c.min, *c.max) for c in cells]
        titles = _label_boxes(scene.titles, renderer) + _label_boxes(scene.infos, renderer)
        for i, t in enumerate(titles):
            problems += [f"a title covers a cell at {c.bounds}" for c in cells if _overlap(t, c)]
            problems += [
                f"two titles overlap at {t.bounds}" for u in titles[i + 1 :] if _overlap(t, u)
            ]
    if cropped:
        margins = (ink.x0, fig.bbox.x1 - ink.x1, ink.y0, fig.bbox.y1 - ink.y1)
        if max(margins) > 20:
            problems.append(f"empty margins (left, right, bottom, top) {margins} px")
    return problems


def _conv(*args, **kw):
    def make():
        needs_functional()
        return viz.conv_figure(*args, **kw)

    return make


LAYOUT_CASES = {
    "conv lecture": _conv(
        viz.image_preset("step (lecture)"),
        viz.kernel_preset("edge [-1, 0, 1] (lecture)"),
        padding=1,
        padding_mode="reflect",
        position=(2, 3),
    ),
    "conv photo, flipped, strided": _conv(
        viz.image_preset("photo (Grace Hopper)"),
        viz.kernel_preset("box blur"),
        padding=2,
        padding_mode="circular",
        stride=2,
        dilation=2,
        operation="convolution",
    ),
    "conv 1x1": _conv(np.ones((1, 1)), np.ones((1, 1))),
    "conv wide": _conv(np.arange(60.0).reshape(3, 20), np.ones((1, 3)) / 3),
    "conv tall, big numbers": _conv(np.arange(60.0).reshape(20, 3), np.full((3, 1), 1234.5678)),
    "conv 5x7 kernel": _conv(
        np.arange(100.0).reshape(10, 10) / 7, np.linspace(-1, 1, 35).reshape(5, 7), padding=4
    ),
    "groups lecture": lambda: viz.groups_figure(16, 64, 4),
    "groups small": lambda: viz.groups_figure(4, 4, 2),
    "groups illegal": lambda: viz.groups_figure(6, 4, 4),
    "groups 64x64 7x7": lambda: viz.groups_figure(64, 64, 1, 7),
    "groups depthwise": lambda: viz.groups_figure(64, 128, 64, (3, 5)),
    "groups 1x1": lambda: viz.groups_figure(1, 1, 1, 1),
    "axes lecture": lambda: viz.axes_figure((16, 16), "unsqueeze", 0),
    "axes 6-d": lambda: viz.axes_figure((2, 3, 4, 5, 6, 7), "unsqueeze", 6),
    "axes squeeze()": lambda: viz.axes_figure((1, 2, 1, 3, 1, 4), "squeeze()", None),
    "axes big strides": lambda: viz.axes_figure((100, 200, 300), "unsqueeze", -1),
    "axes error": lambda: viz.axes_figure((2, 3), "unsqueeze", 7),
    "axes 0-d": lambda: viz.axes_figure((), "unsqueeze", 0),
    "memory .T (reported)": lambda: viz.memory_figure(chain=".T", shape=(2, 5)),
    "memory lecture, failing view": lambda: viz.memory_figure(chain="x.T\n.view(-1)"),
    "memory long chain": lambda: viz.memory_figure(
        chain="x.T\n.contiguous()\n.view(-1)\n.view(5, 2)\n[1:, ::2]\n.unsqueeze(0)\n.expand(3, 3, 1)"
    ),
    "memory 6x8": lambda: viz.memory_figure(chain=".T\n.reshape(-1)", shape=(6, 8)),
    "memory 3-d": lambda: viz.memory_figure(
        chain="x.permute(2, 0, 1)\n.contiguous()", shape=(2, 3, 4)
    ),
    "memory 160 tall": lambda: viz.memory_figure(
        chain="x.expand(160, 1)\n.contiguous()", shape=(1, 1)
    ),
    "memory 160 long": lambda: viz.memory_figure(
        chain="x.expand(160)\n.contiguous()\n.view(16, 10)", shape=(1,)
    ),
    "memory index copy, write": lambda: viz.memory_figure(
        chain="x[tensor([0, 2])]", shape=(3, 4), writes=[(1, 2, 99)]
    ),
    "memory 1-d": lambda: viz.memory_figure(chain="", shape=(3,)),
}


@pytest.mark.parametrize("name", list(LAYOUT_CASES))
def test_figures_show_everything_with_and_without_a_tight_bbox(name):
    fig = LAYOUT_CASES[name]()
    assert layout_problems(fig, cropped=True) == []
    # what the inline backend shows is what a plain savefig shows: nothing cut, nothing added
    fig.savefig(io.BytesIO(), format="png", bbox_inches="tight")
    assert layout_problems(fig, cropped=True) == []


def test_conv_code_line_is_clear_of_the_output_panel():
    needs_functional()
    for op in ("cross-correlation", "convolution"):
        fig = viz.conv_figure(np.ones((12, 12)), np.ones((3, 3)), padding=1, operation=op)
        sc = scene_of(fig)
        fig.canvas.draw()
        code = sc.code_text.artist.get_window_extent(fig.canvas.get_renderer())
        assert "F.conv2d" in sc.code_text.get() and code.width > 100
        for grid in (sc.im_out, sc.im_p, sc.im_k, sc.im_in):
            assert not _overlap(code, _box_of(grid, None)), op


def _scene_cases():
    """The explorers' scenes keep their figure's size: content must fit it for every model."""
    from tensorlab.viz import AxesScene, ConvScene, GroupsScene

    yield (
        "groups",
        GroupsScene,
        [viz.groups_model(*a) for a in [(16, 64, 4), (6, 4, 4), (64, 64, 1, 7)]],
    )
    yield (
        "axes",
        AxesScene,
        [viz.axes_model(*a) for a in [((16, 16), "unsqueeze", 0), ((2, 3), "unsqueeze", 7)]],
    )
    yield (
        "memory",
        MemoryScene,
        [
            viz.memory_model(chain=c, shape=s)
            for c, s in [
                (".T", (2, 5)),
                ("x.T\n.view(-1)", (2, 5)),
                (".T\n.contiguous()\n.view(-1)\n.unsqueeze(0)\n.view(5, 2)\n[::2]\n.T", (2, 5)),
            ]
        ],
    )
    yield "conv", ConvScene, None


@pytest.mark.parametrize(
    "name, cls, models", list(_scene_cases()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_scenes_fit_their_fixed_figure_through_updates(name, cls, models):
    if models is None:
        needs_functional()
        models = [
            viz.conv_model(np.ones((h, w)), np.ones((k, k)), padding=p)
            for h, w, k, p in [(8, 8, 3, 1), (30, 30, 7, 4), (2, 24, 1, 0)]
        ]
    scene = cls()
    size = tuple(scene.figure.get_size_inches())
    scene.figure._tensorlab_scene = scene
    for m in models:
        scene.update(m)
        if name == "memory":  # as wide, and only as high as the picture needs (no blank band)
            w, h = scene.figure.get_size_inches()
            assert w == size[0] and h <= size[1]
            r = scene.figure.canvas.get_renderer()
            lows = [t.artist.get_window_extent(r).y0 for t in (scene.formula, scene.status)]
            lows += [scene.error.artist.get_window_extent(r).y0] if scene.error.get() else []
            assert 0 <= min(lows) <= 2 * 8.0, min(lows)  # the last line ends a pad above the edge
        else:
            assert tuple(scene.figure.get_size_inches()) == size
        assert layout_problems(scene.figure, cropped=False) == [], m.describe()


@settings(max_examples=12)
@given(
    h=st.integers(1, 30),
    w=st.integers(1, 30),
    kh=st.integers(1, 7),
    kw=st.integers(1, 7),
    p=st.integers(0, 4),
    s=st.integers(1, 3),
    d=st.integers(1, 3),
    conv=st.booleans(),
)
def test_conv_figure_layout_for_any_shape(h, w, kh, kw, p, s, d, conv):
    needs_functional()
    rng = np.random.default_rng(h * 31 + w)
    try:
        fig = viz.conv_figure(
            rng.normal(size=(h, w)),
            rng.normal(size=(kh, kw)),
            padding=p,
            stride=s,
            dilation=d,
            operation="convolution" if conv else "cross-correlation",
        )
    except (ValueError, RuntimeError):
        return  # the kernel does not fit: an error, no figure
    assert layout_problems(fig, cropped=True) == []


@pytest.mark.filterwarnings("ignore:The use of `x.T` on tensors")  # .T of 1-d / 3-d: torch's
@settings(max_examples=12)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    ops=st.lists(
        st.sampled_from(
            [
                ".T",
                ".contiguous()",
                ".view(-1)",
                "[::2]",
                ".unsqueeze(0)",
                ".flip(0)",
                ".reshape(-1, 1)",
            ]
        ),
        max_size=5,
    ),
    selected=st.integers(0, 5),
)
def test_memory_figure_layout_for_any_shape_and_chain(shape, ops, selected):
    fig = viz.memory_figure(
        chain="\n".join(ops), shape=tuple(shape), selected=selected % (len(ops) + 1)
    )
    assert layout_problems(fig, cropped=True) == []


def test_fast_text_and_cell_labels_report_the_box_of_their_ink():
    """Tight bounding boxes and these layout tests rely on the extents the fast artists report."""
    for ha in ("left", "center", "right"):
        for va in ("top", "center", "bottom", "baseline"):
            fig = _draw.new_figure(4, 1.5)
            t = _draw.fig_text(fig, 0.5, 0.5, "W_out = ⌊(8 + 2)⌋\nqy·p", ha=ha, va=va, fontsize=11)
            ink = _ink(fig)
            box = t.get_window_extent(fig.canvas.get_renderer())
            assert _inside(ink, box) and _inside(box, ink, tol=2), (ha, va, ink, box)
    for ha in ("left", "center", "right"):
        fig = _draw.new_figure(3, 2)
        ax = fig.add_axes((0.1, 0.1, 0.8, 0.8))
        ax.set_axis_off()
        ax.set_xlim(0, 4)
        ax.set_ylim(0, 3)
        lab = _draw.CellLabels(ax, size=9, cell=None, ha=ha)
        lab.set_labels([0.5, 2.0, 3.5], [0.5, 1.5, 2.5], ["-1", "@12", "qp"])
        ink = _ink(fig)
        box = lab.get_window_extent(fig.canvas.get_renderer())
        assert _inside(ink, box) and _inside(box, ink, tol=2), (ha, ink, box)


# ---------------------------------------------------------------------------------- readable at 100 %
def drawn_text_px(fig) -> list[tuple[float, str]]:
    """(pixel size, text) of every piece of text the figure draws, as Agg draws it."""
    from matplotlib.text import Text

    fig.canvas.draw()
    dpi = fig.dpi
    out = []
    for a in fig.findobj():
        if not a.get_visible():
            continue
        if isinstance(a, _draw.CellLabels) and a.texts:
            if a.drawn_size is not None:  # None: too small to draw, so nothing is drawn
                out.append((a.drawn_size * dpi / 72.0, a.texts[0]))
        elif isinstance(a, Text) and a.get_text().strip():
            size = a.get_fontsize()
            if isinstance(a, _draw.FastText):
                size = _draw.points(size, dpi)
            out.append((size * dpi / 72.0, a.get_text()))
    return out


def assert_readable(fig, what: str) -> None:
    """Shown 1:1 in JupyterLab's output area (no figure wider than it), no text under 9 px."""
    assert fig.bbox.width <= _draw.MAX_FIGURE_PX + 0.5, (what, fig.bbox.width)
    small = [
        (round(px, 2), t[:30]) for px, t in drawn_text_px(fig) if px < _draw.MIN_TEXT_PX - 1e-6
    ]
    assert not small, (what, small)


def figure_cases():
    from tensorlab.viz._conv_model import IMAGE_PRESETS, KERNEL_PRESETS, image_preset, kernel_preset

    for image in IMAGE_PRESETS:
        for kernel in list(KERNEL_PRESETS)[:4]:
            for p in (0, 2, 4):
                yield (
                    f"conv {image} {kernel} p={p}",
                    lambda i=image, k=kernel, p=p: viz.conv_figure(
                        image_preset(i), kernel_preset(k), padding=p
                    ),
                )
    for chain in ("", ".T", ".T\n.view(-1)", ".T\n.contiguous()\n.view(-1)", "[1:, ::2]"):
        yield f"memory {chain!r}", lambda c=chain: viz.memory_figure(chain=c, shape=(2, 5))
    yield "memory big", lambda: viz.memory_figure(chain=".T\n.reshape(-1)", shape=(6, 8))
    for cin, cout, g in ((4, 4, 1), (4, 4, 2), (16, 64, 4), (64, 128, 64), (4, 4, 3), (2, 3, 2)):
        yield f"groups {cin} {cout} {g}", lambda a=cin, b=cout, c=g: viz.groups_figure(a, b, c)
    for shape in ((16, 16), (1, 16, 16), (2, 3, 4), (1, 1, 1, 2, 3, 1)):
        yield f"axes {shape}", lambda s=shape: viz.axes_figure(s, "unsqueeze", 0)


@pytest.mark.parametrize(
    "what, make", list(figure_cases()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_figure_reads_at_100_percent(what, make):
    needs_functional()
    assert_readable(make(), what)


def test_explorers_read_at_100_percent_through_their_controls():
    needs_functional()
    from tensorlab.widgets import AxesExplorer, ConvExplorer, GroupsExplorer, MemoryExplorer

    c = ConvExplorer(display="agg")
    for image in c.image.options:
        c.image.value = image
        for p in (0, 4):
            c.padding.value = p
            assert_readable(c.figure, f"ConvExplorer {image} p={p}")
    g = GroupsExplorer(display="agg")
    for preset in g.preset.options[1:]:
        g.preset.value = preset
        assert_readable(g.figure, f"GroupsExplorer {preset}")
    m = MemoryExplorer(display="agg")
    for preset in m.preset.options[1:]:
        m.preset.value = preset
        assert_readable(m.figure, f"MemoryExplorer {preset}")
    a = AxesExplorer(display="agg")
    assert_readable(a.figure, "AxesExplorer")


def test_float_noise_prints_as_zero(torch):
    """Values that are 0 up to rounding print as 0; the figure's data stays the exact output."""
    needs_functional()
    img = np.array([[0.1, 0.2, 0.3, 0.0], [0.3, 0.2, 0.1, 0.0]])
    ker = np.array([[1.0, 1.0, -1.0]])  # 0.1 + 0.2 - 0.3: not 0 in floating point
    _, expected = torch_conv(torch, img, ker, 0, "zeros", 1, 1)
    assert expected[0, 0] != 0 and abs(expected[0, 0]) < 1e-15  # the oracle has the noise too
    fig = viz.conv_figure(img, ker)
    scene = scene_of(fig)
    np.testing.assert_allclose(scene.im_out.values, expected, rtol=0, atol=1e-15)
    labels = dict(zip(map(tuple, scene.lab_out.positions.astype(int)), scene.lab_out.texts))
    assert labels[(0, 0)] == "0" and not any("e-" in t for t in scene.lab_out.texts)
    assert labels[(1, 0)] == _draw.fmt_number(expected[0, 1])  # real values are untouched
    assert "output[0, 0] = 0" in scene.title_out.get_text()
    assert scene.sum_text.get().endswith("= 0") and scene.model.describe().endswith("= 0")
    assert _draw.snap_zero(0.1 + 0.2 - 0.3, 1.0) == 0.0 and _draw.snap_zero(1e-9, 1.0) == 1e-9


def test_cached_redraws_are_pixel_exact():
    """Artists keep their rendered labels and cells between draws; going to another picture and
    back gives exactly the pixels a fresh figure gives (no stale cache shows through)."""
    needs_functional()
    img = np.arange(36.0).reshape(6, 6) % 7
    ker = np.array([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]])
    a = viz.conv_model(img, ker, padding=1, position=(0, 0))
    b = viz.conv_model(img, ker * 0.5, padding=2, position=(3, 4), padding_mode="reflect")

    def pixels(scene):
        scene.figure.canvas.draw()
        return np.asarray(scene.figure.canvas.buffer_rgba()).copy()

    scene = viz.ConvScene()
    scene.update(a)
    first = pixels(scene)
    assert np.array_equal(pixels(scene), first)  # a redraw from the caches
    scene.update(b)
    other = pixels(scene)
    assert not np.array_equal(other, first)
    scene.update(a)
    assert np.array_equal(pixels(scene), first)
    fresh = viz.ConvScene()
    fresh.update(a)
    assert np.array_equal(pixels(fresh), first)
    fresh.update(b)
    assert np.array_equal(pixels(fresh), other)
