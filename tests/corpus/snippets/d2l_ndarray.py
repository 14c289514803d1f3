# After d2l-en, "Data Manipulation" (chapter_preliminaries/ndarray, PyTorch tab).
import torch

x = torch.arange(12, dtype=torch.float32)
x
x.numel()
x.shape
X = x.reshape(3, 4)
X
torch.zeros((2, 3, 4))
torch.ones((2, 3, 4))
torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
X[-1], X[1:3]
X[1, 2] = 17
X[:2, :] = 12
X
torch.exp(x)
x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
x + y, x - y, x * y, x / y, x**y
X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1)
X == Y
X.sum()
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
a + b
before = id(Y)
Y = Y + X
id(Y) == before
Z = torch.zeros_like(Y)
Z[:] = X + Y
before = id(X)
X += Y
id(X) == before
A = X.numpy()
B = torch.from_numpy(A)
type(A), type(B)
a = torch.tensor([3.5])
a, a.item(), float(a), int(a)
