## flatten.py (Kak & Bouman, slide 60)
import torch

torch.manual_seed(0)

x = torch.arange(10)
print(x)
y = x.view(2, 5)
print(y)
z1 = y.reshape(-1)
print(z1)
z2 = y.view(-1)
print(z2)
z3 = y.view(1, -1)
print(z3)
w = y.T
print(w)
z3 = w.reshape(-1)
print(z3)
try:
    z4 = w.view(-1)
except RuntimeError as e:
    print("RuntimeError:", e)
