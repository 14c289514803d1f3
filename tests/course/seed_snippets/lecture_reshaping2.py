## reshaping2.py (Kak & Bouman, slides 64-65)
import torch

torch.manual_seed(0)

x = torch.arange(10)
print(x)
print("\nIs x contiguous: ", x.is_contiguous())
x1 = x.view(-1, 5)
print(x1)
print("\nStride for x1: ", x1.stride())
print("\nIs x1 contiguous: ", x1.is_contiguous())
y = x1.T
print(y)
print("\nIs y contiguous: ", y.is_contiguous())
print("\nStride for y: ", y.stride())
y1 = y.reshape(-1)
print(y1)
print("\nIs y1 contiguous: ", y1.is_contiguous())
print("\nStride for y1: ", y1.stride())
try:
    y2 = y.view(-1)
except RuntimeError as e:
    print(e)
    y2 = y.contiguous()
    print(y2)
print("\nIs y2 contiguous: ", y2.is_contiguous())
print("\nStride for y2: ", y2.stride())
y3 = y2.view(-1)
print(y3)
print("\nIs y3 contiguous: ", y3.is_contiguous())
print("\nStride for y3: ", y3.stride())
