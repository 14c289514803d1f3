"""Teaching code in the style of the textbooks, tutorials and course notebooks learners paste:
each file in ``snippets/`` is one program, run statement by statement under both libraries.

Each file starts with a comment naming the public material it follows (written anew for this
corpus, in that material's idiom: the same API calls and argument forms)."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent / "snippets"


def split_statements(source: str) -> list[str]:
    """Top-level statements (a ``for`` loop or a ``class`` is one step)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    return ["\n".join(lines[n.lineno - 1 : n.end_lineno]) for n in tree.body]


def snippets() -> dict[str, list[str]]:
    return {p.stem: split_statements(p.read_text()) for p in sorted(HERE.glob("*.py"))}
