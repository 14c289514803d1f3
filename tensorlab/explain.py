"""Plain-words explanations of what the engine does: why a ``view`` works or fails."""

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


def explain_view(t: Tensor, *shape) -> ViewExplanation:
    """Say whether ``t.view(*shape)`` works and why, in plain words.

    A view only changes the metadata, so each new dim needs *one* stride. Old dims can share a new
    dim only if they sit one after another in memory: ``stride[d] == size[d+1] * stride[d+1]``.
    The old dims fall into blocks ("chunks") that satisfy this; a new dim may split a block or
    cover whole blocks, but never span the border between two blocks.
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
