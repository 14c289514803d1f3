"""The command line documents itself: every subcommand has a description, every option its
default, and ``start`` comes first. (The options' reference on the site is generated from this
parser, never copied by hand: ``tests/docs`` checks that a new command appears there.)"""

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
        "override",
        "late",
        "written",
    ]
    listed = re.findall(r"^    (\w+)\s", help_text, re.M)
    assert listed[0] == "start", help_text


@pytest.mark.parametrize(
    "command",
    ["start", "assign", "collect", "grade", "check", "report", "export"]
    + ["override", "late", "written"],
)
def test_every_subcommand_has_a_description_and_every_option_its_default(command):
    sp = _subparsers()[command]
    assert sp.description and len(sp.description) > 60, command
    for option, help_text in _options(sp).items():
        assert DEFAULT.search(help_text), f"{command} {option}: no default in {help_text!r}"
