"""PyTorch's CPU distribution kernels on tensorlab's mt19937 (``ATen/native/cpu/
DistributionTemplates.h``, ``TransformationHelper.h``, ``DistributionsHelper.h``): each function
draws from a :class:`~tensorlab.random.Generator` exactly the words PyTorch draws, in its order,
and turns them into PyTorch's numbers. Values come back flat, in the order PyTorch writes them.

float64 transcendental steps go through Python's ``math`` (the C library's ``log``/``log1p``/
``sin``/``cos``, which PyTorch calls too); numpy's own implementations differ in the last bit.
"""

from __future__ import annotations

import math

import numpy as np

from . import _avx2

f32, f64 = np.float32, np.float64
_NEED_64 = 1 << 28  # PyTorch draws 64 bits for an integer range at least this wide


def _cpu_has_avx2() -> bool:
    """Whether PyTorch on this CPU runs its AVX2 float32 normal kernel (AVX2 or AVX512 CPUs);
    ``ATEN_CPU_CAPABILITY=default`` turns it off in PyTorch, and here."""
    import os

    if os.environ.get("ATEN_CPU_CAPABILITY", "").lower() == "default":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read(1 << 16)
    except OSError:
        import platform

        return platform.machine().lower() in ("x86_64", "amd64")
    return " avx2" in info and " fma" in info


AVX2 = _cpu_has_avx2()  # torch's AVX2/AVX512 kernels, compiled with fused multiply-adds


def _madd(a, b, c, dtype) -> np.ndarray:
    """``a * b + c`` as torch's kernels compute it: fused on AVX2 builds, two roundings else."""
    if dtype == np.float64:
        if AVX2:
            return fma64(a, b, c)
        return np.asarray(a, f64) * b + c
    if AVX2:
        return _avx2.fma32(a, b, c)
    return (np.asarray(a, f32) * f32(b)).astype(f32) + f32(c)


def fma64(a, b, c) -> np.ndarray:
    """``a * b + c`` with one rounding (float64), as the compiler's fused multiply-add: the exact
    product (Dekker's split) and sum (Knuth's two-sum) of float64 operands, then one rounding."""
    a, b, c = (np.asarray(v, dtype=f64) for v in (a, b, c))
    p = a * b
    split = 134217729.0  # 2**27 + 1
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    with np.errstate(invalid="ignore"):
        out = s + (t + e)
    return np.where(np.isfinite(p), out, p + c)


# ---------------------------------------------------------------------------- uniform
def _exact_in_f64(width, lo, hi) -> bool:
    """Whether ``x * width + lo`` (x a multiple of 2^-24 in [0, 1), all float32) is exact in
    float64: the product's last bit is at least 2^-24 ulp(width)/2^23, the sum below
    2 max(|lo|, |hi|); at most 52 bits apart, one float64 rounding is the exact sum."""
    width, top = float(width), 2.0 * max(abs(float(lo)), abs(float(hi)))
    if width == 0 or top == 0 or not math.isfinite(width * top):
        return False
    last = math.frexp(width)[1] - 24 - 24  # exponent of the product's lowest possible bit
    return math.frexp(top)[1] - last <= 52


def uniform(g, n: int, dt, low: float, high: float) -> np.ndarray:
    """``uniform_real_distribution``: ``(v & (2^d - 1)) * 2^-d * (to - from) + from`` (fused);
    float32/float16 use one word and d = 24 (float16 computed in float), float64 uses 64 bits
    and d = 53."""
    if dt.np == np.float64:
        x = g._u53(n)
        return x if (low, high) == (0.0, 1.0) else _madd(x, high - low, low, f64)
    lo, hi = np.asarray(low).astype(dt.np).astype(f32), np.asarray(high).astype(dt.np).astype(f32)
    x = g._u24(n)
    unit = (lo, hi) == (0.0, 1.0)
    if not unit and AVX2 and _exact_in_f64(hi - lo, lo, hi):
        t = np.multiply(x, float(hi - lo), dtype=f64)  # the fused step, exact in float64
        t += float(lo)
        x = t.astype(f32)
    elif not unit:
        x = _madd(x, hi - lo, lo, f32)
    v = x.astype(dt.np, copy=False)
    if (not unit or dt.np != f32) and (v == hi).any():  # rounded up to ``to``: ``from`` there
        v[v == hi] = lo
    return v


# ---------------------------------------------------------------------------- normal
def normal_scalar(g, n: int, mean: float, std: float) -> np.ndarray:
    """``normal_distribution<double>``, one sample at a time (small or strided tensors): a pair of
    53-bit uniforms gives ``r cos θ`` and caches ``r sin θ`` on the generator for the next sample.
    Returns float64 ``fma(value, std, mean)``."""
    out = np.empty(n, dtype=f64)
    i = 0
    if n and g._normal is not None:
        out[0], g._normal, i = g._normal, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = g._u53(2 * pairs)
        log1p, sin, cos, sqrt, two_pi = math.log1p, math.sin, math.cos, math.sqrt, 2.0 * math.pi
        for k in range(pairs):
            r = sqrt(-2.0 * log1p(-u[2 * k + 1]))
            th = two_pi * u[2 * k]
            out[i] = r * cos(th)
            s = r * sin(th)
            if i + 1 < n:
                out[i + 1] = s
            else:
                g._normal = s
            i += 2
    if (mean, std) != (0.0, 1.0):
        out = _madd(out, std, mean, f64)
    return out


def _fill_16_f64(d: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``normal_fill_16<double>`` on rows of 16 uniforms (C library log/cos/sin)."""
    u1 = (1.0 - d[:, :8]).ravel().tolist()
    u2 = d[:, 8:].ravel().tolist()
    two_pi = 2.0 * math.pi
    radius = np.sqrt(-2.0 * np.fromiter(map(math.log, u1), f64, len(u1)))
    theta = [two_pi * v for v in u2]
    c = np.fromiter(map(math.cos, theta), f64, len(theta))
    s = np.fromiter(map(math.sin, theta), f64, len(theta))
    out = np.empty_like(d)
    out[:, :8] = _madd(radius * c, std, mean, f64).reshape(-1, 8)
    out[:, 8:] = _madd(radius * s, std, mean, f64).reshape(-1, 8)
    return out


def normal(g, n: int, dt, mean: float, std: float, contiguous: bool) -> np.ndarray:
    """``normal_kernel``: 16 or more contiguous elements go through ``normal_fill`` (all ``n``
    uniforms first, Box-Muller per block of 16, the last 16 positions redrawn and redone when
    ``n % 16``); fewer, or strided ones, through :func:`normal_scalar`."""
    if n < 16 or not contiguous:
        v = normal_scalar(g, n, mean, std)
        return (v.astype(f32) if dt.np == np.float16 else v).astype(dt.np)
    fill = _avx2.normal_fill_16 if AVX2 else _fill_16_f32_default
    if dt.np == np.float64:
        draw, fill = g._u53, _fill_16_f64
    elif dt.np == np.float32:
        draw = g._u24
    else:  # float16: each block of 16 float uniforms goes through the float kernel, then Half
        h = np.float16
        mean, std = f32(mean), f32(std)
        full = n // 16 * 16
        out = np.empty(n, dtype=h)
        out[:full] = fill(g._u24(full).reshape(-1, 16), mean, std).ravel().astype(h)
        if n % 16:
            out[n - 16 :] = fill(g._u24(16).reshape(1, 16), mean, std).ravel().astype(h)
        return out
    d = draw(n)
    full = n // 16 * 16
    if fill is _avx2.normal_fill_16:  # in place
        fill(d[:full].reshape(-1, 16), mean, std)
    else:
        d[:full] = fill(d[:full].reshape(-1, 16), mean, std).ravel()
    if n % 16:
        d[n - 16 :] = fill(draw(16).reshape(1, 16), mean, std).ravel()
    return d


def _fill_16_f32_default(d: np.ndarray, mean, std) -> np.ndarray:
    """``normal_fill_16<float>`` without AVX2 (the C library's float log/cos/sin; computed here
    through float64 and rounded, which can differ from them in the last bit)."""
    u1 = (f32(1) - d[:, :8]).astype(f64)
    radius = np.sqrt(f32(-2) * np.log(u1).astype(f32))
    theta = (f64(2.0 * math.pi) * d[:, 8:]).astype(f32).astype(f64)
    out = np.empty_like(d)
    out[:, :8] = _madd(radius * np.cos(theta).astype(f32), std, mean, f32)
    out[:, 8:] = _madd(radius * np.sin(theta).astype(f32), std, mean, f32)
    return out


# ---------------------------------------------------------------------------- integers
def int_from_to(g, n: int, low: int, high: int) -> np.ndarray:
    """``random_(from, to)``/``randint``: ``v % (to - from) + from`` with 64-bit draws for a range
    of at least 2^28, else one word each; int64 values (cast by the caller)."""
    rng = high - low
    if rng < _NEED_64:  # one word each: 32-bit arithmetic
        v = g._words(n).astype(np.uint32)
        v %= np.uint32(rng)
        out = v.astype(np.int64)
        out += low
        return out
    v = g._words64(n)
    if rng >= 2**64:  # random_(-2**63, None) on int64: the 64 bits as they come
        return v.view(np.int64)
    return (v % np.uint64(rng)).astype(np.int64) + np.int64(low)


def random_full(g, n: int, dt) -> np.ndarray:
    """``random_()``: ``v % (max + 1)`` of the dtype (2^digits + 1 for floats; bit 0 for bool);
    int64 and float64 draw 64 bits."""
    name = dt.name
    v = g._words64(n) if name in ("int64", "float64") else g._words(n)
    if name == "bool":
        return (v & np.uint64(1)).astype(bool)
    mod = {"float16": 2**11 + 1, "float32": 2**24 + 1, "float64": 2**53 + 1}.get(name)
    if mod is None:
        mod = int(np.iinfo(dt.np).max) + 1
    return (v % np.uint64(mod)).astype(np.int64)


def randperm(g, n: int) -> np.ndarray:
    """``randperm_cpu``: from the identity, swap ``i`` with ``z_i = i + random() % (n - i)`` for
    ``i = 0 .. n-2`` in turn (n < 2^32 / 20), computed without the sequential loop: see
    :func:`_apply_swaps`."""
    if n >= (2**32 - 1) // 20:
        raise RuntimeError("randperm: n too large for tensorlab")
    if n <= 1:
        return np.arange(n, dtype=np.int64)
    i = np.arange(n - 1, dtype=np.int64)
    z = _mod(g._words(n - 1).astype(np.int64), n - i) + i
    return _apply_swaps(z.astype(np.int32), n).astype(np.int64)


def _mod(w: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``w % d`` for 0 <= w < 2^32, 0 < d < 2^32 (int64): a float64 quotient (off by at most
    one, then corrected), faster than numpy's integer division."""
    q = np.floor(w / d).astype(np.int64)
    r = w - q * d
    r += np.where(r < 0, d, 0)
    r -= np.where(r >= d, d, 0)
    return r


def _apply_swaps(z: np.ndarray, n: int) -> np.ndarray:
    """The result of ``for i: r[i], r[z[i]] = r[z[i]], r[i]`` on ``r = arange(n)`` (``z[i] >= i``).

    Position ``i`` is final after step ``i``, and takes what position ``z_i`` held then: the
    value step ``k`` moved there (the last ``k < i`` with ``z_k = z_i``), which is what position
    ``k`` held before step ``k``; or ``z_i`` itself if no step touched it. "What position ``p``
    held before step ``p``" follows a chain of such steps back to an untouched position; the
    chains are resolved by pointer jumping. Every step is a numpy pass (a sort groups the steps
    by ``z``)."""
    m = n - 1
    key = z.astype(np.int64) * n + np.arange(m, dtype=np.int64)
    key.sort()  # by z, then by step: a plain sort of distinct keys (numpy's SIMD sort)
    zs64 = key // n
    order = (key - zs64 * n).astype(np.int32)
    zs = zs64.astype(np.int32)
    same = np.empty(m, dtype=bool)  # the step before in sorted order has the same z
    same[0] = False
    np.equal(zs[1:], zs[:-1], out=same[1:])
    before = np.empty(m, dtype=np.int32)  # that step (valid where ``same``)
    before[0] = -1
    before[1:] = order[:-1]
    prev = np.full(m, -1, dtype=np.int32)  # per step: the last earlier step with the same z
    prev[order[same]] = before[same]
    last = np.ones(m, dtype=bool)
    np.not_equal(zs[1:], zs[:-1], out=last[:-1])
    # per position p: the last step k < p with z_k = p (the last of p's group, or the one before
    # it when that is step p itself)
    cand = np.where(order == zs, np.where(same, before, -1), order)
    held = np.arange(n, dtype=np.int32)
    sel = last & (cand >= 0)
    held[zs[sel]] = cand[sel]
    while True:  # pointer jumping: follow each chain to its untouched start
        nxt = held[held]
        if np.array_equal(nxt, held):
            break
        held = nxt
    r = np.empty(n, dtype=np.int32)
    r[:m] = np.where(prev >= 0, held[np.maximum(prev, 0)], z)
    r[m] = held[m]
    return r


# ---------------------------------------------------------------------------- others
def bernoulli_scalar(g, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` with a number: ``U53 < p``."""
    return g._u53(n) < p


def bernoulli_tensor(g, p: np.ndarray) -> np.ndarray:
    """``bernoulli_(p)`` with a tensor (already broadcast, in fill order): float64 ``p`` compares
    a 53-bit uniform, float32 (and half) a 24-bit one."""
    if p.dtype == np.float64:
        return g._u53(p.size) < p.ravel()
    return g._u24(p.size) < p.astype(f32).ravel()


def exponential(g, n: int, lambd: float) -> np.ndarray:
    """``exponential_(λ)``: ``(-1 / λ) * log1p(-U53)`` (float64, cast by the caller)."""
    u = g._u53(n).tolist()
    return (-1.0 / lambd) * np.fromiter(map(math.log1p, (-v for v in u)), f64, n)


def cauchy(g, n: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_``: ``median + sigma * tan(π (U53 - 0.5))``."""
    u = g._u53(n).tolist()
    t = np.fromiter((math.tan(math.pi * (v - 0.5)) for v in u), f64, n)
    return _madd(t, sigma, median, f64)


def log_normal(g, n: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_``: ``exp`` of :func:`normal_scalar` (which shares the normal cache)."""
    return np.fromiter(map(math.exp, normal_scalar(g, n, mean, std).tolist()), f64, n)


def geometric(g, n: int, p: float) -> np.ndarray:
    """``geometric_``: ``ceil(log(U53) / log1p(-p))``."""
    u = g._u53(n).tolist()
    lp = math.log1p(-p)
    return np.fromiter((math.ceil(math.log(v) / lp) if v > 0 else math.inf for v in u), f64, n)


def multinomial(g, probs: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """``multinomial`` on rows of ``probs`` (their dtype): without replacement, or for one
    sample, the top ``num_samples`` of ``p / Exp(1)`` keys; with replacement, a binary search of
    a 53-bit uniform in the row's cumulative sum (computed and normalised in the row's dtype)."""
    rows, n_cat = probs.shape
    if not replacement or num_samples == 1:
        keys = exponential(g, probs.size, 1.0).astype(probs.dtype).reshape(probs.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            q = probs / keys
        if num_samples == 1:
            return np.argmax(q, axis=1).reshape(rows, 1).astype(np.int64)
        order = np.argsort(-q, axis=1, kind="stable")
        return order[:, :num_samples].astype(np.int64)
    out = np.empty((rows, num_samples), dtype=np.int64)
    acc = f32 if probs.dtype == np.float16 else probs.dtype
    for i in range(rows):
        cum = np.cumsum(probs[i].astype(acc), dtype=acc)
        cum = cum / cum[-1]
        cum[-1] = 1
        u = g._u53(num_samples)
        out[i] = np.searchsorted(cum.astype(f64), u, side="left")
    return out
