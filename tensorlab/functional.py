"""``tensorlab.functional``: the Python-level functions PyTorch keeps in ``torch/functional.py``
(``einsum``'s argument forms, ``tensordot``'s ``dims``), so that ``from torch.functional import
einsum`` code runs unchanged."""

from __future__ import annotations

from ._ops.linalg import einsum, tensordot
from ._ops.sorting import unique, unique_consecutive

__all__ = ["einsum", "tensordot", "unique", "unique_consecutive"]
