"""``tensorlab._C``: where ``Generator`` and ``_LinAlgError`` say they live, as ``torch._C`` does
for torch's (``<class 'tensorlab._C.Generator'>``); pickles find them here."""

from __future__ import annotations

from .linalg import _LinAlgError
from .random import Generator

__all__ = ["Generator", "_LinAlgError"]
