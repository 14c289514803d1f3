# After d2l-en, "Concise Implementation of Multilayer Perceptrons" and "Parameter Management".
import torch
from torch import nn

net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
X = torch.rand(size=(2, 1, 28, 28))
net(X).shape
net[1].state_dict().keys()
type(net[1].bias), net[1].bias.shape
net[1].weight.grad == None
[(name, param.shape) for name, param in net.named_parameters()]


def init_normal(module):
    if type(module) == nn.Linear:
        nn.init.normal_(module.weight, mean=0, std=0.01)
        nn.init.zeros_(module.bias)


net.apply(init_normal)
net[1].bias.data[:4]


def init_constant(module):
    if type(module) == nn.Linear:
        nn.init.constant_(module.weight, 1)
        nn.init.zeros_(module.bias)


net.apply(init_constant)
net[1].weight.data[0, :4], net[1].bias.data[0]
shared = nn.LazyLinear(8)
net2 = nn.Sequential(
    nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1)
)
net2(torch.rand(2, 20)).shape
net2[2].weight.data[0, 0] = 100
net2[2].weight.data[0] == net2[4].weight.data[0]
