"""``LazyModuleMixin``: parameters whose shape is known at the first call
(``torch/nn/modules/lazy.py``)."""

from __future__ import annotations

from ..parameter import is_lazy
from .module import Module


class LazyModuleMixin:
    """Before the first ``forward``, ``initialize_parameters(input)`` gives every
    ``UninitializedParameter`` its shape; the module then becomes ``cls_to_become``."""

    cls_to_become = None

    def has_uninitialized_params(self) -> bool:
        for p in list(self._parameters.values()) + list(self._buffers.values()):
            if is_lazy(p):
                return True
        return False

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
            if not self.has_uninitialized_params() and self.cls_to_become is not None:
                self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )
