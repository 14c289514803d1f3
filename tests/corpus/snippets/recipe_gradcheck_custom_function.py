# After the "Extending PyTorch" notes and the custom-Function tutorial: a Function with a hand-
# written backward checked with gradcheck/gradgradcheck, a broken backward caught, inference mode.
import torch
from torch.autograd import Function, gradcheck, gradgradcheck


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class BadSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # should be 2 * x


torch.manual_seed(0)
input = (
    torch.randn(4, 3, dtype=torch.double, requires_grad=True),
    torch.randn(2, 3, dtype=torch.double, requires_grad=True),
    torch.randn(2, dtype=torch.double, requires_grad=True),
)
gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4)
gradcheck(LinearFunction.apply, input, fast_mode=True)
gradgradcheck(torch.sigmoid, (torch.randn(3, dtype=torch.double, requires_grad=True),))
x = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
gradcheck(BadSquare.apply, (x,), raise_exception=False)
try:
    gradcheck(BadSquare.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
model = torch.nn.Linear(3, 2)
with torch.inference_mode():
    out = model(torch.randn(5, 3))
out.requires_grad, out.is_inference(), torch.is_inference_mode_enabled()
predict = torch.inference_mode()(lambda batch: model(batch).argmax(1))
predict(torch.randn(4, 3)).is_inference()
with torch.inference_mode():
    feats = torch.randn(5, 3)
try:
    model(feats).sum().backward()
except RuntimeError as e:
    print(str(e).split(".")[0])
model(feats.clone()).sum().backward()
model.weight.grad.shape
