"""Stage 1, collect: every submission found, read and identified before any kernel starts.

The student is the folder's name under the class folder (unicode kept); loose, unknown, duplicate, unreadable
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
    digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9._-]+", "_", student.lower()).strip("._-")[:60] or "student"
    return f"{slug}~{digest}.json"


def _display(name: str) -> str:
    """A file name as text (undecodable bytes shown as escapes, never an encoding error)."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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


def _assignment_of(data: bytes | None, manifest: dict) -> str | None:
    """The released notebook a file says it is (``metadata.tensorlab.assignment``), if any."""
    if data is None:
        return None
    try:
        meta = json.loads(data.decode("utf-8")).get("metadata", {}).get("tensorlab", {})
    except (ValueError, UnicodeDecodeError, AttributeError, RecursionError):
        return None
    assignment = meta.get("assignment") if isinstance(meta, dict) else None
    for name, info in manifest["notebooks"].items():
        if info["assignment"] == assignment:
            return name
    return None


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


def collect(paths: list[str], manifest: dict) -> list[Job]:
    """Every submission under ``paths``, read and identified, before any kernel starts.

    A folder is a class folder: ``<student>/<NN_topic>.ipynb`` (deeper levels still belong to
    the first folder's student), a notebook directly in it is recorded as ``_unassigned``; a
    folder holding notebooks and no sub-folders is one student's folder (named after it). A
    file named on the command line belongs to its folder's student, and a file not named like a
    released notebook is then recognised by its metadata. Within a class folder, a file with
    another name is recorded for its student as not graded (never a new student), and so is a
    second copy of a notebook the student already has (the shallowest, first copy is graded).
    Raises ``FileNotFoundError`` for a path that does not exist.
    """
    notebooks = manifest["notebooks"]
    jobs: list[Job] = []
    for arg in paths:
        p = Path(arg)
        if not p.exists() and not p.is_symlink():
            raise FileNotFoundError(f"no such file or folder: {arg}")
        if p.is_dir():
            entries = _walk(p)
            # a folder with notebooks but no sub-folders is one student's folder
            own = bool(entries) and all(len(e.relative_to(p).parts) == 1 for e, _ in entries)
            for path, is_dir_link in entries:
                rel = path.relative_to(p)
                if own:
                    student = _display(p.resolve().name) or UNASSIGNED
                else:
                    student = _display(rel.parts[0]) if len(rel.parts) > 1 else UNASSIGNED
                name = _display(path.name)
                if is_dir_link:
                    if len(rel.parts) == 1 and not own:
                        student = name
                    jobs.append(
                        Job(
                            str(path),
                            student,
                            None,
                            problem="a symbolic link to a folder is not followed",
                        )
                    )
                    continue
                # a link may point inside its own student's folder, nowhere else
                data, problem = read_submission(
                    path, p / rel.parts[0] if len(rel.parts) > 1 and not own else p
                )
                nb = path.name if path.name in notebooks else None
                if problem is None and nb is None:
                    problem = (
                        f"{name} is not the name of a released notebook (expected one of "
                        f"{', '.join(sorted(notebooks))}): not graded"
                    )
                    status = "unknown"
                else:
                    status = "error"
                if student == UNASSIGNED:  # no student: no notebook of theirs to count
                    nb = None
                    if problem is None:
                        problem = (
                            "a notebook outside any student folder (expected "
                            "<student>/<NN_topic>.ipynb): not graded"
                        )
                        status = "unknown"
                jobs.append(Job(str(path), student, nb, data, problem, status))
        else:
            data, problem = read_submission(p, None)
            nb = p.name if p.name in notebooks else _assignment_of(data, manifest)
            student = _display(p.resolve().parent.name) or UNASSIGNED
            if problem is None and nb is None:
                problem = (
                    "cannot tell which exercise this is (name the file like the released "
                    "notebook, e.g. <student>/01_convolution.ipynb)"
                )
            jobs.append(Job(str(p), student, nb, data, problem))
    return _drop_copies(_unique(jobs))


def _unique(jobs: list[Job]) -> list[Job]:
    seen, out = set(), []
    for j in jobs:
        key = os.path.abspath(j.path)  # a file named twice, not two files linked together
        if key not in seen:
            seen.add(key)
            out.append(j)
    return out


def _drop_copies(jobs: list[Job]) -> list[Job]:
    """One file per (student, notebook) keeps that notebook; any other copy is recorded with
    the reason, not graded, never merged (a readable copy wins, then the shallowest, first)."""
    chosen: dict[tuple, Job] = {}
    order = sorted(jobs, key=lambda j: (j.problem is not None, len(Path(j.path).parts), j.path))
    for j in order:
        if j.notebook is not None:
            chosen.setdefault((j.student, j.notebook), j)
    out = []
    for j in jobs:
        first = chosen.get((j.student, j.notebook))
        if first is not None and first is not j:
            reason = j.problem or f"another copy of {j.notebook} ({first.path}) was graded"
            if j.problem is not None:
                reason += f" (another copy of {j.notebook}, {first.path}, was used)"
            j = Job(j.path, j.student, None, None, reason, "duplicate")
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
