# After mrdbourke's Zero to Mastery PyTorch, 04 "Custom Datasets" (a Dataset subclass over generated 64x64 images, DataLoader, TinyVGG, train/test loops, results dict).
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(42)


class ImageFolderCustom(Dataset):
    def __init__(self, n, transform=None):
        self.images = torch.rand(n, 3, 64, 64)
        self.targets = torch.randint(0, 3, (n,))
        self.classes = ["pizza", "steak", "sushi"]
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.transform = transform

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int):
        img = self.images[index]
        class_idx = int(self.targets[index])
        if self.transform:
            return self.transform(img), class_idx
        return img, class_idx


train_data_custom = ImageFolderCustom(16, transform=lambda img: torch.flip(img, dims=[2]))
test_data_custom = ImageFolderCustom(8)
len(train_data_custom), len(test_data_custom)
train_data_custom.classes, train_data_custom.class_to_idx
img, label = train_data_custom[0]
img.shape, label
train_dataloader_custom = DataLoader(dataset=train_data_custom, batch_size=8, num_workers=0, shuffle=True)
test_dataloader_custom = DataLoader(dataset=test_data_custom, batch_size=8, num_workers=0, shuffle=False)
img_custom, label_custom = next(iter(train_dataloader_custom))
print(f"Image shape: {img_custom.shape} -> [batch_size, color_channels, height, width]")
print(f"Label shape: {label_custom.shape}")
label_custom


class TinyVGG(nn.Module):
    def __init__(self, input_shape: int, hidden_units: int, output_shape: int) -> None:
        super().__init__()
        self.conv_block_1 = nn.Sequential(
            nn.Conv2d(in_channels=input_shape, out_channels=hidden_units, kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.Conv2d(in_channels=hidden_units, out_channels=hidden_units, kernel_size=3, stride=1, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2)
        )
        self.conv_block_2 = nn.Sequential(
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.Conv2d(hidden_units, hidden_units, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2)
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(in_features=hidden_units * 16 * 16, out_features=output_shape)
        )

    def forward(self, x: torch.Tensor):
        return self.classifier(self.conv_block_2(self.conv_block_1(x)))


torch.manual_seed(42)
model_0 = TinyVGG(input_shape=3, hidden_units=10, output_shape=len(train_data_custom.classes))
model_0
img_batch, label_batch = next(iter(train_dataloader_custom))
img_single, label_single = img_batch[0].unsqueeze(dim=0), label_batch[0]
print(f"Single image shape: {img_single.shape}\n")
model_0.eval()
with torch.inference_mode():
    pred = model_0(img_single)

print(f"Output logits:\n{pred}\n")
print(f"Output prediction probabilities:\n{torch.softmax(pred, dim=1)}\n")
print(f"Output prediction label:\n{torch.argmax(torch.softmax(pred, dim=1), dim=1)}\n")
print(f"Actual label:\n{label_single}")


def train_step(model, dataloader, loss_fn, optimizer):
    model.train()
    train_loss, train_acc = 0, 0
    for batch, (X, y) in enumerate(dataloader):
        y_pred = model(X)
        loss = loss_fn(y_pred, y)
        train_loss += loss.item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        y_pred_class = torch.argmax(torch.softmax(y_pred, dim=1), dim=1)
        train_acc += (y_pred_class == y).sum().item() / len(y_pred)
    train_loss = train_loss / len(dataloader)
    train_acc = train_acc / len(dataloader)
    return train_loss, train_acc


def test_step(model, dataloader, loss_fn):
    model.eval()
    test_loss, test_acc = 0, 0
    with torch.inference_mode():
        for batch, (X, y) in enumerate(dataloader):
            test_pred_logits = model(X)
            loss = loss_fn(test_pred_logits, y)
            test_loss += loss.item()
            test_pred_labels = test_pred_logits.argmax(dim=1)
            test_acc += ((test_pred_labels == y).sum().item() / len(test_pred_labels))
    test_loss = test_loss / len(dataloader)
    test_acc = test_acc / len(dataloader)
    return test_loss, test_acc


results = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(params=model_0.parameters(), lr=0.001)
for epoch in range(2):
    train_loss, train_acc = train_step(model=model_0, dataloader=train_dataloader_custom, loss_fn=loss_fn, optimizer=optimizer)
    test_loss, test_acc = test_step(model=model_0, dataloader=test_dataloader_custom, loss_fn=loss_fn)
    print(f"Epoch: {epoch+1} | train_loss: {train_loss:.4f} | train_acc: {train_acc:.4f} | test_loss: {test_loss:.4f} | test_acc: {test_acc:.4f}")
    results["train_loss"].append(train_loss)
    results["test_acc"].append(test_acc)

len(results["train_loss"]), results["test_acc"]
