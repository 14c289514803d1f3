"""What the axes figure shows: ``unsqueeze`` / ``squeeze`` on a shape, computed without matplotlib.

Every axis carries an identity (an int) so a picture can follow it through the operation: the
original axes keep their identities, an inserted axis gets a fresh one. The shapes and strides
come from tensorlab's own ``unsqueeze`` / ``squeeze`` (views on the same storage).
"""

from __future__ import annotations

from dataclasses import dataclass, field

OPS = ("unsqueeze", "squeeze(dim)", "squeeze()")
MAX_NDIM = 6
MAX_NUMEL = 1 << 26


def parse_shape(text: str) -> tuple[int, ...]:
    """``"16, 16"``, ``"(1, 16, 16)"`` or ``"[2 3]"`` -> a shape tuple. Raises ``ValueError``."""
    cleaned = text.strip().strip("()[]").replace(",", " ").replace("x", " ").replace("×", " ")
    parts = cleaned.split()
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"a shape is whole numbers separated by commas, got {text!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"sizes cannot be negative, got {shape}")
    return shape


@dataclass
class AxesModel:
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    op: str  # one of OPS
    dim: int | None  # as given (may be negative); None for squeeze()
    ids: tuple[int, ...]  # identity of each input axis
    new_shape: tuple[int, ...] = ()
    new_stride: tuple[int, ...] = ()
    new_ids: tuple[int, ...] = ()
    wrapped: int | None = None  # dim after wrapping
    inserted: int | None = None  # position of the new axis in the result
    removed: tuple[int, ...] = ()  # input axes that disappear
    shares_storage: bool = True
    error: str | None = None  # the engine's exception, "IndexError: ..."
    history: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None

    def code(self) -> str:
        if self.op == "unsqueeze":
            return f"x.unsqueeze({self.dim})"
        if self.op == "squeeze(dim)":
            return f"x.squeeze({self.dim})"
        return "x.squeeze()"

    def note(self) -> str:
        """A sentence on what happened (or why nothing did)."""
        if not self.ok:
            return self.error
        if self.op == "unsqueeze":
            return (
                f"a new axis of size 1 is inserted at position {self.inserted}; "
                f"its stride is {self.new_stride[self.inserted]} (any value works for size 1)"
            )
        if self.removed:
            axes = ", ".join(str(d) for d in self.removed)
            return f"axis {axes} (size 1) removed; the other sizes and strides are unchanged"
        if not self.shape:
            return "nothing removed: a 0-dim tensor has no axis (dims -1 and 0 are accepted)"
        if self.op == "squeeze(dim)":
            return (
                f"nothing removed: axis {self.wrapped} has size {self.shape[self.wrapped]}, not 1 "
                "(squeeze(dim) only removes size-1 axes, and raises no error)"
            )
        return "nothing removed: no axis has size 1"

    def describe(self) -> str:
        before = f"shape {self.shape}, strides {self.stride}"
        if not self.ok:
            return f"x: {before}; {self.code()} raises {self.error}"
        return (
            f"x: {before} → {self.code()}: shape {self.new_shape}, strides {self.new_stride} "
            f"({'a view: same storage' if self.shares_storage else 'a copy'})"
        )


def axes_model(
    shape,
    op: str = "unsqueeze",
    dim: int | None = 0,
    *,
    ids: tuple[int, ...] | None = None,
    history: list[tuple[int, ...]] | None = None,
) -> AxesModel:
    """Apply ``op`` to an empty tensor of ``shape`` with tensorlab and track every axis.

    Errors of the engine (a dim out of range) are recorded in ``error`` with PyTorch's text.
    """
    import tensorlab as tl

    shape = tuple(int(s) for s in shape)
    if op not in OPS:
        raise ValueError(f"op must be one of {OPS}, got {op!r}")
    if len(shape) > MAX_NDIM:
        raise ValueError(f"at most {MAX_NDIM} axes can be drawn, got {len(shape)}")
    n = 1
    for s in shape:
        n *= s
    if n > MAX_NUMEL:
        raise ValueError(f"{n} elements is more than this explorer allocates ({MAX_NUMEL})")
    ids = tuple(range(len(shape))) if ids is None else tuple(ids)
    if len(ids) != len(shape):
        raise ValueError("one identity per axis")
    x = tl.empty(shape)
    m = AxesModel(shape, x.stride(), op, None if op == "squeeze()" else dim, ids)
    m.history = list(history or [shape])
    try:
        if op == "unsqueeze":
            y = x.unsqueeze(dim)
        elif op == "squeeze(dim)":
            y = x.squeeze(dim)
        else:
            y = x.squeeze()
    except (IndexError, RuntimeError, TypeError) as e:
        m.error = f"{type(e).__name__}: {e}"
        return m
    m.new_shape, m.new_stride = tuple(y.shape), y.stride()
    m.shares_storage = (
        y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() or x.numel() == 0
    )
    fresh = max(ids, default=-1) + 1
    if op == "unsqueeze":
        d = dim + len(shape) + 1 if dim < 0 else dim
        m.wrapped = m.inserted = d
        m.new_ids = ids[:d] + (fresh,) + ids[d:]
    else:
        if op == "squeeze(dim)":
            d = (dim + len(shape) if dim < 0 else dim) if shape else 0
            m.wrapped = d
            candidates = [d] if shape else []
        else:
            candidates = list(range(len(shape)))
        m.removed = tuple(a for a in candidates if shape[a] == 1)
        m.new_ids = tuple(i for a, i in enumerate(ids) if a not in m.removed)
    if len(m.new_ids) != len(m.new_shape):  # the engine disagrees with the bookkeeping: say so
        m.error = f"unexpected result shape {m.new_shape}"
    return m


# ---------------------------------------------------------------------------------- brackets


def shown_items(size: int, cap: int) -> list[int | None]:
    """Indices drawn along an axis: all, or the first ``cap - 2``, ``None`` (an ellipsis), the last."""
    if size <= cap:
        return list(range(size))
    return list(range(cap - 2)) + [None, size - 1]


@dataclass
class NestLayout:
    """Geometry of the nested-bracket picture of a shape (y grows downwards)."""

    width: float
    height: float
    boxes: list[tuple[float, float, float, float, int]]  # x0, y0, x1, y1, axis
    leaves: list[tuple[float, float]]  # centres of drawn elements
    ellipses: list[tuple[float, float, str]]  # centre, "…" or "⋮"


def nest_layout(
    shape: tuple[int, ...],
    *,
    row_cap: int = 6,
    column_cap: int = 4,
    outer_cap: int = 3,
    gap: float = 0.35,
) -> NestLayout:
    """Lay out ``[[...]]``: the last axis runs left to right, the one before top to bottom, and so on.

    Each axis is a box (drawn as a pair of brackets) holding its items; long axes show their first
    items, an ellipsis and the last one. A 0-dim tensor is a single element with no brackets.
    """
    n = len(shape)
    pad = 0.4

    def cap_of(level: int) -> int:
        if level < n - 2:
            return outer_cap
        return row_cap if (n - 1 - level) % 2 == 0 else column_cap

    # sizes bottom-up: every item of an axis has the same size
    sizes = [(1.0, 1.0)] * (n + 1)
    for level in range(n - 1, -1, -1):
        k = len(shown_items(shape[level], cap_of(level)))
        cw, ch = sizes[level + 1]
        horizontal = (n - 1 - level) % 2 == 0
        if horizontal:
            w = k * cw + max(k - 1, 0) * gap + 2 * pad
            h = ch + 2 * pad
        else:
            w = cw + 2 * pad
            h = k * ch + max(k - 1, 0) * gap + 2 * pad
        sizes[level] = (max(w, 2 * pad + 0.4), max(h, 2 * pad + 0.4))
    boxes, leaves, ellipses = [], [], []

    def place(level: int, x: float, y: float) -> None:
        if level == n:
            leaves.append((x + 0.5, y + 0.5))
            return
        w, h = sizes[level]
        boxes.append((x, y, x + w, y + h, level))
        cw, ch = sizes[level + 1]
        horizontal = (n - 1 - level) % 2 == 0
        for k, item in enumerate(shown_items(shape[level], cap_of(level))):
            cx = x + pad + (k * (cw + gap) if horizontal else 0.0)
            cy = y + pad + (0.0 if horizontal else k * (ch + gap))
            if item is None:
                ellipses.append((cx + cw / 2, cy + ch / 2, "…" if horizontal else "⋮"))
            else:
                place(level + 1, cx, cy)

    place(0, 0.0, 0.0)
    w, h = sizes[0]
    return NestLayout(w, h, boxes, leaves, ellipses)
