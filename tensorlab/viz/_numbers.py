"""Numbers as figures print them (no matplotlib here: models use it too)."""

from __future__ import annotations

import numpy as np


def snap_zero(values, scale: float | None = None):
    """``values`` with every entry that is 0 up to float64 rounding set to exactly 0.

    ``scale`` bounds the size of the numbers the values were computed from (default: the largest
    ``|value|``); entries within 64 units in the last place of it are rounding noise. A scalar in,
    a float out; an array in, a new float array out.
    """
    a = np.asarray(values, dtype=float)
    if scale is None:
        scale = float(np.max(np.abs(a))) if a.size else 0.0
    tol = 64.0 * np.finfo(float).eps * float(scale)
    out = np.where(np.abs(a) <= tol, 0.0, a)
    return float(out) if out.ndim == 0 else out
