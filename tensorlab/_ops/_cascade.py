"""Floating point ``sum`` in ATen's CPU summation order, so results are bit-equal to PyTorch's.

PyTorch sums floats with ``cascade_sum`` (ATen ``native/cpu/SumKernel.cpp``) driven by a reduction
``TensorIterator``. This module emulates, with numpy vectorised over the output elements and the
vector lanes, every step that decides the order of the additions:

- the iterator: size-1 dims dropped, dims sorted (reduced dims first, then by strides, as
  ``reorder_dimensions`` sorts them) and coalesced; the 2-d inner loop over its first two dims,
  called once per index of the outer dims, each call adding its row sums into the output;
- the four loops of ``cascade_sum``: vectorised inner sum (contiguous reduced dim: ``W``-lane
  vectors, ILP 4, scalar tail, lanes added in order), vectorised outer sum (contiguous kept dim:
  groups of ``4 W`` outputs by ``multi_row_sum``, then ``row_sum``), scalar inner and outer sums;
- ``multi_row_sum``'s four accumulation levels, blocks of ``2 ** max(4, ceil(log2 n) // 4)``;
- the split between threads: a reduction of at least ``GRAIN`` (32768) elements with more than one
  thread is, for a single output, cut into equal ranges of the iterator's linear order, one partial
  per thread, then summed (``two_pass_reduction``); for several outputs, the outermost kept dim is
  split into column ranges (``parallel_dim_reduction``).

``W`` is the float lanes of ``Vectorized<float>`` on the path torch takes: 8 with AVX2, and with
AVX512 too (the sum kernels have no AVX512 build, see ``float_lanes``), and in the default build. Float16 sums load ``2 W`` halves per vector
and add neighbours in float; float64 uses ``W / 2`` lanes. The model follows torch for a given
thread count (``THREADS`` below: ``OMP_NUM_THREADS``/``MKL_NUM_THREADS``, else the physical cores,
as torch reads them); when it differs from the machine's torch (``torch.set_num_threads``) sums of
32768 elements or more may differ in the last bit, as they differ in torch between thread counts.
On arm64, where ``Vectorized<float>`` may have 4 lanes, sums may differ in the last bits.
"""

from __future__ import annotations

import os

import numpy as np

GRAIN = 32768  # at::internal::GRAIN_SIZE


def _default_threads() -> int:
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    cores: set = set()
    try:
        with open("/proc/cpuinfo") as f:
            phys = core = None
            for line in f:
                if line.startswith("physical id"):
                    phys = line.split(":")[1].strip()
                elif line.startswith("core id"):
                    core = line.split(":")[1].strip()
                    cores.add((phys, core))
    except OSError:  # pragma: no cover - not Linux
        pass
    return len(cores) or os.cpu_count() or 1


THREADS = _default_threads()


def float_lanes() -> int:
    """Lanes of ``Vectorized<float>`` in the sum kernel torch runs: 8. The sum kernels are
    registered with ``REGISTER_DISPATCH``, which builds no AVX512 variant, so an AVX512 CPU runs
    the AVX2 kernel (8 floats); the default (unvectorised) build also has 8-float vectors."""
    return 8


# ---------------------------------------------------------------------------------------------
# the orders of additions; every array is (reduced length, lanes), every add in the acc dtype
# ---------------------------------------------------------------------------------------------


def _ceil_log2(x: int) -> int:
    return 1 if x <= 2 else (x - 1).bit_length()


def _seq(z: np.ndarray, start: np.ndarray) -> np.ndarray:
    """``((start + z[0]) + z[1]) + ...`` strictly left to right."""
    if len(z) == 0:
        return start
    if len(z) > 16 and z[0].size < 64:
        return np.add.accumulate(np.concatenate([start[None], z]), axis=0)[-1]
    s = start + z[0]
    for row in z[1:]:
        s += row
    return s


def _blocks(y: np.ndarray, step: int) -> np.ndarray:
    """Running sums (from 0) of consecutive blocks of ``step`` rows."""
    y = y.reshape(len(y) // step, step, y.shape[-1])
    s = np.zeros(y.shape[::2], y.dtype) + y[:, 0]
    for i in range(1, step):
        s += y[:, i]
    return s


def _mrs(x: np.ndarray) -> np.ndarray:
    """``multi_row_sum`` over the rows of ``x``: four levels of block accumulators."""
    n, m = x.shape
    step = 1 << max(4, _ceil_log2(n) // 4)
    zero = np.zeros(m, x.dtype)
    n0 = n // step
    acc0 = _seq(x[n0 * step :], zero)
    b = _blocks(x[: n0 * step], step)
    n1 = n0 // step
    acc1 = _seq(b[n1 * step :], zero)
    g1 = _blocks(b[: n1 * step], step)
    n2 = n1 // step
    acc2 = _seq(g1[n2 * step :], zero)
    acc3 = _seq(_blocks(g1[: n2 * step], step), zero)
    return ((acc0 + acc1) + acc2) + acc3


def _rs(x: np.ndarray) -> np.ndarray:
    """``row_sum``: 4 interleaved ``multi_row_sum`` partials, the tail into the first, then combined."""
    n, m = x.shape
    k = n // 4
    p = _mrs(x[: 4 * k].reshape(k, 4 * m)).reshape(4, m)
    p0 = _seq(x[4 * k :], p[0])
    return ((p0 + p[1]) + p[2]) + p[3]


def _inner_vec(x: np.ndarray, lanes: int, per_lane: int) -> np.ndarray:
    """``vectorized_inner_sum``: vectors of ``lanes * per_lane`` elements (neighbours added first
    when ``per_lane`` is 2), ``row_sum`` per lane, then the scalar tail and the lanes in order."""
    n, m = x.shape
    width = lanes * per_lane
    nv = n // width
    v = x[: nv * width].reshape(nv, width, m)
    if per_lane == 2:
        v = (np.zeros((), x.dtype) + v[:, 0::2]) + v[:, 1::2]
    r = _rs(v.reshape(nv, lanes * m)).reshape(lanes, m)
    tail = _seq(x[nv * width :], np.zeros(m, x.dtype))
    return _seq(r, tail)


def _kernel(x: np.ndarray, st0: int, st1: int, lanes: int, per_lane: int) -> np.ndarray:
    """The 2-d loop of ``cascade_sum`` on ``x`` of shape (batch, size1, size0), reducing size0 with
    input strides ``st0`` (reduced) and ``st1`` (in elements): one sum per (batch, size1)."""
    b, n1, n0 = x.shape
    if st0 == 1 and n0 >= lanes * per_lane:
        parts = [(0, n1, lambda t: _inner_vec(t, lanes, per_lane))]
    else:
        if st1 == 1 and n1 >= lanes * per_lane:
            g = n1 // (4 * lanes) * 4 * lanes
        elif st0 < st1:
            g = 0
        else:
            g = n1 // 4 * 4
        parts = [(0, g, _mrs), (g, n1, _rs)]
    out = np.empty((b, n1), x.dtype)
    chunk = max(1, (1 << 17) // max(n0, 1))  # rows transposed at a time, to stay in cache
    for lo, hi, fn in parts:
        if lo == hi:
            continue
        rows = x[:, lo:hi, :].reshape(-1, n0)
        res = np.empty(len(rows), x.dtype)
        for c in range(0, len(rows), chunk):
            res[c : c + chunk] = fn(np.ascontiguousarray(rows[c : c + chunk].T))
        out[:, lo:hi] = res.reshape(b, hi - lo)
    return out


# ---------------------------------------------------------------------------------------------
# the reduction TensorIterator
# ---------------------------------------------------------------------------------------------


class _Iter:
    """Iterator dims, fastest first: sizes, input strides, reduced flags; ``x`` the input with
    axes in reverse iterator order (slowest first), in the accumulation dtype."""

    def __init__(self, sizes, in_strides, reduced, x):
        self.sizes = list(sizes)
        self.st = list(in_strides)
        self.red = list(reduced)
        self.x = x

    @property
    def ndim(self) -> int:
        return len(self.sizes)


def _geometry(shape, strides, dims):
    """(perm of the original dims in iterator order, coalesced groups as sizes/strides/flags)."""
    keep = [d for d in range(len(shape)) if shape[d] != 1]
    out_shape = [1 if d in dims else shape[d] for d in range(len(shape))]
    out_st = [0] * len(shape)
    acc = 1
    for d in reversed(range(len(shape))):
        if d not in dims:
            out_st[d] = acc
            acc *= out_shape[d]
    ops = (out_st, strides)

    def should_swap(d0: int, d1: int) -> int:
        for k, st in enumerate(ops):
            s0, s1 = st[d0], st[d1]
            if k == 0 and (s0 == 0) != (s1 == 0):
                return 1 if s1 == 0 else -1
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = keep[::-1]
    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    sizes, st, ost, red = [], [], [], []
    for d in perm:
        if sizes and sizes[-1] * st[-1] == strides[d] and sizes[-1] * ost[-1] == out_st[d]:
            sizes[-1] *= shape[d]
            continue
        sizes.append(shape[d])
        st.append(strides[d])
        ost.append(out_st[d])
        red.append(d in dims)
    return perm, sizes, st, red


def _store(out: np.ndarray, contrib: np.ndarray, half: bool) -> np.ndarray:
    """``*out += value`` of ``CastStoreAccumulate``: a float16 output adds the float value in float
    and rounds the sum to float16."""
    if half:
        return (out + contrib).astype(np.float16).astype(np.float32)
    return out + contrib


def _store_seq(out: np.ndarray, contribs: np.ndarray, half: bool) -> np.ndarray:
    """Several stores into each output, in order along axis 1 of ``contribs`` (k, n)."""
    if not half:
        return _seq(contribs.T, out)
    for j in range(contribs.shape[1]):
        out = _store(out, contribs[:, j], True)
    return out


def _serial(it: _Iter, lanes: int, per_lane: int, half: bool) -> np.ndarray:
    """``serial_for_each`` over the whole iterator: outputs in the result's C order."""
    acc = it.x.dtype
    if it.ndim == 0 or not it.red[0]:
        return (np.zeros((), acc) + it.x).reshape(-1)  # not a true reduction: out = 0 + x
    if it.ndim == 1:
        c = _kernel(it.x.reshape(1, 1, -1), it.st[0], 0, lanes, per_lane)
        return _store(np.zeros(1, acc), c[:, 0], half)
    n0, n1 = it.sizes[0], it.sizes[1]
    c = _kernel(it.x.reshape(-1, n1, n0), it.st[0], it.st[1], lanes, per_lane)
    red_outer = 1
    for s, r in zip(it.sizes[2:], it.red[2:]):
        red_outer *= s if r else 1
    if it.red[1]:
        c = c.reshape(-1, red_outer * n1)
        return _store_seq(np.zeros(len(c), acc), c, half)
    return _store(np.zeros(c.size, acc), c.reshape(-1), half)


def _range_calls(it: _Iter, begin: int, end: int):
    """The 2-d blocks ``serial_for_each`` hands the loop for a range of the linear order."""
    sizes = it.sizes
    offset = begin
    while offset < end:
        values, rest = [], offset
        for s in sizes:
            values.append(rest % s)
            rest //= s
        step0 = min(sizes[0] - values[0], end - offset)
        step1 = 1
        if values[0] == 0 and len(sizes) >= 2:
            step1 = max(1, min(sizes[1] - values[1], (end - offset) // sizes[0]))
        idx = tuple(values[:1:-1])
        if len(sizes) >= 2:
            block = it.x[idx][values[1] : values[1] + step1, values[0] : values[0] + step0]
        else:
            block = it.x[values[0] : values[0] + step0][None]
        yield block
        offset += step0 * step1


def _two_pass(it: _Iter, threads: int, lanes: int, per_lane: int, half: bool) -> np.ndarray:
    numel = int(np.prod(it.sizes))
    used = min(threads, -(-numel // GRAIN))
    chunk = -(-numel // used)
    st1 = it.st[1] if it.ndim >= 2 else 0
    buffer = np.zeros(threads, it.x.dtype)
    for t in range(used):
        out = np.zeros(1, it.x.dtype)
        for block in _range_calls(it, t * chunk, min(numel, (t + 1) * chunk)):
            c = _kernel(block[None], it.st[0], st1, lanes, per_lane)
            out = _store_seq(out, c.reshape(1, -1), half)
        buffer[t] = out[0]
    if half:
        buffer = buffer.astype(np.float16).astype(np.float32)
    c = _kernel(buffer.reshape(1, 1, -1), 1, 0, lanes, per_lane)
    return _store(np.zeros(1, it.x.dtype), c[:, 0], half)


def _dim_split(it: _Iter, threads: int, lanes: int, per_lane: int, half: bool) -> np.ndarray:
    """``parallel_dim_reduction``: the outermost (kept) dim cut into column ranges, one per
    thread, when those columns are adjacent in the input rounded *down* to 128 bytes at both
    ends except the last column (ATen's ``round_columns``: a range can end up empty and its
    neighbour then takes its columns)."""
    # find_split_dim is meant to pick the largest kept dim; measured against torch 2.13 (3- and
    # 4-d iterators), the outermost dim is the one split
    best = it.ndim - 1
    cols = it.sizes[best]
    used = min(threads, cols)
    chunk = -(-cols // used)
    mult = 128 // it.x.dtype.itemsize if not half else 64
    axis = it.ndim - 1 - best

    def rnd(x: int) -> int:
        if it.st[best] != 1 or x >= cols:  # columns adjacent in the input
            return x
        return x - x % mult

    pieces = []
    for t in range(used):
        lo, hi = rnd(t * chunk), rnd(min(cols, (t + 1) * chunk))
        if lo >= hi:
            continue
        sizes = list(it.sizes)
        sizes[best] = hi - lo
        index = [slice(None)] * it.x.ndim
        index[axis] = slice(lo, hi)
        sub = it.x[tuple(index)]
        part = _serial(_Iter(sizes, it.st, it.red, sub), lanes, per_lane, half)
        kept_shape = [s for s, r in zip(sizes[::-1], it.red[::-1]) if not r]
        pieces.append(part.reshape(kept_shape))
    kaxis = sum(1 for r in it.red[best + 1 :] if not r)
    return np.concatenate(pieces, axis=kaxis).reshape(-1)


def cascade_sum(arr: np.ndarray, strides, dims, threads: int | None = None) -> np.ndarray:
    """Sum of ``arr`` (float16/32/64, a tensor's values whose element ``strides`` torch sees)
    over ``dims`` in ATen's order; returns the kept dims' values in C order, in ``arr``'s dtype
    (a float16 input accumulates in float32 and rounds each store to float16)."""
    shape = arr.shape
    dt = arr.dtype
    half = dt == np.float16
    acc = np.dtype(np.float32) if half else dt
    lanes = float_lanes() * 4 // acc.itemsize
    per_lane = 2 if half else 1
    threads = THREADS if threads is None else threads
    if arr.size == 0:
        return np.zeros(int(np.prod([s for d, s in enumerate(shape) if d not in dims])), dt)
    if arr.size <= 4 and not half and len(dims) == len(shape) and _one_dim(shape):
        # up to 4 elements, one output: ATen adds them in order from zero (no vector loop runs;
        # checked against torch 2.13 for float32 and float64)
        total = acc.type(0)
        with np.errstate(all="ignore"):
            for v in arr.reshape(-1):
                total = total + v
        return np.array([total], dt)
    perm, sizes, st, red = _geometry(list(shape), list(strides), set(dims))
    squeezed = arr.reshape([s for s in shape if s != 1])
    keep = [d for d in range(len(shape)) if shape[d] != 1]
    order = [keep.index(d) for d in perm[::-1]]
    x = squeezed.transpose(order).reshape(sizes[::-1]).astype(acc, copy=False)
    if half and len(red) >= 2 and red[0] and red[1]:
        # sum_out's should_use_acc_buffer: float16 summed as self.to(float32), then cast
        f32 = arr.astype(np.float32)
        return cascade_sum(f32, cast_strides(shape, strides), dims, threads).astype(dt)
    it = _Iter(sizes, st, red, x)
    numel = arr.size
    with np.errstate(all="ignore"):
        if numel < GRAIN or threads == 1 or it.ndim == 0 or not it.red[0]:
            out = _serial(it, lanes, per_lane, half)
        elif all(red):
            out = _two_pass(it, threads, lanes, per_lane, half)
        else:
            out = _dim_split(it, threads, lanes, per_lane, half)
    return out.astype(dt)


def _one_dim(shape) -> bool:
    """At most one dim of size > 1 (the element order is then that dim's, whatever the strides)."""
    return sum(1 for s in shape if s != 1) <= 1


def cast_strides(shape, strides) -> tuple[int, ...]:
    """Strides of ``t.to(dtype)`` (preserve_format): the same when ``t`` is non-overlapping and
    dense, else contiguous."""
    dims = sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            break
        expected *= shape[d]
    else:
        return tuple(strides)
    out, acc = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        out[d] = acc
        acc *= shape[d]
    return tuple(out)


def _strides_of(arr: np.ndarray) -> tuple[np.ndarray, tuple[int, ...]]:
    item = arr.dtype.itemsize
    if all(st >= 0 and st % item == 0 for st in arr.strides):
        return arr, tuple(st // item for st in arr.strides)
    arr = np.ascontiguousarray(arr)
    return arr, tuple(st // item for st in arr.strides)


def total(arr: np.ndarray) -> np.ndarray:
    """``t.sum()`` of a float array laid out as ``arr`` is in memory, as a 0-d array."""
    arr, strides = _strides_of(arr)
    return cascade_sum(arr, strides, tuple(range(arr.ndim))).reshape(())


def mean_all(arr: np.ndarray) -> np.ndarray:
    """``t.mean()`` as torch computes it: the sum (float16 in float32) divided by the count."""
    if arr.size == 0:
        return np.asarray(np.nan, arr.dtype)
    f = arr.astype(np.float32) if arr.dtype == np.float16 else arr
    with np.errstate(all="ignore"):
        return (total(f) / f.dtype.type(arr.size)).astype(arr.dtype)


def sum_axes(arr: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """``t.sum(axes, keepdim=True)`` of a float array laid out as ``arr`` is in memory."""
    arr, strides = _strides_of(arr)
    kept = tuple(1 if d in axes else s for d, s in enumerate(arr.shape))
    return cascade_sum(arr, strides, tuple(axes)).reshape(kept)
