"""``tensorlab.backends.cudnn``: settable flags with PyTorch's defaults; cuDNN is never available."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit = None


def is_available() -> bool:
    return False


def version():
    return None
