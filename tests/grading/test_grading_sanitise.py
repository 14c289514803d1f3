"""One sanitiser for every output (issue 37, class 5): CSV cells (gradebook, LMS exports),
the terminal, HTML pages; formulas, control characters, bidirectional controls; names that
differ never look the same; a name with a comma, a quote and a line break round-trips through
``gradebook.csv``; an undecodable byte and its escape stay two students."""

from __future__ import annotations

import csv
import io
import os
import unicodedata
from pathlib import Path

from grading_cli import run_cli
from hypothesis import given
from hypothesis import strategies as st

from tensorlab.grading.text import (
    BIDI,
    csv_cell,
    display,
    from_csv_cell,
    html_text,
    terminal,
)

FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")
# names as a file system may give them: any code point, undecodable bytes as surrogateescape
names = st.text(
    alphabet=st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.sampled_from(sorted(BIDI) + ["\\", "\x1b", "'", "=", "\udce9", "\udcff"]),
    ),
    max_size=12,
)


@given(names, names)
def test_different_names_never_look_the_same(a, b):
    if a != b:
        assert display(a) != display(b)
        assert csv_cell(a) != csv_cell(b)
        assert terminal(a) != terminal(b)
        assert html_text(a) != html_text(b)


@given(names)
def test_every_output_is_inert(name):
    shown = display(name)
    assert not any(ch in BIDI for ch in shown)
    assert all(unicodedata.category(c) != "Cs" for c in shown)
    assert all(unicodedata.category(c)[0] != "C" for c in terminal(name))
    cell = csv_cell(name)
    assert not cell.lstrip(" ").startswith(FORMULA) or cell.startswith("'")
    assert from_csv_cell(cell) == shown
    page = html_text(name)
    assert "<" not in page and ">" not in page and '"' not in page


def test_formulas_are_neutralised_after_leading_spaces_and_numbers_kept():
    assert csv_cell('=HYPERLINK("http://x","y")').startswith("'=")
    assert csv_cell("  @SUM(A1:A9)") == "'  @SUM(A1:A9)"
    assert csv_cell("\t=1+1") == "'\t=1+1"
    assert csv_cell("-3") == "-3" and csv_cell("2.5") == "2.5"
    assert csv_cell("'quoted") == "''quoted"  # so the leading ' is always ours to strip


def _folder(root: Path, name: str) -> None:
    os.mkdir(os.path.join(os.fsencode(root), os.fsencode(name)))
    nb = os.path.join(os.fsencode(root), os.fsencode(name), b"04_strides.ipynb")
    with open(nb, "w") as f:
        f.write("{not a notebook")  # recorded without a kernel: the names are what is tested


RLO = "\u202e"
NAMES = [
    "alice",
    "alice" + RLO,
    '=HYPERLINK("evil.example","click")',
    "  @SUM(1+1)",
    'comma, "quote"\nnewline',
    "jos\udce9",  # the byte E9, undecodable
    "jos\\xe9",  # the same written as an escape
    "\x1b[2Jwipe",
]


def test_names_leave_the_grader_sanitised(tmp_path):
    from grading_class import EXERCISES

    subs = tmp_path / "subs"
    subs.mkdir()
    for name in NAMES:
        _folder(subs, name)
    out = tmp_path / "out"
    r = run_cli("grade", subs, "--out", out, "--release", EXERCISES, "--quiet")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and RLO not in r.stdout + r.stderr

    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    cells = [row[0] for row in rows[1:]]
    assert len(cells) == len(set(cells)) == len(NAMES)  # eight students, eight rows
    for cell in cells:
        assert not cell.lstrip(" ").startswith(FORMULA) or cell.startswith("'")
        assert RLO not in cell and "\x1b" not in cell
    # the name with a comma, a quote and a line break comes back as it was
    assert 'comma, "quote"\nnewline' in [from_csv_cell(c) for c in cells]
    assert "alice" in cells and any(c.startswith("alice\\u202e") for c in cells)

    pages = sorted((out / "feedback").iterdir())
    assert len(pages) == len(NAMES)
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert RLO not in text and "\x1b" not in text and "<script" not in text

    roster = tmp_path / "roster.csv"
    with roster.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "canvas_id", "name"])
        for i, name in enumerate(NAMES):
            if "\udce9" not in name:
                w.writerow([name, str(1000 + i), ""])
    dest = tmp_path / "canvas.csv"
    r = run_cli("export", out, "--format", "canvas", "--roster", roster, "--out", dest)
    r = (
        r
        if r.returncode == 0
        else run_cli(
            "export",
            out,
            "--format",
            "canvas",
            "--roster",
            roster,
            "--out",
            dest,
            "--allow-unmatched",
        )
    )
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout + r.stderr and RLO not in r.stdout + r.stderr
    exported = list(csv.reader(io.StringIO(dest.read_text(encoding="utf-8"))))
    for row in exported:
        for cell in row:
            assert (
                not cell.lstrip(" ").startswith(FORMULA[:4])
                or cell.startswith("'")
                or (cell.lstrip("-+").replace(".", "").isdigit())
            ), row
