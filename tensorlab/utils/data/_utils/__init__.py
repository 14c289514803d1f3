"""Helpers of ``DataLoader`` (``collate``), laid out as in ``torch.utils.data._utils``."""

from . import collate

__all__ = ["collate"]
