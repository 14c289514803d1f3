# Article 002: "Why do two different PyTorch tensor indices yield the same ID?" (its three
# snippets). Lines printing id() values are masked by the test: ids are not memory sharing.
import torch

original_tensor = torch.arange(12).reshape(3, 4)
print("Original Tensor:", original_tensor)
print("Original Tensor ID:", id(original_tensor.data))
view_tensor = original_tensor[1:3, 1:3]
print("View Tensor:", view_tensor)
print("View Tensor ID:", id(view_tensor.data))
print("Are IDs the same?:", id(original_tensor.data) == id(view_tensor.data))
print(
    "Same storage?:",
    view_tensor.untyped_storage().data_ptr() == original_tensor.untyped_storage().data_ptr(),
)
view_tensor[0, 0] = 99
print("Original Tensor After View Modification:", original_tensor)
print("View Tensor After Modification:", view_tensor)

tensor_a = torch.arange(6).reshape(2, 3)
print("Tensor A:", tensor_a)
tensor_b = tensor_a.transpose(0, 1)
print("Transposed Tensor B:", tensor_b)
print(
    "Same storage?:", tensor_b.untyped_storage().data_ptr() == tensor_a.untyped_storage().data_ptr()
)
tensor_b[0, 0] = 100
print("Tensor A After Transpose Modification:", tensor_a)
print("Tensor B After Modification:", tensor_b)

base_tensor = torch.arange(24).reshape(2, 3, 4)
print("Base Tensor:", base_tensor)
index_tensor = torch.tensor([0, 2])
indexed_tensor = base_tensor[:, index_tensor, :]
print("Indexed Tensor:", indexed_tensor)
print(
    "Same storage?:",
    indexed_tensor.untyped_storage().data_ptr() == base_tensor.untyped_storage().data_ptr(),
)
indexed_tensor[0, 0, 0] = 200
print("Base Tensor After Index Modification:", base_tensor)
print("Indexed Tensor After Modification:", indexed_tensor)

# Two unrelated tensors: id(t.data) compares short-lived wrapper objects, not memory.
a = torch.zeros(3)
b = torch.ones(3)
print(
    "Unrelated tensors share storage?:",
    a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr(),
)
