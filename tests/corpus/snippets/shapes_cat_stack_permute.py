# After image-loading and batching code in course notebooks: HWC -> CHW, batching, splitting.
import torch

img = torch.arange(4 * 5 * 3, dtype=torch.uint8).reshape(4, 5, 3)
chw = img.permute(2, 0, 1)
chw.shape, chw.stride(), chw.is_contiguous()
x = chw.float() / 255
x.dtype, x.is_contiguous()
batch = torch.stack([x, x.flip(2)])
batch.shape
torch.cat([batch, batch], dim=0).shape
a, b = batch.chunk(2, dim=0)
a.shape, torch.equal(a[0], x)
parts = torch.split(torch.arange(10), [3, 3, 4])
[p.tolist() for p in parts]
batch.unsqueeze(1).shape
batch.mean(dim=(2, 3))
batch.view(2, 3, -1).shape
torch.flatten(batch, start_dim=1).shape
batch.transpose(1, 3).shape
torch.movedim(batch, 1, -1).shape
img.float().mean(dim=(0, 1))
