# After pytorch/tutorials recipes, "Saving and loading models across devices" (CPU-only parts, map_location).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
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


net = Net()
print(net)
PATH = "model.pt"
torch.save(net.state_dict(), PATH)
device = torch.device('cpu')
model = Net()
model.load_state_dict(torch.load(PATH, map_location=device, weights_only=True))
model.to(device)
next(model.parameters()).device
state = torch.load(PATH, map_location="cpu", weights_only=True)
state["fc1.weight"].device, state["fc1.weight"].is_contiguous()
state2 = torch.load(PATH, map_location=lambda storage, loc: storage, weights_only=True)
torch.equal(state2["conv2.bias"], net.conv2.bias)
torch.cuda.is_available()
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
device
model.to(device)(torch.randn(1, 3, 32, 32).to(device)).shape
