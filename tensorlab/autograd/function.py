"""``tensorlab.autograd.Function``: custom ops with a hand-written ``backward``, as in PyTorch.

A subclass defines static ``forward(ctx, *args)`` and ``backward(ctx, *grads)`` (or
``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and is called through
``apply``. The ``ctx`` is the graph node itself (an instance of ``<Name>Backward``, made for
each subclass when it is defined): what ``forward`` stores on it is there in ``backward``, and the
tensors' ``grad_fn`` prints ``<NameBackward>``.

``backward`` receives tensors and returns one gradient (or None) per ``forward`` argument. In a
``create_graph=True`` pass it runs with grad mode on, so a ``backward`` written with tensor ops
can be differentiated again; ``@once_differentiable`` refuses that.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .grad_mode import STATE, no_grad
from .graph import Node, NotImplementedNode, SavedTensor, attach, gradient_edge

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


def _tensor_class():
    from .._tensor import Tensor

    return Tensor


class FunctionCtx:
    """What ``forward``/``setup_context`` may call on ``ctx``."""

    def save_for_backward(self, *tensors) -> None:
        """Keep tensors (or None) for ``backward``; read them back with ``ctx.saved_tensors``
        (which refuses if one was modified in place since)."""
        Tensor = _tensor_class()
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{i} is of type {type(t).__name__}"
                )
        self.to_save = tensors

    def save_for_forward(self, *tensors) -> None:
        self.saved_for_forward = tensors

    def mark_dirty(self, *args) -> None:
        """The tensors ``forward`` modified in place (they must be returned as outputs)."""
        self.dirty_tensors = args

    def mark_shared_storage(self, *pairs) -> None:
        raise RuntimeError(
            "mark_shared_storage is deprecated. Tensors with shared storages are automatically "
            "tracked. Note that calls to `set_()` are not tracked"
        )

    def mark_non_differentiable(self, *args) -> None:
        """Outputs that get no gradient (``backward`` still receives a zero gradient for them)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Whether ``backward`` receives zeros (True, the default) or None for outputs whose
        gradient was not computed."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The node of one call of a custom Function (its class is ``<Name>Backward``)."""

    _forward_cls = None
    materialize_grads = True

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<tensorlab.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    # ------------------------------------------------------------------ saved tensors
    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to ``save_for_backward`` (PyTorch's errors if one was modified in
        place since, or if a backward pass already freed them)."""
        saved = self.__dict__.get("_saved_handles")
        if saved is None:
            return ()
        return tuple(None if s is None else s.unpack_tensor() for s in saved)

    saved_variables = saved_tensors

    def _save_outputs(self, outputs: tuple) -> None:
        to_save = self.__dict__.pop("to_save", None)
        if to_save is None:
            return
        handles = []
        for t in to_save:
            if t is None:
                handles.append(None)
                continue
            nr = next((i for i, o in enumerate(outputs) if o is t), None)
            if nr is None:
                s = SavedTensor(t)
            else:
                s = SavedTensor(t, self)
                s._nr = nr
            handles.append(s)
        self._saved_handles = handles
        self._saved.extend(h for h in handles if h is not None)

    # ------------------------------------------------------------------ running backward
    def _user_backward(self):
        cls = self._forward_cls
        has_backward, has_vjp = cls.backward is not Function.backward, cls.vjp is not Function.vjp
        if has_backward and has_vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        return cls.vjp if has_vjp else cls.backward

    def _grads_in(self, grad):
        grads = grad if isinstance(grad, list) else [grad]
        Tensor = _tensor_class()
        out = []
        for i, g in enumerate(grads):
            meta = self._output_meta[i]
            if g is None:
                if self.materialize_grads and meta is not None:
                    shape, dtype = meta
                    g = Tensor._from_array(np.zeros(shape, dtype.np), dtype)
            elif not isinstance(g, Tensor):
                g = Tensor._from_array(np.asarray(g))
            out.append(g)
        return out

    def _grads_out(self, result) -> tuple:
        Tensor = _tensor_class()
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._is_tensor_input)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})"
                )
        grads = []
        for i, (r, is_tensor) in enumerate(zip(result, self._is_tensor_input)):
            if not is_tensor:
                if r is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a "
                        "Variable"
                    )
                continue
            if r is not None and not isinstance(r, Tensor):
                raise TypeError(
                    f"function {self.name()} returned a gradient of type "
                    f"{type(r).__name__} at position {i + 1}: expected a Tensor or None"
                )
            grads.append(r)
        return tuple(grads)

    def apply(self, grad) -> tuple:
        """The engine's numpy pass: ``backward`` runs on tensors with grad mode off."""
        with no_grad():
            res = self._grads_out(self._user_backward()(self, *self._grads_in(grad)))
        return tuple(None if g is None else np.array(g._np()) for g in res)

    def apply_tensor(self, grad) -> tuple:
        """A ``create_graph=True`` pass: ``backward`` is recorded like any other code."""
        return self._grads_out(self._user_backward()(self, *self._grads_in(grad)))

    def backward(self, grad):  # the engine calls apply/apply_tensor
        return self.apply(grad)


class FunctionMeta(type):
    """Gives each Function subclass its node class ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        cls._backward_cls = type(
            name + "Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": "tensorlab.autograd.function"},
        )
        super().__init__(name, bases, attrs)


def _is_setup_context_defined(fn) -> bool:
    return fn is not Function.__dict__["setup_context"].__func__


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of custom autograd functions (see the module docstring)."""

    def __init__(self, *args, **kwargs):
        import warnings

        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    generate_vmap_rule = False

    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def vjp(ctx, *grad_outputs):
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD (tensorlab has no forward-mode AD)."
        )

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record the call so that ``backward`` gives the gradients."""
        setup = _is_setup_context_defined(cls.setup_context)
        if setup:
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        return _apply(cls, setup, args, kwargs)


def _apply(cls, setup: bool, args: tuple, kwargs: dict):
    Tensor = _tensor_class()
    flat = list(args) + list(kwargs.values())
    node = cls._backward_cls.__new__(cls._backward_cls)
    tensors = [a if isinstance(a, Tensor) else None for a in args]
    Node.__init__(node, *[t for t in tensors if t is not None])
    node._is_tensor_input = tuple(t is not None for t in tensors)
    node.needs_input_grad = tuple(t is not None and t.requires_grad for t in tensors)
    executable = STATE.enabled and any(isinstance(a, Tensor) and a.requires_grad for a in flat)
    with no_grad():
        if setup:
            output = cls.forward(*args, **kwargs)
            cls.setup_context(node, args, output)
        else:
            output = cls.forward(node, *args, **kwargs)
    is_tuple = isinstance(output, tuple)
    outputs = output if is_tuple else (output,)
    if not executable:
        node.__dict__.pop("to_save", None)
        return output
    outputs = _wrap_outputs(node, args, outputs)
    node._save_outputs(outputs)
    return outputs if is_tuple else outputs[0]


def _wrap_outputs(node, args, outputs) -> tuple:
    """Give each tensor output the node as ``grad_fn`` (in-place ones: checked like PyTorch)."""
    Tensor = _tensor_class()
    dirty = {id(t) for t in node.__dict__.get("dirty_tensors", ())}
    non_diff = {id(t) for t in node.__dict__.get("non_differentiable", ())}
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    result, meta = [], []
    n_outputs = len(outputs)
    for i, o in enumerate(outputs):
        if not isinstance(o, Tensor):
            result.append(o)
            meta.append(None)
            continue
        meta.append((o._shape, o._dtype))
        if id(o) in dirty:
            if o._base is None and o._requires_grad and o._grad_fn is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad has been used in an in-place operation."
                )
            if o._base is not None:
                raise NotImplementedError(
                    "tensorlab: a custom Function that marks a view as dirty (modifies a view in "
                    "place) is not supported; modify a clone instead (y = x.clone()) and return it"
                )
            o._vc[0] += 1  # PyTorch bumps the version of a dirty tensor once more
        elif id(o) in inputs:
            o = o._view(o._shape, o._stride)  # an input returned as is: a view of it
        if id(outputs[i]) in non_diff or not o.dtype.is_floating_point:
            result.append(o)
            continue
        attach(o, node)
        if n_outputs > 1:
            o._output_nr = (node, i)
        elif "_output_nr" in o.__dict__:
            del o.__dict__["_output_nr"]
        result.append(o)
    for t in node.__dict__.get("dirty_tensors", ()):
        if not any(t is o for o in outputs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as "
                "output. The inputs that are modified inplace must all be outputs of the "
                "Function."
            )
    node._output_meta = tuple(meta)
    node._n_outputs = n_outputs
    return tuple(result)


def once_differentiable(fn):
    """Mark a ``backward`` as not differentiable: a ``create_graph=True`` pass runs it without
    recording, and differentiating its result raises PyTorch's error."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            outputs = fn(ctx, *args)
        if not STATE.enabled:
            return outputs
        Tensor = _tensor_class()
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        err = NotImplementedNode(
            "DelayedError",
            "trying to differentiate twice a function that was marked with @once_differentiable",
        )
        err.next_functions = tuple(gradient_edge(a) for a in args if isinstance(a, Tensor))
        err._input_meta = (None,) * len(err.next_functions)
        wrapped = []
        for o in outs:
            if isinstance(o, Tensor):
                o = o.detach()
                attach(o, err)
            wrapped.append(o)
        return wrapped[0] if single else tuple(wrapped)

    return wrapper


class InplaceFunction(Function):
    """Kept for backward compatibility, as in PyTorch."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
