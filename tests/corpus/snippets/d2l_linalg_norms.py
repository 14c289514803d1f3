# After d2l-en, "Linear Algebra" (chapter_preliminaries/linear-algebra, PyTorch tab), norms and
# the exercises, written with torch.linalg as the chapter's current text does.
import torch

u = torch.tensor([3.0, -4.0])
torch.linalg.norm(u)
torch.linalg.vector_norm(u, ord=1), torch.linalg.vector_norm(u, ord=float("inf"))
torch.linalg.norm(torch.ones((4, 9)))
torch.linalg.matrix_norm(torch.ones((4, 9)))
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
torch.linalg.norm(A), torch.linalg.norm(A, dim=1), torch.linalg.norm(A, dim=0, keepdim=True)
torch.linalg.matrix_norm(A, ord=1), torch.linalg.matrix_norm(A, ord=float("inf"))
X = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
torch.linalg.norm(X, dim=(1, 2)), torch.linalg.vector_norm(X)
x = torch.arange(4.0)
y = torch.ones(4)
torch.linalg.vecdot(x, y), torch.linalg.matmul(A, x)
torch.linalg.cross(torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 1.0, 0.0]))
B = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
torch.linalg.det(B), torch.linalg.inv(B)
torch.linalg.matrix_power(B, 3), torch.linalg.matrix_power(B, 0)
torch.linalg.inv(B) @ B
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
loss = torch.linalg.norm(w) + torch.linalg.det(w)
loss.backward()
w.grad
try:
    torch.linalg.inv(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
except torch.linalg.LinAlgError as e:
    print(e)
