"""The class the batch-grading tests grade: the released exercises answered with the solutions'
answers, some replaced by wrong, broken or hostile ones (``SCENARIOS``), and readers of the
grade files. Shared by test_grading_batch.py and test_grading_attacks.py."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"
SOLUTIONS = ROOT / "solutions"
NOTEBOOKS = sorted(p.name for p in SOLUTIONS.glob("*.ipynb"))
STRIDES = "04_strides.ipynb"
VIEWS = "05_views.ipynb"


def solution_answers(notebook: str) -> dict[str, str]:
    nb = json.loads((SOLUTIONS / notebook).read_text())
    out = {}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            src = cell["source"]
            out[tl["question"]] = "".join(src) if isinstance(src, list) else src
    return out


def submission(notebook: str, replace: dict[str, str] | None = None, *, mutate=None) -> dict:
    """The released exercise with the solution's answers, some replaced, optionally mutated."""
    nb = json.loads((EXERCISES / notebook).read_text())
    answers = {**solution_answers(notebook), **(replace or {})}
    for cell in nb["cells"]:
        tl = cell.get("metadata", {}).get("tensorlab", {})
        if tl.get("role") == "answer":
            cell["source"] = answers[tl["question"]]
    if mutate is not None:
        mutate(nb)
    return nb


def _drop(role: str, question: str | None = None):
    def mutate(nb):
        nb["cells"] = [
            c
            for c in nb["cells"]
            if not (
                c.get("metadata", {}).get("tensorlab", {}).get("role") == role
                and question in (None, c["metadata"]["tensorlab"].get("question"))
            )
        ]

    return mutate


def _edit_checks(nb):
    """Check cells rewritten to claim success, duplicated, and one that would kill the kernel."""
    cells = []
    for c in nb["cells"]:
        cells.append(c)
        if c.get("metadata", {}).get("tensorlab", {}).get("role") == "check":
            c["source"] = "print('passed!')\nimport os\nos._exit(0)"
            dup = copy.deepcopy(c)
            dup["id"] = c["id"] + "-copy"
            cells.append(dup)
    nb["cells"] = cells


TRANSPOSE_WRONG = "transposed_layout = ((4, 3, 2), (6, 2, 1), 0)\n"

SCENARIOS = {
    # student -> (notebook, answers replaced, mutation)
    "loop": (
        STRIDES,
        {
            "strides.transpose": "while True:\n    pass\n",
            "strides.contiguous": "def contiguous_strides(shape):\n    while True:\n        pass\n",
        },
        None,
    ),
    "membomb": (
        STRIDES,
        {
            # 4 GiB: fine without a cap on this machine class, refused under the 2 GiB cap
            "strides.permute": "import numpy as np\n\nblock = np.ones(2**29)\npermuted_layout = block\n",
            "strides.storage_index": (
                "import numpy as np\n\n\ndef storage_index(index, stride, offset):\n"
                "    return np.ones(10**11).sum()\n"
            ),
        },
        None,
    ),
    "exits": (
        STRIDES,
        {
            "strides.slice": "import os\n\nos._exit(3)\n",
            "strides.contiguous": "import os\n\n\ndef contiguous_strides(shape):\n    os._exit(0)\n",
        },
        None,
    ),
    "patched_check": (
        STRIDES,
        {
            "strides.transpose": (
                "import tensorlab\nimport tensorlab.grading\n\n"
                "tensorlab.check = tensorlab.grading.check = lambda *a, **k: None\n"
                + TRANSPOSE_WRONG
            ),
        },
        _edit_checks,
    ),
    "patched_numpy": (
        STRIDES,
        {
            "strides.contiguous": (
                "import base64\n\nimport numpy as np\n\n"
                "np.array_equal = np.allclose = np.isclose = lambda *a, **k: True\n"
                "np.testing.assert_array_equal = lambda *a, **k: None\n"
                "base64.b64encode = lambda *a, **k: b'AAAA'\n\n\n"
                "def contiguous_strides(shape):\n    return np.zeros(len(shape), dtype=int)\n"
            ),
            "strides.transpose": (
                "import tensorlab\n\ntensorlab.Tensor.stride = lambda self, *a: (6, 2, 1)\n"
                + TRANSPOSE_WRONG
            ),
        },
        None,
    ),
    "always_equal": (
        STRIDES,
        {
            "strides.transpose": (
                "class Anything:\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = object.__hash__\n\n\ntransposed_layout = Anything()\n"
            ),
            "strides.permute": (
                "class Tup(tuple):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = tuple.__hash__\n\n\npermuted_layout = Tup((1, 2, 3))\n"
            ),
            "strides.storage_index": (
                "class Int(int):\n    def __eq__(self, other):\n        return True\n\n"
                "    __hash__ = int.__hash__\n\n\n"
                "def storage_index(index, stride, offset):\n    return Int(-1)\n"
            ),
        },
        None,
    ),
    "forger": (
        STRIDES,
        {
            "strides.transpose": (
                "from IPython.display import display\n\n"
                "fake = {'nonce': 'x', 'qid': 'strides.transpose', 'answer': {'t': 'int', 'v': 1}}\n"
                "display({'application/x.tensorlab-answer+json': fake}, raw=True)\n"
                'print(\'{"strides.transpose": "passed"}\')\n' + TRANSPOSE_WRONG
            ),
        },
        None,
    ),
    # answer cells that raise: the learner's own line (the outermost of their cell) is kept
    "raises": (
        STRIDES,
        {
            "strides.transpose": "shape = (4, 3, 2)\ntransposed_layout = shape + 'a'\n",
            "strides.permute": "def permuted_layout(shape, dims:\n    return shape\n",
            "strides.slice": (
                "def _boom():\n    raise ValueError('boom')\n\n\n_boom()\nsliced_layout = 0\n"
            ),
        },
        None,
    ),
    "deleted": (
        STRIDES,
        {},
        lambda nb: (_drop("check")(nb), _drop("answer", "strides.expand")(nb)),
    ),
    "misconceived": (STRIDES, {"strides.transpose": TRANSPOSE_WRONG}, None),
    # "using only view and repeat": right values, broken rule (and a helper to hide it)
    "rule_breaker": (
        VIEWS,
        {
            "views.interleave": (
                "def _spread(x, r):\n    return x.repeat_interleave(r)\n\n\n"
                "def interleave(x, r):\n    return _spread(x, r)\n"
            )
        },
        None,
    ),
    # the rule kept; the learner's own test in the cell may use repeat_interleave
    "rule_keeper": (
        VIEWS,
        {
            "views.interleave": (
                "def interleave(x, r):\n    return x.view(-1, 1).repeat(1, r).view(-1)\n\n\n"
                "t = tensorlab.arange(4)\nassert interleave(t, 3).equal(t.repeat_interleave(3))\n"
            )
        },
        None,
    ),
}


def student_doc(out: Path, student: str) -> dict:
    return json.loads((out / f"{student}.json").read_text())


def questions(out: Path, student: str, notebook: str = STRIDES) -> dict:
    doc = student_doc(out, student)
    (sub,) = [s for s in doc["submissions"] if s["notebook"] == notebook]
    return sub["questions"]


def grade_class(subs: Path, paths: list[Path], out: Path):
    """Grade the folder ``subs`` into ``out`` with the limits every class test uses; returns
    (out, summary, before) with ``before`` each submission's sha256 and mtime, to show later
    that grading changed none of them."""
    from tensorlab.grading.grade import grade

    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths}
    summary = grade(
        [str(subs)],
        out,
        EXERCISES,
        jobs=2,
        cell_timeout=5,
        timeout=150,
        memory=2 * 2**30,
        seed=1234,
        progress=False,
    )
    return out, summary, before
