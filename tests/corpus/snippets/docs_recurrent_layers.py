# After the PyTorch docs' examples for nn.RNN, nn.LSTM, nn.GRU and the cells, d2l's Seq2Seq
# encoder (Embedding + GRU), the deprecated autograd.Variable and a profiled forward pass.
import torch
from torch import nn
from torch.autograd import Variable
from torch.autograd import profiler

rnn = nn.RNN(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
output.shape, hn.shape
lstm = nn.LSTM(10, 20, 2)
c0 = torch.randn(2, 3, 20)
output, (hn, cn) = lstm(input, (h0, c0))
output.shape, hn.shape, cn.shape
proj = nn.LSTM(10, 20, proj_size=5, batch_first=True, bidirectional=True)
proj
output, (hn, cn) = proj(torch.randn(3, 5, 10))
output.shape, hn.shape, cn.shape
list(proj.state_dict().keys())
gru = nn.GRU(10, 20, 2)
output, hn = gru(input, h0)
output.shape, hn.shape
rnn(torch.randn(5, 3, 11))
lstm(input, (h0, torch.randn(2, 4, 20)))
nn.GRU(10, 20, proj_size=3)
nn.RNN(10, 20, nonlinearity="sigmoid")
cell = nn.RNNCell(10, 20)
hx = torch.randn(3, 20)
outs = []
for i in range(6):
    hx = cell(torch.randn(3, 10), hx)
    outs.append(hx)
torch.stack(outs).shape
lcell = nn.LSTMCell(10, 20)
hx, cx = torch.randn(3, 20), torch.randn(3, 20)
for i in range(4):
    hx, cx = lcell(torch.randn(3, 10), (hx, cx))
hx.shape, cx.shape
gcell = nn.GRUCell(10, 20)
gcell(torch.randn(10)).shape
cell, lcell, gcell


class Seq2SeqEncoder(nn.Module):
    def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0, **kwargs):
        super(Seq2SeqEncoder, self).__init__(**kwargs)
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)

    def forward(self, X, *args):
        X = self.embedding(X)
        X = X.permute(1, 0, 2)
        output, state = self.rnn(X)
        return output, state


encoder = Seq2SeqEncoder(vocab_size=10, embed_size=8, num_hiddens=16, num_layers=2)
encoder.eval()
X = torch.zeros((4, 7), dtype=torch.long)
output, state = encoder(X)
output.shape, state.shape
x = Variable(torch.ones(2, 2), requires_grad=True)
y = (x * 3).sum()
y.backward()
x.grad
Variable(torch.ones(2)).requires_grad
isinstance(x, Variable)
with profiler.profile() as prof:
    with profiler.record_function("encoder_forward"):
        out, _ = encoder(X)
out.shape
"encoder_forward" in [e.key for e in prof.key_averages()]
