"""The question registry: every question of every notebook, by id."""

from __future__ import annotations

import importlib
from functools import lru_cache

from .model import Question

_MODULES = (
    "convolution",
    "conv2d_inputs",
    "channels",
    "strides",
    "views",
    "autograd",
    "strided_conv",
    "transposed_pooling",
    "tiny_cnn",
    "why_convolution",
    "subpixel_backward",
)


@lru_cache(maxsize=1)
def _registry() -> dict[str, Question]:
    out: dict[str, Question] = {}
    for name in _MODULES:
        module = importlib.import_module(f"tensorlab.grading.questions.{name}")
        for q in module.QUESTIONS:
            if q.id in out:
                raise ValueError(f"duplicate question id {q.id!r}")
            out[q.id] = q
    return out


_authored: dict[str, Question] = {}  # questions declared in instructors' own notebooks


def register(questions) -> None:
    """Add (or replace) authored questions in this process (see ``grading.authoring``)."""
    for q in questions:
        if q.id in _registry():
            raise ValueError(f"question id {q.id!r} is a built-in question's id")
        _authored[q.id] = q


def get(qid: str) -> Question:
    """The question with id ``qid`` (KeyError with the known ids otherwise)."""
    if qid in _authored:
        return _authored[qid]
    reg = _registry()
    if qid not in reg:
        raise KeyError(f"unknown question {qid!r}; known: {', '.join(sorted(reg))}")
    return reg[qid]


def all_questions() -> list[Question]:
    """Every question, in notebook order."""
    return list(_registry().values())


def for_notebook(notebook: str) -> list[Question]:
    """The questions of one notebook (``"01_convolution"``), in order."""
    return [q for q in _registry().values() if q.notebook == notebook]
