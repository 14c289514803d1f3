# After fastai course part 2, 12a/13 (OneCycleLR, CosineAnnealingLR and an exploration of torch's schedulers, stepping by batch in a Learner-free loop).
import torch
from torch import nn, optim
from torch.optim import lr_scheduler

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 2))
opt = optim.SGD(model.parameters(), lr=0.006)
[o for o in dir(lr_scheduler) if o.endswith('LR')]
sched = lr_scheduler.CosineAnnealingLR(opt, 100)
sched.base_lrs
sched.get_last_lr()


def sched_lrs(sched, steps):
    lrs = [sched.get_last_lr()]
    for i in range(steps):
        sched.optimizer.step()
        sched.step()
        lrs.append(sched.get_last_lr())
    return lrs


lrs = sched_lrs(sched, 110)
[round(l[0], 6) for l in lrs[::20]]
opt = optim.SGD(model.parameters(), lr=0.006)
sched = lr_scheduler.OneCycleLR(opt, max_lr=6e-2, total_steps=30)
lrs = sched_lrs(sched, 29)
[round(l[0], 6) for l in lrs[::5]]
opt.param_groups[0]['momentum']
opt = optim.Adam(model.parameters(), lr=1e-3)
sched = lr_scheduler.OneCycleLR(opt, max_lr=1e-2, epochs=3, steps_per_epoch=4)
xb, yb = torch.randn(32, 10), torch.randint(0, 2, (32,))
moms = []
for epoch in range(3):
    for i in range(4):
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()
        moms.append(round(opt.param_groups[0]['betas'][0], 4))

moms
sched.get_last_lr()
sorted(sched.state_dict().keys())[:5]
opt = optim.SGD(model.parameters(), lr=0.1)
sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2)
[round(l[0], 5) for l in sched_lrs(sched, 16)]
opt = optim.SGD(model.parameters(), lr=0.1)
sched = lr_scheduler.SequentialLR(opt, schedulers=[lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3),
                                                   lr_scheduler.ExponentialLR(opt, gamma=0.9)], milestones=[3])
[round(l[0], 5) for l in sched_lrs(sched, 8)]
