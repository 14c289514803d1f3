# After d2l-en, "Softmax Regression Implementation from Scratch" and the concise version.
import torch

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
X.sum(0, keepdims=True), X.sum(1, keepdims=True)


def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition


X = torch.rand((2, 5))
X_prob = softmax(X)
X_prob, X_prob.sum(1)
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
y_hat[[0, 1], y]


def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()


cross_entropy(y_hat, y)


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


accuracy(y_hat, y) / len(y)
torch.nn.functional.cross_entropy(torch.log(y_hat), y)
torch.nn.functional.cross_entropy(torch.log(y_hat), y, reduction="none")
torch.nn.functional.cross_entropy(torch.log(y_hat), y, label_smoothing=0.1)
torch.nn.functional.softmax(torch.tensor([[1.0, 2.0, 3.0]]), dim=1)
