"""``tensorlab.backends``: the flags tutorials set (``cudnn.benchmark``) and the availability
questions they ask (``mps.is_available()``), answered as a CPU-only PyTorch build answers them."""

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
