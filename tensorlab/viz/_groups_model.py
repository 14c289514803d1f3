"""What the channel-groups figure shows, computed without matplotlib.

With ``groups = g``, ``Conv2d`` splits the ``C_in`` input channels and the ``C_out`` output
channels into ``g`` equal, consecutive blocks; output block ``k`` only sees input block ``k``.
The weight has shape ``(C_out, C_in / g, kH, kW)``: one ``kH x kW`` operator for every pair
(output channel, input channel of its block), i.e. ``C_out * C_in / g`` operators.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PRESETS = {
    "standard (4 → 4, groups=1)": dict(in_channels=4, out_channels=4, groups=1, kernel_size=3),
    "lecture: groups=2 (4 → 4)": dict(in_channels=4, out_channels=4, groups=2, kernel_size=3),
    "lecture: groups=4 (4 → 4)": dict(in_channels=4, out_channels=4, groups=4, kernel_size=3),
    "depthwise (4 → 8, groups=4)": dict(in_channels=4, out_channels=8, groups=4, kernel_size=3),
    "lecture: 16 → 64, groups=4": dict(in_channels=16, out_channels=64, groups=4, kernel_size=3),
    "lecture: illegal 2 → 3, groups=2": dict(
        in_channels=2, out_channels=3, groups=2, kernel_size=3
    ),
}


def _pair(k) -> tuple[int, int]:
    if isinstance(k, (tuple, list)):
        if len(k) != 2:
            raise ValueError(f"kernel_size must be an int or a pair, got {k!r}")
        return int(k[0]), int(k[1])
    return int(k), int(k)


def conv2d_error(in_channels: int, out_channels: int, groups: int, kernel_size=3) -> str | None:
    """PyTorch's ``ValueError`` text for ``nn.Conv2d(in, out, k, groups=g)``, or ``None`` if valid.

    Taken from constructing ``tensorlab.nn.Conv2d`` (which copies PyTorch's checks); until that
    exists, the same three checks PyTorch makes, in PyTorch's order.
    """
    try:
        from tensorlab.nn import Conv2d
    except (ImportError, AttributeError):
        Conv2d = None
    if Conv2d is not None:
        try:
            Conv2d(in_channels, out_channels, kernel_size, groups=groups, bias=False)
        except ValueError as e:
            return str(e)
        return None
    if groups <= 0:
        return "groups must be a positive integer"
    if in_channels % groups != 0:
        return "in_channels must be divisible by groups"
    if out_channels % groups != 0:
        return "out_channels must be divisible by groups"
    return None


@dataclass
class GroupsModel:
    in_channels: int
    out_channels: int
    groups: int
    kernel_size: tuple[int, int]
    error: str | None  # PyTorch's ValueError text when the configuration is illegal
    weight_shape: tuple[int, int, int, int] | None = None
    operators: int | None = None  # number of kH x kW operators in the weight
    parameters: int | None = None  # weight entries (bias excluded)
    bias_parameters: int = 0
    standard_parameters: int = 0  # what groups=1 would need (for comparison)
    in_group: list[int] = field(default_factory=list)  # group of each input channel (-1: none)
    out_group: list[int] = field(default_factory=list)
    connections: list[tuple[int, int, int]] = field(default_factory=list)  # (in, out, group)

    @property
    def ok(self) -> bool:
        return self.error is None

    def weight_input_channel(self, o: int, j: int) -> int:
        """The input channel that ``weight[o, j]`` is applied to."""
        per_in = self.in_channels // self.groups
        return self.out_group[o] * per_in + j

    def code(self) -> str:
        kH, kW = self.kernel_size
        k = kH if kH == kW else (kH, kW)
        return (
            f"nn.Conv2d({self.in_channels}, {self.out_channels}, {k}, groups={self.groups}, "
            "bias=False)"
        )

    def describe(self) -> str:
        if not self.ok:
            return f"{self.code()} raises ValueError: {self.error}"
        kH, kW = self.kernel_size
        compare = f" (groups=1 would need {self.standard_parameters})" if self.groups > 1 else ""
        return (
            f"{self.code()}: weight {tuple(self.weight_shape)}, {self.operators} operators of "
            f"{kH}×{kW}, {self.parameters} weights{compare}; each output channel sees "
            f"{self.in_channels // self.groups} of {self.in_channels} input channels"
        )


def groups_model(
    in_channels: int, out_channels: int, groups: int = 1, kernel_size=3, *, bias: bool = False
) -> GroupsModel:
    """Channel blocks, connections, weight shape and counts for ``Conv2d(in, out, k, groups=g)``.

    An illegal configuration is not raised: the model carries PyTorch's message in ``error``
    (the figure draws the channels and the message).
    """
    cin, cout, g = int(in_channels), int(out_channels), int(groups)
    if cin <= 0 or cout <= 0:
        raise ValueError("in_channels and out_channels must be positive")
    kH, kW = _pair(kernel_size)
    if kH <= 0 or kW <= 0:
        raise ValueError(f"kernel_size must be positive, got {(kH, kW)}")
    err = conv2d_error(cin, cout, g, (kH, kW))
    m = GroupsModel(cin, cout, g, (kH, kW), err)
    m.standard_parameters = cout * cin * kH * kW
    if err is not None:
        m.in_group = [-1] * cin
        m.out_group = [-1] * cout
        return m
    per_in, per_out = cin // g, cout // g
    m.in_group = [c // per_in for c in range(cin)]
    m.out_group = [o // per_out for o in range(cout)]
    m.weight_shape = (cout, per_in, kH, kW)
    m.operators = cout * per_in
    m.parameters = m.operators * kH * kW
    m.bias_parameters = cout if bias else 0
    m.connections = [
        (m.out_group[o] * per_in + j, o, m.out_group[o]) for o in range(cout) for j in range(per_in)
    ]
    return m
