# After pytorch/tutorials recipes, "Changing default device" (CPU only: set_default_device, device context).
import torch

torch.get_default_device()
torch.set_default_device("cpu")
torch.get_default_device()
mod = torch.nn.Linear(20, 30)
print(mod.weight.device)
print(mod(torch.randn(128, 20)).device)
with torch.device("cpu"):
    mod = torch.nn.Linear(20, 30)
    print(mod.weight.device)
    print(mod(torch.randn(128, 20)).device)
torch.tensor([1.0, 2.0]).device
torch.zeros(2, device="cpu").device.type
torch.device("cpu") == torch.device("cpu", 0)
str(torch.device("cpu"))
