"""``torch.autograd.Variable`` (the deprecated wrapper) and the profilers
(``torch.autograd.profiler``, ``torch.profiler``) against torch 2.13: Variable's results,
flags and errors; the profiler runs code unchanged and prints torch's table layout (columns,
separators, rows per op, the total line), never checking the timings themselves."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from helpers import raises_same

import tensorlab as tl


# ---------------------------------------------------------------------------- Variable
def _lib_variable(lib):
    return lib.autograd.Variable


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((), {}),
        (("T",), {}),
        (("T",), {"requires_grad": True}),
        (("T", True), {}),
        (("T", False), {}),
        (("T",), {"requires_grad": 1}),
        (("Y",), {}),
        (("Y",), {"requires_grad": True}),
        (("A",), {"requires_grad": False}),
        ((None,), {}),
        ((3,), {}),
        (([1.0, 2.0],), {}),
        (("L",), {"requires_grad": True}),
        (("L",), {}),
        (("T",), {"foo": 1}),
        (("T", 1, 2, 3, 4, 5), {}),
        (("T", True), {"requires_grad": True}),
        (("T",), {"requires_grad": 2.5}),
        (("T",), {"volatile": True, "requires_grad": True}),
        (("D",), {"requires_grad": True}),
    ],
)
def test_variable_matches_torch(torch, args, kwargs):
    def call(lib):
        a = lib.ones(2, requires_grad=True)
        named = {
            "T": lib.ones(2),
            "A": a,
            "Y": a * 2,
            "L": lib.ones(2, dtype=lib.int64),
            "D": lib.ones(3, dtype=lib.float64),
        }
        real = [named.get(x, x) if isinstance(x, str) else x for x in args]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = _lib_variable(lib)(*real, **kwargs)
        src = real[0] if real and real[0] is not None else None
        return (
            type(v).__name__,
            str(v.dtype).split(".")[-1],
            tuple(v.shape),
            v.requires_grad,
            v.is_leaf,
            v.grad_fn is None,
            v is src,
            v.detach().numpy().tolist(),
            None if src is None or not hasattr(src, "requires_grad") else src.requires_grad,
        )

    ours, theirs = raises_same(lambda: call(tl), lambda: call(torch))
    assert ours == theirs


def test_variable_shares_storage_and_is_an_isinstance_of_every_tensor(torch):
    for lib in (tl, torch):
        t = lib.zeros(3)
        v = lib.autograd.Variable(t)
        v[0] = 5
        assert t[0].item() == 5.0
        assert isinstance(t, lib.autograd.Variable)
        assert isinstance(lib.nn.Parameter(lib.ones(1)), lib.autograd.Variable)
        assert not isinstance(3, lib.autograd.Variable)
        assert lib.autograd.Variable(t, name="x").name == "x"


def test_variable_volatile_warns_as_torch(torch):
    for lib in (tl, torch):
        with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
            v = lib.autograd.Variable(lib.ones(1), volatile=True)
        assert not v.requires_grad


def test_variable_in_an_old_training_loop(torch):
    """The 2017 idiom: wrap data in Variable, train; the same losses as torch."""
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((8, 3)).astype(np.float32)
    y_np = rng.standard_normal((8, 1)).astype(np.float32)
    losses = {}
    for lib in (torch, tl):
        V = lib.autograd.Variable
        x, y = V(lib.from_numpy(x_np)), V(lib.from_numpy(y_np), requires_grad=False)
        w = V(lib.from_numpy(np.full((3, 1), 0.1, np.float32)), requires_grad=True)
        out = []
        for _ in range(5):
            loss = ((x.mm(w) - y) ** 2).mean()
            loss.backward()
            w.data -= 0.1 * w.grad.data
            w.grad.data.zero_()
            out.append(loss.item())
        losses[lib.__name__] = out
    np.testing.assert_allclose(losses["tensorlab"], losses["torch"], rtol=1e-5)


# ---------------------------------------------------------------------------- profiler
ROW = re.compile(
    r"^ *(\S.*?)  +(\d+\.\d\d%|NaN)  +(\S+)  +(\d+\.\d\d%|NaN)  +(\S+)  +(\S+)  +(\d+)  $"
)
TIME = re.compile(r"^\d+\.\d{3}(us|ms|s)$")


def _workload(lib, profiler):
    x = lib.from_numpy(np.arange(16, dtype=np.float32).reshape(4, 4))
    with profiler.record_function("my_block"):
        y = x @ x
        z = lib.relu(y - 100).sum()
    w = (x + 1).mean()
    return z.item(), w.item()


@pytest.mark.parametrize("sort_by", [None, "cpu_time_total", "self_cpu_time_total", "count"])
def test_profile_table_layout_like_torch(torch, sort_by):
    tables = {}
    for lib in (torch, tl):
        with lib.autograd.profiler.profile() as prof:
            result = _workload(lib, lib.autograd.profiler)
        assert result == _workload(lib, lib.autograd.profiler)  # the code ran unchanged
        tables[lib.__name__] = prof.key_averages().table(sort_by=sort_by)
        short = prof.key_averages().table(sort_by=sort_by, row_limit=2).splitlines()
        assert len(short) == 3 + 2 + 2
    for text in tables.values():
        lines = text.splitlines()
        sep = lines[0]
        assert re.fullmatch(r"(-+  )+", sep)
        assert lines[2] == sep and lines[-2] == sep
        widths = [len(c) for c in sep.split("  ")[:-1]]
        assert widths[1:] == [12] * 6
        heads = [h.strip() for h in re.split(r"  +", lines[1].strip())]
        assert heads == [
            "Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
            "# of Calls",
        ]  # fmt: skip
        rows = lines[3:-2]
        names = []
        for row in rows:
            m = ROW.match(row)
            assert m, row
            assert all(TIME.match(m.group(i)) for i in (3, 5, 6)), row
            assert len(row) == len(sep)
            names.append(m.group(1))
        assert "my_block" in names
        assert {"aten::matmul", "aten::relu", "aten::sum", "aten::add", "aten::mean"} <= set(names)
        assert re.fullmatch(r"Self CPU time total: \d+\.\d{3}(us|ms|s)", lines[-1])
        # the name column is as wide as the longest name + 4 (at most 55)
        assert widths[0] == min(max(len(n) for n in names) + 4, 55)


def test_profile_counts_and_nesting():
    from tensorlab.autograd import profiler

    x = tl.ones(3, 3)
    with profiler.profile() as prof:
        for _ in range(3):
            x = x * 2
        with profiler.record_function("block"):
            y = tl.nn.functional.relu(x) + 1
    avg = {e.key: e for e in prof.key_averages()}
    assert avg["aten::mul"].count == 3
    assert avg["block"].count == 1
    block = next(e for e in prof.function_events if e.name == "block")
    children = {c.name for c in block.cpu_children}
    assert {"aten::relu", "aten::add"} <= children
    assert block.cpu_time_total >= sum(c.cpu_time_total for c in block.cpu_children)
    assert (
        abs(prof.self_cpu_time_total - sum(e.self_cpu_time_total for e in prof.function_events))
        < 1e-6
    )
    assert y.tolist() == [[9.0] * 3] * 3


def test_profile_leaves_the_library_as_it_was():
    from tensorlab.autograd import profiler

    before = (tl.Tensor.__add__, tl.Tensor.sum, tl.relu)
    with pytest.raises(ValueError):
        with profiler.profile():
            tl.ones(2) + 1
            raise ValueError("inside")
    assert (tl.Tensor.__add__, tl.Tensor.sum, tl.relu) == before
    with profiler.profile(enabled=False):
        tl.ones(2).sum()
    assert tl.Tensor.sum is before[1]
    with profiler.record_function("outside a profile"):  # a no-op
        assert (tl.ones(2) * 3).sum().item() == 6


def test_profile_shapes_memory_and_str(torch, tmp_path):
    for lib in (torch, tl):
        x = lib.ones(4, 4)
        with lib.autograd.profiler.profile(record_shapes=True, profile_memory=True) as prof:
            x + x
        text = prof.key_averages(group_by_input_shape=True).table()
        head = [h.strip() for h in re.split(r"  +", text.splitlines()[1].strip())]
        assert head[-4:] == ["CPU Mem", "Self CPU Mem", "# of Calls", "Input Shapes"], lib
        add = [ln for ln in text.splitlines() if "aten::add" in ln][0]
        assert "64 B" in add and "[[4, 4], [4, 4]" in add
        assert str(prof).splitlines()[1] == text.splitlines()[1]
        path = tmp_path / f"{lib.__name__}.json"
        prof.export_chrome_trace(str(path))
        assert any(e["name"] == "aten::add" for e in json.loads(path.read_text())["traceEvents"])


def test_empty_profile_and_decorator(torch):
    for lib in (torch, tl):
        with lib.autograd.profiler.profile() as prof:
            pass
        assert prof.key_averages().table() == ""

    @tl.autograd.profiler.record_function("step")
    def step(x):
        return x * 2

    one = tl.ones(1)
    with tl.autograd.profiler.profile() as prof:
        assert step(one).item() == 2
    assert [e.name for e in prof.function_events] == ["step", "aten::mul"]


def test_torch_profiler_api(torch):
    from tensorlab.profiler import (
        ProfilerAction,
        ProfilerActivity,
        profile,
        record_function,
        schedule,
    )

    assert tl.profiler.ProfilerActivity.CPU is ProfilerActivity.CPU
    assert [a.name for a in ProfilerActivity] == [
        a for a in torch.profiler.ProfilerActivity.__members__
    ]
    for kw in (
        {"wait": 1, "warmup": 1, "active": 2},
        {"wait": 0, "warmup": 2, "active": 1, "repeat": 2, "skip_first": 3},
    ):
        ours, theirs = schedule(**kw), torch.profiler.schedule(**kw)
        assert [ours(i).name for i in range(15)] == [theirs(i).name for i in range(15)]
    raises_same(
        lambda: schedule(wait=0, warmup=1, active=0),
        lambda: torch.profiler.schedule(wait=0, warmup=1, active=0),
    )
    assert (
        ProfilerAction.RECORD_AND_SAVE.value == torch.profiler.ProfilerAction.RECORD_AND_SAVE.value
    )

    m = tl.nn.Linear(4, 2)
    x = tl.ones(3, 4)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            out = m(x)
    assert out.shape == (3, 2)
    names = [e.key for e in prof.key_averages()]
    assert names[:2] == ["model_inference", "aten::linear"]
    assert "Input Shapes" in prof.key_averages(group_by_input_shape=True).table()

    # a schedule: only the active steps are recorded, saved at the end of each cycle
    counts = []
    sched = schedule(wait=1, warmup=1, active=2, repeat=1)
    with profile(schedule=sched, on_trace_ready=lambda p: counts.append(
            sum(e.key == "aten::linear" for e in p.events()))) as p:  # fmt: skip
        for _ in range(6):
            m(x)
            p.step()
    assert counts == [2]
