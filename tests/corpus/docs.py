"""PyTorch's own documentation examples (the ``>>>`` lines of its docstrings), for every public
name tensorlab also has: third-party teaching code that comes with the oracle."""

from __future__ import annotations

import doctest
import types

NAMESPACES = (
    ("torch", "torch", "tensorlab"),
    ("torch.Tensor", "torch.Tensor", "tensorlab.Tensor"),
    ("torch.nn", "torch.nn", "tensorlab.nn"),
    ("torch.nn.functional", "torch.nn.functional", "tensorlab.nn.functional"),
    ("torch.nn.init", "torch.nn.init", "tensorlab.nn.init"),
    ("torch.optim", "torch.optim", "tensorlab.optim"),
    ("torch.utils.data", "torch.utils.data", "tensorlab.utils.data"),
    ("torch.linalg", "torch.linalg", "tensorlab.linalg"),
)

# What PyTorch's docs assume has been run before an example.
PREAMBLE = (
    "import torch",
    "import torch.nn as nn",
    "import torch.nn.functional as F",
    "import numpy as np",
)

# Examples that need what no CPU-only, real-valued course engine has.
OUT_OF_SCOPE = (
    "cuda",
    "complex",
    "cfloat",
    "cdouble",
    "sparse",
    "quantize",
    "bfloat16",
    "named_",
    "names=",
    "jit",
    "num_workers",
)


def _resolve(path: str):
    import importlib

    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


def _runs_in_torch(examples) -> bool:
    """The example is runnable code: torch raises only where the docstring shows a traceback."""
    from .runner import run

    steps = [*PREAMBLE, *(e.source for e in examples)]
    result = run(steps, "torch")
    for ex, step in zip(examples, result.steps[len(PREAMBLE) :]):
        if step.raised and "Traceback" not in ex.want:
            return False
    return True


def doc_examples() -> dict[str, list[str]]:
    """{"torch.gather": [step, ...]} for every documented name tensorlab also has."""
    parser = doctest.DocTestParser()
    found: dict[str, list[str]] = {}
    seen_docs: set[str] = set()
    for label, torch_path, ours_path in NAMESPACES:
        try:
            theirs, ours = _resolve(torch_path), _resolve(ours_path)
        except (ImportError, AttributeError):
            continue
        for name in sorted(dir(ours)):
            if name.startswith("_"):
                continue
            obj = getattr(theirs, name, None)
            if obj is None or isinstance(obj, types.ModuleType):
                continue
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or doc in seen_docs:
                continue  # aliases share a docstring: one test each
            seen_docs.add(doc)
            try:
                examples = parser.get_examples(doc)
            except ValueError:
                continue
            if not examples:
                continue
            text = " ".join(e.source for e in examples)
            if any(word in text for word in OUT_OF_SCOPE):
                continue
            if not _runs_in_torch(examples):
                continue
            found[f"{label}.{name}"] = [*PREAMBLE, *(e.source for e in examples)]
    return found
