"""Real PyTorch errors explained in place.

``%load_ext tensorlab`` (IPython, Jupyter) or ``with tensorlab.explain_errors():`` (scripts) adds,
after PyTorch's own traceback and message, an explanation whose first line starts with
``tensorlab``, for the errors learners meet most: ``view`` on incompatible strides and impossible
shapes, convolution channels / groups / kernel size / padding, ``Linear`` and ``matmul`` shapes,
broadcasting, ``cat``/``stack`` sizes, dims out of range, and in-place writes to a leaf that
requires grad. The exception and its traceback are unchanged; an error the explainer cannot read
is left alone; a cell without an error costs nothing (the hook only runs when one is raised).

:func:`explain_error` is the function behind both: it reads the message, and, to say more, the
line that failed (tensors named there are looked up, never recomputed: only names, attributes,
constants, indexing and a few side-effect-free view methods are evaluated).
"""

from __future__ import annotations

import ast
import linecache
import os
import re
import sys

__all__ = [
    "explain_error",
    "explain_errors",
    "load_ipython_extension",
    "unload_ipython_extension",
]

HEAD = "tensorlab"


# ---------------------------------------------------------------------------- the failing line


class _Context:
    """Where the error came from: the innermost frame of user code, its source line and AST,
    and every frame of the traceback (layers' ``forward`` frames tell which layer failed)."""

    def __init__(self, tb):
        self.frames = []
        while tb is not None:
            self.frames.append((tb.tb_frame, tb.tb_lineno))
            tb = tb.tb_next
        self.frame, self.line, self.tree = None, "", None
        for frame, lineno in reversed(self.frames):
            if not _library_file(frame.f_code.co_filename):
                self.frame = frame
                self.line = linecache.getline(frame.f_code.co_filename, lineno).strip()
                break
        if self.line:
            try:
                self.tree = ast.parse(self.line.rstrip(":").removeprefix("return "))
            except SyntaxError:
                for prefix in ("if ", "elif ", "while ", "with ", "for "):  # a compound's head
                    if self.line.startswith(prefix):
                        try:
                            self.tree = ast.parse(self.line[len(prefix) :].rstrip(":"))
                        except SyntaxError:
                            pass

    def calls(self, *names: str):
        """``(call node, receiver node or None)`` for every call of a method or function named
        in ``names`` on the failing line (``x.view(...)``, ``torch.cat(...)``)."""
        if self.tree is None:
            return []
        out = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and f.attr in names:
                    out.append((node, f.value))
                elif isinstance(f, ast.Name) and f.id in names:
                    out.append((node, None))
        return out

    def value(self, node):
        """The value of ``node`` in the failing frame, or raise ``_Unsafe``."""
        if self.frame is None:
            raise _Unsafe
        return _safe_eval(node, self.frame)

    def layer(self, *attrs: str):
        """The module whose ``forward`` raised (torch's or tensorlab's), if it has ``attrs``."""
        for frame, _ in reversed(self.frames):
            me = frame.f_locals.get("self")
            if frame.f_code.co_name in ("forward", "_conv_forward") and me is not None:
                if all(hasattr(me, a) for a in attrs):
                    return me
        return None


def _library_file(filename: str) -> bool:
    """Code of torch, tensorlab, IPython or Python itself: not where the learner's line is."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
    for name in ("torch", "IPython"):
        mod = sys.modules.get(name)
        if mod is not None and getattr(mod, "__file__", None):
            roots.append(os.path.dirname(mod.__file__))
    path = os.path.abspath(filename) if not filename.startswith("<") else filename
    return any(path.startswith(r + os.sep) for r in roots) or filename.startswith("<frozen")


class _Unsafe(Exception):
    """An expression the explainer will not evaluate (it could have side effects)."""


# methods that only make views or read metadata: safe to call again on the failing line's tensors
_PURE = {
    "T",
    "mT",
    "t",
    "transpose",
    "permute",
    "contiguous",
    "view",
    "reshape",
    "unsqueeze",
    "squeeze",
    "flatten",
    "narrow",
    "select",
    "unfold",
    "expand",
    "detach",
    "size",
    "stride",
    "dim",
    "numel",
    "movedim",
    "swapaxes",
    "float",
    "double",
}


def _safe_eval(node, frame):
    ev = lambda n: _safe_eval(n, frame)  # noqa: E731
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        for scope in (frame.f_locals, frame.f_globals):
            if node.id in scope:
                return scope[node.id]
        raise _Unsafe
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise _Unsafe
        return getattr(ev(node.value), node.attr)
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [ev(e) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = ev(node.operand)
        if isinstance(v, (int, float)):
            return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.Subscript):  # tensors and Python containers only (not datasets)
        base = ev(node.value)
        if isinstance(base, (list, tuple, dict)) or hasattr(base, "stride"):
            return base[ev(node.slice)]
    if isinstance(node, ast.Slice):
        return slice(*(None if p is None else ev(p) for p in (node.lower, node.upper, node.step)))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in _PURE and not node.keywords:
            target = ev(node.func.value)
            if hasattr(target, "shape") and hasattr(target, "stride"):
                return getattr(target, node.func.attr)(*map(ev, node.args))
    raise _Unsafe


def _shape(t) -> list[int] | None:
    s = getattr(t, "shape", None)
    try:
        return [int(v) for v in s] if s is not None else None
    except (TypeError, ValueError):
        return None


def _ints(text: str) -> list[int]:
    return [int(v) for v in re.findall(r"-?\d+", text)]


def _dims(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------------------- the families


def _view_strides(m, exc, ctx) -> str:
    from .view import explain_view

    for call, receiver in ctx.calls("view"):
        if receiver is None:
            continue
        try:
            t = ctx.value(receiver)
            args = [ctx.value(a) for a in call.args]
        except Exception:
            continue
        if not hasattr(t, "stride"):
            continue
        try:
            ex = explain_view(t, *args)
        except Exception:
            continue
        if not ex.ok:
            name = ast.unparse(receiver)
            return "\n".join(
                [f"{HEAD}: {name}.{ex.lines[0]}"] + ex.lines[1:] + [_VIEW_TAIL.format(name=name)]
            )
    return (
        f"{HEAD}: view() never copies: it keeps the memory and gives each new dim one stride. "
        "This tensor's elements do not lie in memory in the order the new shape reads them "
        "(it was transposed, permuted, expanded or sliced with a step), so no strides can "
        "describe the new shape.\n"
        "Use .reshape(...) (it copies when it must), or .contiguous() first, then .view(...).\n"
        "tensorlab.explain_view(t, *shape) names the dims that cannot be merged."
    )


_VIEW_TAIL = "tensorlab.explain_view({name}, *shape) says the same; MemoryExplorer draws it."


def _shape_invalid(m, exc, ctx) -> str:
    shape, n = _ints(m.group(1)), int(m.group(2))
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    lines = [
        f"{HEAD}: view/reshape{tuple(shape)} fails before strides matter: the tensor has {n} "
        f"elements; the new shape must hold exactly that many (reshape fails the same way)."
    ]
    if -1 in shape:
        lines.append(
            f"-1 stands for 'whatever is left': {n} / {known} (the other sizes multiplied) is not "
            "a whole number."
            if known
            else "-1 cannot be inferred when another size is 0."
        )
    else:
        lines.append(f"{' x '.join(map(str, shape)) or '1'} = {known}, not {n}.")
    lines.append("print(x.shape) before the call: an earlier layer may have changed a size.")
    return "\n".join(lines)


def _unflatten(m, exc, ctx) -> str:
    sizes, dim, n = _ints(m.group(1)), int(m.group(2)), int(m.group(3))
    return (
        f"{HEAD}: unflatten splits dim {dim} (size {n}) into {_dims(sizes)}; the sizes must "
        f"multiply to {n} (one of them may be -1)."
    )


_CONV_NAME = {3: "conv1d", 4: "conv2d", 5: "conv3d"}
_LAYER_NAME = {3: "Conv1d", 4: "Conv2d", 5: "Conv3d"}


def _conv_channels(m, exc, ctx) -> str:
    transposed = m.group(1) == "transposed"
    groups = 1 if transposed else int(m.group(2))
    weight, inp = _ints(m.group(3)), _ints(m.group(4))
    want, got = int(m.group(5)), int(m.group(6))
    nd = len(weight)
    batched = len(inp) == nd
    kernel = tuple(weight[2:])
    ksize = kernel[0] if len(set(kernel)) == 1 else kernel
    if transposed:
        layer = "ConvTranspose" + _LAYER_NAME[nd][-2:]
        lines = [
            f"{HEAD}: conv_transpose{nd - 2}d reads dim {1 if batched else 0} of the input as "
            f"channels: input {_dims(inp)} has {got} channels, but the weight {_dims(weight)} "
            f"(in_channels, out_channels/groups, *kernel) takes {want}.",
            f"Fix: nn.{layer}({got}, {weight[1]}, {ksize}) (in_channels={got}), or give the "
            f"layer an input with {want} channels.",
        ]
    else:
        layer = _LAYER_NAME[nd]
        per = weight[1]
        lines = [
            f"{HEAD}: {_CONV_NAME[nd]} reads dim {1 if batched else 0} of the input as channels: "
            f"input {_dims(inp)} has {got} channels, but the weight {_dims(weight)} (out_channels,"
            f" in_channels/groups, *kernel) with groups={groups} takes in_channels = {per} x "
            f"{groups} = {want}.",
            f"Fix: nn.{layer}({got}, {weight[0]}, {ksize}"
            + (f", groups={groups}" if groups > 1 else "")
            + f") (in_channels={got}), or give the layer an input with {want} channels.",
        ]
        if groups > 1 and got % groups:
            lines.append(f"With groups={groups}, in_channels must also be a multiple of {groups}.")
    spatial = inp[-(nd - 2) :] if nd > 2 else []
    if want in spatial[-1:] and got != want:
        perm = "x.permute(0, 3, 1, 2)" if len(inp) == 4 else "x.movedim(-1, -3)"
        lines.append(
            f"The last dim of the input is {want}: if your data is channels-last (H, W, C), as "
            f"images from PIL or numpy are, move channels to dim 1 first: {perm}."
        )
    return "\n".join(lines)


def _conv_input_dims(m, exc, ctx) -> str:
    a, b, op, shape = int(m.group(1)), int(m.group(2)), m.group(3), _ints(m.group(4))
    spatial = a - 1
    fix = "x[None, None]" if len(shape) == spatial else "x.unsqueeze(0)"
    return (
        f"{HEAD}: {op} takes (C, {'H, W' if spatial == 2 else '...'}) or (N, C, ...) input: "
        f"{a} or {b} dims, batch and channels first; {_dims(shape)} has {len(shape)}.\n"
        f"For one single-channel signal or image add the missing dims: {fix} (lesson 03)."
    )


def _conv_groups_weight(m, exc, ctx) -> str:
    g, dim, weight = int(m.group(1)), int(m.group(2)), _ints(m.group(3))
    return (
        f"{HEAD}: groups={g} splits the output channels into {g} equal groups, so the weight's "
        f"dim {dim} (out_channels = {weight[0]}) must be a multiple of {g}.\n"
        f"Each group then reads in_channels/groups input channels; "
        f"tensorlab.viz.groups_figure(in, out, groups) draws the connections."
    )


def _groups_layer(m, exc, ctx) -> str:
    which = m.group(1)
    lines = [
        f"{HEAD}: groups=g splits the input channels and the output channels each into g equal "
        f"groups (group k's outputs see only group k's inputs), so {which} must be a multiple "
        "of groups, and so must the other channel count."
    ]
    for call, _ in ctx.calls(*_LAYERS):
        try:
            args = [ctx.value(a) for a in call.args[:2]]
            kw = {k.arg: ctx.value(k.value) for k in call.keywords if k.arg}
        except Exception:
            continue
        cin, cout = (args + [kw.get("in_channels"), kw.get("out_channels")])[:2]
        if "in_channels" in kw:
            cin = kw["in_channels"]
        if "out_channels" in kw:
            cout = kw["out_channels"]
        g = kw.get("groups")
        if isinstance(cin, int) and isinstance(cout, int) and isinstance(g, int):
            import math

            ok = [d for d in range(1, math.gcd(cin, cout) + 1) if cin % d == 0 and cout % d == 0]
            lines.append(
                f"in_channels={cin}, out_channels={cout}: groups can be {', '.join(map(str, ok))}"
                f" (not {g})."
            )
            lines.append(
                f"tensorlab.viz.groups_figure({cin}, {cout}, groups={ok[-1]}) draws the largest."
            )
            break
    return "\n".join(lines)


_LAYERS = tuple(f"Conv{d}d" for d in (1, 2, 3)) + tuple(f"ConvTranspose{d}d" for d in (1, 2, 3))


def _kernel_too_big(m, exc, ctx) -> str:
    size, kernel = m.group(1).replace(" ", ""), m.group(2).replace(" ", "")
    return (
        f"{HEAD}: the kernel ({kernel}, dilation included) is larger than the input after "
        f"padding ({size}): not one window fits, so the output would have size < 1 "
        "(out = (in + 2*padding - dilation*(k-1) - 1) // stride + 1).\n"
        "Fix: pad more (padding=k//2 keeps the size for odd k), use a smaller kernel, or look "
        "for an earlier layer or pooling that made the input this small (print(x.shape))."
    )


def _negative_padding(m, exc, ctx) -> str:
    return (
        f"{HEAD}: padding adds that many rows/columns of zeros on each side; it cannot be "
        "negative. To crop, slice the input (x[..., 1:-1, 1:-1]) or the output."
    )


def _same_strided(m, exc, ctx) -> str:
    return (
        f"{HEAD}: padding='same' keeps the output the size of the input, which a stride > 1 "
        "cannot do (it divides the size by the stride). Give the padding as a number: for an "
        "odd kernel k, padding=k//2 gives out = ceil(in / stride)."
    )


def _pad_too_big(m, exc, ctx) -> str:
    pad, dim, shape = m.group(1), int(m.group(2)), _ints(m.group(3))
    return (
        f"{HEAD}: reflect padding mirrors the input without repeating its edge, so it can add at "
        f"most size - 1 values per side: padding ({pad}) at dim {dim} of input {_dims(shape)} "
        f"needs that dim to be larger than each side's amount.\n"
        "Use less padding, or padding_mode='replicate' / 'circular' / 'zeros'."
    )


def _padding_mode(m, exc, ctx) -> str:
    return (
        f"{HEAD}: padding_mode says what the invented pixels outside the image hold: 'zeros' "
        "(0), 'reflect' (a mirror without the edge), 'replicate' (the edge repeated), "
        "'circular' (the other side). tensorlab.widgets.ConvExplorer() shows each."
    )


def _padding_string(m, exc, ctx) -> str:
    return (
        f"{HEAD}: padding is a number (or one per spatial dim), or 'valid' (no padding) or "
        "'same' (output as large as the input, stride 1 only). 'full' padding is k - 1 per side."
    )


def _output_padding(m, exc, ctx) -> str:
    return (
        f"{HEAD}: output_padding adds rows/columns at the bottom/right of a transposed "
        "convolution's output to pick one of the stride sizes that conv would have mapped to the "
        "same input size; it must be smaller than the stride (or the dilation). With stride=1 "
        "it must be 0."
    )


def _matmul(m, exc, ctx) -> str:
    r1, c1, r2, c2 = (int(m.group(i)) for i in range(1, 5))
    layer = ctx.layer("in_features", "out_features")
    if layer is not None:
        fin, fout = layer.in_features, layer.out_features
        bias = "" if getattr(layer, "bias", None) is not None else ", bias=False"
        return (
            f"{HEAD}: nn.Linear(in_features={fin}, out_features={fout}) multiplies the input's "
            f"last dim by its weight: the input's last dim must be in_features = {fin}, but it "
            f"is {c1} (mat1 is the input seen as ({r1} x {c1}): every dim but the last are rows; "
            f"mat2 is weight.T, ({r2} x {c2})).\n"
            f"Fix: nn.Linear({c1}, {fout}{bias}) (in_features={c1}), or reshape the input so its "
            f"last dim is {fin}. After a conv + flatten, print(x.shape) before the layer to read "
            "the size; nn.LazyLinear finds in_features itself."
        )
    return (
        f"{HEAD}: a matrix product (A @ B, mm, linear) needs A's columns to equal B's rows: "
        f"({r1} x {c1}) @ ({r2} x {c2}), and {c1} != {r2}.\n"
        f"Transpose one side (B.T is ({c2} x {r2})) or reshape; for nn.Linear, in_features must "
        "equal the input's last dim."
    )


def _mv(m, exc, ctx) -> str:
    rows, cols, n = int(m.group(2)), int(m.group(3)), int(m.group(4))
    return (
        f"{HEAD}: a matrix times a vector (A @ v, mv) needs as many columns in A as entries in v: "
        f"({rows} x {cols}) @ ({n},), and {cols} != {n}. Transpose A (A.T is ({cols} x {rows})) "
        "or check which vector you meant."
    )


def _dot(m, exc, ctx) -> str:
    a, b = int(m.group(1)), int(m.group(2))
    return (
        f"{HEAD}: a dot product (u @ v of two 1-d tensors, dot) pairs entry i of u with entry i of "
        f"v, so they need the same length: {a} and {b}."
    )


def _bmm(m, exc, ctx) -> str:
    want, got = _ints(m.group(1)), _ints(m.group(2))
    return (
        f"{HEAD}: bmm multiplies batch by batch: batch2 must be (batch, columns of batch1, ...) "
        f"= {_dims(want)}..., but it is {_dims(got)}...; the batch sizes and the inner sizes must "
        "agree."
    )


def _broadcast(m, exc, ctx) -> str:
    a, b, dim = int(m.group(1)), int(m.group(2)), int(m.group(3))
    lines = [
        f"{HEAD}: broadcasting lines shapes up from the right; at each position the sizes must "
        f"be equal or one of them 1. At dim {dim} (of the broadcast result), one tensor has {a} "
        f"and the other {b}."
    ]
    shapes = _operand_shapes(ctx)
    if shapes:
        width = max(len(s) for s in shapes)
        for name, s in zip(("a", "b"), shapes):
            cells = ["    "] * (width - len(s)) + [f"{v:>4}" for v in s]
            lines.append(f"  {name}: " + "".join(cells))
    lines.append(
        "Fix: put a size-1 dim where one tensor should repeat (x[:, None], x.unsqueeze(1)), or "
        "make the sizes equal; tensorlab.viz.axes_figure shows what unsqueeze adds."
    )
    return "\n".join(lines)


def _operand_shapes(ctx):
    if ctx.tree is None:
        return None
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.BinOp):
            try:
                sa, sb = _shape(ctx.value(node.left)), _shape(ctx.value(node.right))
            except Exception:
                continue
            if sa is not None and sb is not None:
                return sa, sb
    return None


def _inplace_broadcast(m, exc, ctx) -> str:
    out, shape = _ints(m.group(1)), _ints(m.group(2))
    return (
        f"{HEAD}: an in-place op writes its result into the tensor itself, whose shape "
        f"{_dims(out)} cannot grow to the broadcast shape {_dims(shape)}. Use the out-of-place "
        "op (x = x + y) or swap the operands."
    )


def _expand(m, exc, ctx) -> str:
    new, old, dim = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return (
        f"{HEAD}: expand repeats only size-1 dims (stride 0, no copy); dim {dim} has size {old}, "
        f"which cannot become {new}. Add a size-1 dim first (unsqueeze), or use repeat (a copy)."
    )


def _cat_sizes(m, exc, ctx) -> str:
    dim, want, got, k = (int(m.group(i)) for i in range(1, 5))
    lines = [
        f"{HEAD}: cat joins tensors along dim {dim} only; every other dim must be equal. Tensor "
        f"number {k} in the list has size {got} where the first has {want}."
    ]
    shapes = _list_shapes(ctx, "cat", "concat", "concatenate")
    if shapes:
        lines.append("Shapes: " + ", ".join(_dims(s) for s in shapes) + ".")
    lines.append(
        "Pick the dim they differ in (cat(..., dim=d)), or make the other sizes equal; "
        "stack adds a new dim and needs identical shapes."
    )
    return "\n".join(lines)


def _list_shapes(ctx, *names):
    for call, _ in ctx.calls(*names):
        if call.args:
            try:
                seq = ctx.value(call.args[0])
                return [_shape(t) for t in seq]
            except Exception:
                continue
    return None


def _cat_ndim(m, exc, ctx) -> str:
    a, b = int(m.group(1)), int(m.group(2))
    return (
        f"{HEAD}: cat joins tensors along an existing dim, so they need the same number of "
        f"dims: {a} and {b}. unsqueeze the smaller one (or squeeze the larger one) first."
    )


def _stack_sizes(m, exc, ctx) -> str:
    a, i, b, j = _ints(m.group(1)), int(m.group(2)), _ints(m.group(3)), int(m.group(4))
    return (
        f"{HEAD}: stack puts the tensors side by side along a NEW dim, so they must all have the "
        f"same shape: entry {i} is {_dims(a)}, entry {j} is {_dims(b)}. To join along an "
        "existing dim, where sizes may differ in that dim, use cat."
    )


_DIM_OPS = ("unsqueeze", "squeeze", "permute", "transpose", "swapaxes", "movedim", "flatten")


def _dim_range(m, exc, ctx) -> str:
    lo, hi, got = int(m.group(1)), int(m.group(2)), int(m.group(3))
    ops = {
        c.func.attr if isinstance(c.func, ast.Attribute) else c.func.id
        for c, _ in ctx.calls(*_DIM_OPS)
    }
    op = ops.pop() if len(ops) == 1 else None
    if op == "unsqueeze":
        return (
            f"{HEAD}: unsqueeze(dim) inserts a new size-1 dim at position dim of the result: "
            f"for a tensor with {hi} dims that is {lo}..{hi} (negative counts from the end), not "
            f"{got}. tensorlab.viz.axes_figure(shape, 'unsqueeze', dim) draws it."
        )
    if op is not None:
        n = hi + 1
        return (
            f"{HEAD}: the tensor has {n} dims, numbered 0..{n - 1} (or {-n}..-1 from the end); "
            f"{op}() got dim {got}. print(x.shape) to see them"
            + (": squeeze(dim) only removes an existing dim." if op == "squeeze" else ".")
        )
    return (
        f"{HEAD}: dim {got} is out of range: here dims run {lo}..{hi}. A tensor with n dims "
        "numbers them 0..n-1 (or -n..-1 from the end); unsqueeze, which adds one, also takes n. "
        "print(x.shape) to see them."
    )


def _permute_len(m, exc, ctx) -> str:
    n, k = int(m.group(1)), int(m.group(2))
    return (
        f"{HEAD}: permute lists every dim of the tensor exactly once, in the new order: the "
        f"tensor has {n} dims, the call names {k}. e.g. permute({', '.join(map(str, range(n)[::-1]))})"
        " reverses them; to add a dim use unsqueeze."
    )


def _permute_dup(m, exc, ctx) -> str:
    return (
        f"{HEAD}: permute lists every dim exactly once: a dim named twice would leave another "
        "one out. To repeat data use expand or repeat."
    )


def _leaf(m, exc, ctx) -> str:
    view = m.group(1) is not None
    what = (
        "a view of a leaf that requires grad: it shares the leaf's memory, so writing through it "
        "would change the leaf just the same"
        if view
        else "a leaf that requires grad (a tensor you created, e.g. a layer's weight)"
    )
    return (
        f"{HEAD}: an in-place op (add_, mul_, x[i] = ..., zero_, ...) would change {what}. "
        "autograd stores the leaf's gradient in .grad, and it must be the gradient of the values "
        "you created, so PyTorch refuses in-place changes while gradients are recorded.\n"
        "Fix: use an out-of-place op (x = x + 1), clone() first (the write is then recorded), "
        "or, to change the leaf on purpose (initialise or update weights, as an optimiser "
        "does), wrap it in `with torch.no_grad():`. tensorlab's lesson 12 shows all three."
    )


_FAMILIES = [
    (r"view size is not compatible with input tensor's size and stride", _view_strides),
    (r"shape '\[([-\d, ]*)\]' is invalid for input of size (\d+)", _shape_invalid),
    (
        r"unflatten: Provided sizes \[([-\d, ]*)\] don't multiply up to the size of dim "
        r"(-?\d+) \((\d+)\)",
        _unflatten,
    ),
    (
        r"Given (groups|transposed)=(\d+), weight of size \[([\d, ]+)\], expected "
        r"input\[([\d, ]+)\] to have (\d+) channels, but got (\d+) channels instead",
        _conv_channels,
    ),
    (
        r"Expected (\d)D \(unbatched\) or (\d)D \(batched\) input to (\w+), but got input of "
        r"size: \[([\d, ]*)\]",
        _conv_input_dims,
    ),
    (
        r"Given groups=(\d+), expected weight to be divisible by \d+ at dimension (\d+), but "
        r"got weight of size \[\[([\d, ]+)\]\]",
        _conv_groups_weight,
    ),
    (r"^(in_channels|out_channels) must be divisible by groups", _groups_layer),
    (
        r"Calculated padded input size per channel: \(([\d x]+)\)\. Kernel size: \(([\d x]+)\)\."
        r" Kernel size can't be greater than actual input size",
        _kernel_too_big,
    ),
    (r"negative padding is not supported", _negative_padding),
    (r"padding='same' is not supported for strided convolutions", _same_strided),
    (
        r"Padding size should be less than the corresponding input dimension, but got: padding "
        r"\(([\d, ]+)\) at dimension (\d+) of input \[([\d, ]+)\]",
        _pad_too_big,
    ),
    (r"padding_mode must be one of", _padding_mode),
    (r"Invalid padding string", _padding_string),
    (r"output padding must be smaller than either stride or dilation", _output_padding),
    (r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", _matmul),
    (r"size mismatch, got input \((\d+)\), mat \((\d+)x(\d+)\), vec \((\d+)\)", _mv),
    (
        r"inconsistent tensor size, expected tensor \[\d+\] and src \[\d+\] to have the same "
        r"number of elements, but got (\d+) and (\d+) elements",
        _dot,
    ),
    (
        r"Expected size for first two dimensions of batch2 tensor to be: \[([\d, ]+)\] but got: "
        r"\[([\d, ]+)\]",
        _bmm,
    ),
    (
        r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
        r"non-singleton dimension (\d+)",
        _broadcast,
    ),
    (
        r"output with shape \[([\d, ]*)\] doesn't match the broadcast shape \[([\d, ]*)\]",
        _inplace_broadcast,
    ),
    (
        r"The expanded size of the tensor \((-?\d+)\) must match the existing size \((\d+)\) at "
        r"non-singleton dimension (\d+)",
        _expand,
    ),
    (
        r"Sizes of tensors must match except in dimension (\d+)\. Expected size (\d+) but got "
        r"size (\d+) for tensor number (\d+) in the list",
        _cat_sizes,
    ),
    (r"Tensors must have same number of dimensions: got (\d+) and (\d+)", _cat_ndim),
    (
        r"stack expects each tensor to be equal size, but got \[([\d, ]*)\] at entry (\d+) and "
        r"\[([\d, ]*)\] at entry (\d+)",
        _stack_sizes,
    ),
    (
        r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got "
        r"(-?\d+)\)",
        _dim_range,
    ),
    (
        r"number of dimensions in the tensor input does not match the length of the desired "
        r"ordering of dimensions i\.e\. input\.dim\(\) = (\d+) is not equal to len\(dims\) = (\d+)",
        _permute_len,
    ),
    (r"permute\(\): duplicate dims are not allowed", _permute_dup),
    (r"a (view of )?a? ?leaf Variable that requires grad is being used in an in-place", _leaf),
]
_COMPILED = [(re.compile(p), f) for p, f in _FAMILIES]


def explain_error(exc: BaseException, tb=None) -> str | None:
    """The explanation of a (PyTorch or tensorlab) error, whose first line starts with
    ``tensorlab``, or ``None`` when the message is not one the explainer reads.
    ``tb`` defaults to ``exc.__traceback__``; it is only read (the failing line's tensors)."""
    if not isinstance(exc, (RuntimeError, ValueError, IndexError, TypeError)):
        return None
    msg = str(exc)
    for pattern, family in _COMPILED:
        m = pattern.search(msg)
        if m is None:
            continue
        try:
            return family(m, exc, _Context(tb if tb is not None else exc.__traceback__))
        except Exception:  # the explainer must never hide the real error
            return None
    return None


def _already(exc) -> bool:
    return any(str(n).startswith(HEAD) for n in getattr(exc, "__notes__", ()) or ())


class explain_errors:
    """``with tensorlab.explain_errors():`` - a PyTorch error raised inside the block leaves it
    with its type, message and traceback unchanged, plus an explanation printed right after the
    message (an exception note; on Python 3.10, printed to stderr before the traceback)."""

    def __enter__(self):
        return self

    def __exit__(self, etype, exc, tb):
        if exc is None or _already(exc):
            return False
        text = explain_error(exc, tb)
        if text:
            if hasattr(exc, "add_note"):
                exc.add_note(text)
            else:  # pragma: no cover - Python 3.10
                print(text, file=sys.stderr)
        return False


# ---------------------------------------------------------------------------- IPython


_PREVIOUS: dict = {}


def _handler(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler: its own traceback first, then the explanation."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    if not _already(value):
        text = explain_error(value, tb)
        if text:
            print(text)
    return None


def load_ipython_extension(ipython) -> None:
    """``%load_ext tensorlab``: explain PyTorch errors after their traceback, in every cell."""
    if "handler" not in _PREVIOUS:
        _PREVIOUS["handler"] = (ipython.custom_exceptions, ipython.CustomTB)
    ipython.set_custom_exc((Exception,), _handler)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext tensorlab``: back to plain tracebacks."""
    exceptions, handler = _PREVIOUS.pop("handler", ((), None))
    ipython.custom_exceptions, ipython.CustomTB = exceptions, handler
