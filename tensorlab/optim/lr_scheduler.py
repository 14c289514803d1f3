"""``tensorlab.optim.lr_scheduler``: every scheduler of ``torch.optim.lr_scheduler``, with torch's
chainable (``step()``) and closed (``step(epoch)``, deprecated) forms giving the same floats step
by step, ``state_dict``/``load_state_dict``, ``get_last_lr`` and torch's warnings and errors.

The classes live by family in ``_lr_base`` (``LRScheduler``), ``_lr_basic`` (formulas of the
epoch), ``_lr_composite`` (SequentialLR, ChainedScheduler, ReduceLROnPlateau) and ``_lr_cyclic``
(CyclicLR, OneCycleLR, CosineAnnealingWarmRestarts); they are all named from here, as in torch.
"""

from __future__ import annotations

from ._lr_base import EPOCH_DEPRECATION_WARNING as EPOCH_DEPRECATION_WARNING
from ._lr_base import LRScheduler, _LRScheduler
from ._lr_basic import (
    ConstantLR,
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    MultiplicativeLR,
    MultiStepLR,
    PolynomialLR,
    StepLR,
)
from ._lr_composite import ChainedScheduler, ReduceLROnPlateau, SequentialLR
from ._lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "CosineAnnealingLR",
    "ChainedScheduler",
    "ReduceLROnPlateau",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "PolynomialLR",
    "LRScheduler",
]

for _cls in (LRScheduler, _LRScheduler, *(globals()[name] for name in __all__)):
    _cls.__module__ = __name__
del _cls
