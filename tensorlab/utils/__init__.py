"""``tensorlab.utils``: ``data`` (datasets and loaders) and ``hooks`` (removable handles)."""

from . import data, hooks

__all__ = ["data", "hooks"]
