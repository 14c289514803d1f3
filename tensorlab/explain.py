"""Plain-words explanations of what the engine does: why a ``view`` works or fails, which
storage elements the windows of ``unfold`` / ``as_strided`` read (and why overlapping windows
share memory), and why ``F.unfold`` (im2col) has to copy."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import _layout as L
from ._tensor import Tensor, _as_shape


@dataclass
class ViewExplanation:
    """The answer of :func:`explain_view`. ``str()`` gives the plain-words version."""

    shape: tuple[int, ...]
    stride: tuple[int, ...]
    requested: tuple[int, ...]
    new_shape: tuple[int, ...] | None
    ok: bool
    new_stride: tuple[int, ...] | None
    chunks: list[list[int]]
    blocking: (
        tuple[int, int] | None
    )  # (dim, dim + 1) whose merge the new shape needs but memory forbids
    split_dim: int | None  # the new dim that would have to span the two blocks
    reason: str
    lines: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def _repr_html_(self) -> str:
        import html

        colour = "#1a7f37" if self.ok else "#b42318"
        head, *rest = self.lines
        items = "".join(f"<li>{html.escape(x)}</li>" for x in rest)
        return f'<div><b style="color:{colour}">{html.escape(head)}</b><ul>{items}</ul></div>'

    def __repr__(self) -> str:
        return f"ViewExplanation(ok={self.ok}, reason={self.reason!r})"


def _call(shape) -> str:
    """Arguments of a call: ``view(2, 5)``, ``view(10)``."""
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _tup(shape) -> str:
    """A tuple as Python prints it: ``(2, 5)``, ``(10,)``."""
    return str(tuple(shape))


def _boundaries(sizes) -> list[int]:
    """Cumulative element counts from the right, at the left edge of each entry."""
    out, acc = [], 1
    for s in reversed(sizes):
        acc *= s
        out.append(acc)
    return out[::-1]


def explain_view(t: Tensor, *shape, unfold=None, as_strided=None, im2col=None):
    """Say whether ``t.view(*shape)`` works and why, in plain words.

    ``explain_view(t, unfold=(dim, size, step))`` and
    ``explain_view(t, as_strided=(size, stride[, storage_offset]))`` explain a window view
    instead (see :func:`explain_windows`); ``explain_view(x, im2col=kernel_size)`` (or a dict of
    ``F.unfold``'s arguments) explains why ``F.unfold`` returns a copy (:func:`explain_im2col`).

    A view only changes the metadata, so each new dim needs *one* stride. Old dims can share a new
    dim only if they sit one after another in memory: ``stride[d] == size[d+1] * stride[d+1]``.
    The old dims fall into blocks ("chunks") that satisfy this; a new dim may split a block or
    cover whole blocks, but never span the border between two blocks.
    """
    if unfold is not None:
        return explain_windows(t, "unfold", *unfold)
    if as_strided is not None:
        return explain_windows(t, "as_strided", *as_strided)
    if im2col is not None:
        kwargs = im2col if isinstance(im2col, dict) else {"kernel_size": im2col}
        return explain_im2col(t, **kwargs)
    requested = _as_shape(shape)
    old_shape, old_stride = tuple(t.shape), t.stride()
    chunks = L.contiguous_chunks(old_shape, old_stride)
    lines: list[str] = []
    try:
        new_shape = L.infer_size(requested, t.numel())
    except RuntimeError as e:
        reason = str(e)
        lines = [
            f"view{_call(requested)} fails before strides matter: {reason}",
            f"The tensor has {t.numel()} elements; the new shape must hold exactly that many "
            "(reshape fails the same way).",
        ]
        return ViewExplanation(
            old_shape, old_stride, requested, None, False, None, chunks, None, None, reason, lines
        )

    new_stride = L.view_strides(old_shape, old_stride, new_shape)
    fmt_chunk = ", ".join(
        "dims " + "+".join(str(d) for d in c) if len(c) > 1 else f"dim {c[0]}" for c in chunks
    )
    lines.append(
        f"view{_call(new_shape)} of a tensor with shape {_tup(old_shape)} and strides "
        f"{_tup(old_stride)}: " + ("works (no copy)." if new_stride is not None else "fails.")
    )
    lines.append(
        f"Blocks of dims that sit one after another in memory: {fmt_chunk or '(none: 0-dim)'}."
    )
    if new_stride is not None:
        lines.append(
            f"Every new dim falls inside one block, so the result gets strides {_tup(new_stride)} "
            "on the same storage: writing to it changes the original."
        )
        return ViewExplanation(
            old_shape,
            old_stride,
            requested,
            new_shape,
            True,
            new_stride,
            chunks,
            None,
            None,
            "compatible",
            lines,
        )

    # find a border between two blocks that no new-dim border lines up with
    sizes = list(old_shape)
    old_b = _boundaries(sizes)
    new_b = _boundaries(list(new_shape)) + [1]
    blocking = split_dim = None
    for left, right in zip(chunks[:-1], chunks[1:]):
        border = old_b[right[0]]  # elements covered by the block `right` and everything after
        if border not in new_b:
            d = left[-1]
            # size-1 dims join the block to their right; name its first real dim
            e = next((k for k in right if old_shape[k] != 1), right[-1])
            blocking = (d, e)
            # the new dim whose extent crosses this border
            acc = 1
            for k in range(len(new_shape) - 1, -1, -1):
                prev, acc = acc, acc * new_shape[k]
                if prev < border < acc:
                    split_dim = k
                    break
            break
    if blocking is not None:
        d, e = blocking
        need = old_shape[e] * old_stride[e]
        reason = (
            f"dim {d} has stride {old_stride[d]}, but to continue where dim {e} ends it would need "
            f"stride size[{e}] x stride[{e}] = {old_shape[e]} x {old_stride[e]} = {need}"
        )
        lines.append(
            f"New dim {split_dim} (size {new_shape[split_dim]}) would have to run across dims "
            f"{d} and {e}, which are in different blocks: {reason}. No single stride can walk "
            "both, so a view is impossible."
            if split_dim is not None
            else f"The new shape needs dims {d} and {e} merged, but {reason}."
        )
    else:
        reason = "the new shape's dims do not line up with the memory blocks"
        lines.append(reason.capitalize() + ".")
    lines.append(
        f"reshape{_call(new_shape)} will copy the {t.numel()} elements into new contiguous "
        f"memory (strides {_tup(L.contiguous_strides(new_shape))}); the copy does not share "
        "storage with the original. Or call .contiguous() first, then .view()."
    )
    return ViewExplanation(
        old_shape,
        old_stride,
        requested,
        new_shape,
        False,
        None,
        chunks,
        blocking,
        split_dim,
        reason,
        lines,
    )


# ---------------------------------------------------------------------------------------------
# windows: Tensor.unfold and as_strided
# ---------------------------------------------------------------------------------------------


@dataclass
class WindowExplanation:
    """The answer of :func:`explain_windows` / :func:`explain_im2col`. ``str()`` gives the
    plain-words version; the fields hold the facts it states."""

    op: str
    shape: tuple[int, ...]  # of the result
    stride: tuple[int, ...]
    storage_offset: int
    positions: object  # numpy int array of the result's shape: the storage index of each element
    windows: list  # [(window index, [storage positions it reads])] (the first few)
    reads: dict  # storage position -> how many result elements read it (only positions read >1)
    overlap: bool
    is_view: bool
    lines: list[str] = field(default_factory=list)
    view_possible: bool | None = None  # im2col: could one strided layout hold the matrix?

    def __str__(self) -> str:
        return "\n".join(self.lines)

    def _repr_html_(self) -> str:
        import html

        head, *rest = self.lines
        items = "".join(f"<li>{html.escape(x)}</li>" for x in rest)
        return f"<div><b>{html.escape(head)}</b><ul>{items}</ul></div>"

    def __repr__(self) -> str:
        return f"WindowExplanation(op={self.op!r}, overlap={self.overlap}, is_view={self.is_view})"


def _positions(shape, stride, offset):
    from .autograd.views import storage_positions

    return storage_positions(tuple(shape), tuple(stride), offset)


def _list(xs, limit: int = 8) -> str:
    xs = list(xs)
    body = ", ".join(str(x) for x in xs[:limit])
    return "[" + body + (", ..." if len(xs) > limit else "") + "]"


def _window_lines(pos, n_window_dims: int, limit: int = 4):
    """(window index, storage positions) for the first ``limit`` windows: the last
    ``pos.ndim - n_window_dims`` dims walk inside a window."""
    import numpy as np

    lead = pos.shape[:n_window_dims]
    out = []
    for k, idx in enumerate(np.ndindex(*lead)):
        if k == limit:
            break
        out.append((idx, pos[idx].reshape(-1).tolist()))
    return out


def explain_windows(t: Tensor, op: str, *args) -> WindowExplanation:
    """Explain ``t.unfold(dimension, size, step)`` or ``t.as_strided(size, stride, offset)``:
    the result's layout, which storage elements each window reads, whether windows overlap
    (then they share memory: one write shows in every window reading that element), and what
    backward does with an element read several times."""
    import numpy as np

    if op == "unfold":
        dim, size, step = args
        out = t.unfold(dim, size, step)
        d = dim % t.ndim if t.ndim else 0
        call = f"unfold({dim}, {size}, {step})"
        n_window_dims = out.ndim - 1
    elif op == "as_strided":
        out = t.as_strided(*args)
        call = f"as_strided({', '.join(str(tuple(a)) if isinstance(a, (list, tuple)) else str(a) for a in args)})"
        n_window_dims = max(out.ndim - 1, 0)
    else:
        raise ValueError(f"explain_windows: op must be 'unfold' or 'as_strided', not {op!r}")
    shape, stride, offset = tuple(out.shape), out.stride(), out.storage_offset()
    pos = _positions(shape, stride, offset)
    flat = pos.reshape(-1)
    values, counts = np.unique(flat, return_counts=True)
    reads = {int(v): int(c) for v, c in zip(values, counts) if c > 1}
    overlap = bool(reads)
    lines = [
        f"x.{call} of a tensor with shape {_tup(t.shape)}, strides {_tup(t.stride())} and "
        f"storage offset {t.storage_offset()}: a view (no copy) with shape {_tup(shape)}, "
        f"strides {_tup(stride)}, storage offset {offset}."
    ]
    if op == "unfold":
        if t.ndim:
            n = t.shape[d]
            lines.append(
                f"Dim {d} now counts the windows: ({n} - {size}) // {step} + 1 = {shape[d]}. "
                f"Window k starts at element k x {step} of dim {d}, so its stride is "
                f"{step} x {t.stride(d)} = {stride[d]}; the new last dim walks inside a window "
                f"with dim {d}'s own stride {stride[-1]}."
            )
            if step > size:
                lines.append(
                    f"step {step} > size {size}: windows leave gaps; {step - size} element(s) "
                    "between windows are read by none."
                )
    else:
        lines.append(
            "as_strided ignores x's shape and strides: element [i0, i1, ...] is "
            f"storage[{offset} + " + " + ".join(f"i{k} x {s}" for k, s in enumerate(stride)) + "]"
            if stride
            else f"storage[{offset}]."
        )
        own = set(_positions(tuple(t.shape), t.stride(), t.storage_offset()).reshape(-1).tolist())
        outside = sorted(set(flat.tolist()) - own)
        if outside:
            lines.append(
                f"It reads storage positions that are not elements of x: {_list(outside)} "
                "(as_strided sees the whole storage; its gradient never reaches them)."
            )
    windows = _window_lines(pos, n_window_dims) if pos.size else []
    for idx, p in windows:
        lines.append(f"Window {list(idx)} reads storage positions {_list(p)}.")
    if overlap:
        (p0, c0), *_ = sorted(reads.items(), key=lambda kv: (-kv[1], kv[0]))
        where = [[int(k) for k in i] for i in zip(*np.nonzero(pos == p0))]
        lines.append(
            f"Windows overlap: {len(reads)} storage element(s) are read more than once; "
            f"position {p0} is read {c0} times, at {_list(where, 4)}. They are the same memory: "
            "writing one of them changes the original and every window that reads it."
        )
        lines.append(
            "An in-place op through the windows updates a shared element once per reading: "
            f"w.add_(1) adds {c0} to storage position {p0}, 1 to an element read once."
        )
        lines.append(
            "Backward adds the gradient of every reading into that one element ("
            + ("UnfoldBackward0" if op == "unfold" else "AsStridedBackward0")
            + "): an element read by k windows gets the sum of k gradients."
        )
    else:
        lines.append("No element is read twice: the windows do not overlap.")
    return WindowExplanation(op, shape, stride, offset, pos, windows, reads, overlap, True, lines)


def _pair(v) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, int) else (int(v[0]), int(v[1]))


def explain_im2col(x: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> WindowExplanation:
    """Why ``F.unfold(x, kernel_size, ...)`` (im2col) returns a fresh ``(N, C*kH*kW, L)`` tensor.

    The sliding windows themselves are a view (``x.unfold(2, ...).unfold(3, ...)``: 6-D, no
    copy, overlapping when stride < kernel). But a 3-D result needs *one* stride per dim: the
    row dim walks (c, i, j) and the column dim walks (output row, output column). One stride
    can walk (c, i, j) only if ``W == kW`` and ``H*W == kH*kW*...`` (the kernel covers whole
    rows and the whole image), and (oy, ox) only if ``stride_h * W == out_w * stride_w``;
    padding adds zeros that are nowhere in x's storage. PyTorch's ``F.unfold`` copies always,
    even when a view would have been possible (a 1x1 kernel).
    """
    import numpy as np

    if x.ndim not in (3, 4):
        raise ValueError(
            f"explain_im2col expects a (C, H, W) or (N, C, H, W) tensor, got {x.ndim}-D"
        )
    batched = x.ndim == 4
    xb = x if batched else x.unsqueeze(0)
    n, c, h, w = xb.shape
    (kh, kw), (dh, dw) = _pair(kernel_size), _pair(dilation)
    (ph, pw), (sh, sw) = _pair(padding), _pair(stride)
    eh, ew = dh * (kh - 1) + 1, dw * (kw - 1) + 1  # extent of a dilated kernel
    oh, ow = (h + 2 * ph - eh) // sh + 1, (w + 2 * pw - ew) // sw + 1
    rows, cols = c * kh * kw, oh * ow
    lines = [
        f"F.unfold of a {_tup(tuple(x.shape))} tensor with kernel ({kh}, {kw}), dilation "
        f"({dh}, {dw}), padding ({ph}, {pw}), stride ({sh}, {sw}) returns a new contiguous "
        f"tensor of shape {_tup(((n,) if batched else ()) + (rows, cols))}: one column per "
        f"window ({oh} x {ow} = {cols} windows), one row per (channel, kernel row, kernel "
        f"column) = {c} x {kh} x {kw} = {rows}. It never shares memory with x."
    ]
    shape = (n, c, oh, ow, kh, kw)
    st = xb.stride()
    wstride = (st[0], st[1], sh * st[2], sw * st[3], dh * st[2], dw * st[3])
    offset = xb.storage_offset()
    reasons = []
    if ph or pw:
        reasons.append(
            f"padding ({ph}, {pw}) puts zeros into the windows, and those zeros are nowhere in "
            "x's storage: no strides over x can produce them."
        )
        pos = None
    else:
        pos = _positions(shape, wstride, offset)
        taps = f"[..., ::{dh}, ::{dw}]" if (dh, dw) != (1, 1) else ""
        lines.append(
            f"Without padding the windows are a view: x.unfold(2, {eh}, {sh}).unfold(3, {ew}, "
            f"{sw}){taps} has shape {_tup(shape)} and strides {_tup(wstride)}: no copy"
            + (
                "; windows overlap (stride < kernel extent), so one element of x sits in "
                "several columns."
                if (sh < eh and oh > 1) or (sw < ew and ow > 1)
                else "."
            )
        )
        # rows: (c, i, j) need stride_c == kh * stride_i and stride_i == kw * stride_j
        row_dims = [(c, st[1]), (kh, dh * st[2]), (kw, dw * st[3])]
        col_dims = [(oh, sh * st[2]), (ow, sw * st[3])]
        for what, dims in (("row", row_dims), ("column", col_dims)):
            real = [(s, d) for s, d in dims if s != 1]
            for (_, d0), (s1, d1) in zip(real[:-1], real[1:]):
                if d0 != s1 * d1:
                    reasons.append(
                        f"one {what} stride would have to walk dims of strides {d0} and {d1} "
                        f"(sizes ... x {s1}), but {d0} != {s1} x {d1}: they do not follow one "
                        "another in memory."
                    )
                    break
    possible = not reasons
    if possible:
        lines.append(
            "Here one strided layout could hold the matrix (a view would have been possible), "
            "yet F.unfold still returns fresh memory: PyTorch's im2col always writes a new "
            "buffer."
        )
    else:
        lines.append(
            "No single set of strides over x's storage lays the windows out as that matrix: "
            + " ".join(r[0].upper() + r[1:] for r in reasons)
        )
    windows = []
    reads = {}
    overlap = False
    if pos is not None and pos.size:
        flat = pos.reshape(-1)
        values, counts = np.unique(flat, return_counts=True)
        reads = {int(v): int(k) for v, k in zip(values, counts) if k > 1}
        overlap = bool(reads)
        windows = _window_lines(pos[0, 0], 2, limit=3)
    if not possible:
        dup = (
            ", duplicating the elements that overlapping windows share"
            if overlap or (ph or pw) and (sh < eh or sw < ew)
            else ""
        )
        lines.append(
            f"So im2col must copy: it writes every window into its own column{dup} (the copy "
            f"holds {n * rows * cols} numbers for x's {x.numel()})."
        )
    return WindowExplanation(
        "im2col",
        ((n,) if batched else ()) + (rows, cols),
        L.contiguous_strides(((n,) if batched else ()) + (rows, cols)),
        0,
        pos,
        windows,
        reads,
        overlap,
        False,
        lines,
        view_possible=possible,
    )
