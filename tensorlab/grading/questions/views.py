"""Notebook 05: reshape versus view, contiguity, shared storage, repeat versus repeat_interleave."""

from __future__ import annotations

import numpy as np

from ..model import Expect, Misconception, Question

NB = "05_views"


def _tl():
    import tensorlab

    return tensorlab


# ---------------------------------------------------------------------------- does view work?
VIEW_ATTEMPTS = (
    "a.t().view(12)",
    "a.t().view(2, 2, 3)",
    "a[:, :2].view(6)",
    "a[:, :2].view(3, 1, 2)",
    "a[1:].view(8)",
    "a.unsqueeze(1).view(3, 4)",
)

VIEW_WORKS = Question(
    id="views.view_works",
    notebook=NB,
    name="view_works",
    kind="value",
    prompt=(
        "a = tensorlab.arange(12).view(3, 4). For each of "
        f"{'; '.join(VIEW_ATTEMPTS)}: does it succeed (True) or raise (False)?"
    ),
    todo="Set view_works to a tuple of 6 bools, in the order of the attempts.",
    reference=lambda: (False, True, False, True, True, True),
    misconceptions=(
        Misconception(
            "contiguous_only",
            "view does not require a contiguous tensor: it works whenever every new axis can be "
            "walked with one stride, e.g. a.t().view(2, 2, 3) only splits an axis.",
            (False, False, False, False, True, True),
        ),
        Misconception(
            "numel_only",
            "equal element counts are not enough: view never copies, so it fails when the new "
            "shape needs elements that are not evenly spaced in memory (a.t().view(12)).",
            (True, True, True, True, True, True),
        ),
    ),
    hints=(
        "Try each one (wrap it in try/except RuntimeError), then explain it with "
        "tensorlab.explain_view(t, shape).",
        "Splitting one axis into several always works; merging two axes needs "
        "stride[i] == stride[i + 1] * size[i + 1].",
    ),
)

CONTIGUOUS_TENSORS = (
    "tensorlab.zeros(4, 1, 5).transpose(0, 1)",
    "a[:, :2]",
    "a.t()",
    "a[1:]",
    "tensorlab.zeros(3, 1).expand(3, 4)",
)

CONTIGUOUS_FLAGS = Question(
    id="views.contiguous_flags",
    notebook=NB,
    name="contiguous_flags",
    kind="value",
    prompt=(
        "a = tensorlab.arange(12).view(3, 4). Which of these are contiguous? "
        f"{'; '.join(CONTIGUOUS_TENSORS)}. A tuple of 5 bools."
    ),
    todo="Set contiguous_flags to a tuple of 5 bools (what .is_contiguous() returns), in order.",
    reference=lambda: (True, False, False, True, False),
    misconceptions=(
        Misconception(
            "size_one_axes_matter",
            "is_contiguous ignores axes of size 1 (their stride is never used): swapping a "
            "size-1 axis keeps a tensor contiguous.",
            (False, False, False, True, False),
        ),
        Misconception(
            "offset_matters",
            "a storage offset does not break contiguity: a[1:] is rows 1 and 2, still stored "
            "row by row without gaps.",
            (True, False, False, False, False),
        ),
    ),
    hints=(
        "Print .stride() of each and compare with the strides of a fresh tensor of that shape.",
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
    prompt=(
        "Write interleave(x, r) for a 1-D tensor x: the same result as x.repeat_interleave(r) "
        "(each element r times in a row), using only view and repeat."
    ),
    todo="Write interleave with view and repeat only (not repeat_interleave).",
    reference=_interleave,
    cases=_interleave_cases,
    strategy=_interleave_strategy,
    expect=Expect(arrays=("tensor",)),
    forbidden=("repeat_interleave", "numpy", "tolist", "from_numpy"),
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
        "x.view(-1, 1) has shape (n, 1); .repeat(1, r) gives (n, r) with each row constant.",
        "Then .view(-1) (the repeat made a fresh contiguous tensor, so view works).",
    ),
)

QUESTIONS = [VIEW_WORKS, CONTIGUOUS_FLAGS, FLATTEN_HW, SHARE_STORAGE, INTERLEAVE]
