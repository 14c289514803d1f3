# After fastai course part 2, 11_initializing (activations exploding/vanishing through 50 matmuls, Xavier and Kaiming scaling, kaiming_normal_, stats of a conv layer).
import math

import torch
from torch import nn

torch.manual_seed(42)
x = torch.randn(200, 100)
for i in range(50):
    x = x @ torch.randn(100, 100)

x[0:5, 0:5]
torch.manual_seed(42)
x = torch.randn(200, 100)
for i in range(50):
    x = x @ (torch.randn(100, 100) * 0.01)

x[0:5, 0:5]
torch.manual_seed(42)
x = torch.randn(200, 100)
for i in range(50):
    x = x @ (torch.randn(100, 100) * 0.1)

x[0:5, 0:5]
x.std(), x.mean()
torch.manual_seed(42)
x = torch.randn(200, 100)
y = torch.randn(200)
w1 = torch.randn(100, 50) / math.sqrt(100)
b1 = torch.zeros(50)
w2 = torch.randn(50, 1) / math.sqrt(50)
b2 = torch.zeros(1)


def lin(x, w, b):
    return x @ w + b


l1 = lin(x, w1, b1)
l1.mean(), l1.std()


def relu(x):
    return x.clamp_min(0.)


l2 = relu(l1)
l2.mean(), l2.std()
x = torch.randn(200, 100)
for i in range(50):
    x = relu(x @ (torch.randn(100, 100) * 0.1))

x[0:5, 0:5]
x = torch.randn(200, 100)
for i in range(50):
    x = relu(x @ (torch.randn(100, 100) * math.sqrt(2 / 100)))

x[0:5, 0:5]
w1 = torch.randn(100, 50) * math.sqrt(2 / 100)
l1 = lin(x, w1, b1)
l2 = relu(l1)
l2.mean(), l2.std()
w = torch.zeros(50, 100)
nn.init.kaiming_normal_(w, mode='fan_out')
w.std(), w.mean()
nn.init.kaiming_normal_(w)
w.std()
w = torch.zeros(50, 100)
nn.init.xavier_uniform_(w)
w.min(), w.max(), math.sqrt(6 / 150)
nn.init.calculate_gain('relu'), nn.init.calculate_gain('leaky_relu', 0.1), nn.init.calculate_gain('tanh')
conv = nn.Conv2d(1, 8, 5)
conv.weight.shape
fan_in = conv.weight[0].numel()
fan_in
bound = 1 / math.sqrt(fan_in)
conv.weight.abs().max() <= bound
xb = torch.randn(16, 1, 28, 28)
t = conv(xb)
t.mean(), t.std()
nn.init.kaiming_normal_(conv.weight, a=0.)
t = torch.relu(conv(xb))
t.mean() > 0, t.shape


def init_weights(m, leaky=0.):
    if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Linear)):
        nn.init.kaiming_normal_(m.weight, a=leaky)


model = nn.Sequential(nn.Conv2d(1, 4, 3, stride=2, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 14 * 14, 10))
model.apply(init_weights)
model[0].weight.std(), model[3].weight.std()
