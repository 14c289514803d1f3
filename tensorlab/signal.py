"""``tensorlab.signal``: textbook 2-D convolution and correlation, and the bridge to ``conv2d``.

``convolve2d`` and ``correlate2d`` follow ``scipy.signal`` exactly (``mode`` ``'full'``,
``'same'``, ``'valid'``; ``boundary`` ``'fill'``, ``'wrap'``, ``'symm'`` and their aliases), but
are computed here with numpy from the definitions:

* correlation   ``out[i, j] = sum_{a,b} x[i + a - P + 1, j + b - Q + 1] * k[a, b]``   (full mode)
* convolution   ``out[i, j] = sum_{a,b} x[i - a, j - b] * k[a, b]``: correlation with the kernel
  flipped in both axes. PyTorch's ``conv2d`` is a *correlation*.

:func:`from_scipy` and :func:`to_scipy` state how a scipy call maps onto ``conv2d`` (kernel flip,
padding per side, which side gets the extra pixel for even kernels, the boundary mode's name in
each library) and :meth:`ConvBridge.verify` checks the mapping numerically. scipy itself is only
imported by ``verify`` (lazily); this module needs numpy only.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from .nn import _conv_kernels as K

__all__ = [
    "BOUNDARY_ALIASES",
    "PADDING_MODES",
    "BridgeCheck",
    "ConvBridge",
    "boundary_index",
    "convolve2d",
    "correlate2d",
    "from_scipy",
    "padding_mode_table",
    "to_scipy",
]

#: scipy's boundary names -> the canonical one
BOUNDARY_ALIASES = {
    "fill": "fill",
    "pad": "fill",
    "wrap": "wrap",
    "circular": "wrap",
    "symm": "symm",
    "symmetric": "symm",
}
_MODES = ("valid", "same", "full")

#: one row per way of inventing pixels outside the image:
#: (what it does, nn.Conv2d padding_mode, F.pad mode, numpy.pad mode, scipy boundary)
PADDING_MODES = (
    ("constant (zeros, or a fill value)", "zeros", "constant", "constant", "fill"),
    ("mirror, edge pixel not repeated: c b | a b c | b a", "reflect", "reflect", "reflect", None),
    ("mirror, edge pixel repeated: b a | a b c | c b", None, None, "symmetric", "symm"),
    ("repeat the edge pixel: a a | a b c | c c", "replicate", "replicate", "edge", None),
    ("wrap around (periodic): b c | a b c | a b", "circular", "circular", "wrap", "wrap"),
)


def padding_mode_table() -> str:
    """:data:`PADDING_MODES` as a plain-text table ('-' where a library has no such mode)."""
    head = (
        "pixels outside the image",
        "Conv2d padding_mode",
        "F.pad mode",
        "numpy.pad",
        "scipy boundary",
    )
    rows = [head] + [tuple("-" if c is None else c for c in r) for r in PADDING_MODES]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- boundaries


def boundary_index(size: int, before: int, after: int, boundary: str) -> np.ndarray:
    """Input index shown at each of the ``before + size + after`` padded positions (-1 = fill).

    ``'wrap'`` is periodic and ``'symm'`` mirrors with the edge repeated, any number of times
    (scipy allows pads larger than the input; PyTorch's ``reflect``/``circular`` do not).
    """
    rel = np.arange(-before, size + after, dtype=np.int64)
    kind = BOUNDARY_ALIASES[boundary]
    if kind == "fill":
        return np.where((rel >= 0) & (rel < size), rel, -1)
    if kind == "wrap":
        return rel % size
    r = rel % (2 * size)
    return np.where(r >= size, 2 * size - 1 - r, r)


def _pad_boundary(x: np.ndarray, pads, boundary: str, fillvalue) -> np.ndarray:
    """``x`` (2-D) padded by ``pads = ((top, bottom), (left, right))`` with scipy's boundary rule."""
    (t, b), (l, r) = pads
    rows = boundary_index(x.shape[0], t, b, boundary)
    cols = boundary_index(x.shape[1], l, r, boundary)
    out = x[np.maximum(rows, 0)[:, None], np.maximum(cols, 0)[None, :]]
    if BOUNDARY_ALIASES[boundary] == "fill":
        out[(rows < 0)[:, None] | (cols < 0)[None, :]] = fillvalue
    return out


# ---------------------------------------------------------------------------- convolve / correlate


def _same_offset(k: int, flip: bool) -> int:
    """Where scipy's ``'same'`` output starts inside the ``'full'`` one (per axis)."""
    return (k - 1) // 2 if flip else k // 2


def _as_array(v, name: str):
    if isinstance(v, Tensor):
        return v._np(), True
    return np.asarray(v), False


def _check_inputs(a: np.ndarray, b: np.ndarray, fn: str, mode: str) -> bool:
    """scipy's checks in scipy's order; returns whether 'valid' mode swaps the inputs."""
    if not a.ndim == b.ndim == 2:
        raise ValueError(f"{fn} inputs must both be 2-D arrays")
    swap = False
    if mode == "valid":
        ok1 = all(a.shape[i] >= b.shape[i] for i in range(2))
        ok2 = all(b.shape[i] >= a.shape[i] for i in range(2))
        if not (ok1 or ok2):
            raise ValueError(
                "For 'valid' mode, one must be at least as large as the other in every dimension"
            )
        swap = not ok1
    if mode not in _MODES:
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")
    return swap


def _check_boundary(boundary, fillvalue):
    if boundary not in BOUNDARY_ALIASES and boundary != "reflect":
        raise ValueError(
            "Acceptable boundary flags are 'fill', 'circular' (or 'wrap'), and 'symmetric' "
            "(or 'symm')."
        )
    fv = np.asarray(fillvalue)
    if fv.size != 1:
        raise ValueError("`fillvalue` must be scalar or an array with one element.")
    if boundary == "reflect":
        raise ValueError("Incorrect boundary value.")
    return fv.reshape(())


def _correlate_core(x, k, mode, boundary, fillvalue, flip: bool) -> np.ndarray:
    """Correlate ``x`` with ``k`` (flipped first when ``flip``) under scipy's mode/boundary rules."""
    res_type = np.result_type(x.dtype, k.dtype)
    if res_type == np.bool_ or res_type.kind not in "iufc":
        raise ValueError("convolve2d not available for this type.")
    ct = np.complex128 if res_type.kind == "c" else np.float64 if res_type.kind == "f" else np.int64
    m, n = x.shape
    p, q = k.shape
    if mode == "full":
        pads = ((p - 1, p - 1), (q - 1, q - 1))
    elif mode == "same":
        sr, sc = _same_offset(p, flip), _same_offset(q, flip)
        pads = ((p - 1 - sr, sr), (q - 1 - sc, sc))
    else:
        pads = ((0, 0), (0, 0))
    out_shape = (m + pads[0][0] + pads[0][1] - p + 1, n + pads[1][0] + pads[1][1] - q + 1)
    if min(out_shape) <= 0 or x.size == 0 or k.size == 0:
        return np.zeros(tuple(max(s, 0) for s in out_shape), dtype=res_type)
    fill = (
        fillvalue.astype(ct)
        if fillvalue.dtype.kind != "c" or ct == np.complex128
        else fillvalue.real.astype(ct)
    )
    xp = _pad_boundary(x.astype(ct), pads, boundary, fill)
    kk = k.astype(ct)
    kk = kk[::-1, ::-1] if flip else np.conj(kk)
    out = K.conv2d(
        np.ascontiguousarray(xp)[None, None],
        np.ascontiguousarray(kk)[None, None],
        None,
        (1, 1),
        (0, 0, 0, 0),
        (1, 1),
        1,
    )[0, 0]
    return out.astype(res_type, copy=False)


def _finish(out: np.ndarray, as_tensor: bool):
    if not as_tensor:
        return out
    return Tensor._from_array(out, D.from_numpy_dtype(out.dtype))


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0):
    """``scipy.signal.correlate2d``: slide ``in2`` over ``in1`` *without* flipping it.

    This is what ``torch.nn.functional.conv2d`` computes (for one channel, stride 1).
    Tensors in give a tensor out; anything else gives a numpy array (as scipy).
    """
    a, ta = _as_array(in1, "in1")
    b, tb = _as_array(in2, "in2")
    swap = _check_inputs(a, b, "correlate2d", mode)
    if swap:
        a, b = b, a
    fv = _check_boundary(boundary, fillvalue)
    out = _correlate_core(a, b, mode, boundary, fv, flip=False)
    if swap:
        out = out[::-1, ::-1].copy()
    return _finish(out, ta or tb)


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0):
    """``scipy.signal.convolve2d``: the textbook convolution, kernel flipped in both axes.

    ``mode``: ``'full'`` (every overlap, size M+P-1), ``'same'`` (size of ``in1``; for an even
    kernel the extra padded row/column is at the *top/left*, unlike ``correlate2d`` and
    PyTorch), ``'valid'`` (no invented pixels, size M-P+1). ``boundary``: ``'fill'`` (with
    ``fillvalue``), ``'wrap'``, ``'symm'`` (mirror with the edge repeated).
    """
    a, ta = _as_array(in1, "in1")
    b, tb = _as_array(in2, "in2")
    swap = _check_inputs(a, b, "convolve2d", mode)
    if swap:
        a, b = b, a
    fv = _check_boundary(boundary, fillvalue)
    out = _correlate_core(a, b, mode, boundary, fv, flip=True)
    return _finish(out, ta or tb)


# ---------------------------------------------------------------------------- the bridge


@dataclass(frozen=True)
class BridgeCheck:
    """The outcome of :meth:`ConvBridge.verify`."""

    ok: bool
    max_abs_diff: float
    scipy_result: np.ndarray = field(repr=False)
    tensorlab_result: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class ConvBridge:
    """One scipy call and one ``conv2d`` call that compute the same array (one channel).

    scipy side: ``scipy.signal.<scipy_func>(x', w, mode=scipy_mode, boundary=scipy_boundary,
    fillvalue=fillvalue)`` where ``x'`` is ``x`` padded with ``numpy.pad(x, numpy_pad,
    mode=numpy_mode)`` when ``numpy_pad`` is set, else ``x`` itself.

    tensorlab side: ``F.conv2d(x_padded[None, None], w'[None, None])[0, 0]`` where ``w'`` is
    ``w.flip(-1, -2)`` when ``flip_kernel`` and ``x_padded`` is ``F.pad(x, pad, mode=pad_mode)``;
    ``pad`` is per side in ``F.pad``'s order ``(left, right, top, bottom)``. ``pad_mode`` is
    ``None`` when PyTorch has no such mode (scipy's ``'symm'``): the pixels are then invented by
    indexing with :func:`boundary_index`.
    """

    scipy_call: str
    tensorlab_call: str
    scipy_func: str
    scipy_mode: str
    scipy_boundary: str
    fillvalue: float
    numpy_pad: tuple[tuple[int, int], tuple[int, int]] | None
    kernel_shape: tuple[int, int]
    flip_kernel: bool
    pad: tuple[int, int, int, int]
    pad_mode: str | None
    numpy_mode: str
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        left, right, top, bottom = self.pad
        lines = [
            f"scipy     : {self.scipy_call}",
            f"tensorlab : {self.tensorlab_call}",
            "kernel    : "
            + ("flip it for conv2d (w.flip(-1, -2))" if self.flip_kernel else "the same for both"),
            f"padding   : left={left} right={right} top={top} bottom={bottom} "
            f"(total {top + bottom} rows, {left + right} columns)",
            f"invented  : F.pad mode={self.pad_mode!r}, numpy.pad mode={self.numpy_mode!r}, "
            f"scipy boundary={self.scipy_boundary!r}",
        ]
        lines += [f"note      : {n}" for n in self.notes]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k.strip())}</th>"
            f"<td style='text-align:left'><code>{html.escape(v.strip())}</code></td></tr>"
            for k, v in (line.split(":", 1) for line in str(self).split("\n"))
        )
        return f"<table>{rows}</table>"

    # ------------------------------------------------------------------ numerics
    def scipy_input(self, image) -> np.ndarray:
        """What the scipy side receives as its first argument."""
        x = _float_array(image)
        if self.numpy_pad is None:
            return x
        return np.pad(x, self.numpy_pad, mode=self.numpy_mode)

    def tensorlab_padded(self, image) -> Tensor:
        """The (1, 1, H', W') tensor ``conv2d`` receives: the image plus the invented pixels."""
        from .nn import functional as F

        x = _float_array(image)
        left, right, top, bottom = self.pad
        if self.pad_mode is not None and (
            self.numpy_pad is not None or _fpad_allows(self.pad_mode, x.shape, self.pad)
        ):
            value = self.fillvalue if self.pad_mode == "constant" else None
            xt = Tensor._from_array(x, D.float64)[None, None]
            return F.pad(xt, list(self.pad), mode=self.pad_mode, value=value)
        boundary = (
            self.scipy_boundary if self.numpy_pad is None else _SCIPY_OF_NUMPY[self.numpy_mode]
        )
        xp = _pad_boundary(x, ((top, bottom), (left, right)), boundary, self.fillvalue)
        return Tensor._from_array(xp, D.float64)[None, None]

    def tensorlab_result(self, image, kernel) -> np.ndarray:
        from .nn import functional as F

        w = _float_array(kernel)
        w = w[::-1, ::-1].copy() if self.flip_kernel else w
        out = F.conv2d(self.tensorlab_padded(image), Tensor._from_array(w, D.float64)[None, None])
        return out._np()[0, 0].copy()

    def scipy_result(self, image, kernel) -> np.ndarray:
        import scipy.signal as ss  # the only place scipy is imported

        fn = getattr(ss, self.scipy_func)
        return fn(
            self.scipy_input(image),
            _float_array(kernel),
            mode=self.scipy_mode,
            boundary=self.scipy_boundary,
            fillvalue=self.fillvalue,
        )

    def verify(self, image, kernel, atol: float = 1e-9) -> BridgeCheck:
        """Run both sides on ``image`` and ``kernel``; ``ok`` when they agree within ``atol``."""
        if tuple(np.shape(_float_array(kernel))) != tuple(self.kernel_shape):
            raise ValueError(f"this bridge is for kernels of shape {tuple(self.kernel_shape)}")
        ref = np.asarray(self.scipy_result(image, kernel))
        got = self.tensorlab_result(image, kernel)
        if got.shape != ref.shape:
            return BridgeCheck(False, float("inf"), ref, got)
        diff = float(np.abs(got - ref).max()) if got.size else 0.0
        return BridgeCheck(diff <= atol, diff, ref, got)


_SCIPY_OF_NUMPY = {"constant": "fill", "wrap": "wrap", "symmetric": "symm"}


def _float_array(v) -> np.ndarray:
    return np.asarray(v._np() if isinstance(v, Tensor) else v, dtype=np.float64)


def _fpad_allows(mode: str, shape, pad) -> bool:
    """Would ``F.pad`` accept these pads (reflect: < size; circular: wrap at most once)?"""
    left, right, top, bottom = pad
    h, w = shape
    if mode == "reflect":
        return max(left, right) < w and max(top, bottom) < h
    if mode == "circular":
        return max(left, right) <= w and max(top, bottom) <= h
    return True


def from_scipy(
    func: str = "convolve2d",
    mode: str = "full",
    boundary: str = "fill",
    fillvalue: float = 0,
    kernel_shape: tuple[int, int] = (3, 3),
) -> ConvBridge:
    """How ``scipy.signal.<func>(x, w, mode, boundary, fillvalue)`` is written with ``conv2d``.

    ``convolve2d`` needs the kernel flipped, ``correlate2d`` does not. ``'full'`` pads
    ``k - 1`` on every side, ``'valid'`` nothing, ``'same'`` ``k - 1`` in total: for an even
    kernel the extra row/column goes bottom/right for ``correlate2d`` but top/left for
    ``convolve2d``. (In ``'valid'`` mode scipy swaps the arguments when the kernel is the larger
    one; the bridge assumes the image is at least as large as the kernel.)
    """
    if func not in ("convolve2d", "correlate2d"):
        raise ValueError("func must be 'convolve2d' or 'correlate2d'")
    if mode not in _MODES:
        raise ValueError("Acceptable mode flags are 'valid', 'same', or 'full'.")
    _check_boundary(boundary, fillvalue)
    fillvalue = float(np.asarray(fillvalue).reshape(()))
    p, q = kernel_shape
    flip = func == "convolve2d"
    if mode == "full":
        top = bottom = p - 1
        left = right = q - 1
    elif mode == "same":
        sr, sc = _same_offset(p, flip), _same_offset(q, flip)
        top, bottom, left, right = p - 1 - sr, sr, q - 1 - sc, sc
    else:
        top = bottom = left = right = 0
    pad = (left, right, top, bottom)
    kind = BOUNDARY_ALIASES[boundary]
    pad_mode = {"fill": "constant", "wrap": "circular", "symm": None}[kind]
    notes = [
        "convolve2d flips the kernel and conv2d never does: pass w.flip(-1, -2)"
        if flip
        else "correlate2d slides the kernel as it is, exactly like conv2d"
    ]
    if mode == "same" and (p % 2 == 0 or q % 2 == 0):
        side = "top/left" if flip else "bottom/right"
        notes.append(
            f"even kernel in 'same' mode: the extra padded row/column goes {side} "
            "(PyTorch's padding='same' puts it bottom/right)"
        )
    if pad != (0, 0, 0, 0) and top == bottom and left == right:
        if kind == "fill" and fillvalue == 0:
            notes.append(f"the same as F.conv2d(x, w', padding=({top}, {left}))")
        elif kind == "wrap":
            notes.append(
                f"the same as nn.Conv2d(1, 1, {tuple(kernel_shape)}, padding=({top}, {left}), "
                "padding_mode='circular')"
            )
    if pad_mode is None and pad != (0, 0, 0, 0):
        notes.append(
            "PyTorch has no 'symm' (its 'reflect' does not repeat the edge pixel): pad by "
            "indexing with tensorlab.signal.boundary_index(n, before, after, 'symm')"
        )
    if mode == "valid":
        notes.append("'valid' invents no pixels, so the boundary does not matter")
    wname = "w.flip(-1, -2)" if flip else "w"
    if pad == (0, 0, 0, 0):
        call = f"F.conv2d(x[None, None], {wname}[None, None])[0, 0]"
    elif pad_mode is None:
        call = f"F.conv2d(x_symm[None, None], {wname}[None, None])[0, 0]"
    else:
        value = f", value={fillvalue!r}" if pad_mode == "constant" and fillvalue != 0 else ""
        call = (
            f"F.conv2d(F.pad(x[None, None], {pad}, mode={pad_mode!r}{value}), "
            f"{wname}[None, None])[0, 0]"
        )
    fv = f", fillvalue={fillvalue!r}" if fillvalue != 0 else ""
    return ConvBridge(
        scipy_call=f"scipy.signal.{func}(x, w, mode={mode!r}, boundary={boundary!r}{fv})",
        tensorlab_call=call,
        scipy_func=func,
        scipy_mode=mode,
        scipy_boundary=boundary,
        fillvalue=fillvalue,
        numpy_pad=None,
        kernel_shape=(p, q),
        flip_kernel=flip,
        pad=pad,
        pad_mode=pad_mode,
        numpy_mode={"fill": "constant", "wrap": "wrap", "symm": "symmetric"}[kind],
        notes=tuple(notes),
    )


_TORCH_TO_NUMPY = {
    "zeros": "constant",
    "reflect": "reflect",
    "replicate": "edge",
    "circular": "wrap",
}


def to_scipy(
    kernel_shape: tuple[int, int] = (3, 3), padding=0, padding_mode: str = "zeros"
) -> ConvBridge:
    """How ``nn.Conv2d(1, 1, kernel_shape, padding=..., padding_mode=...)`` is written in scipy.

    Stride 1, dilation 1. ``padding``: an int, a pair, ``'valid'`` or ``'same'``. The answer is
    ``correlate2d`` (never a flip) with a matching ``mode``/``boundary`` when scipy has one,
    otherwise ``correlate2d(numpy.pad(x, ...), w, 'valid')``.
    """
    p, q = kernel_shape
    if padding_mode not in _TORCH_TO_NUMPY:
        raise ValueError(
            "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
            f"padding_mode='{padding_mode}'"
        )
    if padding == "valid":
        ph = pw = (0, 0)
    elif padding == "same":
        ph = ((p - 1) // 2, p - 1 - (p - 1) // 2)
        pw = ((q - 1) // 2, q - 1 - (q - 1) // 2)
    else:
        a, b = (padding, padding) if isinstance(padding, int) else tuple(padding)
        ph, pw = (a, a), (b, b)
    pad = (pw[0], pw[1], ph[0], ph[1])
    numpy_mode = _TORCH_TO_NUMPY[padding_mode]
    pad_mode = {"zeros": "constant"}.get(padding_mode, padding_mode)
    boundary = {"zeros": "fill", "circular": "wrap"}.get(padding_mode)
    full = ph == (p - 1, p - 1) and pw == (q - 1, q - 1)
    same = ph == ((p - 1) // 2, p // 2) and pw == ((q - 1) // 2, q // 2)
    notes = ["conv2d is a correlation: scipy's correlate2d, or convolve2d with the kernel flipped"]
    numpy_pad = None
    if pad == (0, 0, 0, 0):
        mode, boundary = "valid", "fill"
        scall = "scipy.signal.correlate2d(x, w, mode='valid')"
    elif boundary is not None and (full or same):
        mode = "full" if full else "same"
        b = "" if boundary == "fill" else f", boundary={boundary!r}"
        scall = f"scipy.signal.correlate2d(x, w, mode={mode!r}{b})"
        if mode == "same" and (p % 2 == 0 or q % 2 == 0):
            notes.append(
                "even kernel: correlate2d 'same' puts the extra row/column bottom/right like "
                "PyTorch, but convolve2d(x, w[::-1, ::-1], 'same') puts it top/left"
            )
    else:
        mode, boundary = "valid", "fill"
        numpy_pad = (ph, pw)
        scall = (
            f"scipy.signal.correlate2d(numpy.pad(x, ({ph}, {pw}), mode={numpy_mode!r}), w, "
            "mode='valid')"
        )
        if padding_mode in ("reflect", "replicate"):
            notes.append(
                f"scipy has no boundary like PyTorch's {padding_mode!r} (numpy.pad calls it "
                f"{numpy_mode!r}): pad first, then correlate in 'valid' mode"
            )
    ptxt = repr(padding) if not isinstance(padding, tuple) else str(tuple(padding))
    return ConvBridge(
        scipy_call=scall,
        tensorlab_call=(
            f"nn.Conv2d(1, 1, {tuple(kernel_shape)}, padding={ptxt}, "
            f"padding_mode={padding_mode!r}, bias=False)"
        ),
        scipy_func="correlate2d",
        scipy_mode=mode,
        scipy_boundary=boundary,
        fillvalue=0.0,
        numpy_pad=numpy_pad,
        kernel_shape=(p, q),
        flip_kernel=False,
        pad=pad,
        pad_mode=pad_mode,
        numpy_mode=numpy_mode,
        notes=tuple(notes),
    )
