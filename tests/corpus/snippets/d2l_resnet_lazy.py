# After d2l-en, "Residual Networks (ResNet)" (modern CNNs): LazyConv2d + LazyBatchNorm2d blocks.
import torch
from torch import nn
from torch.nn import functional as F


class Residual(nn.Module):
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1, stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
blk(X).shape
blk = Residual(6, use_1x1conv=True, strides=2)
blk(X).shape
blk.bn1
type(blk.conv1).__name__
net = nn.Sequential(
    nn.LazyConv2d(8, kernel_size=7, stride=2, padding=3),
    nn.LazyBatchNorm2d(),
    nn.ReLU(),
    nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
)
lazy = nn.LazyBatchNorm1d()
lazy.weight
try:
    lazy.weight.shape
except RuntimeError as e:
    print(type(e).__name__)
for layer in net:
    X = layer(X)
    print(layer.__class__.__name__, "output shape:\t", X.shape)
[k for k in net.state_dict()]
