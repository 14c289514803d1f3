"""Random number generation state, as ``torch.random`` has it: ``Generator``, the default
generator, ``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``/``set_rng_state``.

tensorlab draws with numpy's PCG64: the API and its errors are PyTorch's, the values are not
(PyTorch uses a Mersenne Twister), so seeded results are reproducible within tensorlab only.
"""

from __future__ import annotations

import builtins

import numpy as np

from . import _dtype as D
from ._device import CPU, check_factory_device
from ._tensor import Tensor


class Generator:
    """A seeded source of random numbers (``tensorlab.Generator``, PyTorch's ``torch.Generator``).

    tensorlab draws with numpy's PCG64: the API is PyTorch's (``manual_seed``, ``initial_seed``,
    ``seed``, ``get_state``/``set_state``), the values are not (PyTorch uses a Mersenne Twister).
    """

    _DEFAULT_SEED = 67280421310721  # what a fresh torch.Generator() reports as initial_seed()

    def __init__(self, device="cpu"):
        check_factory_device(device)
        self.manual_seed(self._DEFAULT_SEED)

    @property
    def device(self):
        return CPU

    def manual_seed(self, seed) -> Generator:
        if not isinstance(seed, (builtins.int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = builtins.int(seed)
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % 2**64
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed."""
        s = builtins.int(np.random.SeedSequence().entropy) % 2**63
        self.manual_seed(s)
        return s

    def get_state(self) -> Tensor:
        """The generator's state as a ``uint8`` tensor (give it to ``set_state`` to rewind)."""
        st = self._rng.bit_generator.state
        raw = (
            st["state"]["state"].to_bytes(16, "little")
            + st["state"]["inc"].to_bytes(16, "little")
            + builtins.int(st["has_uint32"]).to_bytes(1, "little")
            + builtins.int(st["uinteger"]).to_bytes(4, "little")
            + self._seed.to_bytes(8, "little")
        )
        return Tensor._from_array(np.frombuffer(raw, dtype=np.uint8), D.uint8)

    def set_state(self, new_state) -> Generator:
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a tensorlab.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a tensorlab.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                f"state size to be {new_state.numel()}"
            )
        raw = bytes(np.ascontiguousarray(new_state._np()).tobytes())
        bg = np.random.PCG64()
        bg.state = {
            "bit_generator": "PCG64",
            "state": {
                "state": builtins.int.from_bytes(raw[0:16], "little"),
                "inc": builtins.int.from_bytes(raw[16:32], "little"),
            },
            "has_uint32": raw[32],
            "uinteger": builtins.int.from_bytes(raw[33:37], "little"),
        }
        self._rng = np.random.Generator(bg)
        self._seed = builtins.int.from_bytes(raw[37:45], "little")
        return self


_STATE_SIZE = 45

default_generator = Generator()
default_generator.manual_seed(0)  # tensorlab starts seeded, so that notebooks are reproducible


def manual_seed(seed) -> Generator:
    """Seed tensorlab's default generator (``rand``, ``randn``, ``randint``, layer init, shuffling);
    returns it, as PyTorch does."""
    return default_generator.manual_seed(builtins.int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def _rng(generator: Generator | None):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(
            f"expected a tensorlab.Generator as 'generator', got {type(generator).__name__}"
        )
    return (generator or default_generator)._rng
