# After Karpathy's makemore part 1 (bigram counts, sampling with a seeded Generator, the likelihood); names inlined.
import torch

words = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia",
         "harper", "evelyn", "abigail", "emily", "elizabeth", "mila", "ella", "avery",
         "sofia", "camila", "aria", "scarlett", "victoria", "madison", "luna", "grace"]
len(words), min(len(w) for w in words), max(len(w) for w in words)
N = torch.zeros((27, 27), dtype=torch.int32)
chars = sorted(list(set(''.join(words) + 'abcdefghijklmnopqrstuvwxyz')))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi['.'] = 0
itos = {i: s for s, i in stoi.items()}
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1

N[0]
N.sum(), N.max(), N.dtype
p = N[0].float()
p = p / p.sum()
p
g = torch.Generator().manual_seed(2147483647)
p2 = torch.rand(3, generator=g)
p2 = p2 / p2.sum()
p2
torch.multinomial(p2, num_samples=100, replacement=True, generator=g)
P = (N + 1).float()
P /= P.sum(1, keepdims=True)
P[0].sum(), P.sum(1).shape
g = torch.Generator().manual_seed(2147483647)
for i in range(5):
    out = []
    ix = 0
    while True:
        p = P[ix]
        ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
        out.append(itos[ix])
        if ix == 0:
            break
    print(''.join(out))

log_likelihood = 0.0
n = 0
for w in words:
    chs = ['.'] + list(w) + ['.']
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        prob = P[ix1, ix2]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1

print(f'{log_likelihood=}')
nll = -log_likelihood
print(f'{nll/n}')
