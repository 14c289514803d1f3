"""``tensorlab collect DOWNLOAD --out CLASS``: a learning management system's bulk download of
an assignment's submissions as a class folder ``CLASS/<student>/<NN_topic>.ipynb``.

What each LMS's download looks like (their own code and documentation):

- **Canvas** (Assignments > *assignment* > Download Submissions): one zip, every file at its
  top level named ``{name}[_LATE]_{user id}_{attachment id}_{file name}``: ``{name}`` is the
  student's sortable name ("Lee, Ann") lower-cased with every non-word character removed
  (``leeann``), ``LATE`` when Canvas counted the submission late, the user id is Canvas's own
  (the ``ID`` column of its gradebook export), or ``anon_{id}`` under anonymous grading. Only
  each student's latest submission is in the zip; a file uploaded again under the same name
  is renamed by Canvas with a ``-1``, ``-2`` suffix (``04_strides-1.ipynb``), and attachment
  ids grow with time, so the highest one is the newest upload. Text and URL entries come as
  ``{name}_{user id}_text.html`` / ``_link.html`` (no notebook: skipped).
- **Moodle** (Assignment > View all submissions > Download all submissions): one zip holding a
  folder per submission, ``{full name}_{participant id}_assignsubmission_file`` (Moodle 4.1
  and later; earlier versions end the folder's name with ``_``), with the student's files
  inside under their own names; with "Download submissions in folders" turned off, the files
  are at the top level as ``{full name}_{participant id}_assignsubmission_file_{file name}``.
  Underscores in names are written as spaces; under blind marking the name is
  ``Participant``. The participant id is the number of the grading worksheet's
  ``Identifier`` column (``Participant 123456``), and is particular to the assignment.
  Neither LMS puts the submission time in its file names (``submitted_at`` is then null;
  the notebook keeps the zip entry's modification time, as ``unzip`` would).

Every student's folder gets ``.tensorlab-submission.json`` (``SUBMISSION_FILE``)::

    {"submitted_at": ISO-8601 UTC or null, "lms": "canvas"|"moodle", "lms_id": "...",
     "name": "...", "late": bool or null,
     "files": {"04_strides.ipynb": {"from": name in the download, "late": ..., ...}},
     "not_used": [{"from": ..., "reason": ...}]}

and ``CLASS/roster.csv`` (``student, name, lms``, ``canvas_id`` or ``moodle_participant``)
lists everyone collected, merged with what an earlier collect into ``CLASS`` wrote, so that
``tensorlab export`` finds each student's LMS identity.

A notebook renamed on the way (``04_strides (1).ipynb`` by a browser, ``Copy of ...`` by
Google Drive, ``04_strides-Copy1.ipynb`` by Jupyter, ``04_strides-1.ipynb`` by Canvas) is
saved under the released notebook's name, its original name recorded; several copies of one
notebook: the newest upload is kept (Canvas's highest attachment id; else the file named
exactly like the released notebook, else the highest copy number), the others are listed in
``not_used``. A zip a student submitted is looked into (as nbgrader's ``zip_collect`` does):
its notebooks count as the student's files. A download in which no file is named as either
LMS names them is a
``LayoutError`` (never a class of one student with no notebooks).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import time
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .assign import write_atomic
from .text import csv_cell, display

SUBMISSION_FILE = ".tensorlab-submission.json"
ROSTER_FILE = "roster.csv"
LMSES = ("canvas", "moodle")
ID_COLUMN = {"canvas": "canvas_id", "moodle": "moodle_participant"}
MAX_FILE_BYTES = 20 * 2**20  # as collect.MAX_SUBMISSION_BYTES: a notebook larger is not read
MAX_ENTRIES = 100_000

CANVAS_FILE = re.compile(
    r"(?:(?P<name>.+?)_)??(?:(?P<late>LATE)_)?(?P<id>\d+|anon_[A-Za-z0-9]+)_(?P<att>\d+)_"
    r"(?P<file>.+)",
    re.DOTALL,
)
CANVAS_ENTRY = re.compile(r"(?:.+?_)?(?:LATE_)?(?:\d+|anon_[A-Za-z0-9]+)_(?:text|link)\.html")
MOODLE_FOLDER = re.compile(r"(?P<name>[^_]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_?")
MOODLE_FILE = re.compile(
    r"(?P<name>[^_]+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<file>.+)", re.DOTALL
)
# what the OS or a zip tool adds beside the download's own files: never a student's
_JUNK = re.compile(r"(^|/)(__MACOSX|\.DS_Store|Thumbs\.db|desktop\.ini)(/|$)")


class LayoutError(ValueError):
    """The download is not laid out as Canvas or Moodle lays out its downloads."""


# ---------------------------------------------------------------------------- the download
@dataclass(frozen=True)
class Item:
    """One file of the download: its path inside it, its size, its time (seconds since the
    epoch, or None), and how to read it (at most ``MAX_FILE_BYTES``)."""

    path: str
    size: int
    mtime: float | None
    source: object  # a zipfile.ZipInfo, or an os path


class Download:
    """A zip file or an unpacked folder, as a list of ``Item`` (folders, links and special
    files left out: a link is never followed; the names inside are only parsed, never used as
    paths to write to)."""

    def __init__(self, path):
        self.path = Path(path)
        self.zip: zipfile.ZipFile | None = None
        self.skipped: list[tuple[str, str]] = []
        if self.path.is_dir():
            self.items = self._folder()
        elif self.path.is_file():
            try:
                self.zip = zipfile.ZipFile(self.path)
            except (zipfile.BadZipFile, OSError) as e:
                raise LayoutError(
                    f"{self.path} is neither a folder nor a zip file ({e}): give the zip the LMS "
                    "downloaded, or the folder it unpacks to"
                ) from None
            self.items = self._zip()
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")

    def _zip(self) -> list[Item]:
        infos = self.zip.infolist()
        if len(infos) > MAX_ENTRIES:
            raise LayoutError(f"{self.path} holds {len(infos)} entries (at most {MAX_ENTRIES})")
        out = []
        for info in infos:
            name = info.filename.replace("\\", "/")
            if info.is_dir() or _JUNK.search(name):
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                self.skipped.append((name, "a symbolic link in the zip is not followed"))
                continue
            try:
                mtime = time.mktime((*info.date_time, 0, 0, -1))
            except (OverflowError, ValueError):
                mtime = None
            out.append(Item(name, info.file_size, mtime, info))
        return out

    def _folder(self) -> list[Item]:
        out = []
        for dirpath, dirnames, filenames in os.walk(self.path, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if not _JUNK.search(d))
            for f in sorted(filenames):
                full = Path(dirpath) / f
                rel = full.relative_to(self.path).as_posix()
                if _JUNK.search(rel):
                    continue
                try:
                    st = full.lstat()
                except OSError as e:
                    self.skipped.append((rel, f"cannot be read: {e.strerror}"))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    self.skipped.append((rel, "not a regular file (a link is not followed)"))
                    continue
                out.append(Item(rel, st.st_size, st.st_mtime, full))
                if len(out) > MAX_ENTRIES:
                    raise LayoutError(f"{self.path} holds more than {MAX_ENTRIES} files")
        return out

    def read(self, item: Item) -> bytes:
        """The item's bytes; ``ValueError`` past ``MAX_FILE_BYTES`` (a zip's sizes can lie)."""
        limit = f"the limit is {MAX_FILE_BYTES} bytes"
        if item.size > MAX_FILE_BYTES:
            raise ValueError(f"too large ({item.size} bytes; {limit})")
        if isinstance(item.source, tuple):  # a member of a zip the student submitted
            outer, member = item.source
            with zipfile.ZipFile(io.BytesIO(self.read(outer))) as inner:
                with inner.open(member) as f:
                    data = f.read(MAX_FILE_BYTES + 1)
        elif self.zip is not None:
            with self.zip.open(item.source) as f:
                data = f.read(MAX_FILE_BYTES + 1)
        else:
            fd = os.open(item.source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ValueError(f"too large ({limit})")
        return data

    def close(self) -> None:
        if self.zip is not None:
            self.zip.close()


# ---------------------------------------------------------------------------- parsing names
@dataclass(frozen=True)
class Found:
    """A file of one student's submission, as the LMS named it."""

    item: Item
    lms: str
    lms_id: str
    name: str  # the LMS's name for the student ("leeann", "Ann Lee"); "" when anonymous
    file: str  # the file's name as the student uploaded it
    late: bool | None  # None: the LMS does not say
    order: int  # a later upload has a larger order (Canvas: attachment id), else 0


def _strip_wrapper(paths: list[str]) -> str:
    """The folder every path is inside when the whole download sits in one folder that is not
    itself a submission's folder (a zip unpacked into a folder of its name), else ''."""
    prefix = ""
    while True:
        rest = [p[len(prefix) :] for p in paths]
        tops = {p.split("/", 1)[0] for p in rest}
        if len(tops) != 1 or not all("/" in p for p in rest):
            return prefix
        (top,) = tops
        if MOODLE_FOLDER.fullmatch(top):
            return prefix
        prefix += top + "/"


def parse_canvas(item: Item, rel: str) -> Found | None:
    if "/" in rel:
        return None
    m = CANVAS_FILE.fullmatch(rel)
    if not m:
        return None
    return Found(
        item, "canvas", m["id"], m["name"] or "", m["file"], bool(m["late"]), int(m["att"])
    )


def parse_moodle(item: Item, rel: str) -> Found | None:
    parts = rel.split("/")
    if len(parts) > 1:
        m = MOODLE_FOLDER.fullmatch(parts[0])
        if not m or m["plugin"] != "file":
            return None
        file = parts[-1]
    else:
        m = MOODLE_FILE.fullmatch(rel)
        if not m or m["plugin"] != "file":
            return None
        file = m["file"]
    name = "" if m["name"] == "Participant" else m["name"]
    return Found(item, "moodle", m["id"], name, file, None, 0)


def _is_lms_entry(rel: str) -> bool:
    """A file the LMS itself names that is not a file submission (a text or URL entry, Moodle's
    online text, comments, ...)."""
    first = rel.split("/", 1)[0]
    return bool(
        CANVAS_ENTRY.fullmatch(rel)
        or MOODLE_FOLDER.fullmatch(first)
        or MOODLE_FILE.fullmatch(first)
    )


def detect(paths: list[str], lms: str = "auto") -> str | None:
    """Which LMS named ``paths`` (relative to the download): "canvas", "moodle", or None when
    neither did. ``LayoutError`` when both appear, or when ``lms`` is forced and none match."""
    prefix = _strip_wrapper(paths)
    rels = [p[len(prefix) :] for p in paths]
    dummy = Item("", 0, None, None)
    hits = {
        "canvas": sum(parse_canvas(dummy, r) is not None for r in rels),
        "moodle": sum(parse_moodle(dummy, r) is not None for r in rels),
    }
    if lms != "auto":
        return lms if hits[lms] else None
    if hits["canvas"] and hits["moodle"]:
        raise LayoutError(
            f"the download mixes Canvas names ({hits['canvas']} files) and Moodle names "
            f"({hits['moodle']} files): collect one LMS's download at a time (--lms)"
        )
    return next((k for k, v in hits.items() if v), None)


def looks_like_download(folder) -> str | None:
    """ "canvas"/"moodle" when ``folder`` (a class folder given to ``grade``) is really an LMS's
    download still laid out as the LMS named it, else None (cheap: names only)."""
    p = Path(folder)
    if not p.is_dir():
        return None
    paths: list[str] = []
    for entry in sorted(os.listdir(p))[:2000]:
        full = p / entry
        if full.is_dir() and not full.is_symlink():
            if MOODLE_FOLDER.fullmatch(entry):
                paths.append(entry + "/x")
        elif entry.endswith(".ipynb"):
            paths.append(entry)
    try:
        return detect(paths) if paths else None
    except LayoutError:  # both LMSes' names: still not a class folder
        return "canvas"


# ---------------------------------------------------------------------------- notebook names
_RENAMES = (
    re.compile(r"(?i)copy of (?P<stem>.+)"),  # Google Drive / Colab
    re.compile(r"(?P<stem>.+?) ?\((?P<n>\d+)\)"),  # a browser's second download
    re.compile(r"(?i)(?P<stem>.+?)-Copy(?P<n>\d+)"),  # Jupyter's "Duplicate"
    re.compile(r"(?i)(?P<stem>.+?)(?: - | |_)copy(?: \((?P<n>\d+)\))?"),  # file managers
    re.compile(r"(?P<stem>.+?)-checkpoint"),  # .ipynb_checkpoints
    re.compile(r"(?P<stem>.+?)-(?P<n>\d+)"),  # Canvas: a second upload under the same name
)


def released_name(file: str, notebooks) -> tuple[str | None, int]:
    """(the released notebook ``file`` is, or None; its copy number, 0 for the exact name).

    ``04_strides.ipynb`` -> (``04_strides.ipynb``, 0); ``Copy of 04_Strides (2).ipynb`` ->
    (``04_strides.ipynb``, 2): the renamings browsers, Drive, Jupyter, file managers and
    Canvas make are undone (any number of them, in any order), letters' case ignored.
    """
    if not file.lower().endswith(".ipynb"):
        return None, 0
    by_fold = {nb[: -len(".ipynb")].casefold(): nb for nb in notebooks}
    stem = unicodedata.normalize("NFC", file[: -len(".ipynb")]).strip()
    number, seen = 0, set()
    while stem not in seen:
        seen.add(stem)
        hit = by_fold.get(stem.casefold())
        if hit is not None:
            return hit, number
        for rx in _RENAMES:
            m = rx.fullmatch(stem)
            if m:
                stem = m["stem"].strip()
                if m.groupdict().get("n"):
                    number = max(number, int(m["n"]))
                break
    return None, 0


# ---------------------------------------------------------------------------- the class folder
def _safe_part(name: str) -> str:
    """A name usable as one folder or file name: NFC, no separators or control characters,
    not hidden, not a spreadsheet formula."""
    name = unicodedata.normalize("NFC", name)
    name = "".join("_" if (c in "/\\" or unicodedata.category(c)[0] == "C") else c for c in name)
    name = name.strip().strip(".") or "student"
    if name[0] in "=+-@~":
        name = "_" + name
    return name[:120]


@dataclass
class Student:
    lms: str
    lms_id: str
    name: str
    found: list[Found] = field(default_factory=list)
    folder: str = ""


def _identity(folder: Path) -> dict | None:
    try:
        doc = json.loads((folder / SUBMISSION_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) else None


def _folders(students: list[Student], out: Path) -> None:
    """Each student's folder name: the LMS's name for them ("leeann", "Ann Lee";
    ``anon_x``/``participant_N`` when anonymous), with ``_<id>`` added when two students of the
    download share it, or when an earlier collect gave that folder to someone else (Canvas: a
    different user id; Moodle's participant ids change from one assignment to the next, so a
    Moodle folder of the same name is the same student)."""
    base = {}
    for s in students:
        if s.name:
            base[id(s)] = _safe_part(s.name)
        else:  # anonymous: Canvas's id is already anon_<id>
            base[id(s)] = _safe_part(s.lms_id if s.lms == "canvas" else f"participant_{s.lms_id}")
    counts: dict[str, int] = {}
    for s in students:
        key = base[id(s)].casefold()
        counts[key] = counts.get(key, 0) + 1
    for s in students:
        name = base[id(s)]
        clash = counts[name.casefold()] > 1
        if not clash and (out / name).is_dir():
            known = _identity(out / name)
            clash = bool(
                known
                and (
                    known.get("lms") != s.lms
                    or (s.lms == "canvas" and str(known.get("lms_id")) != s.lms_id)
                )
            )
        s.folder = _safe_part(f"{name}_{s.lms_id}") if clash else name


def _choose(student: Student, notebooks, only: str | None) -> tuple[dict, list]:
    """{released notebook: Found} for one student, and [(Found, why not used)]."""
    candidates: dict[str, list[tuple[tuple, Found]]] = {}
    unused = []
    for f in student.found:
        nb, number = released_name(f.file, notebooks)
        if nb is None and only is not None and f.file.lower().endswith(".ipynb"):
            nb, number = only, 10**6  # the one notebook of this download, under another name
        if nb is None:
            if f.file.lower().endswith(".zip"):
                why = "a zip: the notebooks inside it were looked at"
            elif f.file.lower().endswith(".ipynb"):
                why = "not the name of a released notebook"
            else:
                why = "not a notebook"
            unused.append((f, why))
            continue
        if only is not None and nb != only:
            unused.append((f, f"this download is {only}"))
            continue
        # newest first: Canvas's attachment id, else the exact name, else the highest copy
        candidates.setdefault(nb, []).append(((f.order, -(number > 0), number, f.file), f))
    chosen = {}
    for nb, options in candidates.items():
        options.sort(key=lambda o: o[0], reverse=True)
        chosen[nb] = options[0][1]
        for _, f in options[1:]:
            unused.append((f, f"a newer copy of {nb} ({options[0][1].file}) was used"))
    return chosen, unused


MAX_INNER = 200  # notebooks looked at inside one student's zip


def _inside_zip(dl: Download, f: Found) -> list[Found]:
    """The notebooks inside a zip a student submitted (as nbgrader's zip_collect extracts
    archives within the download): each one a file of theirs, named by its own name; nothing
    when the zip cannot be read (the zip itself is then listed as not a notebook)."""
    try:
        with zipfile.ZipFile(io.BytesIO(dl.read(f.item))) as inner:
            infos = inner.infolist()[: MAX_INNER * 10]
    except (OSError, ValueError, zipfile.BadZipFile, RuntimeError):
        return []
    out = []
    for info in infos:
        name = info.filename.replace("\\", "/")
        base = name.rsplit("/", 1)[-1]
        if (
            info.is_dir()
            or _JUNK.search(name)
            or base.startswith(".")
            or not base.lower().endswith(".ipynb")
            or stat.S_ISLNK(info.external_attr >> 16)
            or "/.ipynb_checkpoints/" in f"/{name}"
        ):
            continue
        inner_item = Item(f"{f.item.path}!{name}", info.file_size, f.item.mtime, (f.item, info))
        out.append(Found(inner_item, f.lms, f.lms_id, f.name, base, f.late, f.order))
        if len(out) >= MAX_INNER:
            break
    return out


def collect_download(
    download, out, release, *, lms: str = "auto", notebook: str | None = None
) -> dict:
    """Write the class folder ``out`` from the LMS download ``download`` (a zip or a folder).

    ``notebook``: the released notebook this download is the assignment of; a student's
    only notebook is then saved under that name whatever it was called. Returns a summary:
    ``{"lms", "students": {folder: {"notebooks": [...], "late": ..., "not_used": [...]}},
    "skipped": [(path, why)]}``. ``LayoutError`` when the download is not an LMS's.
    """
    if lms not in ("auto", *LMSES):
        raise ValueError(f"unknown LMS {lms!r} (choose from auto, {', '.join(LMSES)})")
    notebooks = sorted(release.notebooks)
    if notebook is not None and notebook not in release.notebooks:
        nb, _ = released_name(notebook, notebooks)
        if nb is None:
            raise ValueError(
                f"--notebook {notebook} is not a released notebook (one of {', '.join(notebooks)})"
            )
        notebook = nb
    dl = Download(download)
    try:
        return _collect(dl, Path(out), notebooks, lms, notebook)
    finally:
        dl.close()


def _collect(dl: Download, out: Path, notebooks, lms: str, notebook: str | None) -> dict:
    paths = [i.path for i in dl.items]
    kind = detect(paths, lms)
    if kind is None:
        shown = ", ".join(display(p) for p in paths[:3]) or "no files"
        what = "Canvas or Moodle" if lms == "auto" else lms.capitalize()
        raise LayoutError(
            f"{dl.path} is not laid out as {what} names its downloads (it holds {shown}"
            f"{', ...' if len(paths) > 3 else ''}). Expected Canvas's "
            "'{name}_{user id}_{attachment id}_{file}' files, or Moodle's "
            "'{full name}_{participant id}_assignsubmission_file' folders; for a class folder "
            "of <student>/<NN_topic>.ipynb, run `tensorlab grade` on it directly"
        )
    prefix = _strip_wrapper(paths)
    parse = parse_canvas if kind == "canvas" else parse_moodle
    students: dict[str, Student] = {}
    skipped = list(dl.skipped)
    for item in dl.items:
        rel = item.path[len(prefix) :]
        f = parse(item, rel)
        if f is None:
            why = (
                "a text, URL or other non-file entry of the LMS"
                if _is_lms_entry(rel)
                else f"not named as {kind.capitalize()} names a submission's files"
            )
            skipped.append((item.path, why))
            continue
        s = students.setdefault(f.lms_id, Student(f.lms, f.lms_id, f.name))
        s.found.append(f)
        if f.file.lower().endswith(".zip"):
            s.found += _inside_zip(dl, f)
    if not students:
        raise LayoutError(f"{dl.path}: no submission files found")
    ordered = sorted(students.values(), key=lambda s: (s.name.casefold(), s.lms_id))
    _folders(ordered, out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"lms": kind, "students": {}, "skipped": skipped}
    for s in ordered:
        summary["students"][s.folder] = _write_student(dl, out, s, notebooks, notebook)
    _write_roster(out, ordered)
    return summary


def _write_student(dl: Download, out: Path, s: Student, notebooks, only) -> dict:
    chosen, unused = _choose(s, notebooks, only)
    folder = out / s.folder
    folder.mkdir(exist_ok=True)
    files, not_used = {}, []
    for f, why in unused:
        not_used.append({"from": display(f.item.path), "reason": why})
    for nb, f in sorted(chosen.items()):
        try:
            data = dl.read(f.item)
        except (OSError, ValueError, zipfile.BadZipFile, RuntimeError) as e:
            not_used.append({"from": display(f.item.path), "reason": f"cannot be read: {e}"})
            continue
        write_atomic(folder / nb, data)
        if f.item.mtime is not None:
            os.utime(folder / nb, (f.item.mtime, f.item.mtime))
        files[nb] = {"from": display(f.item.path), "file": display(f.file), "late": f.late}
        if s.lms == "canvas":  # what Canvas's "Upload Submissions" matches a comment file by
            files[nb]["attachment_id"] = str(f.order)
    late_flags = [v["late"] for v in files.values()]
    known = _identity(folder) or {}
    merged_files = {**(known.get("files") or {}), **files}
    doc = {
        "submitted_at": None,  # neither LMS names the time in its download
        "lms": s.lms,
        "lms_id": s.lms_id,
        "name": s.name or known.get("name") or "",
        "late": (any(late_flags) if late_flags else None) if s.lms == "canvas" else None,
        "files": merged_files,
        "not_used": not_used,
    }
    data = (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()
    write_atomic(folder / SUBMISSION_FILE, data)
    return {"notebooks": sorted(files), "late": doc["late"], "not_used": not_used}


def read_roster_rows(path: Path) -> tuple[list[str], list[dict]]:
    """(header, rows) of a roster.csv an earlier collect wrote (empty when there is none)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        return [], []
    rows = list(csv.DictReader(io.StringIO(text)))
    header = list(rows[0].keys()) if rows else []
    return header, rows


def _write_roster(out: Path, students: list[Student]) -> None:
    """``out/roster.csv``: every student ever collected into ``out`` (this download's replace
    their earlier rows), one LMS identity column per LMS seen."""
    _, old = read_roster_rows(out / ROSTER_FILE)
    rows = {r.get("student", ""): r for r in old if r.get("student")}
    for s in students:
        rows[s.folder] = {
            "student": s.folder,
            "name": s.name,
            "lms": s.lms,
            ID_COLUMN[s.lms]: s.lms_id,
        }
    columns = ["student", "name", "lms"] + [
        ID_COLUMN[k] for k in LMSES if any(r.get(ID_COLUMN[k]) for r in rows.values())
    ]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(columns)
    for key in sorted(rows, key=str.casefold):
        w.writerow([csv_cell(rows[key].get(c) or "") for c in columns])
    write_atomic(out / ROSTER_FILE, buf.getvalue().encode("utf-8"))


def summary_lines(summary: dict, out) -> list[str]:
    """What ``tensorlab collect`` prints."""
    from .text import terminal

    studs = summary["students"]
    n_nb = sum(len(v["notebooks"]) for v in studs.values())
    late = sum(1 for v in studs.values() if v["late"])
    flags = (
        f"{late} late"
        if summary["lms"] == "canvas"
        else "Moodle's download says nothing of lateness"
    )
    lines = [
        f"collected {n_nb} notebooks of {len(studs)} students from a {summary['lms'].capitalize()} "
        f"download into {terminal(str(out))} ({flags}); roster: "
        f"{terminal(str(Path(out) / ROSTER_FILE))}"
    ]
    for folder, v in studs.items():
        if not v["notebooks"]:
            lines.append(f"warning: {terminal(folder)}: no released notebook in the submission")
        for u in v["not_used"]:
            lines.append(
                f"note: {terminal(folder)}: not used: {terminal(u['from'])}: {u['reason']}"
            )
    for path, why in summary["skipped"]:
        lines.append(f"note: skipped {terminal(path)}: {why}")
    return lines
