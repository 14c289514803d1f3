"""Every keyword PyTorch accepts on the creation functions and Tensor methods tensorlab has,
derived from torch's own signatures (the Python docstring signature and the ATen schemas), is
accepted by tensorlab with the same result."""

from __future__ import annotations

import re
import warnings

import pytest
from helpers import assert_same

import tensorlab as tl

# name -> (how to call it with its required arguments, positionally); ``lib`` is tl or torch
FUNCTIONS = {
    "zeros": lambda lib, f, kw: f(2, 3, **kw),
    "ones": lambda lib, f, kw: f(2, 3, **kw),
    "empty": lambda lib, f, kw: f(2, 3, **kw),
    "full": lambda lib, f, kw: f((2, 3), 1.5, **kw),
    "zeros_like": lambda lib, f, kw: f(lib.ones(2, 3).t(), **kw),
    "ones_like": lambda lib, f, kw: f(lib.ones(2, 3).t(), **kw),
    "empty_like": lambda lib, f, kw: f(lib.ones(2, 3).t(), **kw),
    "full_like": lambda lib, f, kw: f(lib.ones(2, 3).t(), 2.0, **kw),
    "eye": lambda lib, f, kw: f(2, **kw),
    "arange": lambda lib, f, kw: f(5, **kw),
    "linspace": lambda lib, f, kw: f(0, 1, 5, **kw),
    "rand": lambda lib, f, kw: f(2, 3, **kw),
    "randn": lambda lib, f, kw: f(2, 3, **kw),
    "randint": lambda lib, f, kw: f(5, (2, 3), **kw),
    "randperm": lambda lib, f, kw: f(4, **kw),
    "rand_like": lambda lib, f, kw: f(lib.ones(2, 3), **kw),
    "randn_like": lambda lib, f, kw: f(lib.ones(2, 3), **kw),
    "randint_like": lambda lib, f, kw: f(lib.ones(2, 3), 5, **kw),
    "tensor": lambda lib, f, kw: f([[1.0, 2.0]], **kw),
    "as_tensor": lambda lib, f, kw: f([[1.0, 2.0]], **kw),
    "asarray": lambda lib, f, kw: f([[1.0, 2.0]], **kw),
}
METHODS = {
    "new_zeros": lambda lib, kw: lib.ones(2).new_zeros((2, 3), **kw),
    "new_ones": lambda lib, kw: lib.ones(2).new_ones((2, 3), **kw),
    "new_empty": lambda lib, kw: lib.ones(2).new_empty((2, 3), **kw),
    "new_full": lambda lib, kw: lib.ones(2).new_full((2, 3), 4.0, **kw),
    "new_tensor": lambda lib, kw: lib.ones(2).new_tensor([1.0, 2.0], **kw),
    "cpu": lambda lib, kw: lib.ones(2).cpu(**kw),
    "to": lambda lib, kw: lib.ones(2).to(**kw),
    "type": lambda lib, kw: lib.ones(2).type(**kw),
}
RANDOM = {
    "rand",
    "randn",
    "randint",
    "randperm",
    "rand_like",
    "randn_like",
    "randint_like",
    "empty",
    "empty_like",
    "new_empty",
}
POSITIONAL = {
    "input",
    "data",
    "obj",
    "self",
    "size",
    "fill_value",
    "n",
    "m",
    "start",
    "end",
    "step",
    "steps",
    "low",
    "high",
    "args",
    "kwargs",
}


def torch_keywords(torch, doc_owner, name: str) -> set[str]:
    """Keyword names in the docstring's signature line and in every ATen schema of ``name``."""
    names: set[str] = set()
    doc = (getattr(doc_owner, name).__doc__ or "").strip().split("->")[0]
    names |= set(re.findall(r"(\w+)\s*(?::[^,=]*)?=", doc))
    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    except RuntimeError:
        schemas = []
    for s in schemas:
        if "Dimname" in str(s) or "names" in [a.name for a in s.arguments]:
            continue
        names |= {a.name for a in s.arguments if a.kwarg_only}
    return names - POSITIONAL


def values(lib, kw: str, name: str):
    """Candidate values for keyword ``kw`` (the first torch accepts is used)."""
    table = {
        "dtype": [lib.float64, lib.int64],
        "device": ["cpu", lib.device("cpu")],
        "layout": [lib.strided],
        "pin_memory": [False],
        "requires_grad": [False, True],
        "generator": [lib.Generator().manual_seed(1) if lib is tl else lib.Generator()],
        "memory_format": [lib.preserve_format, lib.contiguous_format],
        "out": [lib.empty(0), lib.empty(0, dtype=lib.int64)],
        "copy": [True, False],
        "non_blocking": [False],
    }
    return table.get(kw, [])


def _call(torch, lib, name, kw, value_index):
    v = values(lib, kw, name)[value_index]
    if name in FUNCTIONS:
        return FUNCTIONS[name](lib, getattr(lib, name), {kw: v})
    return METHODS[name](lib, {kw: v})


def _check(torch, name, doc_owner):
    import torch as _t

    assert _t is torch
    kws = torch_keywords(torch, doc_owner, name)
    assert kws, f"no keywords found for {name}: the derivation from torch's signatures broke"
    checked = []
    for kw in sorted(kws):
        n = len(values(torch, kw, name))
        assert n, f"torch's {name}() accepts '{kw}': give the test a value for it"
        for i in range(n):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    theirs = _call(torch, torch, name, kw, i)
                except (RuntimeError, TypeError, ValueError, NotImplementedError, AssertionError):
                    continue  # torch refuses this value here: try the next one
                ours = _call(torch, tl, name, kw, i)  # must not raise
            if isinstance(theirs, torch.Tensor):
                assert tuple(ours.shape) == tuple(theirs.shape)
                assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
                assert ours.requires_grad == theirs.requires_grad
                assert ours.stride() == theirs.stride(), (name, kw)
                if name not in RANDOM:
                    assert_same(ours, theirs)
            checked.append(kw)
            break
    return kws, checked


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_creation_functions_accept_torch_keywords(torch, name):
    kws, checked = _check(torch, name, torch)
    # a keyword only an ATen ``.out`` schema has (``zeros_like.out``) is refused by torch's
    # Python binding: it is not checked; every other one is
    assert set(checked) >= kws - {"out"}, (kws, checked)
    assert checked, kws


@pytest.mark.parametrize("name", sorted(METHODS))
def test_tensor_methods_accept_torch_keywords(torch, name):
    kws, checked = _check(torch, name, torch.Tensor)
    # the docstrings and schemas of methods list keywords torch's Python binding refuses
    # (``new_tensor(layout=)``, ``to(layout=)``): only those torch accepts are required
    assert checked, kws


# every parameter given by name, as torch accepts them
BY_NAME = [
    "lib.zeros(size=(2, 3))",
    "lib.ones(size=[2])",
    "lib.empty(size=(0,)).shape",
    "lib.rand(size=(2,)).shape",
    "lib.randn(size=(2,)).shape",
    "lib.full(size=(2,), fill_value=3)",
    "lib.zeros_like(input=lib.ones(2))",
    "lib.ones_like(input=lib.ones(2))",
    "lib.full_like(input=lib.ones(2), fill_value=5)",
    "lib.eye(n=2, m=3)",
    "lib.arange(start=1, end=7, step=2)",
    "lib.arange(end=4)",
    "lib.linspace(start=0, end=1, steps=3)",
    "lib.randint(low=0, high=3, size=(2,)).shape",
    "lib.randint(high=3, size=(2,)).shape",
    "lib.randperm(n=4).shape",
    "lib.rand_like(input=lib.ones(2)).shape",
    "lib.randint_like(lib.ones(2), high=4).shape",
    "lib.tensor(data=[1, 2])",
    "lib.as_tensor(data=[1, 2])",
    "lib.asarray(obj=[1, 2])",
    "lib.ones(2).new_zeros(size=(2,))",
    "lib.ones(2).new_full(size=(2,), fill_value=1)",
    "lib.ones(2).new_tensor(data=[1])",
]


@pytest.mark.parametrize("expr", BY_NAME)
def test_parameters_by_name(torch, expr):
    ours = eval(expr, {"lib": tl})
    theirs = eval(expr, {"lib": torch})
    if isinstance(theirs, torch.Tensor):
        assert_same(ours, theirs)
    else:
        assert tuple(ours) == tuple(theirs)
