"""Placeholder printing (replaced by the PyTorch-faithful formatter)."""

from __future__ import annotations


def tensor_repr(t) -> str:
    body = repr(t._np().tolist())
    return f"tensor({body})"
