# After udlbook's notebooks, 8.1 "MNIST-1D performance" / 7.x init (an MLP on 40-sample 1-d signals, He init via apply, SGD with StepLR, train/test error; MNIST-1D replaced by generated signals).
import numpy as np
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR

np.random.seed(0)
torch.manual_seed(0)
n_train, n_test, D_i, D_k, D_o = 200, 50, 40, 100, 10
templates = np.random.randn(D_o, D_i)
y_all = np.random.randint(0, D_o, n_train + n_test)
x_all = templates[y_all] + 0.5 * np.random.randn(n_train + n_test, D_i)
train_data_x = torch.tensor(x_all[:n_train].astype('float32'))
train_data_y = torch.tensor(y_all[:n_train].astype('long'))
test_data_x = torch.tensor(x_all[n_train:].astype('float32'))
test_data_y = torch.tensor(y_all[n_train:].astype('long'))
print("Examples in training set: {}".format(len(train_data_y)))
print("Examples in test set: {}".format(len(test_data_y)))
print("Length of each example: {}".format(train_data_x.shape[-1]))
model = nn.Sequential(
    nn.Linear(D_i, D_k),
    nn.ReLU(),
    nn.Linear(D_k, D_k),
    nn.ReLU(),
    nn.Linear(D_k, D_o))


def weights_init(layer_in):
    if isinstance(layer_in, nn.Linear):
        nn.init.kaiming_uniform_(layer_in.weight)
        layer_in.bias.data.fill_(0.0)


model.apply(weights_init)
loss_function = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scheduler = StepLR(optimizer, step_size=5, gamma=0.5)
n_epoch = 12
batch_size = 50
errors_train = np.zeros((n_epoch))
errors_test = np.zeros((n_epoch))
for epoch in range(n_epoch):
    order = torch.randperm(n_train)
    for i in range(0, n_train, batch_size):
        idx = order[i:i + batch_size]
        optimizer.zero_grad()
        pred = model(train_data_x[idx])
        loss = loss_function(pred, train_data_y[idx])
        loss.backward()
        optimizer.step()
    pred_train = model(train_data_x)
    pred_test = model(test_data_x)
    _, predicted_train_class = torch.max(pred_train.data, 1)
    _, predicted_test_class = torch.max(pred_test.data, 1)
    errors_train[epoch] = 100 - 100 * (predicted_train_class == train_data_y).float().sum() / len(train_data_y)
    errors_test[epoch] = 100 - 100 * (predicted_test_class == test_data_y).float().sum() / len(test_data_y)
    if epoch % 4 == 0:
        print(f'Epoch {epoch:5d}, train error {errors_train[epoch]:3.2f}, test error {errors_test[epoch]:3.2f}')
    scheduler.step()

optimizer.param_groups[0]['lr']
errors_train[-1], errors_test[-1]
