# After dvgodoy's Deep Learning with PyTorch Step-by-Step, ch. 3 (logits, odds, sigmoid, BCELoss vs BCEWithLogitsLoss, pos_weight, a logistic model; moons replaced by generated points).
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim


def odds_ratio(prob):
    return prob / (1 - prob)


def log_odds_ratio(prob):
    return np.log(odds_ratio(prob))


p = .75
q = 1 - p
odds_ratio(p), odds_ratio(q)
log_odds_ratio(p), log_odds_ratio(q)


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


p = .75
sigmoid(log_odds_ratio(p))
torch.sigmoid(torch.tensor(1.0986)), torch.sigmoid(torch.tensor(-1.0986))
dummy_labels = torch.tensor([1.0, 0.0])
dummy_predictions = torch.tensor([.9, .2])
positive_pred = dummy_predictions[dummy_labels == 1]
first_summation = torch.log(positive_pred).sum()
negative_pred = dummy_predictions[dummy_labels == 0]
second_summation = torch.log(1 - negative_pred).sum()
n_total = dummy_labels.size(0)
loss = -(first_summation + second_summation) / n_total
loss
summation = torch.sum(dummy_labels * torch.log(dummy_predictions) + (1 - dummy_labels) * torch.log(1 - dummy_predictions))
loss = -summation / n_total
loss
loss_fn = nn.BCELoss(reduction='mean')
loss_fn
loss = loss_fn(dummy_predictions, dummy_labels)
loss
logit1 = log_odds_ratio(.9)
logit2 = log_odds_ratio(.2)
dummy_labels = torch.tensor([1.0, 0.0])
dummy_logits = torch.tensor([logit1, logit2])
print(dummy_logits)
loss_fn_logits = nn.BCEWithLogitsLoss(reduction='mean')
loss = loss_fn_logits(dummy_logits, dummy_labels)
loss
dummy_imb_labels = torch.tensor([1.0, 0.0, 0.0, 0.0])
dummy_imb_logits = torch.tensor([logit1, logit2, logit2, logit2])
n_neg = (dummy_imb_labels == 0).sum().float()
n_pos = (dummy_imb_labels == 1).sum().float()
pos_weight = (n_neg / n_pos).view(1,)
pos_weight
loss_fn_imb = nn.BCEWithLogitsLoss(reduction='mean', pos_weight=pos_weight)
loss = loss_fn_imb(dummy_imb_logits, dummy_imb_labels)
loss
loss_fn_imb_sum = nn.BCEWithLogitsLoss(reduction='sum', pos_weight=pos_weight)
loss = loss_fn_imb_sum(dummy_imb_logits, dummy_imb_labels)
loss = loss / (pos_weight * n_pos + n_neg)
loss
torch.manual_seed(42)
X_train = torch.randn(80, 2)
y_train = (X_train[:, 0] + 0.5 * X_train[:, 1] > 0).float().view(-1, 1)
lr = 0.1
model = nn.Sequential()
model.add_module('linear', nn.Linear(2, 1))
optimizer = optim.SGD(model.parameters(), lr=lr)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(100):
    model.train()
    loss = loss_fn(model(X_train), y_train)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()

print(model.state_dict())
model.eval()
logits_val = model(X_train[:4])
probabilities = torch.sigmoid(logits_val).squeeze()
probabilities
classes = (probabilities >= 0.5).int()
classes, y_train[:4].squeeze()
