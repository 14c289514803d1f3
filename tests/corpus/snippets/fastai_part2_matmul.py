# After fastai course part 2, 01_matmul (matmul with loops, elementwise ops, broadcasting, einsum, torch.matmul; test_close).
import torch
from torch import tensor

torch.manual_seed(1)
x_valid = torch.rand(5, 784)
weights = torch.randn(784, 10)
bias = torch.zeros(10)
m1 = x_valid[:5]
m2 = weights
m1.shape, m2.shape
ar, ac = m1.shape
br, bc = m2.shape
(ar, ac), (br, bc)
t1 = torch.zeros(ar, bc)
t1.shape
for i in range(ar):
    for j in range(bc):
        for k in range(0, ac, 98):
            t1[i, j] += m1[i, k] * m2[k, j]

t1[0, :3]
a = tensor([10., 6, -4])
b = tensor([2., 8, 7])
a, b
a + b
(a < b).float().mean()
m = tensor([[1., 2, 3], [4, 5, 6], [7, 8, 9]])
m
sf = (m * m).sum()
sf
sf.sqrt()
m[2, :], m[:, 2]
m[2]


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            c[i, j] = (a[i, :] * b[:, j]).sum()
    return c


def test_close(a, b, eps=1e-3):
    return torch.allclose(a, b, rtol=0, atol=eps)


test_close(matmul(m1, m2), m1 @ m2)
a
a > 0
a + 1
m * 2
c = tensor([10., 20, 30])
c
m.shape, c.shape
m + c
c + m
t = c.expand_as(m)
t
t.storage().size() if hasattr(t, "storage") else None
t.stride(), t.shape
c.unsqueeze(0), c[None, :]
c.shape, c.unsqueeze(0).shape
c.unsqueeze(1), c[:, None]
c.shape, c.unsqueeze(1).shape
c[None].shape, c[..., None].shape
c[:, None].expand_as(m)
m + c[:, None]
m + c[None, :]
c[None, :]
c[None, :].shape
c[:, None]
c[:, None].shape
c[None, :] * c[:, None]
c[None] > c[:, None]


def matmul(a, b):
    (ar, ac), (br, bc) = a.shape, b.shape
    c = torch.zeros(ar, bc)
    for i in range(ar):
        c[i] = (a[i, :, None] * b).sum(dim=0)
    return c


test_close(matmul(m1, m2), m1 @ m2)
mr = torch.einsum('ik,kj->ikj', m1, m2)
mr.shape
test_close(mr.sum(1), m1 @ m2)


def matmul(a, b):
    return torch.einsum('ik,kj->ij', a, b)


test_close(matmul(m1, m2), m1 @ m2)
test_close(torch.matmul(m1, m2), m1 @ m2)
(m1 @ m2).shape
