"""``backward`` and ``grad``: start the engine from some outputs, like ``torch.autograd``."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .graph import accumulator, run_backward


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
            out.append(np.array(g._np(), dtype=t.dtype.np))
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
        roots.append((node, g))
    return roots


def _no_create_graph(create_graph: bool) -> None:
    if create_graph:
        raise NotImplementedError(
            "tensorlab's autograd computes first derivatives only: create_graph=True "
            "(gradients of gradients) is not supported"
        )


def backward(
    tensors,
    grad_tensors=None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs=None,
) -> None:
    """Add the gradients of ``tensors`` (weighted by ``grad_tensors``) into the ``.grad`` of
    every leaf they depend on (only those in ``inputs`` if given)."""
    _no_create_graph(create_graph)
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    roots = _roots(outputs, _make_grads(outputs, grads))
    accumulate = True
    capture = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        accumulate = {id(t) for t in inputs if t.grad_fn is None}
        capture = {t.grad_fn: i for i, t in enumerate(inputs) if t.grad_fn is not None}
    captured = run_backward(
        roots, retain_graph=bool(retain_graph), accumulate=accumulate, capture=capture
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
    _no_create_graph(create_graph)
    Tensor = _tensor_class()
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    allow_unused = bool(allow_unused) or materialize_grads
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outputs)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element 0 in argument 1, but got {type(t)}")
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = _roots(outputs, _make_grads(outputs, grads))
    capture = {}
    for i, t in enumerate(inputs):
        capture[t.grad_fn if t.grad_fn is not None else accumulator(t)] = i
    captured = run_backward(
        roots, retain_graph=bool(retain_graph), accumulate=False, capture=capture
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
        result.append(Tensor._from_array(np.asarray(g).astype(t.dtype.np), t.dtype))
    return tuple(result)
