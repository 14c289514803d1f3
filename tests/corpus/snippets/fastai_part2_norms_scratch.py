# After fastai course part 2, 11_initializing (LayerNorm and BatchNorm written from scratch with lerp_ running stats, checked against nn.BatchNorm2d/LayerNorm).
import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, dummy, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.mult = nn.Parameter(torch.tensor(1.))
        self.add = nn.Parameter(torch.tensor(0.))

    def forward(self, x):
        m = x.mean((1, 2, 3), keepdim=True)
        v = x.var((1, 2, 3), keepdim=True)
        x = (x - m) / ((v + self.eps).sqrt())
        return x * self.mult + self.add


class BatchNorm(nn.Module):
    def __init__(self, nf, mom=0.1, eps=1e-5):
        super().__init__()
        self.mom, self.eps = mom, eps
        self.mults = nn.Parameter(torch.ones(nf, 1, 1))
        self.adds = nn.Parameter(torch.zeros(nf, 1, 1))
        self.register_buffer('vars', torch.ones(1, nf, 1, 1))
        self.register_buffer('means', torch.zeros(1, nf, 1, 1))

    def update_stats(self, x):
        m = x.mean((0, 2, 3), keepdim=True)
        v = x.var((0, 2, 3), keepdim=True)
        self.means.lerp_(m, self.mom)
        self.vars.lerp_(v, self.mom)
        return m, v

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                m, v = self.update_stats(x)
        else:
            m, v = self.means, self.vars
        x = (x - m) / (v + self.eps).sqrt()
        return x * self.mults + self.adds


torch.manual_seed(42)
x = torch.randn(8, 3, 5, 5) * 3 + 1
ln = LayerNorm(3)
out = ln(x)
out.mean((1, 2, 3)), out.std((1, 2, 3))
ref = nn.functional.layer_norm(x, x.shape[1:])
(out - ref).abs().max() < 1e-2
bn = BatchNorm(3)
out = bn(x)
out.mean((0, 2, 3)), out.std((0, 2, 3))
bn.means.flatten(), bn.vars.flatten()
tbn = nn.BatchNorm2d(3)
tout = tbn(x)
torch.allclose(tbn.running_mean, bn.means.flatten(), atol=1e-6)
torch.allclose(tbn.running_var, bn.vars.flatten(), atol=1e-5)
(tout - out).abs().max() < 1e-2
bn.eval()
tbn.eval()
(bn(x) - tbn(x)).abs().max() < 1e-5
list(dict(bn.named_buffers()).keys()), [n for n, _ in bn.named_parameters()]
a = torch.zeros(3)
a.lerp_(torch.ones(3), 0.1)
torch.lerp(torch.zeros(3), torch.tensor([1., 2., 3.]), torch.tensor([0.5, 0.25, 1.0]))
