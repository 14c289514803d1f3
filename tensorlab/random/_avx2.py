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
    s = np.multiply(a, b, dtype=np.float64)
    s += c  # a float32 product is exact in float64
    r = s.astype(f32)
    bits = s.view(np.uint64)
    np.bitwise_and(bits, _LOW29, out=bits)  # s is not needed any more: its low bits in place
    tie = bits == _MID
    if tie.any():
        p = np.multiply(a, b, dtype=np.float64)
        c = np.broadcast_to(np.asarray(c, dtype=np.float64), p.shape)
        s = p + c
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


def _r32(s: np.ndarray) -> np.ndarray:
    """Round float64 ``s`` to float32 (correct when ``s`` is an exact sum: see :func:`log256`)."""
    return s.astype(f32)


def log256(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for positive normal float32 ``x``.

    The eight Horner steps ``y * x + p`` are fused in torch; here each is computed exactly in
    float64 and rounded once: ``x`` is a multiple of 2^-24 below 0.42 in magnitude and every
    ``y`` lies in [2^-5, 1), so ``y * x + p`` spans at most 52 bits (no double rounding)."""
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 126).astype(f32)
    m = ((bits & _INV_EXP) | _HALF_BITS).view(f32)
    small = m < _SQRTHF
    e -= small
    x = m - f32(1)
    x += m * small  # 2m - 1 below sqrt(1/2), exactly as the kernel's (m - 1) + m
    x64 = x.astype(np.float64)
    y = _r32(x64 * float(_LOG_P[0]) + float(_LOG_P[1]))
    for p in _LOG_P[2:]:
        t = y.astype(np.float64)
        t *= x64
        t += float(p)
        y = _r32(t)
    z = x * x
    y *= x
    y = fma32(y, z, e * _LOG_Q1)
    y -= z * f32(0.5)
    y += x
    y += e * _LOG_Q2  # fused in torch, but e * q2 is exact (a small integer times 9 bits)
    return y


_DP = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_SIN = (f32(-1.9515295891e-4), f32(8.3321608736e-3), f32(-1.6666654611e-1))
_COS = (f32(2.443315711809948e-005), f32(-1.388731625493765e-003), f32(4.166664568298827e-002))
_FOPI = f32(1.27323954473516)


def sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` for non-negative float32 ``x``: (sin, cos)."""
    j = (x * _FOPI).astype(np.int32)
    j += 1
    j &= ~1
    y = j.astype(f32)
    x = x + y * _DP[0]  # fused in torch; exact products (j <= 8 times 8 and 11 bits)
    x += y * _DP[1]
    # fused too: y * dp3 + x spans at most 48 bits (|x| < 1, a multiple of 2^-24 when y > 0)
    t = np.multiply(y, float(_DP[2]), dtype=np.float64)
    t += x
    x = _r32(t)
    z = x * x
    z64 = z.astype(np.float64)
    yc = fma32(fma32(z64, float(_COS[0]), _COS[1]), z64, _COS[2]) * z
    yc = fma32(yc, z64, z64 * -0.5)  # the kernel's y * z - z * 0.5 (z * 0.5 is exact)
    yc += f32(1)
    ys = fma32(fma32(z64, float(_SIN[0]), _SIN[1]), z64, _SIN[2]) * z
    x64 = x.astype(np.float64)
    ys = fma32(ys, x64, x64)
    # the kernel's selection by masks and sign flips by xor, on the bits (np.where is slow)
    mask = ((j & 2) >> 1) - 1  # all ones where the first polynomial gives the sine
    diff = ys.view(np.int32) ^ yc.view(np.int32)
    diff &= mask
    s = yc.view(np.int32) ^ diff
    c = ys.view(np.int32) ^ diff
    s ^= (j & 4) << 29
    c ^= (~(j - 2) & 4) << 29
    return s.view(f32), c.view(f32)


_TWO_PI = f32(2 * np.pi)


_CHUNK = 16384  # pairs per pass: the temporaries stay in the cache


def normal_fill_16(d: np.ndarray, mean, std) -> np.ndarray:
    """``normal_fill_16_AVX2`` on rows of 16 float32 uniforms: Box-Muller of pairs j, j+8."""
    u1 = np.ascontiguousarray(d[:, :8]).ravel()
    u2 = np.ascontiguousarray(d[:, 8:]).ravel()
    n1, n2 = np.empty_like(u1), np.empty_like(u2)
    plain = f32(mean) == 0 and f32(std) == 1  # fma(n, 1, 0) is n
    for a in range(0, len(u1), _CHUNK):
        b = a + _CHUNK
        radius = np.sqrt(f32(-2) * log256(f32(1) - u1[a:b]))
        s, c = sincos256(_TWO_PI * u2[a:b])
        c *= radius
        s *= radius
        if not plain:
            c, s = fma32(c, f32(std), f32(mean)), fma32(s, f32(std), f32(mean))
        n1[a:b], n2[a:b] = c, s
    out = np.empty_like(d)
    out[:, :8] = n1.reshape(-1, 8)
    out[:, 8:] = n2.reshape(-1, 8)
    return out
