"""Answers as JSON (never pickle, never running the answer's code) and the staged comparison."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import to_torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorlab as tl
from tensorlab.grading.encode import (
    MISSING,
    ArrayAnswer,
    DecodeError,
    Opaque,
    Raised,
    decode,
    decode_args,
    encode,
    encode_args,
    encode_raised,
    roundtrip,
)
from tensorlab.grading.judge import compare
from tensorlab.grading.model import Expect

E = Expect()


def rt(x, table=None):
    """encode -> JSON text -> decode, as between a kernel and the grader."""
    return decode(json.loads(json.dumps(encode(x, table))))


# ---------------------------------------------------------------------------- encoding
def test_plain_values_roundtrip():
    assert rt(None) is None
    assert rt(True) is True and rt(np.bool_(False)) is False
    assert rt(3) == 3 and type(rt(np.int32(3))) is int
    assert rt(2.5) == 2.5 and type(rt(np.float32(0.5))) is float
    assert np.isnan(rt(float("nan"))) and rt(float("-inf")) == -np.inf
    assert rt("héllo") == "héllo"
    assert rt((1, [2, (3,)])) == (1, [2, (3,)])
    assert rt(tl.Size([2, 3])) == (2, 3)
    assert rt(range(3)) == (0, 1, 2)
    assert rt({"a", "b"}) == frozenset({"a", "b"})
    assert rt({"k": 1}) == {"k": 1}
    assert isinstance(rt(len), Opaque) and isinstance(rt(lambda: 0), Opaque)


@given(
    hnp.arrays(
        st.sampled_from(["bool", "uint8", "int32", "int64", "float32", "float64"]),
        hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    )
)
def test_arrays_roundtrip_exactly(arr):
    out = rt(arr)
    assert isinstance(out, ArrayAnswer) and out.kind == "ndarray"
    assert out.dtype == str(arr.dtype) and out.shape == arr.shape
    np.testing.assert_array_equal(out.array, arr)
    assert not out.array.flags.writeable


VIEWS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.transpose(0, 1),
    "sliced": lambda t: t[1:, ::2],
    "expanded": lambda t: t[:1].expand(3, 4),
    "selected": lambda t: t[2],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_tensor_layout_travels(torch, name):
    t = VIEWS[name](tl.arange(12, dtype=tl.float32).view(3, 4))
    out = rt(t)
    ref = to_torch(torch, t)
    assert out.kind == "tensor" and out.dtype == "float32"
    assert out.shape == tuple(ref.shape) and out.stride == ref.stride()
    assert out.offset == ref.storage_offset()
    np.testing.assert_array_equal(out.array, ref.numpy())


def test_storage_sharing_is_measured_not_reported():
    x = tl.arange(24).view(2, 3, 4)
    payload, table = encode_args((x, np.zeros((2, 2))))
    args, ktable = decode_args(json.loads(json.dumps(payload)))  # the kernel's copy
    kx, karr = args
    assert (
        kx.stride() == x.stride()
        and kx.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    )
    n = len(ktable)
    assert rt(kx.transpose(0, 2), list(ktable)).storage == 0
    assert rt(kx[1:], list(ktable)).storage == 0
    assert rt(kx.clone(), list(ktable)).storage == n  # new storage
    assert rt(tl.from_numpy(karr), list(ktable)).storage == 1
    assert rt(karr.copy(), list(ktable)).storage == n


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __repr__(self):
        raise AssertionError("encode must never call __repr__")

    __hash__ = object.__hash__


class SneakyInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class SneakyTuple(tuple):
    def __eq__(self, other):
        return True

    def __iter__(self):
        raise AssertionError("encode must never call __iter__")

    __hash__ = tuple.__hash__


class SneakyArray(np.ndarray):
    def __eq__(self, other):
        return np.ones(self.shape, dtype=bool)


def test_hostile_objects_are_read_by_their_base_types():
    assert isinstance(rt(AlwaysEqual()), Opaque)
    assert rt(SneakyInt(5)) == 5 and type(rt(SneakyInt(5))) is int
    assert rt(SneakyTuple((1, 2))) == (1, 2)
    arr = rt(np.arange(3).view(SneakyArray))
    np.testing.assert_array_equal(arr.array, [0, 1, 2])
    assert compare(rt(AlwaysEqual()), rt((1, 2)), E).stage == "type"
    assert compare(rt(SneakyInt(5)), rt(6), E).stage == "values"
    assert compare(rt(SneakyTuple((1, 2))), rt((1, 3)), E).stage == "values"


def test_forged_tensor_fields_are_not_trusted():
    t = tl.arange(6)
    t._stride = (1000,)  # points outside its storage
    assert isinstance(rt(t), Opaque)
    t = tl.arange(6)
    t._shape = [6]  # not a tuple
    assert isinstance(rt(t), Opaque)


def test_raised_exceptions_never_run_hostile_str():
    class Hostile(Exception):
        def __str__(self):
            raise AssertionError("must not be called")

    out = decode(encode_raised(Hostile(AlwaysEqual())))
    assert out == Raised("Hostile", "", False)
    assert decode(encode_raised(NotImplementedError("todo"))).not_implemented
    assert decode(encode_raised(np.zeros(0).__class__ and ValueError("bad"))).message == "bad"


@pytest.mark.parametrize(
    "payload",
    [
        [],
        {"t": "weird"},
        {"t": "int", "v": "3"},
        {"t": "bool", "v": 1},
        {"t": "ndarray", "dtype": "object", "shape": [1], "data": ""},
        {"t": "ndarray", "dtype": "int64", "shape": [2], "data": "AAAA"},
        {"t": "ndarray", "dtype": "int64", "shape": [10**9, 10**9], "data": ""},
        {
            "t": "tensor",
            "dtype": "int64",
            "shape": [1],
            "data": "AAAAAAAAAAA=",
            "stride": "x",
            "offset": 0,
        },
        {"t": "tuple", "items": "nope"},
    ],
)
def test_malformed_payloads_are_rejected(payload):
    with pytest.raises(DecodeError):
        decode(payload)


def test_deep_nesting_is_cut():
    x: list = []
    for _ in range(50):
        x = [x]
    assert "toolarge" in json.dumps(encode(x))


# ---------------------------------------------------------------------------- staged comparison
def A(x, **kw):
    return rt(np.asarray(x, **kw))


def test_stages_stop_at_the_first_failure():
    expected = A([[1.0, 2.0]])
    assert compare(MISSING, expected, E).stage == "attempted"
    assert compare(Raised("NotImplementedError", "", True), expected, E).stage == "attempted"
    assert compare(rt([[1.0, 2.0]]), expected, E).stage == "type"
    assert compare(A([1, 2], dtype=np.float32), expected, E).stage == "dtype"
    assert compare(A([1.0, 2.0]), expected, E).stage == "shape"
    assert compare(A([[1.0, 3.0]]), expected, E).stage == "values"
    assert compare(A([[1.0, 2.0]]), expected, E) is None


def test_shapes_are_never_broadcast():
    f = compare(A([[1.0]]), A([1.0]), E)
    assert f.stage == "shape" and "nothing is broadcast" in f.message
    assert compare(A([3.0, 3.0]), rt(np.float64(3.0)), E).stage == "type"


def test_value_messages_locate_the_error():
    f = compare(A([[0.0, 1.0], [5.0, 3.0]]), A([[0.0, 1.0], [2.0, 3.0]]), E)
    assert "first at index (1, 0)" in f.message and "yours 5" in f.message
    assert "expected 2" in f.message and "max error 3" in f.message
    hidden = compare(A([[0.0, 1.0], [5.0, 3.0]]), A([[0.0, 1.0], [2.0, 3.0]]), E, reveal=False)
    assert "expected" not in hidden.message and "2" not in hidden.message.split("yours")[1]
    assert (
        compare(rt((24, 25)), rt((24, 26)), E, reveal=False).message
        == "25 at item [1] is not right"
    )


def test_tolerances_and_nans():
    # NaN never equals NaN unless the question says so (Expect(equal_nan=True))
    assert compare(A([1.0 + 1e-12, np.nan]), A([1.0, np.nan]), E).stage == "values"
    assert compare(A([1.0 + 1e-12, np.nan]), A([1.0, np.nan]), Expect(equal_nan=True)) is None
    assert compare(rt(float("nan")), rt(float("nan")), E).stage == "values"
    assert compare(A([1.0, 0.0]), A([1.0, np.nan]), E).stage == "values"
    assert compare(rt(2), rt(2.0), E) is None  # an int is a fine answer for a number
    assert compare(rt(2.0), rt(2), E).stage == "type"  # but a float is not an int
    assert "floor division" in compare(rt(15.0), rt(15), E).message
    assert compare(rt(True), rt(1), E).stage == "type"


def test_sequences_and_sets():
    assert compare(rt([24, 26]), rt((24, 26)), E) is None
    assert compare(rt((24,)), rt((24, 26)), E).stage == "shape"
    names = Expect(unordered=True, casefold=True)
    assert compare(rt(("E", "b")), rt(frozenset({"b", "e"})), names) is None
    assert compare(rt(("b",)), rt(frozenset({"b", "e"})), names).stage == "values"
    assert compare(rt(("b", 1)), rt(frozenset({"b"})), names).stage == "type"


def test_layout_stage_tells_copies_from_views():
    x = tl.arange(12).view(3, 4)
    _, table = encode_args((x,))
    view = Expect(layout=True)
    expected = rt(x.t(), list(table))
    assert compare(rt(x.t(), list(table)), expected, view, 1) is None
    f = compare(rt(x.t().clone(), list(table)), expected, view, 1)
    assert f.stage == "layout" and "copy, not a view" in f.message
    f = compare(rt(x.t().contiguous().t().t(), list(table)), expected, view, 1)
    assert f.stage == "layout"
    z = tl.zeros(8)
    _, table = encode_args((z,))
    f = compare(rt(z[4:], list(table)), rt(z[:4], list(table)), view, 1)  # same values elsewhere
    assert f.stage == "layout" and "another place" in f.message
    f = compare(rt(z.view(2, 4).t(), list(table)), rt(z.view(4, 2), list(table)), view, 1)
    assert f.stage == "layout" and "strides" in f.message
    assert roundtrip(x.t()).stride == (1, 4)


def test_numbers_given_as_tensors_are_read_as_numbers():
    """A 1-D tensor or array where a tuple of numbers is expected, a 0-dim one where a number
    is expected: compared by value (a learner's ``w`` instead of ``w.item()``)."""
    import tensorlab
    from tensorlab.grading.judge import compare
    from tensorlab.grading.model import Expect

    def dec(v):
        return decode(encode(v))

    assert compare(dec(tensorlab.tensor([1.0, 2.0])), (1.0, 2.0), Expect()) is None
    assert compare(dec(np.array([1, 2])), (1, 2), Expect()) is None
    assert compare(dec(tensorlab.tensor(2.5, dtype=tensorlab.float64)), 2.5, Expect()) is None
    assert compare(dec(tensorlab.tensor([1.0, 3.0])), (1.0, 2.0), Expect()).stage == "values"
    f = compare(dec(tensorlab.tensor(2.0)), 2, Expect())
    assert f.stage == "type" and "int" in f.message  # a float is still not an int
    f = compare(dec(tensorlab.tensor([1.0, 2.0, 3.0])), (1.0, 2.0), Expect())
    assert f.stage == "shape"
    assert compare(dec(tensorlab.tensor([[1.0, 2.0]])), (1.0, 2.0), Expect()).stage == "type"


# ---------------------------------------------------------------------------- rules, from source
INTERLEAVE_OK = "def interleave(x, r):\n    return x.view(-1, 1).repeat(1, r).view(-1)\n"
TEMPLATE = "import numpy as np  # noqa: F401\n\nimport tensorlab\nx = tensorlab.arange(3).numpy()\n"


@pytest.mark.parametrize(
    ("source", "context", "broken"),
    [
        (INTERLEAVE_OK, [TEMPLATE], None),
        # a self-test in the same cell is not the function
        (INTERLEAVE_OK + "assert interleave(t, 2).equal(t.repeat_interleave(2))\n", [], None),
        # a parameter named like a template global that went through numpy is not that global
        ("def interleave(x, r):\n    y = x\n    return y.view(-1, 1).repeat(1, r).view(-1)\n",
         [TEMPLATE], None),
        ("def interleave(x, r):\n    return x.repeat_interleave(r)\n", [], "repeat_interleave"),
        ("def interleave(x, r):\n    return getattr(x, 'repeat_interleave')(r)\n", [],
         "repeat_interleave"),
        ("interleave = lambda x, r: x.repeat_interleave(r)\n", [], "repeat_interleave"),
        # a helper in another answer cell, an alias, a module alias from the template
        ("def interleave(x, r):\n    return _spread(x, r)\n",
         ["def _spread(x, r):\n    return x.repeat_interleave(r)\n"], "repeat_interleave"),
        ("ri = tensorlab.Tensor.repeat_interleave\n\n\ndef interleave(x, r):\n    return ri(x, r)\n",
         [], "repeat_interleave"),
        ("def interleave(x, r):\n    return tensorlab.tensor(np.repeat(x, r))\n", [TEMPLATE],
         "`import numpy`"),
        ("def interleave(x, r):\n    import numpy\n    return numpy.repeat(x, r)\n", [],
         "`import numpy`"),
        ("def interleave(x, r):\n    return tensorlab.tensor([v for v in x.tolist() for _ in range(r)])\n",
         [], "tolist"),
        # not defined by a def or an assignment in its cell: the whole cell counts
        ("exec('def interleave(x, r): return x.repeat_interleave(r)')\n", [], "`exec`"),
    ],
)  # fmt: skip
def test_answer_names_find_what_the_function_uses(source, context, broken):
    from tensorlab.grading.judge import rule_check
    from tensorlab.grading.registry import get

    q = get("views.interleave")
    message = rule_check(q, source, [*context, source])
    if broken is None:
        assert message is None
    else:  # the allow-list names the construct and what is allowed
        assert message is not None and broken in message and q.allowed.says in message
