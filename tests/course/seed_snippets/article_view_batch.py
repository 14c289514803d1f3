# Article 000: "Why does .view(batch_size, -1) produce identical results?" (its three examples).
import torch

x = torch.arange(24).reshape(2, 3, 4)
print("Original tensor:\n", x)
y = x.view(2, -1)
print("\nTensor after view:\n", y)
y[0, 0] = 999
print("\nModified y:\n", y)
print("\nOriginal tensor x (after modification of y):\n", x)

torch.manual_seed(0)
batch1 = torch.randn(3, 1024)
batch2 = torch.randn(3, 1024)
reshaped_batch1 = batch1.view(3, -1)
reshaped_batch2 = batch2.view(3, -1)
print("Shape of reshaped_batch1:", reshaped_batch1.shape)
print("Shape of reshaped_batch2:", reshaped_batch2.shape)
print("\nAre the data identical? ", torch.equal(reshaped_batch1, reshaped_batch2))

# Example 3: the article expects view() to raise RuntimeError; the ragged list never becomes a
# tensor: torch.tensor raises ValueError before view() is reached.
try:
    x = torch.tensor([[[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10]]])
    print("Original tensor shape:", x.shape)
    y = x.view(2, -1)
except RuntimeError as e:
    print("\nError:", e)
except ValueError as e:
    print("\nValueError (at construction, not at view):", e)
