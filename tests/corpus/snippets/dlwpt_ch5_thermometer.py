# After Stevens, Antiga & Viehmann, Deep Learning with PyTorch, ch. 5-6 (the thermometer: a linear model by hand, analytic gradient, autograd, optimizers, train/val split with randperm, nn.Linear and a small Sequential with OrderedDict).
from collections import OrderedDict

import torch
import torch.nn as nn
import torch.optim as optim

t_c = [0.5, 14.0, 15.0, 28.0, 11.0, 8.0, 3.0, -4.0, 6.0, 13.0, 21.0]
t_u = [35.7, 55.9, 58.2, 81.9, 56.3, 48.9, 33.9, 21.8, 48.4, 60.4, 68.4]
t_c = torch.tensor(t_c)
t_u = torch.tensor(t_u)


def model(t_u, w, b):
    return w * t_u + b


def loss_fn(t_p, t_c):
    squared_diffs = (t_p - t_c)**2
    return squared_diffs.mean()


w = torch.ones(())
b = torch.zeros(())
t_p = model(t_u, w, b)
t_p
loss = loss_fn(t_p, t_c)
loss
delta = 0.1
loss_rate_of_change_w = (loss_fn(model(t_u, w + delta, b), t_c) - loss_fn(model(t_u, w - delta, b), t_c)) / (2.0 * delta)
learning_rate = 1e-2
w = w - learning_rate * loss_rate_of_change_w
w


def dloss_fn(t_p, t_c):
    dsq_diffs = 2 * (t_p - t_c) / t_p.size(0)
    return dsq_diffs


def dmodel_dw(t_u, w, b):
    return t_u


def dmodel_db(t_u, w, b):
    return 1.0


def grad_fn(t_u, t_c, t_p, w, b):
    dloss_dtp = dloss_fn(t_p, t_c)
    dloss_dw = dloss_dtp * dmodel_dw(t_u, w, b)
    dloss_db = dloss_dtp * dmodel_db(t_u, w, b)
    return torch.stack([dloss_dw.sum(), dloss_db.sum()])


def training_loop(n_epochs, learning_rate, params, t_u, t_c, print_params=True):
    for epoch in range(1, n_epochs + 1):
        w, b = params
        t_p = model(t_u, w, b)
        loss = loss_fn(t_p, t_c)
        grad = grad_fn(t_u, t_c, t_p, w, b)
        params = params - learning_rate * grad
        if epoch in {1, 2, 3, 10, 11, 99, 100, 4000, 5000}:
            print('Epoch %d, Loss %f' % (epoch, float(loss)))
            if print_params:
                print('    Params:', params)
                print('    Grad:  ', grad)
    return params


training_loop(n_epochs=10, learning_rate=1e-4, params=torch.tensor([1.0, 0.0]), t_u=t_u, t_c=t_c)
t_un = 0.1 * t_u
params = training_loop(n_epochs=100, learning_rate=1e-2, params=torch.tensor([1.0, 0.0]), t_u=t_un, t_c=t_c, print_params=False)
params
params = torch.tensor([1.0, 0.0], requires_grad=True)
params.grad is None
loss = loss_fn(model(t_u, *params), t_c)
loss.backward()
params.grad
if params.grad is not None:
    params.grad.zero_()


def training_loop_autograd(n_epochs, optimizer, params, train_t_u, val_t_u, train_t_c, val_t_c):
    for epoch in range(1, n_epochs + 1):
        train_t_p = model(train_t_u, *params)
        train_loss = loss_fn(train_t_p, train_t_c)
        with torch.no_grad():
            val_t_p = model(val_t_u, *params)
            val_loss = loss_fn(val_t_p, val_t_c)
            assert val_loss.requires_grad == False
        optimizer.zero_grad()
        train_loss.backward()
        optimizer.step()
        if epoch <= 3 or epoch % 100 == 0:
            print(f"Epoch {epoch}, Training loss {train_loss.item():.4f}, Validation loss {val_loss.item():.4f}")
    return params


n_samples = t_u.shape[0]
n_val = int(0.2 * n_samples)
torch.manual_seed(0)
shuffled_indices = torch.randperm(n_samples)
train_indices = shuffled_indices[:-n_val]
val_indices = shuffled_indices[-n_val:]
train_indices, val_indices
train_t_u, train_t_c = t_u[train_indices], t_c[train_indices]
val_t_u, val_t_c = t_u[val_indices], t_c[val_indices]
train_t_un, val_t_un = 0.1 * train_t_u, 0.1 * val_t_u
params = torch.tensor([1.0, 0.0], requires_grad=True)
optimizer = optim.SGD([params], lr=1e-2)
training_loop_autograd(n_epochs=150, optimizer=optimizer, params=params, train_t_u=train_t_un, val_t_u=val_t_un,
                       train_t_c=train_t_c, val_t_c=val_t_c)
params = torch.tensor([1.0, 0.0], requires_grad=True)
optimizer = optim.Adam([params], lr=1e-1)
training_loop_autograd(n_epochs=100, optimizer=optimizer, params=params, train_t_u=t_u[train_indices], val_t_u=t_u[val_indices],
                       train_t_c=train_t_c, val_t_c=val_t_c)
t_c = t_c.unsqueeze(1)
t_u = t_u.unsqueeze(1)
linear_model = nn.Linear(1, 1)
linear_model(0.1 * t_u[val_indices])
linear_model.weight, linear_model.bias
seq_model = nn.Sequential(OrderedDict([
    ('hidden_linear', nn.Linear(1, 8)),
    ('hidden_activation', nn.Tanh()),
    ('output_linear', nn.Linear(8, 1))
]))
seq_model
[param.shape for param in seq_model.parameters()]
for name, param in seq_model.named_parameters():
    print(name, param.shape)

seq_model.output_linear.bias
optimizer = optim.SGD(seq_model.parameters(), lr=1e-3)
for epoch in range(60):
    loss = nn.MSELoss()(seq_model(0.1 * t_u[train_indices]), t_c[train_indices])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"{loss.item():.3f}")
seq_model.hidden_linear.weight.grad.shape
