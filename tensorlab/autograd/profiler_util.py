"""The profiler's events and tables (``torch/autograd/profiler_util.py``): ``FunctionEvent``,
``FunctionEventAvg``, ``EventList`` with ``key_averages()`` and ``table()`` in torch's column
layout (Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg, [CPU Mem, Self CPU Mem],
# of Calls, [Input Shapes]). Times are microseconds, as torch's."""

from __future__ import annotations

import json

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_time_us: float) -> str:
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes: int) -> str:
    kb, mb, gb = 1024, 1024**2, 1024**3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


class _TimeStrings:
    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    # no device: the device columns are never shown
    self_device_time_total = 0.0
    device_time_total = 0.0
    self_device_memory_usage = 0
    device_memory_usage = 0
    is_async = False
    node_id = -1
    overload_name = ""
    flops = 0
    use_device = None


class FunctionEvent(_TimeStrings):
    """One recorded call: an op (``aten::add``) or a ``record_function`` block, with its time
    range in microseconds, its parent and children (nested calls)."""

    def __init__(self, id, name, thread, start_us, end_us=None, input_shapes=None, user=False):
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us if end_us is not None else start_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.is_user_annotation = user
        self.count = 1
        self.cpu_memory_usage = 0
        self.stack: list[str] = []

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
            f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} input_shapes={self.input_shapes}>"
        )


class FunctionEventAvg(_TimeStrings):
    """The events of one key (and, with ``group_by_input_shape``, one list of input shapes)
    added up: ``count``, ``cpu_time_total``, ``self_cpu_time_total``, ``cpu_time`` (average)."""

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.input_shapes = None
        self.cpu_parent = None
        self.is_user_annotation = False
        self.stack: list[str] = []

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            self.input_shapes = other.input_shapes
            self.cpu_parent = other.cpu_parent
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    __iadd__ = add

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes}>"
        )


class EventList(list):
    """A list of events with ``key_averages()``, ``table()``, ``total_average()`` and
    ``export_chrome_trace()``."""

    def __init__(self, *args, profile_memory: bool = False, use_device=None, **kwargs):
        super().__init__(*args)
        self._profile_memory = profile_memory
        self._use_device = use_device

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:  # fmt: skip
        groups: dict = {}
        for evt in self:
            key = (evt.key, str(evt.input_shapes)) if group_by_input_shape else evt.key
            groups.setdefault(key, FunctionEventAvg()).add(evt)
        out = EventList(groups.values(), profile_memory=self._profile_memory)
        if not group_by_input_shape:
            for avg in out:
                avg.input_shapes = None
        return out

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header=None,
              top_level_events_only: bool = False, time_unit=None) -> str:  # fmt: skip
        return _build_table(
            self, sort_by=sort_by, header=header, row_limit=row_limit,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width,
            profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
            time_unit=time_unit,
        )  # fmt: skip

    def export_chrome_trace(self, path: str) -> None:
        """Write the events in Chrome's trace format (open in chrome://tracing or Perfetto)."""
        events = [
            {"name": e.name, "ph": "X", "ts": e.start_us, "dur": e.cpu_time_total,
             "tid": e.thread, "pid": "CPU functions", "args": {}}
            for e in self if isinstance(e, FunctionEvent)
        ]  # fmt: skip
        with open(path, "w") as f:
            json.dump({"traceEvents": events}, f)

    def __str__(self) -> str:
        return self.table()


def _sort_key(name: str) -> str:
    return name.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")


def _build_table(events, sort_by=None, header=None, row_limit=100, max_name_column_width=55,
                 max_shapes_column_width=80, profile_memory=False, top_level_events_only=False,
                 time_unit=None) -> str:  # fmt: skip
    """torch's ``_build_table`` for CPU events (no device, stack or FLOPs columns)."""
    if len(events) == 0:
        return ""
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, _sort_key(sort_by)), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    spacing = 2
    fmt, sep, line_length = "", "", -spacing

    def add_column(padding, text_dir=">"):
        nonlocal fmt, sep, line_length
        fmt += "{: " + text_dir + str(padding) + "}" + " " * spacing
        sep += "-" * padding + " " * spacing
        line_length += padding + spacing

    add_column(name_w)
    for _ in headers[1:]:
        add_column(12)
    if has_input_shapes:
        headers.append("Input Shapes")
        add_column(shapes_w)

    def unit(time_us, default):
        if time_unit == "s":
            return f"{time_us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{time_us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{time_us:.3f}us"
        return default

    result: list[str] = []

    def append(s):
        result.append(s)
        result.append("\n")

    total = sum(e.self_cpu_time_total for e in events)
    if header is not None:
        append("=" * line_length)
        append(header)
    if top_level_events_only:
        append("=" * line_length)
        append("This report only display top-level ops statistics")
    append(sep)
    append(fmt.format(*headers))
    append(sep)
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        row = [
            name,
            _format_time_share(e.self_cpu_time_total, total),
            unit(e.self_cpu_time_total, e.self_cpu_time_total_str),
            _format_time_share(e.cpu_time_total, total),
            unit(e.cpu_time_total, e.cpu_time_total_str),
            unit(e.cpu_time, e.cpu_time_str),
        ]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        append(fmt.format(*row))
    append(sep)
    append(f"Self CPU time total: {unit(total, _format_time(total))}")
    return "".join(result)
