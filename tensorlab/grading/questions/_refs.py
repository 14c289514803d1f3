"""Loop-based references and input generators shared by the question banks.

Everything here is deliberately plain (explicit loops over output positions) so that a reference
is easy to read and never shares code with the engine it is used to judge.
"""

from __future__ import annotations

import numpy as np


# ---------------------------------------------------------------------------- 2-D references
def correlate_valid(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Cross-correlation over valid positions: out[i, j] = sum(x[i:i+M, j:j+N] * k). float64."""
    x, k = np.asarray(x, dtype=np.float64), np.asarray(k, dtype=np.float64)
    H, W = x.shape
    M, N = k.shape
    out = np.zeros((H - M + 1, W - N + 1))
    for i in range(H - M + 1):
        for j in range(W - N + 1):
            out[i, j] = np.sum(x[i : i + M, j : j + N] * k)
    return out


def convolve_valid(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """True convolution over valid positions: the kernel flipped in both axes, then slid."""
    return correlate_valid(x, np.asarray(k)[::-1, ::-1])


def zero_pad(x: np.ndarray, top: int, bottom: int, left: int, right: int) -> np.ndarray:
    """``x`` (2-D) surrounded by zeros."""
    H, W = x.shape
    out = np.zeros((H + top + bottom, W + left + right), dtype=np.float64)
    out[top : top + H, left : left + W] = x
    return out


def convolve_full(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """scipy.signal.convolve2d(x, k, mode='full'): every position where x and k overlap."""
    M, N = np.shape(k)
    return convolve_valid(zero_pad(np.asarray(x, float), M - 1, M - 1, N - 1, N - 1), k)


def correlate_full(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """scipy.signal.correlate2d(x, k, mode='full')."""
    M, N = np.shape(k)
    return correlate_valid(zero_pad(np.asarray(x, float), M - 1, M - 1, N - 1, N - 1), k)


def convolve_same(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """scipy.signal.convolve2d(x, k, mode='same'): the centre of the 'full' result, x's size."""
    M, N = np.shape(k)
    H, W = np.shape(x)
    full = convolve_full(x, k)
    top, left = (M - 1) // 2, (N - 1) // 2
    return full[top : top + H, left : left + W]


def conv2d_loops(x: np.ndarray, w: np.ndarray, groups: int = 1) -> np.ndarray:
    """PyTorch's conv2d (cross-correlation, stride 1, no padding) with groups, by loops.

    x: (N, C, H, W); w: (O, C // groups, kH, kW) -> (N, O, H - kH + 1, W - kW + 1), float64.
    Output channel o belongs to group o // (O // groups) and reads input channels
    [g * C // groups, (g + 1) * C // groups).
    """
    N, C, H, W = x.shape
    O, Cg, kH, kW = w.shape
    per_group_out = O // groups
    out = np.zeros((N, O, H - kH + 1, W - kW + 1))
    for n in range(N):
        for o in range(O):
            g = o // per_group_out
            for c in range(Cg):
                out[n, o] += correlate_valid(x[n, g * Cg + c], w[o, c])
    return out


# ---------------------------------------------------------------------------- generators
def small_ints(rng: np.random.Generator, shape, low: int = -4, high: int = 5) -> np.ndarray:
    """float64 array of small integers: exact sums, readable counterexamples."""
    return rng.integers(low, high, size=shape).astype(np.float64)


def lecture_input() -> np.ndarray:
    """The lecture's 8x8 image: 4s on the left half, 1s on the right half."""
    arr = np.zeros((8, 8), dtype=float)
    arr[:, :4] = 4.0
    arr[:, 4:] = 1.0
    return arr


def lecture_kernel() -> np.ndarray:
    """The lecture's 3x3 kernel: -1 in the left column, +1 in the right column."""
    ker = np.zeros((3, 3), dtype=float)
    ker[:, 0] = -1.0
    ker[:, 2] = 1.0
    return ker


# ---------------------------------------------------------------------------- strategies
def image_and_kernel_strategy(max_side: int = 6):
    """hypothesis: (image, kernel) float64 pairs with the kernel no larger than the image."""
    from hypothesis import strategies as st

    @st.composite
    def pair(draw):
        H = draw(st.integers(1, max_side))
        W = draw(st.integers(1, max_side))
        M = draw(st.integers(1, H))
        N = draw(st.integers(1, W))
        ints = st.integers(-3, 3)
        x = np.array(draw(st.lists(ints, min_size=H * W, max_size=H * W)), float).reshape(H, W)
        k = np.array(draw(st.lists(ints, min_size=M * N, max_size=M * N)), float).reshape(M, N)
        return (x, k)

    return pair()


def int_tuples(*bounds: tuple[int, int], where=None):
    """hypothesis: tuples of ints, one per (low, high) bound, optionally filtered."""
    from hypothesis import strategies as st

    s = st.tuples(*(st.integers(lo, hi) for lo, hi in bounds))
    return s.filter(lambda t: where(*t)) if where is not None else s


def draw_ints(rng: np.random.Generator, bounds, n: int, where=None) -> list[tuple]:
    """``n`` random int tuples within inclusive ``bounds`` (and ``where``), for hidden cases."""
    out: list[tuple] = []
    lows = [lo for lo, _ in bounds]
    highs = [hi + 1 for _, hi in bounds]
    while len(out) < n:
        t = tuple(int(v) for v in rng.integers(lows, highs))
        if where is None or where(*t):
            out.append(t)
    return out
