# After CS231n assignment 3, NetworkVisualization (saliency maps from input gradients, a fooling image by gradient ascent, class visualisation with L2 regularisation; a small random CNN stands in for SqueezeNet).
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5))
for param in model.parameters():
    param.requires_grad = False

X = torch.randn(3, 3, 16, 16)
y = torch.tensor([0, 3, 1])


def compute_saliency_maps(X, y, model):
    model.eval()
    X.requires_grad_()
    saliency = None
    scores = model(X)
    scores = scores.gather(1, y.view(-1, 1)).squeeze()
    scores.backward(torch.ones(scores.shape))
    saliency, _ = torch.max(X.grad.abs(), dim=1)
    return saliency


saliency = compute_saliency_maps(X, y, model)
saliency.shape
saliency[0, :2, :4]


def make_fooling_image(X, target_y, model):
    X_fooling = X.clone()
    X_fooling = X_fooling.requires_grad_()
    learning_rate = 1
    for i in range(20):
        scores = model(X_fooling)
        _, index = scores.max(dim=1)
        if index[0] == target_y:
            break
        target_score = scores[0, target_y]
        target_score.backward()
        grad = X_fooling.grad.data
        X_fooling.data += learning_rate * (grad / grad.norm())
        X_fooling.grad.data.zero_()
    return X_fooling, i


X_fooling, iters = make_fooling_image(X[:1].detach(), 2, model)
iters
model(X_fooling).argmax(dim=1)
(X_fooling - X[:1]).abs().max() > 0


def jitter(X, ox, oy):
    if ox != 0:
        left = X[:, :, :, :-ox]
        right = X[:, :, :, -ox:]
        X = torch.cat([right, left], dim=3)
    if oy != 0:
        top = X[:, :, :-oy]
        bottom = X[:, :, -oy:]
        X = torch.cat([bottom, top], dim=2)
    return X


torch.equal(jitter(X[:1].detach(), 2, 3), torch.roll(X[:1].detach(), shifts=(3, 2), dims=(2, 3)))
img = torch.randn(1, 3, 16, 16).mul_(1.0).requires_grad_()
l2_reg = 1e-3
learning_rate = 25
for t in range(10):
    ox, oy = 1, 2
    img.data.copy_(jitter(img.data, ox, oy))
    score = model(img)[0, 4] - l2_reg * (img.norm() ** 2)
    score.backward()
    img.data += learning_rate * img.grad.data / img.grad.data.norm()
    img.grad.data.zero_()
    img.data.copy_(jitter(img.data, -ox, -oy))
    img.data.clamp_(-2, 2)

model(img)[0].argmax()
img.shape, img.requires_grad
