"""The selection algorithms PyTorch's CPU ``topk`` and ``kthvalue`` run, step for step, so that
*equal* values come back with PyTorch's indices (and ``topk(sorted=False)`` in PyTorch's order).

- ``topk`` (``TopKImpl.h``): a queue of (value, index); ``std::partial_sort`` when
  ``k * 64 <= n``, else ``std::nth_element`` then ``std::sort`` of the first ``k - 1``
  (libstdc++'s introselect / heap select / introsort, written out below). NaN is the largest.
- ``kthvalue`` (``SortingUtils.h``): PyTorch's own median-of-three ``quick_select_template``.

These are plain-Python loops: :mod:`.sorting` uses them only for rows where the order of equal
values matters (rows with ties, or ``sorted=False``) and small enough.
"""

from __future__ import annotations

import numpy as np


def _lg(n: int) -> int:
    return n.bit_length() - 1


class _Q:
    """A list of (value, index) pairs with a strict-weak 'comes first' ``comp`` on values."""

    def __init__(self, items, comp):
        self.a = items
        self.comp = comp

    def c(self, i, j):
        return self.comp(self.a[i][0], self.a[j][0])

    def swap(self, i, j):
        a = self.a
        a[i], a[j] = a[j], a[i]


def _insertion_sort(q: _Q, first: int, last: int) -> None:
    a, comp = q.a, q.comp
    if first == last:
        return
    for i in range(first + 1, last):
        if comp(a[i][0], a[first][0]):
            val = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(q, i)


def _unguarded_linear_insert(q: _Q, last: int) -> None:
    a, comp = q.a, q.comp
    val = a[last]
    nxt = last - 1
    while comp(val[0], a[nxt][0]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _move_median_to_first(q: _Q, result, x, y, z) -> None:
    c = q.c
    if c(x, y):
        if c(y, z):
            q.swap(result, y)
        elif c(x, z):
            q.swap(result, z)
        else:
            q.swap(result, x)
    elif c(x, z):
        q.swap(result, x)
    elif c(y, z):
        q.swap(result, z)
    else:
        q.swap(result, y)


def _unguarded_partition(q: _Q, first: int, last: int, pivot: int) -> int:
    c = q.c
    while True:
        while c(first, pivot):
            first += 1
        last -= 1
        while c(pivot, last):
            last -= 1
        if not first < last:
            return first
        q.swap(first, last)
        first += 1


def _unguarded_partition_pivot(q: _Q, first: int, last: int) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(q, first, first + 1, mid, last - 1)
    return _unguarded_partition(q, first + 1, last, first)


def _push_heap(q: _Q, first, hole, top, value) -> None:
    a, comp = q.a, q.comp
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent][0], value[0]):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(q: _Q, first, hole, length, value) -> None:
    a, comp = q.a, q.comp
    top = hole
    second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if comp(a[first + second][0], a[first + second - 1][0]):
            second -= 1
        a[first + hole] = a[first + second]
        hole = second
    if (length & 1) == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        a[first + hole] = a[first + second - 1]
        hole = second - 1
    _push_heap(q, first, hole, top, value)


def _make_heap(q: _Q, first, last) -> None:
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(q, first, parent, length, q.a[first + parent])
        if parent == 0:
            return
        parent -= 1


def _pop_heap(q: _Q, first, last, result) -> None:
    a = q.a
    value = a[result]
    a[result] = a[first]
    _adjust_heap(q, first, 0, last - first, value)


def _heap_select(q: _Q, first, middle, last) -> None:
    _make_heap(q, first, middle)
    for i in range(middle, last):
        if q.c(i, first):
            _pop_heap(q, first, middle, i)


def _sort_heap(q: _Q, first, last) -> None:
    while last - first > 1:
        last -= 1
        _pop_heap(q, first, last, last)


def partial_sort(q: _Q, first, middle, last) -> None:
    _heap_select(q, first, middle, last)
    _sort_heap(q, first, middle)


def nth_element(q: _Q, first, nth, last) -> None:
    if first == last or nth == last:
        return
    depth = 2 * _lg(last - first)
    while last - first > 3:
        if depth == 0:
            _heap_select(q, first, nth + 1, last)
            q.swap(first, nth)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(q, first, last)


_THRESHOLD = 16


def _introsort_loop(q: _Q, first, last, depth) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            partial_sort(q, first, last, last)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(q, first, last)
        _introsort_loop(q, cut, last, depth)
        last = cut


def sort(q: _Q, first, last) -> None:
    if first == last:
        return
    _introsort_loop(q, first, last, 2 * _lg(last - first))
    if last - first > _THRESHOLD:
        _insertion_sort(q, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(q, i)
    else:
        _insertion_sort(q, first, last)


def _isnan(v) -> bool:
    return v != v


def _greater(x, y) -> bool:
    return (_isnan(x) and not _isnan(y)) or x > y


def _less(x, y) -> bool:
    return (not _isnan(x) and _isnan(y)) or x < y


def topk_row(values, k: int, largest: bool, sorted_: bool):
    """PyTorch's ``topk_impl_loop`` on one row: (values, indices) lists of length k."""
    n = len(values)
    q = _Q([(v, j) for j, v in enumerate(values)], _greater if largest else _less)
    if k == 0:
        return [], []
    if k * 64 <= n:
        partial_sort(q, 0, k, n)
    else:
        nth_element(q, 0, k - 1, n)
        if sorted_:
            sort(q, 0, k - 1)
    top = q.a[:k]
    return [v for v, _ in top], [j for _, j in top]


def rows_needing_emulation(rows: np.ndarray) -> np.ndarray:
    """Which rows (of a 2-D array) hold equal values (NaNs count as equal to each other)."""
    if rows.shape[1] < 2:
        return np.zeros(rows.shape[0], dtype=bool)
    srt = np.sort(rows, axis=1)
    ties = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    if rows.dtype.kind == "f":
        ties |= np.isnan(rows).sum(axis=1) > 1
    return ties


def kthvalue_row(values, k: int):
    """PyTorch's ``quick_select_template`` (k is 1-based): (value, index)."""
    a = [(v, j) for j, v in enumerate(values)]

    def gt(x, y):
        return _greater(x[0], y[0])

    def swap(i, j):
        a[i], a[j] = a[j], a[i]

    kk = k - 1
    lo, hi = 0, len(a) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if gt(a[lo], a[hi]):
                swap(lo, hi)
            break
        p = lo + (hi - lo) // 2
        swap(p, lo + 1)
        if gt(a[lo + 1], a[hi]):
            swap(lo + 1, hi)
        if gt(a[lo], a[hi]):
            swap(lo, hi)
        if gt(a[lo + 1], a[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = a[lo]
        while True:
            i += 1
            while gt(piv, a[i]):
                i += 1
            j -= 1
            while gt(a[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= kk:
            lo = i
        if j >= kk:
            hi = j - 1
    return a[kk]
