"""``backward`` and ``grad``: start the engine from some outputs, like ``torch.autograd``."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from .graph import accumulator, run_backward

_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using autograd.grad "
    "when creating the graph to avoid this. If you have to use this function, make sure to reset "
    "the .grad fields of your parameters to None after use to break the cycle and avoid the leak."
)


def _tensor_class():
    from .._tensor import Tensor

    return Tensor


def _as_tuple(x) -> tuple:
    Tensor = _tensor_class()
    if x is None:
        return (None,)
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: Sequence, grads: Sequence) -> list:
    """The starting gradient of each output: the one given (same shape), or 1 for a scalar."""
    Tensor = _tensor_class()
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, Tensor):
            if tuple(g.shape) != tuple(t.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                    f"output[{i}] has a shape of {t.shape}."
                )
            a = g._np()
            if a.dtype == t.dtype.np and a.flags.c_contiguous:
                a = a.view()  # the caller's tensor, not copied: formulas only read it, and a
                a.flags.writeable = False  # write would raise (a hook gets a copy to write on)
                out.append(a)
            else:
                out.append(np.array(a, dtype=t.dtype.np))
        elif g is None:
            if not t.requires_grad:
                out.append(None)  # _roots raises PyTorch's error for it
                continue
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if not t.dtype.is_floating_point:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {t.dtype}"
                )
            out.append(np.ones(t._shape, dtype=t.dtype.np))
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    return out


def _roots(outputs, grads) -> list:
    roots = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        if not t.requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        node = t.grad_fn if t.grad_fn is not None else accumulator(t)
        nr = t.__dict__.get("_output_nr")
        roots.append((node, g, nr[1] if nr is not None and nr[0] is node else 0))
    return roots


def _as_tensors(outputs, grads, given) -> list:
    """The starting gradients as tensors (a ``create_graph`` pass): a gradient the caller gave
    is used as is (it may require grad itself)."""
    Tensor = _tensor_class()
    out = []
    for t, g, user in zip(outputs, grads, given):
        if g is None:
            out.append(None)
        elif isinstance(user, Tensor):
            out.append(user if user.dtype is t.dtype else user.to(t.dtype))
        else:
            out.append(Tensor._from_array(g, t.dtype))
    return out


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
) -> None:
    """Add the gradients of ``tensors`` (weighted by ``grad_tensors``) into the ``.grad`` of
    every leaf they depend on (only those in ``inputs`` if given)."""
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    made = _make_grads(outputs, grads)
    if create_graph:
        made = _as_tensors(outputs, made, grads)
        warnings.warn(_CYCLE, UserWarning, stacklevel=3)
    roots = _roots(outputs, made)
    accumulate = True
    capture = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        accumulate = {id(t) for t in inputs if t.grad_fn is None}
        capture = {t.grad_fn: i for i, t in enumerate(inputs) if t.grad_fn is not None}
    captured = run_backward(
        roots,
        retain_graph=bool(retain_graph),
        accumulate=accumulate,
        capture=capture,
        create_graph=create_graph,
    )
    if capture:  # non-leaf inputs: their .grad is filled as if they retained it
        from .graph import accumulate_into

        for i, g in captured.items():
            accumulate_into(inputs[i], g)


def grad(
    outputs,
    inputs,
    grad_outputs=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not stored in
    ``.grad``)."""
    Tensor = _tensor_class()
    if is_grads_batched:
        raise NotImplementedError(
            "tensorlab has no vmap: autograd.grad(..., is_grads_batched=True) is not supported; "
            "call autograd.grad once per gradient (with retain_graph=True)"
        )
    if retain_graph is None:
        retain_graph = create_graph
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    allow_unused = bool(allow_unused) or materialize_grads
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element 0 in argument 1, but got {type(t)}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    made = _make_grads(outputs, grads)
    if create_graph:
        made = _as_tensors(outputs, made, grads)
    roots = _roots(outputs, made)
    capture = {}
    for i, t in enumerate(inputs):
        capture[t.grad_fn if t.grad_fn is not None else accumulator(t)] = i
    captured = run_backward(
        roots,
        retain_graph=bool(retain_graph),
        accumulate=False,
        capture=capture,
        create_graph=create_graph,
    )
    result = []
    for i, t in enumerate(inputs):
        g = captured.get(i)
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            zeros = Tensor._from_array(np.zeros(t._shape, t.dtype.np), t.dtype)
            result.append(zeros if materialize_grads else None)
            continue
        if isinstance(g, Tensor):
            result.append(g if g.dtype is t.dtype else g.to(t.dtype))
            continue
        # one copy (the graph may still hold ``g``), which the result then owns
        result.append(Tensor._adopt(np.array(g, dtype=t.dtype.np, order="C"), t.dtype))
    return tuple(result)
