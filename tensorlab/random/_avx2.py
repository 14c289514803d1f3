"""PyTorch's AVX2 float32 normal kernel (``normal_fill_16_AVX2``), step by step in numpy float32.

``randn`` of 16 or more contiguous float32 elements runs on AVX2/AVX512 CPUs through
``log256_ps`` and ``sincos256_ps`` of ``avx_mathfun.h`` (cephes polynomials), compiled with the
compiler's contraction of a multiply followed by an add into one fused multiply-add. Each step
here is one float32 operation, rounded as the CPU rounds it; a fused step is the exact
product-sum rounded once (:func:`fma32`), so the numbers are PyTorch's bit for bit.

Speed: the kernel runs over chunks of 16,384 pairs in temporaries kept per thread
(:class:`_Work`), every numpy call writing into one of them (``out=``). A fused step whose
values stay within two neighbouring binades is rounded on its float32 grid inside float64 by
adding and subtracting a constant (:func:`_straddle`, :func:`_grid`: the log's eight Horner
steps, the first two of each sincos polynomial), with no casts and no tie check; the other
fused steps round a float64 sum once (``np.copyto``, which rounds as ``astype`` does) and
check it for a double-rounding tie (:func:`_round`).
"""

from __future__ import annotations

import math
import threading

import numpy as np

f32, f64, i32 = np.float32, np.float64, np.int32
_MID = np.uint64(0x10000000)  # a float64 whose low 29 bits are this lies half-way between floats
_LOW29 = np.uint64(0x1FFFFFFF)
_LOW28 = np.uint64(0x0FFFFFFF)


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
        _fix_ties(r, tie, a, b, c)
    return r


def _fix_ties(r: np.ndarray, tie: np.ndarray, a, b, c) -> None:
    """Where ``tie``, replace ``r`` by the fused ``a * b + c``: Knuth's two-sum gives the error
    ``t`` of the float64 sum ``s``; a non-zero ``t`` breaks the tie (``s`` one float64 ulp
    towards it, then rounded)."""
    idx = np.nonzero(tie)[0]

    def at(v):
        v = np.asarray(v, dtype=np.float64)
        return v[idx] if v.ndim else np.full(len(idx), v)

    p = at(a) * at(b)
    c = at(c)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    fix = t != 0
    if fix.any():
        s2 = np.nextafter(s[fix], np.where(t[fix] > 0, np.inf, -np.inf))
        r[idx[fix]] = s2.astype(f32)


class _Work:
    """The temporaries of one chunk of ``m`` pairs (about 1.5 MB for a full chunk, kept per
    thread by :func:`_work`)."""

    def __init__(self, m: int):
        e = np.empty
        # float32: x, e, y, z, c (log, then sincos), a, b (polynomial steps), r (the radius)
        self.x, self.e, self.y, self.z, self.c, self.a, self.b, self.r = (
            e(m, f32) for _ in range(8)
        )
        self.j = e(m, i32)
        self.t, self.x64, self.z64, self.h64 = (e(m, f64) for _ in range(4))
        self.bits = e(m, np.uint64)
        self.halves = e(2 * m, f32)  # a chunk's rows: their first halves, then their second
        self.res = e(2 * m, f32)  # the same, for results with a mean and std

    def head(self, n: int) -> _Work:
        """The same temporaries cut to ``n`` (the last, shorter chunk)."""
        w = object.__new__(_Work)
        for k, v in self.__dict__.items():
            setattr(w, k, v[: 2 * n] if k in ("halves", "res") else v[:n])
        return w


def _round(w: _Work, out: np.ndarray, a, b, c, filtered: bool = True) -> None:
    """``out`` = the fused ``a * b + c`` from its float64 sum in ``w.t`` (``a * b`` exact): one
    rounding to float32, then the tie check of :func:`fma32`. A tie has its low 28 bits zero, so
    when ``filtered`` the exact check runs only when some element has (one pass and a minimum,
    not two passes; sums of short operands, often all such, are checked directly instead)."""
    np.copyto(out, w.t, casting="unsafe")
    low = w.bits
    if filtered:
        np.bitwise_and(w.t.view(np.uint64), _LOW28, out=low)
        if low.min() != 0:
            return
    np.bitwise_and(w.t.view(np.uint64), _LOW29, out=low)
    tie = low == _MID
    if tie.any():
        _fix_ties(out, tie, a, b, c)


def _grid(p: float, lo: float, hi: float) -> tuple[float, float]:
    """For a fused step ``y * z + p`` whose exact values all lie in ``[lo, hi]``, inside the
    binade of ``p`` (float32, so ``p`` is a multiple of that binade's float32 spacing ``u``):
    ``(p + C, C)`` with ``C = 1.5 * 2^52 u``. Float64 numbers near ``C`` are spaced ``u`` apart,
    so ``(y * z + (p + C)) - C`` (``y * z`` exact) rounds the exact sum once, to nearest even,
    on the float32 grid: the fused float32 result, no tie possible, and already widened."""
    e = math.frexp(p)[1]
    assert all(math.frexp(v)[1] == e and v * p > 0 for v in (lo, hi)), (p, lo, hi)
    big = 1.5 * 2.0 ** (e - 24 + 52)
    assert (p + big) - big == p
    return p + big, big


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
_LOG_P64 = [float(p) for p in _LOG_P]
_LOG_Q1, _LOG_Q2 = f32(-2.12194440e-4), f32(0.693359375)


def _straddle(p: float, lo: float, hi: float) -> tuple[float, float]:
    """For a fused step ``y * x + p`` whose exact values all lie in ``[lo, hi]`` (one sign),
    inside ``2^(e-1) <= |v| < 2^(e+1)``: ``(p + C, C)`` with ``C = ±(2^(e+29) - 2^e)``. Then
    ``C + v`` lies above 2^(e+29) in magnitude exactly when ``|v| >= 2^e``, where float64
    numbers are 2^(e-23) apart, the float32 spacing of ``v``'s binade; below, they are
    2^(e-24) apart, the spacing of the binade under it. So ``(y * x + (p + C)) - C`` (``y * x``
    exact) rounds the exact sum once, to nearest even, on ``v``'s own float32 grid: the fused
    float32 result, widened; no double rounding, no tie check, no casts."""
    sign = math.copysign(1.0, p)
    assert lo * sign > 0 and hi * sign > 0, (p, lo, hi)
    a, b = sorted((abs(lo), abs(hi)))
    e = math.frexp(b)[1] - 1  # 2^e <= b < 2^(e+1)
    assert 2.0 ** (e - 1) <= a, (p, lo, hi)
    c = sign * (2.0 ** (e + 29) - 2.0**e)
    assert (p / 2.0 ** (e - 24)).is_integer() and (p + c) - c == p  # p on the finer grid
    return p + c, c


# the exact values of each Horner step over every x (all multiples of 2^-24 in
# (-0.2929, 0.4143)), widened by 10^-4: each lies within two neighbouring binades
_LOG_GRID = [
    _straddle(p, lo, hi)
    for p, (lo, hi) in zip(
        _LOG_P64[1:],
        [
            (-0.13585, -0.08589),
            (0.08104, 0.15663),
            (-0.17015, -0.09048),
            (0.10487, 0.19240),
            (-0.22313, -0.12310),
            (0.14887, 0.26542),
            (-0.32781, -0.18819),
            (0.25524, 0.42942),
        ],
    )
]
_ZERO, _ONE, _HALF, _MINUS_TWO = f32(0), f32(1), f32(0.5), f32(-2)
# sqrt(1/2) as float32 is 0x3F3504F3: adding 0x3F800000 - 0x3F3504F3 to the bits carries into
# the exponent exactly when the mantissa is at least sqrt(1/2)'s (as in musl's logf)
_SPLIT = i32(0x3F800000 - 0x3F3504F3 - (127 << 23))
_SQRTHF_BITS = i32(0x3F3504F3)
_MANT = i32(0x7FFFFF)


def _log(u1: np.ndarray, w: _Work) -> np.ndarray:
    """``log256_ps(1 - u1)`` for uniforms ``u1`` (multiples of 2^-24 in [0, 1)), in ``w.a``.

    ``log256_ps`` splits ``u = 1 - u1`` into ``m`` in [1/2, 1) and the exponent ``e + 1``;
    below sqrt(1/2) it takes ``x = (m - 1) + m`` (exact: 2m - 1) and ``e``, else ``x = m - 1``
    and ``e + 1``. Here in integers: ``bits(u) + 0x3F800000 - 0x3F3504F3`` carries into the
    exponent exactly when ``m >= sqrt(1/2)``, so its exponent field minus 127 is the kernel's
    ``e``, and its mantissa under sqrt(1/2)'s bits is ``1 + x``."""
    x, e, y, z, c, t, x64 = w.x, w.e, w.y, w.z, w.c, w.t, w.x64
    ix = x.view(i32)
    np.subtract(_ONE, u1, out=x)
    ix += _SPLIT  # less 127 in the exponent field: the shift below gives e (arithmetic)
    np.right_shift(ix, 23, out=w.j)
    np.copyto(e, w.j, casting="unsafe")
    ix &= _MANT
    ix += _SQRTHF_BITS
    x -= _ONE  # exact: x in (-0.293, 0.415), a multiple of 2^-24
    # The eight Horner steps ``y * x + p`` are fused in torch: each exact in float64 (``x`` is a
    # multiple of 2^-24 below 0.42 in magnitude, every ``y`` has 24 bits), rounded once on the
    # float32 grid of its value's binade by adding and subtracting a constant (:func:`_straddle`)
    np.copyto(x64, x)
    np.multiply(x64, _LOG_P64[0], out=t)
    for i, (plus, minus) in enumerate(_LOG_GRID):
        if i:
            np.multiply(t, x64, out=t)
        np.add(t, plus, out=t)
        np.subtract(t, minus, out=t)
    np.copyto(y, t, casting="unsafe")  # exact: a float32 value
    np.multiply(x, x, out=z)
    y *= x
    np.multiply(e, _LOG_Q1, out=c)
    np.copyto(t, y)  # y * z + e * q1, fused: not provably exact in float64, so checked for ties
    np.copyto(w.z64, z)
    t *= w.z64
    np.copyto(w.h64, c)  # widened first: a mixed float32 + float64 add is slower
    t += w.h64
    _round(w, w.a, y, z, c)
    y = w.a
    np.multiply(z, _HALF, out=c)
    y -= c  # z * 0.5 is exact, so fused or not is the same
    y += x
    np.multiply(e, _LOG_Q2, out=c)
    y += c  # fused in torch, but e * q2 is exact (a small integer times 9 bits)
    return y


def log256(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for float32 ``x`` in [2^-24, 1], multiples of 2^-24 (``1 - u`` of a
    24-bit uniform ``u``, the only inputs the kernel gets)."""
    x = np.ascontiguousarray(x, dtype=f32).ravel()
    return _log(_ONE - x, _Work(len(x))).copy()


_DP = (f32(-0.78515625), f32(-2.4187564849853515625e-4), f32(-3.77489497744594108e-8))
_DP2_64 = float(_DP[2])
_SIN64 = tuple(float(f32(v)) for v in (-1.9515295891e-4, 8.3321608736e-3, -1.6666654611e-1))
_COS64 = tuple(
    float(f32(v)) for v in (2.443315711809948e-005, -1.388731625493765e-003, 4.166664568298827e-002)
)
# The first two steps of each polynomial stay in one binade for every z = x * x in [0, 0.625]
# (after the reduction |x| <= 0.78540 and z <= 0.61685 over every 24-bit angle, checked
# exhaustively): exact bounds of y * z + p, then the grid constants.
_ZMAX = 0.625
_C1 = _grid(_COS64[1], _COS64[1], _COS64[1] + _COS64[0] * _ZMAX)
_C2 = _grid(_COS64[2], _COS64[2] + _COS64[1] * _ZMAX, _COS64[2])  # y1 < 0, above c1
_S1 = _grid(_SIN64[1], _SIN64[1] + _SIN64[0] * _ZMAX, _SIN64[1])
_S2 = _grid(_SIN64[2], _SIN64[2], _SIN64[2] + _SIN64[1] * _ZMAX)  # 0 < y1 <= s1
_FOPI = f32(1.27323954473516)
_TWO_PI = f32(2 * np.pi)
_SIGN = i32(-(2**31))


def _sincos(u2: np.ndarray, w: _Work, s_out: np.ndarray, c_out: np.ndarray) -> None:
    """``sincos256_ps(2π u2)`` into ``s_out``, ``c_out`` (the angle is non-negative)."""
    x, y, z, a, b, c, j, t = w.x, w.y, w.z, w.a, w.b, w.c, w.j, w.t
    x64, z64, h64 = w.x64, w.z64, w.h64
    np.multiply(u2, _TWO_PI, out=x)
    np.multiply(x, _FOPI, out=c)
    np.copyto(j, c, casting="unsafe")  # truncation, as astype(int32)
    j += 1
    j &= -2
    np.copyto(y, j, casting="unsafe")
    np.multiply(y, _DP[0], out=c)
    x += c  # fused in torch; exact products (j <= 8 times 8 and 11 bits)
    np.multiply(y, _DP[1], out=c)
    x += c
    # fused too: y * dp3 + x spans at most 48 bits (|x| < 1, a multiple of 2^-24 when y > 0)
    np.copyto(t, y)
    t *= _DP2_64
    np.copyto(x64, x)
    t += x64
    np.copyto(x, t, casting="unsafe")
    np.copyto(x64, x)
    np.multiply(x, x, out=z)
    np.copyto(z64, z)
    # cosine polynomial: ((c0 z + c1) z + c2) z z - z / 2 + 1, the multiply-adds fused; the
    # first two on the float32 grid of their binade (:func:`_grid`), in float64 throughout
    np.multiply(z64, _COS64[0], out=t)
    t += _C1[0]
    t -= _C1[1]
    t *= z64
    t += _C2[0]
    t -= _C2[1]
    t *= z64  # exact: a float32 product
    np.copyto(b, t, casting="unsafe")
    np.copyto(t, b)
    t *= z64
    np.multiply(z64, -0.5, out=h64)  # the kernel's y * z - z * 0.5 (z * 0.5 is exact)
    t += h64  # any binade: rounded with the tie check
    _round(w, a, b, z64, h64)
    a += _ONE  # a: the cosine polynomial
    # sine polynomial: ((s0 z + s1) z + s2) z x + x, likewise
    np.multiply(z64, _SIN64[0], out=t)
    t += _S1[0]
    t -= _S1[1]
    t *= z64
    t += _S2[0]
    t -= _S2[1]
    t *= z64
    np.copyto(c, t, casting="unsafe")
    np.copyto(t, c)
    t *= x64
    t += x64
    _round(w, b, c, x64, x64)  # b: the sine polynomial
    # the kernel's selection by masks and sign flips by xor, on the bits (np.where is slow):
    # j in {0, 2, 4, 6, 8}; bit 1 swaps the polynomials, bit 2 flips the sine's sign, and the
    # cosine's sign flips for j in {2, 4}: the sine's flip xor the swap
    sb, cb, ab, bb, m = s_out.view(i32), c_out.view(i32), a.view(i32), b.view(i32), z.view(i32)
    mask, diff = x.view(i32), y.view(i32)
    np.left_shift(j, 29, out=j)  # bit 2 of j at the sign, bit 1 next to it (j is even)
    np.left_shift(j, 1, out=m)  # the swap bit at the sign, nothing else
    np.right_shift(m, 31, out=mask)  # all ones where the polynomials swap
    j &= _SIGN  # the sine's sign flip
    np.bitwise_xor(ab, bb, out=diff)
    diff &= mask  # the bits that differ, where they swap
    diff ^= j
    np.bitwise_xor(bb, diff, out=sb)
    np.bitwise_xor(ab, diff, out=cb)
    cb ^= m


def sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` of ``2π u`` for float32 uniforms ``u`` (multiples of 2^-24 in [0, 1),
    the kernel's only inputs): (sin, cos)."""
    u = np.ascontiguousarray(x, dtype=f32).ravel()
    w, s, c = _Work(len(u)), np.empty(len(u), f32), np.empty(len(u), f32)
    _sincos(u, w, s, c)
    return s, c


_CHUNK = 16384  # pairs per pass: the temporaries stay in the cache
_V32 = np.dtype((np.void, 32))  # eight float32: half a row of 16
_local = threading.local()


def _work(m: int) -> _Work:
    """Temporaries for chunks of up to ``m`` pairs: this thread's, kept between calls for the
    full chunk size (fresh large arrays cost a page fault per 4 KiB on every call)."""
    if m < _CHUNK:
        return _Work(m)
    w = getattr(_local, "work", None)
    if w is None:
        w = _local.work = _Work(_CHUNK)
    return w


def normal_fill_16(d: np.ndarray, mean, std) -> np.ndarray:
    """``normal_fill_16_AVX2`` on rows of 16 float32 uniforms, in place: Box-Muller of pairs
    ``j`` and ``j + 8`` (``radius * cos`` to ``j``, ``radius * sin`` to ``j + 8``). Returns ``d``.

    Chunk by chunk, the rows' halves are gathered into two contiguous runs (a copy of 32-byte
    items), the results written over them and scattered back the same way."""
    rows = d.shape[0]
    mean, std = f32(mean), f32(std)
    # fma(n, 1, +0) is n, but for n = -0 (a zero radius, u1 = 0, is -0: sqrt(-2 * +0))
    plain = mean == 0 and not np.signbit(mean) and std == 1
    work = _work(min(8 * rows, _CHUNK))
    step = _CHUNK // 8
    for a in range(0, rows, step):
        b = min(a + step, rows)
        m = 8 * (b - a)
        w = work if m == work.x.size else work.head(m)
        halves = w.halves[: 2 * m].reshape(2, b - a, 8)
        np.copyto(halves.view(_V32).reshape(2, b - a), d[a:b].view(_V32).T)
        u1, u2 = halves[0].reshape(-1), halves[1].reshape(-1)
        r = w.r
        np.multiply(_log(u1, w), _MINUS_TWO, out=r)
        np.sqrt(r, out=r)
        s, c = u2, u1  # the uniforms are spent: the results go over them
        _sincos(u2, w, s, c)
        np.multiply(c, r, out=c)
        np.multiply(s, r, out=s)
        if plain and r.min() == 0:
            c += _ZERO  # -0 + +0 is +0
            s += _ZERO
        elif mean == 0 and not plain:  # fma(n, std, ±0): n * std rounded once, then ± 0
            for v in (c, s):
                np.multiply(v, std, out=v)
                np.add(v, mean, out=v)
        elif not plain:  # the fused n * std + mean into the second buffer
            res = w.res[: 2 * m].reshape(2, b - a, 8)
            for v, o in ((c, res[0].reshape(-1)), (s, res[1].reshape(-1))):
                np.copyto(w.t, v)
                np.multiply(w.t, float(std), out=w.t)
                np.add(w.t, float(mean), out=w.t)
                _round(w, o, v, std, mean, filtered=False)
            halves = res
        np.copyto(d[a:b].view(_V32).T, halves.view(_V32).reshape(2, b - a))
    return d
