"""Derivatives of ``conv1d``/``conv2d`` and ``pad`` (all modes).

Convolution (cross-correlation): ``out[n, o, i, j] = bias[o] + sum over c, a, b of
w[o, c, a, b] * xp[n, c, i*s + a*d, j*s + b*d]`` where ``xp`` is the zero-padded input. Going
backward, kernel tap ``(a, b)`` by kernel tap ``(a, b)``:

- ``grad_input``: every output gradient is sent back, weighted by the tap, to the input pixel the
  tap read from - a transposed convolution (:func:`tensorlab.nn._conv_kernels.conv_input_grad_nd`:
  the phases of the flipped kernel as one forward convolution, a Toeplitz product for strided
  depthwise, or columns ``w^T @ grad`` added back one strided slice per tap); the padding is
  cropped off (a stride-1 depthwise convolution gets both gradients in one pass sharing the
  gradient's shifted copies, :mod:`tensorlab.nn._conv_dwbwd`);
- ``grad_weight``: the tap's gradient is the correlation of the input pixels it read with the
  output gradient (a sum over batch and output positions): flat-slice columns times the
  channels-last gradient with the images summed inside the product, a shifted-copies product
  for depthwise, a plain product for 1x1 (:mod:`tensorlab.nn._conv_wgrad`, through
  :func:`~tensorlab.nn._conv_kernels.conv_weight_grad_nd`);
- ``grad_bias``: the sum of the output gradient over batch and positions.

Groups split the channels into independent convolutions (batched matrix products). ``'same'``
padding needs no rule of its own: an uneven total is padded beforehand by a recorded
``constant_pad_nd``, so the convolution itself always sees symmetric padding.

Padding: each padded axis maps every output position to the input element it shows
(:func:`tensorlab.nn._conv_kernels.pad_source_index`); the gradient of an input element is the sum
over the positions that show it (one axis after another: the modes are separable).
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from .graph import Node


def _t(x):
    return x if isinstance(x, Tensor) else None


def _expand(values, dim: int) -> list[int]:
    values = list(values)
    return values * dim if len(values) == 1 else values


def _compute_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt == np.float16 else dt


def conv2d_backward(g, x, w, stride, padding, dilation, groups, need_input=True, need_weight=True):
    """Gradients of a 2-d convolution with symmetric ``padding`` = (ph, pw) for input (N, C, H, W)
    and weight (C_out, C/groups, kH, kW), given the output gradient ``g`` (N, C_out, Ho, Wo).
    Returns (grad_input or None, grad_weight or None).

    ``grad_input`` is the transposed convolution of ``g`` (:func:`conv_input_grad_nd`);
    ``grad_weight`` is the correlation of ``x`` with ``g`` summed over the batch
    (:mod:`tensorlab.nn._conv_wgrad`). Both of a stride-1 depthwise convolution: one shared
    pass (:mod:`tensorlab.nn._conv_dwbwd`).
    """
    from ..nn._conv_kernels import conv_input_grad_nd, conv_weight_grad_nd

    ct = _compute_dtype(g.dtype)
    g32, w32 = g.astype(ct, copy=False), w.astype(ct, copy=False)
    gx = gw = None
    if need_input and need_weight:  # stride-1 depthwise: both at once (shared copies)
        from ..nn import _conv_dwbwd

        if _conv_dwbwd.applies(x.shape, w.shape, stride, groups):
            x32 = x.astype(ct, copy=False)
            both = _conv_dwbwd.depthwise_backward(g32, x32, w32, padding, dilation)
            if both is not None:
                gx, gw = both
                if not np.isfinite(gw).all():  # the exact way (see conv_weight_grad_nd)
                    gw = conv_weight_grad_nd(g32, x32, w.shape, stride, padding, dilation, groups)
                return gx.astype(g.dtype, copy=False), gw.astype(g.dtype, copy=False)
    if need_input:
        gx = conv_input_grad_nd(g32, w32, x.shape[2:], stride, padding, dilation, groups)
        gx = gx.astype(g.dtype, copy=False)
    if need_weight:
        x32 = x.astype(ct, copy=False)
        gw = conv_weight_grad_nd(g32, x32, w.shape, stride, padding, dilation, groups)
        gw = gw.astype(g.dtype, copy=False)
    return gx, gw


class ConvolutionBackward0(Node):
    """``_convolution``'s node: edges to input, weight and bias (None when there is no bias).

    ``transposed``: the op was a transposed convolution, i.e. the input gradient of a convolution
    with the same weight; its gradients swap roles (input: that convolution; weight: the weight
    gradient of the convolution whose input is the output gradient).
    """

    def __init__(self, x, weight, bias, stride, padding, dilation, groups, transposed=False):
        super().__init__(_t(x), _t(weight), _t(bias))
        dim = weight.ndim - 2
        self.params = (
            _expand(stride, dim),
            _expand(padding, dim),
            _expand(dilation, dim),
            groups,
        )
        self.transposed = transposed
        self.x = self.save(x)  # torch saves both, whichever gradients are needed
        self.w = self.save(weight)
        self.x_shape, self.w_shape = tuple(x.shape), tuple(weight.shape)

    def backward(self, g):
        stride, padding, dilation, groups = self.params
        x = self.x.unpack() if self.x is not None else np.zeros(self.x_shape, dtype=g.dtype)
        w = self.w.unpack() if self.w is not None else np.zeros(self.w_shape, dtype=g.dtype)
        g = np.asarray(g)
        axes = (0,) + tuple(range(2, g.ndim))
        gb = g.sum(axis=axes) if self.needs_grad(2) else None
        if self.transposed or w.ndim != 4 and w.ndim != 3:
            gx, gw = self._backward_nd(g, x, w)
            return (gx, gw, gb)
        one_d = w.ndim == 3
        if one_d:  # a 1-d convolution is a 2-d one on a height-1 image
            x, w, g = x[:, :, None, :], w[:, :, None, :], g[:, :, None, :]
            stride, padding, dilation = [1, *stride], [0, *padding], [1, *dilation]
        gx, gw = conv2d_backward(
            g,
            x,
            w,
            stride,
            padding,
            dilation,
            groups,
            need_input=self.needs_grad(0),
            need_weight=self.needs_grad(1),
        )
        if one_d:
            gx = None if gx is None else gx[:, :, 0, :]
            gw = None if gw is None else gw[:, :, 0, :]
        return (gx, gw, gb)

    def _backward_nd(self, g, x, w):
        """Any dims, plain or transposed: im2col/col2im and matrix products."""
        from ..nn._conv_kernels import conv_input_grad_nd, conv_nd, conv_weight_grad_nd

        stride, padding, dilation, groups = self.params
        ct = _compute_dtype(g.dtype)
        g32, x32, w32 = (a.astype(ct, copy=False) for a in (g, x, w))
        gx = gw = None
        if self.transposed:  # out = conv_input_grad(x, w): x plays the convolution's output
            if self.needs_grad(0):  # an output_padding >= stride adds blocks: crop them
                if w.ndim == 4:  # 2-d: the fast forward kernels
                    from ..nn._conv_kernels import conv2d

                    ph, pw = padding
                    pads = (ph, ph, pw, pw)
                    gx = conv2d(g32, w32, None, tuple(stride), pads, tuple(dilation), groups)
                else:
                    gx = conv_nd(g32, w32, stride, padding, dilation, groups)
                gx = gx[(slice(None), slice(None), *(slice(0, s) for s in x.shape[2:]))]
            if self.needs_grad(1):
                gw = conv_weight_grad_nd(x32, g32, w.shape, stride, padding, dilation, groups)
        else:
            if self.needs_grad(0):
                gx = conv_input_grad_nd(g32, w32, x.shape[2:], stride, padding, dilation, groups)
            if self.needs_grad(1):
                gw = conv_weight_grad_nd(g32, x32, w.shape, stride, padding, dilation, groups)
        return (
            None if gx is None else gx.astype(g.dtype, copy=False),
            None if gw is None else gw.astype(g.dtype, copy=False),
        )


def convolution_node(out, x, weight, bias, stride, padding, dilation, groups, *rest, **kwargs):
    """``make_node`` for ``tensorlab.nn.functional._convolution``."""
    return ConvolutionBackward0(x, weight, bias, stride, padding, dilation, groups)


def convolution_transpose_node(
    out, x, weight, bias, stride, padding, dilation, output_padding, groups, **kwargs
):
    """``make_node`` for ``tensorlab.nn._conv_transpose._convolution_transpose``."""
    return ConvolutionBackward0(x, weight, bias, stride, padding, dilation, groups, True)


# ---------------------------------------------------------------------------------------------
# padding
# ---------------------------------------------------------------------------------------------


def pad_backward(g, in_shape, pairs, mode: str) -> np.ndarray:
    """Gradient of a padding of the last ``len(pairs)`` dims: each input element collects the
    gradient of every output position that shows it."""
    from ..nn._conv_kernels import pad_source_index

    lead = len(in_shape) - len(pairs)
    g = np.asarray(g)
    for i, (before, after) in enumerate(pairs):
        d = lead + i
        size = in_shape[d]
        src = pad_source_index(size, before, after, mode)
        moved = np.moveaxis(g, d, 0)
        out = np.zeros((size,) + moved.shape[1:], dtype=g.dtype)
        keep = src >= 0
        np.add.at(out, src[keep], moved[keep])
        g = np.moveaxis(out, 0, d)
    return g


class PadBackward(Node):
    """``ConstantPadNdBackward0``, ``ReflectionPad2DBackward0``, ``ReplicationPad1DBackward0``...
    (circular padding is made of copies in PyTorch: its node is a ``CopySlices``)."""

    def __init__(self, name: str, x, pads, mode: str):
        super().__init__(_t(x))
        self._name, self.mode = name, mode
        k = len(pads) // 2
        self.pairs = [(pads[2 * (k - 1 - i)], pads[2 * (k - 1 - i) + 1]) for i in range(k)]

    def backward(self, g):
        return (pad_backward(g, self._input_meta[0][0], self.pairs, self.mode),)


def constant_pad_node(out, x, pads, value=0, **kwargs):
    return PadBackward("ConstantPadNdBackward0", x, list(pads), "constant")


def reflect_replicate_node(out, x, pads, mode, **kwargs):
    kind = "Reflection" if mode == "reflect" else "Replication"
    return PadBackward(f"{kind}Pad{len(pads) // 2}DBackward0", x, list(pads), mode)


def circular_pad_node(out, x, pads, **kwargs):
    return PadBackward("CopySlices", x, list(pads), "circular")


# ---------------------------------------------------------------------------------------------
# im2col / col2im (F.unfold / F.fold): each is the other's gradient
# ---------------------------------------------------------------------------------------------


class Im2ColBackward0(Node):
    """``F.unfold``: the gradient of the columns is folded back (overlaps add up)."""

    def __init__(self, x, kernel, dilation, padding, stride):
        super().__init__(_t(x))
        self.args = (kernel, dilation, padding, stride)
        self.in_shape = tuple(x.shape)

    def backward(self, g):
        from ..nn._conv_kernels import col2im

        kernel, dilation, padding, stride = self.args
        g = np.asarray(g)
        batched = len(self.in_shape) == 4
        if not batched:
            g = g[None]
        n, c = g.shape[0], self.in_shape[-3]
        out_hw = self.in_shape[-2:]
        blocks = [
            (s + 2 * p - d * (k - 1) - 1) // st + 1
            for s, k, d, p, st in zip(out_hw, kernel, dilation, padding, stride)
        ]
        cols = g.reshape(n, c, *kernel, *blocks)
        gx = col2im(cols, out_hw, kernel, dilation, padding, stride)
        return (gx if batched else gx[0],)


class Col2ImBackward0(Node):
    """``F.fold``: the gradient of the image is unfolded (each column reads its block)."""

    def __init__(self, x, output_size, kernel, dilation, padding, stride):
        super().__init__(_t(x))
        self.args = (kernel, dilation, padding, stride)
        self.in_shape = tuple(x.shape)

    def backward(self, g):
        from ..nn._conv_kernels import im2col

        kernel, dilation, padding, stride = self.args
        g = np.asarray(g)
        batched = len(self.in_shape) == 3
        if not batched:
            g = g[None]
        cols = im2col(g, kernel, dilation, padding, stride)
        gx = cols.reshape(g.shape[0], *self.in_shape[-2:])
        return (gx if batched else gx[0],)


def im2col_node(out, x, kernel, dilation, padding, stride, **kwargs):
    return Im2ColBackward0(x, kernel, dilation, padding, stride)


def col2im_node(out, x, output_size, kernel, dilation, padding, stride, **kwargs):
    return Col2ImBackward0(x, output_size, kernel, dilation, padding, stride)
