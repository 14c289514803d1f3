"""Argument parsing with PyTorch's ``TypeError`` messages for the functions of ``nn.functional``.

PyTorch's C++ argument parser accepts an int where a "tuple of ints" is expected, checks only the
*first* element of a sequence when choosing a signature, and reports the remaining bad elements
while unpacking. These helpers reproduce that behaviour and those messages.
"""

from __future__ import annotations

import builtins

import numpy as np

from .._tensor import Tensor

CONV_SIGNATURES = (
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    "tuple of ints padding = 0, tuple of ints dilation = 1, int groups = 1)",
    "(Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, "
    'str padding = "valid", tuple of ints dilation = 1, int groups = 1)',
)
CONV_PARAMS = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")
CONV_DEFAULTS = {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1}


def type_name(value) -> str:
    """How PyTorch names the type of an argument in its messages (``Tensor``, ``numpy.ndarray``)."""
    if isinstance(value, Tensor):
        return type(value).__name__
    t = type(value)
    if t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def is_int_like(value) -> bool:
    """An int for PyTorch's parser: Python/numpy ints (not bools), integer 1-element tensors."""
    if isinstance(value, (builtins.bool, np.bool_)):
        return False
    if isinstance(value, (builtins.int, np.integer)):
        return True
    if isinstance(value, Tensor):
        return (
            value.numel() == 1 and not value.dtype.is_floating_point and value.dtype.name != "bool"
        )
    return False


def _as_int(value) -> int:
    return builtins.int(value.item()) if isinstance(value, Tensor) else builtins.int(value)


def invalid_combination(fn: str, args, kwargs, signatures=CONV_SIGNATURES) -> TypeError:
    """``fn() received an invalid combination of arguments - got (...), but expected one of: ...``."""
    got = [type_name(a) for a in args]
    got += [f"{k}={type_name(v)}" for k, v in reversed(list(kwargs.items()))]
    lines = [
        f"{fn}() received an invalid combination of arguments - got ({', '.join(got)}), "
        "but expected one of:"
    ]
    lines += [f" * {s}" for s in signatures]
    return TypeError("\n".join(lines) + "\n")


def _int_list_matches(value) -> bool:
    """Would PyTorch's parser accept ``value`` for a ``tuple of ints`` parameter (first look)?"""
    if is_int_like(value):
        return True
    if isinstance(value, (tuple, list)):
        return len(value) == 0 or is_int_like(value[0])
    return False


def unpack_int_list(fn: str, name: str, value) -> list[int]:
    """The ints of an accepted ``tuple of ints`` argument (an int stays a 1-list here)."""
    if not isinstance(value, (tuple, list)):
        return [_as_int(value)]
    out = []
    for i, v in enumerate(value):
        if isinstance(v, (builtins.bool, np.bool_)):
            out.append(builtins.int(v))
        elif is_int_like(v):
            out.append(_as_int(v))
        else:
            raise TypeError(
                f"{fn}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                f'"type must be tuple of ints,but got {type_name(v)}"'
            )
    return out


def _fast_conv_args(args: tuple, spatial: int):
    """:func:`parse_conv_args` for positional arguments of the plain types (tensors, ``None``
    bias, Python ints, non-empty tuples/lists of Python ints, a padding string): the same
    result, without the parser's checks; None for anything else (the full parser then runs)."""
    x, w = args[0], args[1]
    bias = args[2] if len(args) > 2 else None
    if not (isinstance(x, Tensor) and isinstance(w, Tensor)):
        return None
    if bias is not None and not isinstance(bias, Tensor):
        return None
    out = [x, w, bias]
    for i, default in ((3, 1), (4, 0), (5, 1)):
        v = args[i] if len(args) > i else default
        kind = type(v)
        if kind is builtins.int:
            out.append([v] * spatial)
        elif (kind is tuple or kind is list) and v and all(type(e) is builtins.int for e in v):
            out.append(list(v))
        elif i == 4 and kind is str:
            out.append(v)
        else:
            return None
    groups = args[6] if len(args) > 6 else 1
    if type(groups) is not builtins.int:
        return None
    out.append(groups)
    return tuple(out)


def parse_conv_args(fn: str, spatial: int, args: tuple, kwargs: dict):
    """Bind ``conv{1,2}d(*args, **kwargs)`` like PyTorch; returns the 7 parameters.

    ``stride``/``dilation`` (and an int ``padding``) become lists: an int is repeated
    ``spatial`` times, a sequence is kept as given (its length is checked later, as PyTorch does).
    """
    if not kwargs and 2 <= len(args) <= len(CONV_PARAMS):
        fast = _fast_conv_args(args, spatial)
        if fast is not None:
            return fast
    if len(args) > len(CONV_PARAMS) or any(k not in CONV_PARAMS for k in kwargs):
        raise invalid_combination(fn, args, kwargs)
    bound = dict(zip(CONV_PARAMS, args))
    for k, v in kwargs.items():
        if k in bound:
            raise invalid_combination(fn, args, kwargs)
        bound[k] = v
    if "input" not in bound or "weight" not in bound:
        raise invalid_combination(fn, args, kwargs)
    for k, v in CONV_DEFAULTS.items():
        bound.setdefault(k, v)
    ok = (
        isinstance(bound["input"], Tensor)
        and isinstance(bound["weight"], Tensor)
        and (bound["bias"] is None or isinstance(bound["bias"], Tensor))
        and _int_list_matches(bound["stride"])
        and _int_list_matches(bound["dilation"])
        and (isinstance(bound["padding"], str) or _int_list_matches(bound["padding"]))
        and is_int_like(bound["groups"])
    )
    if not ok:
        raise invalid_combination(fn, args, kwargs)
    out = dict(bound)
    for name in ("stride", "padding", "dilation"):
        v = bound[name]
        if isinstance(v, str):
            continue
        out[name] = (
            unpack_int_list(fn, name, v) if isinstance(v, (tuple, list)) else [_as_int(v)] * spatial
        )
    out["groups"] = _as_int(bound["groups"])
    return tuple(out[k] for k in CONV_PARAMS)


def parse_pad_list(value) -> list[int]:
    """``pad(..., pad=...)``: a tuple/list of ints, with PyTorch's messages otherwise."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(
            f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type_name(value)}"
        )
    if len(value) and not is_int_like(value[0]):
        raise TypeError(
            "pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
            f"{type_name(value[0])} at pos 0"
        )
    return unpack_int_list("pad", "pad", value)


def fmt_shape(shape) -> str:
    """A shape as PyTorch's C++ messages print it: ``[2, 3, 4]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def expand_param(name: str, values, dim: int) -> list[int]:
    """ATen's ``expand_param_if_needed``: one value for every spatial dim, or exactly ``dim``."""
    values = list(values)
    if len(values) == 1:
        return values * dim
    if len(values) != dim:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dim} values to match "
            f"the convolution dimensions, but got {name}={fmt_shape(values)}"
        )
    return values


def tensor_type_string(t: Tensor) -> str:
    """``Tensor.toString()``: ``tensorlab.FloatTensor`` (bool tensors say ``CPUBoolType``)."""
    from .._dtype import bool_

    return "CPUBoolType" if t.dtype is bool_ else f"tensorlab.{t.dtype._legacy}"


def check_weight_rank_and_groups(x: Tensor, ws, groups: int) -> None:
    """The checks ATen's ``check_shape_forward`` makes first for every convolution, transposed or
    not: input rank against weight rank, then weight dim 0 against ``groups`` (same messages)."""
    k = len(ws)
    if k != x.ndim:
        raise RuntimeError(
            f"Expected {k}-dimensional input for {k}-dimensional weight {fmt_shape(ws)}, but got "
            f"{x.ndim}-dimensional input of size {fmt_shape(x.shape)} instead"
        )
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but "
            f"got weight of size {fmt_shape(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{fmt_shape(ws)}] instead"
        )
