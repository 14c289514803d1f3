"""Notebook 04: strides, storage offsets and contiguity after transpose, permute, slicing."""

from __future__ import annotations

import numpy as np

from ..model import Misconception, Question

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
TRANSPOSE = Question(
    id="strides.transpose",
    notebook=NB,
    name="transposed_layout",
    kind="value",
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

PERMUTE = Question(
    id="strides.permute",
    notebook=NB,
    name="permuted_layout",
    kind="value",
    prompt=(
        "x = tensorlab.arange(24).view(2, 3, 4); y = x.permute(2, 0, 1). Give (y.shape, "
        "y.stride(), y.storage_offset())."
    ),
    todo="Set permuted_layout = (shape, stride, storage_offset) of y.",
    reference=lambda: ((4, 2, 3), (1, 12, 4), 0),
    misconceptions=(
        Misconception(
            "inverse_permutation",
            "permute(2, 0, 1) means: new axis 0 is old axis 2, new axis 1 is old axis 0, new "
            "axis 2 is old axis 1. You applied the inverse.",
            ((3, 4, 2), (4, 1, 12), 0),
        ),
        Misconception(
            "fresh_strides",
            "those are a fresh tensor's strides; permute only reorders the existing strides.",
            ((4, 2, 3), (6, 3, 1), 0),
        ),
    ),
    hints=("New shape[i] = old shape[dims[i]] and new stride[i] = old stride[dims[i]].",),
)

SLICE = Question(
    id="strides.slice",
    notebook=NB,
    name="sliced_layout",
    kind="value",
    prompt=(
        "x = tensorlab.arange(24).view(2, 3, 4); y = x[1, :, 1::2]. Give (y.shape, y.stride(), "
        "y.storage_offset())."
    ),
    todo="Set sliced_layout = (shape, stride, storage_offset) of y.",
    reference=lambda: ((3, 2), (4, 2), 13),
    misconceptions=(
        Misconception(
            "step_ignored",
            "a step of 2 along the last axis doubles its stride: 1 * 2 = 2.",
            ((3, 2), (4, 1), 13),
        ),
        Misconception(
            "start_ignored",
            "the view starts at x[1, 0, 1]: offset 1 * 12 + 0 * 4 + 1 * 1 = 13. Both the "
            "integer index and the slice start move the offset.",
            ((3, 2), (4, 2), 12),
            variants=(((3, 2), (4, 2), 1),),
        ),
        Misconception(
            "copied",
            "basic slicing never copies: y is a view with x's strides (times the steps) and an "
            "offset, not a fresh (3, 2) tensor.",
            ((3, 2), (2, 1), 0),
        ),
    ),
    hints=(
        "Integer index: drop the axis and add index * stride to the offset.",
        "Slice start:step: add start * stride to the offset; the stride becomes stride * step.",
    ),
)

EXPAND = Question(
    id="strides.expand",
    notebook=NB,
    name="expanded",
    kind="value",
    prompt=(
        "a = tensorlab.arange(4).view(1, 4); b = a.expand(3, 4). Give (b.stride(), "
        "b.is_contiguous())."
    ),
    todo="Set expanded = (stride, is_contiguous) of b.",
    reference=lambda: ((0, 1), False),
    misconceptions=(
        Misconception(
            "expand_copies",
            "expand copies nothing: the new axis has stride 0, so all 3 rows read the same 4 "
            "elements (and b is not contiguous).",
            ((4, 1), True),
        ),
        Misconception(
            "stride_zero_contiguous",
            "stride 0 is not row-major order: a contiguous (3, 4) tensor has strides (4, 1).",
            ((0, 1), True),
        ),
    ),
    hints=("How many elements does b's storage hold? tensorlab.arange(4) made 4.",),
)

QUESTIONS = [CONTIGUOUS, STORAGE_INDEX, TRANSPOSE, PERMUTE, SLICE, EXPAND]
