"""One recurrent layer (one direction) over a whole sequence, as one autograd node.

``nn.RNN``/``LSTM``/``GRU`` used to record a chain of ops per time step; a 20-step LSTM then cost
hundreds of Python-level ops forward and as many nodes backward. Here a layer is computed with
numpy directly (the input projection of every step in one product, then the gates step by step,
with the same float operations, in the same order, as the op chain: ``linear(h, W_hh, b_hh) +
x_proj`` for the gates, torch's kernels for ``sigmoid``/``tanh``), and backward through time runs
in one pass of :class:`RecurrentLayerBackward`, its weight gradients as one product each.

The node has two outputs (three for LSTM): the layer's output sequence ``(T, B, H_out)``, the last
hidden state and the last cell state, so ``h_n``/``c_n`` and the output share one backward pass.
It takes torch's name for the output's node (``StackBackward0``, or ``MkldnnRnnLayerBackward0``
for a float32 LSTM as torch's oneDNN path names it).
"""

from __future__ import annotations

import numpy as np

from ..._ops.unary import _sigmoid, _sigmoid32
from ..._tensor import Tensor, from_array
from ...autograd.grad_mode import STATE
from ...autograd.graph import Node, attach
from .._blas import matmul


def _sig(x: np.ndarray) -> np.ndarray:
    return _sigmoid32(x) if x.dtype == np.float32 else _sigmoid(x)


def _tanh(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float32:  # torch's float32 tanh: correctly rounded (as the tanh op)
        return np.tanh(x.astype(np.float64)).astype(np.float32)
    return np.tanh(x)


def _relu(x: np.ndarray) -> np.ndarray:
    from ..._ops.unary import _relu as relu

    return relu(x)


def _arr(t: Tensor | None) -> np.ndarray | None:
    return None if t is None else t._np()


def _forward(kind: str, x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, reverse: bool, keep: bool):
    """The layer's values: ``(ys, h_T, c_T, cache)``; ``cache`` (what backward needs) only when
    ``keep``. Arrays: ``x`` (T, B, I), ``h``/``c`` (B, H)."""
    T, B = x.shape[0], x.shape[1]
    xp = matmul(x.reshape(T * B, x.shape[2]), w_ih.T)  # every step's input projection at once
    if b_ih is not None:
        xp += b_ih
    xp = xp.reshape(T, B, -1)
    order = range(T - 1, -1, -1) if reverse else range(T)
    ys = np.empty((T, B, h.shape[1]), x.dtype)
    cache: dict = {"h_prev": [], "act": []} if keep else {}
    with np.errstate(all="ignore"):
        for t in order:
            if keep:
                cache["h_prev"].append(h)
            hh = matmul(h, w_hh.T)
            if b_hh is not None:
                hh += b_hh
            if kind == "gru":
                H = h.shape[1]
                r = _sig(hh[:, :H] + xp[t, :, :H])
                z = _sig(hh[:, H : 2 * H] + xp[t, :, H : 2 * H])
                hn = hh[:, 2 * H :]
                n = _tanh(xp[t, :, 2 * H :] + r * hn)
                h = (h - n) * z + n
                if keep:
                    cache["act"].append((r, z, n, hn))
            elif kind == "lstm":
                gates = hh + xp[t]
                H = c.shape[1]
                i = _sig(gates[:, :H])
                f = _sig(gates[:, H : 2 * H])
                g = _tanh(gates[:, 2 * H : 3 * H])
                o = _sig(gates[:, 3 * H :])
                c_prev = c
                c = f * c_prev + i * g
                tc = _tanh(c)
                h_raw = o * tc
                h = matmul(h_raw, w_hr.T) if w_hr is not None else h_raw
                if keep:
                    cache["act"].append((i, f, g, o, c_prev, tc, h_raw))
            else:
                pre = hh + xp[t]
                h = _relu(pre) if kind == "rnn_relu" else _tanh(pre)
                if keep:
                    cache["act"].append(h)
            ys[t] = h
    return ys, h, c, cache


class RecurrentLayerBackward(Node):
    """Backward through time for one layer and direction (see the module docstring).

    Inputs: ``(input, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)`` (``None`` where absent); outputs:
    ``(output, h_T[, c_T])``."""

    def __init__(self, kind, reverse, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, cache):
        super().__init__(x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
        self._kind, self._reverse = kind, reverse
        self._x = self.save(x)
        self._w_ih = self.save(w_ih)
        self._w_hh = self.save(w_hh)
        self._w_hr = self.save(w_hr) if w_hr is not None else None
        self._cache = cache

    def release(self) -> None:
        super().release()
        self._cache = None

    def backward(self, grads):
        from ...autograd.graph import FREED

        if self._cache is None:
            raise RuntimeError(FREED)
        g_y, g_h, g_c = (list(grads) + [None, None, None])[:3]
        x = self._x.unpack()
        w_ih, w_hh = self._w_ih.unpack(), self._w_hh.unpack()
        w_hr = self._w_hr.unpack() if self._w_hr is not None else None
        kind, cache = self._kind, self._cache
        T, B = x.shape[0], x.shape[1]
        dt = x.dtype
        h_prev, act = cache["h_prev"], cache["act"]
        h_out = h_prev[0].shape[1]
        G = w_hh.shape[0]
        dh = np.zeros((B, h_out), dt) if g_h is None else np.array(g_h, dt)
        H = G // {"lstm": 4, "gru": 3}.get(kind, 1)
        dc = None
        if kind == "lstm":
            dc = np.zeros((B, H), dt) if g_c is None else np.array(g_c, dt)
        steps = list(range(T - 1, -1, -1) if self._reverse else range(T))
        d_xp = np.empty((T, B, G), dt)  # gradient of each step's input projection
        d_hh = np.empty((T, B, G), dt) if kind == "gru" else d_xp  # ... of h W_hh^T + b_hh
        d_proj = np.empty((T, B, h_out), dt) if w_hr is not None else None
        with np.errstate(all="ignore"):
            for k in range(T - 1, -1, -1):  # processing order reversed
                t = steps[k]
                dh = dh + g_y[t] if g_y is not None else dh
                if kind == "lstm":
                    i, f, g, o, c_prev, tc, h_raw = act[k]
                    if w_hr is not None:
                        d_proj[t] = dh
                        dh = matmul(dh, w_hr)
                    do = dh * tc
                    dc = dc + dh * o * (1 - tc * tc)
                    gates = d_xp[t]
                    gates[:, :H] = dc * g * i * (1 - i)
                    gates[:, H : 2 * H] = dc * c_prev * f * (1 - f)
                    gates[:, 2 * H : 3 * H] = dc * i * (1 - g * g)
                    gates[:, 3 * H :] = do * o * (1 - o)
                    dc = dc * f
                    dh = matmul(gates, w_hh)
                elif kind == "gru":
                    r, z, n, hn = act[k]
                    hp = h_prev[k]
                    dn = dh * (1 - z) * (1 - n * n)
                    dz = dh * (hp - n) * z * (1 - z)
                    dr = dn * hn * r * (1 - r)
                    xg, hg = d_xp[t], d_hh[t]
                    xg[:, :H] = dr
                    xg[:, H : 2 * H] = dz
                    xg[:, 2 * H :] = dn
                    hg[:, : 2 * H] = xg[:, : 2 * H]
                    hg[:, 2 * H :] = dn * r
                    dh = dh * z + matmul(hg, w_hh)
                else:
                    h = act[k]
                    if kind == "rnn_relu":
                        da = dh * (h > 0)
                    else:
                        da = dh * (1 - h * h)
                    d_xp[t] = da
                    dh = matmul(da, w_hh)
        flat_xp = d_xp.reshape(T * B, G)
        flat_hh = d_hh.reshape(T * B, G)
        # h_{t-1} of each step, in the time order of d_xp
        hp_all = np.empty((T, B, h_out), dt)
        for k, t in enumerate(steps):
            hp_all[t] = h_prev[k]
        out = [None] * 8
        if self.needs_grad(0):
            out[0] = matmul(flat_xp, w_ih).reshape(x.shape)
        if self.needs_grad(1):
            out[1] = dh
        if self.needs_grad(2):
            out[2] = dc
        if self.needs_grad(3):
            out[3] = matmul(flat_xp.T, x.reshape(T * B, -1))
        if self.needs_grad(4):
            out[4] = matmul(flat_hh.T, hp_all.reshape(T * B, h_out))
        if self.needs_grad(5):
            out[5] = flat_xp.sum(0)
        if self.needs_grad(6):
            out[6] = flat_hh.sum(0)
        if self.needs_grad(7):
            raw = np.empty((T, B, H), dt)
            for k, t in enumerate(steps):
                raw[t] = act[k][6]
            out[7] = matmul(d_proj.reshape(T * B, h_out).T, raw.reshape(T * B, H))
        return tuple(out)


def layer(kind, x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr, reverse: bool, name: str):
    """One layer over the sequence ``x`` (T, B, I): ``(output, h_T, c_T)`` as tensors (``c_T``
    None but for LSTM), recorded as one :class:`RecurrentLayerBackward` named ``name``."""
    inputs = (x, h0, c0, w_ih, w_hh, b_ih, b_hh, w_hr)
    record = STATE.enabled and any(t is not None and t.requires_grad for t in inputs)
    ys, h, c, cache = _forward(
        kind, x._np(), h0._np(), _arr(c0), w_ih._np(), w_hh._np(), _arr(b_ih), _arr(b_hh),
        _arr(w_hr), reverse, record,
    )  # fmt: skip
    dtype = x.dtype
    outs = [from_array(ys, dtype, fresh=True), from_array(np.array(h), dtype)]
    if c is not None:
        outs.append(from_array(np.array(c), dtype))
    if record:
        node = RecurrentLayerBackward(kind, reverse, *inputs, cache)
        node._n_outputs = len(outs)
        node._output_meta = tuple((o._shape, o._dtype) for o in outs)
        node._name = name
        for i, o in enumerate(outs):
            attach(o, node)
            if i:
                o._output_nr = (node, i)
    return outs[0], outs[1], outs[2] if c is not None else None
