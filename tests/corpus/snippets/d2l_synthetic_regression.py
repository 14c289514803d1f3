# After d2l-en, "Linear Regression Implementation from Scratch" / "Concise Implementation".
import torch
from torch import nn
def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 100)
features.shape, labels.shape
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
def linreg(X, w, b):
    return torch.matmul(X, w) + b
def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()
for epoch in range(3):
    for i in range(0, 100, 10):
        X, y = features[i:i + 10], labels[i:i + 10]
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], 0.03, 10)
w.shape, b.shape
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for X, y in zip(features.split(10), labels.split(10)):
    l = loss(net(X), y)
    trainer.zero_grad()
    l.backward()
    trainer.step()
net[0].weight.shape
