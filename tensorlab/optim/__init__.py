"""``tensorlab.optim``: ``SGD``, ``Adam``, ``AdamW``, ``Adadelta`` and ``lr_scheduler.StepLR``,
following
``torch.optim`` step for step (laid out as ``torch/optim/``)."""

from __future__ import annotations

from . import lr_scheduler
from .adadelta import Adadelta
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adadelta", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
