"""The float32 normal kernel (``normal_fill_16_AVX2``, ``tensorlab/random/_avx2.py``) at its
edges, bit for bit against torch: the generator is put into a state whose next words are chosen
(mt19937's untempered words, set through ``set_rng_state`` in both libraries), so that the
uniforms hit ``u1`` near 0 and 1 and at the exponent split of ``log256_ps``, and angles near
multiples of pi/4 (the reduction's edges and z = x * x near 0 and at its largest), with
mean/std not (0, 1) and sizes at the chunk boundaries. The fused multiply-add's tie fix is
checked against exact rational arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.random import _avx2 as A
from tensorlab.random import _kernels as K

_ONE24 = 1 << 24


def _exact_path(torch) -> bool:
    return torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512") and K.AVX2


def _untemper(y: np.ndarray) -> np.ndarray:
    """The mt19937 state words whose tempered outputs are ``y`` (uint32)."""
    y = y.astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    y ^= y >> np.uint64(18)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    t = y
    for _ in range(5):  # y ^= (y << 7) & b, inverted 7 bits at a time
        t = y ^ ((t << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = t & m32
    t = y
    for _ in range(3):  # y ^= y >> 11
        t = y ^ (t >> np.uint64(11))
    return (t & m32).astype(np.uint32)


def _state_with(words: np.ndarray) -> np.ndarray:
    """A 5,056-byte generator state whose next ``len(words)`` (<= 623) 32-bit draws are
    ``words``: mt19937 at position 1, before its next regeneration."""
    tl.manual_seed(12345)
    raw = tl.get_rng_state().numpy().copy()
    head = np.frombuffer(raw[:24].tobytes(), dtype="<u8").copy()
    key = np.frombuffer(raw[24 : 24 + 8 * 624].tobytes(), dtype="<u8").copy()
    key[1 : 1 + len(words)] = _untemper(words)
    left_next = np.array([624], dtype="<i4").tobytes() + np.array([1], dtype="<i4").tobytes()
    raw[8:16] = np.frombuffer(left_next, dtype=np.uint8)  # left = 624 (seeded stays 1)
    raw[16:24] = np.frombuffer(np.array([1], dtype="<u8").tobytes(), dtype=np.uint8)  # next
    raw[24 : 24 + 8 * 624] = np.frombuffer(key.tobytes(), dtype=np.uint8)
    assert head[0] == 12345
    return raw


def _edge_words(rng: np.random.Generator) -> np.ndarray:
    """623 words: blocks of 16 whose first halves give ``u1 = 1 - k / 2^24`` at the edges of
    the logarithm and whose second halves give angles near multiples of pi/4; a random top
    byte on each (it is masked off)."""
    f32 = np.float32
    u1_edges = [0, 1, 2, 3, 5, _ONE24 - 1, _ONE24 - 2, _ONE24 - 3, 1 << 23, (1 << 23) + 1]
    u1_edges += [(1 << 23) - 1, 1 << 22, 3 << 22, 7 << 21, (1 << 24) - (1 << 10)]
    for e in range(0, 12):  # u1 = 1 - k / 2^24 at sqrt(1/2) * 2^-e, both sides of the split
        top = float(f32(np.sqrt(0.5))) * 2.0**-e
        for d in (-2, -1, 0, 1, 2):
            k = _ONE24 - int(round(top * _ONE24)) + d
            if 0 <= k < _ONE24:
                u1_edges.append(k)
    theta = []
    for m in range(9):  # 2 pi u2 near m pi / 4
        for d in (-3, -2, -1, 0, 1, 2, 3):
            k = m * (1 << 21) + d
            if 0 <= k < _ONE24:
                theta.append(k)
    theta += [_ONE24 - 1, 1, 2]
    blocks = []
    i = j = 0
    while len(blocks) * 16 < 623:
        lo = [u1_edges[(i + q) % len(u1_edges)] for q in range(8)]
        hi = [theta[(j + q) % len(theta)] for q in range(8)]
        i, j = i + 8, j + 8
        if len(blocks) % 3 == 2:  # some blocks mixed with random uniforms
            lo[::2] = rng.integers(0, _ONE24, 4).tolist()
            hi[1::2] = rng.integers(0, _ONE24, 4).tolist()
        blocks += lo + hi
    k = np.array(blocks[:623], dtype=np.uint32)
    return k | (rng.integers(0, 256, len(k), dtype=np.uint32) << np.uint32(24))


def _same(torch, draw, state: np.ndarray) -> None:
    torch.set_rng_state(torch.from_numpy(state.copy()))
    tl.set_rng_state(tl.from_numpy(state.copy()))
    a, b = draw(torch).numpy(), draw(tl).numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    bad = np.nonzero(a.view(np.uint32) != b.view(np.uint32))[0]
    assert not len(bad), (bad[:5], a[bad[:5]], b[bad[:5]])
    assert np.array_equal(torch.get_rng_state().numpy(), tl.get_rng_state().numpy())


DRAWS = {
    "randn": lambda n: lambda L: L.randn(n),
    "normal_(0.5, 3)": lambda n: lambda L: L.empty(n).normal_(0.5, 3.0),
    "normal_(-2, 0.01)": lambda n: lambda L: L.empty(n).normal_(-2.0, 0.01),
    "normal_(1e4, 7.5)": lambda n: lambda L: L.empty(n).normal_(1.0e4, 7.5),
    "normal_(0, 0.02)": lambda n: lambda L: L.empty(n).normal_(0.0, 0.02),
    "normal_(-0.0, 1)": lambda n: lambda L: L.empty(n).normal_(-0.0, 1.0),
    "normal_(0, 1e-30)": lambda n: lambda L: L.empty(n).normal_(0.0, 1e-30),
}


@pytest.mark.parametrize("name", DRAWS)
@pytest.mark.parametrize("n", [16, 17, 31, 32, 608, 615, 623])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_chosen_uniforms_at_the_kernels_edges(torch, name, n, seed):
    if not _exact_path(torch):
        pytest.skip("torch takes another normal path on this machine")
    state = _state_with(_edge_words(np.random.default_rng(seed)))
    _same(torch, DRAWS[name](n), state)


@pytest.mark.parametrize("pairs", [16383, 16384, 16385, 2 * 16384 + 3])
@pytest.mark.parametrize("extra", [0, 1, 9])
def test_sizes_at_the_chunk_boundaries(torch, pairs, extra):
    """A chunk holds 16,384 pairs (2,048 rows of 16); sizes just around it and past two,
    with and without a tail of n % 16 redrawn, from chosen words and then the stream."""
    if not _exact_path(torch):
        pytest.skip("torch takes another normal path on this machine")
    n = 2 * pairs + extra
    state = _state_with(_edge_words(np.random.default_rng(pairs + extra)))
    _same(torch, DRAWS["randn"](n), state)
    _same(torch, DRAWS["normal_(0.5, 3)"](n), state)


def _fused_reference(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float32, in exact rational arithmetic."""
    out = []
    for x, y, z in zip(np.ravel(a), np.ravel(b), np.ravel(c)):
        v = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        r = np.float32(float(v))  # nearest double, then float32: fix the double rounding
        lo, hi = sorted(
            (r, np.nextafter(r, np.float32(np.inf if v > Fraction(float(r)) else -np.inf)))
        )
        dl, dh = abs(v - Fraction(float(lo))), abs(Fraction(float(hi)) - v)
        if dl != dh:
            out.append(lo if dl < dh else hi)
        else:
            out.append(lo if int(np.float32(lo).view(np.uint32)) % 2 == 0 else hi)
    return np.array(out, dtype=np.float32)


def _tie_cases():
    """Operands whose float64 sum lands exactly half-way between two floats while the exact
    sum lies off it (the double rounding a fused multiply-add must not do), both ways, and
    plain ones."""
    f32 = np.float32
    e = 2.0**-23
    a = [1 + e, 1 + e, 1 + e, 1 + e, 3.0, 0.1, -7.25]
    b = [
        -(2.0**-24) * (1 - e),
        (2.0**-24) * (1 - e),
        -(2.0**-25) * (1 - e),
        2.0**-24,
        1 / 3,
        0.7,
        2.0,
    ]
    c = [1 + e, 1.0, 0.5 + e, 1.0, 1.0, -0.07, 14.5]
    return (np.array(v, dtype=f32) for v in (a, b, c))


def test_fused_multiply_add_breaks_double_rounding_ties():
    a, b, c = _tie_cases()
    want = _fused_reference(a, b, c)
    assert np.array_equal(A.fma32(a, b, c).view(np.uint32), want.view(np.uint32))
    w = A._Work(len(a))
    np.multiply(a, b, out=w.t, dtype=np.float64)
    w.t += c
    out = np.empty(len(a), np.float32)
    A._round(w, out, a, b, c)  # the kernel's rounding step, with its cheaper tie filter
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32))
    naive = (a.astype(np.float64) * b + c).astype(np.float32)
    assert not np.array_equal(naive, want)  # the cases do hit the double rounding


def test_polynomial_steps_on_the_float32_grid_are_the_fused_ones():
    """The sine and cosine polynomials' first two steps round on a fixed float32 grid
    (``_grid``); over z in [0, max z] (max z = 0.6169 over every 24-bit angle) they equal the
    fused result in exact arithmetic."""
    rng = np.random.default_rng(0)
    z = np.concatenate([[0.0, 2.0**-60, 1e-9, 0.6168503165245056, 0.625], rng.random(300) * 0.625])
    z = z.astype(np.float32)
    z64 = z.astype(np.float64)
    for p0, p1, grid in ((A._COS64[0], A._COS64[1], A._C1), (A._SIN64[0], A._SIN64[1], A._S1)):
        y1 = (z64 * p0 + grid[0]) - grid[1]
        assert np.array_equal(
            y1.astype(np.float32), _fused_reference(z, np.full_like(z, p0), np.full_like(z, p1))
        )


def test_log_horner_steps_on_their_grids_over_every_x():
    """The log's eight fused Horner steps, rounded on a grid that straddles two binades
    (``_straddle``), equal ``float32(y * x + p)`` with the sum exact in float64, for every
    ``x`` the kernel can see: ``m - 1`` and ``2m - 1`` over every mantissa ``m``."""
    m = (np.arange(1 << 23, 1 << 24, dtype=np.int64) * 2.0**-24).astype(np.float32)  # [0.5, 1)
    split = np.float32(np.sqrt(0.5))
    x = np.where(m < split, 2 * m - 1, m - 1).astype(np.float64)  # exact
    p = A._LOG_P64
    ref = (x * p[0] + p[1]).astype(np.float32).astype(np.float64)
    got = (x * p[0] + A._LOG_GRID[0][0]) - A._LOG_GRID[0][1]
    assert np.array_equal(ref, got)
    for q, (plus, minus) in zip(p[2:], A._LOG_GRID[1:]):
        ref = (ref * x + q).astype(np.float32).astype(np.float64)
        got = (got * x + plus) - minus
        assert np.array_equal(ref, got)


def test_reduced_angles_stay_within_the_polynomial_grids_bound():
    """Over every 24-bit angle, the reduced ``x`` of ``sincos256_ps`` has ``x * x`` below the
    bound the polynomial grids (``_grid``) were checked for."""
    zmax = 0.0
    for k0 in range(0, _ONE24, 1 << 21):
        u = (np.arange(k0, k0 + (1 << 21)) * 2.0**-24).astype(np.float32)
        x = u * A._TWO_PI
        j = (((x * A._FOPI).astype(np.int32) + 1) & -2).astype(np.float32)
        x = x + j * A._DP[0]
        x = x + j * A._DP[1]
        x = (j.astype(np.float64) * A._DP2_64 + x).astype(np.float32)
        zmax = max(zmax, float((x * x).max()))
    assert zmax <= A._ZMAX
