# After course notebooks' training loops: Adam/AdamW with a StepLR schedule, state_dict round trip.
import torch
from torch import nn, optim

X = torch.randn(32, 4)
w_true = torch.tensor([[2.0], [-1.0], [0.5], [3.0]])
y = X @ w_true + 0.1
model = nn.Linear(4, 1)
with torch.no_grad():
    model.weight.zero_()
    model.bias.zero_()
opt = optim.Adam(model.parameters(), lr=0.1)
sched = optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
loss_fn = nn.MSELoss()
for epoch in range(30):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    sched.step()
round(loss.item(), 4)
sched.get_last_lr()
opt.param_groups[0]["lr"]
sd = model.state_dict()
list(sd.keys())
model2 = nn.Linear(4, 1)
model2.load_state_dict(sd)
torch.equal(model2.weight, model.weight)
opt2 = optim.AdamW(model2.parameters(), lr=0.01, weight_decay=0.1)
opt2.zero_grad(set_to_none=True)
model2.weight.grad is None
loss_fn(model2(X), y).backward()
opt2.step()
model2.weight.grad.shape
