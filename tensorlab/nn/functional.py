"""``tensorlab.nn.functional``: the functional forms of the layers, as ``torch.nn.functional``.

A facade: each family lives in a module of :mod:`tensorlab.nn._functional` (as torch's
``functional.py`` has sections): ``conv`` (conv1d/2d/3d), ``padding`` (pad), ``fold``
(fold/unfold), ``activation``, ``linear``, ``pooling``, ``normalization``, ``loss``, ``sparse``,
``pixelshuffle``, ``upsampling``, ``attention`` (scaled_dot_product_attention); ``conv_transpose*``
come from :mod:`tensorlab.nn._conv_transpose`.
"""

from __future__ import annotations

from ._conv_transpose import conv_transpose1d, conv_transpose2d, conv_transpose3d
from ._functional.conv import conv1d, conv2d, conv3d
from ._functional.fold import fold, unfold
from ._functional.padding import pad

__all__ = ["conv1d", "conv2d", "pad"]
__all__ += ["conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "fold", "unfold"]

from ._functional.activation import (  # noqa: E402
    dropout,
    dropout2d,
    elu,
    gelu,
    hardtanh,
    leaky_relu,
    leaky_relu_,
    log_softmax,
    relu,
    relu6,
    relu_,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from ._functional.attention import scaled_dot_product_attention  # noqa: E402
from ._functional.linear import linear, one_hot  # noqa: E402
from ._functional.pooling import (  # noqa: E402
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    max_pool1d,
    max_pool2d,
    max_pool2d_with_indices,
    max_unpool2d,
)

__all__ += [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "dropout",
    "dropout2d",
    "elu",
    "gelu",
    "hardtanh",
    "relu6",
    "silu",
    "softplus",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "log_softmax",
    "max_pool1d",
    "max_pool2d",
    "max_pool2d_with_indices",
    "max_unpool2d",
    "one_hot",
    "relu",
    "relu_",
    "sigmoid",
    "softmax",
    "tanh",
]

from ._functional.loss import (  # noqa: E402
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from ._functional.loss_more import (  # noqa: E402
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    logsigmoid,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    pairwise_distance,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from ._functional.normalization import batch_norm, layer_norm  # noqa: E402
from ._functional.pixelshuffle import pixel_shuffle, pixel_unshuffle  # noqa: E402
from ._functional.sparse import embedding  # noqa: E402
from ._functional.upsampling import interpolate, upsample  # noqa: E402

__all__ += [
    "cosine_embedding_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "huber_loss",
    "kl_div",
    "logsigmoid",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "pairwise_distance",
    "poisson_nll_loss",
    "smooth_l1_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "batch_norm",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "embedding",
    "interpolate",
    "l1_loss",
    "layer_norm",
    "mse_loss",
    "nll_loss",
    "pixel_shuffle",
    "pixel_unshuffle",
    "scaled_dot_product_attention",
    "upsample",
]
