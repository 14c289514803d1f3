# After forum/docs answers "convolution = unfold + matrix multiplication + fold".
import torch
import torch.nn.functional as F

inp = torch.randn(1, 3, 10, 12)
w = torch.randn(2, 3, 4, 5)
inp_unf = F.unfold(inp, (4, 5))
inp_unf.shape
out_unf = inp_unf.transpose(1, 2).matmul(w.view(w.size(0), -1).t()).transpose(1, 2)
out = F.fold(out_unf, (7, 8), (1, 1))
out.shape
(F.conv2d(inp, w) - out).abs().max() < 1e-4
x = torch.arange(1.0, 8)
x.unfold(0, 2, 1)
x.unfold(0, 2, 2)
img = torch.arange(16.0).reshape(1, 1, 4, 4)
patches = img.unfold(2, 2, 2).unfold(3, 2, 2)
patches.shape, patches.stride()
patches.reshape(1, 1, 4, 4)
ones = torch.ones(1, 1, 4, 4)
F.fold(F.unfold(ones, 2), (4, 4), 2)
F.fold(F.unfold(ones, 3, padding=1), (4, 4), 3, padding=1)
