"""Module hooks (``torch/nn/modules/module.py``'s ``_call_impl`` and ``torch/utils/hooks.py``'s
``BackwardHook``): forward pre-hooks and forward hooks, full backward pre-hooks and full
backward hooks, per module and global (``register_module_forward_hook`` ...).

A call with no hook anywhere is just ``forward`` (``Module.__call__`` checks ``any_hooks``).
Backward hooks wrap the module's tensor inputs and outputs in ``BackwardHookFunction``, an
identity custom Function whose backward calls the hooks: the outputs' node sees the gradients
w.r.t. the outputs (pre-hooks, which may replace them), the inputs' node the gradients w.r.t.
the inputs (hooks, which may replace them), as in torch.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict

from ...utils.hooks import RemovableHandle

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_full_backward_hook",
]

_global_forward_pre_hooks: dict = OrderedDict()
_global_forward_hooks: dict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = OrderedDict()
_global_forward_hooks_always_called: dict = OrderedDict()
_global_backward_pre_hooks: dict = OrderedDict()
_global_backward_hooks: dict = OrderedDict()

# a module's own hook dicts (created on first registration)
LOCAL = (
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_backward_pre_hooks",
    "_backward_hooks",
)


def any_global() -> bool:
    return bool(
        _global_forward_pre_hooks
        or _global_forward_hooks
        or _global_backward_pre_hooks
        or _global_backward_hooks
    )


def local(module, name: str) -> dict:
    """``module``'s hook dict ``name`` (made on first use, so modules built before hooks
    existed, or unpickled without them, work)."""
    d = module.__dict__.get(name)
    if d is None:
        d = OrderedDict()
        object.__setattr__(module, name, d)
    return d


def _empty(module, name: str):
    return module.__dict__.get(name) or {}


# ---------------------------------------------------------------------------- registration
def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """A forward pre-hook for every module: ``hook(module, args)`` before each ``forward``
    (it may return new args)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(
    hook, *, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """A forward hook for every module: ``hook(module, args, output)`` after each ``forward``
    (``with_kwargs``: ``hook(module, args, kwargs, output)``; it may return a new output)."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=_global_forward_hooks_always_called)
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """A backward pre-hook for every module: ``hook(module, grad_output)``."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """A backward hook for every module: ``hook(module, grad_input, grad_output)``."""
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def add(module, name: str, hook, *, prepend=False, flags=()) -> RemovableHandle:
    """Register ``hook`` in ``module``'s dict ``name``; ``flags``: the flag dicts to set."""
    hooks = local(module, name)
    extra = [local(module, f) for f in flags] if flags else None
    if name == "_forward_hooks":  # torch's handle also clears the always_called flag
        extra = (extra or []) + [local(module, "_forward_hooks_always_called")]
    handle = RemovableHandle(hooks, extra_dict=extra)
    hooks[handle.id] = hook
    for f in flags:
        local(module, f)[handle.id] = True
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


# ---------------------------------------------------------------------------- calling
def call(module, args: tuple, kwargs: dict):
    """``module(*args, **kwargs)`` with every hook that applies (torch's ``_call_impl``)."""
    forward = module.forward
    result = None
    called = set()
    fwd_hooks = _empty(module, "_forward_hooks")
    fwd_kwargs = _empty(module, "_forward_hooks_with_kwargs")
    always = _empty(module, "_forward_hooks_always_called")
    try:
        pre = (*_global_forward_pre_hooks.items(), *_empty(module, "_forward_pre_hooks").items())
        pre_kwargs = _empty(module, "_forward_pre_hooks_with_kwargs")
        for hook_id, hook in pre:
            if hook_id in pre_kwargs:
                out = hook(module, args, kwargs)
                if out is not None:
                    if isinstance(out, tuple) and len(out) == 2:
                        args, kwargs = out
                    else:
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {out}."
                        )
            else:
                out = hook(module, args)
                if out is not None:
                    args = out if isinstance(out, tuple) else (out,)
        backward_pre = [
            *_global_backward_pre_hooks.values(),
            *_empty(module, "_backward_pre_hooks").values(),
        ]
        backward = [*_global_backward_hooks.values(), *_empty(module, "_backward_hooks").values()]
        bw = BackwardHook(module, backward, backward_pre) if (backward or backward_pre) else None
        if bw is not None:
            args = bw.setup_input_hook(args)
        result = forward(*args, **kwargs)
        for hook_id, hook in (*_global_forward_hooks.items(), *fwd_hooks.items()):
            if hook_id in always or hook_id in _global_forward_hooks_always_called:
                called.add(hook_id)
            if hook_id in fwd_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                out = hook(module, args, kwargs, result)
            else:
                out = hook(module, args, result)
            if out is not None:
                result = out
        if bw is not None:
            from ..._tensor import Tensor

            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a "
                    f"tuple of Tensors but received {type(result)}",
                    stacklevel=3,
                )
            result = bw.setup_output_hook(result)
        return result
    except Exception:
        for hook_id, hook in _global_forward_hooks.items():
            if hook_id in _global_forward_hooks_always_called and hook_id not in called:
                try:
                    out = hook(module, args, result)
                    if out is not None:
                        result = out
                except Exception as e:  # noqa: BLE001 - torch silences it the same way
                    warnings.warn(
                        "global module forward hook with ``always_call=True`` raised an "
                        f"exception that was silenced as another error was raised in forward: "
                        f"{e}",
                        stacklevel=3,
                    )
        for hook_id, hook in fwd_hooks.items():
            if hook_id in always and hook_id not in called:
                try:
                    if hook_id in fwd_kwargs:
                        out = hook(module, args, kwargs, result)
                    else:
                        out = hook(module, args, result)
                    if out is not None:
                        result = out
                except Exception as e:  # noqa: BLE001
                    warnings.warn(
                        "module forward hook with ``always_call=True`` raised an exception that "
                        f"was silenced as another error was raised in forward: {e}",
                        stacklevel=3,
                    )
        raise


# ---------------------------------------------------------------------------- backward hooks
def _hook_function():
    """``BackwardHookFunction`` (made on first use: the autograd package imports ``nn``)."""
    global _BackwardHookFunction
    if _BackwardHookFunction is None:
        from ...autograd.function import Function

        class BackwardHookFunction(Function):
            """Identity on the module's tensors; its backward runs the module's hooks."""

            @staticmethod
            def forward(ctx, *args):
                ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
                ctx.set_materialize_grads(False)
                return tuple(a.view_as(a) for a in args)

            @staticmethod
            def backward(ctx, *grads):
                run = ctx.__dict__.get("_module_hook")
                return run(grads) if run is not None else grads

        _BackwardHookFunction = BackwardHookFunction
    return _BackwardHookFunction


_BackwardHookFunction = None


class BackwardHook:
    """The hooks of one module call: the gradients w.r.t. its outputs are kept when they pass
    the outputs' node, and handed with those w.r.t. its inputs to the hooks."""

    def __init__(self, module, hooks: list, pre_hooks: list):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    @staticmethod
    def _pack(indices, values, size) -> tuple:
        out = [None] * size
        for i, v in zip(indices, values):
            out[i] = v
        return tuple(out)

    def _wrap(self, args: tuple, run):
        from ..._tensor import Tensor
        from ...autograd.grad_mode import is_grad_enabled

        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        if not tensors:
            raise RuntimeError(
                "Cannot set Module backward hook for a Module with no input Tensors."
            )
        new = _hook_function().apply(*tensors)
        new = new if isinstance(new, tuple) else (new,)
        node = next(t.grad_fn for t in new if t.grad_fn is not None)
        node._module_hook = run
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple) -> tuple:
        def run(grads):
            if self.grad_outputs is None:
                return grads
            res = self._pack(self.input_index, grads, self.n_inputs)
            for hook in self.hooks:
                out = hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(
                        "Backward hook returned an invalid number of grad_input, got "
                        f"{len(out)}, but expected {len(res)}"
                    )
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_index)

        res, index = self._wrap(args, run)
        self.n_inputs, self.input_index = len(args), index
        return res

    def setup_output_hook(self, result):
        def run(grads):
            self.grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
            expected = len(self.grad_outputs)
            for hook in self.pre_hooks:
                out = hook(self.module, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != expected:
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(out)}, but expected {expected}"
                    )
                self.grad_outputs = out
            local_grads = self.grad_outputs
            if self.input_index is None:
                warnings.warn(
                    "Full backward hook is firing when gradients are computed with respect to "
                    "module outputs since no inputs require gradients. See "
                    "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                    "#torch.nn.Module.register_full_backward_hook for more details.",
                    stacklevel=5,
                )
                grad_inputs = self._pack([], [], self.n_inputs)
                for hook in self.hooks:
                    res = hook(self.module, grad_inputs, self.grad_outputs)
                    if res is not None and not (
                        isinstance(res, tuple) and all(r is None for r in res)
                    ):
                        raise RuntimeError(
                            "Backward hook for Modules where no input requires gradient should "
                            "always return None or None for all gradients."
                        )
                self.grad_outputs = None
            return tuple(local_grads[i] for i in self.output_index)

        single = not isinstance(result, tuple)
        outs = (result,) if single else result
        res, index = self._wrap(outs, run)
        self.n_outputs, self.output_index = len(outs), index
        return res[0] if single else res
