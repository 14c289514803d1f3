"""tensorlab: PyTorch's tensor semantics on numpy, made visible.

``import tensorlab as torch`` runs the taught subset of PyTorch unchanged: the same values, dtypes,
shapes, strides, storage offsets, sharing of storage, and exceptions. This module imports only
numpy; figures (``tensorlab.viz``), widgets and grading import their heavy dependencies lazily.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math

from . import _device, _dtype
from . import _ops as _ops
from ._device import device, layout, strided
from ._dtype import (
    bool_ as bool,
)
from ._dtype import dtype as dtype
from ._dtype import (
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from ._ops.creation import (
    Generator,
    arange,
    as_tensor,
    asarray,
    default_generator,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    tensor,
    zeros,
    zeros_like,
)
from ._ops.tensor_new import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    tensortype,
)
from ._storage import UntypedStorage
from ._tensor import MODULE_FUNCTIONS as _MODULE_FUNCTIONS
from ._tensor import Size, Tensor, contiguous_format, is_tensor, memory_format, preserve_format
from ._tensor import channels_last as channels_last
from ._tensor import channels_last_3d as channels_last_3d
from ._version import __version__

half = float16
float = float32
double = float64
short = int16
int = int32
long = int64


def get_default_device() -> device:
    """The device factory functions use without ``device=`` (tensorlab's only one: the cpu)."""
    return _device.get_default_device()


def set_default_tensor_type(t) -> None:
    """Deprecated in PyTorch (2.1): sets the default float dtype from a legacy type
    (``tensorlab.DoubleTensor`` or ``'torch.DoubleTensor'``)."""
    import warnings

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        d = _dtype._BY_LEGACY.get(t.split(".")[-1])
        if d is None:
            raise TypeError(f"invalid type: '{t}'")
    elif isinstance(t, tensortype):
        d = t.dtype
    else:
        raise TypeError(
            "invalid type object: only floating-point types are supported as the default type"
        )
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _dtype.set_default_dtype(d)


def set_default_device(device) -> None:
    """Later factory calls without ``device=`` use ``device`` (``'cuda'`` then raises there)."""
    _device.set_default_device(device)


# Public classes show their public path (``<class 'tensorlab.Tensor'>``), as PyTorch's do.
for _cls in (Tensor, Size, dtype, device, memory_format, layout, finfo, iinfo):
    _cls.__module__ = "tensorlab"
UntypedStorage.__module__ = "tensorlab"
Generator.__module__ = "tensorlab._C"  # as torch.Generator is torch._C.Generator (issue 38)
del _cls


def result_type(tensor1, tensor2) -> dtype:
    """The dtype ``tensor1 op tensor2`` would have (tensors or Python scalars)."""
    return _dtype.result_type(tensor1, tensor2)


def is_floating_point(input: Tensor) -> _builtins.bool:
    return input.is_floating_point()


def numel(input: Tensor) -> _builtins.int:
    return input.numel()


def _method_function(name: str):
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
            )
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tensorlab.{name}(input, ...)`` is ``input.{name}(...)``."
    return fn


for _name in (
    "reshape flatten unflatten squeeze unsqueeze transpose swapaxes swapdims t permute movedim "
    "moveaxis narrow select unbind chunk split tensor_split clone detach broadcast_to"
).split():
    globals()[_name] = _method_function(_name)

for _name, _fn in _MODULE_FUNCTIONS.items():
    globals().setdefault(_name, _fn)

del _name, _fn

from ._ops.views import split, tensor_split  # noqa: E402  (torch's own argument names)
from .functional import einsum  # noqa: E402  (torch.einsum is torch.functional.einsum)
from .storage import TypedStorage  # noqa: E402  (what the deprecated Tensor.storage() returns)

# Python's constants, as ``torch`` re-exports them (``torch.nan``, ``torch.inf``, ``torch.pi``...)
e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None


def _activation_method(name: str):
    """``x.softmax(dim)``/``x.log_softmax(dim)``: the functional form, loaded on first use."""

    def method(self, dim=None, dtype=None):
        from .nn._functional import activation

        return getattr(activation, "torch_" + name)(self, dim, dtype=dtype)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``x.{name}(dim, dtype=None)`` is ``tensorlab.{name}(x, dim, dtype)``."
    return method


def _linalg_method(name: str, target: str):
    """``x.det()``/``x.inverse()``: ``tensorlab.linalg``'s function, loaded on first use."""

    def method(self):
        from . import linalg

        return getattr(linalg, target)(self)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``x.{name}()`` is ``tensorlab.linalg.{target}(x)``."
    return method


Tensor.det = _linalg_method("det", "det")
Tensor.inverse = _linalg_method("inverse", "inv")
Tensor.logdet = _linalg_method("logdet", "logdet")
Tensor.softmax = _activation_method("softmax")
Tensor.log_softmax = _activation_method("log_softmax")

# Subpackages and helpers that import heavier things load on first use, so that
# ``import tensorlab`` stays fast and never imports matplotlib, scipy, ipywidgets or nbclient.
_LAZY = {
    "nn": ("tensorlab.nn", None),
    "optim": ("tensorlab.optim", None),
    "linalg": ("tensorlab.linalg", None),  # torch.linalg (numpy's LAPACK; loaded on first use)
    "det": ("tensorlab.linalg", "det"),
    "inverse": ("tensorlab.linalg", "inv"),
    "logdet": ("tensorlab.linalg", "logdet"),
    "signal": ("tensorlab.signal", None),
    "viz": ("tensorlab.viz", None),
    "widgets": ("tensorlab.widgets", None),
    "grading": ("tensorlab.grading", None),
    "autograd": ("tensorlab.autograd", None),
    "cuda": ("tensorlab.cuda", None),
    "accelerator": ("tensorlab.accelerator", None),
    "backends": ("tensorlab.backends", None),
    "utils": ("tensorlab.utils", None),
    "explain": ("tensorlab.explain", None),
    "explain_view": ("tensorlab.explain", "explain_view"),
    "explain_unfold": ("tensorlab.explain", "explain_unfold"),
    "explain_as_strided": ("tensorlab.explain", "explain_as_strided"),
    "explain_im2col": ("tensorlab.explain", "explain_im2col"),
    "explain_conv": ("tensorlab.explain", "explain_conv"),
    "explain_conv_matmul": ("tensorlab.explain", "explain_conv_matmul"),
    "explain_conv_transpose": ("tensorlab.explain", "explain_conv_transpose"),
    "explain_errors": ("tensorlab.explain", "explain_errors"),
    "load_ipython_extension": ("tensorlab.explain.errors", "load_ipython_extension"),
    "unload_ipython_extension": ("tensorlab.explain.errors", "unload_ipython_extension"),
    "interop": ("tensorlab.interop", None),
    "from_torch": ("tensorlab.interop", "from_torch"),
    "to_torch": ("tensorlab.interop", "to_torch"),
    "check": ("tensorlab.grading", "check"),
    "pixel_shuffle": ("tensorlab.nn._functional.pixelshuffle", "pixel_shuffle"),
    "pixel_unshuffle": ("tensorlab.nn._functional.pixelshuffle", "pixel_unshuffle"),
    "set_printoptions": ("tensorlab._printing", "set_printoptions"),
    "no_grad": ("tensorlab.autograd", "no_grad"),
    "enable_grad": ("tensorlab.autograd", "enable_grad"),
    "is_grad_enabled": ("tensorlab.autograd", "is_grad_enabled"),
    "set_grad_enabled": ("tensorlab.autograd", "set_grad_enabled"),
    "inference_mode": ("tensorlab.autograd", "inference_mode"),
    "is_inference_mode_enabled": ("tensorlab.autograd", "is_inference_mode_enabled"),
    "is_inference": ("tensorlab.autograd.grad_mode", "is_inference"),
    "save": ("tensorlab.serialization", "save"),  # torch's zip format (pickle, zipfile: lazy)
    "load": ("tensorlab.serialization", "load"),
    "serialization": ("tensorlab.serialization", None),
    "softmax": ("tensorlab.nn._functional.activation", "torch_softmax"),
    "log_softmax": ("tensorlab.nn._functional.activation", "torch_log_softmax"),
    "profiler": ("tensorlab.profiler", None),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module_name, attr = _LAZY[name]
        module = importlib.import_module(module_name)
        value = module if attr is None else getattr(module, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tensorlab' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
