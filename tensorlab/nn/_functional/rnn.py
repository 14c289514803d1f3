"""The recurrent kernels torch keeps in ATen (``aten/src/ATen/native/RNN.cpp``): the cells
``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell`` and the multi-layer loops
``rnn_tanh``, ``rnn_relu``, ``lstm``, ``gru`` (``torch._VF.*``, what ``nn.RNN``/``nn.LSTM``/
``nn.GRU`` call).

The cells are built from differentiable tensorlab ops (``linear``, ``sigmoid``, ``tanh``,
``chunk``), so autograd runs back through them with no formula of their own. Each layer and
direction of the multi-layer loops is one node (:mod:`._rnn_layer`: the same arithmetic in numpy,
backward through time in one pass); layers are joined by ``dropout``, ``cat`` and ``stack`` ops.
The arithmetic follows RNN.cpp's CPU path: the input projection of a whole layer is one
product over all time steps, each step adds ``linear(h, W_hh, b_hh)``; LSTM gates are
``i, f, g, o``; GRU's are ``r, z, n`` with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` and
``h' = (h - n) * z + n``.
"""

from __future__ import annotations

from ... import _dtype as D
from ..._tensor import Tensor
from ._rnn_layer import layer as _layer
from .linear import linear

__all__ = [
    "gru",
    "gru_cell",
    "lstm",
    "lstm_cell",
    "rnn_relu",
    "rnn_relu_cell",
    "rnn_tanh",
    "rnn_tanh_cell",
]


def _stack(tensors, dim=0):
    from ..._ops.copies import stack

    return stack(tensors, dim)


def _cat(tensors, dim=0):
    from ..._ops.copies import cat

    return cat(tensors, dim)


# ---------------------------------------------------------------------------- cell checks
def _check_input(input: Tensor, input_size: int) -> None:
    if input.shape[1] != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {input_size}"
        )


def _check_hidden(input: Tensor, hx: Tensor, hidden_size: int, label: int) -> None:
    if input.shape[0] != hx.shape[0]:
        raise RuntimeError(
            f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size "
            f"{hx.shape[0]}"
        )
    if hx.shape[1] != hidden_size:
        raise RuntimeError(
            f"hidden{label} has inconsistent hidden_size: got {hx.shape[1]}, expected {hidden_size}"
        )


# ---------------------------------------------------------------------------- one step
def _simple_step(x_proj, hx, w_hh, b_hh, relu: bool):
    pre = linear(hx, w_hh, b_hh) + x_proj
    return pre.relu() if relu else pre.tanh()


def _lstm_step(x_proj, hx, cx, w_hh, b_hh, w_hr=None):
    gates = linear(hx, w_hh, b_hh) + x_proj
    i, f, g, o = gates.chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = f * cx + i * g
    hy = o * cy.tanh()
    if w_hr is not None:
        hy = linear(hy, w_hr)
    return hy, cy


def _gru_step(x_proj, hx, w_hh, b_hh):
    ir, iz, in_ = x_proj.chunk(3, 1)
    hr, hz, hn = linear(hx, w_hh, b_hh).chunk(3, 1)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + r * hn).tanh()
    return (hx - n) * z + n


# ---------------------------------------------------------------------------- cells
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` for one step (batched 2-d input)."""
    _check_input(input, w_ih.shape[1])
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return _simple_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=False)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)`` for one step."""
    _check_input(input, w_ih.shape[1])
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return _simple_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu=True)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> tuple[Tensor, Tensor]:
    """One LSTM step: ``hx`` is ``(h, c)``; returns ``(h', c')``."""
    if len(hx) != 2:
        raise RuntimeError("lstm_cell: Expected hx to have 2 elements")
    _check_input(input, w_ih.shape[1])
    _check_hidden(input, hx[0], w_hh.shape[1], 0)
    _check_hidden(input, hx[1], w_hh.shape[1], 1)
    return _lstm_step(linear(input, w_ih, b_ih), hx[0], hx[1], w_hh, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None) -> Tensor:
    """One GRU step (gates ``r, z, n``)."""
    _check_input(input, w_ih.shape[1])
    _check_hidden(input, hx, w_hh.shape[1], 0)
    return _gru_step(linear(input, w_ih, b_ih), hx, w_hh, b_hh)


# ---------------------------------------------------------------------------- full layers
def _unpack(params, has_biases: bool, n_dirs: int, num_layers: int, proj: bool):
    """Group the flat weight list as RNN.cpp's ``gather_params``: per (layer, direction)
    ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` (missing ones ``None``)."""
    per = (4 if has_biases else 2) + (1 if proj else 0)
    params = list(params)
    if len(params) != per * n_dirs * num_layers:
        raise RuntimeError(
            f"got an incorrect number of RNN parameters: expected {per * n_dirs * num_layers}, "
            f"got {len(params)}"
        )
    groups = []
    for k in range(0, len(params), per):
        g = params[k : k + per]
        if has_biases:
            w_ih, w_hh, b_ih, b_hh = g[:4]
        else:
            (w_ih, w_hh), b_ih, b_hh = g[:2], None, None
        groups.append((w_ih, w_hh, b_ih, b_hh, g[-1] if proj else None))
    return groups


def _run(kind, input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first, onednn=False):  # fmt: skip
    """The multi-layer loop shared by ``rnn_*``, ``lstm`` and ``gru``. ``hx`` is one tensor
    (``(layers*dirs, B, H)``) or, for ``lstm``, a pair ``(h0, c0)``. ``onednn``: each layer's
    and direction's output node takes torch's oneDNN name (see ``lstm``)."""
    from .activation import dropout as _dropout

    if batch_first:
        input = input.transpose(0, 1)
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    n_dirs = 2 if bidirectional else 1
    is_lstm = kind == "lstm"
    h0 = hx[0] if is_lstm else hx
    c0 = hx[1] if is_lstm else None
    groups = _unpack(params, has_biases, n_dirs, num_layers, is_lstm and _has_proj(params, hx))
    layer_input = input
    h_n, c_n = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(n_dirs):
            idx = layer * n_dirs + d
            w_ih, w_hh, b_ih, b_hh, w_hr = groups[idx]
            name = "MkldnnRnnLayerBackward0" if onednn else "StackBackward0"
            y, h, c = _layer(kind, layer_input, h0[idx], c0[idx] if is_lstm else None,
                             w_ih, w_hh, b_ih, b_hh, w_hr, d == 1, name)  # fmt: skip
            outs.append(y)
            h_n.append(h)
            if is_lstm:
                c_n.append(c)
        layer_input = outs[0] if n_dirs == 1 else _cat(outs, 2)
        if dropout != 0 and train and layer < num_layers - 1:
            layer_input = _dropout(layer_input, dropout, True)
    output = layer_input
    if batch_first:  # RNN.cpp turns rnn/gru results in place (``TransposeBackward1``), lstm's not
        output = output.transpose(0, 1) if is_lstm else output.transpose_(0, 1)
    if is_lstm:
        return output, _stack(h_n, 0), _stack(c_n, 0)
    return output, _stack(h_n, 0)


def _has_proj(params, hx) -> bool:
    """An LSTM has projections when ``h0``'s last size differs from ``c0``'s."""
    return hx[0].shape[-1] != hx[1].shape[-1]


def rnn_tanh(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):  # fmt: skip
    """``torch.rnn_tanh`` (the ``_VF`` call of ``nn.RNN``): returns ``(output, h_n)``."""
    return _run("rnn_tanh", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)  # fmt: skip


def rnn_relu(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
             batch_first):  # fmt: skip
    """``torch.rnn_relu``: as ``rnn_tanh`` with ``relu``."""
    return _run("rnn_relu", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)  # fmt: skip


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
         batch_first):  # fmt: skip
    """``torch.lstm``: ``hx`` is ``(h0, c0)``; returns ``(output, h_n, c_n)``.

    torch runs a float32 LSTM on the CPU through oneDNN, one ``mkldnn_rnn_layer`` per layer and
    direction: each one's output node is then ``MkldnnRnnLayerBackward0`` (the values and
    gradients are the same); projections are not supported there, and torch says so (once)."""
    onednn = input.dtype is D.float32 and input.numel() != 0
    if onednn and _has_proj(params, hx):
        if not _WARNED:
            import warnings

            _WARNED.append(True)  # torch's TORCH_WARN_ONCE
            warnings.warn(
                "LSTM with projections is not supported with oneDNN. Using default implementation.",
                UserWarning,
                stacklevel=2,  # LSTM.forward's call, where torch's warning points too
            )
        onednn = False
    return _run("lstm", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first, onednn)  # fmt: skip


_WARNED: list = []


def gru(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
        batch_first):  # fmt: skip
    """``torch.gru``: returns ``(output, h_n)``."""
    return _run("gru", input, hx, params, has_biases, num_layers, dropout, train,
                bidirectional, batch_first)  # fmt: skip
