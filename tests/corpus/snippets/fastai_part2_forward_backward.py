# After fastai course part 2, 03_backprop (lin/relu/mse, gradients by hand in lin_grad, checked against autograd; a Module-style refactor).
import torch
from torch import tensor

torch.manual_seed(42)
x_train = torch.randn(50, 20)
y_train = torch.randint(0, 10, (50,)).float()
n, m = x_train.shape
c = y_train.max() + 1
n, m, c
nh = 8
w1 = torch.randn(m, nh)
b1 = torch.zeros(nh)
w2 = torch.randn(nh, 1)
b2 = torch.zeros(1)


def lin(x, w, b):
    return x @ w + b


t = lin(x_train, w1, b1)
t.shape


def relu(x):
    return x.clamp_min(0.)


t = relu(t)
t[:2]


def model(xb):
    l1 = lin(xb, w1, b1)
    l2 = relu(l1)
    return lin(l2, w2, b2)


res = model(x_train)
res.shape
(res - y_train).shape
res.squeeze() - y_train


def mse(output, targ):
    return (output[:, 0] - targ).pow(2).mean()


mse(res, y_train)


def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)


def forward_and_backward(inp, targ):
    l1 = lin(inp, w1, b1)
    l2 = relu(l1)
    out = lin(l2, w2, b2)
    diff = out[:, 0] - targ
    loss = diff.pow(2).mean()
    out.g = 2. * diff[:, None] / inp.shape[0]
    lin_grad(l2, out, w2, b2)
    l1.g = (l1 > 0).float() * l2.g
    lin_grad(inp, l1, w1, b1)


forward_and_backward(x_train, y_train)


def get_grad(x):
    return x.g.clone()


chks = w1, w2, b1, b2, x_train
grads = w1g, w2g, b1g, b2g, ig = tuple(map(get_grad, chks))


def mkgrad(x):
    return x.clone().requires_grad_(True)


ptgrads = w12, w22, b12, b22, xt2 = tuple(map(mkgrad, chks))


def forward(inp, targ):
    l1 = lin(inp, w12, b12)
    l2 = relu(l1)
    out = lin(l2, w22, b22)
    return mse(out, targ)


loss = forward(xt2, y_train)
loss.backward()
for a, b in zip(grads, ptgrads):
    print(torch.allclose(a, b.grad, rtol=1e-4, atol=1e-4))


class Relu():
    def __call__(self, inp):
        self.inp = inp
        self.out = inp.clamp_min(0.)
        return self.out

    def backward(self):
        self.inp.g = (self.inp > 0).float() * self.out.g


class Lin():
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, inp):
        self.inp = inp
        self.out = lin(inp, self.w, self.b)
        return self.out

    def backward(self):
        self.inp.g = self.out.g @ self.w.t()
        self.w.g = self.inp.t() @ self.out.g
        self.b.g = self.out.g.sum(0)


class Mse():
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        self.out = mse(inp, targ)
        return self.out

    def backward(self):
        self.inp.g = 2. * (self.inp.squeeze() - self.targ).unsqueeze(-1) / self.targ.shape[0]


class Model():
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]
        self.loss = Mse()

    def __call__(self, x, targ):
        for l in self.layers:
            x = l(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for l in reversed(self.layers):
            l.backward()


model = Model(w1, b1, w2, b2)
loss = model(x_train, y_train)
model.backward()
torch.allclose(w2g, w2.g), torch.allclose(b1g, b1.g), torch.allclose(ig, x_train.g)
