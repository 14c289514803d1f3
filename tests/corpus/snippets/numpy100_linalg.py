# After "100 numpy exercises" (rougier/numpy-100), as ported to PyTorch: the exercises that use
# linear algebra, written with torch.linalg.
import torch

torch.manual_seed(0)
# 83/84-style: solve a linear system and check it
A = torch.tensor([[4.0, -2.0, 1.0], [-2.0, 4.0, -2.0], [1.0, -2.0, 4.0]], dtype=torch.float64)
b = torch.tensor([11.0, -16.0, 17.0], dtype=torch.float64)
x = torch.linalg.solve(A, b)
x
torch.allclose(A @ x, b)
# the determinant, its log, the inverse
torch.linalg.det(A), torch.linalg.slogdet(A)
torch.round(torch.linalg.inv(A) @ A, decimals=6)
# symmetric matrices: eigenvalues and the Cholesky factor
torch.linalg.eigvalsh(A)
L = torch.linalg.cholesky(A)
L, torch.allclose(L @ L.T, A)
# singular values and rank of a rank-deficient matrix
M = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=torch.float64)
torch.linalg.svdvals(M)
torch.linalg.matrix_rank(M)
torch.linalg.matrix_norm(M, ord="nuc"), torch.linalg.matrix_norm(M, ord=2)
# a batch of matrices: determinants and norms per matrix
Z = torch.arange(18, dtype=torch.float64).reshape(2, 3, 3) + torch.eye(3, dtype=torch.float64)
torch.linalg.det(Z), torch.linalg.norm(Z, dim=(-2, -1))
# least squares line fit
t = torch.arange(5, dtype=torch.float64)
y = 2 * t + 1
X = torch.stack([t, torch.ones(5, dtype=torch.float64)], dim=1)
torch.linalg.lstsq(X, y.unsqueeze(1)).solution
torch.linalg.pinv(X) @ y
