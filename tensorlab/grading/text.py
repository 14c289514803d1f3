"""Names from a class folder, made safe for where the grader writes them.

A student's folder name is whatever the student (or their file system) made it: undecodable
bytes (kept as ``surrogateescape`` characters, so two names differing only there stay two
students), escape sequences, a spreadsheet formula. ``display`` is the text to show,
``terminal`` what may reach the instructor's terminal, ``csv_cell`` what may reach a spreadsheet.
"""

from __future__ import annotations

import re
import unicodedata

# What a spreadsheet reads as a formula at the start of a cell (OWASP "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


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
    """``name`` as valid text: undecodable bytes shown as ``\\xNN``, nothing else changed."""
    return raw_bytes(name).decode("utf-8", "backslashreplace")


def terminal(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (escape sequences, carriage
    returns, bells, the C1 range, bidirectional overrides) and undecodable bytes shown as
    escapes, so a folder name cannot move the cursor, recolour or rewrite the screen."""
    out = []
    for ch in display(text):
        cat = unicodedata.category(ch)
        if ch == "\\" or (cat[0] != "C" and ch not in "\u2028\u2029"):
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def csv_cell(text: str) -> str:
    """A text cell for ``gradebook.csv``: valid UTF-8, and a leading ``=``, ``+``, ``-``, ``@``,
    tab or carriage return neutralised with a ``'`` as spreadsheets expect (a number such as
    ``-3`` is left alone: the score columns are numbers); line breaks shown as ``\\r``/``\\n``."""
    text = display(text)
    if text.startswith(_FORMULA_START) and not re.fullmatch(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", text):
        text = "'" + text
    # a line break inside a name would split the row for readers that split lines first
    return text.replace("\r", "\\r").replace("\n", "\\n")


__all__ = ["csv_cell", "display", "raw_bytes", "same_name", "terminal"]
