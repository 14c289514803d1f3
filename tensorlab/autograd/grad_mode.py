"""Grad mode: whether operations record the graph (``no_grad``, ``enable_grad``, ``set_grad_enabled``).

One switch for the whole process (PyTorch keeps one per thread). Every op reads ``STATE.enabled``
before it records anything, so ``with no_grad():`` makes results that do not require grad.
"""

from __future__ import annotations

import functools


class _State:
    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


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
