"""Grad mode: whether operations record the graph (``no_grad``, ``enable_grad``, ``set_grad_enabled``,
``inference_mode``).

One switch for the whole process (PyTorch keeps one per thread). Every op reads ``STATE.enabled``
before it records anything, so ``with no_grad():`` makes results that do not require grad.
"""

from __future__ import annotations

import functools


class _State:
    __slots__ = ("enabled", "inference")

    def __init__(self):
        self.enabled = True
        self.inference = False


STATE = _State()


def is_grad_enabled() -> bool:
    """True when operations record the graph (the default)."""
    return STATE.enabled


class _GradModeContext:
    """A context manager that is also a decorator, with or without parentheses."""

    _mode: bool = True

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)  # ``@no_grad`` without parentheses

    def __enter__(self) -> None:
        self._prev = STATE.enabled
        STATE.enabled = self._mode

    def __exit__(self, *exc) -> None:
        STATE.enabled = self._prev

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):
    """Inside ``with no_grad():`` (or a function decorated with it) nothing is recorded: results
    do not require grad and in-place updates of parameters are allowed."""

    _mode = False


class enable_grad(_GradModeContext):
    """Turn recording back on inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled:
    """``set_grad_enabled(False)`` switches recording off at once; used with ``with``, the previous
    mode comes back at the end of the block."""

    def __init__(self, mode: bool) -> None:
        self._prev = STATE.enabled
        self._mode = bool(mode)
        STATE.enabled = self._mode

    def __enter__(self) -> None:
        STATE.enabled = self._mode

    def __exit__(self, *exc) -> None:
        STATE.enabled = self._prev

    def __call__(self, func):
        mode = self._mode
        STATE.enabled = self._prev  # as a decorator, only the decorated calls change the mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__(self._mode)


# --------------------------------------------------------------------------------- inference mode
INPLACE_INFERENCE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone "
    "to get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 "
    "for more details."
)
SAVED_INFERENCE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a clone "
    "to get a normal tensor and use it in autograd, or use `tensorlab.no_grad()` instead of "
    "`tensorlab.inference_mode()`."
)
REQUIRES_GRAD_INFERENCE = (
    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
)
VERSION_INFERENCE = "Inference tensors do not track version counter."


class _InferenceVersion(list):
    """The version counter of an inference tensor (and of its views and ``detach()``es, which
    share it): what marks the tensor as one (``is_inference()``). An in-place write bumps the
    counter first, so outside inference mode the write is refused before it happens, as in torch.
    Normal tensors keep a plain list: nothing changes on their paths."""

    __slots__ = ()

    def __setitem__(self, i, value) -> None:
        if not STATE.inference:
            raise RuntimeError(INPLACE_INFERENCE)
        list.__setitem__(self, i, value)


_PLAIN_INIT = None


def _inference_init(self, *args, **kwargs) -> None:
    _PLAIN_INIT(self, *args, **kwargs)
    self._vc = _InferenceVersion((0,))  # a view then takes its base's counter instead


def _set_inference(on: bool) -> None:
    """Tensors made while ``on`` are inference tensors: ``Tensor.__init__`` is swapped for one
    that gives them an ``_InferenceVersion`` only for the duration (no cost outside)."""
    global _PLAIN_INIT
    from .._tensor import Tensor

    if _PLAIN_INIT is None:
        _PLAIN_INIT = Tensor.__init__
    STATE.inference = on
    Tensor.__init__ = _inference_init if on else _PLAIN_INIT


def is_inference(input) -> bool:
    """``tensorlab.is_inference(t)``: ``t.is_inference()``."""
    return input.is_inference()


def is_inference_mode_enabled() -> bool:
    """True inside ``with inference_mode():``."""
    return STATE.inference


class inference_mode(_GradModeContext):
    """``no_grad`` and more: tensors made inside are *inference tensors* (``is_inference()``),
    which autograd refuses to save for backward and which cannot be updated in place (nor
    ``requires_grad_()``) outside inference mode. ``inference_mode(False)`` switches it off (and
    grad mode on) inside. A context manager and a decorator, with or without parentheses."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return object.__new__(cls)
        return cls()(mode)  # ``@inference_mode`` without parentheses

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self._prev = (STATE.enabled, STATE.inference)
        STATE.enabled = not self.mode
        _set_inference(bool(self.mode))

    def __exit__(self, *exc) -> None:
        STATE.enabled = self._prev[0]
        _set_inference(self._prev[1])

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__(self.mode)
