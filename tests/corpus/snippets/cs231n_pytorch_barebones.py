# After CS231n assignment 2, PyTorch.ipynb part II "Barebones PyTorch" (flatten, two_layer_fc, three_layer_convnet with F.conv2d, random_weight, check_accuracy, train loop); CIFAR replaced by generated batches.
import numpy as np
import torch
import torch.nn.functional as F

dtype = torch.float32
device = torch.device('cpu')
print_every = 2


def flatten(x):
    N = x.shape[0]
    return x.view(N, -1)


def test_flatten():
    x = torch.arange(12).view(2, 1, 3, 2)
    print('Before flattening: ', x)
    print('After flattening: ', flatten(x))


test_flatten()


def two_layer_fc(x, params):
    x = flatten(x)
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def two_layer_fc_test():
    hidden_layer_size = 42
    x = torch.zeros((64, 50), dtype=dtype)
    w1 = torch.zeros((50, hidden_layer_size), dtype=dtype)
    w2 = torch.zeros((hidden_layer_size, 10), dtype=dtype)
    scores = two_layer_fc(x, [w1, w2])
    print(scores.size())


two_layer_fc_test()


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
    x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
    x = flatten(x)
    scores = x.mm(fc_w) + fc_b
    return scores


def three_layer_convnet_test():
    x = torch.zeros((64, 3, 32, 32), dtype=dtype)
    conv_w1 = torch.zeros((6, 3, 5, 5), dtype=dtype)
    conv_b1 = torch.zeros((6,))
    conv_w2 = torch.zeros((9, 6, 3, 3), dtype=dtype)
    conv_b2 = torch.zeros((9,))
    fc_w = torch.zeros((9 * 32 * 32, 10))
    fc_b = torch.zeros(10)
    scores = three_layer_convnet(x, [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b])
    print(scores.size())


three_layer_convnet_test()


def random_weight(shape):
    if len(shape) == 2:
        fan_in = shape[0]
    else:
        fan_in = np.prod(shape[1:])
    w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2. / fan_in)
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


random_weight((3, 5))
torch.manual_seed(0)
loader_train = [(torch.randn(16, 3, 8, 8), torch.randint(0, 10, (16,))) for _ in range(4)]
loader_val = [(torch.randn(16, 3, 8, 8), torch.randint(0, 10, (16,)))]


def check_accuracy_part2(loader, model_fn, params):
    split = 'val'
    print('Checking accuracy on the %s set' % split)
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)
            y = y.to(device=device, dtype=torch.int64)
            scores = model_fn(x, params)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))


def train_part2(model_fn, params, learning_rate):
    for t, (x, y) in enumerate(loader_train):
        x = x.to(device=device, dtype=dtype)
        y = y.to(device=device, dtype=torch.long)
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        if t % print_every == 0:
            print('Iteration %d, loss = %.4f' % (t, loss.item()))
            check_accuracy_part2(loader_val, model_fn, params)
            print()


hidden_layer_size = 40
learning_rate = 1e-2
w1 = random_weight((3 * 8 * 8, hidden_layer_size))
w2 = random_weight((hidden_layer_size, 10))
train_part2(two_layer_fc, [w1, w2], learning_rate)
conv_w1 = random_weight((8, 3, 5, 5))
conv_b1 = zero_weight((8,))
conv_w2 = random_weight((4, 8, 3, 3))
conv_b2 = zero_weight((4,))
fc_w = random_weight((4 * 8 * 8, 10))
fc_b = zero_weight((10,))
params = [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b]
train_part2(three_layer_convnet, params, 3e-3)
