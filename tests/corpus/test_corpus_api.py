"""A corpus of teaching-code snippets about construction, devices, data loading, seeding and
hooks — written after PyTorch's "Learn the Basics" tutorials, the Tensor docs' examples and the
opening cells of d2l-style notebooks — run under torch and under tensorlab: printed output must
be identical (``torch.`` reads ``tensorlab.``). Only deterministic values are printed."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pytest

import tensorlab as tl

SNIPPETS = {
    "basics_tensor_from_data": """
data = [[1, 2], [3, 4]]
x_data = torch.tensor(data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \\n {x_ones} \\n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(x_rand.shape, x_rand.dtype)
print(x_np, x_data.dtype)
""",
    "basics_shapes": """
shape = (2, 3,)
rand_tensor = torch.rand(shape)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Ones Tensor: \\n {ones_tensor} \\n")
print(f"Zeros Tensor: \\n {zeros_tensor}")
print(rand_tensor.shape)
""",
    "basics_attributes": """
tensor = torch.rand(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
""",
    "basics_accelerator": """
if torch.accelerator.is_available():
    tensor = tensor.to(torch.accelerator.current_accelerator())
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
""",
    "device_cuda_mps_cpu": """
device = (
    "cuda"
    if torch.cuda.is_available()
    else "mps"
    if torch.backends.mps.is_available()
    else "cpu"
)
print(f"Using {device} device")
x = torch.ones(2, 2, device=device)
print(x.device, x.is_cuda, x.to(device).device == x.device)
""",
    "device_object": """
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
print(device, repr(device), device.type, device.index)
print(torch.device("cuda", 1), torch.device("cpu") == torch.device("cpu"))
x = torch.zeros(3).to(device)
print(x.cpu().numpy(), x.detach().cpu().numpy().dtype)
""",
    "device_cuda_fails": """
try:
    torch.randn(3).cuda()
except AssertionError as e:
    print("no GPU:", e)
try:
    torch.zeros(2, device="cuda")
except AssertionError as e:
    print("no GPU:", e)
print(torch.cuda.device_count())
""",
    "set_seed_helper": """
import random
def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
set_seed(42)
print(torch.initial_seed())
g = torch.Generator().manual_seed(2147483647)
print(g.initial_seed(), type(torch.manual_seed(0)).__name__)
torch.backends.cudnn.deterministic = False
""",
    "legacy_constructors": """
x = torch.Tensor(2, 3)
print(x.shape, x.dtype)
print(torch.Tensor([[1, 2], [3, 4]]))
print(torch.FloatTensor([[1, 2], [3, 4]]))
print(torch.LongTensor([1, 2, 3]), torch.IntTensor([1, 2]).dtype)
print(torch.ByteTensor([1, 0]), torch.BoolTensor([1, 0]))
y = torch.DoubleTensor([1.5])
print(y.type(), isinstance(y, torch.DoubleTensor), isinstance(y, torch.FloatTensor))
print(torch.Tensor(torch.Size([2])).shape, torch.Tensor())
""",
    "d2l_ndarray": """
x = torch.arange(12, dtype=torch.float32)
print(x, x.numel(), x.shape)
X = x.reshape(3, 4)
print(X)
print(torch.zeros((2, 3, 4)))
print(torch.ones((2, 3, 4)).shape)
print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))
A = X.numpy()
B = torch.from_numpy(A)
print(type(A).__name__, type(B).__name__)
a = torch.tensor([3.5])
print(a, a.item(), float(a), int(a))
""",
    "tensor_input_forms": """
print(torch.tensor(range(5)))
print(torch.tensor([range(3), range(3)]))
print(torch.tensor((1.5, 2)))
print(torch.tensor([torch.tensor(1.), torch.tensor(2.)]))
print(torch.tensor(np.float32(1.5)), torch.tensor([np.int16(3)]))
print(torch.tensor([[True, False]]), torch.tensor([]), torch.tensor([[], []]).shape)
print(torch.tensor([1, 2, 3], dtype=torch.float32, device="cpu", requires_grad=True))
try:
    torch.tensor([[1, 2, 3], [4, 5]])
except ValueError as e:
    print(e)
""",
    "new_methods": """
x = torch.tensor([[1., 2.]], dtype=torch.float64)
print(x.new_ones(2, 2))
print(x.new_zeros((2,)), x.new_full((2, 2), 7), x.new_empty(3).shape)
print(x.new_tensor([1, 2]))
print(torch.zeros(2, 3, dtype=torch.long).new_full((2, 2), 7))
""",
    "factory_keywords": """
print(torch.zeros(size=(2, 3)))
print(torch.ones(2, 2, dtype=torch.int32, device="cpu", requires_grad=False))
print(torch.full((2, 2), 3.14, dtype=torch.float64))
print(torch.arange(0, 10, 2, dtype=torch.float32))
print(torch.linspace(-1, 1, steps=5))
print(torch.eye(3, dtype=torch.int64))
out = torch.empty(0)
torch.zeros(2, 2, out=out)
print(out)
print(torch.zeros_like(torch.ones(2, 3).t()).stride())
""",
    "inplace_layout": """
x = torch.zeros(3)
x.unsqueeze_(0)
print(x.shape)
x.t_()
print(x.shape, x.stride())
y = torch.arange(6.)
y.resize_(2, 3)
print(y)
z = torch.ones(1, 2, 1)
z.squeeze_()
print(z.shape)
""",
    "register_hook_docs": """
v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()
""",
    "register_hook_intermediate": """
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x * 2
grads = []
y.register_hook(lambda g: grads.append(g))
z = (y ** 2).sum()
z.backward()
print(grads[0], x.grad)
""",
    "tensordataset_loader": """
from torch.utils.data import TensorDataset, DataLoader
X = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10) % 2
ds = TensorDataset(X, y)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4)
for i, (xb, yb) in enumerate(loader):
    print(i, xb.shape, yb)
print(len(loader), len(DataLoader(ds, batch_size=4, drop_last=True)))
""",
    "custom_dataset": """
from torch.utils.data import Dataset, DataLoader
class Squares(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, idx):
        return torch.tensor([float(idx)]), idx * idx
train_dataloader = DataLoader(Squares(10), batch_size=3, shuffle=False)
train_features, train_labels = next(iter(train_dataloader))
print(f"Feature batch shape: {train_features.size()}")
print(f"Labels batch shape: {train_labels.size()}")
print(train_labels)
""",
    "shuffle_reproducible": """
from torch.utils.data import TensorDataset, DataLoader
ds = TensorDataset(torch.arange(8))
g1 = torch.Generator().manual_seed(0)
g2 = torch.Generator().manual_seed(0)
a = [b[0].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=g1)]
b = [b[0].tolist() for b in DataLoader(ds, batch_size=3, shuffle=True, generator=g2)]
print(a == b, sorted(sum(a, [])), [len(x) for x in a])
""",
    "random_split": """
from torch.utils.data import random_split, TensorDataset
ds = TensorDataset(torch.arange(100))
train, val = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
print(len(train), len(val))
a, b, c = random_split(range(10), [3, 3, 4])
print(len(a), len(b), len(c), sorted(list(a) + list(b) + list(c)))
""",
    "collate_dicts": """
from torch.utils.data import DataLoader
samples = [{"x": torch.ones(2) * i, "label": i, "name": f"s{i}"} for i in range(5)]
for batch in DataLoader(samples, batch_size=2):
    print(batch["x"], batch["label"], batch["name"])
""",
    "type_names": """
x = torch.ones(2)
print(type(x), isinstance(x, torch.Tensor), torch.is_tensor(x))
print(x.shape, type(x.shape).__name__, x.dtype, x.layout)
""",
    "num_workers_loader": """
from torch.utils.data import DataLoader, TensorDataset
ds = TensorDataset(torch.arange(6.).reshape(6, 1))
loader = DataLoader(ds, batch_size=2, shuffle=False, num_workers=0, pin_memory=False)
print([xb.flatten().tolist() for (xb,) in loader])
""",
}


def run(lib, code: str) -> str:
    out = io.StringIO()
    env = {"torch": lib, "np": np, "tensor": lib.rand(3, 4)}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(code, env)  # noqa: S102 (test corpus)
        except Exception as e:  # noqa: BLE001
            print(f"{type(e).__name__}: {e}")
    return out.getvalue()


@pytest.fixture(scope="module")
def torch_as_module(torch):
    import sys

    import torch.utils.data  # noqa: F401

    # "from torch.utils.data import ..." inside a snippet must find the library under test
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    yield torch, saved


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_prints_the_same(torch_as_module, name):
    import sys

    torch, saved = torch_as_module
    code = SNIPPETS[name]
    theirs = run(torch, code)
    aliases = {
        "torch": tl,
        "torch.utils": tl.utils,
        "torch.utils.data": tl.utils.data,
    }
    try:
        sys.modules.update(aliases)
        ours = run(tl, code)
    finally:
        sys.modules.update(saved)
    assert ours == theirs.replace("torch.", "tensorlab."), (ours, theirs)
