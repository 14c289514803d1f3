"""Elementwise math, comparisons, in-place arithmetic, matmul (to be written)."""
