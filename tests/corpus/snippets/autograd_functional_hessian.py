# After the torch.autograd.functional documentation (jacobian, hessian, vjp, jvp, hvp, vhp) and
# the double-backward pattern of gradient penalties: Jacobians and Hessians of small functions.
import torch

torch.manual_seed(0)


def exp_reducer(x):
    return x.exp().sum(dim=1)


inputs = torch.rand(2, 2)
torch.autograd.functional.jacobian(exp_reducer, inputs)
torch.autograd.functional.jacobian(exp_reducer, inputs, create_graph=True)


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


inputs = (torch.rand(2), torch.rand(2))
torch.autograd.functional.jacobian(exp_adder, inputs)


def pow_reducer(x):
    return x.pow(3).sum()


inputs = torch.rand(2, 2)
torch.autograd.functional.hessian(pow_reducer, inputs)
torch.autograd.functional.hessian(pow_reducer, inputs, create_graph=True)


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


inputs = (torch.rand(2), torch.rand(2))
torch.autograd.functional.hessian(pow_adder_reducer, inputs)
v = torch.ones(2)
torch.autograd.functional.vjp(exp_reducer, torch.rand(2, 2), v)
torch.autograd.functional.jvp(exp_reducer, torch.rand(4, 4), torch.ones(4, 4))
torch.autograd.functional.hvp(pow_reducer, torch.rand(2, 2), torch.ones(2, 2))
torch.autograd.functional.vhp(pow_reducer, torch.rand(2, 2), torch.ones(2, 2))
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
g
g2, = torch.autograd.grad(g.sum(), x)
g2
y.grad_fn.next_functions[0][0].next_functions
