# After d2l-en, "Concise Implementation of Recurrent Neural Networks" (rnn-concise): nn.RNN's
# shapes and state, an RNNModel with an output Linear layer, a few training steps.
import torch
from torch import nn
from torch.nn import functional as F

vocab_size, num_hiddens, batch_size, num_steps = 10, 32, 2, 6
rnn_layer = nn.RNN(vocab_size, num_hiddens)
rnn_layer
state = torch.zeros((1, batch_size, num_hiddens))
state.shape
X = torch.rand((num_steps, batch_size, vocab_size))
Y, state_new = rnn_layer(X, state)
Y.shape, state_new.shape
[name for name, _ in rnn_layer.named_parameters()]
[p.shape for p in rnn_layer.parameters()]


class RNNModel(nn.Module):
    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super(RNNModel, self).__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.num_hiddens = self.rnn.hidden_size
        if not self.rnn.bidirectional:
            self.num_directions = 1
            self.linear = nn.Linear(self.num_hiddens, self.vocab_size)
        else:
            self.num_directions = 2
            self.linear = nn.Linear(self.num_hiddens * 2, self.vocab_size)

    def forward(self, inputs, state):
        X = F.one_hot(inputs.T.long(), self.vocab_size)
        X = X.to(torch.float32)
        Y, state = self.rnn(X, state)
        output = self.linear(Y.reshape((-1, Y.shape[-1])))
        return output, state

    def begin_state(self, batch_size=1):
        if not isinstance(self.rnn, nn.LSTM):
            return torch.zeros(
                (self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)
            )
        else:
            return (
                torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)),
                torch.zeros((self.num_directions * self.rnn.num_layers, batch_size, self.num_hiddens)),
            )


net = RNNModel(rnn_layer, vocab_size=vocab_size)
net
state = net.begin_state(batch_size)
inputs = torch.tensor([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]])
targets = torch.tensor([[2, 3, 4, 5, 6, 7], [5, 4, 3, 2, 1, 0]])
y_hat, state = net(inputs, state)
y_hat.shape, state.shape
loss = nn.CrossEntropyLoss()
updater = torch.optim.SGD(net.parameters(), lr=0.5)
losses = []
for step in range(5):
    state = net.begin_state(batch_size)
    y_hat, state = net(inputs, state)
    l = loss(y_hat, targets.T.reshape(-1).long()).mean()
    updater.zero_grad()
    l.backward()
    updater.step()
    losses.append(round(l.item(), 4))
print(losses)
print(losses[-1] < losses[0])
lstm = RNNModel(nn.LSTM(vocab_size, num_hiddens), vocab_size)
out, (h, c) = lstm(inputs, lstm.begin_state(batch_size))
out.shape, h.shape, c.shape
gru = RNNModel(nn.GRU(vocab_size, num_hiddens, num_layers=2, bidirectional=True), vocab_size)
gru
out, h = gru(inputs, gru.begin_state(batch_size))
out.shape, h.shape
