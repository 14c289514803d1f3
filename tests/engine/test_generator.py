"""``Generator`` and the seeding functions: PyTorch's API and errors (the values and states
themselves are compared with torch's in test_random_bits.py)."""

from __future__ import annotations

import pytest
from helpers import raises_same

import tensorlab as tl


@pytest.mark.parametrize(
    "expr",
    [
        "lib.Generator().initial_seed()",
        "lib.Generator().device",
        "lib.Generator('cpu').device",
        "lib.Generator(device='cpu').initial_seed()",
        "lib.Generator().manual_seed(3).initial_seed()",
        "lib.Generator().manual_seed(-1).initial_seed()",
        "lib.Generator().manual_seed(2**64 - 1).initial_seed()",
        "lib.Generator().manual_seed(2**64)",
        "lib.Generator().manual_seed(-2**63 - 1)",
        "lib.Generator().manual_seed(1.5).initial_seed()",
        "lib.Generator().manual_seed('a')",
        "lib.manual_seed(7).initial_seed()",
        "(lib.manual_seed(7), lib.initial_seed())[1]",
        "lib.Generator().get_state().dtype",
        "lib.Generator().set_state(lib.zeros(3))",
        "lib.Generator().set_state([1, 2])",
    ],
)
def test_generator_api(torch, expr):
    r_o, r_t = raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    if r_t is not None:
        assert repr(r_o) == repr(r_t).replace("torch.", "tensorlab.")


def test_manual_seed_returns_the_default_generator_and_reseeds(torch):
    for lib in (tl, torch):
        g = lib.manual_seed(0)
        assert g is lib.default_generator
        assert isinstance(g, lib.Generator)
        a = lib.rand(5)
        lib.manual_seed(0)
        assert (
            lib.equal(a, lib.rand(5))
            if hasattr(lib, "equal")
            else a.tolist() == lib.rand(5).tolist()
        )
        assert g.manual_seed(1) is g


def test_state_round_trip():
    g = tl.Generator().manual_seed(42)
    tl.rand(3, generator=g)
    state = g.get_state()
    a = tl.randn(4, generator=g).tolist() + tl.randint(10, (4,), generator=g).tolist()
    g.set_state(state)
    b = tl.randn(4, generator=g).tolist() + tl.randint(10, (4,), generator=g).tolist()
    assert a == b and g.initial_seed() == 42
    tl.set_rng_state(tl.get_rng_state())  # the default generator too
    with pytest.raises(RuntimeError, match="Expected a CPUGeneratorImplState of size"):
        g.set_state(tl.zeros(3, dtype=tl.uint8))


def test_generators_are_independent_and_seed_is_random():
    g1, g2 = tl.Generator().manual_seed(5), tl.Generator().manual_seed(5)
    assert tl.rand(3, generator=g1).tolist() == tl.rand(3, generator=g2).tolist()
    s = tl.Generator().seed()
    assert isinstance(s, int) and s >= 0
    with pytest.raises(TypeError, match="expected a tensorlab.Generator"):
        tl.rand(2, generator=3)


def test_set_default_tensor_type(torch):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (tl, torch):
            try:
                lib.set_default_tensor_type(lib.DoubleTensor)
                assert str(lib.tensor([1.5]).dtype).endswith("float64")
                assert str(lib.Tensor(2).dtype).endswith("float64")
                lib.set_default_tensor_type("torch.FloatTensor")
                assert str(lib.get_default_dtype()).endswith("float32")
            finally:
                lib.set_default_dtype(lib.float32)
        for name in ("LongTensor", "float64"):
            raises_same(
                lambda n=name: tl.set_default_tensor_type(getattr(tl, n)),
                lambda n=name: torch.set_default_tensor_type(getattr(torch, n)),
            )
    assert tl.utils.data.get_worker_info() is None
