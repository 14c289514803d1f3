# After "Learning PyTorch with Examples" (PyTorch: nn and the optim package), fewer steps.
import torch
import math

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
xx.shape
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.randn(1, 3) * 0.1)
    model[0].bias.zero_()
loss_fn = torch.nn.MSELoss(reduction="sum")
learning_rate = 1e-6
for t in range(50):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 10 == 9:
        print(t, round(loss.item(), 2))
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
linear_layer.weight.shape, linear_layer.bias.shape
