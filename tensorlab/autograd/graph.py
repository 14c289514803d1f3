"""The autograd graph: nodes, saved tensors, recording, and the backward engine.

Every differentiable op run in grad mode on an input that requires grad gives its result a
``grad_fn``: a :class:`Node` that knows how to turn the gradient of that result into gradients of
the op's inputs. ``next_functions`` links each node to the nodes of its inputs (or to an
:class:`AccumulateGrad` node for a leaf), so the nodes form a graph from the output back to the
leaves. :func:`run_backward` walks that graph once, in an order where a node runs only after every
node that feeds it a gradient has run, and adds the results into the leaves' ``.grad``.

Gradients travel between nodes as numpy arrays; only the leaves' ``.grad`` are tensors. Nothing
here imports the tensor class at import time (``tensorlab._tensor`` imports this module).
"""

from __future__ import annotations

import functools
import re
import weakref

import numpy as np

from . import saved_hooks as _saved_hooks
from .grad_mode import SAVED_INFERENCE, STATE
from .saved_hooks import (  # noqa: F401  (torch.autograd.graph's context managers)
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)

# ---------------------------------------------------------------------------------------------
# messages PyTorch uses
# ---------------------------------------------------------------------------------------------

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward."
)
HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
    "with tensorlab.autograd.set_detect_anomaly(True, check_nan=False)."
)
LEAF = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)


def inplace_rules(t) -> None:
    """Runs before every in-place write (``tensorlab._tensor.check_inplace``): PyTorch's refusals
    in grad mode, then the version counter of ``t`` (shared with its views) goes up by one."""
    if STATE.enabled:
        base = t._base
        if base is None:
            if t._requires_grad and t._grad_fn is None:
                raise RuntimeError(LEAF)
        elif t._view_no_grad:
            if base.requires_grad:
                raise RuntimeError(NO_GRAD_VIEW)
        elif base._requires_grad and base._grad_fn is None:
            raise RuntimeError(VIEW_OF_LEAF)
    t._vc[0] += 1


def op_name(node_name: str) -> str:
    """``'AddBackward0'`` -> ``'Add'`` (how PyTorch names an op in the in-place error)."""
    return re.sub(r"Backward\d*$", "", node_name)


def type_string(t) -> str:
    return f"tensorlab.{t.dtype._legacy}"


def _fmt(shape) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


# ---------------------------------------------------------------------------------------------
# saved values
# ---------------------------------------------------------------------------------------------


class SavedTensor:
    """A tensor a node needs for its backward, with the version it had when it was saved.

    An *input* is kept as the tensor itself. An *output* of the node is kept as its numpy
    memory plus its version counter (keeping the tensor would make a reference cycle tensor ->
    node -> tensor). ``unpack`` refuses if the tensor was modified in place since, or if the graph
    was already freed by a backward pass.
    """

    __slots__ = (
        "_tensor",
        "_array",
        "_vc",
        "_version",
        "_desc",
        "_node",
        "_released",
        "_nr",
        "_unpack_hook",
        "_packed",
    )

    def __init__(self, t, node: Node | None = None):
        vc = t._vc
        if type(vc) is not list:
            raise RuntimeError(SAVED_INFERENCE)
        self._vc = vc
        self._version = vc[0]
        self._released = False
        self._node = None
        self._nr = 0  # which output of ``node`` (autograd.Function nodes have several)
        self._unpack_hook = None
        if _saved_hooks.STACK:
            hooks = _saved_hooks.current()
            if hooks is not None:
                self._pack(t, node, hooks)
                return
        if node is None:
            self._tensor, self._array, self._desc = t, None, None
        else:  # an output of ``node`` (its storage kept for ``_saved_result``)
            self._tensor, self._array = None, t._np()
            self._desc = (type_string(t), tuple(t._shape), t._storage, t._stride, t._offset)
            self._node = weakref.ref(node)

    def _pack(self, t, node, hooks) -> None:
        """Keep ``pack_hook(t)`` instead of ``t`` (``saved_tensors_hooks``). PyTorch hands an
        output to the hook with its ``grad_fn`` already set, and checks no version later."""
        self._tensor = self._array = None
        self._desc = (type_string(t), tuple(t._shape))
        if node is not None:
            self._node = weakref.ref(node)
            if t._grad_fn is None:
                t._grad_fn = node  # (``attach`` sets it right after the node is made)
        else:
            self._desc += (t.grad_fn, t.requires_grad)
        self._unpack_hook = hooks[1]
        self._packed = _saved_hooks.pack(hooks[0], t)

    def unpack(self) -> np.ndarray:
        if self._released:
            raise RuntimeError(FREED)
        if self._unpack_hook is not None:
            return _saved_hooks.unpack(self._unpack_hook, self._packed)._np()
        if self._vc[0] != self._version:
            raise RuntimeError(self._modified_message())
        return self._tensor._np() if self._tensor is not None else self._array

    def unpack_tensor(self):
        """The saved tensor as a tensor with its history (for formulas that are themselves
        differentiated): an input is the tensor itself; an output gets its node back as
        ``grad_fn``, so a second derivative flows through this node again (as in PyTorch)."""
        if self._unpack_hook is not None:
            return self._unpack_tensor_hooked()
        arr = self.unpack()
        if self._tensor is not None:
            return self._tensor
        from .. import _dtype as D
        from .._tensor import Tensor

        storage, stride, offset = self._desc[2:]
        t = Tensor(storage, arr.shape, stride, offset, D.from_numpy_dtype(arr.dtype))
        t._vc = self._vc
        node = self._node()
        if node is not None:
            t._grad_fn = node
            if self._nr:
                t._output_nr = (node, self._nr)
        return t

    def register_hooks(self, pack_hook, unpack_hook) -> None:
        """``grad_fn._raw_saved_<name>.register_hooks``: pack this saved tensor now."""
        if self._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward."
            )
        if self._unpack_hook is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        t = self._tensor if self._tensor is not None else self.unpack_tensor()
        node = None if self._node is None else self._node()
        self._pack(t, node, (pack_hook, unpack_hook))

    def _unpack_tensor_hooked(self):
        """What ``unpack_hook`` gives, as a new tensor sharing its memory with the saved
        tensor's history (PyTorch rewraps the hook's result the same way)."""
        if self._released:
            raise RuntimeError(FREED)
        t = _saved_hooks.unpack(self._unpack_hook, self._packed).detach()
        if self._node is not None:
            node = self._node()
            if node is not None:
                t._grad_fn = node
                if self._nr:
                    t._output_nr = (node, self._nr)
        else:
            grad_fn, requires_grad = self._desc[2:]
            if grad_fn is not None:
                t._grad_fn = grad_fn
            elif requires_grad:
                t._requires_grad = True
        return t

    def _modified_message(self) -> str:
        if self._tensor is not None:
            kind, shape = type_string(self._tensor), tuple(self._tensor._shape)
            fn = self._tensor.grad_fn
            name = None if fn is None else fn.name()
        else:
            kind, shape = self._desc[:2]
            node = self._node()
            name = None if node is None else node.name()
        where = "" if name is None else f", which is output 0 of {op_name(name)},"
        return (
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{kind} {_fmt(shape)}]{where} is at version {self._vc[0]}; "
            f"expected version {self._version} instead. {HINT}"
        )

    def release(self) -> None:
        self._released = True
        self._tensor = self._array = None
        self._packed = self._unpack_hook = None
        if self._desc is not None:
            self._desc = self._desc[:2]  # (the output's storage, an input's grad_fn)


class SavedValue:
    """A non-tensor value a node keeps (PyTorch saves a wrapped Python number like a tensor)."""

    __slots__ = ("_value", "_released")

    def __init__(self, value):
        self._value, self._released = value, False

    def unpack(self):
        if self._released:
            raise RuntimeError(FREED)
        return self._value

    unpack_tensor = unpack

    def release(self) -> None:
        self._released, self._value = True, None


# ---------------------------------------------------------------------------------------------
# nodes
# ---------------------------------------------------------------------------------------------


class Node:
    """One recorded op. ``backward(grad)`` returns one gradient (or None) per input.

    ``inputs`` are the op's tensor arguments (None for an argument that is not a tensor but that
    PyTorch counts, such as a Python number: it shows as ``(None, 0)`` in ``next_functions``).
    """

    _n_outputs = 1  # (autograd.Function nodes with several outputs set their own)

    def __init__(self, *inputs):
        edges, meta = [], []
        for t in inputs:
            if t is None:
                edges.append(_NO_EDGE)
                meta.append(None)
            else:
                edges.append(gradient_edge(t))
                meta.append((t._shape, t._dtype))
        self.next_functions = tuple(edges)
        self._input_meta = tuple(meta)
        self._saved: list = []
        self._retained = None  # weakref to the output tensor that called retain_grad()

    def name(self) -> str:
        """PyTorch's name for this node (also its class name, as in PyTorch)."""
        return type(self).__name__

    @property
    def _name(self) -> str:
        return type(self).__name__

    @_name.setter
    def _name(self, name: str) -> None:
        # one formula class serves several PyTorch nodes (ViewBackward -> TransposeBackward0,
        # SelectBackward0, ...): the node becomes an instance of a subclass with that name
        _retype(self, name)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    def __getattr__(self, name: str):
        """``_saved_<name>`` / ``_raw_saved_<name>``: what the node saved, under PyTorch's
        names (:mod:`.saved_attrs`); called only for names the node does not have."""
        if name.startswith(("_saved_", "_raw_saved_")):
            from .saved_attrs import lookup

            return lookup(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __dir__(self):
        from .saved_attrs import names

        # (``_saved``, the engine's list, is not listed: ``startswith("_saved")`` finds torch's)
        return sorted((set(super().__dir__()) - {"_saved"}) | set(names(self)))

    def apply_tensor(self, grad) -> tuple:
        """``backward`` in a ``create_graph=True`` pass: tensors in, tensors out, recorded.
        Nodes with a differentiable formula get one from :mod:`.double_backward`; the others
        compute with numpy and give their results a node that refuses a second derivative."""
        from .double_backward import apply_tensor

        return apply_tensor(self, grad)

    def needs_grad(self, i: int) -> bool:
        """Whether input ``i`` wants a gradient (it requires grad)."""
        return self.next_functions[i][0] is not None

    def save(self, value, *, output: bool = False):
        """Keep ``value`` for backward; returns a handle with ``unpack()``."""
        from .._tensor import Tensor

        if isinstance(value, Tensor):
            saved = SavedTensor(value, self if output else None)
        else:
            saved = SavedValue(value)
        self._saved.append(saved)
        return saved

    def release(self) -> None:
        """Free what was saved (after a backward pass without ``retain_graph``)."""
        for s in self._saved:
            s.release()

    def backward(self, grad: np.ndarray) -> tuple:
        raise NotImplementedError

    def apply(self, grad: np.ndarray) -> tuple:
        return self.backward(grad)


_SUBCLASSES: dict = {}


def _retype(node: Node, name: str) -> None:
    cls = type(node)
    if cls.__name__ == name:
        return
    base = getattr(cls, "_generic", None) or cls
    sub = _SUBCLASSES.get((base, name))
    if sub is None:
        sub = type(name, (base,), {"_generic": base, "__module__": base.__module__})
        _SUBCLASSES[(base, name)] = sub
    node.__class__ = sub


class AccumulateGrad(Node):
    """The end of the graph for a leaf that requires grad: adds the gradient into ``.grad``."""

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()
        self._input_meta = ()
        self._saved = []
        self._retained = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's name() (its class name is shorter)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"  # as PyTorch prints it

    def accumulate(self, grad: np.ndarray) -> None:
        accumulate_into(self.variable, grad)


class NotImplementedNode(Node):
    """An op PyTorch can differentiate but tensorlab cannot: recorded (so the graph is not
    silently cut), and its backward raises ``message``."""

    def __init__(self, name: str, message: str, *inputs):
        super().__init__(*inputs)
        self._name, self.message = name, message

    def backward(self, grad):
        raise RuntimeError(self.message)


_NO_EDGE = (None, 0)


def gradient_edge(t) -> tuple:
    """Where the gradient of ``t`` goes: ``(t.grad_fn, 0)``, ``(AccumulateGrad, 0)`` for a leaf
    that requires grad, or ``(None, 0)`` when ``t`` does not require grad."""
    if t is None:
        return _NO_EDGE
    if t._base is None:  # not a view: no view node to regenerate (the common case)
        fn = t._grad_fn
        if fn is None:
            return (accumulator(t), 0) if t._requires_grad else _NO_EDGE
    elif not t.requires_grad:
        return _NO_EDGE
    else:
        fn = t.grad_fn
    if fn is not None:
        nr = t.__dict__.get("_output_nr")  # output i of a node with several (autograd.Function)
        return (fn, nr[1] if nr is not None and nr[0] is fn else 0)
    return (accumulator(t), 0)


def accumulator(t) -> AccumulateGrad:
    """The leaf's AccumulateGrad node (one per leaf while the graph holds it)."""
    ref = t._accumulator
    node = ref() if ref is not None else None
    if node is None:
        node = AccumulateGrad(t)
        t._accumulator = weakref.ref(node)
    return node


def accumulate_into(t, grad: np.ndarray) -> None:
    """``t.grad += grad``, creating ``t.grad`` on first use with ``t``'s dtype and layout."""
    Tensor = _tensor_class()
    if isinstance(grad, Tensor):  # a create_graph pass: .grad keeps the gradient's graph
        if t._grad is None:
            t._grad = grad if grad.requires_grad else grad.detach().clone()
        else:
            t._grad = t._grad + grad
        return
    grad = np.asarray(grad)
    if t._grad is None:
        from .. import _layout as L

        shape = t._shape
        if L.is_non_overlapping_and_dense(shape, t._stride):
            stride = t._stride
        else:
            stride = L.contiguous_strides(shape)
        if grad.dtype != t._dtype.np:
            grad = grad.astype(t._dtype.np)
        if grad.size and grad.shape == shape and stride == L.contiguous_info(shape)[0]:
            from .._tensor import _adopt

            t._grad = _adopt(np.array(grad, order="C"), t._dtype)  # (a copy of its own)
        else:
            t._grad = Tensor._from_array_strided(grad, t._dtype, stride)  # (a copy)
    else:
        dst = t._grad._np()
        dst[...] = dst + grad.astype(dst.dtype, copy=False)


# ---------------------------------------------------------------------------------------------
# recording
# ---------------------------------------------------------------------------------------------


def attach(out, node: Node | None):
    """Make ``node`` the ``grad_fn`` of ``out`` (a fresh result or a view)."""
    if node is None:
        return out
    out._grad_fn = node
    if out._base is not None:  # a differentiable view, made in grad mode
        out._view_version = out._vc[0]
        out._view_tracked = True
        out._view_no_grad = False
    return out


def _tensor_class():
    from .._tensor import Tensor

    return Tensor


def any_requires_grad(args, kwargs, Tensor) -> bool:
    """Whether any tensor among the arguments (or in a list/tuple argument) requires grad."""
    for a in args:
        if isinstance(a, Tensor):
            if a.requires_grad:
                return True
        elif isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, Tensor) and b.requires_grad:
                    return True
    for a in kwargs.values():
        if isinstance(a, Tensor) and a.requires_grad:
            return True
    return False


def check_out_grad(name: str, args, kwargs=None) -> None:
    """PyTorch's rule for ``out=``: in grad mode, no argument (a tensor of ``args`` or of the
    values of ``kwargs``, nested sequences included) may require grad."""
    if STATE.enabled and any_requires_grad(args, kwargs or {}, _tensor_class()):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )


def differentiable(make_node, fname: str | None = None):
    """Decorate an op so that, in grad mode with an input that requires grad, its result gets
    the node ``make_node(result, *args, **kwargs)`` as ``grad_fn`` (for an op returning a tuple,
    such as ``max(dim)``, the first tensor gets it and ``make_node`` receives the tuple).

    The op itself runs with recording switched off (its internal steps are not recorded: the
    node describes the whole op). Without grad mode or without an input that requires grad this
    costs one check. ``out=`` with an input that requires grad raises like PyTorch.
    """

    def deco(fn):
        Tensor = _tensor_class()
        name = fname or fn.__name__

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if not STATE.enabled or not any_requires_grad(args, kwargs, Tensor):
                return fn(*args, **kwargs)
            if kwargs.get("out") is not None:
                check_out_grad(name, args, kwargs)
            STATE.enabled = False
            try:
                out = fn(*args, **kwargs)
            finally:
                STATE.enabled = True
            result = out[0] if isinstance(out, tuple) else out
            if not isinstance(result, Tensor) or not result.dtype.is_floating_point:
                return out
            if any(result is a for a in args):
                return out  # the op handed back an input unchanged: nothing to record
            if result._base is not None and not result._base.requires_grad:
                result._base = None  # a view of the op's own scratch tensor: a new tensor
            attach(result, make_node(out, *args, **kwargs))
            return out

        wrapper.__wrapped__ = getattr(fn, "__wrapped__", fn)
        return wrapper

    return deco


# ---------------------------------------------------------------------------------------------
# gradient arithmetic shared by the formulas
# ---------------------------------------------------------------------------------------------


def sum_to(grad: np.ndarray, shape) -> np.ndarray:
    """Sum a broadcast gradient back to ``shape`` (the inverse of broadcasting)."""
    grad = np.asarray(grad)
    shape = tuple(shape)
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    if lead < 0:
        return np.broadcast_to(grad, shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1
    )
    if axes and grad.dtype in (np.float16, np.float32, np.float64):
        from .._ops._cascade import sum_axes  # torch's sum_to sums as Tensor.sum does

        return sum_axes(grad, axes).reshape(shape)
    out = grad.sum(axis=axes, keepdims=True) if axes else grad
    return out.reshape(shape)


def sum_to_tensor(grad, shape):
    """:func:`sum_to` with recorded tensor ops."""
    shape = tuple(shape)
    if tuple(grad._shape) == shape:
        return grad
    lead = grad.ndim - len(shape)
    dims = list(range(lead)) + [
        lead + i for i, s in enumerate(shape) if s == 1 and grad._shape[lead + i] != 1
    ]
    if dims:
        grad = grad.sum(dims, keepdim=True)
    return grad.reshape(shape)


def _fit(grad, meta, node: Node, index: int) -> np.ndarray:
    """The gradient for an input: its shape (summed if broadcast) and its dtype (PyTorch's
    engine casts each gradient to its input's dtype)."""
    shape, dtype = meta
    if grad.__class__ is np.ndarray and grad.dtype is dtype.np and grad.shape == shape:
        return grad  # (the common case: nothing to fit)
    if not isinstance(grad, np.ndarray) and hasattr(grad, "_np"):
        return _fit_tensor(grad, shape, dtype, node, index)
    grad = np.asarray(grad)
    if grad.shape != tuple(shape):
        try:
            grad = sum_to(grad, shape)
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{_fmt(grad.shape)} but expected shape compatible with {_fmt(shape)}"
            ) from None
    if grad.dtype != dtype.np:
        grad = grad.astype(dtype.np)
    return grad


def _fit_tensor(grad, shape, dtype, node: Node, index: int):
    """:func:`_fit` for a tensor gradient (a ``create_graph`` pass): recorded tensor ops."""
    shape = tuple(shape)
    if tuple(grad._shape) != shape:
        try:
            np.broadcast_shapes(grad._shape, shape)
            if len(shape) > len(grad._shape) or any(
                s != 1 and s != g for s, g in zip(shape[::-1], grad._shape[::-1])
            ):
                raise ValueError
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{_fmt(grad._shape)} but expected shape compatible with {_fmt(shape)}"
            ) from None
        grad = sum_to_tensor(grad, shape)
    if grad.dtype is not dtype:
        grad = grad.to(dtype)
    return grad


# ---------------------------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------------------------


def _dependencies(roots) -> dict:
    """For every node reachable from ``roots``: how many edges point into it."""
    deps: dict = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def _add_grad(buffers: dict, node, nr: int, g) -> None:
    """Add ``g`` into what ``node`` received (per output for nodes with several outputs)."""
    n = getattr(node, "_n_outputs", 1)
    if n == 1:
        buffers[node] = buffers[node] + g if node in buffers else g
        return
    slots = buffers.get(node)
    if slots is None:
        slots = buffers[node] = [None] * n
    slots[nr] = g if slots[nr] is None else slots[nr] + g


def run_backward(
    roots, *, retain_graph: bool, accumulate: bool = True, capture=None, create_graph=False
):
    """Run the graph backward from ``roots`` (a list of ``(node, gradient, output_nr)``).

    A node runs when every node that feeds it has run (Kahn's algorithm on the reversed graph);
    its gradient is the sum of what it received. With ``accumulate``, AccumulateGrad nodes add
    into their leaf's ``.grad`` (``accumulate`` may also be a set of leaf ids to restrict to).
    ``capture`` maps nodes to keys: the gradient reaching such a node is returned under its key
    (used by :func:`grad`). With ``create_graph`` gradients are tensors and every formula is
    itself recorded (grad mode is on while it runs), so the results can be differentiated again.
    """
    buffers: dict = {}
    for node, g, *nr in roots:
        _add_grad(buffers, node, nr[0] if nr else 0, g)
    deps = _dependencies([r[0] for r in roots])
    ready = [n for n in buffers if deps.get(n, 0) == 0]
    captured: dict = {}
    was = STATE.enabled
    STATE.enabled = bool(create_graph)
    try:
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            several = grad.__class__ is list
            if several:
                if capture is not None and node in capture:
                    raise NotImplementedError(
                        "tensorlab: autograd.grad(..., inputs=...) on an output of a node with "
                        "several outputs (a custom Function's, a recurrent layer's) is not "
                        "supported"
                    )
                if "_output_hooks" in node.__dict__ or "_output_retained" in node.__dict__:
                    grad = _per_output_hooks(node, grad)
            if grad is not None and not several:
                grad = run_tensor_hooks(node, grad)
                if capture is not None and node in capture:
                    captured[capture[node]] = grad
                if node._retained is not None:
                    t = node._retained()
                    if t is not None:
                        accumulate_into(t, grad)
            if node.__class__ is AccumulateGrad or isinstance(node, AccumulateGrad):
                if grad is not None and _wants(accumulate, node.variable):
                    node.accumulate(grad)
                continue
            if grad is None:
                grads = ()
            else:
                grads = node.apply_tensor(grad) if create_graph else node.apply(grad)
                if not retain_graph:
                    node.release()
            n_grads = len(grads)
            meta = node._input_meta
            for i, (nxt, nr) in enumerate(node.next_functions):
                if nxt is None:
                    continue
                gi = grads[i] if i < n_grads else None
                if gi is not None:
                    gi = _fit(gi, meta[i], node, i)
                    _add_grad(buffers, nxt, nr, gi)
                deps[nxt] -= 1
                if deps[nxt] == 0:
                    ready.append(nxt)
    finally:
        STATE.enabled = was
    return captured


def _per_output_hooks(node: Node, grads: list) -> list:
    """A node with several outputs keeps each output's hooks and ``retain_grad()`` under the
    output's index (``Tensor.register_hook``/``retain_grad``): run them on that output's part."""
    hooks = node.__dict__.get("_output_hooks", {})
    retained = node.__dict__.get("_output_retained", {})
    out = list(grads)
    for i, g in enumerate(out):
        if g is None:
            continue
        if hooks.get(i):
            g = out[i] = _run_hooks(hooks[i], g)
        ref = retained.get(i)
        t = ref() if ref is not None else None
        if t is not None:
            accumulate_into(t, g)
    return out


def run_tensor_hooks(node: Node, grad: np.ndarray) -> np.ndarray:
    """The hooks ``Tensor.register_hook`` put on the tensor whose gradient reaches ``node`` (a
    leaf's hooks live on the leaf, a result's on its grad_fn), in registration order: each sees
    the gradient as a tensor and may return a replacement of the same size and dtype."""
    if isinstance(node, AccumulateGrad):
        hooks = node.variable.__dict__.get("_backward_hooks")
    else:
        hooks = node.__dict__.get("_tensor_hooks")
    if not hooks:
        return grad
    return _run_hooks(hooks, grad)


def _run_hooks(hooks: dict, grad):
    from .. import _dtype as D
    from .._tensor import Tensor

    if isinstance(grad, Tensor):  # a create_graph pass
        for hook in list(hooks.values()):
            r = hook(grad)
            grad = grad if r is None else r
        return grad
    grad = np.asarray(grad)
    if not grad.flags.writeable:  # the caller's gradient (autograd.api._make_grads): a hook
        grad = grad.copy()  # may change what it is given in place
    dtype = D.from_numpy_dtype(grad.dtype)
    for hook in list(hooks.values()):
        g = Tensor._from_array(grad, dtype)
        r = hook(g)
        if r is None:
            grad = g._np()  # the hook may have changed ``g`` in place
            continue
        name = getattr(hook, "__name__", repr(hook))
        if not isinstance(r, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
        if r._shape != grad.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if r.dtype is not dtype:
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was tensorlab.{dtype._legacy} got "
                f"tensorlab.{r.dtype._legacy})"
            )
        grad = np.array(r._np())
    return grad


def _wants(accumulate, variable) -> bool:
    if accumulate is True:
        return True
    if not accumulate:
        return False
    return id(variable) in accumulate
