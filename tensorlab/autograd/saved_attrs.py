"""``grad_fn._saved_*`` and ``grad_fn._raw_saved_*``: what a node saved, under PyTorch's names.

PyTorch's generated nodes expose every value their backward keeps: ``MulBackward0._saved_self``
and ``_saved_other`` (the tensors themselves, or None where the other input needs no gradient),
``PowBackward0._saved_exponent`` (the Python number), ``SumBackward1._saved_dim`` (a tuple of
ints), ``ConvolutionBackward0._saved_stride``... A saved *input* is given back as the very tensor
(``y.grad_fn._saved_self is x``); a saved *output* as a new tensor sharing its memory with
``grad_fn`` set to the node. Once a backward pass freed the graph, tensors (not numbers) raise
PyTorch's "Trying to backward through the graph a second time" error. ``_raw_saved_*`` is the
saved-tensor object itself, whose ``register_hooks(pack, unpack)`` packs it at once.

:data:`SPECS` maps a node's PyTorch name to its attributes (``name -> getter(node)``), in the
order PyTorch lists them; :class:`~tensorlab.autograd.graph.Node` looks them up on a miss.
"""

from __future__ import annotations

from .graph import SavedTensor, SavedValue

_U64 = 1 << 64


def _dim(d):
    """A dim as PyTorch's getters print it: an int64 read as unsigned (``-1`` ->
    18446744073709551615)."""
    return int(d) % _U64


def _dims(ds):
    return tuple(_dim(d) for d in ds)


class RawSaved:
    """``torch._C._autograd.SavedTensor``: the object a node keeps for one saved tensor."""

    __slots__ = ("_saved", "_node")

    def __init__(self, saved, node):
        self._saved, self._node = saved, node

    def __repr__(self) -> str:
        return f"<tensorlab._C._autograd.SavedTensor object at {hex(id(self))}>"

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """Pack the saved tensor now with ``pack_hook``; ``unpack_hook`` gives it back for
        backward (PyTorch's rules: once, not after the graph was freed, not for None)."""
        s = self._saved
        if isinstance(s, SavedTensor):
            s.register_hooks(pack_hook, unpack_hook)
            return
        if isinstance(s, SavedValue) and s._released:
            raise RuntimeError(_FREED_REGISTER)
        raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")

    def unpack(self):
        return _tensor(self._saved)


RawSaved.__name__ = RawSaved.__qualname__ = "SavedTensor"  # PyTorch's class name
RawSaved.__module__ = "tensorlab._C._autograd"

_FREED_REGISTER = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate "
    "values of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward."
)


def _tensor(saved):
    """A saved tensor as PyTorch's getter gives it (None when the node did not save it)."""
    if saved is None:
        return None
    if isinstance(saved, SavedValue):  # a Python number PyTorch saved as a wrapped number
        return _wrapped(saved.unpack())
    return saved.unpack_tensor()


def _wrapped(value):
    import tensorlab

    if isinstance(value, bool):
        return tensorlab.tensor(value)
    if isinstance(value, int):
        return tensorlab.tensor(value, dtype=tensorlab.int64)
    if isinstance(value, float):
        return tensorlab.tensor(value, dtype=tensorlab.float64)
    return tensorlab.as_tensor(value)


def _attr(name):
    return lambda n: n.__dict__.get(name)


def _sizes(i=0):
    return lambda n: tuple(int(s) for s in n._input_meta[i][0])


def _numel(n) -> int:
    p = 1
    for s in n._input_meta[0][0]:
        p *= int(s)
    return p


def _mm_self(n):
    """MmBackward0's ``self`` (the left factor)."""
    return n.__dict__.get("a") if "a" in n.__dict__ else n.__dict__.get("x")


def _mm_mat2(n):
    return n.__dict__.get("b") if "b" in n.__dict__ else n.__dict__.get("w")


def _mat2_tensor(n):
    """``mat2`` of a linear layer's node: torch saved ``weight.t()``."""
    s = _mm_mat2(n)
    if s is None:
        return None
    t = _tensor(s)
    if "w" in n.__dict__ and not n._wt:
        t = t.t()
    return t


def _mat2_sizes(n):
    if "w" in n.__dict__:
        shape = n._input_meta[-1][0]
        return (int(shape[1]), int(shape[0]))
    return _sizes(1)(n)


def _mat2_strides(n):
    """Kept when ``self`` needs a gradient, as in PyTorch (else ``()``)."""
    if "w" in n.__dict__:
        k = 1 if n.has_bias else 0
        if not n.needs_grad(k + 1):
            return ()
        st = n._strides[1]
        return (int(st[1]), int(st[0]))
    return tuple(int(s) for s in n._strides[1]) if n.needs_grad(1) else ()


def _self_strides(n):
    k = 1 if n.__dict__.get("has_bias") else 0
    return tuple(int(s) for s in n._strides[0]) if n.needs_grad(k) else ()


def _mm_specs(first: str):
    """``MmBackward0`` (``self``/``mat2``) or ``AddmmBackward0`` (``mat1``/``mat2``)."""
    return {
        f"{first}": lambda n: _tensor(_mm_self(n)),
        f"{first}_sym_sizes": _sizes(1 if n_has_bias(first) else 0),
        f"{first}_sym_strides": _self_strides,
        "mat2": _mat2_tensor,
        "mat2_sym_sizes": _mat2_sizes,
        "mat2_sym_strides": _mat2_strides,
    }


def n_has_bias(first: str) -> bool:
    return first == "mat1"


def _conv_bias_sizes(n):
    meta = n._input_meta[2]
    return (int(meta[0][0]),) if meta is not None else (0,)


def _reduction(n) -> int:
    return {"none": 0, "mean": 1, "sum": 2}[n.reduction]


def _dims_of(n):
    arg = n.__dict__.get("_dim_arg")
    if arg is None:
        return _dims(n.dims)
    return _dims(arg if isinstance(arg, (tuple, list)) else (arg,))


def _dim_of(n):
    arg = n.__dict__.get("_dim_arg")
    return _dim(n.dim if arg is None else arg)


SPECS: dict = {
    "AddBackward0": {"alpha": _attr("alpha")},
    "SubBackward0": {"alpha": _attr("alpha")},
    "MulBackward0": {"other": lambda n: _tensor(n.b), "self": lambda n: _tensor(n.a)},
    "MulBackward1": {"other": _attr("other")},
    "DivBackward1": {"other": _attr("other")},
    "DivBackward0": {"other": lambda n: _tensor(n.b), "self": lambda n: _tensor(n.a)},
    "PowBackward0": {"exponent": _attr("exponent"), "self": lambda n: _tensor(n.a)},
    "PowBackward1": {
        "exponent": lambda n: _tensor(n.b),
        "result": lambda n: _tensor(n.out),
        "self": lambda n: _tensor(n.a),
    },
    "PowBackward2": {
        "exponent": lambda n: _tensor(n.b),
        "result": lambda n: _tensor(n.out),
        "self": _attr("base"),
    },
    "MmBackward0": _mm_specs("self"),
    "AddmmBackward0": {"alpha": lambda n: 1, "beta": lambda n: 1, **_mm_specs("mat1")},
    "BmmBackward0": {"mat2": lambda n: _tensor(n.b), "self": lambda n: _tensor(n.a)},
    "MvBackward0": {"self": lambda n: _tensor(n.a), "vec": lambda n: _tensor(n.b)},
    "DotBackward0": {"self": lambda n: _tensor(n.a), "tensor": lambda n: _tensor(n.b)},
    "ConvolutionBackward0": {
        "bias_sym_sizes_opt": _conv_bias_sizes,
        "dilation": lambda n: tuple(int(v) for v in n.params[2]),
        "groups": lambda n: int(n.params[3]),
        "input": lambda n: _tensor(n.x),
        "output_padding": lambda n: tuple(
            int(v) for v in n.__dict__.get("output_padding", [0] * len(n.params[0]))
        ),
        "padding": lambda n: tuple(int(v) for v in n.params[1]),
        "stride": lambda n: tuple(int(v) for v in n.params[0]),
        "transposed": lambda n: bool(n.transposed),
        "weight": lambda n: _tensor(n.w),
    },
    "SumBackward0": {"self_sym_sizes": _sizes()},
    "SumBackward1": {
        "dim": _dims_of,
        "keepdim": lambda n: bool(n.keepdim),
        "self_sym_sizes": _sizes(),
    },
    "MeanBackward0": {"self_sym_numel": _numel, "self_sym_sizes": _sizes()},
    "MeanBackward1": {
        "dim": _dims_of,
        "keepdim": lambda n: bool(n.keepdim),
        "self_sym_numel": _numel,
        "self_sym_sizes": _sizes(),
    },
    "ViewBackward0": {"self_sym_sizes": _sizes()},
    "ExpandBackward0": {"self_sym_sizes": _sizes()},
    "SoftmaxBackward0": {"dim": _dim_of, "result": lambda n: _tensor(n.y)},
    "LogSoftmaxBackward0": {"dim": _dim_of, "result": lambda n: _tensor(n.y)},
    "MaxBackward0": {
        "dim": _dim_of,
        "indices": lambda n: _tensor(n.indices),
        "keepdim": lambda n: bool(n.keepdim),
        "self_sym_sizes": _sizes(),
    },
    "MinBackward0": {
        "dim": _dim_of,
        "indices": lambda n: _tensor(n.indices),
        "keepdim": lambda n: bool(n.keepdim),
        "self_sym_sizes": _sizes(),
    },
    "MaxBackward1": {"result": lambda n: _tensor(n.out), "self": lambda n: _tensor(n.x)},
    "MinBackward1": {"result": lambda n: _tensor(n.out), "self": lambda n: _tensor(n.x)},
    "CatBackward0": {"dim": _dim_of},
    "StackBackward0": {"dim": _dim_of},
    "MseLossBackward0": {
        "reduction": _reduction,
        "self": lambda n: _tensor(n.x),
        "target": lambda n: _tensor(n.t),
    },
    "ClampBackward1": {
        "max": lambda n: None if n.hi is None else n.hi,
        "min": lambda n: None if n.lo is None else n.lo,
        "self": lambda n: _tensor(n.x),
    },
    "GeluBackward0": {"approximate": _attr("approximate"), "self": lambda n: _tensor(n.x)},
    "LeakyReluBackward0": {"negative_slope": _attr("slope"), "self": lambda n: _tensor(n.x)},
    "WhereBackward0": {"condition": lambda n: _tensor(n.cond)},
}


def _unary(node, attr):
    """``_saved_self``/``_saved_result`` of a one-input elementwise op."""
    from .formulas import UNARY_FROM_INPUT, UNARY_FROM_RESULT

    op = node.__dict__.get("op")
    if attr == "self" and op in UNARY_FROM_INPUT:
        return True
    return attr == "result" and op in UNARY_FROM_RESULT


def names(node) -> list:
    """The ``_saved_*`` / ``_raw_saved_*`` attribute names of ``node`` (as ``dir`` lists them)."""
    spec = SPECS.get(node.name())
    out = []
    if spec is not None:
        for attr in spec:
            out.append(f"_saved_{attr}")
            if _is_tensor_attr(node, attr):
                out.append(f"_raw_saved_{attr}")
    if "op" in node.__dict__:
        for attr in ("self", "result"):
            if _unary(node, attr):
                out += [f"_saved_{attr}", f"_raw_saved_{attr}"]
    return sorted(out)


_TENSOR_ATTRS = {
    "self",
    "other",
    "result",
    "exponent",
    "mat1",
    "mat2",
    "vec",
    "tensor",
    "input",
    "weight",
    "indices",
    "target",
    "condition",
}
_NUMBER_NODES = {("PowBackward2", "self"), ("PowBackward0", "exponent")}


def _is_tensor_attr(node, attr) -> bool:
    if attr not in _TENSOR_ATTRS:
        return False
    return (node.name(), attr) not in _NUMBER_NODES


def _handle(node, attr):
    """The SavedTensor/SavedValue behind a tensor attribute (for ``_raw_saved_*``)."""
    d = node.__dict__
    if "op" in d:
        return d.get("saved")
    table = {
        "self": ("a", "x"),
        "other": ("b",),
        "result": ("out", "y"),
        "exponent": ("b",),
        "mat1": ("x",),
        "mat2": ("b", "w"),
        "vec": ("b",),
        "tensor": ("b",),
        "input": ("x",),
        "weight": ("w",),
        "indices": ("indices",),
        "target": ("t",),
        "condition": ("cond",),
    }
    for key in table[attr]:
        if key in d:
            return d[key]
    return None


def lookup(node, name: str):
    """``node._saved_<attr>`` or ``node._raw_saved_<attr>``; AttributeError when PyTorch's node
    has no such attribute."""
    raw = name.startswith("_raw_saved_")
    attr = name[len("_raw_saved_") :] if raw else name[len("_saved_") :]
    if name not in names(node):
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    if raw:
        return RawSaved(_handle(node, attr), node)
    if "op" in node.__dict__ and attr in ("self", "result"):
        return _tensor(node.__dict__.get("saved"))
    value = SPECS[node.name()][attr](node)
    if isinstance(value, SavedValue):
        return value.unpack()
    return value


__all__ = ["RawSaved", "SPECS", "lookup", "names"]
