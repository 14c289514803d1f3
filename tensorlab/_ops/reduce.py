"""Reductions: sum, mean, max, min, argmax, argmin, all, any, prod, std, var (to be written)."""
