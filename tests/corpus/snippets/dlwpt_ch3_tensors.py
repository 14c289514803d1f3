# After Stevens, Antiga & Viehmann, Deep Learning with PyTorch, ch. 3 (lists vs tensors, points, named dims by hand, dtypes, storage, size/offset/stride, transposes and contiguity).
import torch

a = [1.0, 2.0, 1.0]
a[0]
a[2] = 3.0
a
a = torch.ones(3)
a
a[1]
float(a[1])
a[2] = 2.0
a
points = torch.zeros(6)
points[0] = 4.0
points[1] = 1.0
points[2] = 5.0
points[3] = 3.0
points[4] = 2.0
points[5] = 1.0
points = torch.tensor([4.0, 1.0, 5.0, 3.0, 2.0, 1.0])
float(points[0]), float(points[1])
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
points
points.shape
points = torch.zeros(3, 2)
points
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
points[0, 1]
points[0]
points[1:]
points[1:, :]
points[1:, 0]
points[None]
img_t = torch.randn(3, 5, 5)
weights = torch.tensor([0.2126, 0.7152, 0.0722])
batch_t = torch.randn(2, 3, 5, 5)
img_gray_naive = img_t.mean(-3)
batch_gray_naive = batch_t.mean(-3)
img_gray_naive.shape, batch_gray_naive.shape
unsqueezed_weights = weights.unsqueeze(-1).unsqueeze_(-1)
img_weights = (img_t * unsqueezed_weights)
batch_weights = (batch_t * unsqueezed_weights)
img_gray_weighted = img_weights.sum(-3)
batch_gray_weighted = batch_weights.sum(-3)
batch_weights.shape, batch_t.shape, unsqueezed_weights.shape
img_gray_weighted_fancy = torch.einsum('...chw,c->...hw', img_t, weights)
batch_gray_weighted_fancy = torch.einsum('...chw,c->...hw', batch_t, weights)
batch_gray_weighted_fancy.shape
torch.allclose(batch_gray_weighted_fancy, batch_gray_weighted, atol=1e-6)
double_points = torch.ones(10, 2, dtype=torch.double)
short_points = torch.tensor([[1, 2], [3, 4]], dtype=torch.short)
short_points.dtype
double_points = torch.zeros(10, 2).double()
short_points = torch.ones(10, 2).short()
double_points = torch.zeros(10, 2).to(torch.double)
short_points = torch.ones(10, 2).to(dtype=torch.short)
points_64 = torch.rand(5, dtype=torch.double)
points_short = points_64.to(torch.short)
points_64 * points_short
a = torch.ones(3, 2)
a_t = torch.transpose(a, 0, 1)
a.shape, a_t.shape
a = torch.ones(3, 2)
a_t = a.transpose(0, 1)
a.shape, a_t.shape
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
points.untyped_storage().nbytes()
points_storage = points.untyped_storage()
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
points.zero_()
a = torch.ones(3, 2)
a.zero_()
a
points = torch.tensor([[4.0, 1.0], [5.0, 3.0], [2.0, 1.0]])
second_point = points[1]
second_point.storage_offset()
second_point.size()
second_point.shape
points.stride()
second_point.stride()
second_point = points[1]
second_point[0] = 10.0
points
second_point = points[1].clone()
second_point[0] = 10.0
points
points_t = points.t()
points_t
points.untyped_storage().data_ptr() == points_t.untyped_storage().data_ptr()
points.stride(), points_t.stride()
some_t = torch.ones(3, 4, 5)
transpose_t = some_t.transpose(0, 2)
some_t.shape, transpose_t.shape
some_t.stride(), transpose_t.stride()
points.is_contiguous(), points_t.is_contiguous()
points_t_cont = points_t.contiguous()
points_t_cont
points_t_cont.stride()
points = torch.ones(3, 4)
points_np = points.numpy()
points_np
points = torch.from_numpy(points_np)
torch.save(points, 'ourpoints.t')
with open('ourpoints.t', 'wb') as f:
    torch.save(points, f)

points = torch.load('ourpoints.t')
points.shape
