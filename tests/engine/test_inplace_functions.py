"""``torch.sin_(t)`` and the other in-place functions torch exposes: the method on ``t``, the same
values, the same object back, and torch's error for a non-tensor."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import assert_same, raises_same

import tensorlab as tl
from tensorlab._ops.native_functions import INPLACE_FUNCTIONS

ARGS = {  # functions that need arguments beyond the tensor
    "clamp_": (-0.5, 0.5),
    "clamp_max_": (0.25,),
    "clamp_min_": (-0.25,),
    "clip_": (-0.5, 0.5),
    "fill_": (2.5,),
    "as_strided_": ((2, 2), (1, 2)),
    "index_put_": "index_put",
    "resize_as_": "resize_as",
}
NAMES = [n for n in INPLACE_FUNCTIONS if hasattr(tl, n)]


def _call(lib, name, x):
    args = ARGS.get(name, ())
    if args == "index_put":
        args = ((lib.tensor([0, 2]),), lib.tensor([7.0, 8.0]))
    elif args == "resize_as":
        args = (lib.zeros(2, 3),)
    return getattr(lib, name)(x, *args)


@pytest.mark.parametrize("name", NAMES)
def test_inplace_function_is_the_method(torch, name):
    values = np.linspace(0.1, 0.9, 6, dtype=np.float32)
    ours, theirs = tl.from_numpy(values.copy()), torch.from_numpy(values.copy())
    got, want = _call(tl, name, ours), _call(torch, name, theirs)
    assert (got is ours) == (want is theirs)
    assert_same(got, want, exact=False, rtol=1e-6, atol=1e-7)
    assert_same(ours, theirs, exact=False, rtol=1e-6, atol=1e-7)
    if name in ARGS:  # overloaded in torch: "received an invalid combination of arguments"
        for lib in (tl, torch):
            with pytest.raises(TypeError, match=name):
                getattr(lib, name)(1.0, 0.5)
    else:
        raises_same(lambda: getattr(tl, name)(1.0), lambda: getattr(torch, name)(1.0))


def test_every_name_is_one_torch_has(torch):
    assert all(hasattr(torch, n) for n in INPLACE_FUNCTIONS)
    assert len(NAMES) >= 40
