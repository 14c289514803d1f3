"""``nn._blas``: which products get OpenBLAS's threads. A small product always runs on one
thread; a big one only when a core is idle (issue 39: an LSTM's 32 x 256 x 1024 product took
51 ms on all threads against 2.2 ms on one under load). The result is the same either way."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from tensorlab.nn import _blas


@given(
    work=st.integers(1, 1 << 30),
    load=st.none() | st.floats(0, 64),
    cores=st.integers(1, 64),
)
def test_one_thread_unless_big_and_a_core_is_idle(work, load, cores):
    many = work >= _blas.SMALL and (load is None or load <= cores - 0.5)
    assert _blas.one_thread(work, load, cores) is (not many)


def test_the_lstm_product_runs_on_one_thread_on_a_busy_machine():
    assert _blas.one_thread(32 * 256 * 1024, load=2.0, cores=2)
    assert not _blas.one_thread(32 * 256 * 1024, load=0.2, cores=2)


def test_the_threads_are_given_back_and_the_product_is_numpys(monkeypatch):
    calls = []
    monkeypatch.setattr(_blas, "_probe", lambda: (calls.append, lambda: 4))
    monkeypatch.setattr(_blas, "_load", lambda: 8.0)
    monkeypatch.setattr(_blas, "_cores", lambda: 2)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((32, 256)), rng.standard_normal((256, 1024))
    np.testing.assert_array_equal(_blas.matmul(a, b), a @ b)
    assert calls == [1, 4]  # one thread for the product, then the four it had
    calls.clear()
    monkeypatch.setattr(_blas, "_load", lambda: 0.1)
    np.testing.assert_array_equal(_blas.matmul(a, b), a @ b)
    assert calls == []  # an idle machine: OpenBLAS's own threads
