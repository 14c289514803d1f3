"""``tensorlab.device`` and what a CPU-only PyTorch build does with every other device.

tensorlab, like the CPU build of PyTorch 2.13 the tests use as oracle, has one device with data:
the cpu; and the ``meta`` device, whose tensors have shapes and no data (:mod:`tensorlab._meta`).
``device('cuda')`` is a valid object (PyTorch only complains when a tensor is put there), and a
tensor asked to go to ``'cuda'`` raises the ``AssertionError`` a CPU-only build raises.
"""

from __future__ import annotations

import re

# PyTorch's DeviceType names, in the order its parser lists them
DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()

NO_CUDA = "Torch not compiled with CUDA enabled"  # PyTorch's own words (an AssertionError)
NO_ACCELERATOR = "Cannot access accelerator device when none is available."


class device:
    """Where a tensor lives: ``device('cpu')``, ``device('cuda', 0)``, ``device('cuda:1')``.

    Prints as PyTorch's does (``device(type='cpu')``); equal when type and index are equal.
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type=None, index=None):
        if isinstance(type, device):
            if index is not None:
                raise _bad_args(type, index)
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str) or (
            index is not None and (not isinstance(index, int) or isinstance(index, bool))
        ):
            raise _bad_args(type, index)
        kind, parsed = _parse(type)
        if index is not None:
            if parsed is not None:
                raise RuntimeError(
                    "type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
            parsed = index
        self._type, self._index = kind, parsed

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self):
        return self._index

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other) -> bool:
        if not isinstance(other, device):
            return False
        return self._type == other._type and self._index == other._index

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self):
        return (device, (self._type, self._index))

    def __enter__(self):
        """``with device('cuda'):`` makes it the default of the factory functions inside."""
        _CONTEXT.append(self)
        return self

    def __exit__(self, *exc):
        _CONTEXT.pop()
        return False


def _parse(s: str):
    if not s:
        raise RuntimeError("Device string must not be empty")
    m = re.fullmatch(r"([a-z_]+)(?::(0|[1-9][0-9]*))?", s)
    kind = s.split(":")[0]
    if kind not in DEVICE_TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {s}"
        )
    if m is None:
        raise RuntimeError(f"Invalid device string: '{s}'")
    return kind, None if m.group(2) is None else int(m.group(2))


def _bad_args(type_, index) -> TypeError:
    got = (
        builtins_type_name(type_)
        if index is None
        else (f"{builtins_type_name(type_)}, {builtins_type_name(index)}")
    )
    return TypeError(
        f"device() received an invalid combination of arguments - got ({got}), but expected one "
        "of:\n * (tensorlab.device device)\n      didn't match because some of the arguments have "
        f"invalid types: (!{builtins_type_name(type_)}!)\n * (str type, int index = -1)\n"
    )


def builtins_type_name(x) -> str:
    return type(x).__name__


CPU = device("cpu")


class layout:
    """``tensorlab.strided``: how a tensor's elements are stored (tensorlab has only strided)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"tensorlab.{self.name}"

    def __reduce__(self):
        return self.name  # the module attribute of that name


strided = layout("strided")


def as_device(d) -> device:
    """A ``device=`` argument as a device object (a string, an int, or a device)."""
    if isinstance(d, device):
        return d
    if isinstance(d, str):
        return device(d)
    if isinstance(d, int) and not isinstance(d, bool):
        raise RuntimeError(NO_ACCELERATOR)
    raise TypeError(f"expected a device (str or tensorlab.device), got {type(d).__name__}")


_CONTEXT: list = []  # devices entered with ``with device(...)``, innermost last
_DEFAULT: list = [None]  # set by ``set_default_device``


def default_device():
    """The device factory functions use when not given one (None: the cpu)."""
    return _CONTEXT[-1] if _CONTEXT else _DEFAULT[0]


def set_default_device(d) -> None:
    """``tensorlab.set_default_device``: later factory calls without ``device=`` go there."""
    _DEFAULT[0] = None if d is None else as_device(d)


def get_default_device() -> device:
    d = default_device()
    if d is None:
        return CPU
    check_factory_device(d)
    return d


def check_factory_device(d, use_default: bool = True) -> bool:
    """``device=`` on a factory function (``zeros``, ``tensor``, ...): the cpu (False), the meta
    device (True: the factory makes a tensor without data), or PyTorch's error. Without
    ``device=``, the default device (``set_default_device``, ``with device(...)``) applies,
    except for ``*_like`` and ``new_*`` (``use_default=False``), as in PyTorch."""
    if d is None:
        d = default_device() if use_default else None
        if d is None:
            return False
    kind = as_device(d).type
    if kind == "cpu":
        return False
    if kind == "meta":
        return True
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    raise NotImplementedError(
        f"Could not run 'aten::empty.memory_format' with arguments from the "
        f"'{_dispatch_name(kind)}' backend. This could be because the operator doesn't exist for "
        "this backend, or was omitted during the selective/custom build process (if using custom "
        "build)."
    )


def check_to_device(d):
    """``Tensor.to(device)`` / ``Module.to(device)``: ``'cpu'``, ``'meta'`` (None when no device
    is given), or PyTorch's CPU-build error."""
    if d is None:
        return None
    kind = as_device(d).type
    if kind in ("cpu", "meta"):
        return kind
    if kind == "cuda":
        raise AssertionError(NO_CUDA)
    raise RuntimeError(f"PyTorch is not linked with support for {kind} devices")


def _dispatch_name(kind: str) -> str:
    return {"mps": "MPS", "xpu": "XPU", "xla": "XLA", "hip": "HIP", "ipu": "IPU"}.get(
        kind, kind.upper()
    )
