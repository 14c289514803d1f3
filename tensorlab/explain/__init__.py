"""The engine's decisions in plain words, one function per question:

- :func:`explain_view` - why ``t.view(*shape)`` works or fails (``view``);
- :func:`explain_unfold`, :func:`explain_as_strided` - which storage elements windows read (``view``);
- :func:`explain_im2col` - why ``F.unfold`` copies (``im2col``);
- :func:`explain_conv` - the products behind one output element of ``conv2d`` (``conv``);
- :func:`explain_conv_matmul` - a convolution as unfold -> matmul -> view (``matmul``);
- :func:`explain_conv_transpose` - a transposed convolution as a convolution (``transpose``);
- :func:`explain_errors` / ``%load_ext tensorlab`` - real PyTorch errors explained (``errors``).

Each takes tensorlab's tensors and layers and real PyTorch's alike.
"""

from .conv import ConvExplanation, ConvTerm, explain_conv
from .errors import explain_error, explain_errors
from .im2col import explain_im2col
from .matmul import ConvAsMatmul, explain_conv_matmul
from .transpose import TransposedConvAsConv, explain_conv_transpose
from .view import (
    ViewExplanation,
    WindowExplanation,
    explain_as_strided,
    explain_unfold,
    explain_view,
)

__all__ = [
    "ConvAsMatmul",
    "ConvExplanation",
    "ConvTerm",
    "TransposedConvAsConv",
    "ViewExplanation",
    "WindowExplanation",
    "explain_as_strided",
    "explain_conv",
    "explain_conv_matmul",
    "explain_conv_transpose",
    "explain_error",
    "explain_errors",
    "explain_im2col",
    "explain_unfold",
    "explain_view",
]
