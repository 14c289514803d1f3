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
        if data.is_meta:  # a parameter on the meta device: the meta variant of this class
            from .._meta import meta_class

            self.__class__ = meta_class(type(self))
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


_ALLOWED_METHODS = frozenset(
    {"size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char"}
    | {"short", "int", "long", "cuda", "cpu", "to", "get_device"}
)


class UninitializedTensorMixin:
    """A parameter or buffer with no shape yet (of a lazy layer), as torch's: its ``shape``
    raises, so does every tensor method but a few (``size()`` says ``[0]``), and
    ``materialize(shape)`` gives it storage and turns it into ``cls_to_become``."""

    def materialize(self, shape, device=None, dtype=None) -> None:
        from .. import _dtype as D
        from .._ops.creation import empty

        dtype = self.dtype if dtype is None else D.to_dtype(dtype)
        self.data = empty(tuple(shape), dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __getattribute__(self, name: str):
        value = object.__getattribute__(self, name)
        if (
            not name.startswith("_")
            and name not in _ALLOWED_METHODS
            and callable(value)
            and callable(getattr(Tensor, name, None))
            and not hasattr(UninitializedTensorMixin, name)
        ):
            cls = type(self).__name__

            def refuse(*args, **kwargs):
                raise ValueError(
                    f"Attempted to use an uninitialized parameter in <method '{name}' of "
                    "'tensorlab.Tensor' objects>. This error happens when you are using a "
                    f"`LazyModule` or explicitly manipulating `tensorlab.nn.parameter.{cls}` "
                    "objects. When using LazyModules Call `forward` with a dummy batch to "
                    "initialize the parameters before calling torch functions"
                )

            return refuse
        return value

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


def is_lazy(param) -> bool:
    """Whether ``param`` is an ``UninitializedParameter`` or ``UninitializedBuffer``."""
    return isinstance(param, UninitializedTensorMixin)


def _unborn(dtype):
    from .. import _dtype as D
    from .._ops.creation import empty

    return empty(0, dtype=D.get_default_dtype() if dtype is None else D.to_dtype(dtype))


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter with no shape yet: ``materialize(shape)`` makes it a plain ``Parameter``."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        Parameter.__init__(self, _unborn(dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer with no shape yet (a lazy norm layer's running statistics)."""

    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device=None, dtype=None):
        data = _unborn(dtype)
        Tensor.__init__(self, data._storage, data._shape, data._stride, data._offset, data._dtype)
        if requires_grad:
            self.requires_grad = True
