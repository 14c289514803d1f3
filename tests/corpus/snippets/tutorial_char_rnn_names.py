# After PyTorch's tutorial "NLP From Scratch: Classifying Names with a Character-Level RNN":
# letters as one-hot tensors, an nn.RNN + Linear + LogSoftmax classifier, NLLLoss, SGD steps.
import string
import torch
import torch.nn as nn
import torch.nn.functional as F

allowed_characters = string.ascii_letters + " .,;'"
n_letters = len(allowed_characters)
n_letters


def letterToIndex(letter):
    return allowed_characters.find(letter)


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(lineToTensor("J"))
print(lineToTensor("Jones").size())


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()
        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)
        return output


n_hidden = 128
labels_uniq = ["English", "French", "German", "Italian"]
rnn = CharRNN(n_letters, n_hidden, len(labels_uniq))
print(rnn)
input = lineToTensor("Albert")
output = rnn(input)
output.shape, output.exp().sum().round(decimals=4)


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


isinstance(label_from_output(output, labels_uniq)[0], str)
data = [("Smith", 0), ("Dubois", 1), ("Schmidt", 2), ("Rossi", 3), ("Jones", 0), ("Martin", 1)]
criterion = nn.NLLLoss()
optimizer = torch.optim.SGD(rnn.parameters(), lr=0.15)
rnn.train()
history = []
for epoch in range(4):
    total = 0.0
    for name, label in data:
        optimizer.zero_grad()
        output = rnn(lineToTensor(name))
        loss = criterion(output, torch.tensor([label]))
        loss.backward()
        nn.utils.clip_grad_norm_(rnn.parameters(), 3)
        optimizer.step()
        total += loss.item()
    history.append(round(total / len(data), 4))
print(history)
history[-1] < history[0]
