# After the PyTorch tutorial "Hooks for autograd saved tensors": what a node saves (_saved_self,
# _saved_result), pack/unpack hooks on one saved tensor and for a whole block, counting and
# offloading saved tensors (save_on_cpu, a file per tensor), and the errors learners meet.
import os
import tempfile
import uuid

import torch
from torch.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks

a = torch.randn(5, requires_grad=True)
b = torch.ones(5, requires_grad=True)


def f(x, y):
    return x.pow(2) + y


y = f(a, b)
print(y.grad_fn.name())
print(y.grad_fn.next_functions[0][0]._saved_self)
print(y.grad_fn.next_functions[0][0]._saved_exponent)
print(a.equal(y.grad_fn.next_functions[0][0]._saved_self))
print(a is y.grad_fn.next_functions[0][0]._saved_self)

x = torch.randn(5, requires_grad=True)
y = x.exp()
print(y.equal(y.grad_fn._saved_result))
print(y is y.grad_fn._saved_result)
print([name for name in dir(y.grad_fn) if name.startswith("_saved")])

y.sum().backward()
try:
    y.grad_fn._saved_result
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])

# hooks on one saved tensor
x = torch.randn(5, requires_grad=True)
y = x.pow(2)
y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 4, lambda t: t / 4)
y.sum().backward()
print(torch.allclose(x.grad, 2 * x))


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print(a.grad, b.grad)

# count what the forward pass saves
n_packed = 0


def counting_pack(t):
    global n_packed
    n_packed += 1
    return t.detach()


model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
inp = torch.randn(3, 4)
with saved_tensors_hooks(counting_pack, lambda t: t):
    out = model(inp).sum()
out.backward()
print("packed:", n_packed)
print(model[0].weight.grad.shape)

# offload to the CPU (a no-op copy here) or to files
with save_on_cpu(pin_memory=False):
    z = (torch.linspace(-1, 1, 6, requires_grad=True) ** 3).sum()
z.backward()

tmp_dir_obj = tempfile.TemporaryDirectory()
tmp_dir = tmp_dir_obj.name


def pack_to_disk(tensor):
    name = os.path.join(tmp_dir, str(uuid.uuid4()))
    torch.save(tensor, name)
    return name


def unpack_from_disk(name):
    return torch.load(name, weights_only=True)


w = torch.linspace(0.5, 2.0, 4, requires_grad=True)
with saved_tensors_hooks(pack_to_disk, unpack_from_disk):
    loss = (w.exp() * w).sum()
print(len(os.listdir(tmp_dir)))
loss.backward()
print(w.grad)
tmp_dir_obj.cleanup()

try:
    with disable_saved_tensors_hooks("saved tensors default hooks are disabled"):
        with save_on_cpu():
            pass
except RuntimeError as e:
    print(e)
