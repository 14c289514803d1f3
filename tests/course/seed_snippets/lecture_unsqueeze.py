# Kak & Bouman, "Squeezing and Unsqueezing the Tensors" (slides 18-25), as printed there.
import torch

tensor_x = torch.tensor([1, 2, 3, 4])
print(tensor_x.shape)
tensor_y = torch.tensor([[1, 2, 3, 4]])
print(tensor_y.shape)
tensor_y = torch.unsqueeze(tensor_x, 0)
print(tensor_y)
print(tensor_y.shape)

tensor_y = torch.unsqueeze(tensor_x, 1)
print(tensor_y)
print(tensor_y.shape)

tensor_x = torch.tensor(
    [[[1, 2, 1, 2], [3, 4, 3, 4], [1, 3, 1, 3]], [[5, 6, 5, 6], [6, 7, 6, 7], [8, 9, 8, 9]]]
)
print(tensor_x)
print(tensor_x.shape)
tensor_y = torch.unsqueeze(tensor_x, 1)
print(tensor_y)
print(tensor_y.shape)

x = torch.tensor([[[[[1, 2, 3, 4]]]]])
print(x)
print(x.shape)
x = torch.squeeze(x)
print(x)
print(x.shape)

x = torch.zeros(4, 1, 5)
print(x)
print(x.stride())
x = torch.squeeze(x)
print(x)
print(x.shape, x.stride())
