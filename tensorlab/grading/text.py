r"""Names from a class folder, made safe for where the grader writes them: the one sanitiser.

A student's folder name is whatever the student (or their file system) made it: undecodable
bytes (kept as ``surrogateescape`` characters, so two names differing only there stay two
students), escape sequences, bidirectional controls (a right-to-left override makes
"alice" + RLO look like "alice"), a spreadsheet formula. Every name or message that leaves the
grader goes through one of these:

- ``display``: the text to show anywhere (HTML pages escape it further with ``html_text``):
  undecodable bytes as ``\xNN`` and invisible formatting characters (bidirectional controls,
  zero-width characters) as ``\uXXXX``, so two different names never look the same;
- ``terminal``: what may reach the instructor's terminal (every control character escaped);
- ``csv_cell``: what may reach a spreadsheet (no formula, incl. after leading spaces);
- ``html_text``: what may reach an HTML page.

JSON files keep the real name (``json.dumps`` escapes everything but printable ASCII).
"""

from __future__ import annotations

import re
import unicodedata

# What a spreadsheet reads as a formula at the start of a cell (OWASP "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
# Bidirectional controls (Unicode TR9: embeddings, overrides, isolates, marks) and the other
# invisible characters that make two names look alike (zero-width spaces and joiners, BOM).
BIDI = frozenset(
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)
INVISIBLE = BIDI | frozenset(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"])


def raw_bytes(name: str) -> bytes:
    """The bytes a name stands for (its undecodable bytes restored), for hashing identities."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that was never an escaped byte
        return name.encode("utf-8", "surrogatepass")


def same_name(name: str) -> str:
    """A student's identity: NFC-normalised (a name decomposed as macOS zips write it, NFD, is the
    same student), its undecodable bytes kept (two names differing only there stay two)."""
    return unicodedata.normalize("NFC", name)


def display(name: str) -> str:
    """``name`` as valid text that looks like no other name, one character at a time: an
    undecodable byte as ``\\xNN``, a control character (but a line break or tab) as
    ``\\xNN``, a bidirectional control or zero-width character as ``\\uXXXX``, and a real
    backslash doubled (so the folder ``jos\\xe9`` never looks like ``jos`` + the byte E9)."""
    out = []
    for ch in name:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif 0xDC80 <= o <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif 0xD800 <= o <= 0xDFFF or ch in INVISIBLE:
            out.append(f"\\u{o:04x}")
        elif (o < 0x20 and ch not in "\n\t") or 0x7F <= o < 0xA0:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    return "".join(out)


def html_text(text) -> str:
    """``text`` for an HTML page: ``display``ed, then escaped (quotes included)."""
    import html

    return html.escape("" if text is None else display(str(text)))


def terminal(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (escape sequences, carriage
    returns, bells, the C1 range, bidirectional overrides) and undecodable bytes shown as
    escapes, so a folder name cannot move the cursor, recolour or rewrite the screen."""
    out = []
    for ch in display(text):
        cat = unicodedata.category(ch)
        if cat[0] != "C" and ch not in "\u2028\u2029":
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def csv_cell(text: str) -> str:
    """A text cell for a CSV file a spreadsheet may open (``gradebook.csv``, the LMS exports):
    ``display``ed, and a cell that a spreadsheet would read as a formula (starting, after any
    spaces, with ``=``, ``+``, ``-``, ``@``, a tab or a line break) or that starts with ``'``
    gets one ``'`` in front, as spreadsheets expect; a number such as ``-3`` is left alone
    (the score columns are numbers). Nothing else changes, so a name with commas, quotes and
    line breaks round-trips through the ``csv`` module (``from_csv_cell`` undoes it)."""
    text = display(text)
    if re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", text):
        return text
    if text.lstrip(" ").startswith(_FORMULA_START) or text.startswith("'"):
        text = "'" + text
    return text


def from_csv_cell(cell: str) -> str:
    """The text ``csv_cell`` was given (for names that ``display`` leaves unchanged)."""
    return cell[1:] if cell.startswith("'") else cell


__all__ = [
    "csv_cell",
    "display",
    "from_csv_cell",
    "html_text",
    "raw_bytes",
    "same_name",
    "terminal",
]
