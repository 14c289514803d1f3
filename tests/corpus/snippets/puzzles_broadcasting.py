# After "tensor puzzles" sets: rebuild library functions from arange, broadcasting and where.
import torch
def arange(i):
    return torch.tensor(range(i))
def where(q, a, b):
    return (q * a) + (~q) * b
def ones(i):
    return where(arange(i) >= 0, 1, 0)
ones(5)
def sum_(a):
    return ones(a.shape[0]) @ a[:, None]
sum_(torch.tensor([1, 2, 3]))
def outer(a, b):
    return a[:, None] * b[None, :]
outer(torch.tensor([1, 2]), torch.tensor([3, 4, 5]))
def diag(a):
    return a[arange(a.shape[0]), arange(a.shape[0])]
diag(torch.arange(9).view(3, 3))
def eye(j):
    return 1 * (arange(j)[:, None] == arange(j))
eye(3)
def triu(j):
    return 1 * (arange(j)[:, None] <= arange(j))
triu(4)
def cumsum(a):
    return a @ triu(a.shape[0])
cumsum(torch.tensor([1, 2, 3, 4]))
def diff(a, i):
    return a[1:i] - a[:i - 1]
diff(torch.tensor([1, 4, 9, 16]), 4)
def vstack(a, b):
    return where(arange(2)[:, None] == ones(a.shape[0]), b, a)
vstack(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]))
def roll(a, i):
    return a[(arange(i) + 1) % i]
roll(torch.tensor([1, 2, 3, 4]), 4)
def flip(a, i):
    return a[i - arange(i) - 1]
flip(torch.tensor([1, 2, 3]), 3)
def compress(g, v, i):
    return v @ where(g[:, None], arange(i) == (cumsum(1 * g) - 1)[:, None], 0)
compress(torch.tensor([True, False, True]), torch.tensor([5, 6, 7]), 3)
def bucketize(v, boundaries):
    return (1 * (v[:, None] >= boundaries)) @ ones(boundaries.shape[0])
bucketize(torch.tensor([2, 5, 8]), torch.tensor([1, 3, 6]))
torch.bucketize(torch.tensor([2, 5, 8]), torch.tensor([1, 3, 6]), right=True)
