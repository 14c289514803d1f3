"""One judge: a learner's ``check`` and ``tensorlab grade`` give the same verdict on every
question of a class of realistic submissions (styles, partial answers, helpers in the answer
cell and outside it, renamed variables, shortcuts, wrong answers).

Each submission of the strides notebook runs top to bottom in a real kernel as a learner runs
it (next to the release, as in the exercises folder), and ``inline.verdict_for`` (what
``check`` shows) is read for each question; the same files are then graded in batch."""

from __future__ import annotations

import json
import shutil

import pytest
from grading_class import EXERCISES, STRIDES, solution_answers, submission

SOL = solution_answers(STRIDES)
CONTIGUOUS = "strides.contiguous"
INDEX = "strides.storage_index"
TRANSPOSE = "strides.transpose"
PERMUTE = "strides.permute"
SLICE = "strides.slice"
EXPAND = "strides.expand"

C_NUMPY = (
    "def contiguous_strides(shape):\n"
    "    return tuple(int(np.prod(shape[i + 1 :])) for i in range(len(shape)))\n"
)
C_MATH = (
    "import math\n\n\ndef contiguous_strides(shape):\n"
    "    return tuple(math.prod(shape[i + 1 :]) for i in range(len(shape)))\n"
)
C_RECURSIVE = (
    "def contiguous_strides(shape):\n"
    "    if not shape:\n        return ()\n"
    "    rest = contiguous_strides(shape[1:])\n"
    "    return ((rest[0] * shape[1]) if rest else 1,) + rest\n"
)
C_ALIAS = (
    "def _suffix_products(dims):\n    out, step = [], 1\n"
    "    for d in reversed(dims):\n        out.append(step)\n        step *= d\n"
    "    return tuple(reversed(out))\n\n\ncontiguous_strides = _suffix_products\n"
)
C_LAMBDA = (
    "from functools import reduce\n\ncontiguous_strides = lambda shape: tuple(\n"
    "    reduce(lambda a, b: a * b, shape[i + 1 :], 1) for i in range(len(shape))\n)\n"
)
C_SHORTCUT = "def contiguous_strides(shape):\n    return tuple(tensorlab.zeros(shape).stride())\n"
C_COLUMN = (
    "def contiguous_strides(shape):\n    out, step = [], 1\n"
    "    for d in shape:\n        out.append(step)\n        step *= d\n    return tuple(out)\n"
)
C_OUTSIDE = "def contiguous_strides(shape):\n    return _strides_of(shape)\n"
OUTSIDE_CELL = (
    "def _strides_of(shape):\n    out, step = [], 1\n"
    "    for d in reversed(shape):\n        out.insert(0, step)\n        step *= d\n"
    "    return tuple(out)\n"
)
I_RENAMED = (
    "def storage_index(idx, st, off):\n    pos = off\n"
    "    for a, b in zip(idx, st):\n        pos += a * b\n    return pos\n"
)
I_NO_OFFSET = "def storage_index(index, stride, offset):\n    return sum(i * s for i, s in zip(index, stride))\n"
I_NUMPY = (
    "def storage_index(index, stride, offset):\n"
    "    return offset + sum(int(v) for v in np.multiply(index, stride))\n"
)
I_SHORTCUT = (
    "def storage_index(index, stride, offset):\n"
    "    t = tensorlab.arange(offset + sum((n) * s for n, s in zip(index, stride)) + 1)\n"
    "    return int(t.as_strided([1] * len(index), stride, offset)[(0,) * len(index)]) + sum(i * s for i, s in zip(index, stride))\n"
)
T_WRONG = "transposed_layout = ((4, 3, 2), (12, 4, 1), 0)\n"
T_RIGHT_BY_HAND = "transposed_layout = ((4, 3, 2), (1, 4, 12), 0)\n"
T_LIST = "transposed_layout = [[4, 3, 2], [1, 4, 12], 0]\n"
P_HELPER_IN_CELL = (
    "def _contig(shape):\n    out, step = [], 1\n"
    "    for d in reversed(shape):\n        out.insert(0, step)\n        step *= d\n"
    "    return out\n\n\ndef permuted_layout(shape, dims):\n"
    "    st = _contig(shape)\n"
    "    return (tuple(shape[d] for d in dims), tuple(st[d] for d in dims), 0)\n"
)
P_SHORTCUT = (
    "def permuted_layout(shape, dims):\n"
    "    y = tensorlab.zeros(shape).permute(*dims)\n"
    "    return (tuple(y.shape), y.stride(), y.storage_offset())\n"
)
P_NO_SHAPE = (
    "def permuted_layout(shape, dims):\n    st = contiguous_strides(shape)\n"
    "    return (tuple(shape), tuple(st[d] for d in dims), 0)\n"
)
E_WRONG = "def expanded(n, rows):\n    return ((n, 1), True)\n"
E_TERNARY = "def expanded(n, rows):\n    return ((0, 1), rows == 1 or n == 1)\n"
NIE = "    raise NotImplementedError\n"


def _blank(qid: str) -> str:
    """The answer cell as released (still raising NotImplementedError): not attempted."""
    nb = json.loads((EXERCISES / STRIDES).read_text())
    (cell,) = [
        c
        for c in nb["cells"]
        if c.get("metadata", {}).get("tensorlab", {}).get("question") == qid
        and c["metadata"]["tensorlab"].get("role") == "answer"
    ]
    return "".join(cell["source"])


def _insert_after_imports(source: str):
    def mutate(nb):
        first = next(i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code")
        nb["cells"].insert(
            first + 1,
            {
                "cell_type": "code",
                "metadata": {},
                "source": source,
                "outputs": [],
                "execution_count": None,
                "id": "mine-1",
            },
        )

    return mutate


CLASS: dict[str, tuple[dict, object]] = {
    "solution": ({}, None),
    "numpy": ({CONTIGUOUS: C_NUMPY, INDEX: I_NUMPY}, None),
    "math": ({CONTIGUOUS: C_MATH}, None),
    "recursive": ({CONTIGUOUS: C_RECURSIVE}, None),
    "alias": ({CONTIGUOUS: C_ALIAS}, None),
    "lambda": ({CONTIGUOUS: C_LAMBDA}, None),
    "renamed": ({INDEX: I_RENAMED}, None),
    "shortcut-contig": ({CONTIGUOUS: C_SHORTCUT}, None),
    "shortcut-permute": ({PERMUTE: P_SHORTCUT}, None),
    "shortcut-index": ({INDEX: I_SHORTCUT}, None),
    "column-major": ({CONTIGUOUS: C_COLUMN}, None),
    "helper-outside": ({CONTIGUOUS: C_OUTSIDE}, _insert_after_imports(OUTSIDE_CELL)),
    "helper-in-cell": ({PERMUTE: P_HELPER_IN_CELL}, None),
    "uses-4.1": ({PERMUTE: P_NO_SHAPE}, None),
    "no-offset": ({INDEX: I_NO_OFFSET}, None),
    "transpose-wrong": ({TRANSPOSE: T_WRONG}, None),
    "transpose-by-hand": ({TRANSPOSE: T_RIGHT_BY_HAND}, None),
    "transpose-list": ({TRANSPOSE: T_LIST}, None),
    "expand-wrong": ({EXPAND: E_WRONG}, None),
    "expand-ternary": ({EXPAND: E_TERNARY}, None),
    "blank-1": ({CONTIGUOUS: _blank(CONTIGUOUS)}, None),
    "blank-2": ({CONTIGUOUS: _blank(CONTIGUOUS), INDEX: _blank(INDEX)}, None),
    "blank-3": ({PERMUTE: _blank(PERMUTE), SLICE: _blank(SLICE), EXPAND: _blank(EXPAND)}, None),
    "blank-all": ({q: _blank(q) for q in SOL}, None),
    "half-a": ({SLICE: _blank(SLICE), CONTIGUOUS: C_MATH, TRANSPOSE: T_WRONG}, None),
    "half-b": ({EXPAND: E_WRONG, INDEX: I_RENAMED, PERMUTE: P_HELPER_IN_CELL}, None),
    "mixed-1": ({CONTIGUOUS: C_COLUMN, INDEX: I_NO_OFFSET, EXPAND: E_TERNARY}, None),
    "mixed-2": ({CONTIGUOUS: C_SHORTCUT, PERMUTE: P_SHORTCUT, TRANSPOSE: T_LIST}, None),
    "mixed-3": ({CONTIGUOUS: C_RECURSIVE, INDEX: I_NUMPY, TRANSPOSE: T_RIGHT_BY_HAND}, None),
    "mixed-4": ({CONTIGUOUS: C_ALIAS, PERMUTE: P_NO_SHAPE, EXPAND: E_WRONG}, None),
    "outside-and-blank": (
        {CONTIGUOUS: C_OUTSIDE, SLICE: _blank(SLICE)},
        _insert_after_imports(OUTSIDE_CELL),
    ),
}


def _probe() -> str:
    """A cell reading what ``check`` says of each question (by name: a run-time lookup such as
    ``globals()`` would itself make the rules unverifiable)."""
    from tensorlab.grading.release import Release

    release = Release.load(EXERCISES)
    lines = [
        "import json as _json",
        "from tensorlab.grading.inline import verdict_for as _vf",
        "_out = {}",
    ]
    for qid in release.notebooks[STRIDES].questions:
        name = release.questions[qid].name
        lines += [
            "try:",
            f"    _answer = {name}",
            "except NameError:",
            f"    _out[{qid!r}] = _vf({qid!r}).status",
            "else:",
            f"    _out[{qid!r}] = _vf({qid!r}, _answer).status",
        ]
    lines.append("print('VERDICTS', _json.dumps(_out))")
    return "\n".join(lines) + "\n"


def _check_verdicts(nb: dict, k) -> dict:
    """Run ``nb`` as a learner does (every cell, failing checks included) in the kernel ``k``
    (a fresh namespace and input history) and read what ``check`` says of each question."""
    assert k.run("%reset -f", 60).status == "ok"
    assert k.run("del In[1:]", 60).status == "ok"  # the history check reads: this notebook's
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            assert k.run(src, 120).status in ("ok", "error")
    r = k.run(_probe(), 300)
    assert r.status == "ok", (r.ename, r.evalue)
    text = "".join(o.get("text", "") for o in r.outputs if o.get("output_type") == "stream")
    return json.loads(text.split("VERDICTS", 1)[1])


@pytest.fixture(scope="module")
def learner_kernel(tmp_path_factory):
    """One kernel, as a learner's, in a folder holding the release (as the exercises)."""
    pytest.importorskip("nbclient")
    from tensorlab.grading.kernel import Kernel

    work = tmp_path_factory.mktemp("learner")
    shutil.copy(EXERCISES / "release.json", work / "release.json")
    shutil.copy(EXERCISES / STRIDES, work / STRIDES)
    with Kernel(work, 4 * 2**30, grading=False) as k:
        yield k


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    pytest.importorskip("nbclient")
    from tensorlab.grading.grade import grade
    from tensorlab.grading.sandbox import probe

    if probe() is not None:
        pytest.skip(probe())
    base = tmp_path_factory.mktemp("onejudge")
    subs = base / "submissions"
    for student, (replace, mutate) in CLASS.items():
        (subs / student).mkdir(parents=True)
        nb = submission(STRIDES, replace, mutate=mutate)
        (subs / student / STRIDES).write_text(json.dumps(nb))
    out = base / "out"
    grade([str(subs)], out, EXERCISES, jobs=2, progress=False, seed=0)
    return subs, out


def test_the_class_is_big_and_varied():
    assert len(CLASS) >= 30


def test_check_and_grade_agree_on_every_question(graded, learner_kernel):
    from grading_class import questions

    subs, out = graded
    disagree = {}
    for student in CLASS:
        nb = json.loads((subs / student / STRIDES).read_text())
        inline = _check_verdicts(nb, learner_kernel)
        batch = {q: r["status"] for q, r in questions(out, student).items()}
        if inline != batch:
            disagree[student] = (inline, batch)
    assert not disagree, disagree
    # and the class is not trivially uniform: every status shows up
    statuses = {r["status"] for s in CLASS for r in questions(out, s).values()}
    assert {"passed", "failed", "not_attempted"} <= statuses


def test_check_names_a_helper_outside_the_answer_cells(graded, learner_kernel):
    from grading_class import questions

    subs, out = graded
    nb = json.loads((subs / "helper-outside" / STRIDES).read_text())
    k = learner_kernel
    assert k.run("%reset -f", 60).status == "ok"
    assert k.run("del In[1:]", 60).status == "ok"
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        r = k.run(src, 120)
        if cell.get("metadata", {}).get("tensorlab") == {"question": CONTIGUOUS, "role": "check"}:
            break
    assert r.status == "error" and r.ename == "CheckFailed"
    text = json.dumps(r.outputs)
    assert "`_strides_of` is defined in a cell that is not an answer cell" in text
    assert f"Move it into the answer cell of {CONTIGUOUS}" in text
    assert questions(out, "helper-outside")[CONTIGUOUS]["status"] == "failed"
