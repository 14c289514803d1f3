"""PyTorch's AVX2 float32 normal kernel (``normal_fill_16_AVX2``), step by step in numpy float32.

``randn`` of 16 or more contiguous float32 elements runs on AVX2/AVX512 CPUs through
``log256_ps`` and ``sincos256_ps`` of ``avx_mathfun.h`` (cephes polynomials), compiled with the
compiler's contraction of a multiply followed by an add into one fused multiply-add. Each step
here is one float32 operation, rounded as the CPU rounds it; a fused step is the exact
product-sum rounded once (:func:`fma32`), so the numbers are PyTorch's bit for bit.
"""

from __future__ import annotations

import numpy as np

f32 = np.float32
_MID = np.uint64(0x10000000)  # a float64 whose low 29 bits are this lies half-way between floats
_LOW29 = np.uint64(0x1FFFFFFF)


def fma32(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float32 (float32 inputs): the product is exact in float64,
    the sum is exact as float64 ``s`` plus error ``t``; a tie in rounding ``s`` to float32 that
    ``t`` breaks is settled by stepping ``s`` one float64 ulp towards ``t``."""
    p = np.multiply(a, b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    s = p + c
    r = s.astype(f32)
    tie = (s.view(np.uint64) & _LOW29) == _MID
    if tie.any():
        bb = s - p
        t = (p - (s - bb)) + (c - bb)
        fix = tie & (t != 0)
        if fix.any():
            s2 = np.nextafter(s[fix], np.where(t[fix] > 0, np.inf, -np.inf))
            r[fix] = s2.astype(f32)
    return r


_LOG_P = [
    f32(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
]
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)
_SQRTHF = f32(0.707106781186547524)
_INV_EXP = np.uint32(~0x7F800000 & 0xFFFFFFFF)
_HALF_BITS = np.float32(0.5).view(np.uint32)


def log256(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for positive normal float32 ``x``."""
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(f32) + f32(1)
    x = ((bits & _INV_EXP) | _HALF_BITS).view(f32)
    small = x < _SQRTHF
    x = (x - f32(1)) + np.where(small, x, f32(0))
    e = e - small.astype(f32)
    z = x * x
    y = fma32(_LOG_P[0], x, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = fma32(y, x, p)
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = y - z * f32(0.5)
    return fma32(e, _LOG_Q2, x + y)


_DP = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_SIN = (f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1))
_COS = (f32(2.443315711809948e-005), f32(-1.388731625493765e-003), f32(4.166664568298827e-002))
_FOPI = f32(1.27323954473516)


def sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` for non-negative float32 ``x``: (sin, cos)."""
    j = (x * _FOPI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(f32)
    for d in _DP:
        x = fma32(y, d, x)
    z = x * x
    yc = fma32(fma32(_COS[0], z, _COS[1]), z, _COS[2]) * z
    yc = fma32(yc, z, -(z * f32(0.5))) + f32(1)
    ys = fma32(fma32(_SIN[0], z, _SIN[1]), z, _SIN[2]) * z
    ys = fma32(ys, x, x)
    first = (j & 2) == 0
    s = np.where(first, ys, yc)
    c = np.where(first, yc, ys)
    s = np.where((j & 4) != 0, -s, s)
    c = np.where(((j - 2) & 4) == 0, -c, c)
    return s, c


_TWO_PI = f32(2 * np.pi)


def normal_fill_16(d: np.ndarray, mean, std) -> np.ndarray:
    """``normal_fill_16_AVX2`` on rows of 16 float32 uniforms: Box-Muller of pairs j, j+8."""
    radius = np.sqrt(f32(-2) * log256(f32(1) - d[:, :8]))
    s, c = sincos256(_TWO_PI * d[:, 8:])
    out = np.empty_like(d)
    out[:, :8] = fma32(radius * c, f32(std), f32(mean))
    out[:, 8:] = fma32(radius * s, f32(std), f32(mean))
    return out
