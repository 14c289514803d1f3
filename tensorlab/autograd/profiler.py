"""``tensorlab.autograd.profiler``: ``profile()`` and ``record_function()``, as
``torch.autograd.profiler``.

While a ``profile`` is active, every call of a tensorlab op made through the public API
(``tensorlab.<op>``, ``Tensor.<method>`` and operators, ``nn.functional.<op>``) is timed and
recorded as ``aten::<op>``, nested calls as children, and ``record_function`` blocks as events
of their own; code runs unchanged. ``prof.key_averages().table(sort_by=..., row_limit=...)``
prints torch's table (Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
# of Calls; ``profile_memory=True`` adds CPU Mem and Self CPU Mem, ``record_shapes=True`` with
``key_averages(group_by_input_shape=True)`` the Input Shapes). The op names are tensorlab's public
calls, not ATen's internal dispatch (torch shows ``aten::mm`` under ``aten::matmul``).
"""

from __future__ import annotations

import functools
import sys
import threading
import time
import types

from .profiler_util import EventList, FunctionEvent, FunctionEventAvg

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "profile", "record_function"]

# Tensor methods and module functions that read metadata or convert (torch records no op)
_NOT_OPS = {
    "backward", "cpu", "cuda", "data_ptr", "dim", "element_size", "get_device", "is_contiguous",
    "is_floating_point", "is_pinned", "item", "ndimension", "nelement", "numel", "numpy",
    "register_hook", "requires_grad_", "retain_grad", "size", "storage", "storage_offset",
    "stride", "tolist", "new", "pin_memory", "manual_seed", "seed", "initial_seed", "is_tensor",
    "promote_types", "result_type", "from_numpy", "tensor", "as_tensor", "asarray", "typename",
    "untyped_storage", "type", "is_nonzero", "check",
}  # fmt: skip
_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_", "__sub__": "sub",
    "__rsub__": "rsub", "__isub__": "sub_", "__mul__": "mul", "__rmul__": "mul",
    "__imul__": "mul_", "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__div__": "div", "__rdiv__": "div", "__idiv__": "div_", "__floordiv__": "floor_divide",
    "__rfloordiv__": "floor_divide", "__ifloordiv__": "floor_divide_", "__mod__": "remainder",
    "__rmod__": "remainder", "__imod__": "remainder_", "__pow__": "pow", "__rpow__": "pow",
    "__ipow__": "pow_", "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg",
    "__abs__": "abs", "__pos__": "positive", "__invert__": "bitwise_not",
    "__and__": "bitwise_and", "__rand__": "bitwise_and", "__iand__": "bitwise_and_",
    "__or__": "bitwise_or", "__ror__": "bitwise_or", "__ior__": "bitwise_or_",
    "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor", "__ixor__": "bitwise_xor_",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__getitem__": "index", "__setitem__": "index_put_",
}  # fmt: skip

_lock = threading.Lock()
_active: _Recorder | None = None


def _now_us() -> float:
    return time.perf_counter_ns() / 1000.0


def _shapes(args, kwargs) -> list:
    from .._tensor import Tensor

    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            out.append(list(a.shape))
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, Tensor) for x in a):
            out.append([list(x.shape) for x in a])
        else:
            out.append([])
    return out


def _new_bytes(result, args) -> int:
    """Bytes of the fresh storages among an op's results (views allocate nothing)."""
    from .._tensor import Tensor

    def ptr(t):
        return t.untyped_storage().data_ptr()

    seen = {ptr(a) for a in args if isinstance(a, Tensor)}
    outs = result if isinstance(result, (tuple, list)) else (result,)
    total = 0
    for o in outs:
        if isinstance(o, Tensor) and ptr(o) not in seen:
            seen.add(ptr(o))
            total += o.untyped_storage().nbytes()
    return total


class _Recorder:
    """The events of one profile and the stack of calls now running."""

    def __init__(self, record_shapes: bool, profile_memory: bool) -> None:
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.events: list[FunctionEvent] = []
        self.stack: list[FunctionEvent] = []
        self.patched: list[tuple[object, str, object]] = []

    def begin(self, name: str, shapes=None, user: bool = False) -> FunctionEvent:
        evt = FunctionEvent(
            len(self.events) + 1, name, threading.get_ident(), _now_us(), None, shapes, user
        )
        if self.stack:
            evt.cpu_parent = self.stack[-1]
            self.stack[-1].cpu_children.append(evt)
        self.stack.append(evt)
        self.events.append(evt)
        return evt

    def end(self, evt: FunctionEvent) -> None:
        evt.end_us = _now_us()
        if self.stack and self.stack[-1] is evt:
            self.stack.pop()
        elif evt in self.stack:
            self.stack.remove(evt)

    # ------------------------------------------------------------------ op hooks
    def _wrap(self, fn, name: str):
        rec = self

        @functools.wraps(fn)
        def timed(*args, **kwargs):
            evt = rec.begin(name, _shapes(args, kwargs) if rec.record_shapes else None)
            try:
                result = fn(*args, **kwargs)
            finally:
                rec.end(evt)
            if rec.profile_memory:  # fresh results, or what the nested calls allocated
                children = sum(c.cpu_memory_usage for c in evt.cpu_children)
                evt.cpu_memory_usage = max(_new_bytes(result, args), children)
            return result

        timed.__tensorlab_profiled__ = True
        return timed

    def _patch(self, owner, attr: str, fn, name: str) -> None:
        if getattr(fn, "__tensorlab_profiled__", False):
            return
        self.patched.append((owner, attr, fn))
        setattr(owner, attr, self._wrap(fn, "aten::" + name))

    def install(self) -> None:
        import tensorlab

        from .._tensor import Tensor

        for attr, fn in list(vars(Tensor).items()):
            if not isinstance(fn, types.FunctionType):
                continue
            if attr in _DUNDERS:
                self._patch(Tensor, attr, fn, _DUNDERS[attr])
            elif not attr.startswith("_") and attr not in _NOT_OPS:
                self._patch(Tensor, attr, fn, attr)
        modules = [tensorlab]
        functional = sys.modules.get("tensorlab.nn.functional")
        if functional is not None:
            modules.append(functional)
        for mod in modules:
            for attr, fn in list(vars(mod).items()):
                if (
                    isinstance(fn, types.FunctionType)
                    and not attr.startswith(("_", "get_", "set_", "is_"))
                    and attr not in _NOT_OPS
                    and (fn.__module__ or "").startswith("tensorlab")
                ):
                    self._patch(mod, attr, fn, attr)

    def uninstall(self) -> None:
        for owner, attr, fn in reversed(self.patched):
            setattr(owner, attr, fn)
        self.patched.clear()


class profile:
    """``profile(enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
    with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
    use_kineto=False, use_cpu=True, ...)``: a context manager that records the ops run inside
    it. After the block: ``function_events``, ``key_averages()``, ``table()``,
    ``self_cpu_time_total``, ``total_average()``, ``export_chrome_trace(path)``."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None,
                 record_shapes: bool = False, with_flops: bool = False,
                 profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config=None, acc_events: bool = False,
                 custom_trace_id_callback=None) -> None:  # fmt: skip
        self.enabled = enabled
        if not enabled:
            return
        if use_cuda or (use_device is not None and str(use_device) != "cpu"):
            raise AssertionError("Torch not compiled with CUDA enabled")
        self.use_device = None
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.entered = False
        self.function_events: EventList | None = None
        self._recorder: _Recorder | None = None

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def _start(self) -> None:
        global _active
        with _lock:
            if _active is not None:
                raise RuntimeError(
                    "Profiler is already enabled on this thread: nested profiles are not supported"
                )
            self._recorder = _Recorder(self.record_shapes, self.profile_memory)
            self._recorder.install()
            _active = self._recorder

    def _stop(self) -> None:
        global _active
        with _lock:
            rec = self._recorder
            if rec is None:
                return
            rec.uninstall()
            if _active is rec:
                _active = None
        events = sorted(rec.events, key=lambda e: (e.start_us, -e.end_us))
        self.function_events = EventList(events, profile_memory=self.profile_memory)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop()
        return False

    def _events(self) -> EventList:
        if self.function_events is None:
            return EventList(profile_memory=getattr(self, "profile_memory", False))
        return self.function_events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:  # fmt: skip
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header=None,
              top_level_events_only: bool = False, time_unit=None) -> str:  # fmt: skip
        return self._events().table(
            sort_by=sort_by, row_limit=row_limit, max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit,
        )  # fmt: skip

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    def export_chrome_trace(self, path: str) -> None:
        self._events().export_chrome_trace(path)

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def __str__(self) -> str:
        return self._events().table()

    def __repr__(self) -> str:
        return str(self)


class record_function:
    """``with record_function("name"):`` marks a block as one event of the active profile (and
    does nothing without one); also a decorator: ``@record_function("name")``."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._evt = None
        self._rec = None

    def __enter__(self):
        rec = _active
        if rec is not None:
            self._rec = rec
            self._evt = rec.begin(self.name, None, user=True)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self._rec is not None and self._evt is not None:
            self._rec.end(self._evt)
            self._evt.cpu_memory_usage = sum(c.cpu_memory_usage for c in self._evt.cpu_children)
        self._evt = self._rec = None
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)

        return inner
