# After the course lecture notes' idioms (Kak & Bouman): squeeze/unsqueeze into NCHW, F.conv2d.
import torch
import torch.nn.functional as F

arr = [[4.0, 4, 4, 4, 0, 0, 0, 0]] * 8
tsr_arr = torch.tensor(arr)
tsr_arr.shape
tsr_arr = torch.unsqueeze(tsr_arr, 0)
tsr_arr = torch.unsqueeze(tsr_arr, 0)
tsr_arr.shape
op = torch.tensor([[-1.0, 0, 1]] * 3).view(1, 1, 3, 3)
out = F.conv2d(tsr_arr, op)
out.shape, out[0, 0, 0]
F.conv2d(tsr_arr, op, padding=1)[0, 0, 0]
F.conv2d(tsr_arr, op, padding="same").shape
F.conv2d(tsr_arr, op, stride=2).shape
F.conv2d(tsr_arr, op.flip(-1, -2))[0, 0, 0]
conop = torch.nn.Conv2d(1, 1, 3, padding=1, padding_mode="reflect", bias=False)
with torch.no_grad():
    conop.weight.copy_(op)
conop(tsr_arr)[0, 0, 0]
torch.squeeze(out).shape
