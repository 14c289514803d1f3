# After fastai course part 2, 04_minibatch_training (log_softmax by hand, logsumexp, nll via indexing, accuracy, a fit loop with DataLoader-free batches, Module registration, Sequential, optim).
import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(42)
x_train = torch.randn(200, 30)
y_train = torch.randint(0, 10, (200,))
n, m = x_train.shape
c = int(y_train.max()) + 1
nh = 50


class Model(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.layers = [nn.Linear(n_in, nh), nn.ReLU(), nn.Linear(nh, n_out)]

    def __call__(self, x):
        for l in self.layers:
            x = l(x)
        return x


model = Model(m, nh, c)
pred = model(x_train)
pred.shape


def log_softmax(x):
    return (x.exp() / (x.exp().sum(-1, keepdim=True))).log()


log_softmax(pred)[:2, :4]


def log_softmax(x):
    return x - x.exp().sum(-1, keepdim=True).log()


def logsumexp(x):
    m = x.max(-1)[0]
    return m + (x - m[:, None]).exp().sum(-1).log()


torch.allclose(logsumexp(pred), pred.logsumexp(-1))


def log_softmax(x):
    return x - x.logsumexp(-1, keepdim=True)


sm_pred = log_softmax(pred)
y_train[:3]
sm_pred[0, y_train[0]], sm_pred[1, y_train[1]], sm_pred[2, y_train[2]]
sm_pred[[0, 1, 2], y_train[:3]]


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss = nll(sm_pred, y_train)
loss
torch.allclose(F.nll_loss(F.log_softmax(pred, -1), y_train), loss, 1e-3)
torch.allclose(F.cross_entropy(pred, y_train), loss, 1e-3)
loss_func = F.cross_entropy
bs = 50
xb = x_train[0:bs]
preds = model(xb)
preds[0], preds.shape
yb = y_train[0:bs]
loss_func(preds, yb)


def accuracy(out, yb):
    return (out.argmax(dim=1) == yb).float().mean()


accuracy(preds, yb)
lr = 0.5
epochs = 3


def report(loss, preds, yb):
    print(f'{loss:.2f}, {accuracy(preds, yb):.2f}')


for epoch in range(epochs):
    for i in range(0, n, bs):
        s = slice(i, min(n, i + bs))
        xb, yb = x_train[s], y_train[s]
        preds = model(xb)
        loss = loss_func(preds, yb)
        loss.backward()
        with torch.no_grad():
            for l in model.layers:
                if hasattr(l, 'weight'):
                    l.weight -= l.weight.grad * lr
                    l.bias -= l.bias.grad * lr
                    l.weight.grad.zero_()
                    l.bias.grad.zero_()
    report(loss, preds, yb)


class MLP(nn.Module):
    def __init__(self, n_in, nh, n_out):
        super().__init__()
        self.l1 = nn.Linear(n_in, nh)
        self.l2 = nn.Linear(nh, n_out)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.l2(self.relu(self.l1(x)))


model = MLP(m, nh, 10)
model.l1
model
for name, l in model.named_children():
    print(f"{name}: {l}")

for p in model.parameters():
    print(p.shape)


def get_model():
    model = nn.Sequential(nn.Linear(m, nh), nn.ReLU(), nn.Linear(nh, 10))
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
loss_func(model(xb), yb)
for epoch in range(epochs):
    for i in range(0, n, bs):
        s = slice(i, min(n, i + bs))
        xb, yb = x_train[s], y_train[s]
        preds = model(xb)
        loss = loss_func(preds, yb)
        loss.backward()
        opt.step()
        opt.zero_grad()
    report(loss, preds, yb)
