"""``Module``: the container of parameters, buffers and submodules (``torch/nn/modules/module.py``)."""

from __future__ import annotations

import collections.abc
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

from ... import _dtype as D
from ..._tensor import Tensor, parse_to_args
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter
from . import _hooks
from ._hooks import (  # noqa: F401 - torch.nn.modules.module's names
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

__all__ = ["Module"]


def typename(obj) -> str:
    """``torch.typename``: ``tensorlab.FloatTensor`` for tensors, ``module.QualName`` otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    return lines[0] + "\n" + "\n".join(" " * n + line for line in lines[1:])


class Module:
    """Base class of layers: holds ``Parameter``s and sub-modules, calls ``forward`` when called.

    Assigning a ``Parameter`` to an attribute registers it (``conv.weight = nn.Parameter(t)``);
    assigning a ``Module`` registers a child. ``repr`` lists children like PyTorch.
    """

    training: bool

    def __init__(self) -> None:
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())

    # ------------------------------------------------------------------ calling
    def forward(self, *input: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        d = self.__dict__
        if not (
            d.get("_forward_pre_hooks")
            or d.get("_forward_hooks")
            or d.get("_backward_hooks")
            or d.get("_backward_pre_hooks")
            or _hooks.any_global()
        ):
            return self.forward(*args, **kwargs)
        return _hooks.call(self, args, kwargs)

    _call_impl = __call__

    # ------------------------------------------------------------------ hooks
    def register_forward_pre_hook(
        self, hook, *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``) before every
        ``forward``; it may return new args (or ``(args, kwargs)``). ``prepend``: run first."""
        flags = ("_forward_pre_hooks_with_kwargs",) if with_kwargs else ()
        return _hooks.add(self, "_forward_pre_hooks", hook, prepend=prepend, flags=flags)

    def register_forward_hook(
        self,
        hook,
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
        output)``) after every ``forward``; it may return a new output. ``always_call``: also
        when ``forward`` raises."""
        flags = ("_forward_hooks_with_kwargs",) if with_kwargs else ()
        flags += ("_forward_hooks_always_called",) if always_call else ()
        return _hooks.add(self, "_forward_hooks", hook, prepend=prepend, flags=flags)

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients w.r.t. the module's outputs are
        computed; it may return new ones."""
        return _hooks.add(self, "_backward_pre_hooks", hook, prepend=prepend)

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the gradients w.r.t. the module's
        inputs are computed; it may return new ``grad_input``."""
        return _hooks.add(self, "_backward_hooks", hook, prepend=prepend)

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(tensorlab.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(tensorlab.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(tensorlab.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(tensorlab.Tensor or None expected)"
                )
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, *dicts) -> None:
        for d in dicts:
            if name in d:
                del d[name]

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        if name in _hooks.LOCAL:  # a hook dict, as every torch module has (made on first use)
            return _hooks.local(self, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__())
        for store in ("_parameters", "_buffers", "_modules"):
            keys |= set(self.__dict__.get(store, {}))
        return sorted(k for k in keys if not k[:1].isdigit())

    # ------------------------------------------------------------------ traversal
    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def _named_members(self, get, prefix: str, recurse: bool, remove_duplicate: bool = True):
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        seen = set()
        for mod_prefix, module in mods:
            for name, value in get(module).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(name, parameter)`` pairs: ``('weight', ...)``, ``('bias', ...)``, ``('0.weight', ...)``."""
        yield from self._named_members(lambda m: m._parameters, prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        yield from self._named_members(lambda m: m._buffers, prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def state_dict(self, *, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (detached, sharing storage)."""
        from ..parameter import is_lazy

        if destination is None:
            destination = OrderedDict()
        for name, p in self._parameters.items():
            if p is not None:  # a lazy layer's unborn parameter is kept as it is, as torch does
                destination[prefix + name] = p if keep_vars or is_lazy(p) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars or is_lazy(b) else b.detach()
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        return destination

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values into the existing parameters/buffers (shapes must match). The error lists
        torch's lines in torch's order: missing keys, unexpected keys (``strict``), then each
        size mismatch or non-tensor value in the model's order. ``assign=True`` puts the state
        dict's tensors themselves in the module (wrapped in a ``Parameter`` with the old
        parameter's ``requires_grad`` where needed): how a model built on the meta device gets
        its weights."""
        from collections.abc import Mapping

        from ..parameter import is_lazy

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        own = self.state_dict(keep_vars=True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for k, target in own.items():
            if k not in state_dict:
                continue
            src = state_dict[k]
            if not isinstance(src, Tensor):
                errors.append(
                    f'While copying the parameter named "{k}", expected tensorlab.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(src)}"
                )
                continue
            if is_lazy(target) and not is_lazy(src):  # a lazy layer takes the saved shape
                target.materialize(src.shape)
            if tuple(src.shape) != tuple(target.shape):
                errors.append(
                    f"size mismatch for {k}: copying a param with shape {src.shape} from "
                    f"checkpoint, the shape in current model is {target.shape}."
                )
                continue
            if assign:
                _assign(self, k, target, src)
            elif target.is_meta:
                if not src.is_meta:
                    warnings.warn(
                        f"for {k}: copying from a non-meta parameter in the checkpoint to a meta "
                        "parameter in the current model, which is a no-op. (Did you mean to pass "
                        "`assign=True` to assign items in the state dictionary to their "
                        "corresponding key in the module instead of copying them in place?)",
                        UserWarning,
                        stacklevel=2,
                    )
            else:
                target._np()[...] = src._np()
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ modes, grads, dtypes
    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move parameters and buffers to ``device`` without copying their values: storage of
        the right shapes, uninitialised (tensorlab's ``empty`` gives zeros). The way from a model
        built on the meta device to one with memory (then ``reset_parameters`` or
        ``load_state_dict``)."""
        from ..._ops.creation import empty_like

        if recurse:
            return self._apply(lambda t: empty_like(t, device=device))
        children = self._modules  # only this module's own tensors
        object.__setattr__(self, "_modules", OrderedDict())
        try:
            self._apply(lambda t: empty_like(t, device=device))
        finally:
            object.__setattr__(self, "_modules", children)
        return self

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad._np()[...] = 0

    def apply(self, fn) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply(self, fn) -> Module:
        """Convert every parameter/buffer in place (the ``Parameter`` objects stay the same)."""
        for m in self.children():
            m._apply(fn)
        for k, p in self._parameters.items():
            if p is not None:
                new = fn(p.data)
                if new.is_meta is p.is_meta:
                    p.data = new
                else:  # another device: a new Parameter, as torch's _apply makes
                    from ..parameter import Parameter

                    self._parameters[k] = Parameter(new, p.requires_grad)
        for k, b in self._buffers.items():
            if b is not None:
                self._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """``to(dtype)`` / ``to('cpu')`` / ``to(tensor)``: floating-point parameters change dtype."""
        fmt = kwargs.pop("memory_format", None)
        if fmt is not None:  # 4-d and 5-d parameters and buffers change memory format
            self._apply(lambda t: t.to(memory_format=fmt) if t.dim() in (4, 5) else t)
        dtype, kind = parse_to_args(args, kwargs, "to() received an invalid keyword argument", True)
        if kind == "cpu" and any(t.is_meta for t in (*self.parameters(), *self.buffers())):
            from ..._meta import MODULE_TO

            raise NotImplementedError(MODULE_TO)
        if kind == "meta":
            self._apply(lambda t: t.to("meta"))
        if dtype is not None:
            dtype = D.to_dtype(dtype)
            if not dtype.is_floating_point:
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                    f"dtype={dtype!r}"
                )
            return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)
        return self

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self) -> Module:
        if any(t.is_meta for t in (*self.parameters(), *self.buffers())):
            from ..._meta import NO_DATA

            raise NotImplementedError(NO_DATA)
        return self

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


class _IncompatibleKeys(
    collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])
):
    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


# ---------------------------------------------------------------------------- containers


def _assign(root: Module, key: str, target, src) -> None:
    """``load_state_dict(assign=True)`` for one entry: torch's ``_load_from_state_dict``."""
    from ..parameter import Parameter

    *path, name = key.split(".")
    owner = root
    for part in path:
        owner = owner._modules[part]
    if isinstance(target, Parameter):
        if not isinstance(src, Parameter):
            src = Parameter(src, requires_grad=target.requires_grad)
        else:
            src.requires_grad_(target.requires_grad)
        owner._parameters[name] = src
    else:
        owner._buffers[name] = src
