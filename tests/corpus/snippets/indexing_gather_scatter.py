# After puzzle sets and forum answers: one-hot with scatter, gather along dims, masks, top-k accuracy.
import torch

labels = torch.tensor([0, 2, 1, 2])
one_hot = torch.zeros(4, 3).scatter_(1, labels.unsqueeze(1), 1.0)
one_hot
torch.nn.functional.one_hot(labels, num_classes=3)
scores = torch.tensor([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4], [0.8, 0.1, 0.1], [0.2, 0.2, 0.6]])
scores.gather(1, labels.view(-1, 1)).squeeze(1)
top2 = scores.topk(2, dim=1)
top2.indices
(top2.indices == labels.unsqueeze(1)).any(dim=1).float().mean()
mask = scores > 0.25
scores[mask]
scores.masked_fill(~mask, 0.0)
torch.where(mask, scores, torch.zeros_like(scores))
torch.nonzero(mask)
idx = torch.tensor([2, 0])
scores.index_select(0, idx)
torch.argmax(scores, dim=1)
values, indices = torch.sort(scores[:, 0], descending=True)
values, indices
torch.unique(labels, return_counts=True)
torch.bincount(labels)
counts = torch.zeros(3).index_add_(0, labels, torch.ones(4))
counts
