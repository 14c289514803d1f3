# After Raschka's machine-learning-book ch. 12-13 and the torch.optim docs: one model, many optimizers.
import torch
from torch import nn, optim

X = torch.randn(64, 3)
y = X @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
results = {}
for name, make in [
    ("SGD", lambda p: optim.SGD(p, lr=0.05, momentum=0.9)),
    ("RMSprop", lambda p: optim.RMSprop(p, lr=0.01)),
    ("Adagrad", lambda p: optim.Adagrad(p, lr=0.5)),
    ("Adamax", lambda p: optim.Adamax(p, lr=0.05)),
    ("NAdam", lambda p: optim.NAdam(p, lr=0.05)),
    ("RAdam", lambda p: optim.RAdam(p, lr=0.05)),
    ("ASGD", lambda p: optim.ASGD(p, lr=0.05)),
    ("Rprop", lambda p: optim.Rprop(p, lr=0.01)),
    ("Adafactor", lambda p: optim.Adafactor(p, lr=0.05)),
]:
    weight = torch.full((3, 1), 0.1, requires_grad=True)
    bias = torch.zeros(1, requires_grad=True)
    opt = make([weight, bias])
    for _ in range(25):
        opt.zero_grad()
        loss = nn.functional.mse_loss(X @ weight + bias, y)
        loss.backward()
        opt.step()
    results[name] = round(loss.item(), 3)
    print(name, opt.__class__.__name__, sorted(opt.state_dict()["state"][0].keys()))
results
w = torch.tensor([0.0, 0.0], requires_grad=True)
lbfgs = optim.LBFGS([w], lr=1, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = (w[0] - 3) ** 2 + 2 * (w[1] + 1) ** 2
    loss.backward()
    return loss


for _ in range(3):
    lbfgs.step(closure)
w.detach()
