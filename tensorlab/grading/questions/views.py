"""Notebook 05: reshape versus view, contiguity, shared storage, repeat versus repeat_interleave."""

from __future__ import annotations

import math

import numpy as np

from ..allow import DERIVE
from ..model import Expect, Misconception, Question
from ._rules import VIEW_REPEAT

NB = "05_views"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- does view work?
def _fresh(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _view_ok(shape, stride, new_shape):
    """PyTorch's rule (computeStride): every run of new axes must fit inside one chunk of
    old axes that can be walked with a single stride. Plain Python, independent of the engine."""
    if math.prod(shape) == 0:
        return True
    view_d = len(new_shape) - 1
    base = stride[-1] if stride else 1
    tensor_numel = view_numel = 1
    for d in range(len(shape) - 1, -1, -1):
        tensor_numel *= shape[d]
        if d == 0 or (shape[d - 1] != 1 and stride[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return False
            if d > 0:
                base, tensor_numel, view_numel = stride[d - 1], 1, 1
    return view_d == -1


def _is_contiguous(shape, stride):
    expected = 1
    for n, st in zip(reversed(shape), reversed(stride)):
        if n == 1:
            continue
        if st != expected:
            return False
        expected *= n
    return True


def _random_layout(rng: np.random.Generator) -> tuple[tuple, tuple]:
    """The (shape, stride) of a random view of a fresh tensor: transposed, sliced, expanded."""
    ndim = int(rng.integers(1, 4))
    shape = [int(v) for v in rng.integers(1, 5, size=ndim)]
    stride = list(_fresh(shape))
    kind = int(rng.integers(0, 4))
    if kind == 1 and ndim >= 2:
        i, j = (int(v) for v in rng.choice(ndim, size=2, replace=False))
        shape[i], shape[j], stride[i], stride[j] = shape[j], shape[i], stride[j], stride[i]
    elif kind == 2:
        i = int(rng.integers(0, ndim))
        step = int(rng.integers(1, 3))
        keep = int(rng.integers(1, shape[i] + 1))
        shape[i], stride[i] = len(range(0, keep, step)), stride[i] * step
    elif kind == 3:
        i = int(rng.integers(0, ndim))
        if shape[i] == 1:
            shape[i], stride[i] = int(rng.integers(2, 4)), 0
    return tuple(shape), tuple(stride)


def _factorise(rng: np.random.Generator, n: int) -> tuple:
    out = []
    while n > 1 and len(out) < 3:
        divisors = [d for d in range(2, n + 1) if n % d == 0]
        d = int(rng.choice(divisors))
        out.append(d)
        n //= d
    if n > 1:
        out.append(n)
    if rng.random() < 0.3:
        out.insert(int(rng.integers(0, len(out) + 1)), 1)
    return tuple(out) or (1,)


def _view_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((4, 3), (1, 4), (12,)), ((4, 3), (1, 4), (2, 2, 3)), ((3, 2), (4, 1), (6,))]
    cases += [((3, 2), (4, 1), (3, 1, 2)), ((2, 4), (4, 1), (8,)), ((3, 1, 4), (4, 4, 1), (3, 4))]
    while len(cases) < 16:
        shape, stride = _random_layout(rng)
        cases.append((shape, stride, _factorise(rng, math.prod(shape))))
    return cases


def _view_strategy():
    from hypothesis import strategies as st

    @st.composite
    def args(draw):
        seed = draw(st.integers(0, 2**16))
        rng = np.random.default_rng(seed)
        shape, stride = _random_layout(rng)
        return (shape, stride, _factorise(rng, math.prod(shape)))

    return args()


VIEW_WORKS = Question(
    id="views.view_works",
    notebook=NB,
    name="view_works",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9), (1, 10**9), (10**18,)), ((10**9, 10**9), (10**9, 1), (10**18,))),
    prompt=(
        "Write view_works(shape, stride, new_shape): does t.view(new_shape) succeed (True) or "
        "raise (False) for a tensor t with this shape and these strides? new_shape has the same "
        "number of elements. The grader draws layouts of its own (transposed, sliced, "
        "expanded)."
    ),
    todo=("Write view_works: can every new axis be walked with one stride over the same memory?"),
    reference=_view_ok,
    cases=_view_cases,
    strategy=_view_strategy,
    misconceptions=(
        Misconception(
            "contiguous_only",
            "view does not require a contiguous tensor: it works whenever every new axis can be "
            "walked with one stride, e.g. a.t().view(2, 2, 3) only splits an axis.",
            lambda shape, stride, new: _is_contiguous(shape, stride),
        ),
        Misconception(
            "numel_only",
            "equal element counts are not enough: view never copies, so it fails when the new "
            "shape needs elements that are not evenly spaced in memory (a.t().view(12)).",
            lambda shape, stride, new: True,
        ),
    ),
    hints=(
        "Splitting one axis into several always works: the pieces are walked with multiples "
        "of its stride.",
        "Merging axes i and i + 1 needs stride[i] == stride[i + 1] * shape[i + 1] (axes of "
        "size 1 never matter).",
        "Group the old axes into chunks that merge; each new axis (or run of new axes) must "
        "cover whole chunks. tensorlab.explain_view(t, shape) explains one case.",
    ),
)


def _contiguous_cases(rng: np.random.Generator) -> list[tuple]:
    cases = [((1, 4, 5), (5, 20, 1)), ((3, 2), (4, 1)), ((4, 3), (1, 4)), ((2, 4), (4, 1))]
    cases += [((3, 4), (0, 1)), ((3, 1), (1, 1)), ((1, 1), (7, 3))]
    while len(cases) < 16:
        cases.append(_random_layout(rng))
    return cases


def _strict(shape, stride):
    return tuple(stride) == _fresh(tuple(shape))


def _sorted_strides(shape, stride):
    return all(a >= b for a, b in zip(stride, stride[1:])) and (not stride or stride[-1] == 1)


CONTIGUOUS_FLAGS = Question(
    id="views.contiguous_flags",
    notebook=NB,
    name="is_contiguous_layout",
    kind="function",
    assessment="derive",
    allowed=DERIVE,
    huge=(((10**9, 10**9), (10**9, 1)), ((10**9, 1, 10**9), (10**9, 5, 1))),
    prompt=(
        "Write is_contiguous_layout(shape, stride): what .is_contiguous() returns for a tensor "
        "with this shape and these strides (a bool). The grader draws layouts of its own."
    ),
    todo=(
        "Write is_contiguous_layout: compare the strides with row-major order, minding which "
        "axes count."
    ),
    reference=_is_contiguous,
    cases=_contiguous_cases,
    strategy=lambda: _view_strategy().map(lambda t: t[:2]),
    misconceptions=(
        Misconception(
            "size_one_axes_matter",
            "is_contiguous ignores axes of size 1 (their stride is never used): "
            "zeros(4, 1, 5).transpose(0, 1) is contiguous.",
            _strict,
        ),
        Misconception(
            "decreasing_strides",
            "decreasing strides are not enough: row-major means each stride is exactly the "
            "product of the later sizes, with no gaps (a[:, :2] has gaps) and no stride 0.",
            _sorted_strides,
        ),
    ),
    hints=(
        "Print .stride() of tensorlab.zeros(shape) and of a few views of it.",
        "Walk the axes from the last one, multiplying the sizes as you go; skip axes of size 1.",
    ),
)


# ---------------------------------------------------------------------------- flatten, no copy
def _flatten_cases(rng: np.random.Generator) -> list[tuple]:
    tl = _tl()
    base = tl.arange(2 * 6 * 4 * 5).view(2, 6, 4, 5)
    cases = [
        (tl.arange(2 * 3 * 4 * 5).view(2, 3, 4, 5),),
        (base[:, ::2],),
        (tl.arange(3 * 2 * 4 * 5).view(3, 2, 4, 5).transpose(0, 1),),
        (base[1:, 2:5],),
    ]
    for _ in range(3):
        N, C, H, W = (int(v) for v in rng.integers(1, 5, size=4))
        data = tl.from_numpy(rng.integers(-9, 10, size=(C, N, H, W)).astype(np.float32))
        cases.append((data.transpose(0, 1),))
    return cases


def _flatten_hw(x):
    return x.flatten(2)


def _contiguous_first(x):
    N, C, H, W = x.shape
    return x.contiguous().view(N, C, H * W)


def _clone_first(x):
    N, C, H, W = x.shape
    return x.clone().view(N, C, H * W)


def _flatten_all(x):
    return x.reshape(x.shape[0], -1)


def _flatten_strategy():
    from hypothesis import strategies as st

    @st.composite
    def tensor(draw):
        tl = _tl()
        N, C, H, W = (draw(st.integers(1, 3)) for _ in range(4))
        x = tl.arange(N * C * H * W).view(C, N, H, W)
        return (x.transpose(0, 1) if draw(st.booleans()) else x.view(N, C, H, W),)

    return tensor()


FLATTEN_HW = Question(
    id="views.flatten_hw",
    notebook=NB,
    name="flatten_hw",
    kind="function",
    assessment="free",
    prompt=(
        "Write flatten_hw(x): x has shape (N, C, H, W) (not necessarily contiguous, but each "
        "(H, W) image is stored row by row). Return shape (N, C, H * W) WITHOUT copying: the "
        "result must share x's storage."
    ),
    todo="Write flatten_hw: merge the last two axes without copying anything.",
    reference=_flatten_hw,
    cases=_flatten_cases,
    strategy=_flatten_strategy,
    expect=Expect(arrays=("tensor",), layout=True),
    misconceptions=(
        Misconception(
            "contiguous_first",
            "this is a copy, not a view: .contiguous() copies a non-contiguous input, and the "
            "view is then taken of the copy. Merging H and W alone needs no contiguous().",
            _contiguous_first,
        ),
        Misconception(
            "cloned",
            "this is a copy, not a view: clone() always copies.",
            _clone_first,
        ),
        Misconception(
            "flattened_channels",
            "only H and W are merged: the result keeps N and C, shape (N, C, H * W).",
            _flatten_all,
        ),
    ),
    hints=(
        "x.flatten(2) or x.view(N, C, H * W): do they work when x is x0.transpose(0, 1)?",
        "A view can merge two axes when stride[H] == W * stride[W]; the N and C axes are left "
        "alone.",
    ),
)


# ---------------------------------------------------------------------------- shared storage
SHARE_CONTEXT = (
    "a = tensorlab.arange(12).view(3, 4)",
    "b = a.view(4, 3)",
    "c = a.t().reshape(-1)",
    "d = a[[0, 2]]",
    "e = a[:, 1:3]",
    "f = a.clone()",
    "g = a.t().contiguous()",
    "h = a.flatten()",
    "i = a[0:1].expand(3, 4)",
)


def _has(name: str):
    return lambda actual, expected: (
        isinstance(actual, (tuple, list, frozenset)) and name in {str(v).strip() for v in actual}
    )


def _lacks(name: str):
    return lambda actual, expected: (
        isinstance(actual, (tuple, list, frozenset))
        and name not in {str(v).strip() for v in actual}
    )


SHARE_STORAGE = Question(
    id="views.share_storage",
    notebook=NB,
    name="shares_with_a",
    kind="value",
    assessment="predict",
    predict="formative",
    points=0.0,
    prompt=(
        "After " + "; ".join(SHARE_CONTEXT) + " - which of b ... i share a's storage? "
        "A tuple of names."
    ),
    todo="Set shares_with_a to a tuple of the names (strings) of the tensors sharing a's storage.",
    reference=lambda: frozenset({"b", "e", "h", "i"}),
    expect=Expect(casefold=True, unordered=True),
    misconceptions=(
        Misconception(
            "index_list_copies",
            "indexing with a list or an index tensor (a[[0, 2]]) always copies; only basic "
            "slicing and integer indexing give views.",
            ("b", "d", "e", "h", "i"),
            detect=_has("d"),
        ),
        Misconception(
            "contiguous_copies",
            "a.t() is not contiguous, so .contiguous() makes a copy in new storage.",
            ("b", "e", "g", "h", "i"),
            detect=_has("g"),
        ),
        Misconception(
            "reshape_may_copy",
            "reshape returns a view only when view would work; a.t().reshape(-1) cannot be a "
            "view, so it copies.",
            ("b", "c", "e", "h", "i"),
            detect=_has("c"),
        ),
        Misconception(
            "clone_copies",
            "clone() always copies into new storage.",
            ("b", "e", "f", "h", "i"),
            detect=_has("f"),
        ),
        Misconception(
            "flatten_views",
            "flatten() is reshape(-1): a is contiguous, so it returns a view.",
            ("b", "e", "i"),
            detect=_lacks("h"),
        ),
        Misconception(
            "expand_views",
            "expand never copies: the expanded rows have stride 0 and read a's first row.",
            ("b", "e", "h"),
            detect=_lacks("i"),
        ),
    ),
    hints=(
        "Compare t.untyped_storage().data_ptr() with a.untyped_storage().data_ptr() (not id(t) "
        "or id(t.data)).",
    ),
)


# ---------------------------------------------------------------------------- repeat_interleave
def _interleave_cases(rng: np.random.Generator) -> list[tuple]:
    tl = _tl()
    cases = [(tl.tensor([1, 2, 3]), 2), (tl.arange(10)[::3], 3)]
    for _ in range(4):
        n, r = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        cases.append((tl.from_numpy(rng.integers(-9, 10, size=n).astype(np.float32)), r))
    return cases


def _interleave(x, r):
    return _tl().from_numpy(np.repeat(np.array(x.numpy()), r))


def _tiled(x, r):
    return x.repeat(r)


def _interleave_strategy():
    from hypothesis import strategies as st

    tl = _tl()
    return st.tuples(
        st.lists(st.integers(-5, 5), min_size=1, max_size=4).map(lambda v: tl.tensor(v)),
        st.integers(1, 3),
    )


INTERLEAVE = Question(
    id="views.interleave",
    notebook=NB,
    name="interleave",
    kind="function",
    assessment="implement",
    allowed=VIEW_REPEAT,
    prompt=(
        "Write interleave(x, r) for a 1-D tensor x: the same result as x.repeat_interleave(r) "
        "(each element r times in a row), using only view and repeat."
    ),
    todo="Write interleave with view and repeat only (not repeat_interleave).",
    reference=_interleave,
    cases=_interleave_cases,
    strategy=_interleave_strategy,
    expect=Expect(arrays=("tensor",)),
    misconceptions=(
        Misconception(
            "forbidden",
            "the exercise is to build repeat_interleave from view and repeat: calling it (or "
            "going through numpy or Python lists) skips the point. Use x.view(...) and "
            ".repeat(...) only.",
            lambda x, r: x.repeat_interleave(r),
            variants=(lambda x, r: _tl().tensor([v for v in x.tolist() for _ in range(r)]),),
        ),
        Misconception(
            "tiled",
            "repeat tiles the WHOLE tensor (like np.tile): [1, 2, 1, 2]. repeat_interleave "
            "repeats each element (like np.repeat): [1, 1, 2, 2].",
            _tiled,
            variants=(lambda x, r: x.view(1, -1).repeat(r, 1).view(-1),),
        ),
    ),
    hints=(
        "Picture the result as a table with one row per element of x and r columns: every row "
        "is constant. Which shape would x need to be repeated into that table?",
        "x.view(-1, 1) is a column; repeat it along the second axis, then read the table row "
        "by row with view (repeat made a fresh contiguous tensor, so view works).",
    ),
)

QUESTIONS = [VIEW_WORKS, CONTIGUOUS_FLAGS, FLATTEN_HW, SHARE_STORAGE, INTERLEAVE]
