# After MorvanZhou's PyTorch-Tutorial, 202_variable and 203_activation (Variable, .data, backward; relu/sigmoid/tanh/softplus curves).
import torch
from torch.autograd import Variable
import torch.nn.functional as F

tensor = torch.FloatTensor([[1, 2], [3, 4]])
variable = Variable(tensor, requires_grad=True)
print(tensor)
print(variable)
t_out = torch.mean(tensor * tensor)
v_out = torch.mean(variable * variable)
print(t_out)
print(v_out)
v_out.backward()
print(variable.grad)
print(variable)
print(variable.data)
print(variable.data.numpy())
type(variable).__name__, variable.requires_grad, v_out.grad_fn.name()
x = torch.linspace(-5, 5, 200)
x = Variable(x)
x_np = x.data.numpy()
y_relu = torch.relu(x).data.numpy()
y_sigmoid = torch.sigmoid(x).data.numpy()
y_tanh = torch.tanh(x).data.numpy()
y_softplus = F.softplus(x).data.numpy()
y_relu[95:105]
y_sigmoid[::40]
y_tanh[::40]
y_softplus[::40]
F.softmax(x[:5], dim=0)
