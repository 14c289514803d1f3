# After mrdbourke's Zero to Mastery PyTorch, 00 "PyTorch Fundamentals" (scalars to tensors, random, dtypes, aggregation, reshaping, numpy, reproducibility).
import numpy as np
import torch

scalar = torch.tensor(7)
scalar
scalar.ndim
scalar.item()
vector = torch.tensor([7, 7])
vector.ndim, vector.shape
MATRIX = torch.tensor([[7, 8],
                       [9, 10]])
MATRIX.ndim, MATRIX.shape
TENSOR = torch.tensor([[[1, 2, 3],
                        [3, 6, 9],
                        [2, 4, 5]]])
TENSOR.ndim, TENSOR.shape
random_tensor = torch.rand(size=(3, 4))
random_tensor, random_tensor.dtype
random_image_size_tensor = torch.rand(size=(224, 224, 3))
random_image_size_tensor.shape, random_image_size_tensor.ndim
zeros = torch.zeros(size=(3, 4))
zeros, zeros.dtype
zero_to_ten = torch.arange(start=0, end=10, step=1)
zero_to_ten
ten_zeros = torch.zeros_like(input=zero_to_ten)
ten_zeros
float_32_tensor = torch.tensor([3.0, 6.0, 9.0], dtype=None, device=None, requires_grad=False)
float_32_tensor.shape, float_32_tensor.dtype, float_32_tensor.device
float_16_tensor = torch.tensor([3.0, 6.0, 9.0], dtype=torch.float16)
float_16_tensor.dtype
some_tensor = torch.rand(3, 4)
print(some_tensor)
print(f"Shape of tensor: {some_tensor.shape}")
print(f"Datatype of tensor: {some_tensor.dtype}")
print(f"Device tensor is stored on: {some_tensor.device}")
tensor = torch.tensor([1, 2, 3])
tensor + 10, tensor * 10, tensor - 10
torch.multiply(tensor, 10)
print(tensor, "*", tensor)
print("Equals:", tensor * tensor)
torch.matmul(tensor, tensor)
tensor @ tensor
tensor_A = torch.tensor([[1, 2], [3, 4], [5, 6]], dtype=torch.float32)
tensor_B = torch.tensor([[7, 10], [8, 11], [9, 12]], dtype=torch.float32)
torch.matmul(tensor_A, tensor_B)
torch.mm(tensor_A, tensor_B.T)
print(f"Original shapes: tensor_A = {tensor_A.shape}, tensor_B = {tensor_B.shape}\n")
print(f"New shapes: tensor_A = {tensor_A.shape} (same as above), tensor_B.T = {tensor_B.T.shape}\n")
torch.manual_seed(42)
linear = torch.nn.Linear(in_features=2, out_features=6)
x = tensor_A
output = linear(x)
print(f"Input shape: {x.shape}\n")
print(f"Output:\n{output}\n\nOutput shape: {output.shape}")
x = torch.arange(0, 100, 10)
print(f"Minimum: {x.min()}")
print(f"Maximum: {x.max()}")
print(f"Mean: {x.type(torch.float32).mean()}")
print(f"Sum: {x.sum()}")
x.mean()
tensor = torch.arange(10, 100, 10)
print(f"Index where max value occurs: {tensor.argmax()}")
print(f"Index where min value occurs: {tensor.argmin()}")
tensor_float16 = tensor.type(torch.float16)
tensor_float16
tensor_int8 = tensor.type(torch.int8)
tensor_int8
x = torch.arange(1., 8.)
x, x.shape
x_reshaped = x.reshape(1, 7)
z = x.view(1, 7)
z[:, 0] = 5
z, x
x_stacked = torch.stack([x, x, x, x], dim=0)
x_stacked
print(f"Previous tensor: {x_reshaped}")
print(f"Previous shape: {x_reshaped.shape}")
x_squeezed = x_reshaped.squeeze()
print(f"\nNew tensor: {x_squeezed}")
print(f"New shape: {x_squeezed.shape}")
x_unsqueezed = x_squeezed.unsqueeze(dim=0)
print(f"New shape: {x_unsqueezed.shape}")
x_original = torch.rand(size=(224, 224, 3))
x_permuted = x_original.permute(2, 0, 1)
print(f"Previous shape: {x_original.shape}")
print(f"New shape: {x_permuted.shape}")
x = torch.arange(1, 10).reshape(1, 3, 3)
x, x.shape
print(f"First square bracket:\n{x[0]}")
print(f"Second square bracket: {x[0][0]}")
print(f"Third square bracket: {x[0][0][0]}")
x[:, 0]
x[:, :, 1]
x[:, 1, 1]
x[0, 0, :]
array = np.arange(1.0, 8.0)
tensor = torch.from_numpy(array)
array, tensor
array = array + 1
array, tensor
tensor = torch.ones(7)
numpy_tensor = tensor.numpy()
tensor, numpy_tensor
torch.rand(3, 3)
RANDOM_SEED = 42
torch.manual_seed(seed=RANDOM_SEED)
random_tensor_C = torch.rand(3, 4)
torch.random.manual_seed(seed=RANDOM_SEED)
random_tensor_D = torch.rand(3, 4)
print(f"Tensor C:\n{random_tensor_C}\n")
print(f"Tensor D:\n{random_tensor_D}\n")
print(f"Does Tensor C equal Tensor D? (anywhere)")
random_tensor_C == random_tensor_D
device = "cuda" if torch.cuda.is_available() else "cpu"
device
torch.cuda.device_count()
tensor = torch.tensor([1, 2, 3])
print(tensor, tensor.device)
tensor_on_gpu = tensor.to(device)
tensor_on_gpu.cpu().numpy()
