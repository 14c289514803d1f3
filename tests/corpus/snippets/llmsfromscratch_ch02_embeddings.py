# After rasbt's LLMs-from-scratch, ch. 2 (a toy tokenizer, sliding-window input/target pairs, token and positional embeddings).
import re

import torch

raw_text = "I HAD always thought Jack Gisburn rather a cheap genius--though a good fellow enough--so it was no great surprise to me to hear that, in the height of his glory, he had dropped his painting."
preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', raw_text)
preprocessed = [item.strip() for item in preprocessed if item.strip()]
print(len(preprocessed))
all_words = sorted(set(preprocessed))
all_words.extend(["<|endoftext|>", "<|unk|>"])
vocab = {token: integer for integer, token in enumerate(all_words)}
len(vocab)


class SimpleTokenizerV2:
    def __init__(self, vocab):
        self.str_to_int = vocab
        self.int_to_str = {i: s for s, i in vocab.items()}

    def encode(self, text):
        preprocessed = re.split(r'([,.:;?_!"()\']|--|\s)', text)
        preprocessed = [item.strip() for item in preprocessed if item.strip()]
        preprocessed = [item if item in self.str_to_int else "<|unk|>" for item in preprocessed]
        return [self.str_to_int[s] for s in preprocessed]

    def decode(self, ids):
        text = " ".join([self.int_to_str[i] for i in ids])
        return re.sub(r'\s+([,.?!"()\'])', r'\1', text)


tokenizer = SimpleTokenizerV2(vocab)
enc_text = tokenizer.encode(raw_text)
tokenizer.decode(tokenizer.encode("Hello, I had a cheap genius."))
max_length = 4
stride = 4
input_ids, target_ids = [], []
for i in range(0, len(enc_text) - max_length, stride):
    input_chunk = enc_text[i:i + max_length]
    target_chunk = enc_text[i + 1: i + max_length + 1]
    input_ids.append(torch.tensor(input_chunk))
    target_ids.append(torch.tensor(target_chunk))

inputs, targets = input_ids[0].unsqueeze(0), target_ids[0].unsqueeze(0)
print("Inputs:\n", torch.stack(input_ids[:2]))
print("\nTargets:\n", torch.stack(target_ids[:2]))
input_ids = torch.tensor([2, 3, 5, 1])
vocab_size = 6
output_dim = 3
torch.manual_seed(123)
embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
print(embedding_layer.weight)
print(embedding_layer(torch.tensor([3])))
print(embedding_layer(input_ids))
vocab_size = 50257
output_dim = 256
token_embedding_layer = torch.nn.Embedding(vocab_size, output_dim)
context_length = max_length
batch = torch.stack(target_ids[:8]) % 40
token_embeddings = token_embedding_layer(batch)
print(token_embeddings.shape)
pos_embedding_layer = torch.nn.Embedding(context_length, output_dim)
pos_embeddings = pos_embedding_layer(torch.arange(max_length))
print(pos_embeddings.shape)
input_embeddings = token_embeddings + pos_embeddings
print(input_embeddings.shape)
input_embeddings[0, 0, :5]
