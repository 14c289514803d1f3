# After forum answers on depthwise / separable / grouped convolution (groups=in_channels).
import torch
import torch.nn as nn


class DepthwiseSeparableConv(nn.Module):
    def __init__(self, nin, nout, kernel_size=3, padding=1):
        super().__init__()
        self.depthwise = nn.Conv2d(nin, nin, kernel_size=kernel_size, padding=padding, groups=nin)
        self.pointwise = nn.Conv2d(nin, nout, kernel_size=1)

    def forward(self, x):
        return self.pointwise(self.depthwise(x))


m = DepthwiseSeparableConv(8, 16)
x = torch.randn(2, 8, 10, 10)
m(x).shape
m.depthwise.weight.shape, m.pointwise.weight.shape
sum(p.numel() for p in m.parameters())
sum(p.numel() for p in nn.Conv2d(8, 16, 3, padding=1).parameters())
g = nn.Conv2d(16, 64, 3, groups=4)
g.weight.shape
try:
    nn.Conv2d(10, 64, 3, groups=4)
except ValueError as e:
    print(e)
try:
    nn.Conv2d(16, 10, 3, groups=4)
except ValueError as e:
    print(e)
w = torch.ones(4, 1, 3, 3)
inp = torch.arange(4 * 25, dtype=torch.float32).reshape(1, 4, 5, 5)
torch.nn.functional.conv2d(inp, w, groups=4)
