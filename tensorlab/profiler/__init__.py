"""``tensorlab.profiler``: torch's newer profiler API over :mod:`tensorlab.autograd.profiler`.

``profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=2),
on_trace_ready=..., record_shapes=..., profile_memory=...)`` records the ops of the steps its
schedule makes active (``prof.step()`` ends a step); ``key_averages().table()`` prints torch's
table. Only the CPU is profiled. ``tensorboard_trace_handler`` writes Chrome traces.
"""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings

from ..autograd.profiler import EventList, record_function
from ..autograd.profiler import profile as _legacy_profile

__all__ = [
    "ProfilerAction",
    "ProfilerActivity",
    "kineto_available",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<ProfilerActivity.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"ProfilerActivity.{self.name}"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


def kineto_available() -> bool:
    return False


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):  # fmt: skip
    """torch's schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle, ``warmup``
    and ``active`` recorded steps (the last one saves), ``repeat`` times (0: for ever)."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0)."
        )
    if warmup == 0:
        warnings.warn(
            "Profiler won't be using warmup, this can skew profiler results", stacklevel=2
        )
    return schedule_fn


def _always_record(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False):  # fmt: skip
    """An ``on_trace_ready`` that writes ``<worker>.<time>.pt.trace.json`` into ``dir_name``."""

    def handler_fn(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        prof.export_chrome_trace(os.path.join(dir_name, name))

    return handler_fn


class profile:
    """``profile(*, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
    profile_memory=False, with_stack=False, with_flops=False, with_modules=False, ...)``."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None) -> None:  # fmt: skip
        acts = set(activities) if activities else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        if acts - supported_activities():
            warnings.warn(
                "tensorlab profiles the CPU only; other activities are ignored", stacklevel=2
            )
        self.activities = acts
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.profiler: _legacy_profile | None = None
        self._events: list = []
        self._recording = False

    # ------------------------------------------------------------------ recording
    def _records(self, action) -> bool:
        return action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)

    def _begin(self) -> None:
        if not self._recording:
            self.profiler = _legacy_profile(
                record_shapes=self.record_shapes, profile_memory=self.profile_memory
            )
            self.profiler.__enter__()
            self._recording = True

    def _end(self) -> None:
        if self._recording:
            self.profiler.__exit__(None, None, None)
            self._events.extend(self.profiler.function_events)
            self._recording = False

    def _save(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)
        self._events = []

    def start(self) -> None:
        if self._records(self.current_action):
            self._begin()

    def stop(self) -> None:
        self._end()
        if self._records(self.current_action) and self.on_trace_ready is not None:
            self._save()

    def step(self) -> None:
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._records(prev) and (
            prev == ProfilerAction.RECORD_AND_SAVE or not self._records(self.current_action)
        ):
            self._end()
            if prev == ProfilerAction.RECORD_AND_SAVE:
                self._save()
        if self._records(self.current_action):
            self._begin()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    # ------------------------------------------------------------------ results
    def events(self) -> EventList:
        events = list(self._events)
        if self._recording and self.profiler.function_events is not None:
            events += list(self.profiler.function_events)
        return EventList(events, profile_memory=self.profile_memory)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:  # fmt: skip
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        self.events().export_chrome_trace(path)
