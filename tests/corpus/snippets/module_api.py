# After the torch.nn.Module docs and course notebooks: children, modules, buffers, hooks, repr.
import torch
from torch import nn
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.register_buffer("scale", torch.tensor(2.0))
    def forward(self, x):
        return torch.relu(self.bn(self.conv(x))) * self.scale
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.ModuleDict({"flat": nn.Flatten(), "fc": nn.Linear(2 * 4 * 4, 3)})
    def forward(self, x):
        x = self.blocks[0](x)
        x = nn.functional.max_pool2d(x, 2)
        return self.head["fc"](self.head["flat"](x))
net = Net()
net
[name for name, _ in net.named_children()]
[type(m).__name__ for m in net.modules()]
[name for name, _ in net.named_buffers()]
list(net.state_dict().keys())
net(torch.ones(2, 1, 8, 8)).shape
net.training, net.eval().training, net.blocks[0].bn.training
net.train()
net.requires_grad_(False)
all(not p.requires_grad for p in net.parameters())
net.add_module("extra", nn.Identity())
hasattr(net, "extra")
x = torch.ones(3, requires_grad=True)
h = x.register_hook(lambda g: g * 2)
(x * x).sum().backward()
x.grad
h.remove()
