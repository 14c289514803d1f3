"""``RemovableHandle``: what ``register_hook`` and the ``nn.Module`` hook registrations return;
``handle.remove()`` unregisters the hook."""

from __future__ import annotations

import itertools


class RemovableHandle:
    """A handle to a hook stored in a dict under ``self.id``; ``remove()`` deletes it (twice is
    fine), and its entries in ``extra_dict`` (a dict or a list of dicts: a hook's flags such as
    ``with_kwargs``) too. Also a context manager that removes the hook on exit."""

    _ids = itertools.count()

    def __init__(self, hooks_dict: dict, *, extra_dict=None):
        self.hooks_dict = hooks_dict
        self.id = next(RemovableHandle._ids)
        if isinstance(extra_dict, dict):
            extra_dict = [extra_dict]
        self.extra_dicts = tuple(extra_dict or ())

    def remove(self) -> None:
        self.hooks_dict.pop(self.id, None)
        for d in self.extra_dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
