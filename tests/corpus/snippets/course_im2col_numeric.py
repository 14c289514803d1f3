# After university CNN course notebooks: im2col by hand, a numeric gradient check, relative error.
import torch
import torch.nn.functional as F
def im2col(x, kh, kw, stride=1):
    n, c, h, w = x.shape
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    cols = torch.zeros(n, c * kh * kw, oh * ow, dtype=x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            cols[:, :, i * ow + j] = patch.reshape(n, -1)
    return cols
x = torch.arange(2 * 3 * 5 * 5, dtype=torch.float64).reshape(2, 3, 5, 5) / 10
cols = im2col(x, 3, 3, stride=2)
cols.shape
torch.allclose(cols, F.unfold(x, 3, stride=2))
w = torch.linspace(-1, 1, 4 * 3 * 3 * 3, dtype=torch.float64).reshape(4, 3, 3, 3)
out = (w.view(4, -1) @ cols).view(2, 4, 2, 2)
torch.allclose(out, F.conv2d(x, w, stride=2))
def rel_error(a, b):
    return ((a - b).abs().max() / (a.abs() + b.abs()).clamp(min=1e-8).max()).item()
w.requires_grad_(True)
loss = F.conv2d(x, w, stride=2).pow(2).sum()
loss.backward()
analytic = w.grad[0, 0, 0, 0].item()
h = 1e-6
with torch.no_grad():
    w[0, 0, 0, 0] += h
    plus = F.conv2d(x, w, stride=2).pow(2).sum().item()
    w[0, 0, 0, 0] -= 2 * h
    minus = F.conv2d(x, w, stride=2).pow(2).sum().item()
numeric = (plus - minus) / (2 * h)
abs(numeric - analytic) / max(abs(numeric), abs(analytic)) < 1e-6
rel_error(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]))
