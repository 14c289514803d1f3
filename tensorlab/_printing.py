"""PyTorch's tensor printing, on numpy.

Follows ``torch/_tensor_str.py`` (torch 2.13) rule for rule, so that ``repr(t)`` equals
``repr(torch_t).replace("torch.", "tensorlab.")`` for the same data:

- one :class:`_Formatter` per tensor picks a common column width and a mode: *integer mode* for
  floats that are all integral (``4.``), fixed point with ``precision`` digits, or scientific
  notation when the nonzero finite magnitudes span more than 1000x, exceed 1e8 or go below 1e-4;
- rows wrap at ``linewidth`` with one extra space of indentation per nesting level;
- tensors with more than ``threshold`` elements are summarized to ``edgeitems`` per edge with
  ``...`` (the formatter then only looks at the elements shown);
- suffixes (``size=``, ``dtype=``, ``requires_grad=``/``grad_fn=``) follow the data, wrapped onto a
  new line when they would pass ``linewidth``.

Only numpy and tensor attributes (``shape``, ``dtype``, ``_np()``, ``requires_grad``, ``grad_fn``)
are used, so printing never depends on the rest of the engine.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import _dtype as D

__all__ = [
    "get_printoptions",
    "parameter_repr",
    "printoptions",
    "reset_printoptions",
    "set_printoptions",
    "tensor_repr",
]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set options for printing tensors, exactly like ``torch.set_printoptions``.

    ``profile`` ('default', 'short' or 'full') sets precision/threshold/edgeitems/linewidth first;
    explicit arguments then override it. As in PyTorch, ``sci_mode`` is *always* assigned: leaving
    it out resets it to ``None`` (automatic choice). An unknown profile name is silently ignored.
    """
    if profile is not None and profile in _PROFILES:
        for key, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, key, value)
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as a dict that can be passed back to :func:`set_printoptions`."""
    return dataclasses.asdict(PRINT_OPTS)


def reset_printoptions() -> None:
    """Restore PyTorch's defaults (precision 4, threshold 1000, edgeitems 3, linewidth 80, auto sci)."""
    set_printoptions(profile="default", sci_mode=None)


@contextlib.contextmanager
def printoptions(**kwargs) -> Iterator[None]:
    """Temporarily change the print options (like ``torch._tensor_str.printoptions``)."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------------------- formatter
class _Formatter:
    """Chooses one width and one notation for all the elements of a tensor (torch's ``_Formatter``)."""

    def __init__(self, arr: np.ndarray, floating: bool):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not floating:
            for value in np.unique(flat).tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        vals = flat[np.isfinite(flat) & (flat != 0)]
        if vals.size == 0:
            return  # no finite nonzero number: integer mode, width 1
        # like torch, compare magnitudes in double (float16 would overflow at 1e8)
        magnitudes = np.abs(vals).astype(np.float64)
        vmin, vmax = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(np.ceil(vals) == vals))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        precision = PRINT_OPTS.precision
        uniq = np.unique(vals).tolist()
        if self.sci_mode:
            widths = (len(f"{{:.{precision}e}}".format(v)) for v in uniq)
        elif self.int_mode:
            widths = (len(f"{v:.0f}") + 1 for v in uniq)  # + 1 for the trailing "."
        else:
            widths = (len(f"{{:.{precision}f}}".format(v)) for v in uniq)
        self.max_width = max(self.max_width, *widths)

    def width(self) -> int:
        return self.max_width

    def format(self, value) -> str:
        """One element (a Python scalar), right-aligned to the common width."""
        if self.floating_dtype:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{PRINT_OPTS.precision}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{PRINT_OPTS.precision}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


# ---------------------------------------------------------------------------------- layout
def _vector_str(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    """A 1-D array as ``[a, b, ...]``, wrapped so each line fits ``linewidth`` after ``indent``."""
    element_length = fmt.width() + 2  # the element, a comma and a space
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    edge = PRINT_OPTS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * edge:
        data = (
            [fmt.format(v) for v in arr[:edge].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in arr[-edge:].tolist()]
        )
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with_formatter(
    arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter
) -> str:
    """Nested brackets: sub-tensors separated by ``ndim - 1`` newlines, indented one more space."""
    dim = arr.ndim
    if dim == 0:
        return fmt.format(arr.item())
    if dim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    edge = PRINT_OPTS.edgeitems
    n = arr.shape[0]
    if summarize and n > 2 * edge:
        slices = (
            [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt) for i in range(edge)]
            + ["..."]
            + [
                _tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt)
                for i in range(n - edge, n)
            ]
        )
    else:
        slices = [_tensor_str_with_formatter(arr[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (dim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized_data(arr: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (torch's ``get_summarized_data``, quirks included)."""
    edge = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        if arr.shape[0] > 2 * edge:
            return np.concatenate((arr[:edge], arr[-edge:]))  # edge == 0: arr[-0:] is everything
        return arr
    if not edge:
        return np.empty((0,) * arr.ndim, dtype=arr.dtype)
    if arr.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(arr.shape[0] - edge, arr.shape[0]))
    else:
        rows = range(arr.shape[0])
    return np.stack([_summarized_data(arr[i]) for i in rows])


def _tensor_str(arr: np.ndarray, floating: bool, indent: int) -> str:
    if arr.size == 0:
        return "[]"
    summarize = arr.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized_data(arr) if summarize else arr, floating)
    return _tensor_str_with_formatter(arr, indent, summarize, fmt)


def _add_suffixes(tensor_str: str, suffixes: list[str], indent: int, force_newline: bool) -> str:
    """Append ``, suffix`` items, starting a new indented line when one would pass ``linewidth``."""
    parts = [tensor_str]
    # torch's arithmetic, kept as is (it overestimates the last line's length by 2)
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        # break lines where torch does: measure "dtype=torch.uint8", not "dtype=tensorlab.uint8"
        suffix_len = len(suffix.replace("tensorlab.", "torch."))
        if force_newline or last_line_len + suffix_len + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += suffix_len + 2
    parts.append(")")
    return "".join(parts)


def _dtype_str(d: D.dtype) -> str:
    return f"tensorlab.{d.name}"


def _grad_fn_name(grad_fn) -> str:
    name = getattr(grad_fn, "name", None)
    return name() if callable(name) else type(grad_fn).__name__


def tensor_repr(t) -> str:
    """``repr`` of a tensorlab tensor, character for character what PyTorch prints for the same data."""
    if t.is_meta:
        from ._meta import meta_repr

        return meta_repr(t)
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    dtype = t.dtype
    default_float = D.get_default_dtype()
    arr = t._np()
    shape = tuple(int(s) for s in t.shape)

    if arr.size == 0:
        if len(shape) != 1:  # like NumPy, show the shape unless it is (0,)
            suffixes.append(f"size={shape}")
        if dtype is not default_float:  # nothing to infer the dtype from: show it, even int64
            suffixes.append("dtype=" + _dtype_str(dtype))
        tensor_str = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={shape}")
        if dtype not in (default_float, D.int64, D.bool_):
            suffixes.append("dtype=" + _dtype_str(dtype))
        tensor_str = _tensor_str(arr, dtype.is_floating_point, indent)

    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{_grad_fn_name(grad_fn)}>")
    elif getattr(t, "requires_grad", False):
        suffixes.append("requires_grad=True")

    return _add_suffixes(prefix + tensor_str, suffixes, indent, force_newline=False)


def parameter_repr(t) -> str:
    """``repr`` of an ``nn.Parameter``: PyTorch's ``Parameter containing:`` header over the tensor."""
    return "Parameter containing:\n" + tensor_repr(t)
