"""Random sampling into existing tensors and from parameter tensors, as ATen's
``Distributions.cpp``: ``Tensor.uniform_``/``normal_``/``random_``/``bernoulli_``/``exponential_``/
``geometric_``/``log_normal_``/``cauchy_``, ``torch.normal``, ``torch.bernoulli``,
``torch.multinomial``.

The draws are PyTorch's, bit for bit (:mod:`tensorlab.random`): the same words of the same
generator, turned into numbers by the same formulas, written in the same order (memory order:
PyTorch's TensorIterator walks a strided tensor by decreasing stride). The arguments, checks,
messages, dtypes, shapes and ``grad_fn`` names are PyTorch's. A random fill cuts the gradient to
what it overwrote (its node passes zero back), as in PyTorch.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, check_inplace
from ..autograd.graph import Node, differentiable
from ..autograd.views import inplace_differentiable
from ..random import _gen
from ..random import _kernels as K
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
    return _put(self, values)


def _order(t: Tensor) -> list:
    """The order in which PyTorch's TensorIterator visits a tensor's dims, outermost first:
    by decreasing stride (memory order), size-1 dims and ties keeping their place."""
    dims = [d for d in range(len(t._shape)) if t._shape[d] != 1]
    ones = [d for d in range(len(t._shape)) if t._shape[d] == 1]
    st = t.stride()
    return ones + sorted(dims, key=lambda d: -abs(st[d]))


def _in_order(arr: np.ndarray, t: Tensor) -> np.ndarray:
    """``arr`` (in ``t``'s shape) viewed so that C order is PyTorch's fill order of ``t``."""
    return arr if t.is_contiguous() else np.transpose(arr, _order(t))


def _put(t: Tensor, values) -> Tensor:
    """Write flat ``values`` (in PyTorch's fill order) into ``t``; no checks, no autograd."""
    if t.numel():
        view = _in_order(t._np(), t)
        values = np.asarray(values)
        if values.dtype == np.float64 and t.dtype is D.float16:
            values = values.astype(np.float32)  # c10::Half from a double goes through float
        view[...] = values.astype(t.dtype.np, copy=False).reshape(view.shape)
    return t


# The fills without autograd (also what the factories and nn.init call): PyTorch's kernels.
def _fill_uniform(t: Tensor, low=0.0, high=1.0, generator=None) -> Tensor:
    return _put(t, K.uniform(_gen(generator), t.numel(), t.dtype, low, high))


def _fill_normal(t: Tensor, mean=0.0, std=1.0, generator=None) -> Tensor:
    g = _gen(generator)
    return _put(t, K.normal(g, t.numel(), t.dtype, mean, std, t.is_contiguous()))


def _fill_int(t: Tensor, low: int, high: int, generator=None) -> Tensor:
    _check_range(low, high, t.dtype)
    return _put(t, K.int_from_to(_gen(generator), t.numel(), low, high))


def _check_range(low: int, high: int, dt: D.dtype) -> None:
    """``random_(from, to)``'s check that ``from`` and ``to - 1`` fit the dtype."""
    if dt is D.bool_:
        lo, hi = 0, 1
    elif dt.is_floating_point:
        info = np.finfo(dt.np)
        lo, hi = -float(info.max), float(info.max)
    else:
        info = np.iinfo(dt.np)
        lo, hi = int(info.min), int(info.max)
    name = D.TYPE_NAME[dt.name]
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")


def _fill_bernoulli(t: Tensor, p: float, generator=None) -> Tensor:
    return _put(t, K.bernoulli_scalar(_gen(generator), t.numel(), p))


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
    check_inplace(self)
    return _fill_uniform(self, from_, to, generator)


@tensor_method("normal_", function=False)
@inplace_differentiable(_filled_by("NormalBackward0"))
def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator=None) -> Tensor:
    """Fill with numbers drawn from the normal distribution N(mean, std²)."""
    _float_only(self, "normal_kernel_cpu")
    _check_std(std)
    check_inplace(self)
    return _fill_normal(self, mean, std, generator)


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
        check_inplace(self)
        return _put(self, K.random_full(_gen(generator), self.numel(), self.dtype))
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
    check_inplace(self)
    return _fill_int(self, low, high, generator)


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
    check_inplace(self)
    if isinstance(p, Tensor):
        probs = _in_order(np.broadcast_to(p._np(), self._shape), self)
        return _put(self, K.bernoulli_tensor(_gen(generator), probs))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    return _fill_bernoulli(self, p, generator)


@tensor_method("exponential_", function=False)
@inplace_differentiable(_filled_by("ExponentialBackward0"))
def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    _float_only(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    return _write(self, K.exponential(_gen(generator), self.numel(), lambd))


@tensor_method("geometric_", function=False)
@inplace_differentiable(_filled_by("GeometricBackward0"))
def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    return _write(self, K.geometric(_gen(generator), self.numel(), p))


@tensor_method("log_normal_", function=False)
@inplace_differentiable(_filled_by("LogNormalBackward0"))
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    _float_only(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    return _write(self, K.log_normal(_gen(generator), self.numel(), mean, std))


@tensor_method("cauchy_", function=False)
@inplace_differentiable(_filled_by("CauchyBackward0"))
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    _float_only(self, "cauchy_cpu")
    return _write(self, K.cauchy(_gen(generator), self.numel(), median, sigma))


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
    g = _gen(generator)
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
        t = _fill_normal(Tensor._from_array(np.empty(shape, d.np), d), mean, std, g)
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
    # ATen's normal_out_impl: N(0, 1) (N(0, std) for a number std) in the result's dtype, then
    # ``mul_(std)`` and ``add_(mean)`` as separate, rounded steps
    dt = ref.dtype.np
    draws = K.normal(g, math.prod(shape), ref.dtype, 0.0, 1.0 if s else std, True)
    values = draws.reshape(shape)
    if s:
        values = values * std._np().astype(dt)
    values = values + (mean._np().astype(dt) if m else np.asarray(mean).astype(dt))
    t = Tensor._from_array(np.asarray(values, dtype=dt), ref.dtype)
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
        probs = input._np()
        if probs.size and ((probs < 0) | (probs > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        draws = K.bernoulli_tensor(_gen(generator), _in_order(input._np(), input))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        draws = K.bernoulli_scalar(_gen(generator), input.numel(), p)
    from .creation import _into_out

    result = Tensor._from_array(np.empty(input._shape, input.dtype.np), input.dtype)
    if input.is_contiguous() or not input.numel():
        _put(result, draws)
    else:  # empty_like keeps a dense layout; fill in the input's memory order
        _in_order(result._np(), input)[...] = draws.reshape(_in_order(input._np(), input).shape)

    return _into_out("bernoulli", result, out)


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
    probs = np.ascontiguousarray(input._np()).reshape(-1, input._shape[-1])
    n_cat = probs.shape[1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    for row in probs:
        if row.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    picks = K.multinomial(_gen(generator), probs, num_samples, replacement)
    out = picks.reshape(*input._shape[:-1], num_samples)
    return Tensor._from_array(out, D.int64)


@tensor_method("dist")
def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast)."""
    return (input - other).norm(p)
