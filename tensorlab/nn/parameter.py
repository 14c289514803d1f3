"""``Parameter``: a tensor that a ``Module`` registers as learnable (``requires_grad=True``)."""

from __future__ import annotations

from .._tensor import Tensor


class Parameter(Tensor):
    """A ``Tensor`` that shares ``data``'s storage and requires grad (``torch.nn.Parameter``).

    ``Parameter(t)`` does not copy: writing to ``t`` changes the parameter and vice versa. It
    prints as ``Parameter containing:`` followed by the tensor. Results of operations on a
    parameter are plain tensors.
    """

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._ops.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise AttributeError(f"'{type(data).__name__}' object has no attribute 'detach'")
        super().__init__(data._storage, data._shape, data._stride, data._offset, data._dtype)
        if requires_grad:
            if not data.dtype.is_floating_point:
                raise RuntimeError(
                    "Only Tensors of floating point and complex dtype can require gradients"
                )
            self.requires_grad = True

    def __repr__(self) -> str:
        from .. import _printing

        fn = getattr(_printing, "parameter_repr", None)
        if fn is not None:
            return fn(self)
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        out = Parameter(self.data.clone(), self.requires_grad)
        memo[id(self)] = out
        return out

    def __reduce__(self):
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class UninitializedParameter(Parameter):
    """A parameter with no shape yet (of a lazy layer): ``materialize(shape)`` gives it one and
    turns it into a plain ``Parameter``."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        from .. import _dtype as D
        from .._ops.creation import empty

        self._factory_dtype = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
        super().__init__(empty(0, dtype=self._factory_dtype), requires_grad)

    def materialize(self, shape, device=None, dtype=None) -> None:
        from .. import _dtype as D
        from .._ops.creation import empty

        dtype = self._factory_dtype if dtype is None else D.to_dtype(dtype)
        self.data = empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__
