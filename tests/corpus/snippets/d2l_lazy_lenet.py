# After d2l-en (current edition), LeNet with lazy layers and a Xavier init applied to the modules.
import torch
from torch import nn


def init_cnn(module):
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


net = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2),
    nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.LazyConv2d(16, kernel_size=5),
    nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Flatten(),
    nn.LazyLinear(120),
    nn.Sigmoid(),
    nn.LazyLinear(84),
    nn.Sigmoid(),
    nn.LazyLinear(10),
)
X = torch.randn(1, 1, 28, 28)
net(X).shape
net.apply(init_cnn)
net[0].weight.shape, net[7].weight.shape
