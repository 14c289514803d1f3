# After udlbook's notebooks, 7.1 "Backpropagation in toy model" and 7.2 (forward pass of f = b3 + w3 cos(b2 + w2 exp(b1 + w1 x)), derivatives by hand, checked with autograd and finite differences).
import numpy as np
import torch

beta0 = 1.0; beta1 = 2.0; beta2 = -3.0; beta3 = 0.4
omega0 = 0.1; omega1 = -0.4; omega2 = 2.0; omega3 = 3.0
x = 2.3; y = 2.0


def fn(x, beta0, beta1, beta2, beta3, omega0, omega1, omega2, omega3):
    return beta3 + omega3 * np.cos(beta2 + omega2 * np.exp(beta1 + omega1 * np.sin(beta0 + omega0 * x)))


def loss(x, y, beta0, beta1, beta2, beta3, omega0, omega1, omega2, omega3):
    diff = fn(x, beta0, beta1, beta2, beta3, omega0, omega1, omega2, omega3) - y
    return diff * diff


l_i_func = loss(x, y, beta0, beta1, beta2, beta3, omega0, omega1, omega2, omega3)
print('l_i=%3.3f' % l_i_func)
f0 = beta0 + omega0 * x
h1 = np.sin(f0)
f1 = beta1 + omega1 * h1
h2 = np.exp(f1)
f2 = beta2 + omega2 * h2
h3 = np.cos(f2)
f3 = beta3 + omega3 * h3
l_i = (f3 - y) ** 2
print("f0: true value = %3.3f" % f0)
print("l_i: true value = %3.3f" % l_i)
dldf3 = 2 * (f3 - y)
dldh3 = omega3 * dldf3
dldf2 = -np.sin(f2) * dldh3
dldh2 = omega2 * dldf2
dldf1 = np.exp(f1) * dldh2
dldh1 = omega1 * dldf1
dldf0 = np.cos(f0) * dldh1
dldomega0 = x * dldf0
dldbeta0 = dldf0
print('dldomega0: %3.3f, dldbeta0: %3.3f' % (dldomega0, dldbeta0))
params = {name: torch.tensor(v, dtype=torch.float64, requires_grad=True) for name, v in
          dict(beta0=beta0, beta1=beta1, beta2=beta2, beta3=beta3, omega0=omega0, omega1=omega1, omega2=omega2, omega3=omega3).items()}
p = params
f = p['beta3'] + p['omega3'] * torch.cos(p['beta2'] + p['omega2'] * torch.exp(p['beta1'] + p['omega1'] * torch.sin(p['beta0'] + p['omega0'] * x)))
l_t = (f - y) ** 2
l_t.backward()
abs(p['omega0'].grad.item() - dldomega0) < 1e-9, abs(p['beta0'].grad.item() - dldbeta0) < 1e-9
{k: round(v.grad.item(), 6) for k, v in p.items()}
delta_fd = 0.00001
dldomega0_fd = (loss(x, y, beta0, beta1, beta2, beta3, omega0 + delta_fd, omega1, omega2, omega3) - loss(x, y, beta0, beta1, beta2, beta3, omega0, omega1, omega2, omega3)) / delta_fd
print('Value of dl_domega0 from finite difference = %3.3f' % dldomega0_fd)
K = 3
torch.manual_seed(1)
all_weights = [torch.randn(4, 4, dtype=torch.float64, requires_grad=True) for _ in range(K)]
all_biases = [torch.randn(4, 1, dtype=torch.float64, requires_grad=True) for _ in range(K)]
net_input = torch.ones(4, 1, dtype=torch.float64)
h = net_input
for layer in range(K):
    h = torch.relu(all_biases[layer] + all_weights[layer] @ h)

loss_t = (h - torch.zeros(4, 1, dtype=torch.float64)).pow(2).sum()
loss_t.backward()
all_weights[0].grad
all_biases[-1].grad.T
