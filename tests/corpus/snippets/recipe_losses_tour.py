# After the loss-function tours of course notebooks (torch.nn losses side by side): the robust
# regression losses, margin and embedding losses, KL divergence and Poisson/Gaussian NLL.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
pred = torch.randn(8, 3, requires_grad=True)
target = torch.randn(8, 3)
for loss_fn in [nn.L1Loss(), nn.MSELoss(), nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(delta=0.5)]:
    loss = loss_fn(pred, target)
    print(loss_fn, round(loss.item(), 6), loss.grad_fn.name())
F.smooth_l1_loss(pred, target, reduction="none").shape
F.huber_loss(pred, target, reduction="sum")
loss = nn.HuberLoss()(pred, target)
loss.backward()
pred.grad.abs().sum()
labels = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
scores = torch.randn(8)
nn.SoftMarginLoss()(scores, labels)
nn.HingeEmbeddingLoss(margin=1.0)(scores.abs(), labels)
nn.MarginRankingLoss(margin=0.1)(scores, scores.flip(0), labels)
a, b = torch.randn(8, 5), torch.randn(8, 5)
nn.CosineEmbeddingLoss(margin=0.2)(a, b, labels)
nn.TripletMarginLoss(margin=1.0, p=2)(a, b, torch.randn(8, 5))
log_probs = F.log_softmax(torch.randn(4, 6), dim=1)
probs = F.softmax(torch.randn(4, 6), dim=1)
nn.KLDivLoss(reduction="batchmean")(log_probs, probs)
F.kl_div(log_probs, probs.log(), reduction="batchmean", log_target=True)
rate = torch.randn(6)
counts = torch.tensor([0.0, 2.0, 3.0, 1.0, 5.0, 4.0])
nn.PoissonNLLLoss()(rate, counts)
nn.PoissonNLLLoss(log_input=False, full=True)(rate.exp(), counts)
mean, var = torch.randn(5, 2), torch.rand(5, 2) + 0.1
nn.GaussianNLLLoss()(mean, torch.randn(5, 2), var)
multi = (torch.rand(4, 5) > 0.5).float()
nn.MultiLabelSoftMarginLoss()(torch.randn(4, 5), multi)
