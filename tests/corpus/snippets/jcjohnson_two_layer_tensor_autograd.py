# After jcjohnson's pytorch-examples, tensor/two_layer_net_tensor.py and autograd/two_layer_net_autograd.py (a two-layer ReLU net by hand, then with autograd).
import torch

device = torch.device('cpu')
N, D_in, H, D_out = 64, 100, 50, 10
torch.manual_seed(0)
x = torch.randn(N, D_in, device=device)
y = torch.randn(N, D_out, device=device)
w1 = torch.randn(D_in, H, device=device)
w2 = torch.randn(H, D_out, device=device)
learning_rate = 1e-6
for t in range(100):
    h = x.mm(w1)
    h_relu = h.clamp(min=0)
    y_pred = h_relu.mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 25 == 0:
        print(t, round(loss.item() / 1e4, 1))
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.t().mm(grad_y_pred)
    grad_h_relu = grad_y_pred.mm(w2.t())
    grad_h = grad_h_relu.clone()
    grad_h[h < 0] = 0
    grad_w1 = x.t().mm(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

w1_hand, w2_hand = w1.clone(), w2.clone()
torch.manual_seed(0)
x = torch.randn(N, D_in, device=device)
y = torch.randn(N, D_out, device=device)
w1 = torch.randn(D_in, H, device=device, requires_grad=True)
w2 = torch.randn(H, D_out, device=device, requires_grad=True)
for t in range(100):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 25 == 0:
        print(t, round(loss.item() / 1e4, 1))
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

torch.allclose(w1, w1_hand, atol=1e-4), torch.allclose(w2, w2_hand, atol=1e-4)
w1.requires_grad, w1.grad.abs().sum()
