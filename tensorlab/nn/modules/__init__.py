"""``tensorlab.nn.modules``: layers, laid out as ``torch/nn/modules/``."""

from .container import Sequential
from .conv import Conv1d, Conv2d
from .conv import Conv3d as Conv3d
from .conv import ConvTranspose1d as ConvTranspose1d
from .conv import ConvTranspose2d as ConvTranspose2d
from .conv import ConvTranspose3d as ConvTranspose3d
from .conv import LazyConv1d as LazyConv1d
from .conv import LazyConv2d as LazyConv2d
from .conv import LazyConv3d as LazyConv3d
from .conv import LazyConvTranspose1d as LazyConvTranspose1d
from .conv import LazyConvTranspose2d as LazyConvTranspose2d
from .conv import LazyConvTranspose3d as LazyConvTranspose3d
from .fold import Fold as Fold
from .fold import Unfold as Unfold
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Module", "Sequential"]
from .activation import (
    ELU,
    GELU,
    Hardtanh,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from .batchnorm import (
    BatchNorm1d,
    BatchNorm2d,
    BatchNorm3d,
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
)
from .container import ModuleDict, ModuleList
from .distance import PairwiseDistance
from .dropout import Dropout, Dropout2d
from .flatten import Flatten, Unflatten
from .lazy import LazyModuleMixin
from .linear import Identity, LazyLinear, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .normalization import LayerNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    ConstantPad1d,
    ConstantPad2d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReplicationPad1d,
    ReplicationPad2d,
    ZeroPad1d,
    ZeroPad2d,
)
from .pooling import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool1d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
    MaxUnpool2d,
)
from .sparse import Embedding
from .upsampling import Upsample

__all__ += [
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "CircularPad1d",
    "CircularPad2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "CrossEntropyLoss",
    "Dropout",
    "Dropout2d",
    "ELU",
    "Embedding",
    "Flatten",
    "GELU",
    "Hardtanh",
    "Identity",
    "L1Loss",
    "LazyLinear",
    "LayerNorm",
    "LazyModuleMixin",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "CosineEmbeddingLoss",
    "GaussianNLLLoss",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "KLDivLoss",
    "MarginRankingLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "PairwiseDistance",
    "PoissonNLLLoss",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "MaxPool1d",
    "MaxPool2d",
    "MaxUnpool2d",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "ReLU6",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "Unflatten",
    "Upsample",
    "ZeroPad1d",
    "ZeroPad2d",
]
__all__ += ["Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Fold", "Unfold"]
__all__ += ["LazyConv1d", "LazyConv2d", "LazyConv3d"]
__all__ += ["LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]
from .pixelshuffle import PixelShuffle, PixelUnshuffle  # noqa: E402
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["PixelShuffle", "PixelUnshuffle"]
__all__ += ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
