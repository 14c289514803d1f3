"""Random sampling into existing tensors and from parameter tensors, as ATen's
``Distributions.cpp``: ``Tensor.uniform_``/``normal_``/``random_``/``bernoulli_``/``exponential_``/
``geometric_``/``log_normal_``/``cauchy_``, ``torch.normal``, ``torch.bernoulli``,
``torch.multinomial``.

The draws come from tensorlab's generator (numpy's PCG64), so the values are tensorlab's own; the
arguments, checks, messages, dtypes, shapes and ``grad_fn`` names are PyTorch's. A random fill
cuts the gradient to what it overwrote (its node passes zero back), as in PyTorch.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, check_inplace
from ..autograd.graph import Node, differentiable
from ..autograd.views import inplace_differentiable
from ..random import _rng
from .native_functions import module_function, tensor_method


class RandomBackward(Node):
    """A random draw: the result does not depend on its inputs' values, so every input (the
    overwritten tensor, or ``normal``'s mean and std) gets a zero gradient, as in PyTorch."""

    def __init__(self, name: str, *inputs):
        super().__init__(*inputs)
        self._name = name

    def backward(self, g):
        return tuple(
            None if meta is None else np.zeros(meta[0], dtype=np.asarray(g).dtype)
            for meta in self._input_meta
        )


def _filled_by(name: str):
    """The autograd node of a random fill (``x.uniform_()``...)."""

    def make(old, *args, **kwargs):
        return RandomBackward(name, old)

    return make


def _float_only(self: Tensor, kernel: str) -> None:
    if not self.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{D.SCALAR_NAME[self.dtype.name]}'"
        )


def _write(self: Tensor, values) -> Tensor:
    check_inplace(self)
    if self.numel():
        self._np()[...] = np.asarray(values).astype(self.dtype.np, copy=False)
    return self


@tensor_method("uniform_", function=False)
@inplace_differentiable(_filled_by("UniformBackward0"))
def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator=None, **kw) -> Tensor:
    """Fill with numbers drawn uniformly from ``[from, to)``."""
    from_ = kw.pop("from", from_)
    _no_more(kw, "uniform_")
    _float_only(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(from_)} > "
            f"to={_num(to)}"
        )
    return _write(self, _rng(generator).uniform(from_, to, self._shape))


@tensor_method("normal_", function=False)
@inplace_differentiable(_filled_by("NormalBackward0"))
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with numbers drawn from the normal distribution N(mean, std²)."""
    _float_only(self, "normal_kernel_cpu")
    _check_std(std)
    return _write(self, _rng(generator).normal(mean, std, self._shape))


@tensor_method("random_", function=False)
@inplace_differentiable(_filled_by("RandomBackward0"))
def random_(self: Tensor, *args, generator=None, **kw) -> Tensor:
    """``random_()``: integers in [0, 2^digits] of the dtype; ``random_(to)``: [0, to);
    ``random_(from, to)``: [from, to)."""
    args = list(args)
    if "from" in kw:
        args.insert(0, kw.pop("from"))
    if "to" in kw:
        args.append(kw.pop("to"))
    _no_more(kw, "random_")
    if len(args) == 0:
        low, high = 0, _full_range(self.dtype)
    elif len(args) == 1:
        low, high = 0, int(args[0])
    else:
        low, high = int(args[0]), None if args[1] is None else int(args[1])
        if high is None:
            high = _full_range(self.dtype)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return _write(self, _rng(generator).integers(low, high, self._shape))


def _full_range(dt: D.dtype) -> int:
    if dt is D.bool_:
        return 2
    if dt.is_floating_point:
        return 2 ** {"float16": 11, "float32": 24, "float64": 53}[dt.name] + 1
    return int(np.iinfo(dt.np).max) + 1


@tensor_method("bernoulli_", function=False)
@inplace_differentiable(
    lambda old, p=0.5, **kw: RandomBackward(
        "BernoulliBackward1" if isinstance(p, Tensor) else "BernoulliBackward2", old
    )
)
def bernoulli_(self: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 draws that are 1 with probability ``p`` (a number or a tensor)."""
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._np().astype(np.float64), self._shape)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        probs = p
    return _write(self, _rng(generator).random(self._shape) < probs)


@tensor_method("exponential_", function=False)
@inplace_differentiable(_filled_by("ExponentialBackward0"))
def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    _float_only(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return _write(self, _rng(generator).exponential(1.0 / lambd, self._shape))


@tensor_method("geometric_", function=False)
@inplace_differentiable(_filled_by("GeometricBackward0"))
def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return _write(self, _rng(generator).geometric(p, self._shape))


@tensor_method("log_normal_", function=False)
@inplace_differentiable(_filled_by("LogNormalBackward0"))
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    _float_only(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return _write(self, _rng(generator).lognormal(mean, std, self._shape))


@tensor_method("cauchy_", function=False)
@inplace_differentiable(_filled_by("CauchyBackward0"))
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    _float_only(self, "cauchy_cpu")
    return _write(self, median + sigma * _rng(generator).standard_cauchy(self._shape))


def _num(v) -> str:
    """A number as PyTorch's messages print it (``1.5``, ``-1``, ``2``)."""
    v = float(v)
    return str(int(v)) if v.is_integer() else repr(v)


def _no_more(kw: dict, name: str) -> None:
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")


def _check_std(std) -> None:
    if isinstance(std, Tensor):
        if std.numel() and bool((std._np() < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")


# ---------------------------------------------------------------------------- sampling functions
_NORMAL_SIGNATURES = (
    "(Tensor mean, Tensor std, *, tensorlab.Generator generator = None, Tensor out = None)",
    "(Tensor mean, float std = 1, *, tensorlab.Generator generator = None, Tensor out = None)",
    "(float mean, Tensor std, *, tensorlab.Generator generator = None, Tensor out = None)",
    "(float mean, float std, tuple of ints size, *, tensorlab.Generator generator = None, "
    "Tensor out = None, tensorlab.dtype dtype = None, tensorlab.layout layout = None, "
    "tensorlab.device device = None, bool pin_memory = False, bool requires_grad = False)",
)


def _normal_node(result, mean, std=1.0, *args, **kwargs):
    m, s = isinstance(mean, Tensor), isinstance(std, Tensor)
    if m and s:
        return RandomBackward("NormalBackward3", mean, std)
    return RandomBackward("NormalBackward1" if m else "NormalBackward2", mean if m else std)


@module_function("normal")
@differentiable(_normal_node, "normal")
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, **options):
    """Samples of N(mean, std²): elementwise for tensor ``mean``/``std`` (broadcast), or a new
    tensor of ``size`` for two numbers."""
    from .creation import _finish, _into_out, _options, _out_dtype

    m, s = isinstance(mean, Tensor), isinstance(std, Tensor)
    g = _rng(generator)
    if not m and not s:
        if size is None or not _is_number(mean) or not _is_number(std):
            got = ", ".join(type(a).__name__ for a in (mean, std, size) if a is not None)
            raise TypeError(
                f"normal() received an invalid combination of arguments - got ({got}), but "
                "expected one of:\n" + "".join(f" * {sig}\n" for sig in _NORMAL_SIGNATURES)
            )
        requires_grad = options.pop("requires_grad", False)
        _options(
            options.pop("device", None),
            options.pop("layout", None),
            options.pop("pin_memory", False),
        )
        _no_more(options, "normal")
        _check_std(std)
        shape = tuple(int(v) for v in size)
        d = _out_dtype("normal", dtype, out, D.get_default_dtype())
        t = Tensor._from_array(np.asarray(g.normal(mean, std, shape)), d)
        return _finish(_into_out("normal", t, out), requires_grad)
    _no_more(options, "normal")
    if size is not None:
        raise TypeError("normal() got multiple values for argument 'size'")
    _check_std(std)
    from .. import _layout as L

    shape = L.broadcast_shapes(mean._shape if m else (), std._shape if s else ())
    ref = mean if m else std
    if not ref.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{D.SCALAR_NAME[ref.dtype.name]}'"
        )
    mu = mean._np() if m else mean
    sd = std._np() if s else std
    values = g.normal(0.0, 1.0, shape) * sd + mu
    t = Tensor._from_array(np.asarray(values, dtype=np.float64), ref.dtype)
    return _into_out("normal", t, out)


def _is_number(v) -> bool:
    return isinstance(
        v, (builtins.int, builtins.float, np.integer, np.floating)
    ) and not isinstance(v, builtins.bool)


@tensor_method("bernoulli")
@differentiable(
    lambda result, input, p=None, **kw: RandomBackward(
        "BernoulliBackward0" if p is None else "BernoulliBackward1", input
    ),
    "bernoulli",
)
def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:
    """0/1 draws, 1 with probability ``input`` (elementwise), or ``p`` in ``input``'s shape."""
    if not isinstance(input, Tensor):
        raise TypeError(
            f"bernoulli(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    if p is None:
        probs = input._np().astype(np.float64)
        if probs.size and ((probs < 0) | (probs > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        probs = p
    draws = _rng(generator).random(input._shape) < probs
    from .creation import _into_out

    return _into_out(
        "bernoulli", Tensor._from_array(draws.astype(input.dtype.np), input.dtype), out
    )


@tensor_method("multinomial")
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None):
    """``num_samples`` category indices per row, drawn with probabilities ∝ ``input``."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{D.SCALAR_NAME[input.dtype.name]}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    probs = input._np().astype(np.float64).reshape(-1, input._shape[-1])
    n_cat = probs.shape[1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    g = _rng(generator)
    rows = []
    for row in probs:
        total = row.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        rows.append(g.choice(n_cat, size=num_samples, replace=replacement, p=row / total))
    out = np.asarray(rows, dtype=np.int64).reshape(*input._shape[:-1], num_samples)
    return Tensor._from_array(out, D.int64)


@tensor_method("dist")
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast)."""
    return (input - other).norm(p)
