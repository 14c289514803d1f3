# After pytorch/tutorials recipes, "How to use TensorBoard with PyTorch" (the regression loop, scalars printed instead of logged).
import torch

x = torch.arange(-5, 5, 0.1).view(-1, 1)
y = -5 * x + 0.1 * torch.randn(x.size())
model = torch.nn.Linear(1, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
history = []


def train_model(iter):
    for epoch in range(iter):
        y1 = model(x)
        loss = criterion(y1, y)
        history.append(("Loss/train", loss.item(), epoch))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


train_model(10)
for tag, value, step in history[::3]:
    print(f"{tag} {value:.4f} {step}")
model.weight, model.bias
len(history)
