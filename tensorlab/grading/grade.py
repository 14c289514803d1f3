"""``tensorlab grade SUBMISSIONS... --out DIR``: batch grading in fresh, sandboxed kernels.

Before any kernel starts, every submission is found, read (size-capped; no FIFOs, devices or
symbolic links leaving the student's folder) and identified (``collect``): the student is the
folder's name under the class folder, unicode kept; loose, unknown, duplicate, unreadable files
are recorded with the reason, never merged, never a crash. What was read is what is graded.

For each notebook:

1. the notebook is rebuilt from the released template (``release.json`` + the exercise
   notebook): the template's code cells in order, with only the learner's *answer* cells spliced
   in (found by their question id in cell metadata, else by cell id). Check cells, edited or
   not, are never run; a missing answer cell scores 0 with the reason ``missing``;
2. the rebuilt cells run in a fresh kernel (``kernel.Kernel``) inside the bubblewrap sandbox
   (``sandbox``: nothing visible but the Python environment and a private scratch folder, the
   question banks hidden; own PID and network namespaces; an unprivileged uid; memory, CPU,
   process and file-size limits) with per-cell and per-notebook time limits. A cell that kills
   the kernel or cannot be interrupted is skipped and the kernel restarted, so one bad answer
   does not sink the rest;
3. for each question one harness cell asks the kernel for the answer only (functions are
   called on grader-chosen public and hidden random inputs); values come back as JSON
   (``encode``), never pickle;
4. the grader judges them in its own process (``judge``) against references the kernel never
   sees.

Per-question status: passed | failed | not_attempted | error | timeout | kernel_died | missing
(| grader_error). A notebook whose grading fails (its worker killed, a grader error) is graded
once more; if it fails again it is recorded as lost: 0 points of its full max score.
``DIR/<student>.json`` and ``DIR/gradebook.csv`` are written atomically as students complete
(``Results``), merged with what earlier runs wrote there; an interrupted run (Ctrl-C) is undone;
submissions are only read.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import re
import secrets
import stat
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import __version__
from .assign import RELEASE_FILE, load_release, write_atomic

STATUSES = ("passed", "failed", "not_attempted", "error", "timeout", "kernel_died", "missing")
MAX_SUBMISSION_BYTES = 20 * 2**20
MAX_RESTARTS = 3
PRELUDE = (  # .format(key=...): the harness signs every answer with this notebook's secret key
    "import tensorlab.grading._harness as _tl_harness\n_tl_harness.install({key!r})\ndel _tl_harness"
)


@dataclass(frozen=True)
class Settings:
    """Limits and seed for a grading run (recorded in every grade file)."""

    release_dir: str
    cell_timeout: float = 30.0
    timeout: float = 600.0
    memory: int = 4 * 2**30
    seed: int = 0
    sandbox: str = "none"  # "bwrap" (every kernel in the OS sandbox) or "none"

    def kernel_limits(self) -> tuple:
        """What a kernel is launched with: (memory cap, CPU seconds, sandboxed)."""
        return (self.memory, int(math.ceil(self.timeout)) + 30, self.sandbox == "bwrap")


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


# ---------------------------------------------------------------------------- parsing sizes
def parse_size(text: str) -> int:
    """``"4G"``, ``"512M"``, ``"1.5GiB"``, ``"0"`` (no cap) -> bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)(i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"invalid memory size {text!r} (use e.g. 512M, 4G)")
    scale = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[m[2].lower()]
    return int(float(m[1]) * scale)


# ---------------------------------------------------------------------------- submissions
UNASSIGNED = "_unassigned"  # notebooks found outside any student folder
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


# ---------------------------------------------------------------------------- rebuilding
@dataclass
class ExecCell:
    """A cell of the rebuilt notebook: template context code, or a learner's answer."""

    source: str
    qid: str | None = None  # set for answer cells


def _answer_cells(submission) -> tuple[dict, dict]:
    by_question: dict[str, list] = {}
    by_id: dict[str, list] = {}
    for cell in submission.get("cells", []):
        if not isinstance(cell, dict):
            continue
        meta = cell.get("metadata", {})
        tl = meta.get("tensorlab") if isinstance(meta, dict) else None
        if (
            isinstance(tl, dict)
            and tl.get("role") == "answer"
            and isinstance(tl.get("question"), str)
        ):
            by_question.setdefault(tl["question"], []).append(cell)
        if isinstance(cell.get("id"), str):
            by_id.setdefault(cell["id"], []).append(cell)
    return by_question, by_id


def _source(cell) -> str | None:
    src = cell.get("source", "")
    if isinstance(src, list) and all(isinstance(s, str) for s in src):
        src = "".join(src)
    return src if isinstance(src, str) else None


def rebuild(template, submission, questions: dict) -> tuple[list[ExecCell], dict[str, str]]:
    """The cells to run: template code cells, with the learner's answer cells spliced in.

    Returns (cells, problems) where ``problems`` maps question ids whose answer cell is absent
    (or unusable) to a reason. Duplicated answer cells: the last one is used.
    """
    by_question, by_id = _answer_cells(submission)
    cells: list[ExecCell] = []
    problems: dict[str, str] = {}
    for cell in template.cells:
        if cell.cell_type != "code":
            continue
        tl = cell.metadata.get("tensorlab", {})
        role, qid = tl.get("role"), tl.get("question")
        if role == "check":
            continue
        if role != "answer":
            cells.append(ExecCell(cell.source))
            continue
        candidates = by_question.get(qid) or by_id.get(cell.get("id"), [])
        if not candidates:
            problems[qid] = "the answer cell was deleted from the notebook"
            continue
        chosen = candidates[-1]
        if chosen.get("cell_type") != "code":
            problems[qid] = "the answer cell is not a code cell"
            continue
        src = _source(chosen)
        if src is None:
            problems[qid] = "the answer cell is malformed"
            continue
        cells.append(ExecCell(src, qid))
    for qid in questions:
        if qid not in problems and not any(c.qid == qid for c in cells):
            problems[qid] = "the answer cell is missing"
    return cells, problems


# ---------------------------------------------------------------------------- one notebook
class _OutOfTime(Exception):
    pass


class _GiveUp(Exception):
    pass


def _question_records(questions: dict, status: str, message: str) -> dict:
    """Records for questions that could not be judged (same keys as ``Verdict.as_record``)."""
    return {
        qid: {
            "status": status,
            "points": 0.0,
            "max_points": float(info["points"]),
            "stage": None,
            "message": message,
            "misconception": None,
            "misconception_message": None,
            "cases_passed": None,
            "cases": None,
        }
        for qid, info in questions.items()
    }


def _harness_source(nonce: str, qid: str, info: dict, payload: str) -> str:
    return (
        "import tensorlab.grading._harness as _tl_harness\n"
        f"_tl_harness.respond({nonce!r}, {qid!r}, {info['name']!r}, {info['kind']!r}, "
        f"{payload!r})"
    )


def _payload(q, seed: int) -> str:
    from .encode import encode_args
    from .model import make_cases

    if q.kind != "function":
        return "{}"
    cases = [encode_args(args)[0] for args in make_cases(q, seed)]
    return json.dumps({"cases": cases})


def _answer_from(outputs: list, nonce: str, qid: str, key: str):
    """The answer the harness published for ``qid`` in this cell: only a body signed with the
    notebook's ``key`` counts. None when there is none; ``{"t": "tampered"}`` when the only
    answers there are unsigned or wrongly signed (a forged or altered answer)."""
    import hmac

    from ._harness import MIME, sign

    found = forged = None
    for out in outputs:
        data = out.get("data", {}) if out.get("output_type") == "display_data" else {}
        msg = data.get(MIME) if isinstance(data, dict) else None
        if msg is None:
            continue
        body = msg.get("body") if isinstance(msg, dict) else None
        sig = msg.get("sig") if isinstance(msg, dict) else None
        if not (isinstance(body, str) and isinstance(sig, str)):
            forged = True
            continue
        if not hmac.compare_digest(sign(key, body), sig):
            forged = True
            continue
        try:
            msg = json.loads(body)
        except (ValueError, RecursionError):
            continue
        if isinstance(msg, dict) and msg.get("nonce") == nonce and msg.get("qid") == qid:
            found = msg.get("answer")
    if found is None and forged:
        return {"t": "tampered", "what": "an answer the grading harness did not sign"}
    return found


def _judge(q, answer, seed: int):
    """The verdict on an answer as the kernel sent it (``judge.judge_encoded``: sized, decoded
    and judged under one guard; it never raises for what the answer holds)."""
    from .judge import judge_encoded

    return judge_encoded(q, answer, seed)


def _rule_verdict(q, cells: list[ExecCell], verdict):
    """``verdict``, or the failed verdict of an answer that breaks its question's rules
    (``judge.rule_check``, the same check as the inline ``check``), read from the source the
    grader spliced in (the kernel is never asked)."""
    from .judge import guarded, rule_check, with_rules

    own = [c.source for c in cells if c.qid == q.id]
    if not own or not q.forbidden:
        return verdict
    context = [c.source for c in cells]
    return guarded(q.id, lambda: with_rules(q, verdict, rule_check(q, own[-1], context)))


def _clip(text, n: int = 500) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


class _Runner:
    """Runs the rebuilt cells of one submission, restarting the kernel around fatal cells."""

    def __init__(self, kernel, cells: list[ExecCell], settings: Settings):
        self.kernel = kernel
        self.cells = cells
        self.settings = settings
        self.deadline = time.monotonic() + settings.timeout
        self.poisoned: dict[int, str] = {}  # cell index -> "timeout" | "kernel_died"
        self.errors: dict[int, tuple[str, str]] = {}  # cell index -> (ename, evalue)
        self.restarts = 0
        self.key = secrets.token_hex(32)  # the harness signs answers with it (see _harness)

    def budget(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0.5:
            raise _OutOfTime
        return min(self.settings.cell_timeout, left)

    def run(self, source: str):
        return self.kernel.run(source, self.budget())

    def start(self, upto: int) -> None:
        """A fresh kernel with the prelude and cells [0, upto) replayed (poisoned ones skipped).

        The first time, a kernel launched in advance (a warm spare) is only connected to.
        """
        while True:
            if self.restarts > MAX_RESTARTS:
                raise _GiveUp
            self.budget()
            if self.restarts == 0:
                self.kernel.connect()
                _prelaunch(self.settings.kernel_limits())
            else:
                self.kernel.start()
            self.restarts += 1
            if self.run(PRELUDE.format(key=self.key)).status != "ok":
                raise _GiveUp
            if self._replay(upto):
                return

    def _replay(self, upto: int) -> bool:
        for j in range(upto):
            if j in self.poisoned:
                continue
            r = self.run(self.cells[j].source)
            if r.status in ("timeout", "dead"):
                self.poisoned[j] = "timeout" if r.status == "timeout" else "kernel_died"
                return False
        return True

    def recover(self, status: str, upto: int) -> None:
        """After a timeout or a dead kernel: a fresh kernel with the good cells replayed.

        (Interrupting is not enough: nbclient keeps a reader for the timed-out cell that would
        swallow the next cells' outputs, and the notebook may catch KeyboardInterrupt.)
        """
        self.start(upto)

    def run_cells(self) -> None:
        for i, cell in enumerate(self.cells):
            if i in self.poisoned:
                continue
            r = self.run(cell.source)
            if r.status == "error" and r.ename == "MemoryError":
                # whatever the cell allocated may still be held: continue in a fresh kernel
                self.errors[i] = ("MemoryError", "the cell ran out of memory")
                self.poisoned[i] = "memory"
                self.start(i)
            elif r.status == "error":
                self.errors[i] = (_clip(r.ename, 100), _clip(r.evalue))
            elif r.status in ("timeout", "dead"):
                self.poisoned[i] = "timeout" if r.status == "timeout" else "kernel_died"
                self.recover(r.status, i)


def _unanswered(runner: _Runner, qid: str, decoded_missing: bool) -> tuple[str, str] | None:
    """Status and reason for a question whose answer cell failed, when the answer is missing."""
    if not decoded_missing:
        return None
    for i, cell in enumerate(runner.cells):
        if cell.qid != qid:
            continue
        if i in runner.poisoned and runner.poisoned[i] != "memory":
            event = runner.poisoned[i]
            if event == "timeout":
                return "timeout", "the answer cell did not finish within the time limit"
            return "kernel_died", "the answer cell killed the kernel"
        if i in runner.errors:
            ename, evalue = runner.errors[i]
            if ename == "NotImplementedError":
                return "not_attempted", "the answer cell still raises NotImplementedError"
            return "error", f"the answer cell raised {ename}: {evalue}"
    return None


def grade_notebook(job: Job, manifest: dict, settings: Settings) -> dict:
    """Grade one submission; never raises for anything the submission does."""
    import nbformat

    from .registry import get

    started = time.monotonic()
    record: dict = {
        "path": job.path,
        "student": job.student,
        "notebook": job.notebook,
        "sha256": None,
        "status": "graded",
        "reason": None,
        "restarts": 0,
        "score": 0.0,
        "max_score": 0.0,
        "questions": {},
    }
    data = job.data
    if data is not None:
        record["sha256"] = hashlib.sha256(data).hexdigest()
    infos = {}
    if job.notebook is not None:
        questions = manifest["notebooks"][job.notebook]["questions"]
        infos = {qid: manifest["questions"][qid] for qid in questions}
        record["max_score"] = float(sum(i["points"] for i in infos.values()))
    if job.problem is not None or data is None:
        record.update(status=job.status, reason=job.problem or "the submission was not read")
        record["questions"] = _question_records(infos, "error", record["reason"])
        return record
    try:
        submission = json.loads(data.decode("utf-8"))
        if not isinstance(submission, dict) or not isinstance(submission.get("cells"), list):
            raise ValueError("not a notebook (no list of cells)")
    except RecursionError:
        record.update(
            status="error", reason="the submission is not a valid notebook: nested too deeply"
        )
        record["questions"] = _question_records(infos, "error", record["reason"])
        return record
    except (ValueError, UnicodeDecodeError) as e:
        record.update(
            status="error", reason=f"the submission is not a valid notebook: {_clip(e, 200)}"
        )
        record["questions"] = _question_records(infos, "error", record["reason"])
        return record
    template = nbformat.reads(manifest["templates"][job.notebook], as_version=4)
    cells, problems = rebuild(template, submission, infos)
    results: dict[str, dict] = {}
    for qid, reason in problems.items():
        results[qid] = _question_records({qid: infos[qid]}, "missing", reason)[qid]

    workdir, kernel = _take_kernel(settings.kernel_limits())
    with workdir:
        runner = _Runner(kernel, cells, settings)
        try:
            runner.start(0)
            runner.run_cells()
            nonce = secrets.token_hex(16)
            for qid, info in infos.items():
                if qid in results:
                    continue
                q = get(qid)
                r = runner.run(_harness_source(nonce, qid, info, _payload(q, settings.seed)))
                if r.status in ("timeout", "dead"):
                    status = "timeout" if r.status == "timeout" else "kernel_died"
                    reason = (
                        "calling your answer did not finish within the time limit"
                        if status == "timeout"
                        else "calling your answer killed the kernel"
                    )
                    results[qid] = _question_records({qid: info}, status, reason)[qid]
                    runner.recover(r.status, len(cells))
                    continue
                answer = (
                    _answer_from(r.outputs, nonce, qid, runner.key) if r.status == "ok" else None
                )
                if answer is None:
                    reason = "no answer came back from the kernel"
                    if r.status == "error":
                        reason += f" ({_clip(r.ename, 100)}: {_clip(r.evalue, 200)})"
                    results[qid] = _question_records({qid: info}, "error", reason)[qid]
                    continue
                missing = isinstance(answer, dict) and answer.get("t") == "missing"
                override = _unanswered(runner, qid, missing)
                if override is not None:
                    results[qid] = _question_records({qid: info}, *override)[qid]
                    continue
                verdict = _judge(q, answer, settings.seed)
                verdict = _rule_verdict(q, cells, verdict)
                results[qid] = verdict.as_record(float(info["points"]))
        except _OutOfTime:
            reason = f"the notebook did not finish within {settings.timeout:g} s"
            for qid, info in infos.items():
                results.setdefault(qid, _question_records({qid: info}, "timeout", reason)[qid])
        except _GiveUp:
            reason = "the kernel kept dying or hanging; grading stopped"
            for qid, info in infos.items():
                results.setdefault(qid, _question_records({qid: info}, "kernel_died", reason)[qid])
        finally:
            kernel.close()
        record["restarts"] = max(0, runner.restarts - 1)
    record["questions"] = {qid: results[qid] for qid in infos}
    record["score"] = float(sum(r["points"] for r in record["questions"].values()))
    record["duration_s"] = round(time.monotonic() - started, 2)
    return record


# ---------------------------------------------------------------------------- warm kernels
# In a worker process, the kernel for the next submission is launched while the current one is
# graded: kernel start-up (mostly waiting for imports) then overlaps with useful work.
_spare: dict = {}


def _launched(limits: tuple):
    from .kernel import Kernel, WorkDir

    memory, cpu, sandbox = limits
    workdir = WorkDir(prefix="tensorlab-grade-")  # removed without recursion, however deep
    kernel = Kernel(workdir.name, memory, sandbox=sandbox, cpu=cpu)
    try:
        kernel.launch()
    except BaseException:
        kernel.close()
        workdir.cleanup()
        raise
    return workdir, kernel


def _close_spare() -> None:
    entry = _spare.pop("entry", None)
    if entry is not None:
        entry[1].close()
        entry[0].cleanup()


def _take_kernel(limits: tuple):
    """(working directory, launched kernel): the warm spare when there is one."""
    entry = _spare.pop("entry", None)
    if entry is not None and entry[2] == limits:
        return entry[0], entry[1]
    if entry is not None:
        entry[1].close()
        entry[0].cleanup()
    return _launched(limits)


def _prelaunch(limits: tuple) -> None:
    """Launch the next submission's kernel now (only inside grading worker processes)."""
    if _spare.get("enabled") and "entry" not in _spare:
        try:
            _spare["entry"] = (*_launched(limits), limits)
        except Exception:  # noqa: BLE001 - the next job will simply start its own kernel
            pass


def _init_worker(limits: tuple) -> None:
    from multiprocessing.util import Finalize

    _spare["enabled"] = True
    Finalize(None, _close_spare, exitpriority=10)
    _prelaunch(limits)


def _lost(job: Job, manifest: dict, reason: str, tb: str | None = None) -> dict:
    """The record of a notebook the grader could not grade: 0 points, its max score kept."""
    infos = {}
    if job.notebook is not None:
        infos = {
            q: manifest["questions"][q] for q in manifest["notebooks"][job.notebook]["questions"]
        }
    rec = {
        "path": job.path,
        "student": job.student,
        "notebook": job.notebook,
        "sha256": None if job.data is None else hashlib.sha256(job.data).hexdigest(),
        "status": "grader_error",
        "reason": reason,
        "score": 0.0,
        "max_score": float(sum(i["points"] for i in infos.values())),
        "questions": _question_records(infos, "grader_error", reason),
    }
    if tb:
        rec["traceback"] = tb[-4000:]
    return rec


def _grade_job(job: Job, manifest: dict, settings: Settings) -> dict:
    """Worker entry point: ``grade_notebook`` that reports its own crashes as records."""
    try:
        return grade_notebook(job, manifest, settings)
    except Exception as e:  # noqa: BLE001 - a grader bug must not stop the batch
        return _lost(job, manifest, f"{type(e).__name__}: {_clip(e)}", traceback.format_exc())


# ---------------------------------------------------------------------------- the class
class Progress:
    """A text progress bar over the class on stderr (one line per notebook when not a TTY)."""

    def __init__(self, total: int, enabled: bool = True, stream=None):
        self.total, self.done, self.enabled = total, 0, enabled
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.started = time.monotonic()

    def update(self, record: dict) -> None:
        self.done += 1
        if not self.enabled:
            return
        label = f"{record['student']}/{record.get('notebook') or Path(record['path']).name}"
        score = f"{record.get('score', 0):g}/{record.get('max_score', 0):g}"
        elapsed = time.monotonic() - self.started
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            bar = "█" * filled + "░" * (width - filled)
            self.stream.write(
                f"\r[{bar}] {self.done}/{self.total} {elapsed:5.1f}s {label[:40]:<40} {score}"
            )
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"[{self.done}/{self.total}] {label}: {score} ({elapsed:.1f}s)\n")
        self.stream.flush()


def _collect_pool(pool, jobs, pending, manifest, settings, attempt, records, failed, progress):
    """Submit ``pending`` jobs to ``pool`` and gather their records (one attempt)."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    futures = {pool.submit(_grade_job, jobs[i], manifest, settings): i for i in pending}
    for fut in as_completed(futures):
        i = futures[fut]
        try:
            rec = fut.result()
        except BrokenProcessPool:
            rec = _lost(jobs[i], manifest, "the grading worker was killed")
        except Exception as e:  # noqa: BLE001 - e.g. a record that cannot be sent back
            rec = _lost(jobs[i], manifest, f"{type(e).__name__}: {_clip(e)}")
        if rec.get("status") == "grader_error" and attempt == 1:
            failed[i] = rec
            continue
        if i in failed:
            rec["attempts"] = 2
            if rec.get("status") == "grader_error":
                rec["reason"] = f"graded twice, failed twice: {rec['reason']}"
        records[i] = rec
        progress.update(rec)


def _run_pool(jobs: list[Job], manifest: dict, settings: Settings, workers: int, progress) -> list:
    """Grade ``jobs`` in ``workers`` processes. A notebook whose grading failed (its worker or
    kernel killed from outside, a grader error) is graded once more in a fresh worker; if that
    fails too it is recorded as lost, with its max score kept."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    records: dict[int, dict] = {}
    failed: dict[int, dict] = {}  # first failure of each job
    pending = list(range(len(jobs)))
    for attempt in (1, 2):
        if not pending:
            break
        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            max_workers=min(workers, len(pending)),
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(settings.kernel_limits(),),
        )
        try:
            _collect_pool(
                pool, jobs, pending, manifest, settings, attempt, records, failed, progress
            )
        except BaseException:  # Ctrl-C: stop now; the workers' sandboxes die with them
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        pending = [i for i in pending if i not in records]
    return [records[i] for i in range(len(jobs)) if i in records]


def _missing_record(student: str, nb: str, manifest: dict) -> dict:
    infos = {q: manifest["questions"][q] for q in manifest["notebooks"][nb]["questions"]}
    return {
        "path": None,
        "student": student,
        "notebook": nb,
        "status": "missing",
        "reason": "no submission for this notebook",
        "score": 0.0,
        "max_score": float(sum(i["points"] for i in infos.values())),
        "questions": _question_records(infos, "missing", "no submission for this notebook"),
    }


def _student_file(
    student: str, records: list[dict], notebooks: list[str], manifest, settings
) -> dict:
    by_nb = {r.get("notebook"): r for r in records}
    subs = list(records)
    for nb in notebooks if student != UNASSIGNED else ():
        if nb not in by_nb and nb in manifest["notebooks"]:
            subs.append(_missing_record(student, nb, manifest))
    graded = [s for s in subs if s.get("notebook")]
    return {
        "student": student,
        "file": student_file(student),
        "tensorlab_version": __version__,
        "release_tensorlab_version": manifest.get("tensorlab_version"),
        "grader": asdict(settings),
        "score": float(sum(s.get("score", 0.0) for s in graded)),
        "max_score": float(sum(s.get("max_score", 0.0) for s in graded)),
        "lost": float(
            sum(s.get("max_score", 0.0) for s in graded if s.get("status") == "grader_error")
        ),
        "submissions": sorted(subs, key=lambda s: (s.get("notebook") or "", s.get("path") or "")),
    }


def _key(rec: dict) -> str:
    """What a record stands for in a student's file: its notebook, else its file."""
    return rec.get("notebook") or f"file:{rec.get('path')}"


def _previous(out_dir: Path) -> dict[str, list[dict]]:
    """Submission records of earlier runs into ``out_dir`` (by student), placeholders left out."""
    found: dict[str, list[dict]] = {}
    for path in sorted(out_dir.glob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue
        if not (
            isinstance(doc, dict)
            and isinstance(doc.get("student"), str)
            and isinstance(doc.get("submissions"), list)
            and path.name == student_file(doc["student"])
        ):
            continue
        subs = [
            s for s in doc["submissions"] if isinstance(s, dict) and s.get("status") != "missing"
        ]
        found[doc["student"]] = subs
    return found


def _gradebook_row(doc: dict, qids: list[str]) -> list[str]:
    points = {}
    for sub in doc["submissions"]:
        if sub.get("notebook"):
            for qid, rec in sub.get("questions", {}).items():
                points[qid] = rec["points"]
    row = [doc["student"], f"{doc['score']:g}", f"{doc['max_score']:g}", f"{doc['lost']:g}"]
    return row + [f"{points[q]:g}" if q in points else "" for q in qids]


UNDO_PREFIX = ".tensorlab-undo-"


class Results:
    """The grade files of one run into ``out_dir``, written as students complete.

    Every file is written atomically (a temporary file, then ``os.replace``). A student's
    ``<student>.json`` is written when the last of their notebooks in this run is graded (never
    a half-graded student), then ``gradebook.csv`` is rewritten (at most once a second, and at
    the end): it holds the students completed so far (at most a second behind their JSON
    files) and the rows of earlier runs into ``out_dir``, which are kept (a student being
    regraded keeps their old row until they complete). The columns are the whole run's from
    the start. ``finish`` writes the gradebook and every student's file that differs from
    what is on disk (students of earlier runs get this run's settings and columns).

    ``abort`` (Ctrl-C) undoes the run: every file it replaced is put back, every file it
    added is removed, and ``out_dir`` too if the run created it. The previous versions are
    kept as hard links (else copies) in a hidden ``.tensorlab-undo-*`` folder of ``out_dir``
    until the run finishes or is undone.
    """

    def __init__(self, out_dir, manifest: dict, settings: Settings, jobs=(), min_interval=1.0):
        self.out = Path(out_dir)
        self.manifest, self.settings = manifest, settings
        self.created = False
        self.undo: Path | None = None
        self.touched: dict[str, bool] = {}  # file name -> existed before this run
        self.written: dict[str, bytes] = {}  # file name -> sha256 of what this run wrote there
        self.by_student: dict[str, dict[str, dict]] = {}
        if self.out.is_dir():
            for student, subs in _previous(self.out).items():
                self.by_student[student] = {_key(r): r for r in subs}
        self.pending: dict[str, int] = {}
        self.incoming: dict[str, list[dict]] = {}
        for job in jobs:
            self.pending[job.student] = self.pending.get(job.student, 0) + 1
        names = {job.notebook for job in jobs} | {
            r.get("notebook") for subs in self.by_student.values() for r in subs.values()
        }
        self.notebooks = sorted(n for n in names if n in manifest["notebooks"])
        self.qids = [q for nb in self.notebooks for q in manifest["notebooks"][nb]["questions"]]
        self.rows: dict[str, list[str]] = {}
        for student in self.by_student:
            self.rows[student] = _gradebook_row(self._doc(student), self.qids)
        self.min_interval = min_interval
        self.last_gradebook = -math.inf

    # -- files
    def _doc(self, student: str) -> dict:
        subs = list(self.by_student[student].values())
        return _student_file(student, subs, self.notebooks, self.manifest, self.settings)

    def _write(self, name: str, data: bytes) -> None:
        if not self.out.is_dir():
            self.out.mkdir(parents=True)
            self.created = True
        path = self.out / name
        if name not in self.touched:
            existed = path.exists()
            if existed:
                if self.undo is None:
                    self.undo = Path(tempfile.mkdtemp(prefix=UNDO_PREFIX, dir=self.out))
                try:
                    os.link(path, self.undo / name)
                except OSError:  # no hard links here: a copy
                    import shutil

                    shutil.copy2(path, self.undo / name)
            self.touched[name] = existed
        write_atomic(path, data)

    def _write_student(self, student: str) -> dict:
        doc = self._doc(student)
        data = (json.dumps(doc, indent=1, sort_keys=True) + "\n").encode("utf-8")
        digest = hashlib.sha256(data).digest()
        if self.written.get(doc["file"]) != digest:  # finish() need not rewrite the same bytes
            self._write(doc["file"], data)
            self.written[doc["file"]] = digest
        self.rows[student] = _gradebook_row(doc, self.qids)
        return doc

    def _write_gradebook(self) -> None:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["student", "score", "max_score", "lost", *self.qids])
        for student in sorted(self.rows):
            writer.writerow(self.rows[student])
        self._write("gradebook.csv", buf.getvalue().encode("utf-8"))
        self.last_gradebook = time.monotonic()

    # -- the run
    def add(self, record: dict) -> None:
        """A notebook's final record: its student's files are written once they are complete."""
        student = record["student"]
        self.incoming.setdefault(student, []).append(record)
        left = self.pending.get(student, 1) - 1
        self.pending[student] = left
        if left > 0:
            return
        subs = self.by_student.setdefault(student, {})
        for r in self.incoming.pop(student):
            subs[_key(r)] = r
        self._write_student(student)
        if time.monotonic() - self.last_gradebook >= self.min_interval:
            self._write_gradebook()

    def finish(self) -> list[dict]:
        """Every student's file and the gradebook, final; the undo folder removed."""
        for student, records in self.incoming.items():  # never complete: e.g. a job not run
            subs = self.by_student.setdefault(student, {})
            for r in records:
                subs[_key(r)] = r
        self.incoming = {}
        docs = [self._write_student(student) for student in sorted(self.by_student)]
        self._write_gradebook()
        self._drop_undo()
        return docs

    def abort(self) -> None:
        """Undo the run: the files it replaced put back, the files it added removed."""
        for name, existed in self.touched.items():
            try:
                if existed and self.undo is not None:
                    os.replace(self.undo / name, self.out / name)
                elif not existed:
                    (self.out / name).unlink(missing_ok=True)
            except OSError:
                pass
        self.touched = {}
        self._drop_undo()
        for leftover in self.out.glob(f".*.tmp-{os.getpid()}") if self.out.is_dir() else ():
            leftover.unlink(missing_ok=True)
        if self.created:
            try:
                self.out.rmdir()
            except OSError:
                pass

    def _drop_undo(self) -> None:
        if self.undo is not None:
            import shutil

            shutil.rmtree(self.undo, ignore_errors=True)
            self.undo = None


def write_results(
    out_dir: Path, records: list[dict], manifest: dict, settings: Settings
) -> list[dict]:
    """``<student>.json`` for every student and ``gradebook.csv``, each written atomically.

    Students and notebooks graded by earlier runs into ``out_dir`` are kept: a run over a
    subset of the class updates those students' notebooks and leaves every other row as it was.
    """
    results = Results(out_dir, manifest, settings)
    for r in records:
        results.incoming.setdefault(r["student"], []).append(r)
    results.notebooks = sorted(
        set(results.notebooks)
        | {r.get("notebook") for r in records if r.get("notebook") in manifest["notebooks"]}
    )
    results.qids = [q for nb in results.notebooks for q in manifest["notebooks"][nb]["questions"]]
    return results.finish()


def read_templates(release_dir: str | os.PathLike, manifest: dict) -> dict[str, str]:
    """The released notebooks' text, read once by the parent and checked against release.json.

    Workers get this text, never the files, so nothing a graded notebook writes to disk can
    change how the next ones are rebuilt.
    """
    out = {}
    for name, info in manifest["notebooks"].items():
        path = Path(release_dir) / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(f"{path} (listed in {RELEASE_FILE}) is missing") from None
        if hashlib.sha256(data).hexdigest() != info["sha256"]:
            raise ValueError(f"{path} does not match {RELEASE_FILE}: run `tensorlab assign` again")
        out[name] = data.decode("utf-8")
    return out


class _Sink:
    """Where each notebook's final record goes as it arrives: the progress bar, the files."""

    def __init__(self, bar: Progress, results: Results):
        self.bar, self.results = bar, results

    def update(self, record: dict) -> None:
        self.results.add(record)
        self.bar.update(record)


def _undo(results: Results) -> None:
    """``results.abort()``, not interrupted by a second Ctrl-C (main thread only)."""
    import signal
    import threading

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        results.abort()
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


def _needs_kernel(job: Job) -> bool:
    """Whether grading ``job`` runs a kernel (else its record is made here, at once)."""
    if job.problem is not None or job.notebook is None or job.data is None:
        return False
    try:
        nb = json.loads(job.data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(nb, dict) and isinstance(nb.get("cells"), list)


def grade(
    submissions: list[str],
    out_dir: str | os.PathLike,
    release_dir: str | os.PathLike,
    *,
    jobs: int = 1,
    cell_timeout: float = 30.0,
    timeout: float = 600.0,
    memory: int = 4 * 2**30,
    seed: int | None = None,
    progress: bool = True,
    sandbox: str = "auto",
    cluster: str | None = None,
) -> dict:
    """Grade every submission; write the results to ``out_dir``. Returns a summary dict.

    ``sandbox``: ``"auto"`` (bubblewrap, or ``SandboxUnavailable``), ``"bwrap"``, or ``"none"``
    (kernels run unconfined: only for code you trust). ``cluster``: a Dask scheduler address
    (``tcp://host:8786``) or ``local:N``; each notebook is then one task on the cluster
    (``cluster``), and ``jobs`` is not used.
    """
    from .sandbox import resolve

    mode = resolve(sandbox)
    manifest = load_release(release_dir)
    if seed is None:
        seed = secrets.randbits(32)
    settings = Settings(str(Path(release_dir).resolve()), cell_timeout, timeout, memory, seed, mode)
    manifest["templates"] = read_templates(release_dir, manifest)
    job_list = collect(submissions, manifest)  # every file read now, before any kernel starts
    started = time.monotonic()
    results = Results(out_dir, manifest, settings, job_list)
    sink = _Sink(Progress(len(job_list), progress), results)
    records: list[dict | None] = [None] * len(job_list)
    try:
        runnable = []
        for i, job in enumerate(job_list):
            if _needs_kernel(job):
                runnable.append(i)
            else:
                records[i] = grade_notebook(job, manifest, settings)
                sink.update(records[i])
        todo = [job_list[i] for i in runnable]
        if cluster is not None:
            from . import cluster as dask_cluster

            graded = dask_cluster.run(todo, manifest, settings, cluster, sink) if todo else []
        else:
            graded = _run_pool(todo, manifest, settings, max(1, jobs), sink)
        for i, rec in zip(runnable, graded):
            records[i] = rec
        done = [r for r in records if r is not None]
        files = results.finish()
    except BaseException:  # Ctrl-C, an unreachable cluster, a grader bug: the run is undone
        _undo(results)
        raise
    return {
        "submissions": len(done),
        "students": len(files),
        "seconds": round(time.monotonic() - started, 2),
        "grader_errors": [r for r in done if r.get("status") == "grader_error"],
        "records": done,
        "seed": seed,
        "sandbox": mode,
    }
