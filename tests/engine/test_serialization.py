"""``save``/``load`` in PyTorch's zip format, both ways: a file from tensorlab loads in real torch
and a file from torch loads in tensorlab, with the same values, dtypes, shapes, strides, storage
offsets and shared storages; ``weights_only`` refuses what torch refuses."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
from helpers import assert_same
from hypothesis import given, settings
from hypothesis import strategies as st
from strided_inputs import tensors

import tensorlab as tl

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def _through(save, load, obj, **load_kwargs):
    buf = io.BytesIO()
    save(obj, buf)
    buf.seek(0)
    return load(buf, **load_kwargs)


def _same_storage(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@settings(max_examples=60)
@given(data=st.data())
def test_a_strided_tensor_crosses_both_ways_with_its_layout(torch, data):
    spec = data.draw(tensors(dtype=data.draw(st.sampled_from(DTYPES))))
    ours, _ = spec.build(tl)
    theirs, _ = spec.build(torch)
    # tensorlab -> torch, and torch -> tensorlab: the file's reader gives the writer's layout
    assert_same(_through(torch.save, tl.load, theirs), theirs)
    assert_same(_through(tl.save, tl.load, ours), theirs)
    back = _through(tl.save, torch.load, ours)
    assert_same(ours, back)
    assert back.untyped_storage().nbytes() == theirs.untyped_storage().nbytes()


def test_views_of_one_storage_stay_views_of_one_storage(torch):
    x = tl.arange(24.0).view(2, 3, 4)
    views = {"x": x, "t": x.transpose(0, 2), "s": x[1, 1:, ::2], "e": x[0, 0].expand(3, 4)}
    other = tl.arange(3)
    theirs = _through(tl.save, torch.load, {**views, "other": other})
    assert all(_same_storage(theirs["x"], theirs[k]) for k in views)
    assert not _same_storage(theirs["x"], theirs["other"])
    theirs["x"][0, 0, 0] = 100  # they alias in torch as they did here
    assert theirs["t"][0, 0, 0].item() == 100
    ours = _through(torch.save, tl.load, theirs)
    for k in views:
        assert_same(ours[k], theirs[k])
        assert _same_storage(ours["x"], ours[k])
    ours["x"][1, 2, 2] = -1
    assert ours["s"][1, 1].item() == -1 and ours["t"][2, 2, 1].item() == -1


def test_a_state_dict_loads_into_the_other_librarys_layer(torch):
    tl.manual_seed(0)
    mine = tl.nn.Conv2d(2, 4, 3)
    buf = io.BytesIO()
    tl.save(mine.state_dict(), buf)
    buf.seek(0)
    layer = torch.nn.Conv2d(2, 4, 3)
    assert str(layer.load_state_dict(torch.load(buf))) == "<All keys matched successfully>"
    for name, p in mine.named_parameters():
        assert_same(p.detach(), getattr(layer, name).detach())

    torch.manual_seed(1)
    real = torch.nn.Linear(5, 3)
    loaded = _through(torch.save, tl.load, real.state_dict())
    assert isinstance(loaded, OrderedDict) and list(loaded) == ["weight", "bias"]
    lin = tl.nn.Linear(5, 3)
    lin.load_state_dict(loaded)
    assert_same(lin.weight.detach(), real.weight.detach())
    assert_same(lin.bias.detach(), real.bias.detach())


def test_parameters_and_requires_grad_survive(torch):
    p = tl.nn.Parameter(tl.ones(2, 3))
    frozen = tl.nn.Parameter(tl.zeros(2), requires_grad=False)
    leaf = tl.ones(3, requires_grad=True)
    theirs = _through(tl.save, torch.load, [p, frozen, leaf])
    assert type(theirs[0]) is torch.nn.Parameter and theirs[0].requires_grad
    assert type(theirs[1]) is torch.nn.Parameter and not theirs[1].requires_grad
    assert type(theirs[2]) is torch.Tensor and theirs[2].requires_grad
    ours = _through(torch.save, tl.load, theirs)
    assert type(ours[0]) is tl.nn.Parameter and ours[0].requires_grad
    assert type(ours[1]) is tl.nn.Parameter and not ours[1].requires_grad
    assert type(ours[2]) is tl.Tensor and ours[2].requires_grad and ours[2].is_leaf


def test_containers_and_plain_data(torch):
    plain = [1, 2.5, "s", (3, 4), {5, 6}, 3 + 4j, b"xy", bytearray(b"z"), None, True]
    obj = {"plain": plain, "size": tl.Size([2, 3]), "dtype": tl.float16, "dev": tl.device("cpu")}
    theirs = _through(tl.save, torch.load, obj)
    assert theirs["plain"] == plain
    assert theirs["size"] == torch.Size([2, 3]) and isinstance(theirs["size"], torch.Size)
    assert theirs["dtype"] is torch.float16 and theirs["dev"] == torch.device("cpu")
    ours = _through(torch.save, tl.load, theirs)
    assert ours["plain"] == plain and isinstance(ours["size"], tl.Size)
    assert ours["dtype"] is tl.float16 and ours["dev"] == tl.device("cpu")


def test_the_file_is_torchs_layout_and_aligned_for_mmap(torch, tmp_path):
    path = tmp_path / "weights.pt"
    tl.save({"w": tl.arange(10.0), "b": tl.ones(3, dtype=tl.int64)}, path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert all(n.startswith("weights/") for n in names)  # the stem, as torch names it
        assert {"weights/data.pkl", "weights/byteorder", "weights/version"} <= set(names)
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            if info.filename.startswith("weights/data/"):
                start = info.header_offset + 30 + len(info.filename) + len(info.extra)
                assert start % 64 == 0, info.filename
    torch_path = tmp_path / "torch.pt"
    torch.save({"w": torch.arange(10.0), "b": torch.ones(3, dtype=torch.int64)}, torch_path)
    with zipfile.ZipFile(torch_path) as z:
        theirs_names = sorted(n.replace("torch/", "") for n in z.namelist())
    assert sorted(n.replace("weights/", "") for n in names) == theirs_names
    mapped = torch.load(path, mmap=True)
    assert mapped["w"].tolist() == list(range(10))


def test_weights_only_refuses_other_globals_as_torch_does(torch):
    class Opaque:
        pass

    globals()["Opaque"] = Opaque  # picklable by name
    Opaque.__qualname__ = "Opaque"
    try:
        buf = io.BytesIO()
        torch.save({"x": Opaque()}, buf)
        for load in (tl.load, torch.load):
            buf.seek(0)
            with pytest.raises(pickle.UnpicklingError) as err:
                load(buf)
            assert str(err.value).startswith("Weights only load failed.")
            assert f"GLOBAL {__name__}.Opaque was not an allowed global" in str(err.value)
        buf.seek(0)
        assert isinstance(tl.load(buf, weights_only=False)["x"], Opaque)
    finally:
        del globals()["Opaque"]


def test_a_whole_torch_module_loads_as_tensorlabs_with_weights_only_false(torch):
    torch.manual_seed(0)
    real = torch.nn.Linear(4, 2)
    buf = io.BytesIO()
    torch.save(real, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        tl.load(buf)
    buf.seek(0)
    ours = tl.load(buf, weights_only=False)
    assert isinstance(ours, tl.nn.Linear)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    assert_same(ours.weight.detach(), real.weight.detach())
    got = ours(tl.from_numpy(x)).detach()  # the forward too (matmul's last bits follow the BLAS)
    assert_same(got, real(torch.from_numpy(x)).detach(), exact=False)


def test_errors_are_clear(torch, tmp_path):
    x = tl.arange(4, dtype=tl.int32)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        tl.save([x, x.view(tl.float32)], io.BytesIO())
    a = torch.arange(4, dtype=torch.int32)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        torch.save([a, a.view(torch.float32)], io.BytesIO())
    with pytest.raises(RuntimeError, match="not a zip archive"):
        tl.load(io.BytesIO(b"not a checkpoint"))
    with pytest.raises(FileNotFoundError):
        tl.load(tmp_path / "missing.pt")
    buf = io.BytesIO()
    torch.save(torch.ones(2, dtype=torch.bfloat16), buf)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="no bfloat16 dtype"):
        tl.load(buf)
    with pytest.raises(RuntimeError, match="CUDA"):
        tl.load(io.BytesIO(), map_location="cuda:0")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        tl.save(x, io.BytesIO(), bogus=1)
    with pytest.raises(AttributeError, match="no attribute 'write'"):
        tl.save(x, 42)


def test_a_result_that_requires_grad_is_saved_as_a_leaf_as_torch_saves_it(torch):
    ours = tl.ones(2, requires_grad=True) * 2
    theirs = torch.ones(2, requires_grad=True) * 2
    for back in (_through(tl.save, torch.load, ours), _through(torch.save, torch.load, theirs)):
        assert back.requires_grad and back.is_leaf and back.tolist() == [2.0, 2.0]
