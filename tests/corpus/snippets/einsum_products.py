# After attention and linear-algebra teaching code: einsum, bmm, matmul broadcasting, outer.
import torch

q = torch.arange(24.0).reshape(2, 3, 4)
k = torch.arange(24.0).reshape(2, 3, 4) / 10
scores = torch.einsum("bqd,bkd->bqk", q, k)
scores.shape
torch.allclose(scores, torch.bmm(q, k.transpose(1, 2)))
weights = torch.softmax(scores, dim=-1)
weights.sum(-1)
torch.einsum("ii->i", torch.arange(9.0).reshape(3, 3))
torch.einsum("ij->", torch.ones(2, 3))
torch.einsum("i,j->ij", torch.tensor([1.0, 2]), torch.tensor([3.0, 4, 5]))
torch.outer(torch.tensor([1.0, 2]), torch.tensor([3.0, 4, 5]))
torch.matmul(torch.ones(5, 2, 3), torch.ones(3, 4)).shape
torch.matmul(torch.ones(3), torch.ones(3, 4))
torch.tensordot(torch.ones(2, 3, 4), torch.ones(4, 3, 5), dims=([1, 2], [1, 0])).shape
torch.kron(torch.eye(2), torch.ones(2, 2))
