# After d2l-en, "Recurrent Neural Network Implementation from Scratch" (rnn-scratch): parameters
# from torch.randn, one-hot inputs, the tanh step by hand, gradient clipping, a few SGD steps.
import math
import torch
from torch import nn
from torch.nn import functional as F

vocab_size, num_hiddens, batch_size, num_steps = 12, 16, 2, 5
F.one_hot(torch.tensor([0, 2]), vocab_size)
X = torch.arange(10).reshape((2, 5))
F.one_hot(X.T, vocab_size).shape


def get_params(vocab_size, num_hiddens):
    num_inputs = num_outputs = vocab_size

    def normal(shape):
        return torch.randn(shape) * 0.01

    W_xh = normal((num_inputs, num_hiddens))
    W_hh = normal((num_hiddens, num_hiddens))
    b_h = torch.zeros(num_hiddens)
    W_hq = normal((num_hiddens, num_outputs))
    b_q = torch.zeros(num_outputs)
    params = [W_xh, W_hh, b_h, W_hq, b_q]
    for param in params:
        param.requires_grad_(True)
    return params


def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros((batch_size, num_hiddens)),)


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.mm(X, W_xh) + torch.mm(H, W_hh) + b_h)
        Y = torch.mm(H, W_hq) + b_q
        outputs.append(Y)
    return torch.cat(outputs, dim=0), (H,)


class RNNModelScratch:
    def __init__(self, vocab_size, num_hiddens, get_params, init_state, forward_fn):
        self.vocab_size, self.num_hiddens = vocab_size, num_hiddens
        self.params = get_params(vocab_size, num_hiddens)
        self.init_state, self.forward_fn = init_state, forward_fn

    def __call__(self, X, state):
        X = F.one_hot(X.T, self.vocab_size).type(torch.float32)
        return self.forward_fn(X, state, self.params)

    def begin_state(self, batch_size):
        return self.init_state(batch_size, self.num_hiddens)


net = RNNModelScratch(vocab_size, num_hiddens, get_params, init_rnn_state, rnn)
state = net.begin_state(X.shape[0])
Y, new_state = net(X, state)
Y.shape, len(new_state), new_state[0].shape


def grad_clipping(net, theta):
    params = net.params
    norm = torch.sqrt(sum(torch.sum((p.grad**2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


corpus = torch.tensor([1, 3, 5, 7, 9, 11, 2, 4, 6, 8, 10, 0] * 3)
loss = nn.CrossEntropyLoss()
perplexities = []
for epoch in range(6):
    state = None
    for i in range(0, len(corpus) - batch_size * num_steps - 1, num_steps * batch_size):
        X = corpus[i : i + batch_size * num_steps].reshape(batch_size, num_steps)
        Y = corpus[i + 1 : i + 1 + batch_size * num_steps].reshape(batch_size, num_steps)
        if state is None:
            state = net.begin_state(batch_size)
        else:
            state = tuple(s.detach_() for s in state)
        y_hat, state = net(X, state)
        l = loss(y_hat, Y.T.reshape(-1)).mean()
        l.backward()
        grad_clipping(net, 1)
        with torch.no_grad():
            for param in net.params:
                param -= 1.0 * param.grad
                param.grad.zero_()
    perplexities.append(math.exp(l.item()))
print([f"{p:.3f}" for p in perplexities])
