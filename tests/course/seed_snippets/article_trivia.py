# Article 003: "A Collection of PyTorch Trivia" (the parts without autograd).
import numpy as np
import torch

print(torch.tensor([1, 2]).repeat(2))
print(np.repeat(np.array([1, 2]), 2))
print(np.tile(np.array([1, 2]), 2))
print(torch.tensor([1, 2]).repeat_interleave(2))
print(torch.tensor([[1, 2], [3, 4]]).repeat(2, 1))
print(torch.tensor([[1, 2], [3, 4]]).repeat_interleave(2, dim=0))
a = torch.tensor([1, 2, 3, 4], dtype=float)
b = a.view(2, 2)
print(b, b.dtype)
c = b[:, 0] + 5
print(c)
