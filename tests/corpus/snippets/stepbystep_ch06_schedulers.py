# After dvgodoy's Deep Learning with PyTorch Step-by-Step, ch. 6 (EWMA by hand, Adam's state, SGD flavours, StepLR/ReduceLROnPlateau/CyclicLR stepping).
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.optim.lr_scheduler import CyclicLR, LambdaLR, ReduceLROnPlateau, StepLR


def ma_vs_ewma(values, periods=19):
    alpha = 2 / (periods + 1)
    ewma = [values[0]]
    for v in values[1:]:
        ewma.append(alpha * v + (1 - alpha) * ewma[-1])
    return ewma


temperatures = [5., 11., 15., 6., 5., 3., 3., 0., 0., 3., 4., 2., 1.]
[round(v, 3) for v in ma_vs_ewma(temperatures)][-3:]
torch.manual_seed(42)
model = nn.Sequential()
model.add_module('linear', nn.Linear(1, 1))
optimizer = optim.Adam(model.parameters(), lr=0.1)
x = torch.rand(32, 1)
y = 1 + 2 * x
loss_fn = nn.MSELoss()
for _ in range(3):
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

optimizer.state_dict()
optimizer.state[model.linear.weight]['exp_avg']
dummy_parm = [nn.Parameter(torch.randn(1))]
dummy_optimizer = optim.SGD(dummy_parm, lr=0.01)
dummy_scheduler = LambdaLR(dummy_optimizer, lr_lambda=lambda epoch: 0.1 ** (epoch // 2))
for epoch in range(4):
    dummy_optimizer.step()
    dummy_scheduler.step()
    print(epoch, dummy_scheduler.get_last_lr())

dummy_optimizer = optim.SGD(dummy_parm, lr=0.01)
dummy_scheduler = StepLR(dummy_optimizer, step_size=2, gamma=0.1)
for epoch in range(4):
    dummy_optimizer.step()
    dummy_scheduler.step()
    print(epoch, dummy_scheduler.get_last_lr())

dummy_scheduler.state_dict()
dummy_optimizer = optim.SGD(dummy_parm, lr=0.01, momentum=0.9, nesterov=True)
dummy_scheduler = ReduceLROnPlateau(dummy_optimizer, patience=4, factor=0.1)
for epoch in range(12):
    dummy_optimizer.step()
    dummy_scheduler.step(1.0)

dummy_optimizer.param_groups[0]['lr']
dummy_scheduler.get_last_lr()
dummy_optimizer = optim.SGD(dummy_parm, lr=0.01)
dummy_scheduler = CyclicLR(dummy_optimizer, base_lr=1e-4, max_lr=1e-3, step_size_up=2, mode='triangular')
lrs = []
for epoch in range(8):
    dummy_optimizer.step()
    dummy_scheduler.step()
    lrs.append(dummy_scheduler.get_last_lr()[0])

np.round(lrs, 6).tolist()
dummy_optimizer.param_groups[0]['momentum']
dummy_scheduler = CyclicLR(dummy_optimizer, base_lr=1e-4, max_lr=1e-3, step_size_up=2, mode='exp_range', gamma=0.9)
dummy_scheduler.get_last_lr()
