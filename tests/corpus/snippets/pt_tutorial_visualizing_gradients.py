# After pytorch/tutorials intermediate "Visualizing Gradients" (retain_grad on intermediates, tensor hooks, module backward hooks collecting gradient norms).
import torch
import torch.nn as nn

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = a * 4
c = b ** 2
b.retain_grad()
c.retain_grad()
loss = c.sum()
loss.backward()
a.grad, b.grad, c.grad
b.is_leaf, b.retains_grad, c.grad_fn.name()
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
seen = []
h = x.register_hook(lambda grad: seen.append(grad.clone()))
y = (x * x).sum()
y.backward()
seen
h.remove()
x.grad = None
x2 = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
x2.register_hook(lambda grad: grad * 2)
(x2 * 3).sum().backward()
x2.grad


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(8, 16), nn.Sigmoid(),
            nn.Linear(16, 16), nn.Sigmoid(),
            nn.Linear(16, 2))

    def forward(self, x):
        return self.layers(x)


torch.manual_seed(0)
model = Net()
grads = {}


def save_grad_norm(name):
    def hook(module, grad_input, grad_output):
        grads[name] = grad_output[0].norm().item()
    return hook


handles = [layer.register_full_backward_hook(save_grad_norm(f"layers.{i}")) for i, layer in enumerate(model.layers)]
x = torch.randn(4, 8)
out = model(x)
loss = nn.functional.cross_entropy(out, torch.tensor([0, 1, 1, 0]))
loss.backward()
{k: round(v, 6) for k, v in sorted(grads.items())}
for h in handles:
    h.remove()

intermediate = []
hook = model.layers[1].register_forward_hook(lambda m, i, o: o.retain_grad() or intermediate.append(o))
model.zero_grad()
nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 1, 0])).backward()
intermediate[0].grad.shape
round(intermediate[0].grad.abs().mean().item(), 8)
hook.remove()
[(n, round(p.grad.norm().item(), 6)) for n, p in model.named_parameters() if "weight" in n]
