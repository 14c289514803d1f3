"""Notebook 04: strides, storage offsets and contiguity after transpose, permute, slicing."""

from __future__ import annotations

import numpy as np

from ..allow import DERIVE
from ..model import Misconception, Question
from ._refs import draw_ints, int_tuples

NB = "04_strides"


# ---------------------------------------------------------------------------- contiguous strides
def _contiguous_strides(shape):
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _shape_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((2, 3, 4),), ((4, 1, 5),), ((7,),), ((),), ((3, 1),), ((1, 1, 1),)]
    for _ in range(6):
        ndim = int(rng.integers(1, 5))
        cases.append((tuple(int(n) for n in rng.integers(1, 6, size=ndim)),))
    return cases


def _column_major(shape):
    return tuple(reversed(_contiguous_strides(tuple(reversed(shape)))))


def _bytes(shape):
    return tuple(8 * s for s in _contiguous_strides(shape))


def _next_size_only(shape):
    return tuple(shape[1:]) + (1,) if shape else ()


def _shape_strategy():
    from hypothesis import strategies as st

    return st.lists(st.integers(1, 5), max_size=4).map(lambda s: (tuple(s),))


CONTIGUOUS = Question(
    id="strides.contiguous",
    notebook=NB,
    name="contiguous_strides",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9, 3),),),
    prompt=(
        "Write contiguous_strides(shape): the strides (in elements) of a fresh, contiguous "
        "tensor of that shape, as a tuple."
    ),
    todo=(
        "Write contiguous_strides: in row-major order, how many elements does one step along "
        "each axis skip?"
    ),
    reference=_contiguous_strides,
    cases=_shape_cases,
    strategy=_shape_strategy,
    misconceptions=(
        Misconception(
            "column_major",
            "those are column-major (Fortran) strides. PyTorch stores row by row: the LAST axis "
            "has stride 1.",
            _column_major,
        ),
        Misconception(
            "bytes",
            "strides count elements, not bytes (numpy's arr.strides are in bytes; PyTorch's "
            "t.stride() is in elements).",
            _bytes,
        ),
        Misconception(
            "next_size_only",
            "a stride is the product of ALL later sizes, not just the next one: for (2, 3, 4) "
            "the first stride is 3 * 4 = 12.",
            _next_size_only,
        ),
    ),
    hints=(
        "Check with tensorlab.zeros(2, 3, 4).stride() == (12, 4, 1).",
        "Walk the shape from the right, multiplying as you go.",
    ),
)


def _storage_index(index, stride, offset):
    return offset + sum(i * s for i, s in zip(index, stride))


def _index_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((1, 2), (5, 1), 0), ((1, 2), (1, 5), 0), ((0, 1, 1), (12, 4, 2), 13), ((2,), (0,), 3)]
    for _ in range(8):
        ndim = int(rng.integers(1, 4))
        index = tuple(int(v) for v in rng.integers(0, 5, size=ndim))
        stride = tuple(int(v) for v in rng.integers(0, 30, size=ndim))
        cases.append((index, stride, int(rng.integers(1, 20))))
    return cases


def _index_strategy():
    from hypothesis import strategies as st

    return st.integers(1, 3).flatmap(
        lambda n: st.tuples(
            st.tuples(*[st.integers(0, 4)] * n),
            st.tuples(*[st.integers(0, 20)] * n),
            st.integers(0, 10),
        )
    )


STORAGE_INDEX = Question(
    id="strides.storage_index",
    notebook=NB,
    name="storage_index",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((5, 7), (10**12, 3), 10**13),),
    prompt=(
        "Write storage_index(index, stride, offset): the position in the storage of the element "
        "t[index] of a tensor with these strides and storage offset."
    ),
    todo="Write storage_index from the storage offset and the strides.",
    reference=_storage_index,
    cases=_index_cases,
    strategy=_index_strategy,
    misconceptions=(
        Misconception(
            "no_offset",
            "a view can start in the middle of the storage: add the storage offset.",
            lambda index, stride, offset: sum(i * s for i, s in zip(index, stride)),
        ),
        Misconception(
            "reversed_strides",
            "stride[d] belongs to axis d: pair index[0] with stride[0], not with the last stride.",
            lambda index, stride, offset: (
                offset + sum(i * s for i, s in zip(index, reversed(stride)))
            ),
        ),
    ),
    hints=("t[i, j] lives at storage_offset + i * stride[0] + j * stride[1].",),
)


# ---------------------------------------------------------------------------- predicting layouts
# Each question below is about y = tensorlab.arange(n).view(shape) followed by one view op; the
# grader draws the shapes and axes, so the answer must be the rule, not one printed example.
def _shape_dims_cases(rng: np.random.Generator, ndim_low: int = 2) -> list[tuple]:
    out = []
    for _ in range(8):
        ndim = int(rng.integers(ndim_low, 5))
        out.append(tuple(int(v) for v in rng.integers(1, 6, size=ndim)))
    return out


TRANSPOSE = Question(
    id="strides.transpose",
    notebook=NB,
    name="transposed_layout",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "x = tensorlab.arange(24).view(2, 3, 4); y = x.transpose(0, 2). Give (y.shape, "
        "y.stride(), y.storage_offset())."
    ),
    todo="Set transposed_layout = (shape, stride, storage_offset) of y, shape and stride as tuples.",
    reference=lambda: ((4, 3, 2), (1, 4, 12), 0),
    misconceptions=(
        Misconception(
            "fresh_strides",
            "those are the strides a NEW contiguous tensor of shape (4, 3, 2) would get. "
            "transpose moves no data: it swaps the strides of the two axes.",
            ((4, 3, 2), (6, 2, 1), 0),
        ),
        Misconception(
            "shape_unchanged",
            "transpose(0, 2) swaps the sizes of axes 0 and 2 too, not only the strides.",
            ((2, 3, 4), (1, 4, 12), 0),
        ),
    ),
    hints=("x.stride() is (12, 4, 1). Which two entries does transpose(0, 2) swap?",),
)


def _permuted_layout(shape, dims):
    stride = _contiguous_strides(tuple(shape))
    return (tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), 0)


def _inverse(dims):
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


def _permute_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1))]
    for shape in _shape_dims_cases(rng, 3):
        cases.append((shape, tuple(int(v) for v in rng.permutation(len(shape)))))
    return cases


def _permute_strategy():
    from hypothesis import strategies as st

    return st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
        lambda s: st.tuples(st.just(tuple(s)), st.permutations(range(len(s))).map(tuple))
    )


PERMUTE = Question(
    id="strides.permute",
    notebook=NB,
    name="permuted_layout",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9, 2), (2, 0, 1)),),
    prompt=(
        "Write permuted_layout(shape, dims): for x = tensorlab.arange(n).view(shape) and "
        "y = x.permute(*dims), return (y.shape, y.stride(), y.storage_offset())."
    ),
    todo="Write permuted_layout: which old axis becomes each new axis?",
    reference=_permuted_layout,
    cases=_permute_cases,
    strategy=_permute_strategy,
    misconceptions=(
        Misconception(
            "inverse_permutation",
            "permute(*dims) means: new axis i is old axis dims[i]. You applied the inverse "
            "(old axis i goes to position dims[i]).",
            lambda shape, dims: _permuted_layout(shape, _inverse(dims)),
        ),
        Misconception(
            "fresh_strides",
            "those are a fresh tensor's strides; permute only reorders the existing strides.",
            lambda shape, dims: (
                _permuted_layout(shape, dims)[0],
                _contiguous_strides(_permuted_layout(shape, dims)[0]),
                0,
            ),
        ),
    ),
    hints=(
        "Try x.permute(2, 0, 1) on a (2, 3, 4) tensor and compare y.shape with x.shape.",
        "New shape[i] = old shape[dims[i]]; the strides follow the same rule.",
    ),
)


def _sliced_layout(shape, index, start, step):
    stride = _contiguous_strides(tuple(shape))
    n = len(range(start, shape[2], step))
    return ((shape[1], n), (stride[1], stride[2] * step), index * stride[0] + start * stride[2])


def _slice_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((2, 3, 4), 1, 1, 2), ((3, 2, 5), 2, 0, 3)]
    for a, b, c in draw_ints(rng, [(1, 5), (1, 5), (2, 7)], 8):
        cases.append(
            ((a, b, c), int(rng.integers(0, a)), int(rng.integers(0, c)), int(rng.integers(1, 4)))
        )
    return cases


def _slice_strategy():
    from hypothesis import strategies as st

    return int_tuples((1, 3), (1, 3), (1, 5)).flatmap(
        lambda s: st.tuples(
            st.just(s), st.integers(0, s[0] - 1), st.integers(0, s[2] - 1), st.integers(1, 3)
        )
    )


def _step_ignored(shape, index, start, step):
    shp, stride, offset = _sliced_layout(shape, index, start, step)
    return (shp, (stride[0], stride[1] // step), offset)


def _start_ignored(shape, index, start, step):
    shp, stride, offset = _sliced_layout(shape, index, start, step)
    return (shp, stride, index * _contiguous_strides(tuple(shape))[0])


def _index_ignored(shape, index, start, step):
    shp, stride, offset = _sliced_layout(shape, index, start, step)
    return (shp, stride, start * _contiguous_strides(tuple(shape))[2])


def _slice_copied(shape, index, start, step):
    shp = _sliced_layout(shape, index, start, step)[0]
    return (shp, _contiguous_strides(shp), 0)


SLICE = Question(
    id="strides.slice",
    notebook=NB,
    name="sliced_layout",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((4, 10**9, 10**9), 1, 5, 7),),
    prompt=(
        "Write sliced_layout(shape, index, start, step): for a 3-D x = "
        "tensorlab.arange(n).view(shape) and y = x[index, :, start::step], return (y.shape, "
        "y.stride(), y.storage_offset())."
    ),
    todo="Write sliced_layout: what do the integer index, the slice start and the step change?",
    reference=_sliced_layout,
    cases=_slice_cases,
    strategy=_slice_strategy,
    misconceptions=(
        Misconception(
            "step_ignored",
            "a step along an axis multiplies its stride: every step-th element is step elements "
            "apart in memory.",
            _step_ignored,
        ),
        Misconception(
            "start_ignored",
            "the slice start moves the view's first element: add start * stride to the offset.",
            _start_ignored,
        ),
        Misconception(
            "index_ignored",
            "the integer index moves the view's first element too: add index * stride[0] to "
            "the offset.",
            _index_ignored,
        ),
        Misconception(
            "copied",
            "basic slicing never copies: y is a view with x's strides (times the steps) and an "
            "offset, not a fresh tensor.",
            _slice_copied,
        ),
    ),
    hints=(
        "Integer index: the axis disappears and index * stride is added to the offset.",
        "Slice start:step: start * stride is added to the offset and the stride becomes "
        "stride * step; len(range(start, size, step)) elements remain.",
    ),
)


def _expanded(n, rows):
    if rows == 1:
        return ((n, 1), True)
    return ((0, 1), False)


def _expand_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [(4, 3), (4, 1), (1, 5)]
    cases += draw_ints(rng, [(1, 6), (1, 6)], 7)
    return cases


EXPAND = Question(
    id="strides.expand",
    notebook=NB,
    name="expanded",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=((10**15, 10**15),),
    prompt=(
        "Write expanded(n, rows): for a = tensorlab.arange(n).view(1, n) and "
        "b = a.expand(rows, n), return (b.stride(), b.is_contiguous())."
    ),
    todo="Write expanded: which stride does expand give the new rows, and is b contiguous?",
    reference=_expanded,
    cases=_expand_cases,
    strategy=lambda: int_tuples((1, 4), (1, 4)),
    misconceptions=(
        Misconception(
            "expand_copies",
            "expand copies nothing: the expanded axis gets stride 0, so all rows read the same "
            "n elements.",
            lambda n, rows: ((n, 1), True),
        ),
        Misconception(
            "stride_zero_contiguous",
            "stride 0 is not row-major order: a contiguous (rows, n) tensor has strides (n, 1). "
            "(is_contiguous ignores only axes of size 1.)",
            lambda n, rows: ((0, 1) if rows > 1 else (n, 1), True),
        ),
        Misconception(
            "always_zero",
            "expand leaves an axis whose size does not change alone: expand(1, n) keeps a's "
            "strides (n, 1).",
            lambda n, rows: ((0, 1), rows == 1),
        ),
    ),
    hints=(
        "How many elements does b's storage hold? tensorlab.arange(n) made n.",
        "is_contiguous ignores axes of size 1: try it with rows = 1 and with n = 1.",
    ),
)

QUESTIONS = [CONTIGUOUS, STORAGE_INDEX, TRANSPOSE, PERMUTE, SLICE, EXPAND]
