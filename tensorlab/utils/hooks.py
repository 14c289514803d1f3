"""``RemovableHandle``: what ``register_hook`` returns; ``handle.remove()`` unregisters the hook."""

from __future__ import annotations

import itertools


class RemovableHandle:
    """A handle to a hook stored in a dict under ``self.id``; ``remove()`` deletes it (twice is
    fine). Also a context manager that removes the hook on exit."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict):
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
