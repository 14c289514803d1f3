"""``Module.load_state_dict``'s errors against torch 2.13: the lines in torch's order (missing
keys, unexpected keys, then size mismatches and non-tensor values in the model's order), strict
and not, and what ``strict=False`` returns."""

from __future__ import annotations

import pytest
from helpers import raises_same

import tensorlab as tl


def _model(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.Linear(3, 1))


def _cases(lib):
    sd = _model(lib).state_dict()
    drop = lambda *ks: {k: v for k, v in sd.items() if k not in ks}  # noqa: E731
    return {
        "missing": drop("0.bias"),
        "unexpected": {**sd, "extra.w": lib.ones(1), "2.gamma": lib.ones(1)},
        "size": {**sd, "0.weight": lib.ones(4, 2), "2.bias": lib.ones(2)},
        "all": {**drop("1.running_mean", "0.bias"), "zz": lib.ones(1), "0.weight": lib.ones(3, 3)},
        "size_before_missing_in_model_order": {**drop("2.weight"), "0.bias": lib.ones(5)},
        "notensor": {**sd, "0.weight": [1, 2]},
        "notensor_and_unexpected": {**sd, "1.weight": 3.0, "u": lib.ones(1)},
        "ok": sd,
    }


@pytest.mark.parametrize(
    "case",
    [
        "missing",
        "unexpected",
        "size",
        "all",
        "size_before_missing_in_model_order",
        "notensor",
        "notensor_and_unexpected",
        "ok",
    ],
)
@pytest.mark.parametrize("strict", [True, False])
def test_load_state_dict_errors_match_torch(torch, case, strict):
    def run(lib):
        r = _model(lib).load_state_dict(_cases(lib)[case], strict=strict)
        return repr(r)

    ours, theirs = raises_same(lambda: run(tl), lambda: run(torch))
    assert ours == theirs


def test_state_dict_must_be_a_mapping(torch):
    raises_same(lambda: _model(tl).load_state_dict([1]), lambda: _model(torch).load_state_dict([1]))
