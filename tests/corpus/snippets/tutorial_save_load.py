# After the PyTorch tutorial "Saving and Loading Models" (state_dict, checkpoint dicts).
import io

import torch
from torch import nn, optim


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        return self.fc1(torch.flatten(x, 1))


model = TheModelClass()
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
x = torch.randn(2, 3, 12, 12)
model(x).sum().backward()
optimizer.step()
print(list(optimizer.state_dict()["param_groups"][0].keys()))
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
buffer.seek(0)
model2 = TheModelClass()
model2.load_state_dict(torch.load(buffer, weights_only=True))
model2.eval()
torch.equal(model2(x), model.eval()(x))
torch.save({"epoch": 5, "model_state_dict": model.state_dict(), "loss": 0.25}, "checkpoint.tar")
checkpoint = torch.load("checkpoint.tar")
checkpoint["epoch"], checkpoint["loss"], sorted(checkpoint["model_state_dict"])
t = torch.arange(10.0)
torch.save([t[:5], t[5:]], "tensors.pt")
a, b = torch.load("tensors.pt")
a.storage_offset(), b.storage_offset(), a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
