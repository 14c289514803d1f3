"""Stage 1, collect: every submission found, read and identified before any kernel starts.

The student is the folder's name under the class folder (unicode kept, NFC-normalised: a name
decomposed as macOS zips write it is the same student); loose, unknown, duplicate, unreadable
files are recorded with the reason, never merged, never a crash. What was read (the snapshot,
``Job.data``) is what is graded.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .records import UNASSIGNED
from .release import Release
from .term import submission_time
from .text import display, raw_bytes, same_name

MAX_SUBMISSION_BYTES = 20 * 2**20


@dataclass(frozen=True)
class Job:
    """One submitted file, read once before any kernel starts (the snapshot is what is graded).

    ``problem`` set: the file is recorded with that reason and never graded (unreadable,
    unknown name, a second copy, ...). ``status`` is the record's status in that case.
    """

    path: str
    student: str
    notebook: str | None  # the release notebook's file name, None if unknown
    data: bytes | None = None
    problem: str | None = None
    status: str = "error"
    submitted_at: str | None = None  # ISO UTC: the LMS's time, else the file's (``term``)
    submitted_from: str | None = None  # "lms" | "mtime"


_SKIP_DIRS = (".ipynb_checkpoints", "__pycache__")


def student_file(student: str) -> str:
    """The grade file's name for ``student``: distinct names always give distinct files.

    A plain lower-case ASCII name is used as is; any other name (unicode, spaces, capitals, which
    case-insensitive file systems would merge) becomes an ASCII slug plus a short hash of the
    real name after ``~`` (a character plain names never contain). The real name is kept
    inside the file and in the gradebook.
    """
    if student == UNASSIGNED or re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,79}", student):
        return f"{student}.json"
    digest = hashlib.sha256(raw_bytes(student)).hexdigest()[:10]  # undecodable bytes kept
    slug = re.sub(r"[^a-z0-9._-]+", "_", student.lower()).strip("._-")[:60] or "student"
    return f"{slug}~{digest}.json"


def _size_of(path: Path) -> str:
    """``"N bytes"`` for a file that is recorded without being read (never followed)."""
    try:
        return f"{path.lstat().st_size} bytes"
    except OSError:
        return "size unknown"


_COPY = re.compile(r"(.+?)(?:-Copy\d+| \(\d+\)| - Copy(?: \(\d+\))?|-checkpoint|_copy\d*)$")


def copy_of(name: str, notebooks) -> str | None:
    """The released notebook a file name is a copy of (``04_strides-Copy1.ipynb`` ->
    ``04_strides.ipynb``, as Jupyter, file managers and checkpoints name copies), else None."""
    if not name.endswith(".ipynb"):
        return None
    m = _COPY.fullmatch(name[: -len(".ipynb")])
    original = f"{m[1]}.ipynb" if m else None
    return original if original in notebooks else None


def _unknown_name(name: str, notebooks, graded: str | None = None) -> str:
    """Why a file with a name that is not a released notebook's is not graded (the same words
    for ``grade`` and ``check``): which file is graded instead, when it is a copy."""
    shown = display(name)
    original = copy_of(name, notebooks)
    if original is not None:
        where = (
            f"the graded file is {display(graded)}"
            if graded
            else f"rename it to {original} to have it graded"
        )
        return (
            f"{shown} is not the name of a released notebook: it is a copy of {original}, and "
            f"only a file named {original} is graded ({where})"
        )
    return (
        f"{shown} is not the name of a released notebook (expected one of "
        f"{', '.join(sorted(notebooks))}): not graded"
    )


def read_submission(path: Path, root: Path | None) -> tuple[bytes | None, str | None]:
    """(bytes, None) or (None, why it cannot be read). Never blocks, never reads past the cap.

    Inside a class folder (``root``: the student's own folder), a symbolic link is followed only
    when it stays inside that folder; FIFOs, devices and sockets are refused; at most ``MAX_SUBMISSION_BYTES`` are read.
    """
    try:
        if path.is_symlink() and root is not None:
            target = path.resolve()
            base = root.resolve()
            if target != base and base not in target.parents:
                return None, ("a symbolic link leading out of the student's folder is not followed")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except (OSError, RuntimeError) as e:
        return None, f"cannot read the submission: {e.strerror if isinstance(e, OSError) else e}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file (a FIFO, device or socket): not read"
        if st.st_size > MAX_SUBMISSION_BYTES:
            return None, (
                f"the submission is too large ({st.st_size} bytes; the limit is "
                f"{MAX_SUBMISSION_BYTES // 2**20} MiB)"
            )
        chunks, size = [], 0
        while size <= MAX_SUBMISSION_BYTES:
            chunk = os.read(fd, min(2**20, MAX_SUBMISSION_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_SUBMISSION_BYTES:
            return (
                None,
                f"the submission is too large (the limit is {MAX_SUBMISSION_BYTES // 2**20} MiB)",
            )
        return b"".join(chunks), None
    except OSError as e:
        return None, f"cannot read the submission: {e.strerror}"
    finally:
        os.close(fd)


def _walk(root: Path) -> list[tuple[Path, bool]]:
    """(path, is a symlinked folder) for every notebook under ``root``, sorted; symlinked
    folders are reported, never entered; hidden files and folders are skipped."""
    found: list[tuple[Path, bool]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            if d.startswith(".") or d in _SKIP_DIRS:
                continue
            if (here / d).is_symlink():
                found.append((here / d, True))
            else:
                keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            if f.endswith(".ipynb") and not f.startswith("."):
                found.append((here / f, False))
    return sorted(found)


def collect(paths: list[str], release: Release) -> list[Job]:
    """Every submission under ``paths``, read and identified, before any kernel starts.

    A folder is a class folder: ``<student>/<NN_topic>.ipynb`` (deeper levels still belong to
    the first folder's student), a notebook directly in it is recorded as ``_unassigned``; a
    folder holding notebooks and no sub-folders is one student's folder (named after it). A
    file named on the command line belongs to its folder's student. Only a file named like a
    released notebook is read (sized first, at most ``MAX_SUBMISSION_BYTES``); a file with
    another name is recorded for its student by name and size, unread, as not graded (never a
    new student; a copy such as ``04_strides-Copy1.ipynb`` says which file is graded), and so
    is a second copy of a notebook the student already has (the shallowest, first readable copy
    is graded). A student is the folder's name as the file system gives it (undecodable bytes
    kept, so two names differing only there are two students). Raises ``FileNotFoundError``
    for a path that does not exist.
    """
    notebooks = release.notebooks
    jobs: list[Job] = []
    for arg in paths:
        p = Path(arg)
        if not p.exists() and not p.is_symlink():
            raise FileNotFoundError(f"no such file or folder: {arg}")
        if p.is_dir():
            jobs += _collect_folder(p, notebooks)
        else:
            # a file named on the command line: its name says which notebook it is, as in a
            # class folder (`check` and `grade` agree on a copy such as 04_strides-Copy1)
            nb = p.name if p.name in notebooks else None
            student = same_name(p.resolve().parent.name) or UNASSIGNED
            if nb is None:
                problem = (
                    _unknown_name(p.name, notebooks)
                    if copy_of(p.name, notebooks)
                    else "cannot tell which exercise this is (name the file like the released "
                    "notebook, e.g. <student>/01_convolution.ipynb)"
                )
                jobs.append(Job(str(p), student, None, None, f"{problem} ({_size_of(p)})"))
                continue
            data, problem = read_submission(p, None)
            when = submission_time(p, p.parent)
            jobs.append(Job(str(p), student, nb, data, problem, "error", *when))
    return _unique(jobs)


def _collect_folder(p: Path, notebooks) -> list[Job]:
    """The jobs of a class folder (or one student's folder). Only files named like a released
    notebook are read, one per (student, notebook): the shallowest, first readable copy; every
    other file is recorded by name and size, unread (so no number of copies or links to one
    big file can fill the grader's memory)."""
    entries = _walk(p)
    # a folder with notebooks but no sub-folders is one student's folder
    own = bool(entries) and all(len(e.relative_to(p).parts) == 1 for e, _ in entries)
    found: list[tuple[Path, str, str | None, Path]] = []  # path, student, notebook, root
    jobs: list[Job] = []
    for path, is_dir_link in entries:
        rel = path.relative_to(p)
        if own:
            student = same_name(p.resolve().name) or UNASSIGNED
        else:
            student = same_name(rel.parts[0]) if len(rel.parts) > 1 else UNASSIGNED
        if is_dir_link:
            if len(rel.parts) == 1 and not own:
                student = same_name(path.name)
            problem = "a symbolic link to a folder is not followed"
            jobs.append(Job(str(path), student, None, problem=problem))
            continue
        if student == UNASSIGNED:  # no student: no notebook of theirs to count
            problem = (
                "a notebook outside any student folder (expected <student>/<NN_topic>.ipynb): "
                f"not graded ({_size_of(path)})"
            )
            jobs.append(Job(str(path), student, None, None, problem, "unknown"))
            continue
        nb = path.name if path.name in notebooks else None
        # a link may point inside its own student's folder, nowhere else
        root = p / rel.parts[0] if len(rel.parts) > 1 and not own else p
        found.append((path, student, nb, root))
    # one released notebook per student is read: the shallowest, first readable copy
    order = sorted(found, key=lambda f: (len(f[0].parts), str(f[0])))
    graded: dict[tuple[str, str], Job] = {}
    unread: dict[Path, Job] = {}
    for path, student, nb, root in order:
        if nb is None:
            continue
        first = graded.get((student, nb))
        if first is not None:
            reason = f"another copy of {nb} ({display(first.path)}) was graded ({_size_of(path)})"
            unread[path] = Job(str(path), student, None, None, reason, "duplicate")
            continue
        data, problem = read_submission(path, root)
        if problem is None:
            when = submission_time(path, root)
            graded[(student, nb)] = Job(str(path), student, nb, data, None, "error", *when)
        else:
            unread[path] = Job(str(path), student, nb, None, problem)
    for job in list(unread.values()):  # an unreadable copy, when a readable one was graded
        first = graded.get((job.student, job.notebook)) if job.notebook else None
        if first is not None:
            reason = (
                f"{job.problem} (another copy of {job.notebook}, {display(first.path)}, was used)"
            )
            unread[Path(job.path)] = Job(job.path, job.student, None, None, reason, "duplicate")
    for path, student, nb, _ in found:
        if nb is None:
            original = copy_of(path.name, notebooks)
            first = graded.get((student, original)) if original else None
            problem = _unknown_name(path.name, notebooks, first.path if first else None)
            jobs.append(
                Job(str(path), student, None, None, f"{problem} ({_size_of(path)})", "unknown")
            )
        elif path in unread:
            jobs.append(unread[path])
        else:
            jobs.append(graded[(student, nb)])
    return jobs


def _unique(jobs: list[Job]) -> list[Job]:
    seen, out = set(), []
    for j in jobs:
        key = os.path.abspath(j.path)  # a file named twice, not two files linked together
        if key not in seen:
            seen.add(key)
            out.append(j)
    return out


def needs_kernel(job: Job) -> bool:
    """Whether grading ``job`` runs a kernel (else its record is made here, at once)."""
    if job.problem is not None or job.notebook is None or job.data is None:
        return False
    try:
        nb = json.loads(job.data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(nb, dict) and isinstance(nb.get("cells"), list)
