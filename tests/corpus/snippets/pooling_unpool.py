# After the MaxUnpool2d / pooling docs idioms used in segmentation course notebooks.
import torch
import torch.nn as nn
import torch.nn.functional as F

pool = nn.MaxPool2d(2, stride=2, return_indices=True)
unpool = nn.MaxUnpool2d(2, stride=2)
inp = torch.tensor([[[[1.0, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]]])
output, indices = pool(inp)
output, indices
unpool(output, indices)
F.max_pool2d(inp, 3, stride=2, ceil_mode=True)
F.avg_pool2d(inp, 3, stride=2, padding=1)
F.avg_pool2d(inp, 3, stride=2, padding=1, count_include_pad=False)
nn.AdaptiveAvgPool2d((1, 1))(inp)
nn.AdaptiveMaxPool2d(2)(inp)
F.interpolate(inp, scale_factor=2, mode="nearest").shape
F.interpolate(inp, size=(6, 6), mode="bilinear", align_corners=False)[0, 0, 0]
nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)(inp).shape
F.max_pool1d(torch.arange(8.0).view(1, 1, 8), 2)
