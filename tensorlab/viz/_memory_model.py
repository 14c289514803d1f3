"""What the memory figure shows: a tensor, a chain of ops, and the storage(s) underneath.

A chain is typed the way it is written in code, one op per line or separated by ``;``:
``x.T``, ``.view(-1)``, ``[:, 1:3]``, ``[tensor([0, 2])]``, ``.contiguous()``. Each op is parsed
with :mod:`ast` into a whitelisted method, attribute or index made of literals (nothing is
``eval``-ed) and applied with tensorlab. Every step records its layout and, for each element in
logical (row-major) order, ``offset = storage_offset + sum(index * stride)``. Steps whose
``untyped_storage().data_ptr()`` are equal share one storage; a copy gets a storage of its own.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np

from ..interop import accepts_torch

METHODS = frozenset(
    "transpose permute t view reshape expand contiguous clone flatten unflatten unsqueeze "
    "squeeze narrow select flip swapaxes swapdims movedim moveaxis repeat detach".split()
)
ATTRIBUTES = frozenset({"T", "mT"})
MAX_BASE = 64  # elements of the starting tensor
MAX_CELLS = 160  # elements of any one step that can be drawn
MAX_STEPS = 8

PRESETS = {
    "lecture: y = x.T, then y.view(-1) fails": ("2, 5", "x.T\n.view(-1)"),
    "lecture: y.contiguous().view(-1) works": ("2, 5", "x.T\n.contiguous()\n.view(-1)"),
    "reshape copies when view cannot": ("2, 5", "x.T\n.reshape(-1)"),
    "slice: a view with an offset": ("3, 4", "x[1:, 1:3]"),
    "every other column": ("3, 4", "x[:, ::2]"),
    "expand: stride 0": ("1, 4", "x.expand(3, 4)"),
    "index with a tensor copies": ("3, 4", "x[tensor([0, 2])]"),
    "permute a 3-d tensor": ("2, 3, 2", "x.permute(2, 0, 1)"),
    "unsqueeze, then view": ("2, 3", "x.unsqueeze(0)\n.view(3, 2)"),
}


@dataclass(frozen=True)
class IndexTensor:
    """``tensor([...])`` inside an index: an advanced index (the result is a copy)."""

    values: tuple


@dataclass(frozen=True)
class Op:
    kind: str  # "method" | "attr" | "index"
    name: str
    args: tuple = ()
    kwargs: tuple = ()  # (name, value) pairs
    text: str = ""


def _literal(node: ast.AST):
    """A literal argument: numbers, None, tuples and lists of them, ``tensor([...])``."""
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "tensor" and len(node.args) == 1 and not node.keywords:
            return IndexTensor(_as_tuple(ast.literal_eval(node.args[0])))
        raise ValueError(f"only literal arguments are allowed, not {ast.unparse(node)!r}")
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ValueError(f"only literal arguments are allowed, not {ast.unparse(node)!r}") from None


def _as_tuple(v):
    return tuple(_as_tuple(x) for x in v) if isinstance(v, (list, tuple)) else v


def _index_part(node: ast.AST):
    if isinstance(node, ast.Slice):
        parts = [None if p is None else _literal(p) for p in (node.lower, node.upper, node.step)]
        return slice(*parts)
    if isinstance(node, ast.Constant) and node.value is Ellipsis:
        return Ellipsis
    value = _literal(node)
    if isinstance(value, list):
        return IndexTensor(_as_tuple(value))
    return value


def _index_key(node: ast.AST):
    if isinstance(node, ast.Tuple):
        return tuple(_index_part(e) for e in node.elts)
    return _index_part(node)


def _unwind(node: ast.AST) -> list[Op]:
    if isinstance(node, ast.Name) and node.id == "x":
        return []
    if isinstance(node, ast.Attribute):
        if node.attr not in ATTRIBUTES:
            raise ValueError(f"unknown attribute .{node.attr} (use one of {sorted(ATTRIBUTES)})")
        return _unwind(node.value) + [Op("attr", node.attr, text=f".{node.attr}")]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        name = node.func.attr
        if name not in METHODS:
            raise ValueError(f"unknown method .{name}() (use one of {', '.join(sorted(METHODS))})")
        args = tuple(_literal(a) for a in node.args)
        kwargs = tuple((k.arg, _literal(k.value)) for k in node.keywords)
        shown = ", ".join(
            [ast.unparse(a) for a in node.args] + [ast.unparse(k) for k in node.keywords]
        )
        return _unwind(node.func.value) + [Op("method", name, args, kwargs, f".{name}({shown})")]
    if isinstance(node, ast.Subscript):
        key = _index_key(node.slice)
        sl = node.slice
        shown = (
            ", ".join(ast.unparse(e) for e in sl.elts)
            if isinstance(sl, ast.Tuple)
            else ast.unparse(sl)
        )
        return _unwind(node.value) + [Op("index", "[]", (key,), text=f"[{shown}]")]
    raise ValueError(f"cannot read {ast.unparse(node)!r}: write x.method(...), x.T or x[...]")


def parse_ops(line: str) -> list[Op]:
    """One line of code (``x.T.contiguous()``, ``.view(-1)``, ``[:, 1]``) -> its ops, in order."""
    src = line.strip()
    if src.startswith("x") and src[1:2] in (".", "["):
        src = src[1:]
    elif not src.startswith((".", "[")):
        src = "." + src
    try:
        tree = ast.parse("x" + src, mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot read {line.strip()!r} as Python") from None
    return _unwind(tree.body)


def parse_chain(text: str) -> list[Op]:
    """Ops from several lines (or ``;``-separated parts); ``#`` starts a comment."""
    ops: list[Op] = []
    for part in re.split(r"[\n;]", text):
        part = part.split("#", 1)[0].strip()
        if part and part != "x":
            ops.extend(parse_ops(part))
    return ops


def _materialise(v):
    import tensorlab as tl

    if isinstance(v, IndexTensor):
        return tl.tensor(list(v.values))
    if isinstance(v, tuple):
        return tuple(_materialise(x) for x in v)
    return v


def apply_op(t, op: Op):
    """Run one op on tensor ``t`` with tensorlab."""
    if op.kind == "attr":
        return getattr(t, op.name)
    if op.kind == "method":
        fn = getattr(t, op.name, None)
        if fn is None:
            raise NotImplementedError(f"tensorlab has no Tensor.{op.name} yet")
        return fn(*_materialise(op.args), **{k: _materialise(v) for k, v in op.kwargs})
    return t[_materialise(op.args[0])]


# ---------------------------------------------------------------------------------- model


@dataclass
class Step:
    name: str  # "x", "x.T", "x.T.view(-1)"
    op_text: str
    tensor: object
    shape: tuple[int, ...]
    stride: tuple[int, ...]
    offset: int
    offsets: np.ndarray  # storage position of each element, logical (row-major) order
    values: np.ndarray  # value of each element, logical order (after the writes)
    storage: int  # index into MemoryModel.storages
    kind: str  # "base" | "view" | "copy"
    contiguous: bool


@dataclass
class Storage:
    name: str  # "A", "B", ...
    values: np.ndarray  # the whole buffer, in storage order (after the writes)
    made_by: int  # the step that created it


@dataclass
class Write:
    step: int
    element: int  # flat logical index in that step
    value: float
    offset: int | None = None
    storage: int | None = None
    error: str | None = None


@dataclass
class StepError:
    op_text: str
    message: str  # "RuntimeError: view size is not compatible ..."
    explanation: str | None = None  # tensorlab.explain_view's words, for a failed view


@dataclass
class MemoryModel:
    steps: list[Step]
    storages: list[Storage]
    selected: int
    element: int
    element_index: tuple[int, ...]
    element_offset: int | None
    writes: list[Write] = field(default_factory=list)
    error: StepError | None = None

    @property
    def view(self) -> Step:
        return self.steps[self.selected]

    def covered(self) -> np.ndarray:
        """Sorted storage positions the selected step reads (each once)."""
        return np.unique(self.view.offsets)

    def walk(self) -> list[tuple[int, int]]:
        """Consecutive (from, to) storage positions in the selected step's logical order."""
        o = self.view.offsets.tolist()
        return list(zip(o[:-1], o[1:]))

    def lit(self) -> dict[int, set[int]]:
        """Written storage positions, per storage index."""
        out: dict[int, set[int]] = {}
        for w in self.writes:
            if w.error is None and w.storage is not None:
                out.setdefault(w.storage, set()).add(w.offset)
        return out

    def formula(self) -> str:
        """``offset = storage_offset + sum(index * stride)`` with the numbers of the chosen element."""
        v = self.view
        if not v.offsets.size:
            return f"{v.name} has no elements"
        terms = " + ".join(f"{i}·{s}" for i, s in zip(self.element_index, v.stride))
        idx = ", ".join(str(i) for i in self.element_index)
        return (
            f"{v.name}[{idx}]: offset = storage_offset + Σ index·stride = {v.offset}"
            + (f" + {terms}" if terms else "")
            + f" = {self.element_offset}  → storage {self.storages[v.storage].name}"
            f"[{self.element_offset}] = {_fmt(v.values[self.element])}"
        )

    def describe(self) -> str:
        v = self.view
        kind = {
            "base": "the starting tensor",
            "view": f"a view of storage {self.storages[v.storage].name}",
            "copy": f"a copy in new storage {self.storages[v.storage].name}",
        }[v.kind]
        text = (
            f"{v.name}: shape {v.shape}, strides {v.stride}, storage_offset {v.offset}, "
            f"{'contiguous' if v.contiguous else 'not contiguous'}; {kind}"
        )
        if self.error is not None:
            text += f" | next step {self.error.op_text} failed: {self.error.message}"
        return text


def _fmt(v) -> str:
    v = float(v)
    return str(int(v)) if v == int(v) else f"{v:g}"


def _private_copy(t):
    """The same layout over a private copy of ``t``'s storage (the figure never writes to yours)."""
    from tensorlab._storage import UntypedStorage
    from tensorlab._tensor import Tensor

    arr = np.array(t._storage._array, copy=True)
    return Tensor(UntypedStorage(arr), t.shape, t.stride(), t.storage_offset(), t.dtype)


def base_tensor(shape) -> object:
    """``arange(n).view(shape)``: each element's value starts equal to its storage position."""
    import tensorlab as tl

    shape = tuple(int(s) for s in shape)
    n = int(np.prod(shape)) if shape else 1
    if n > MAX_BASE:
        raise ValueError(f"{n} elements are too many to draw (at most {MAX_BASE})")
    return tl.arange(n).view(shape) if shape else tl.tensor(0)


def _explain(prev, op: Op) -> str | None:
    if op.kind != "method" or op.name != "view":
        return None
    try:
        import tensorlab as tl

        ex = tl.explain_view(prev, *op.args)
    except Exception:  # noqa: BLE001 - the explanation is a bonus; the error text stays
        return None
    return str(ex)


def _storage_key(t) -> int:
    return t.untyped_storage().data_ptr()


@accepts_torch
def memory_model(
    x=None,
    chain: str | list[Op] = "",
    *,
    shape=(2, 5),
    selected: int | None = None,
    element: int = 0,
    writes: list[tuple[int, int, float]] | None = None,
) -> MemoryModel:
    """Apply ``chain`` to ``x`` (default ``arange(n).view(shape)``) and lay out every step.

    ``selected`` picks the step the highlights are about (default: the last one that worked),
    ``element`` a flat logical index in it. ``writes`` are ``(step, element, value)`` assignments
    made *after* the chain ran, through that step's tensor: every step on the same storage sees
    them. A failing op ends the chain; its error (and for ``view`` the engine's explanation) is
    recorded, the steps before it are kept. Parse errors raise ``ValueError``.
    """
    ops = parse_chain(chain) if isinstance(chain, str) else list(chain)
    if len(ops) + 1 > MAX_STEPS:
        raise ValueError(f"at most {MAX_STEPS - 1} ops can be drawn, got {len(ops)}")
    base = base_tensor(shape) if x is None else _private_copy(x)
    if base.numel() > MAX_CELLS:
        raise ValueError(f"{base.numel()} elements are too many to draw (at most {MAX_CELLS})")
    tensors = [base]
    names = ["x"]
    texts = [""]
    error = None
    for op in ops:
        prev = tensors[-1]
        try:
            out = apply_op(prev, op)
        except Exception as e:  # noqa: BLE001 - any engine error is shown, never raised
            msg = f"{type(e).__name__}: {e}"
            error = StepError(op.text, msg, _explain(prev, op))
            break
        if out.numel() > MAX_CELLS:
            error = StepError(op.text, f"{out.numel()} elements are too many to draw")
            break
        tensors.append(out)
        names.append(names[-1] + op.text)
        texts.append(op.text)

    keys: list[int] = []
    step_storage = []
    for t in tensors:
        k = _storage_key(t)
        if k not in keys:
            keys.append(k)
        step_storage.append(keys.index(k))

    write_log: list[Write] = []
    for k, flat, value in writes or []:
        w = Write(int(k), int(flat), value)
        write_log.append(w)
        if not 0 <= w.step < len(tensors):
            w.error = f"there is no step {w.step}"
            continue
        t = tensors[w.step]
        if not 0 <= w.element < max(t.numel(), 0):
            w.error = f"{names[w.step]} has no element {w.element}"
            continue
        idx = tuple(int(i) for i in np.unravel_index(w.element, t.shape)) if t.ndim else ()
        try:
            t[idx] = value
        except Exception as e:  # noqa: BLE001
            w.error = f"{type(e).__name__}: {e}"
            continue
        w.offset = t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))
        w.storage = step_storage[w.step]

    from tensorlab import _layout as L

    steps = []
    for i, t in enumerate(tensors):
        s = step_storage[i]
        kind = "base" if i == 0 else ("view" if s == step_storage[i - 1] else "copy")
        offsets = np.array(L.element_offsets(t.shape, t.stride(), t.storage_offset()), dtype=int)
        values = np.array(t._np(), dtype=float).reshape(-1)
        steps.append(
            Step(
                names[i],
                texts[i],
                t,
                tuple(t.shape),
                tuple(t.stride()),
                t.storage_offset(),
                offsets,
                values,
                s,
                kind,
                t.is_contiguous(),
            )
        )
    storages = []
    for j in range(len(keys)):
        first = step_storage.index(j)
        arr = tensors[first]._storage._array
        storages.append(Storage(chr(ord("A") + j), np.array(arr, dtype=float), first))

    sel = len(steps) - 1 if selected is None else int(selected)
    if not 0 <= sel < len(steps):
        raise IndexError(f"step {sel} does not exist (0 .. {len(steps) - 1})")
    view = steps[sel]
    n = view.offsets.size
    el = min(max(int(element), 0), max(n - 1, 0))
    index = tuple(int(i) for i in np.unravel_index(el, view.shape)) if view.shape and n else ()
    return MemoryModel(
        steps,
        storages,
        sel,
        el,
        index,
        int(view.offsets[el]) if n else None,
        write_log,
        error,
    )
