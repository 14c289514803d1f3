# After PyTorch's "Autograd mechanics" notes, "Locally disabling gradient computation" (no_grad, enable_grad, set_grad_enabled, inference_mode, requires_grad_, eval mode is not no-grad).
import torch

x = torch.ones(2, 2, requires_grad=True)
with torch.no_grad():
    y = x * 2

y.requires_grad
with torch.no_grad():
    with torch.enable_grad():
        y = x * 2

y.requires_grad
is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2

y.requires_grad
torch.set_grad_enabled(True)
y = x * 2
y.requires_grad
torch.set_grad_enabled(False)
y = x * 2
y.requires_grad
torch.set_grad_enabled(True)


@torch.no_grad()
def doubler(x):
    return x * 2


z = doubler(x)
z.requires_grad
with torch.inference_mode():
    y = x * x

y.requires_grad, y.is_inference(), x.is_inference()
torch.is_inference_mode_enabled()


@torch.inference_mode()
def predict(x):
    return x.sum()


predict(x).requires_grad
with torch.inference_mode(mode=False):
    w = x * 3

w.requires_grad
torch.is_grad_enabled()
model = torch.nn.Linear(3, 1)
model.eval()
model(torch.ones(1, 3)).requires_grad
model.requires_grad_(False)
model(torch.ones(1, 3)).requires_grad
[p.requires_grad for p in model.parameters()]
a = torch.randn(3, requires_grad=True)
b = a.detach()
b.requires_grad, b.data_ptr() == a.data_ptr()
c = a.clone().detach().requires_grad_(True)
c.is_leaf, c.grad_fn
