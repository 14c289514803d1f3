## reshape1.py (Kak & Bouman, slide 57)
import torch

torch.manual_seed(0)

x = torch.randn(3, 4)
print(x)
y = x.view(2, 6)
print(y)
z = x.reshape(2, 6)
print(z)
del x
print(y)
print(z)
print(torch.eq(y, z))
print(y.eq(z))
print(torch.all(torch.lt(torch.abs(torch.sum(y - z)), 1e-12)))
print(torch.allclose(y, z))

x = torch.randn(10)
z = x.reshape(2, 5)
print(z)
z = x.reshape(2, -1)
print(z)
z = x.view(2, 5)
print(z)
z = x.view(2, -1)
print(z)
for call in (lambda: x.reshape(3, -1), lambda: x.view(3, -1)):
    try:
        call()
    except RuntimeError as e:
        print("RuntimeError:", e)
