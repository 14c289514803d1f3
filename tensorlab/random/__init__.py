"""Random number generation as ``torch.random`` has it: ``Generator``, the default generator,
``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``/``set_rng_state``.

The generator is PyTorch's CPU generator, bit for bit: the standard 32-bit Mersenne Twister
(mt19937) seeded with the low 32 bits of the seed, whose raw words numpy's ``MT19937`` bit
generator produces fast (``random_raw``), and PyTorch's cached normal sample. Its state is torch's
5,056-byte ``CPUGeneratorImplState``, so states move between tensorlab and real PyTorch. The
distributions that turn the words into numbers, in PyTorch's order, are in :mod:`._kernels`.
"""

from __future__ import annotations

import builtins
import os
import struct

import numpy as np

from .. import _dtype as D
from .._device import CPU, check_factory_device
from .._tensor import Tensor

_N = 624  # mt19937's state words
_U24_CHUNK = 1 << 15  # words drawn at a time for float uniforms
_STATE_SIZE = 5056  # sizeof(CPUGeneratorImplState)
_HEAD = struct.Struct("<QiiQ")  # the_initial_seed, left, seeded, next
_TAIL = struct.Struct("<dddi4xf?3x")  # normal_x, normal_y, normal_rho, normal_is_valid, float cache


class Generator:
    """A seeded source of random numbers (``tensorlab.Generator``, PyTorch's ``torch.Generator``):
    PyTorch's CPU generator, so the same seed gives the same numbers as in PyTorch."""

    _DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() reports as initial_seed()

    def __init__(self, device="cpu"):
        check_factory_device(device)
        self._bg = np.random.MT19937()
        self.manual_seed(self._DEFAULT_SEED)

    @property
    def device(self):
        return CPU

    # ------------------------------------------------------------------ seeding and state
    def manual_seed(self, seed) -> Generator:
        """Seed the generator (a 64-bit integer; negative seeds wrap as in PyTorch); returns it."""
        if not isinstance(seed, (builtins.int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = builtins.int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        key = np.empty(_N, dtype=np.uint32)
        key[0] = self._seed & 0xFFFFFFFF
        key[:] = np.random.RandomState(builtins.int(key[0])).get_state()[1]  # init_genrand
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": _N}}
        self._fresh = True  # torch's next_ is 0 until the first word is drawn
        self._normal = None  # the cached double normal sample (the sine of the last pair)
        self._normal_f = None  # the cached float normal sample (kept for the state's sake)
        return self

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed."""
        s = builtins.int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def get_state(self) -> Tensor:
        """The generator's state as PyTorch's 5,056-byte ``uint8`` tensor (give it to
        ``set_state``, here or in PyTorch, to rewind)."""
        st = self._bg.state["state"]
        pos = builtins.int(st["pos"])
        nxt = 0 if (self._fresh and pos == _N) else pos
        head = _HEAD.pack(self._seed, _N + 1 - pos, 1, nxt)
        words = np.asarray(st["key"], dtype=np.uint32).astype("<u8").tobytes()
        tail = _TAIL.pack(
            0.0,
            0.0 if self._normal is None else self._normal,
            0.0,
            self._normal is not None,
            0.0 if self._normal_f is None else self._normal_f,
            self._normal_f is not None,
        )
        raw = np.frombuffer(head + words + tail, dtype=np.uint8).copy()
        return Tensor._from_array(raw, D.uint8)

    def set_state(self, new_state) -> Generator:
        """Restore a state from ``get_state`` (tensorlab's or PyTorch's)."""
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a tensorlab.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a tensorlab.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        raw = np.ascontiguousarray(new_state._np()).tobytes()
        seed, left, seeded, nxt = _HEAD.unpack_from(raw, 0)
        if not (seeded == 1 and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        words = np.frombuffer(raw, dtype="<u8", count=_N, offset=_HEAD.size).astype(np.uint32)
        _, y, _, valid, f, fvalid = _TAIL.unpack_from(raw, _HEAD.size + 8 * _N)
        self._bg.state = {"bit_generator": "MT19937", "state": {"key": words, "pos": _N + 1 - left}}
        self._seed = seed
        self._fresh = left == 1 and nxt == 0
        self._normal = y if valid else None
        self._normal_f = f if fvalid else None
        return self

    # ------------------------------------------------------------------ raw words
    def _words(self, n: int) -> np.ndarray:
        """``n`` 32-bit words (torch's ``random()``), as uint64."""
        if n <= 0:
            return np.empty(0, dtype=np.uint64)
        self._fresh = False
        return self._bg.random_raw(n)

    def _words64(self, n: int) -> np.ndarray:
        """``n`` 64-bit draws (torch's ``random64()``: the first word is the high half)."""
        w = self._words(2 * n)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    def _u24(self, n: int) -> np.ndarray:
        """``n`` float32 uniforms on [0, 1): 24 bits of one word each. Drawn and converted
        in chunks, so that the 64-bit words and their temporaries stay small (in the cache)."""
        r = np.empty(n, dtype=np.float32)
        k = np.empty(min(n, _U24_CHUNK), dtype=np.uint32)
        for a in range(0, n, _U24_CHUNK):
            b = min(a + _U24_CHUNK, n)
            x = k[: b - a]
            np.copyto(x, self._words(b - a), casting="unsafe")  # the low 32 bits
            x &= 0xFFFFFF
            np.copyto(r[a:b], x.view(np.int32), casting="unsafe")  # exact: 24 bits (int32: faster)
        r *= np.float32(2**-24)
        return r

    def _u53(self, n: int) -> np.ndarray:
        """``n`` float64 uniforms on [0, 1): 53 bits of a 64-bit draw each."""
        return (self._words64(n) & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53


default_generator = Generator()
default_generator.manual_seed(0)  # tensorlab starts seeded, so that notebooks are reproducible


def manual_seed(seed) -> Generator:
    """Seed tensorlab's default generator (``rand``, ``randn``, ``randint``, layer init, shuffling);
    returns it, as PyTorch does."""
    return default_generator.manual_seed(builtins.int(seed))


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (PyTorch's 5,056-byte format)."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state (from ``get_rng_state``, here or in PyTorch)."""
    default_generator.set_state(new_state)


def _gen(generator: Generator | None) -> Generator:
    """The generator a random op draws from: ``generator=`` or the default one."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"expected a tensorlab.Generator as 'generator', got {type(generator).__name__}"
        )
    return generator
