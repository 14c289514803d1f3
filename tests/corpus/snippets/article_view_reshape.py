# After the view-vs-reshape and contiguity articles (strides, transposes, shared storage).
import torch

x = torch.arange(12).view(3, 4)
x.stride(), x.is_contiguous()
y = x.t()
y.stride(), y.is_contiguous()
try:
    y.view(12)
except RuntimeError as e:
    print(e)
z = y.reshape(12)
z
z.data_ptr() == x.data_ptr()
y.contiguous().view(12)
w = x.view(4, 3)
w[0, 0] = 100
x[0, 0]
x.untyped_storage().data_ptr() == w.untyped_storage().data_ptr()
a = torch.arange(6)
b = a[2:]
b.storage_offset(), b.data_ptr() == a.data_ptr()
c = torch.arange(24).view(2, 3, 4).permute(2, 0, 1)
c.shape, c.stride(), c.is_contiguous()
c.contiguous().stride()
x.unsqueeze(0).shape, x.unsqueeze(-1).stride()
torch.zeros(4, 1, 5).squeeze().shape
torch.zeros(4, 1, 5).squeeze(0).shape
x.flatten(), x.view(-1, 6).shape
x.expand(2, 3, 4).stride()
