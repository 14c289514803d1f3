# After dvgodoy's Deep Learning with PyTorch Step-by-Step, ch. 5 (convolving by hand, F.conv2d with an identity filter, nn.Conv2d, padding modes, pooling, flattening, LeNet-ish).
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

single = np.array(
    [[[[5, 0, 8, 7, 8, 1],
       [1, 9, 5, 0, 7, 7],
       [6, 0, 2, 4, 6, 6],
       [9, 7, 6, 6, 8, 4],
       [8, 3, 8, 5, 1, 3],
       [7, 2, 7, 0, 1, 0]]]]
)
single.shape
identity = np.array(
    [[[[0, 0, 0],
       [0, 1, 0],
       [0, 0, 0]]]]
)
region = single[:, :, 0:3, 0:3]
filtered_region = region * identity
total = filtered_region.sum()
total
image = torch.as_tensor(single).float()
kernel_identity = torch.as_tensor(identity).float()
convolved = F.conv2d(image, kernel_identity, stride=1)
convolved
conv = nn.Conv2d(in_channels=1, out_channels=1, kernel_size=3, stride=1)
conv(image).shape
conv_multiple = nn.Conv2d(in_channels=1, out_channels=2, kernel_size=3, stride=1)
conv_multiple.weight.shape
with torch.no_grad():
    conv.weight[0] = kernel_identity
    conv.bias[0] = 0

conv(image)
convolved_stride2 = F.conv2d(image, kernel_identity, stride=2)
convolved_stride2
constant_padder = nn.ConstantPad2d(padding=1, value=0)
constant_padder(image)
padded = F.pad(image, pad=(1, 1, 1, 1), mode='constant', value=0)
padded.shape
replication_padder = nn.ReplicationPad2d(padding=1)
replication_padder(image)
reflection_padder = nn.ReflectionPad2d(padding=1)
reflection_padder(image)
F.pad(image, pad=(1, 1, 1, 1), mode='circular')
edge = np.array([[[[0, 1, 0],
                   [1, -4, 1],
                   [0, 1, 0]]]])
kernel_edge = torch.as_tensor(edge).float()
padded = F.pad(image, (1, 1, 1, 1), mode='constant', value=0)
conv_padded = F.conv2d(padded, kernel_edge, stride=1)
conv_padded
pooled = F.max_pool2d(conv_padded, kernel_size=2)
pooled
maxpool4 = nn.MaxPool2d(kernel_size=4)
pooled4 = maxpool4(conv_padded)
pooled4
F.max_pool2d(conv_padded, kernel_size=3, stride=1)
F.avg_pool2d(conv_padded, kernel_size=2)
F.relu(conv_padded)
flattened = nn.Flatten()(pooled)
flattened
pooled.view(1, -1)
lenet = nn.Sequential()
lenet.add_module('C1', nn.Conv2d(in_channels=1, out_channels=6, kernel_size=5, padding=2))
lenet.add_module('func1', nn.ReLU())
lenet.add_module('S2', nn.MaxPool2d(kernel_size=2))
lenet.add_module('C3', nn.Conv2d(in_channels=6, out_channels=16, kernel_size=5))
lenet.add_module('func2', nn.ReLU())
lenet.add_module('S4', nn.MaxPool2d(kernel_size=2))
lenet.add_module('C5', nn.Conv2d(in_channels=16, out_channels=120, kernel_size=5))
lenet.add_module('func2', nn.ReLU())
lenet.add_module('flatten', nn.Flatten())
lenet.add_module('F6', nn.Linear(in_features=120, out_features=84))
lenet.add_module('func3', nn.ReLU())
lenet.add_module('OUTPUT', nn.Linear(in_features=84, out_features=10))
lenet
lenet(torch.randn(2, 1, 28, 28)).shape
