# After yunjey's pytorch-tutorial, 01-basics/pytorch_basics (autograd examples 1-2, numpy round trips, a Dataset, state_dict saving).
import numpy as np
import torch
import torch.nn as nn

x = torch.tensor(1., requires_grad=True)
w = torch.tensor(2., requires_grad=True)
b = torch.tensor(3., requires_grad=True)
y = w * x + b
y.backward()
print(x.grad)
print(w.grad)
print(b.grad)
x = torch.randn(10, 3)
y = torch.randn(10, 2)
linear = nn.Linear(3, 2)
print('w: ', linear.weight)
print('b: ', linear.bias)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
pred = linear(x)
loss = criterion(pred, y)
print('loss: ', loss.item())
loss.backward()
print('dL/dw: ', linear.weight.grad)
print('dL/db: ', linear.bias.grad)
optimizer.step()
pred = linear(x)
loss = criterion(pred, y)
print('loss after 1 step optimization: ', loss.item())
x = np.array([[1, 2], [3, 4]])
y = torch.from_numpy(x)
z = y.numpy()
y, z.dtype


class CustomDataset(torch.utils.data.Dataset):
    def __init__(self):
        self.data = torch.randn(20, 3)

    def __getitem__(self, index):
        return self.data[index], index % 2

    def __len__(self):
        return 20


custom_dataset = CustomDataset()
train_loader = torch.utils.data.DataLoader(dataset=custom_dataset, batch_size=8, shuffle=True)
data_iter = iter(train_loader)
images, labels = next(data_iter)
images.shape, labels
len(train_loader)
resnet_like = nn.Sequential(nn.Linear(3, 100), nn.ReLU(), nn.Linear(100, 100))
for param in resnet_like.parameters():
    param.requires_grad = False

resnet_like[2] = nn.Linear(100, 10)
images = torch.randn(64, 3)
outputs = resnet_like(images)
print(outputs.size())
[p.requires_grad for p in resnet_like.parameters()]
torch.save(resnet_like.state_dict(), 'params.ckpt')
resnet_like.load_state_dict(torch.load('params.ckpt'))
