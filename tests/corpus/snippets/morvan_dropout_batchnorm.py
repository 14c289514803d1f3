# After MorvanZhou's PyTorch-Tutorial, 503_dropout and 504_batch_normalization (overfitting vs dropout nets; BatchNorm1d on inputs and hidden layers, train/eval).
import torch

torch.manual_seed(1)
N_SAMPLES = 20
N_HIDDEN = 100
x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
y = x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))
test_x = torch.unsqueeze(torch.linspace(-1, 1, N_SAMPLES), 1)
test_y = test_x + 0.3 * torch.normal(torch.zeros(N_SAMPLES, 1), torch.ones(N_SAMPLES, 1))
net_overfitting = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)
net_dropped = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN),
    torch.nn.Dropout(0.5),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, N_HIDDEN),
    torch.nn.Dropout(0.5),
    torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)
print(net_overfitting)
print(net_dropped)
optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()
for t in range(30):
    pred_ofit = net_overfitting(x)
    pred_drop = net_dropped(x)
    loss_ofit = loss_func(pred_ofit, y)
    loss_drop = loss_func(pred_drop, y)
    optimizer_ofit.zero_grad()
    optimizer_drop.zero_grad()
    loss_ofit.backward()
    loss_drop.backward()
    optimizer_ofit.step()
    optimizer_drop.step()
    if t % 10 == 0:
        net_overfitting.eval()
        net_dropped.eval()
        test_pred_ofit = net_overfitting(test_x)
        test_pred_drop = net_dropped(test_x)
        print('overfit %.3f dropout %.3f' % (loss_func(test_pred_ofit, test_y).data.numpy(),
                                            loss_func(test_pred_drop, test_y).data.numpy()))
        net_overfitting.train()
        net_dropped.train()


class Net(torch.nn.Module):
    def __init__(self, batch_normalization=False):
        super(Net, self).__init__()
        self.do_bn = batch_normalization
        self.fcs = []
        self.bns = []
        self.bn_input = torch.nn.BatchNorm1d(1, momentum=0.5)
        for i in range(3):
            input_size = 1 if i == 0 else 10
            fc = torch.nn.Linear(input_size, 10)
            setattr(self, 'fc%i' % i, fc)
            torch.nn.init.normal_(fc.weight, mean=0., std=.1)
            torch.nn.init.constant_(fc.bias, -0.2)
            self.fcs.append(fc)
            if self.do_bn:
                bn = torch.nn.BatchNorm1d(10, momentum=0.5)
                setattr(self, 'bn%i' % i, bn)
                self.bns.append(bn)
        self.predict = torch.nn.Linear(10, 1)
        torch.nn.init.normal_(self.predict.weight, mean=0., std=.1)
        torch.nn.init.constant_(self.predict.bias, -0.2)

    def forward(self, x):
        pre_activation = [x]
        if self.do_bn:
            x = self.bn_input(x)
        layer_input = [x]
        for i in range(3):
            x = self.fcs[i](x)
            pre_activation.append(x)
            if self.do_bn:
                x = self.bns[i](x)
            x = torch.tanh(x)
            layer_input.append(x)
        out = self.predict(x)
        return out, layer_input, pre_activation


nets = [Net(batch_normalization=False), Net(batch_normalization=True)]
print(*nets)
opts = [torch.optim.Adam(net.parameters(), lr=0.03) for net in nets]
bx = torch.randn(16, 1) * 7
by = torch.square(bx) - 5
for net, opt in zip(nets, opts):
    pred, _, _ = net(bx)
    loss = loss_func(pred, by)
    opt.zero_grad()
    loss.backward()
    opt.step()

nets[1].bn_input.running_mean, nets[1].bn_input.running_var
[net.eval() for net in nets][1].training
[l.shape for l in nets[1](bx)[1]]
