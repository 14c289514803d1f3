# After pytorch/tutorials recipes, "Warmstarting model using parameters from a different model".
import torch
import torch.nn as nn
import torch.optim as optim
import torch.nn.functional as F


class NetA(nn.Module):
    def __init__(self):
        super(NetA, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


netA = NetA()


class NetB(nn.Module):
    def __init__(self):
        super(NetB, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.fc4 = nn.Linear(10, 2)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return self.fc4(F.relu(x))


netB = NetB()
PATH = "model.pt"
torch.save(netA.state_dict(), PATH)
netB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
result = netB.load_state_dict(torch.load(PATH, weights_only=True), strict=False)
result.missing_keys, result.unexpected_keys
torch.equal(netB.conv1.weight, netA.conv1.weight)
renamed = {k.replace("fc3", "head"): v for k, v in netA.state_dict().items()}
netB.load_state_dict(renamed)
print(netB.load_state_dict(renamed, strict=False))
netB(torch.randn(3, 3, 32, 32)).shape
