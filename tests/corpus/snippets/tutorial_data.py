# After "Datasets & DataLoaders" and the nn tutorial's TensorDataset/DataLoader refactoring.
import torch
from torch.utils.data import TensorDataset, DataLoader, Dataset

x = torch.arange(20, dtype=torch.float32).reshape(10, 2)
y = torch.arange(10)
train_ds = TensorDataset(x, y)
len(train_ds), train_ds[3]
train_dl = DataLoader(train_ds, batch_size=4)
for xb, yb in train_dl:
    print(xb.shape, yb)
len(train_dl)
train_dl = DataLoader(train_ds, batch_size=4, drop_last=True)
[yb.tolist() for _, yb in train_dl]


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return torch.tensor([float(idx)]), idx * idx


dl = DataLoader(Squares(5), batch_size=2)
batches = list(dl)
batches[0][0].shape, batches[0][1], batches[-1][1]
