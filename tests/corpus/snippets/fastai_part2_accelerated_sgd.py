# After fastai course part 2, 12_accel_sgd (SGD with weight decay, Momentum, RMSProp and Adam written as optimizer classes, checked against torch.optim).
import torch
from torch import nn


class SGD:
    def __init__(self, params, lr, wd=0.):
        params = list(params)
        self.params, self.lr, self.wd = params, lr, wd
        self.i = 0

    def step(self):
        with torch.no_grad():
            for p in self.params:
                self.reg_step(p)
                self.opt_step(p)
        self.i += 1

    def opt_step(self, p):
        p -= p.grad * self.lr

    def reg_step(self, p):
        if self.wd != 0:
            p *= 1 - self.lr * self.wd

    def zero_grad(self):
        for p in self.params:
            p.grad.data.zero_()


class Momentum(SGD):
    def __init__(self, params, lr, wd=0., mom=0.9):
        super().__init__(params, lr=lr, wd=wd)
        self.mom = mom

    def opt_step(self, p):
        if not hasattr(p, 'grad_avg'):
            p.grad_avg = torch.zeros_like(p.grad)
        p.grad_avg = p.grad_avg * self.mom + p.grad * (1 - self.mom)
        p -= self.lr * p.grad_avg


class RMSProp(SGD):
    def __init__(self, params, lr, wd=0., sqr_mom=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.sqr_mom, self.eps = sqr_mom, eps

    def opt_step(self, p):
        if not hasattr(p, 'sqr_avg'):
            p.sqr_avg = p.grad**2
        p.sqr_avg = p.sqr_avg * self.sqr_mom + p.grad**2 * (1 - self.sqr_mom)
        p -= self.lr * p.grad / (p.sqr_avg.sqrt() + self.eps)


class Adam(SGD):
    def __init__(self, params, lr, wd=0., beta1=0.9, beta2=0.99, eps=1e-5):
        super().__init__(params, lr=lr, wd=wd)
        self.beta1, self.beta2, self.eps = beta1, beta2, eps

    def opt_step(self, p):
        if not hasattr(p, 'avg'):
            p.avg = torch.zeros_like(p.grad.data)
        if not hasattr(p, 'sqr_avg'):
            p.sqr_avg = torch.zeros_like(p.grad.data)
        p.avg = self.beta1 * p.avg + (1 - self.beta1) * p.grad
        unbias_avg = p.avg / (1 - (self.beta1**(self.i + 1)))
        p.sqr_avg = self.beta2 * p.sqr_avg + (1 - self.beta2) * (p.grad**2)
        unbias_sqr_avg = p.sqr_avg / (1 - (self.beta2**(self.i + 1)))
        p -= self.lr * unbias_avg / (unbias_sqr_avg + self.eps).sqrt()


torch.manual_seed(1)
xb = torch.randn(64, 10)
yb = torch.randint(0, 3, (64,))


def get_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 3))


def fit(model, opt, steps=5):
    for _ in range(steps):
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return round(loss.item(), 4)


results = {}
for name, opt_func in [("sgd", lambda p: SGD(p, lr=0.1, wd=1e-2)), ("mom", lambda p: Momentum(p, lr=0.1)),
                       ("rms", lambda p: RMSProp(p, lr=1e-2)), ("adam", lambda p: Adam(p, lr=1e-2))]:
    model = get_model()
    results[name] = fit(model, opt_func(model.parameters()))

results
model = get_model()
fit(model, torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-2))
model = get_model()
fit(model, torch.optim.RMSprop(model.parameters(), lr=1e-2, alpha=0.99, eps=1e-5))
model = get_model()
fit(model, torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.9, 0.99), eps=1e-5))
model = get_model()
opt = Adam(model.parameters(), lr=1e-2)
fit(model, opt, steps=2)
p = model[0].weight
p.avg.shape, p.sqr_avg.shape, opt.i
