# After PyTorch's docs on the meta device (torch.device / Module.to_empty / load_state_dict
# with assign=True): build a model without memory, then give it weights.
import torch
from torch import nn

torch.manual_seed(0)
trained = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
state = trained.state_dict()

with torch.device("meta"):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print(model[0].weight)
model[0].weight.is_meta, model[0].weight.shape, model[0].weight.requires_grad

# load_state_dict(assign=True) puts the checkpoint's tensors into the module
model.load_state_dict(state, assign=True)
type(model[0].weight).__name__, model[0].weight.device.type, model[0].weight.requires_grad
x = torch.randn(3, 4)
torch.equal(model(x), trained(x))

# to_empty gives storage of the right shapes on the cpu, then we initialise it
with torch.device("meta"):
    big = nn.Linear(1000, 1000)
big = big.to_empty(device="cpu")
big.weight.device.type, big.weight.shape, type(big.weight).__name__
with torch.no_grad():
    big.weight.fill_(0.5)
    big.bias.zero_()
big(torch.ones(1, 1000))[0, :3]

# moving a meta module with .to() has no data to copy
try:
    nn.Linear(2, 2, device="meta").to("cpu")
except NotImplementedError as e:
    print("NotImplementedError:", str(e)[:40])

# and a model can be sent to the meta device
m = nn.Linear(3, 2).to("meta")
print(m.weight)
m(torch.randn(5, 3, device="meta")).shape
