"""Run PyTorch code under real torch and under tensorlab (``import torch`` resolved to tensorlab),
and compare what each produces, statement by statement.

What is compared, for each statement: whether it raises (and the exception type); the value of an
expression statement (tensors by dtype, shape, ``requires_grad``, ``grad_fn`` name and values;
Python values, ``Size``s and module ``repr``s by their text, ``tensorlab`` read as ``torch``); and
what the statement printed.

Random numbers: tensorlab's generator is PyTorch's, bit for bit, so both runs start from
``manual_seed(seed)`` and random values (factories, layer initialisation, ``dropout``, shuffling)
are compared like any other.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from dataclasses import dataclass, field

import numpy as np

ALIASES = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.parameter",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.utils",
    "torch.utils.data",
    "torch.autograd",
    "torch.autograd.profiler",
    "torch.autograd.functional",
    "torch.autograd.graph",
    "torch.autograd.function",
    "torch.linalg",
    "torch.nn.utils",
    "torch.profiler",
    "torch.functional",
    "torch.linalg",
)


# ---------------------------------------------------------------------------- the two libraries
@contextlib.contextmanager
def torch_is(lib_name: str):
    """``import torch`` (and its submodules) give real torch, or tensorlab's namesakes."""
    if lib_name == "torch":
        yield
        return
    import importlib

    saved = {name: sys.modules.get(name) for name in ALIASES}
    try:
        for name in ALIASES:
            target = "tensorlab" + name[len("torch") :]
            try:
                sys.modules[name] = importlib.import_module(target)
            except ImportError:
                sys.modules[name] = None  # ``import torch.x`` then fails as a missing module
        yield
    finally:
        for name, mod in saved.items():
            if mod is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = mod


@contextlib.contextmanager
def _global_state_kept(lib):
    """Examples may set the default dtype, grad mode or print options: undo it afterwards."""
    import copy

    dtype, grad = lib.get_default_dtype(), lib.is_grad_enabled()
    printing = sys.modules.get(lib.__name__ + "._tensor_str") or sys.modules.get(
        lib.__name__ + "._printing"
    )
    opts = copy.copy(getattr(printing, "PRINT_OPTS", None))
    try:
        yield
    finally:
        lib.set_default_dtype(dtype)
        lib.set_grad_enabled(grad)
        if opts is not None:
            printing.PRINT_OPTS.__dict__.update(opts.__dict__)


# ---------------------------------------------------------------------------- observations
@dataclass
class Step:
    source: str
    raised: str | None = None
    message: str = ""
    value: object = None
    printed: str = ""


@dataclass
class Run:
    steps: list[Step] = field(default_factory=list)
    missing: str | None = None  # ModuleNotFoundError / AttributeError text when an API is absent


def _norm_text(text: str) -> str:
    return text.replace("tensorlab", "torch")


def summarize(obj, depth: int = 0):
    """A library-neutral picture of a value (tensors as numpy values plus metadata)."""
    cls = type(obj)
    mod = cls.__module__ or ""
    if depth > 4:
        return ("...",)
    if cls.__name__ in ("Tensor", "Parameter") and mod.split(".")[0] in ("torch", "tensorlab"):
        gf = getattr(obj, "grad_fn", None)
        gname = None if gf is None else (gf.name() if hasattr(gf, "name") else type(gf).__name__)
        arr = obj.detach().numpy() if obj.requires_grad else obj.numpy()
        return (
            "tensor",
            str(obj.dtype).split(".")[-1],
            tuple(obj.shape),
            bool(obj.requires_grad),
            gname,
            np.array(arr, copy=True),
        )
    if isinstance(obj, type):
        return ("class", _norm_text(f"{obj.__module__}.{obj.__qualname__}"))
    if isinstance(obj, (bool, int, float, str, type(None))):
        return ("py", obj if not isinstance(obj, str) else _norm_text(obj))
    if cls.__name__ == "Size":
        return ("size", tuple(obj))
    if isinstance(obj, (tuple, list)):
        kind = "tuple" if isinstance(obj, tuple) else "list"
        fields = getattr(obj, "_fields", None)
        return (kind, fields and tuple(fields), tuple(summarize(o, depth + 1) for o in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((str(k), summarize(v, depth + 1)) for k, v in obj.items()))
    if cls.__name__ == "dtype":
        return ("dtype", str(obj).split(".")[-1])
    if isinstance(obj, types.GeneratorType):
        return ("generator",)
    if hasattr(obj, "named_parameters") and hasattr(obj, "forward"):
        return ("module", _norm_text(repr(obj)))
    return ("object", cls.__name__)


@contextlib.contextmanager
def _in_scratch_folder():
    """Programs that write files (``torch.save(x, 'tensor.pt')``) write them in a scratch
    folder that is removed afterwards, never in the repository."""
    import os
    import tempfile

    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="tensorlab-corpus-") as scratch:
        os.chdir(scratch)
        try:
            yield scratch
        finally:
            os.chdir(here)


def run(source_steps: list[str], lib_name: str, seed: int = 0) -> Run:
    """Execute the steps in one namespace with ``torch`` = ``lib_name``; record each step."""
    import importlib

    out = Run()
    with _in_scratch_folder(), torch_is(lib_name):
        lib = importlib.import_module("tensorlab" if lib_name == "tensorlab" else "torch")
        lib.manual_seed(seed)
        ns: dict = {"__name__": "__corpus__"}
        with _global_state_kept(lib):
            for src in source_steps:
                step = Step(src)
                buf = io.StringIO()
                try:
                    with contextlib.redirect_stdout(buf):
                        try:
                            code = compile(src, "<corpus>", "eval")
                        except SyntaxError:
                            exec(compile(src, "<corpus>", "exec"), ns)
                        else:
                            step.value = summarize(eval(code, ns))
                except Exception as e:  # noqa: BLE001 - the exception is the observation
                    step.raised = type(e).__name__
                    step.message = _norm_text(str(e)).split("\n")[0]
                    if isinstance(e, (ModuleNotFoundError, ImportError, AttributeError)):
                        out.missing = out.missing or step.message
                step.printed = _norm_text(buf.getvalue())
                out.steps.append(step)
    return out


# ---------------------------------------------------------------------------- comparison
def _same_values(a: np.ndarray, b: np.ndarray) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype.kind in "fc" or b.dtype.kind in "fc":
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        # sums in another order (BLAS, SIMD, conv algorithms) differ by a few ulp of the largest
        # magnitude involved: a relative tolerance plus an absolute one scaled by that magnitude
        rtol, ulps = {np.float16: (1e-2, 1e-2), np.float32: (1e-5, 2e-6)}.get(
            a.dtype.type, (1e-10, 1e-13)
        )
        finite = np.abs(b64[np.isfinite(b64)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        return bool(np.allclose(a64, b64, rtol=rtol, atol=ulps * scale, equal_nan=True))
    return bool(np.array_equal(a, b))


def same(a, b, values: bool) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and a and a[0] == "tensor":
        if b[0] != "tensor" or a[1:5] != b[1:5]:
            return False
        return not values or _same_values(a[5], b[5])
    if isinstance(a, tuple):
        if len(a) != len(b):
            return False
        if a and a[0] == "py" and isinstance(a[1], float) and isinstance(b[1], float):
            return not values or bool(np.isclose(a[1], b[1], rtol=1e-5, equal_nan=True))
        if a and a[0] in ("py", "module") and not values:
            return True  # random values inside
        return all(same(x, y, values) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return not values or _same_values(a, b)
    return a == b


def compare(theirs: Run, ours: Run) -> str | None:
    """None when ours agrees with theirs; otherwise the first difference, in words."""
    values_all = True
    for t, o in zip(theirs.steps, ours.steps):
        where = f"`{t.source.strip()[:80]}`"
        # ``empty`` hands out whatever memory held: its values are nobody's
        values = values_all and "empty" not in t.source
        if t.raised or o.raised:
            if t.raised != o.raised:
                if o.raised:
                    return f"{where}: tensorlab raised {o.raised}: {o.message}"
                return f"{where}: torch raised {t.raised}, tensorlab did not"
            continue
        if not same(t.value, o.value, values):
            return f"{where}: different result"
        if values and t.printed != o.printed:
            return f"{where}: printed differently"
    return None
