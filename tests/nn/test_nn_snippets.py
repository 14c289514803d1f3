"""Teaching-code corpus for the layer/training half of issue 12: snippets in the style of
textbook CNN chapters, the PyTorch tutorials ("Neural Networks", "Learning PyTorch with
examples", "Training a classifier") and course notebooks, run once with ``torch`` bound to
tensorlab and once to real torch.

Each snippet has a ``setup`` part (building models, optimizers, data) and a ``run`` part. Between
the two, every ``nn.Module`` the setup made is given tensorlab's weights in torch too (through
``state_dict``), so both runs start from the same numbers; afterwards every variable whose name
starts with ``out`` or ``loss`` is compared (tensors to float32 tolerance, everything else
exactly, reprs with ``torch`` for ``tensorlab``).
"""

from __future__ import annotations

import textwrap
import warnings

import numpy as np
import pytest

import tensorlab as tl

SNIPPETS = {
    "pytorch_examples_mnist": (
        """
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim as optim
        from torch.optim.lr_scheduler import StepLR

        class Net(nn.Module):
            def __init__(self):
                super(Net, self).__init__()
                self.conv1 = nn.Conv2d(1, 32, 3, 1)
                self.conv2 = nn.Conv2d(32, 64, 3, 1)
                self.dropout1 = nn.Dropout(0.25)
                self.dropout2 = nn.Dropout(0.5)
                self.fc1 = nn.Linear(9216, 128)
                self.fc2 = nn.Linear(128, 10)

            def forward(self, x):
                x = self.conv1(x)
                x = F.relu(x)
                x = self.conv2(x)
                x = F.relu(x)
                x = F.max_pool2d(x, 2)
                x = self.dropout1(x)
                x = torch.flatten(x, 1)
                x = self.fc1(x)
                x = F.relu(x)
                x = self.dropout2(x)
                x = self.fc2(x)
                output = F.log_softmax(x, dim=1)
                return output

        model = Net()
        data = torch.from_numpy(np.cos(np.arange(4 * 28 * 28, dtype=np.float32)).reshape(4, 1, 28, 28))
        target = torch.from_numpy(np.array([3, 1, 4, 1]))
        """,
        """
        optimizer = optim.Adadelta(model.parameters(), lr=1.0)
        scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
        model.eval()  # (dropout's random masks differ between the two libraries)
        losses = []
        for epoch in range(3):
            optimizer.zero_grad()
            output = model(data)
            loss = F.nll_loss(output, target)
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
        out_losses = losses
        test_loss = 0
        correct = 0
        with torch.no_grad():
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
        out_test = test_loss / len(data)
        out_correct = correct
        out_lr = scheduler.get_last_lr()
        """,
    ),
    "tutorial_neural_networks": (
        """
        import torch.nn as nn
        import torch.nn.functional as F

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 6, 5)
                self.conv2 = nn.Conv2d(6, 16, 5)
                self.fc1 = nn.Linear(16 * 5 * 5, 120)
                self.fc2 = nn.Linear(120, 84)
                self.fc3 = nn.Linear(84, 10)

            def forward(self, input):
                c1 = F.relu(self.conv1(input))
                s2 = F.max_pool2d(c1, (2, 2))
                c3 = F.relu(self.conv2(s2))
                s4 = F.max_pool2d(c3, 2)
                s4 = torch.flatten(s4, 1)
                f5 = F.relu(self.fc1(s4))
                f6 = F.relu(self.fc2(f5))
                return self.fc3(f6)

        net = Net()
        x = torch.from_numpy(np.linspace(-1, 1, 32 * 32, dtype=np.float32).reshape(1, 1, 32, 32))
        target = torch.from_numpy(np.linspace(0, 1, 10, dtype=np.float32)).view(1, -1)
        """,
        """
        out_repr = repr(net)
        out_nparams = len(list(net.parameters()))
        out_shape = list(net.conv1.weight.size())
        criterion = nn.MSELoss()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
        for _ in range(3):
            optimizer.zero_grad()
            output = net(x)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
        out = net(x)
        loss_final = loss
        out_grad_fn = loss.grad_fn.name()
        out_next = [f[0].name() for f in loss.grad_fn.next_functions if f[0] is not None]
        """,
    ),
    "examples_polynomial_sequential": (
        """
        x = torch.linspace(-3.0, 3.0, 200)
        y = torch.sin(x)
        p = torch.tensor([1, 2, 3])
        xx = x.unsqueeze(-1).pow(p)
        model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
        loss_fn = torch.nn.MSELoss(reduction="sum")
        """,
        """
        learning_rate = 1e-6
        for t in range(20):
            y_pred = model(xx)
            loss = loss_fn(y_pred, y)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for param in model.parameters():
                    param -= learning_rate * param.grad
        out_weight = model[0].weight
        out_bias = model[0].bias
        loss_last = loss
        """,
    ),
    "examples_optim_adam": (
        """
        x = torch.linspace(-3.0, 3.0, 100)
        y = torch.sin(x)
        xx = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))
        model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
        """,
        """
        loss_fn = torch.nn.MSELoss(reduction="sum")
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        losses = []
        for t in range(30):
            loss = loss_fn(model(xx), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        out_losses = losses
        out_state = sorted(optimizer.state_dict()["state"][0].keys())
        """,
    ),
    "classifier_cross_entropy_steplr": (
        """
        import torch.nn as nn
        import torch.optim as optim

        model = nn.Sequential(
            nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 3)
        )
        X = torch.from_numpy(np.cos(np.arange(120, dtype=np.float32)).reshape(30, 4))
        labels = torch.from_numpy(np.arange(30) % 3)
        """,
        """
        criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
        history = []
        for epoch in range(12):
            optimizer.zero_grad()
            loss = criterion(model(X), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            history.append(round(loss.item(), 4))
        out_history = history
        out_lr = scheduler.get_last_lr()
        _, predicted = torch.max(model(X), 1)
        out_correct = (predicted == labels).sum().item()
        """,
    ),
    "batchnorm_mlp_train_eval": (
        """
        import torch.nn as nn

        net = nn.Sequential(nn.Linear(5, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
        X = torch.from_numpy(np.sin(np.arange(50, dtype=np.float32)).reshape(10, 5))
        """,
        """
        net.train()
        out_train = net(X)
        out_train2 = net(X * 2)
        out_running_mean = net[1].running_mean
        out_running_var = net[1].running_var
        out_batches = net[1].num_batches_tracked
        net.eval()
        out_eval = net(X)
        out_training = [m.training for m in net.modules()]
        out_keys = list(net.state_dict().keys())
        """,
    ),
    "cnn_batchnorm_pool_dropout_eval": (
        """
        import torch.nn as nn

        class CNN(nn.Module):
            def __init__(self, num_classes=10):
                super().__init__()
                self.features = nn.Sequential(
                    nn.Conv2d(3, 8, kernel_size=3, padding=1),
                    nn.BatchNorm2d(8),
                    nn.ReLU(inplace=True),
                    nn.MaxPool2d(kernel_size=2, stride=2),
                    nn.Conv2d(8, 16, kernel_size=3, padding=1),
                    nn.ReLU(inplace=True),
                    nn.AdaptiveAvgPool2d((2, 2)),
                )
                self.classifier = nn.Sequential(
                    nn.Dropout(p=0.5),
                    nn.Linear(16 * 2 * 2, num_classes),
                )

            def forward(self, x):
                x = self.features(x)
                x = x.view(x.size(0), -1)
                return self.classifier(x)

        model = CNN()
        images = torch.from_numpy(
            np.tanh(np.arange(2 * 3 * 12 * 12, dtype=np.float32) / 100).reshape(2, 3, 12, 12)
        )
        """,
        """
        model.eval()
        with torch.no_grad():
            out = model(images)
        out_probs = torch.nn.functional.softmax(out, dim=1)
        out_repr = repr(model)
        out_names = [n for n, _ in model.named_parameters()]
        """,
    ),
    "modulelist_mlp_and_init": (
        """
        import torch.nn as nn

        class MLP(nn.Module):
            def __init__(self, sizes):
                super().__init__()
                self.layers = nn.ModuleList(
                    [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
                )

            def forward(self, x):
                for layer in self.layers[:-1]:
                    x = torch.tanh(layer(x))
                return self.layers[-1](x)

        mlp = MLP([3, 6, 6, 2])
        inputs = torch.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3) / 10)
        """,
        """
        def init_weights(m):
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.1)
                nn.init.zeros_(m.bias)

        mlp.apply(init_weights)
        out = mlp(inputs)
        out_repr = repr(mlp)
        out_children = [type(c).__name__ for c in mlp.children()]
        """,
    ),
    "logistic_regression_bce": (
        """
        import torch.nn as nn

        model = nn.Linear(2, 1)
        X = torch.from_numpy(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [-1.0, -2.0]], dtype=np.float32))
        y = torch.from_numpy(np.array([[1.0], [0.0], [1.0], [0.0]], dtype=np.float32))
        """,
        """
        opt = torch.optim.SGD(model.parameters(), lr=0.5)
        for _ in range(10):
            opt.zero_grad()
            loss = nn.BCEWithLogitsLoss()(model(X), y)
            loss.backward()
            opt.step()
        out_prob = torch.sigmoid(model(X))
        loss_bce = nn.BCELoss()(out_prob, y)
        out_grad_fn = loss_bce.grad_fn.name()
        """,
    ),
    "functional_pooling_and_upsample": (
        """
        import torch.nn.functional as F

        img = torch.arange(36, dtype=torch.float32).view(1, 1, 6, 6)
        """,
        """
        out_max, out_idx = F.max_pool2d(img, 2, return_indices=True)
        out_unpool = F.max_unpool2d(out_max, out_idx, 2)
        out_avg = F.avg_pool2d(img, 3, stride=2, padding=1, count_include_pad=False)
        out_up = F.interpolate(img, scale_factor=2, mode="nearest")
        out_bilinear = F.interpolate(img, size=(4, 4), mode="bilinear", align_corners=True)
        out_adaptive = F.adaptive_max_pool2d(img, (3, 2))
        out_onehot = F.one_hot(torch.tensor([0, 2, 1]), 3)
        """,
    ),
    "nll_log_softmax_manual": (
        """
        import torch.nn.functional as F

        logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
        target = torch.tensor([0, 1])
        """,
        """
        log_probs = F.log_softmax(logits, dim=1)
        loss_nll = F.nll_loss(log_probs, target)
        loss_ce = F.cross_entropy(logits, target)
        loss_ce.backward()
        out_grad = logits.grad
        out_same = torch.allclose(loss_nll, loss_ce)
        out_softmax = torch.softmax(logits, dim=1)
        """,
    ),
}


def _run(lib, name, sync_from=None):
    setup, run = (textwrap.dedent(s) for s in SNIPPETS[name])
    import sys

    ns = {"torch": lib, "np": np}
    saved = sys.modules.get("torch")
    names = ("torch.nn", "torch.nn.functional", "torch.optim", "torch.optim.lr_scheduler")
    saved_nn = {k: sys.modules.get(k) for k in names}
    try:
        if lib is tl:  # `import torch.nn as nn` inside a snippet must find tensorlab's
            sys.modules["torch"] = tl
            sys.modules["torch.nn"] = tl.nn
            sys.modules["torch.nn.functional"] = tl.nn.functional
            sys.modules["torch.optim"] = tl.optim
            sys.modules["torch.optim.lr_scheduler"] = tl.optim.lr_scheduler
        tl.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(setup, ns)
            if sync_from is not None:
                for key, value in ns.items():
                    if isinstance(value, lib.nn.Module):
                        state = sync_from[key]
                        value.load_state_dict(
                            {k: lib.from_numpy(v.copy()) for k, v in state.items()}
                        )
            # the weights right after setup (the run part trains them in place)
            modules = {
                k: {n: t.numpy().copy() for n, t in v.state_dict().items()}
                for k, v in ns.items()
                if isinstance(v, lib.nn.Module)
            }
            exec(run, ns)
    finally:
        for k, v in {"torch": saved, **saved_nn}.items():
            if v is not None:
                sys.modules[k] = v
            else:
                sys.modules.pop(k, None)
    return ns, modules


def _same(ours, theirs, torch, key):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tl.Tensor), key
        assert tuple(ours.shape) == tuple(theirs.shape), key
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], key
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=2e-4, atol=2e-5, err_msg=key
        )
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=2e-4, abs=2e-5), key
    elif isinstance(theirs, (list, tuple)) and theirs and isinstance(theirs[0], float):
        np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=2e-5, err_msg=key)
    elif isinstance(theirs, str):
        assert ours == theirs.replace("torch.", "tensorlab."), key
    else:
        assert ours == theirs, key


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_teaching_snippet_agrees_with_torch(torch, name):
    ns_ours, modules = _run(tl, name)
    ns_theirs, _ = _run(torch, name, sync_from=modules)
    keys = [
        k
        for k, v in ns_theirs.items()
        if k.startswith(("out", "loss")) and not callable(v) and not isinstance(v, torch.nn.Module)
    ]
    assert keys
    for key in keys:
        _same(ns_ours[key], ns_theirs[key], torch, key)
