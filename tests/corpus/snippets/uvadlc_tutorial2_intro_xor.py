# After the UvA Deep Learning course, tutorial 2 "Introduction to PyTorch" (tensor basics, dynamic graph, an XOR dataset class, SimpleClassifier, BCEWithLogitsLoss training, state_dict saving).
import torch
import torch.nn as nn
import torch.utils.data as data

torch.manual_seed(42)
x = torch.Tensor(2, 3, 4)
x.shape
x = torch.Tensor([[1, 2], [3, 4]])
print(x)
x = torch.rand(2, 3, 4)
print(x)
shape = x.shape
print("Shape:", x.shape)
size = x.size()
print("Size:", size)
dim1, dim2, dim3 = x.size()
print("Size:", dim1, dim2, dim3)
x1 = torch.rand(2, 3)
x2 = torch.rand(2, 3)
y = x1 + x2
print("X1", x1)
print("X2", x2)
print("Y", y)
x2.add_(x1)
x = torch.arange(6)
x = x.view(2, 3)
x = x.permute(1, 0)
print("X", x)
x = torch.arange(6).view(2, 3)
W = torch.arange(9).view(3, 3)
h = torch.matmul(x, W)
print("h", h)
x = torch.arange(12).view(3, 4)
print("X", x)
print(x[:, 1])
print(x[0])
print(x[:2, -1])
print(x[1:3, :])
x = torch.ones((3,))
print(x.requires_grad)
x.requires_grad_(True)
print(x.requires_grad)
x = torch.arange(3, dtype=torch.float32, requires_grad=True)
print("X", x)
a = x + 2
b = a ** 2
c = b + 3
y = c.mean()
print("Y", y)
y.backward()
print(x.grad)


class SimpleClassifier(nn.Module):
    def __init__(self, num_inputs, num_hidden, num_outputs):
        super().__init__()
        self.linear1 = nn.Linear(num_inputs, num_hidden)
        self.act_fn = nn.Tanh()
        self.linear2 = nn.Linear(num_hidden, num_outputs)

    def forward(self, x):
        x = self.linear1(x)
        x = self.act_fn(x)
        x = self.linear2(x)
        return x


model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
print(model)
for name, param in model.named_parameters():
    print(f"Parameter {name}, shape {param.shape}")


class XORDataset(data.Dataset):
    def __init__(self, size, std=0.1):
        super().__init__()
        self.size = size
        self.std = std
        self.generate_continuous_xor()

    def generate_continuous_xor(self):
        data = torch.randint(low=0, high=2, size=(self.size, 2), dtype=torch.float32)
        label = (data.sum(dim=1) == 1).to(torch.long)
        data += self.std * torch.randn(data.shape)
        self.data = data
        self.label = label

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        data_point = self.data[idx]
        data_label = self.label[idx]
        return data_point, data_label


dataset = XORDataset(size=200)
print("Size of dataset:", len(dataset))
print("Data point 0:", dataset[0])
data_loader = data.DataLoader(dataset, batch_size=8, shuffle=True)
data_inputs, data_labels = next(iter(data_loader))
print("Data inputs", data_inputs.shape, "\n", data_inputs)
print("Data labels", data_labels.shape, "\n", data_labels)
loss_module = nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_dataset = XORDataset(size=250)
train_data_loader = data.DataLoader(train_dataset, batch_size=128, shuffle=True)


def train_model(model, optimizer, data_loader, loss_module, num_epochs=20):
    model.train()
    for epoch in range(num_epochs):
        for data_inputs, data_labels in data_loader:
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1)
            loss = loss_module(preds, data_labels.float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


train_model(model, optimizer, train_data_loader, loss_module)
state_dict = model.state_dict()
print(state_dict)
torch.save(state_dict, "our_model.tar")
state_dict = torch.load("our_model.tar")
new_model = SimpleClassifier(num_inputs=2, num_hidden=4, num_outputs=1)
new_model.load_state_dict(state_dict)
test_dataset = XORDataset(size=100)
test_data_loader = data.DataLoader(test_dataset, batch_size=128, shuffle=False, drop_last=False)


def eval_model(model, data_loader):
    model.eval()
    true_preds, num_preds = 0., 0.
    with torch.no_grad():
        for data_inputs, data_labels in data_loader:
            preds = model(data_inputs)
            preds = preds.squeeze(dim=1)
            preds = torch.sigmoid(preds)
            pred_labels = (preds >= 0.5).long()
            true_preds += (pred_labels == data_labels).sum()
            num_preds += data_labels.shape[0]
    acc = true_preds / num_preds
    print(f"Accuracy of the model: {100.0*acc:4.2f}%")


eval_model(new_model, test_data_loader)
