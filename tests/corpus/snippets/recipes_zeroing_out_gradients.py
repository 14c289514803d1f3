# After pytorch/tutorials recipes, "Zeroing out gradients in PyTorch" (CIFAR10 replaced by generated images).
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


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
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
trainloader = [(torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))) for _ in range(6)]
for epoch in range(2):
    running_loss = 0.0
    for i, data in enumerate(trainloader, 0):
        inputs, labels = data
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        if i % 3 == 2:
            print('[%d, %5d] loss: %.3f' % (epoch + 1, i + 1, running_loss / 3))
            running_loss = 0.0

print('Finished Training')
net.fc3.weight.grad is None
optimizer.zero_grad()
net.fc3.weight.grad is None
optimizer.zero_grad(set_to_none=False)
net.zero_grad(set_to_none=False)
criterion(net(trainloader[0][0]), trainloader[0][1]).backward()
g1 = net.fc3.bias.grad.clone()
criterion(net(trainloader[0][0]), trainloader[0][1]).backward()
torch.allclose(net.fc3.bias.grad, 2 * g1)
net.zero_grad()
net.fc3.bias.grad
