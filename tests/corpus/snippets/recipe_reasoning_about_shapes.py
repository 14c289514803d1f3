# After the PyTorch recipe "Reasoning about Shapes in PyTorch" (recipes/reasoning_about_shapes):
# shapes through a layer and a whole network on the meta device, without materialising data.
import torch
import torch.nn as nn
import torch.nn.functional as F

t = torch.rand(2, 3, 10, 10, device="meta")
conv = torch.nn.Conv2d(3, 5, 2, device="meta")
out = conv(t)
print(out)
out.shape, out.stride(), out.is_meta, out.device.type

# arbitrarily large inputs cost nothing: no data is allocated
t_large = torch.rand(2**10, 3, 2**16, 2**16, device="meta")
out = conv(t_large)
print(out)
out.shape, t_large.untyped_storage().nbytes()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)  # flatten all dimensions except batch
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")


# every tensor created inside the device context manager lives on the meta device
with torch.device("meta"):
    net = Net()
    inp = torch.randn((1024, 3, 32, 32))

for name, layer in net.named_modules():
    layer.register_forward_hook(fw_hook)

out = net(inp)
print(out)
net.fc1.weight.device.type, net.fc1.weight.is_meta, out.shape

# no values on the meta device
try:
    out.sum().item()
except RuntimeError as e:
    print("RuntimeError:", e)
