"""``RNN``, ``LSTM``, ``GRU`` and their cells (``torch/nn/modules/rnn.py``).

Parameters are named and laid out as torch's (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``weight_hr_l0`` for a projected LSTM, ``_reverse`` for the
backward direction; gates stacked ``i, f, g, o`` for LSTM and ``r, z, n`` for GRU) and
initialised as torch's: every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)),
drawn in parameter order. The forward passes call the kernels of
:mod:`tensorlab.nn._functional.rnn` (torch's ``_VF.rnn_tanh``, ``_VF.lstm``, ...). Packed
sequences are not supported.
"""

from __future__ import annotations

import math
import numbers
import warnings

from .. import init
from .._functional import rnn as _VF
from ..parameter import Parameter
from ._factory import empty_param
from .module import Module

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]


def _is_packed(input) -> bool:
    return type(input).__name__ == "PackedSequence"


class RNNBase(Module):
    """Base class of ``RNN``, ``LSTM`` and ``GRU``: the constructor checks, the parameters and
    their init, the input and hidden-state checks."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device=None,
        dtype=None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=3,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")

        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size

        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                # range() raises torch's TypeError for a float num_layers above
                w_ih = Parameter(empty_param((gate_size, layer_input_size), device, dtype))
                w_hh = Parameter(empty_param((gate_size, real_hidden_size), device, dtype))
                b_ih = Parameter(empty_param((gate_size,), device, dtype))
                b_hh = Parameter(empty_param((gate_size,), device, dtype))
                layer_params: tuple = (w_ih, w_hh, b_ih, b_hh) if bias else (w_ih, w_hh)
                if proj_size > 0:
                    w_hr = Parameter(empty_param((proj_size, hidden_size), device, dtype))
                    layer_params += (w_hr,)
                suffix = "_reverse" if direction == 1 else ""
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size > 0:
                    names += ["weight_hr_l{}{}"]
                names = [x.format(layer, suffix) for x in names]
                for name, param in zip(names, layer_params):
                    setattr(self, name, param)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    def flatten_parameters(self) -> None:
        """A no-op, as torch's on the CPU (it packs cuDNN's weight buffer on a GPU)."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, w) for w in weights] for weights in self._all_weights]

    # ------------------------------------------------------------------ checks
    def check_input(self, input, batch_sizes=None) -> None:
        w_dtype = self._flat_weights[0].dtype
        if input.dtype != w_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w_dtype}). "
                f"Convert input: input.to({w_dtype}), or convert model: model.to({input.dtype})"
            )
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}"
            )
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input, batch_sizes=None) -> tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(
        self, hx, expected_hidden_size, msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ shared forward
    def _batched(self, input, hx, name: str):
        """Unbatched 2-d input gets a batch dim (and ``hx`` its own); returns
        ``(input, hx, is_batched, batch_dim)``."""
        if _is_packed(input):
            raise NotImplementedError("tensorlab's recurrent layers take no PackedSequence")
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.dim()}D"
                + (" tensor instead" if name == "RNN" else " instead")
            )
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        elif hx is not None and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
            )
        return input, hx, is_batched, batch_dim

    def _zeros(self, input, size: int):
        num_directions = 2 if self.bidirectional else 1
        batch = input.size(0) if self.batch_first else input.size(1)
        return input.new_zeros((self.num_layers * num_directions, batch, size))


class RNN(RNNBase):
    """``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)``: an Elman
    RNN, ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        input, hx, is_batched, batch_dim = self._batched(input, hx, "RNN")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        fn = _VF.rnn_tanh if self.mode == "RNN_TANH" else _VF.rnn_relu
        output, hidden = fn(
            input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
            self.training, self.bidirectional, self.batch_first,
        )  # fmt: skip
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class LSTM(RNNBase):
    """``LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)``; ``forward(input, (h0, c0))``
    returns ``output, (h_n, c_n)``."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes=None) -> tuple[int, int, int]:
        mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def forward(self, input, hx=None):
        if _is_packed(input):
            raise NotImplementedError("tensorlab's recurrent layers take no PackedSequence")
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if hx is None:
            hx = (self._zeros(input, real_hidden_size), self._zeros(input, self.hidden_size))
        else:
            h, c = hx[0], hx[1]
            if is_batched:
                if h.dim() != 3 or c.dim() != 3:
                    raise RuntimeError(
                        "For batched 3-D input, hx and cx should also be 3-D but got "
                        f"({h.dim()}-D, {c.dim()}-D) tensors"
                    )
            else:
                if h.dim() != 2 or c.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({h.dim()}-D, {c.dim()}-D) tensors"
                    )
                h, c = h.unsqueeze(1), c.unsqueeze(1)
            hx = (h, c)
        self.check_forward_args(input, hx, None)
        output, h_n, c_n = _VF.lstm(
            input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
            self.training, self.bidirectional, self.batch_first,
        )  # fmt: skip
        if not is_batched:
            output = output.squeeze(batch_dim)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    """``GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)``: gates ``r, z, n`` with
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``."""

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        input, hx, is_batched, batch_dim = self._batched(input, hx, "GRU")
        if hx is None:
            hx = self._zeros(input, self.hidden_size)
        self.check_forward_args(input, hx, None)
        output, hidden = _VF.gru(
            input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
            self.training, self.bidirectional, self.batch_first,
        )  # fmt: skip
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


# ---------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih`` (chunks*hidden, input), ``weight_hh``
    (chunks*hidden, hidden), ``bias_ih``, ``bias_hh``; U(-1/sqrt(hidden), 1/sqrt(hidden))."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
        dtype=None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(
            empty_param((num_chunks * hidden_size, input_size), device, dtype)
        )
        self.weight_hh = Parameter(
            empty_param((num_chunks * hidden_size, hidden_size), device, dtype)
        )
        if bias:
            self.bias_ih = Parameter(empty_param((num_chunks * hidden_size,), device, dtype))
            self.bias_hh = Parameter(empty_param((num_chunks * hidden_size,), device, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input, hx, name: str):
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = input.new_zeros((input.size(0), self.hidden_size))
        elif not is_batched:
            hx = hx.unsqueeze(0)
        return input, hx, is_batched


class RNNCell(RNNCellBase):
    """``RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh', device=None,
    dtype=None)``: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
        device=None, dtype=None,
    ) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx, "RNNCell")
        if self.nonlinearity == "tanh":
            fn = _VF.rnn_tanh_cell
        elif self.nonlinearity == "relu":
            fn = _VF.rnn_relu_cell
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        ret = fn(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """``LSTMCell(input_size, hidden_size, bias=True, device=None, dtype=None)``;
    ``forward(input, (h, c))`` returns ``(h', c')``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = input.new_zeros((input.size(0), self.hidden_size))
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        ret = _VF.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    """``GRUCell(input_size, hidden_size, bias=True, device=None, dtype=None)``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, hx, is_batched = self._prepare(input, hx, "GRUCell")
        ret = _VF.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
