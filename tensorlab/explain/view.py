"""Plain-words explanations of views: why ``t.view(*shape)`` works or fails
(:func:`explain_view`), and which storage elements the windows of ``t.unfold`` / ``t.as_strided``
read, and why overlapping windows share memory (:func:`explain_unfold`,
:func:`explain_as_strided`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import _layout as L
from .._tensor import Tensor, _as_shape
from ..interop import accepts_torch
from ._common import boundaries, call_text, list_text, positions, tup, window_lines

__all__ = [
    "ViewExplanation",
    "WindowExplanation",
    "explain_as_strided",
    "explain_unfold",
    "explain_view",
]


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


@accepts_torch
def explain_view(t: Tensor, *shape) -> ViewExplanation:
    """Say whether ``t.view(*shape)`` works and why, in plain words.

    A view only changes the metadata, so each new dim needs *one* stride. Old dims can share a new
    dim only if they sit one after another in memory: ``stride[d] == size[d+1] * stride[d+1]``.
    The old dims fall into blocks ("chunks") that satisfy this; a new dim may split a block or
    cover whole blocks, but never span the border between two blocks.
    (Window views: :func:`explain_unfold`, :func:`explain_as_strided`; im2col:
    :func:`tensorlab.explain.explain_im2col`.)
    """
    requested = _as_shape(shape)
    old_shape, old_stride = tuple(t.shape), t.stride()
    chunks = L.contiguous_chunks(old_shape, old_stride)
    lines: list[str] = []
    try:
        new_shape = L.infer_size(requested, t.numel())
    except RuntimeError as e:
        reason = str(e)
        lines = [
            f"view{call_text(requested)} fails before strides matter: {reason}",
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
        f"view{call_text(new_shape)} of a tensor with shape {tup(old_shape)} and strides "
        f"{tup(old_stride)}: " + ("works (no copy)." if new_stride is not None else "fails.")
    )
    lines.append(
        f"Blocks of dims that sit one after another in memory: {fmt_chunk or '(none: 0-dim)'}."
    )
    if new_stride is not None:
        lines.append(
            f"Every new dim falls inside one block, so the result gets strides {tup(new_stride)} "
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
    old_b = boundaries(sizes)
    new_b = boundaries(list(new_shape)) + [1]
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
        f"reshape{call_text(new_shape)} will copy the {t.numel()} elements into new contiguous "
        f"memory (strides {tup(L.contiguous_strides(new_shape))}); the copy does not share "
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


@dataclass
class WindowExplanation:
    """The answer of :func:`explain_unfold` / :func:`explain_as_strided` /
    :func:`explain_im2col`. ``str()`` gives the
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


@accepts_torch
def explain_unfold(t: Tensor, dimension: int, size: int, step: int) -> WindowExplanation:
    """Explain ``t.unfold(dimension, size, step)``: the result's layout, which storage elements
    each window reads, whether windows overlap (then they share memory: one write shows in every
    window reading that element), and what backward does with an element read several times."""
    out = t.unfold(dimension, size, step)
    return _windows(
        t, "unfold", out, (dimension, size, step), f"unfold({dimension}, {size}, {step})"
    )


@accepts_torch
def explain_as_strided(t: Tensor, size, stride, storage_offset=None) -> WindowExplanation:
    """Explain ``t.as_strided(size, stride, storage_offset)`` as :func:`explain_unfold` does:
    which storage elements each window reads (including those that are not elements of ``t``),
    whether windows overlap, and what backward does with an element read several times."""
    args = (size, stride) if storage_offset is None else (size, stride, storage_offset)
    out = t.as_strided(*args)
    shown = ", ".join(str(tuple(a)) if isinstance(a, (list, tuple)) else str(a) for a in args)
    return _windows(t, "as_strided", out, args, f"as_strided({shown})")


def _windows(t: Tensor, op: str, out: Tensor, args: tuple, call: str) -> WindowExplanation:
    """The lines of :func:`explain_unfold` / :func:`explain_as_strided` for the view ``out``."""
    import numpy as np

    if op == "unfold":
        dim, size, step = args
        d = dim % t.ndim if t.ndim else 0
        n_window_dims = out.ndim - 1
    else:
        n_window_dims = max(out.ndim - 1, 0)
    shape, stride, offset = tuple(out.shape), out.stride(), out.storage_offset()
    pos = positions(shape, stride, offset)
    flat = pos.reshape(-1)
    values, counts = np.unique(flat, return_counts=True)
    reads = {int(v): int(c) for v, c in zip(values, counts) if c > 1}
    overlap = bool(reads)
    lines = [
        f"x.{call} of a tensor with shape {tup(t.shape)}, strides {tup(t.stride())} and "
        f"storage offset {t.storage_offset()}: a view (no copy) with shape {tup(shape)}, "
        f"strides {tup(stride)}, storage offset {offset}."
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
        own = set(positions(tuple(t.shape), t.stride(), t.storage_offset()).reshape(-1).tolist())
        outside = sorted(set(flat.tolist()) - own)
        if outside:
            lines.append(
                f"It reads storage positions that are not elements of x: {list_text(outside)} "
                "(as_strided sees the whole storage; its gradient never reaches them)."
            )
    windows = window_lines(pos, n_window_dims) if pos.size else []
    for idx, p in windows:
        lines.append(f"Window {list(idx)} reads storage positions {list_text(p)}.")
    if overlap:
        (p0, c0), *_ = sorted(reads.items(), key=lambda kv: (-kv[1], kv[0]))
        where = [[int(k) for k in i] for i in zip(*np.nonzero(pos == p0))]
        lines.append(
            f"Windows overlap: {len(reads)} storage element(s) are read more than once; "
            f"position {p0} is read {c0} times, at {list_text(where, 4)}. They are the same memory: "
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
