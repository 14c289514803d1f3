# Kak & Bouman, "Input and Kernel Specs" (slides 13-17): numpy data repacked as (N, C, H, W).
# The lecture's code calls unsqueeze(tsr_arr, 0) twice on the same name; the second call must use
# the first one's result, as done here.
import numpy
import torch

arr = numpy.zeros((8, 8), dtype=float)
arr[:, :4] = 4.0
arr[:, 4:] = 1.0
tensor_arr = torch.from_numpy(arr)
print(tensor_arr)
print(tensor_arr.shape)
print(tensor_arr.size())
print(tensor_arr.dtype, tensor_arr.type())

ker = numpy.zeros((3, 3), dtype=float)
ker[:, 0] = -1.0
ker[:, 2] = 1.0
tensor_ker = torch.from_numpy(ker)
print(tensor_ker)
print(tensor_ker.shape)

tensor_arr = torch.unsqueeze(tensor_arr, 0)
tensor_arr = torch.unsqueeze(tensor_arr, 0)
print(tensor_arr)
print(tensor_arr.shape, tensor_arr.stride())
tensor_ker = torch.unsqueeze(torch.unsqueeze(tensor_ker, 0), 0)
print(tensor_ker.shape, tensor_ker.stride())

ker = numpy.array([[-1, 0, 1], [-1, 0, 1], [-1, 0, 1]])
ker = torch.from_numpy(ker)
print(ker.type())
ker = ker.float()
print(ker.type())
print(tensor_arr.float().type())
