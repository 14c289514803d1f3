"""The command line documents itself: every subcommand has a description, every option its
default, ``start`` comes first, and README.md's option lists say what ``--help`` says."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tensorlab.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = re.compile(r"\((?:default: (.*)|required)\)\s*$", re.S)


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    p = build_parser()
    (action,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def _options(sp: argparse.ArgumentParser) -> dict[str, str]:
    """--option -> its help text, for every option but --help."""
    return {
        a.option_strings[-1]: a.help or ""
        for a in sp._actions
        if a.option_strings and not isinstance(a, argparse._HelpAction)
    }


def _readme_options() -> dict[str, dict[str, str]]:
    """command -> {--option: the README's text for it}."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"^Options of `tensorlab (\w+)`.*?\n\n((?:- .*\n)+)", text, re.M):
        out[m[1]] = {o[1]: o[2] for o in re.finditer(r"^- `(--[a-z-]+)[^`]*`: (.*)$", m[2], re.M)}
    return out


def test_start_is_listed_first_and_the_top_help_has_no_rest_markup():
    help_text = build_parser().format_help()
    assert "``" not in help_text
    assert list(_subparsers()) == [
        "start",
        "assign",
        "collect",
        "grade",
        "check",
        "report",
        "export",
    ]
    listed = re.findall(r"^    (\w+)\s", help_text, re.M)
    assert listed[0] == "start", help_text


@pytest.mark.parametrize(
    "command", ["start", "assign", "collect", "grade", "check", "report", "export"]
)
def test_every_subcommand_has_a_description_and_every_option_its_default(command):
    sp = _subparsers()[command]
    assert sp.description and len(sp.description) > 60, command
    for option, help_text in _options(sp).items():
        assert DEFAULT.search(help_text), f"{command} {option}: no default in {help_text!r}"


@pytest.mark.parametrize("command", ["start", "grade", "check", "export"])
def test_readme_option_lists_agree_with_argparse(command):
    readme = _readme_options()
    assert command in readme, f"README.md has no 'Options of `tensorlab {command}`' list"
    ours = _options(_subparsers()[command])
    assert set(readme[command]) == set(ours)
    for option, help_text in ours.items():
        theirs = DEFAULT.search(readme[command][option])
        mine = DEFAULT.search(help_text)
        assert theirs is not None, f"README: {command} {option} names no default"
        assert theirs[1] == mine[1], (command, option, theirs[1], mine[1])
