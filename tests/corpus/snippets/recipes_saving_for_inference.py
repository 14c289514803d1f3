# After pytorch/tutorials recipes, "Saving and loading models for inference in PyTorch" (state_dict and whole model).
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
PATH = "state_dict_model.pt"
torch.save(net.state_dict(), PATH)
model = Net()
model.load_state_dict(torch.load(PATH, weights_only=True))
model.eval()
x = torch.randn(5, 3, 32, 32)
with torch.no_grad():
    out = model(x)
out.requires_grad, out.shape
torch.equal(out, net(x).detach())
torch.save(net.state_dict(), "again.pt")
torch.load("again.pt", weights_only=True).keys() == net.state_dict().keys()
_, predicted = torch.max(out, 1)
predicted
