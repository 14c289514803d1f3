# After the PyTorch recipes on learning-rate scheduling: warm-up then cosine (SequentialLR),
# OneCycleLR per batch, ReduceLROnPlateau on a validation loss, and resuming from a checkpoint.
import torch
from torch import nn, optim
from torch.optim.lr_scheduler import (
    CosineAnnealingLR,
    CosineAnnealingWarmRestarts,
    LinearLR,
    OneCycleLR,
    ReduceLROnPlateau,
    SequentialLR,
)

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.randn(64, 3)
y = X.sum(1, keepdim=True) ** 2
loss_fn = nn.MSELoss()
opt = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
cosine = CosineAnnealingLR(opt, T_max=15, eta_min=1e-4)
sched = SequentialLR(opt, schedulers=[warmup, cosine], milestones=[5])
lrs = []
for epoch in range(20):
    for xb, yb in zip(X.split(16), y.split(16)):
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
[round(lr, 8) for lr in lrs]
lrs == [float(v) for v in lrs]
state = sched.state_dict()
sorted(state)
state["_milestones"], state["last_epoch"]
opt2 = optim.Adam(model.parameters(), lr=1e-3)
one = OneCycleLR(opt2, max_lr=0.01, epochs=3, steps_per_epoch=4)
trace = []
for step in range(12):
    opt2.step()
    one.step()
    trace.append((one.get_last_lr()[0], opt2.param_groups[0]["betas"][0]))
trace[0], trace[5], trace[-1]
opt3 = optim.SGD(model.parameters(), lr=0.1)
plateau = ReduceLROnPlateau(opt3, mode="min", factor=0.5, patience=2)
for val_loss in [1.0, 0.9, 0.91, 0.92, 0.93, 0.95, 0.5, 0.6, 0.7, 0.8]:
    plateau.step(val_loss)
plateau.get_last_lr(), plateau.num_bad_epochs, plateau.best
opt4 = optim.SGD(model.parameters(), lr=0.1)
warm = CosineAnnealingWarmRestarts(opt4, T_0=4, T_mult=2, eta_min=0.001)
restarts = []
for i in range(24):
    warm.step(i / 2)
    restarts.append(round(warm.get_last_lr()[0], 6))
restarts
