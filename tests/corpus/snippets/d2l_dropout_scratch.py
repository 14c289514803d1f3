# After d2l-en, "Dropout" (from scratch with a mask from torch.rand; nn.Dropout in train/eval).
import torch
from torch import nn


def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)


X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print("dropout_p = 0:", dropout_layer(X, 0))
print("dropout_p = 0.5:", dropout_layer(X, 0.5))
print("dropout_p = 1:", dropout_layer(X, 1))
drop = nn.Dropout(0.5)
drop.eval()
drop(X)
drop.train()
drop.training, drop(X).shape
