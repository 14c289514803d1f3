# After dvgodoy's Deep Learning with PyTorch Step-by-Step, ch. 5 (forward hooks capturing each layer's output for visualisation, removable handles; "attach_hooks"/"remove_hooks" without the StepByStep class).
import torch
import torch.nn as nn

torch.manual_seed(13)
model_cnn1 = nn.Sequential()
n_channels = 1
model_cnn1.add_module('conv1', nn.Conv2d(in_channels=1, out_channels=n_channels, kernel_size=3))
model_cnn1.add_module('relu1', nn.ReLU())
model_cnn1.add_module('maxp1', nn.MaxPool2d(kernel_size=2))
model_cnn1.add_module('flatten', nn.Flatten())
model_cnn1.add_module('fc1', nn.Linear(in_features=n_channels * 4 * 4, out_features=10))
model_cnn1.add_module('relu2', nn.ReLU())
model_cnn1.add_module('fc2', nn.Linear(in_features=10, out_features=3))
dummy_model = nn.Linear(1, 1)
dummy_list = []


def dummy_hook(layer, inputs, outputs):
    dummy_list.append((layer, inputs, outputs))


dummy_handle = dummy_model.register_forward_hook(dummy_hook)
dummy_handle
dummy_x = torch.tensor([0.3])
dummy_model.forward(dummy_x)
dummy_list
dummy_model(dummy_x)
len(dummy_list), dummy_list[0][0]
dummy_list[0][1]
dummy_list[0][2]
dummy_handle.remove()
dummy_model(dummy_x)
len(dummy_list)
visualization = {}
handles = {}
layer_names = {layer: name for name, layer in model_cnn1.named_modules()}
layers_to_hook = ['conv1', 'relu1', 'maxp1', 'flatten', 'fc1', 'relu2', 'fc2']


def hook_fn(layer, inputs, outputs):
    name = layer_names[layer]
    values = outputs.detach().cpu().numpy()
    if visualization.get(name) is None:
        visualization[name] = values
    else:
        import numpy as np
        visualization[name] = np.concatenate([visualization[name], values])


for name, layer in model_cnn1.named_modules():
    if name in layers_to_hook:
        handles[name] = layer.register_forward_hook(hook_fn)

images_batch = torch.rand(6, 1, 10, 10)
model_cnn1.eval()
logits = model_cnn1(images_batch)
{k: v.shape for k, v in visualization.items()}
visualization['fc2'][:2]
for handle in handles.values():
    handle.remove()

handles = {}
model_cnn1(images_batch).shape
len(visualization['conv1'])
