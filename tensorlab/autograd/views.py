"""Views and in-place ops in the graph.

A view shares its base's memory, so its gradient is the base's gradient *at the view's
positions*. :class:`ViewBackward` finds those positions by replaying the view op on a zero tensor
of the input's shape and adding the gradient through it; ``expand`` (whose view repeats elements)
sums instead.

In-place ops follow PyTorch's rules:

- a leaf that requires grad, or a view of one, refuses in-place writes in grad mode (its
  ``.grad`` would be the gradient of values it no longer holds);
- a view made under ``no_grad`` refuses in grad mode (ambiguous: should the write be tracked?);
- otherwise the write is recorded: a plain tensor's ``grad_fn`` becomes the op's node; for a
  view, the *base* gets a ``CopySlices`` node (gradient of the base = the gradient passed through,
  except at the view's positions, where the op's node decides) and the view an
  ``AsStridedBackward0`` node reading its positions from the base.

Every in-place write increments a version counter shared by a tensor and its views; a node that
saved a tensor checks the version before using it.
"""

from __future__ import annotations

import functools

import numpy as np

from .._tensor import Tensor
from .grad_mode import STATE
from .graph import NO_GRAD_VIEW, Node, any_requires_grad, attach, sum_to

# ---------------------------------------------------------------------------------------------
# view nodes
# ---------------------------------------------------------------------------------------------


class ViewBackward(Node):
    """Any view op but expand (``ViewBackward0``, ``TransposeBackward0``, ``SelectBackward0``...).

    Replaying the op on a fresh zero tensor of the input's shape gives a view without repeated
    elements, so adding the gradient through it puts each value at its input position.
    """

    def __init__(self, name: str, x, replay):
        super().__init__(x)
        self._name, self.replay = name, replay

    def backward(self, g):
        shape = self._input_meta[0][0]
        buf = Tensor._from_array(np.zeros(shape, dtype=g.dtype))
        was, STATE.enabled = STATE.enabled, False
        try:
            view = self.replay(buf)
        finally:
            STATE.enabled = was
        if view.numel():
            dst = view._np()
            dst += g
        return (buf._np(),)


class ExpandBackward0(Node):
    """``expand`` repeats elements (stride 0): each input element gets the sum of its copies."""

    def __init__(self, x):
        super().__init__(x)

    def backward(self, g):
        return (sum_to(g, self._input_meta[0][0]),)


def record_view(out, x, name: str, replay) -> Tensor:
    """Give the view ``out`` of ``x`` its node (call only in grad mode when ``x`` requires grad)."""
    node = ExpandBackward0(x) if name == "ExpandBackward0" else ViewBackward(name, x, replay)
    return attach(out, node)


# ---------------------------------------------------------------------------------------------
# positions of a view inside its base
# ---------------------------------------------------------------------------------------------


def layout(t) -> tuple:
    return (tuple(t._shape), tuple(t._stride), t._offset)


def storage_positions(shape, stride, offset) -> np.ndarray:
    """The storage index of every element of a strided layout (an int array of ``shape``)."""
    pos = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, stride)):
        pos += (np.arange(n, dtype=np.int64) * s).reshape((n,) + (1,) * (len(shape) - d - 1))
    return pos


def positions_in_base(base_layout, view_layout) -> np.ndarray:
    """For each element of the view, the flat (row-major) index of the base element it is."""
    base_pos = storage_positions(*base_layout).reshape(-1)
    view_pos = storage_positions(*view_layout)
    if base_pos.size == 0 or view_pos.size == 0:
        return np.zeros(view_pos.shape, dtype=np.int64)
    lo = base_pos.min()
    inverse = np.full(int(base_pos.max() - lo + 1), -1, dtype=np.int64)
    inverse[base_pos - lo] = np.arange(base_pos.size)
    return inverse[view_pos - lo]


class AsStridedBackward0(Node):
    """A view whose base was modified in place reads its values (and so its gradient) straight
    from the base's current history, by position."""

    def __init__(self, base, view):
        super().__init__(base)
        self.base_layout, self.view_layout = layout(base), layout(view)

    def backward(self, g):
        shape = self._input_meta[0][0]
        idx = positions_in_base(self.base_layout, self.view_layout)
        out = np.zeros(int(np.prod(shape)), dtype=g.dtype)
        np.add.at(out, idx.reshape(-1), np.asarray(g).reshape(-1))
        return (out.reshape(shape),)


class CopySlices(Node):
    """The base of a view that an op modified in place.

    ``op`` is the node the op would have recorded on the view's old values. The base's gradient
    passes through unchanged except at the view's positions, where it is what ``op`` gives for
    its first input; ``op``'s other inputs get their gradients as usual.
    """

    def __init__(self, base, view, op: Node):
        super().__init__(base)
        self.next_functions = self.next_functions + op.next_functions[1:]
        self._input_meta = self._input_meta + op._input_meta[1:]
        self.base_layout, self.view_layout = layout(base), layout(view)
        self.op = op
        self._name = "CopySlices"

    def backward(self, g):
        idx = positions_in_base(self.base_layout, self.view_layout)
        out = np.array(g, copy=True)
        flat = out.reshape(-1)
        grads = self.op.backward(flat[idx])
        first = grads[0] if grads else None
        if first is None:
            flat[idx] = 0
        else:
            flat[idx] = sum_to(np.asarray(first), idx.shape)
        return (out, *grads[1:])

    def release(self) -> None:
        self.op.release()


def regenerate(view) -> None:
    """After an in-place write through any view of its base: ``view.grad_fn`` reads from the
    base's current history (PyTorch regenerates it the same way)."""
    base = view._base
    view._view_version = view._vc[0]
    view._grad_fn = AsStridedBackward0(base, view) if base.requires_grad else None


# ---------------------------------------------------------------------------------------------
# in-place ops
# ---------------------------------------------------------------------------------------------


def run_inplace(t, write, make_node):
    """Run the in-place ``write()`` on ``t`` and record it: ``make_node(old)`` is the node the op
    records on ``old``, a copy of ``t``'s values before the write (carrying ``t``'s history when
    ``t`` is not a view)."""
    view = t._base is not None
    if view and t._view_no_grad:
        raise RuntimeError(NO_GRAD_VIEW)
    old = Tensor._from_array(np.array(t._np()), t.dtype)
    if view:
        old._requires_grad = True  # stands for the view's old values inside CopySlices
    else:
        old._grad_fn = t._grad_fn
    result = write()
    node = make_node(old)
    if node is None:
        return result
    if not view:
        prev = t._grad_fn
        if prev is not None and prev._retained is not None and prev._retained() is t:
            node._retained, prev._retained = prev._retained, None
        t._grad_fn = node
        return result
    base = t._base
    base._grad_fn = CopySlices(base, t, node)
    attach(t, AsStridedBackward0(base, t))
    return result


def inplace_differentiable(make_node):
    """Decorate an in-place method ``fn(self, *args, **kwargs)``: in grad mode, when ``self`` or
    an argument requires grad, the write is recorded with ``make_node(old, *args, **kwargs)``."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if not STATE.enabled or not (
                self.requires_grad or any_requires_grad(args, kwargs, Tensor)
            ):
                return fn(self, *args, **kwargs)
            return run_inplace(
                self, lambda: fn(self, *args, **kwargs), lambda old: make_node(old, *args, **kwargs)
            )

        wrapper.__wrapped__ = getattr(fn, "__wrapped__", fn)
        return wrapper

    return deco


def same_as(op):
    """``make_node`` for an in-place op: the node its out-of-place version records on ``old``."""

    def make(old, *args, **kwargs):
        out = op(old, *args, **kwargs)
        return out.grad_fn if isinstance(out, Tensor) else None

    return make
