"""Hooks on saved tensors: ``saved_tensors_hooks``, ``save_on_cpu`` and
``disable_saved_tensors_hooks`` (``torch.autograd.graph``'s context managers).

While a ``saved_tensors_hooks(pack_hook, unpack_hook)`` block is open, every tensor an op saves
for its backward (and every tensor given to ``ctx.save_for_backward``) is handed to
``pack_hook`` (grad mode off) and the graph keeps what it returns instead; ``unpack_hook`` gets
that object back each time the backward (or ``grad_fn._saved_*``) needs the tensor. Only the
innermost pair applies. :class:`~tensorlab.autograd.graph.SavedTensor` calls :func:`current`
and :func:`pack`; this module imports nothing from the engine.
"""

from __future__ import annotations

import contextlib

from .grad_mode import STATE

# the pairs of the open ``saved_tensors_hooks`` blocks, innermost last
STACK: list = []
# the message of the innermost open ``disable_saved_tensors_hooks`` block (None: enabled)
DISABLED: list = [None]

PACK_INPLACE = (
    "A saved tensor pack hook is modifying its input in place. Tensors provided as input to "
    "pack hook cannot be modified by in-place operations as this can lead to unexpected "
    "side-effects. Please open an issue if you need to perform in-place operations on the "
    "input to a pack hook."
)


def current():
    """The innermost ``(pack_hook, unpack_hook)``, None without one; PyTorch's error (the
    message given to ``disable_saved_tensors_hooks``) when hooks are open but disabled."""
    if not STACK:
        return None
    if DISABLED[0] is not None:
        raise RuntimeError(DISABLED[0])
    return STACK[-1]


def pack(pack_hook, t):
    """``pack_hook(t)`` with grad mode off; refuses a hook that wrote into ``t``."""
    vc = t._vc
    version = vc[0]
    was = STATE.enabled
    STATE.enabled = False
    try:
        packed = pack_hook(t)
    finally:
        STATE.enabled = was
    if vc[0] != version:
        raise RuntimeError(PACK_INPLACE)
    return packed


def unpack(unpack_hook, packed):
    """``unpack_hook(packed)``, which must give a tensor."""
    from .._tensor import Tensor

    t = unpack_hook(packed)
    if not isinstance(t, Tensor):
        raise TypeError(
            "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
            f"type {type(t).__name__}"
        )
    return t


class saved_tensors_hooks:
    """Context manager: ``pack_hook(tensor) -> Any`` runs when an op saves a tensor for
    backward, ``unpack_hook(Any) -> Tensor`` when the saved tensor is needed. Only the
    innermost pair applies when blocks are nested."""

    def __init__(self, pack_hook, unpack_hook) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if DISABLED[0] is not None:
            raise RuntimeError(DISABLED[0])
        STACK.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *args: object) -> None:
        STACK.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device for backward. tensorlab
    has only the CPU, so the tensor is kept as it is (``pin_memory=True``: as a copy, as PyTorch
    makes one into pinned memory)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        import tensorlab

        device_module = getattr(tensorlab, device_type, tensorlab.cuda)

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            is_pinnable = device_module.is_available() and not tensor.is_sparse
            packed = tensorlab.empty(
                tensor.size(), dtype=tensor.dtype, layout=tensor.layout, pin_memory=is_pinnable
            )
            packed.copy_(tensor, non_blocking=is_pinnable)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Inside this block, opening ``saved_tensors_hooks`` (or saving a tensor while one is
    open) raises ``RuntimeError(error_message)``; nested blocks restore the outer message."""
    previous = DISABLED[0]
    try:
        DISABLED[0] = error_message
        yield
    finally:
        DISABLED[0] = previous
