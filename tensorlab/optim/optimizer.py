"""``Optimizer``: the base of ``SGD``, ``Adam``, ``AdamW`` (``torch/optim/optimizer.py``).

An optimizer holds parameter groups (lists of leaf tensors plus their settings). ``step()``
moves every parameter that has a ``.grad`` against it, in place, without recording anything;
``zero_grad()`` forgets the gradients before the next ``backward()``; ``state_dict()`` /
``load_state_dict()`` save and restore the groups' settings and the per-parameter state
(momentum buffers, Adam's moments) with parameters numbered in group order, as torch does.
"""

from __future__ import annotations

import copy
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

from .._tensor import Tensor

__all__ = ["Optimizer"]


def _typename(x) -> str:
    if isinstance(x, Tensor):
        return x.type()
    return f"{type(x).__module__}.{type(x).__qualname__}"


class Optimizer:
    """Base class: parameter groups, ``zero_grad``, the printed summary."""

    def __init__(self, params: Iterable, defaults: dict[str, Any]):
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}"
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own settings (missing ones use the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}"
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        if len(param_group["params"]) != len({id(p) for p in param_group["params"]}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: set them to None (default) or fill them with zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure: Callable | None = None):
        """Update every parameter that has a gradient (recording nothing), one ``_update`` each.
        ``closure``, if given, recomputes and returns the loss first (with grad enabled)."""
        from ..autograd.grad_mode import enable_grad, no_grad

        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict[str, Any]) -> None:
        """One parameter's update: what each optimizer defines."""
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``: the
        parameters are replaced by their position (counted across groups); the state's tensors
        are the optimizer's own (not copies), as in torch."""
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict()`` saved (the groups must have the same sizes)."""
        state_dict = state_dict.copy()
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key != "step" and param.is_floating_point():
                    return value.to(param.dtype)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"
