"""Real torch 2.13 errors explained in place: one test per family, the script form
(``with tensorlab.explain_errors():``) and ``%load_ext tensorlab`` in a real IPython shell."""

from __future__ import annotations

import contextlib
import io
import traceback

import pytest

import tensorlab as tl


def explained(fn):
    """Run ``fn`` inside ``explain_errors()``; return (the exception, the explanation or None).
    The exception must come out with its type and message untouched."""
    with pytest.raises(Exception) as info:
        with tl.explain_errors():
            fn()
    exc = info.value
    notes = [n for n in getattr(exc, "__notes__", []) if n.startswith("tensorlab")]
    assert len(notes) <= 1
    return exc, (notes[0] if notes else None)


def test_view_on_incompatible_strides_names_the_dims(torch):
    def cell():
        x = torch.arange(10).view(2, 5)
        y = x.T
        y.view(-1)

    exc, text = explained(cell)
    assert type(exc) is RuntimeError and "view size is not compatible" in str(exc)
    # the same words as explain_view on that tensor, with the user's own name for it
    ours = tl.explain_view(torch.arange(10).view(2, 5).T, -1)
    assert text.splitlines()[0] == "tensorlab: y." + ours.lines[0]
    assert ours.lines[2] in text and "explain_view(y, *shape)" in text

    def flattened_then_viewed():
        x = torch.randn(2, 3, 4)
        x.transpose(0, 1).view(6, 4)

    _, text = explained(flattened_then_viewed)
    assert text.startswith(
        "tensorlab: x.transpose(0, 1).view(6, 4) of a tensor with shape (3, 2, 4)"
    )

    def shape_does_not_fit():
        torch.arange(10).reshape(3, -1)

    exc, text = explained(shape_does_not_fit)
    assert "is invalid for input of size 10" in str(exc)
    assert text.startswith("tensorlab: view/reshape(3, -1)") and "10 / 3" in text

    def unflatten():
        torch.arange(10).unflatten(0, (3, 4))

    _, text = explained(unflatten)
    assert text.startswith("tensorlab: unflatten splits dim 0 (size 10) into [3, 4]")


@pytest.mark.parametrize(
    "layer, shape, name, fix",
    [
        ("Conv1d", (1, 3, 8), "conv1d", "nn.Conv1d(3, 4, 3)"),
        ("Conv2d", (1, 3, 8, 8), "conv2d", "nn.Conv2d(3, 4, 3)"),
        ("Conv3d", (1, 3, 8, 8, 8), "conv3d", "nn.Conv3d(3, 4, 3)"),
        ("ConvTranspose2d", (1, 3, 8, 8), "conv_transpose2d", "nn.ConvTranspose2d(3, 4, 3)"),
    ],
)
def test_conv_channels(torch, layer, shape, name, fix):
    conv = getattr(torch.nn, layer)(2, 4, 3)
    x = torch.randn(*shape)
    exc, text = explained(lambda: conv(x))
    assert "to have 2 channels, but got 3 channels instead" in str(exc)
    assert text.startswith(f"tensorlab: {name} reads dim 1 of the input as channels")
    assert f"Fix: {fix}" in text


def test_conv_channels_last_images_are_spotted(torch):
    conv = torch.nn.Conv2d(3, 8, 3)
    img = torch.rand(1, 32, 32, 3)  # (N, H, W, C) as PIL/numpy give it
    _, text = explained(lambda: conv(img))
    assert "x.permute(0, 3, 1, 2)" in text


def test_conv_groups_kernel_and_padding(torch):
    F = torch.nn.functional

    def groups_layer():
        torch.nn.Conv2d(3, 6, 3, groups=2)

    exc, text = explained(groups_layer)
    assert type(exc) is ValueError and str(exc) == "in_channels must be divisible by groups"
    assert text.startswith("tensorlab: groups=g splits")
    assert "in_channels=3, out_channels=6: groups can be 1, 3 (not 2)" in text

    _, text = explained(
        lambda: F.conv2d(torch.randn(1, 4, 8, 8), torch.randn(6, 2, 3, 3), groups=4)
    )
    assert text.startswith("tensorlab: groups=4 splits the output channels") and "= 6" in text

    _, text = explained(lambda: torch.nn.Conv2d(1, 1, 5)(torch.randn(1, 1, 3, 3)))
    assert text.startswith(
        "tensorlab: the kernel (5x5, dilation included) is larger than the input"
    )

    for bad, start in [
        (
            lambda: F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), padding=-1),
            "padding adds",
        ),
        (lambda: torch.nn.Conv2d(1, 1, 3, stride=2, padding="same"), "padding='same' keeps"),
        (
            lambda: torch.nn.Conv2d(1, 1, 3, padding=4, padding_mode="reflect")(
                torch.ones(1, 1, 3, 3)
            ),
            "reflect padding mirrors",
        ),
        (lambda: torch.nn.Conv2d(1, 1, 3, padding_mode="zero"), "padding_mode says"),
        (lambda: torch.nn.Conv2d(1, 1, 3, padding="full"), "padding is a number"),
        (
            lambda: torch.nn.ConvTranspose2d(1, 1, 3, output_padding=1)(torch.ones(1, 1, 4, 4)),
            "output_padding adds",
        ),
        (lambda: torch.nn.Conv2d(1, 1, 3)(torch.ones(8, 8)), "conv2d takes (C, H, W)"),
    ]:
        _, text = explained(bad)
        assert text is not None and text.startswith("tensorlab: " + start), text


def test_linear_gives_the_in_features_fix(torch):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 4, 3)
            self.fc = torch.nn.Linear(4 * 6 * 6, 10)

        def forward(self, x):
            return self.fc(self.conv(x).flatten(1))

    net = Net()
    exc, text = explained(lambda: net(torch.randn(2, 1, 10, 10)))
    assert str(exc) == "mat1 and mat2 shapes cannot be multiplied (2x256 and 144x10)"
    assert text.startswith("tensorlab: nn.Linear(in_features=144, out_features=10)")
    assert "Fix: nn.Linear(256, 10) (in_features=256)" in text
    # a plain matmul: no layer to fix
    _, text = explained(lambda: torch.randn(2, 5) @ torch.randn(4, 3))
    assert text.startswith("tensorlab: a matrix product") and "5 != 4" in text
    _, text = explained(lambda: torch.ones(2, 3) @ torch.ones(4))
    assert text.startswith("tensorlab: a matrix times a vector") and "(2 x 3) @ (4,)" in text
    _, text = explained(lambda: torch.ones(3) @ torch.ones(4))
    assert text.startswith("tensorlab: a dot product") and "3 and 4" in text
    _, text = explained(lambda: torch.bmm(torch.randn(2, 2, 5), torch.randn(2, 4, 3)))
    assert text.startswith("tensorlab: bmm multiplies batch by batch")


def test_broadcasting_shows_the_shapes_lined_up(torch):
    def cell():
        a, b = torch.randn(2, 3), torch.randn(4)
        a + b

    exc, text = explained(cell)
    assert "must match the size of tensor b (4) at non-singleton dimension 1" in str(exc)
    assert text.startswith("tensorlab: broadcasting lines shapes up from the right")
    assert "  a:    2   3\n  b:        4" in text
    _, text = explained(lambda: torch.randn(3).add_(torch.randn(2, 3)))
    assert text.startswith("tensorlab: an in-place op writes its result into the tensor itself")
    _, text = explained(lambda: torch.randn(3).expand(2, 4))
    assert text.startswith("tensorlab: expand repeats only size-1 dims")


def test_cat_and_stack_sizes(torch):
    def cell():
        a, b = torch.randn(2, 3), torch.randn(2, 4)
        torch.cat([a, b])

    exc, text = explained(cell)
    assert "Sizes of tensors must match except in dimension 0" in str(exc)
    assert text.startswith("tensorlab: cat joins tensors along dim 0 only")
    assert "Shapes: [2, 3], [2, 4]." in text
    _, text = explained(lambda: torch.stack([torch.randn(2, 3), torch.randn(2, 4)]))
    assert text.startswith("tensorlab: stack puts the tensors side by side along a NEW dim")
    _, text = explained(lambda: torch.cat([torch.randn(2, 3), torch.randn(2, 3, 1)]))
    assert text.startswith("tensorlab: cat joins tensors along an existing dim")


def test_squeeze_unsqueeze_permute_dims(torch):
    def unsq():
        x = torch.randn(2, 3)
        x.unsqueeze(4)

    exc, text = explained(unsq)
    assert type(exc) is IndexError
    assert text.startswith("tensorlab: unsqueeze(dim) inserts a new size-1 dim")
    assert "tensor with 2 dims that is -3..2" in text

    def sq():
        x = torch.randn(2, 3)
        x.squeeze(2)

    _, text = explained(sq)
    assert text.startswith("tensorlab: the tensor has 2 dims, numbered 0..1 (or -2..-1")
    assert "squeeze() got dim 2" in text
    _, text = explained(lambda: torch.randn(2, 3).permute(1, 0, 2))
    assert text.startswith("tensorlab: permute lists every dim of the tensor exactly once")
    assert "has 2 dims, the call names 3" in text
    _, text = explained(lambda: torch.randn(2, 3, 4).permute(0, 0, 1))
    assert text.startswith("tensorlab: permute lists every dim exactly once")


def test_in_place_on_a_leaf_or_a_view_of_one(torch):
    w = torch.nn.Linear(2, 2).weight
    exc, text = explained(lambda: w.mul_(2))
    assert str(exc) == "a leaf Variable that requires grad is being used in an in-place operation."
    assert text.startswith("tensorlab: an in-place op") and "torch.no_grad()" in text
    a = torch.ones(3, requires_grad=True)
    _, text = explained(lambda: a[0:2].mul_(2))
    assert "a view of a leaf that requires grad: it shares the leaf's memory" in text


def test_unknown_errors_and_tensorlab_errors(torch):
    exc, text = explained(lambda: torch.ones(2).reshape("a"))
    assert text is None  # not a message the explainer reads: left alone
    exc, text = explained(lambda: {}["missing"])
    assert type(exc) is KeyError and text is None
    # tensorlab raises PyTorch's messages, so its errors are explained the same way
    _, text = explained(lambda: tl.arange(10).view(2, 5).T.view(-1))
    assert text.startswith("tensorlab: ")
    # nothing happens without an error
    with tl.explain_errors():
        pass


def test_traceback_is_unchanged_and_explanation_follows_the_message(torch):
    def cell():
        torch.randn(2, 3) + torch.randn(4)

    try:
        cell()
    except RuntimeError as e:
        plain = "".join(traceback.format_exception(e))
    exc, _ = explained(cell)
    shown = "".join(traceback.format_exception(exc))
    head, _, tail = shown.partition("RuntimeError: ")
    assert tail.splitlines()[0] == plain.partition("RuntimeError: ")[2].splitlines()[0]
    assert tail.splitlines()[1].startswith("tensorlab: broadcasting")


def test_load_ext_in_a_real_ipython_shell(torch):
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    try:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            assert shell.run_cell("%load_ext tensorlab").success
            quiet = shell.run_cell("import torch\nx = torch.arange(10).view(2, 5).T\n")
        assert quiet.success and out.getvalue() == ""  # no error: nothing extra printed
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            result = shell.run_cell("y = x.view(-1)")
        text = out.getvalue()
        assert type(result.error_in_exec) is RuntimeError  # the exception type is PyTorch's
        assert "view size is not compatible" in text  # PyTorch's traceback and message...
        explanation = text[text.index("\ntensorlab") + 1 :]
        assert text.index("view size is not compatible") < text.index("\ntensorlab")  # ...first
        assert explanation.startswith("tensorlab: x.view(10) of a tensor with shape (5, 2)")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            shell.run_cell("{}['missing']")  # an error it cannot read: left alone
        assert "KeyError" in out.getvalue() and "tensorlab" not in out.getvalue()
        with contextlib.redirect_stdout(io.StringIO()):
            shell.run_cell("%unload_ext tensorlab")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            shell.run_cell("y = x.view(-1)")
        assert "view size" in out.getvalue() and "\ntensorlab" not in out.getvalue()
    finally:
        InteractiveShell.clear_instance()
