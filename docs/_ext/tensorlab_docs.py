"""Sphinx extension for tensorlab's site (local: ``docs/_ext``).

- ``.. tensorlab-cli::`` writes the reference of every ``tensorlab`` command and option from the
  argparse parser (:func:`tensorlab.cli.build_parser`): a command or an option added there is in
  the reference at the next build, nothing is copied by hand.
- An explorer's saved picture (``image/png`` in its output, its text alternative in the output's
  metadata as ``alt``) is shown with that alt text.
- MathJax is served from the site itself (from the ``sphinx-mathjax-offline`` package), never
  from a CDN: the site works offline and its pages load nothing from elsewhere.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

# ---------------------------------------------------------------------------- the CLI reference


def rst_text(text: str) -> str:
    """argparse help (plain text with `code` in backticks) as reStructuredText."""
    text = text.replace("\\", "\\\\")
    parts = re.split(r"(`[^`]+`)", text)
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 2:
            out.append(f"``{part[1:-1]}``")
        else:
            out.append(re.sub(r"([*|_])", r"\\\1", part))
    return "".join(out)


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    formatter = parser._get_formatter()
    return formatter._expand_help(action)


def _option_signature(action: argparse.Action) -> list[str]:
    """The forms the ``option`` directive documents, e.g. ``--memory SIZE`` or ``DIR``."""
    if not action.option_strings:
        return [action.metavar or action.dest]
    if action.nargs == 0:
        return list(action.option_strings)
    if action.metavar:
        metavar = action.metavar
    elif action.choices:
        metavar = "{" + ",".join(map(str, action.choices)) + "}"
    else:
        metavar = action.dest.upper()
    return [f"{o} {metavar}" for o in action.option_strings]


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = parser._get_formatter()
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, "")
    return " ".join(formatter.format_help().split())


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, helps.get(name, ""), sub))
    return found


def _options_rst(parser: argparse.ArgumentParser, program: str) -> list[str]:
    lines = [f".. program:: {program}", ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        if action.help == argparse.SUPPRESS:
            continue
        lines.append(".. option:: " + ", ".join(_option_signature(action)))
        lines.append("")
        text = _help(action, parser) or "(no description)"
        extra = []
        if action.choices and not isinstance(action, argparse._SubParsersAction):
            extra.append("one of " + ", ".join(f"``{c}``" for c in action.choices))
        if getattr(action, "required", False) and action.option_strings:
            extra.append("required")
        body = rst_text(text)
        if extra:
            body += " (" + "; ".join(extra) + ")"
        lines.append("   " + body)
        lines.append("")
    return lines


def cli_rst(parser: argparse.ArgumentParser) -> list[str]:
    """The whole reference, as reStructuredText lines (a section per command)."""
    prog = parser.prog
    lines = [
        ".. code-block:: text",
        "",
        "   " + _usage(parser),
        "",
        rst_text(parser.description or ""),
        "",
    ]
    lines += _options_rst(parser, prog)
    if parser.epilog:
        lines += [rst_text(parser.epilog), ""]
    for name, summary, sub in _subcommands(parser):
        title = f"{prog} {name}"
        lines += [f".. _cli-{name}:", "", title, "-" * len(title), ""]
        if summary:
            lines += [f"*{rst_text(summary)}*", ""]
        lines += [".. code-block:: text", "", "   " + _usage(sub), ""]
        if sub.description:
            lines += [rst_text(sub.description), ""]
        lines += _options_rst(sub, title)
        if sub.epilog:
            lines += [rst_text(sub.epilog), ""]
    return lines


class TensorlabCli(SphinxDirective):
    """``.. tensorlab-cli::`` the reference of every command, from ``tensorlab.cli``'s parser."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from tensorlab.cli import build_parser

        lines = cli_rst(build_parser())
        self.env.note_dependency(str(Path(self.env.srcdir) / "tensorlab" / "cli.py"))
        container = nodes.section()
        container.document = self.state.document
        nested_parse_with_titles(
            self.state, StringList(lines, source="tensorlab.cli.build_parser"), container
        )
        return container.children


# ---------------------------------------------------------------------------- notebooks


NBVAL_MARK = re.compile(r"^#\s*NBVAL_\w+\s*$")


def read_notebook(text: str, **kwargs):
    """MyST-NB's reader for ``.ipynb``, plus: an output collapsed in the notebook (JupyterLab's
    ``jupyter.outputs_hidden``, the classic Notebook's ``collapsed``: a prediction's answer) is
    collapsed on the site too (MyST-NB's ``hide-output`` tag: a closed "Show output" toggle);
    nbval's ``# NBVAL_...`` marker lines are not shown."""
    import nbformat

    nb = nbformat.reads(text, as_version=4)
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        if cell.get("cell_type") == "code":  # nbval's markers are for the tests, not readers
            lines = cell.source.splitlines()
            cell.source = "\n".join(line for line in lines if not NBVAL_MARK.match(line))
        hidden = meta.get("jupyter", {}).get("outputs_hidden") or meta.get("collapsed")
        if cell.get("cell_type") == "code" and hidden:
            tags = meta.setdefault("tags", [])
            if "hide-output" not in tags:
                tags.append("hide-output")
    return nb


# ---------------------------------------------------------------------------- explorers' alt text


def explorer_alts(path: Path) -> dict[str, str]:
    """sha256 of each saved PNG whose output metadata carries ``alt`` -> that alt text."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = {}
    for cell in nb.get("cells", []):
        for out in cell.get("outputs", []) or []:
            png = (out.get("data") or {}).get("image/png")
            alt = ((out.get("metadata") or {}).get("image/png") or {}).get("alt")
            if png and alt:
                if isinstance(png, list):
                    png = "".join(png)
                found[hashlib.sha256(base64.b64decode(png)).hexdigest()] = alt
    return found


def add_alt_text(app, doctree: nodes.document) -> None:
    path = Path(app.env.doc2path(app.env.docname))
    if path.suffix != ".ipynb":
        return
    # The saved widget state would be embedded in the page for a widget manager the site does
    # not load (the explorers are shown as pictures): leave it out.
    js_files = getattr(app.env, "nb_metadata", {}).get(app.env.docname, {}).get("js_files", {})
    js_files.pop("ipywidgets_state", None)
    alts = explorer_alts(path)
    if not alts:
        return
    for image in doctree.findall(nodes.image):
        digest = Path(image.get("uri", "")).stem
        if digest in alts and not image.get("alt"):
            image["alt"] = alts[digest]


# ---------------------------------------------------------------------------- MathJax, locally


def _mathjax_source() -> Path | None:
    from importlib.util import find_spec

    spec = find_spec("sphinx-mathjax-offline")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax"


def copy_mathjax(app, exc) -> None:
    if exc is not None or app.builder.format != "html":
        return
    source = _mathjax_source()
    if source is None:
        logger.warning("sphinx-mathjax-offline is not installed: math pages cannot load MathJax")
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "tex-chtml.js", target / "tex-chtml.js")
    fonts = Path("output") / "chtml" / "fonts" / "woff-v2"
    shutil.copytree(source / fonts, target / fonts, dirs_exist_ok=True)


def setup(app):
    app.add_directive("tensorlab-cli", TensorlabCli)
    app.connect("doctree-read", add_alt_text)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
