"""Device code every tutorial starts with, against a CPU-only PyTorch 2.13 (the oracle here).

The oracle must be a CPU build for these comparisons to mean anything: the module checks it.
"""

from __future__ import annotations

import pickle

import pytest
from helpers import assert_same, raises_same

import tensorlab as tl


@pytest.fixture(scope="module")
def cpu_torch(torch):
    if torch.cuda.is_available() or torch.backends.mps.is_available():
        pytest.skip("the oracle has a GPU: these tests describe a CPU-only PyTorch build")
    return torch


def same(torch, expr: str):
    r_o, r_t = raises_same(lambda: eval(expr, {"lib": tl}), lambda: eval(expr, {"lib": torch}))
    if isinstance(r_t, torch.Tensor):
        assert_same(r_o, r_t)
    elif r_t is not None:
        assert repr(r_o) == repr(r_t).replace("torch.", "tensorlab."), (r_o, r_t)
    return r_o, r_t


DEVICE_CASES = [
    "lib.device('cpu')",
    "lib.device('cpu', 0)",
    "str(lib.device('cpu', 0))",
    "str(lib.device('cpu'))",
    "lib.device('cuda')",
    "lib.device('cuda:1')",
    "lib.device('cuda:0').index",
    "lib.device('cpu:0')",
    "lib.device('mps')",
    "lib.device('foo')",
    "lib.device('cuda', -1)",
    "lib.device('cuda:0', 1)",
    "lib.device('cuda:x')",
    "lib.device('cuda:01')",
    "lib.device('')",
    "lib.device(0)",
    "lib.device(1.5)",
    "lib.device(None)",
    "lib.device(lib.device('cpu'))",
    "lib.device(type='cpu', index=0)",
    "lib.device('cpu', index=None)",
    "lib.device('cpu').type",
    "lib.device('cpu').index",
    "lib.device('cpu') == lib.device('cpu', 0)",
    "lib.device('cpu') == lib.device('cpu')",
    "lib.device('cpu') == 'cpu'",
    "lib.device('cuda', 1) == lib.device('cuda:1')",
    "hash(lib.device('cpu')) == hash(lib.device('cpu'))",
    "len({lib.device('cpu'), lib.device('cpu'), lib.device('cuda')})",
    "lib.get_default_device()",
]


@pytest.mark.parametrize("expr", DEVICE_CASES)
def test_device_objects(cpu_torch, expr):
    same(cpu_torch, expr)


TENSOR_DEVICE_CASES = [
    "lib.zeros(2).device",
    "lib.zeros(2).device.type",
    "lib.zeros(2).device == lib.device('cpu')",
    "lib.zeros(2).is_cuda",
    "lib.zeros(2).is_cpu",
    "lib.zeros(2).is_pinned()",
    "lib.zeros(2).pin_memory()",
    "(lib.zeros(2).is_meta, lib.zeros(2).is_sparse, lib.zeros(2).is_mps)",
    "lib.zeros(2).get_device()",
    "lib.zeros(2).layout",
    "lib.zeros(2).cpu()",
    "lib.zeros(2).cpu().device",
    "lib.zeros(2).to('cpu')",
    "lib.zeros(2).to('cpu:1')",
    "lib.zeros(2).to(lib.device('cpu'))",
    "lib.zeros(2).to('cpu', lib.float64)",
    "lib.zeros(2).to(device='cpu', dtype=lib.int32)",
    "lib.zeros(2).to(lib.tensor([1]))",
    "lib.zeros(2).to('cpu', non_blocking=True)",
    "lib.ones(2, 3).t().to(memory_format=lib.contiguous_format).stride()",
    "lib.ones(2, 3).t().to(lib.float64).stride()",
    "lib.ones(2, 3).t().to('cpu', copy=True).stride()",
    "lib.ones(2, 3).type(lib.DoubleTensor)",
    "lib.ones(2, 3).type('torch.IntTensor')",
    "lib.ones(2, 3).type()",
    "lib.zeros(2).cuda()",
    "lib.zeros(2).to('cuda')",
    "lib.zeros(2).to('cuda:0')",
    "lib.zeros(2).to(lib.device('cuda'))",
    "lib.zeros(2).to(device='cuda')",
    "lib.zeros(2).to('mps')",
    "lib.zeros(2).to('xla')",
    "lib.zeros(2).to('gpu')",
    "lib.zeros(2).to(0)",
    "lib.zeros(2, device='cpu')",
    "lib.zeros(2, device='cpu:1')",
    "lib.zeros(2, device=lib.device('cpu', 0)).device",
    "lib.zeros(2, device='cuda')",
    "lib.zeros(2, device=0)",
    "lib.ones(2, device='cuda:0')",
    "lib.empty(2, device='cuda')",
    "lib.full((2,), 1, device='cuda')",
    "lib.arange(3, device='cuda')",
    "lib.linspace(0, 1, 3, device='cuda')",
    "lib.eye(2, device='cuda')",
    "lib.rand(2, device='cuda')",
    "lib.randn(2, device='cuda')",
    "lib.randint(3, (2,), device='cuda')",
    "lib.randperm(3, device='cuda')",
    "lib.zeros_like(lib.zeros(2), device='cuda')",
    "lib.tensor([1], device='cuda')",
    "lib.as_tensor([1], device='cuda')",
    "lib.from_numpy(__import__('numpy').zeros(2)).device",
    "lib.cuda.is_available()",
    "lib.cuda.device_count()",
    "lib.cuda.is_initialized()",
    "lib.cuda.current_device()",
    "lib.cuda.get_device_name()",
    "lib.cuda.get_device_name(0)",
    "lib.cuda.synchronize()",
    "lib.cuda.manual_seed(0)",
    "lib.cuda.manual_seed_all(0)",
    "lib.cuda.empty_cache()",
    "lib.cuda.memory_allocated()",
    "lib.accelerator.is_available()",
    "lib.accelerator.current_accelerator()",
    "lib.accelerator.current_accelerator(check_available=True)",
    "lib.accelerator.device_count()",
    "lib.accelerator.current_device_index()",
    "lib.accelerator.synchronize()",
    "lib.backends.mps.is_available()",
    "lib.backends.mps.is_built()",
    "lib.backends.cudnn.is_available()",
    "lib.backends.cudnn.enabled",
    "lib.backends.cudnn.benchmark",
    "lib.backends.cudnn.deterministic",
    "lib.backends.cudnn.version()",
]


@pytest.mark.parametrize("expr", TENSOR_DEVICE_CASES)
def test_device_code(cpu_torch, expr):
    same(cpu_torch, expr)


def test_mps_factory_raises_not_implemented(cpu_torch):
    for lib in (tl, cpu_torch):
        with pytest.raises(NotImplementedError, match="Could not run 'aten::empty.memory_format'"):
            lib.zeros(2, device="mps")


def test_tutorial_device_idiom_runs(cpu_torch):
    """The first lines of most tutorials."""
    for lib in (tl, cpu_torch):
        device = lib.device("cuda" if lib.cuda.is_available() else "cpu")
        if lib.backends.mps.is_available():
            device = lib.device("mps")
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        x = lib.ones(2, 3, device=device).to(device)
        assert x.device == device and str(x.device) == "cpu"
        assert x.to(device) is x and x.cpu() is x
        lib.backends.cudnn.benchmark = False
        lib.backends.cudnn.deterministic = False


def test_device_pickles_and_is_hashable():
    d = tl.device("cuda", 1)
    assert pickle.loads(pickle.dumps(d)) == d
    assert {tl.device("cpu"): 1}[tl.zeros(1).device] == 1


def test_learn_the_basics_tutorial_opening(cpu_torch):
    """PyTorch's current "Learn the Basics" tutorial picks its device this way."""
    for lib in (tl, cpu_torch):
        device = (
            lib.accelerator.current_accelerator().type if lib.accelerator.is_available() else "cpu"
        )
        tensor = lib.rand(3, 4)
        if lib.accelerator.is_available():
            tensor = tensor.to(lib.accelerator.current_accelerator())
        assert device == "cpu" and f"{tensor.device}" == "cpu"


def test_module_to_device(cpu_torch):
    """``Module.to`` shares ``Tensor.to``'s parser: the same devices pass and fail."""
    for lib in (tl, cpu_torch):
        m = lib.nn.Conv2d(1, 1, 1)
        assert m.to("cpu") is m and m.to(lib.device("cpu")) is m
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            m.to("cuda")


DEFAULT_DEVICE_CASES = [
    "lib.zeros(2)",
    "lib.ones(2)",
    "lib.empty(2).shape",
    "lib.full((2,), 1.0)",
    "lib.arange(3)",
    "lib.linspace(0, 1, 3)",
    "lib.eye(2)",
    "lib.rand(2).shape",
    "lib.randn(2).shape",
    "lib.randint(3, (2,)).shape",
    "lib.randperm(3).shape",
    "lib.tensor([1, 2])",
    "lib.as_tensor([1, 2])",
    "lib.zeros_like(base)",
    "lib.ones_like(base)",
    "lib.rand_like(base).shape",
    "base.new_zeros(2)",
    "base.new_full((2,), 3.0)",
    "base.new_tensor([1.0])",
    "lib.from_numpy(np.zeros(2))",
    "base * 2",
]


@pytest.mark.parametrize("where", ["with", "set_default_device"])
@pytest.mark.parametrize("expr", DEFAULT_DEVICE_CASES)
def test_default_device_applies_where_torch_applies_it(cpu_torch, expr, where):
    """``with device('cuda'):`` / ``set_default_device('cuda')`` reach the factory functions
    (which then raise on a CPU-only build) but not ``*_like``, ``new_*`` or ops on tensors."""
    import numpy as np

    def run(lib):
        base = lib.ones(2)
        env = {"lib": lib, "base": base, "np": np}
        if where == "with":
            with lib.device("cuda"):
                return eval(expr, env)
        lib.set_default_device("cuda")
        try:
            return eval(expr, env)
        finally:
            lib.set_default_device(None)

    r_o, r_t = raises_same(lambda: run(tl), lambda: run(cpu_torch))
    if isinstance(r_t, cpu_torch.Tensor):
        assert_same(r_o, r_t)
    elif r_t is not None:
        assert tuple(r_o) == tuple(r_t)
    assert str(tl.get_default_device()) == "cpu" == str(cpu_torch.get_default_device())


def test_cpu_device_context_and_default(cpu_torch):
    for lib in (tl, cpu_torch):
        with lib.device("cpu"):
            assert lib.zeros(1).device == lib.device("cpu")
        lib.set_default_device("cpu")
        assert lib.get_default_device() == lib.device("cpu")
        lib.set_default_device(None)
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            with lib.device("cuda"):
                lib.get_default_device()
