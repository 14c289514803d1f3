# After the UvA Deep Learning course, tutorial 3 "Activation Functions" (Sigmoid/Tanh/ReLU/LeakyReLU/ELU/Swish as nn.Modules with a config, gradients via autograd, a BaseNetwork).
import torch
import torch.nn as nn


class ActivationFunction(nn.Module):
    def __init__(self):
        super().__init__()
        self.name = self.__class__.__name__
        self.config = {"name": self.name}


class Sigmoid(ActivationFunction):
    def forward(self, x):
        return 1 / (1 + torch.exp(-x))


class Tanh(ActivationFunction):
    def forward(self, x):
        x_exp, neg_x_exp = torch.exp(x), torch.exp(-x)
        return (x_exp - neg_x_exp) / (x_exp + neg_x_exp)


class ReLU(ActivationFunction):
    def forward(self, x):
        return x * (x > 0).float()


class LeakyReLU(ActivationFunction):
    def __init__(self, alpha=0.1):
        super().__init__()
        self.config["alpha"] = alpha

    def forward(self, x):
        return torch.where(x > 0, x, self.config["alpha"] * x)


class ELU(ActivationFunction):
    def forward(self, x):
        return torch.where(x > 0, x, torch.exp(x) - 1)


class Swish(ActivationFunction):
    def forward(self, x):
        return x * torch.sigmoid(x)


act_fn_by_name = {"sigmoid": Sigmoid, "tanh": Tanh, "relu": ReLU, "leakyrelu": LeakyReLU, "elu": ELU, "swish": Swish}


def get_grads(act_fn, x):
    x = x.clone().requires_grad_()
    out = act_fn(x)
    out.sum().backward()
    return x.grad


x = torch.linspace(-5, 5, 11)
for name, cls in act_fn_by_name.items():
    act_fn = cls()
    y = act_fn(x)
    y_grads = get_grads(act_fn, x)
    print(act_fn.config, y[::5].tolist() if name in ("relu", "leakyrelu") else y.shape, y_grads[4:7])

torch.allclose(Sigmoid()(x), torch.sigmoid(x)), torch.allclose(Tanh()(x), torch.tanh(x), atol=1e-6)
torch.allclose(ELU()(x), nn.functional.elu(x)), torch.allclose(Swish()(x), nn.functional.silu(x))
torch.allclose(LeakyReLU()(x), nn.functional.leaky_relu(x, 0.1))


class BaseNetwork(nn.Module):
    def __init__(self, act_fn, input_size=784, num_classes=10, hidden_sizes=[512, 256, 256, 128]):
        super().__init__()
        layers = []
        layer_sizes = [input_size] + hidden_sizes
        for layer_index in range(1, len(layer_sizes)):
            layers += [nn.Linear(layer_sizes[layer_index - 1], layer_sizes[layer_index]), act_fn]
        layers += [nn.Linear(layer_sizes[-1], num_classes)]
        self.layers = nn.Sequential(*layers)
        self.config = {"act_fn": act_fn.config, "input_size": input_size, "num_classes": num_classes, "hidden_sizes": hidden_sizes}

    def forward(self, x):
        x = x.view(x.size(0), -1)
        out = self.layers(x)
        return out


torch.manual_seed(42)
imgs = torch.randn(16, 1, 28, 28)
labels = torch.randint(0, 10, (16,))
for act_fn_name in ["sigmoid", "tanh", "relu"]:
    torch.manual_seed(42)
    act_fn = act_fn_by_name[act_fn_name]()
    net_actfn = BaseNetwork(act_fn=act_fn, hidden_sizes=[64, 32, 32, 16])
    net_actfn.zero_grad()
    preds = net_actfn(imgs)
    loss = nn.functional.cross_entropy(preds, labels)
    loss.backward()
    grads = {name: params.grad.view(-1) for name, params in net_actfn.named_parameters() if "weight" in name}
    print(act_fn_name, [round(g.abs().mean().item(), 5) for g in grads.values()])

net_actfn.config
