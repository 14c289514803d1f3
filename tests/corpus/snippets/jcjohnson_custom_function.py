# After jcjohnson's pytorch-examples, autograd/two_layer_net_custom_function.py (MyReLU as a torch.autograd.Function with ctx.save_for_backward).
import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        grad_x = grad_output.clone()
        grad_x[x < 0] = 0
        return grad_x


device = torch.device('cpu')
N, D_in, H, D_out = 64, 100, 50, 10
torch.manual_seed(0)
x = torch.randn(N, D_in, device=device)
y = torch.randn(N, D_out, device=device)
w1 = torch.randn(D_in, H, device=device, requires_grad=True)
w2 = torch.randn(H, D_out, device=device, requires_grad=True)
learning_rate = 1e-6
for t in range(60):
    y_pred = MyReLU.apply(x.mm(w1)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 20 == 0:
        print(t, round(loss.item() / 1e4, 1))
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

y_pred.grad_fn.name()
h = MyReLU.apply(x.mm(w1))
type(h.grad_fn).__name__
h.grad_fn.next_functions[0][0].name()
a = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
MyReLU.apply(a).sum().backward()
a.grad
torch.autograd.gradcheck(MyReLU.apply, (torch.tensor([-1.5, 0.5, 2.0], dtype=torch.double, requires_grad=True),))
