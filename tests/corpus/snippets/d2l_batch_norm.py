# After d2l-en, "Batch Normalization" (from scratch, then nn.BatchNorm2d; train vs eval).
import torch
from torch import nn


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


X = torch.randn(4, 3, 5, 5) * 2 + 1
shape = (1, 3, 1, 1)
gamma, beta = torch.ones(shape), torch.zeros(shape)
mm, mv = torch.zeros(shape), torch.ones(shape)
Y, mm, mv = batch_norm(X, gamma, beta, mm, mv, eps=1e-5, momentum=0.1)
Y.mean(dim=(0, 2, 3)).abs().max() < 1e-5
bn = nn.BatchNorm2d(3)
out = bn(X)
(out - Y).abs().max() < 1e-4
bn.running_mean.shape, bn.num_batches_tracked
(bn.running_mean.reshape(shape) - mm).abs().max() < 1e-5
bn.eval()
out_eval = bn(X)
out_eval.shape
bn
