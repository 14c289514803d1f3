"""``tensorlab.backends.mps``: Apple's GPU backend, never built nor available here."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
