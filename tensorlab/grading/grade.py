"""``tensorlab grade SUBMISSIONS... --out DIR``: batch grading in fresh, limited kernels.

For each submitted notebook:

1. the notebook is rebuilt from the released template (``release.json`` + the exercise
   notebook): the template's code cells in order, with only the learner's *answer* cells spliced
   in (found by their question id in cell metadata, else by cell id). Check cells, edited or
   not, are never run; a missing answer cell scores 0 with the reason ``missing``;
2. the rebuilt cells run in a fresh kernel (``kernel.Kernel``: memory cap, private working
   directory, per-cell and per-notebook time limits). A cell that kills the kernel or cannot be
   interrupted is skipped and the kernel restarted, so one bad answer does not sink the rest;
3. for each question one harness cell asks the kernel for the answer only (functions are
   called on grader-chosen public and hidden random inputs); values come back as JSON
   (``encode``), never pickle;
4. the grader judges them in its own process (``judge``) against references the kernel never
   sees.

Per-question status: passed | failed | not_attempted | error | timeout | kernel_died | missing.
``DIR/<student>.json`` and ``DIR/gradebook.csv`` are written atomically; submissions are only
read. A broken submission never stops the batch; the exit status is non-zero only when the
grader itself fails.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import secrets
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
PRELUDE = "import tensorlab.grading._harness as _tl_harness\n_tl_harness.install()\ndel _tl_harness"


@dataclass(frozen=True)
class Settings:
    """Limits and seed for a grading run (recorded in every grade file)."""

    release_dir: str
    cell_timeout: float = 30.0
    timeout: float = 600.0
    memory: int = 4 * 2**30
    seed: int = 0


@dataclass(frozen=True)
class Job:
    """One submitted notebook to grade."""

    path: str
    student: str
    notebook: str | None  # the release notebook's file name, None if unknown


# ---------------------------------------------------------------------------- parsing sizes
def parse_size(text: str) -> int:
    """``"4G"``, ``"512M"``, ``"1.5GiB"``, ``"0"`` (no cap) -> bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)(i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"invalid memory size {text!r} (use e.g. 512M, 4G)")
    scale = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[m[2].lower()]
    return int(float(m[1]) * scale)


# ---------------------------------------------------------------------------- submissions
def discover(paths: list[str]) -> list[Path]:
    """Notebook files named on the command line, or found (recursively) in named directories."""
    found: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found.extend(
                sorted(
                    q
                    for q in p.rglob("*.ipynb")
                    if ".ipynb_checkpoints" not in q.parts and not q.name.startswith(".")
                )
            )
        else:
            found.append(p)
    seen, out = set(), []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _safe_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._") or "student"
    return name[:100]


def identify(path: Path, manifest: dict) -> Job:
    """Which student and which released notebook a submission is.

    ``<student>/<NN_topic>.ipynb`` (file named like a released notebook): the parent directory
    names the student. Any other file name is the student; the notebook is then read from the
    submission's metadata (``tensorlab.assignment``), kept from the release.
    """
    notebooks = manifest["notebooks"]
    if path.name in notebooks:
        parent = path.resolve().parent.name
        return Job(str(path), _safe_name(parent), path.name)
    notebook = None
    try:
        if path.stat().st_size <= MAX_SUBMISSION_BYTES:
            meta = json.loads(path.read_bytes()).get("metadata", {}).get("tensorlab", {})
            assignment = meta.get("assignment") if isinstance(meta, dict) else None
            for name, info in notebooks.items():
                if info["assignment"] == assignment:
                    notebook = name
    except (OSError, ValueError, AttributeError):
        pass
    return Job(str(path), _safe_name(path.stem), notebook)


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


def _answer_from(outputs: list, nonce: str, qid: str):
    from ._harness import MIME

    found = None
    for out in outputs:
        data = out.get("data", {}) if out.get("output_type") == "display_data" else {}
        msg = data.get(MIME)
        if isinstance(msg, str):
            try:
                msg = json.loads(msg)
            except ValueError:
                continue
        if isinstance(msg, dict) and msg.get("nonce") == nonce and msg.get("qid") == qid:
            found = msg.get("answer")
    return found


def _judge(q, answer, seed: int):
    from .encode import decode
    from .judge import judge_function, judge_value

    if q.kind == "function" and isinstance(answer, dict) and answer.get("t") == "results":
        items = answer.get("items")
        if not isinstance(items, list):
            raise ValueError("malformed results")
        return judge_function(q, [decode(x) for x in items], seed)
    value = decode(answer)
    return judge_value(q, value) if q.kind == "value" else judge_function(q, value, seed)


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
                _prelaunch(self.settings.memory)
            else:
                self.kernel.start()
            self.restarts += 1
            if self.run(PRELUDE).status != "ok":
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
    try:
        data = Path(job.path).read_bytes()[: MAX_SUBMISSION_BYTES + 1]
        record["sha256"] = hashlib.sha256(data).hexdigest()
    except OSError as e:
        record.update(status="error", reason=f"cannot read the submission: {e}")
        return record
    if job.notebook is None:
        record.update(
            status="error",
            reason="cannot tell which exercise this is (name the file like the released "
            "notebook, e.g. <student>/01_convolution.ipynb)",
        )
        return record
    questions = manifest["notebooks"][job.notebook]["questions"]
    infos = {qid: manifest["questions"][qid] for qid in questions}
    record["max_score"] = float(sum(i["points"] for i in infos.values()))
    if len(data) > MAX_SUBMISSION_BYTES:
        record.update(status="error", reason="the submission is too large")
        record["questions"] = _question_records(infos, "error", record["reason"])
        return record
    try:
        submission = json.loads(data.decode("utf-8"))
        if not isinstance(submission, dict) or not isinstance(submission.get("cells"), list):
            raise ValueError("not a notebook (no list of cells)")
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

    workdir, kernel = _take_kernel(settings.memory)
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
                answer = _answer_from(r.outputs, nonce, qid) if r.status == "ok" else None
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
                try:
                    verdict = _judge(q, answer, settings.seed)
                except ValueError as e:
                    results[qid] = _question_records(
                        {qid: info}, "error", f"the kernel sent a malformed answer: {_clip(e, 200)}"
                    )[qid]
                    continue
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


def _launched(memory: int):
    from .kernel import Kernel

    workdir = tempfile.TemporaryDirectory(prefix="tensorlab-grade-")
    kernel = Kernel(workdir.name, memory)
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


def _take_kernel(memory: int):
    """(working directory, launched kernel): the warm spare when there is one."""
    entry = _spare.pop("entry", None)
    if entry is not None and entry[2] == memory:
        return entry[0], entry[1]
    if entry is not None:
        entry[1].close()
        entry[0].cleanup()
    return _launched(memory)


def _prelaunch(memory: int) -> None:
    """Launch the next submission's kernel now (only inside grading worker processes)."""
    if _spare.get("enabled") and "entry" not in _spare:
        try:
            _spare["entry"] = (*_launched(memory), memory)
        except Exception:  # noqa: BLE001 - the next job will simply start its own kernel
            pass


def _init_worker(memory: int) -> None:
    from multiprocessing.util import Finalize

    _spare["enabled"] = True
    Finalize(None, _close_spare, exitpriority=10)
    _prelaunch(memory)


def _grade_job(job: Job, manifest: dict, settings: Settings) -> dict:
    """Worker entry point: ``grade_notebook`` that reports its own crashes as records."""
    try:
        return grade_notebook(job, manifest, settings)
    except Exception as e:  # noqa: BLE001 - a grader bug must not stop the batch
        return {
            "path": job.path,
            "student": job.student,
            "notebook": job.notebook,
            "status": "grader_error",
            "reason": f"{type(e).__name__}: {_clip(e)}",
            "traceback": traceback.format_exc()[-4000:],
            "score": 0.0,
            "max_score": 0.0,
            "questions": {},
        }


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


def _run_pool(jobs: list[Job], manifest: dict, settings: Settings, workers: int, progress) -> list:
    """Grade ``jobs`` in ``workers`` processes; a crashed worker costs only its own job."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    records: dict[int, dict] = {}
    attempts: dict[int, int] = {}
    pending = list(range(len(jobs)))
    while pending:
        ctx = multiprocessing.get_context("spawn")
        broken = False
        with ProcessPoolExecutor(
            max_workers=workers,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(settings.memory,),
        ) as pool:
            futures = {pool.submit(_grade_job, jobs[i], manifest, settings): i for i in pending}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    rec = fut.result()
                except BrokenProcessPool:
                    broken = True
                    attempts[i] = attempts.get(i, 0) + 1
                    if attempts[i] < 2:
                        continue
                    rec = {
                        "path": jobs[i].path,
                        "student": jobs[i].student,
                        "notebook": jobs[i].notebook,
                        "status": "grader_error",
                        "reason": "the grading worker crashed twice on this submission",
                        "score": 0.0,
                        "max_score": 0.0,
                        "questions": {},
                    }
                records[i] = rec
                progress.update(rec)
        pending = [i for i in pending if i not in records]
        if pending and not broken:  # pragma: no cover - defensive
            break
    return [records[i] for i in range(len(jobs)) if i in records]


def _student_file(
    student: str, records: list[dict], notebooks: list[str], manifest, settings
) -> dict:
    by_nb = {r.get("notebook"): r for r in records}
    subs = list(records)
    for nb in notebooks:
        if nb not in by_nb:
            infos = {q: manifest["questions"][q] for q in manifest["notebooks"][nb]["questions"]}
            subs.append(
                {
                    "path": None,
                    "student": student,
                    "notebook": nb,
                    "status": "missing",
                    "reason": "no submission for this notebook",
                    "score": 0.0,
                    "max_score": float(sum(i["points"] for i in infos.values())),
                    "questions": _question_records(
                        infos, "missing", "no submission for this notebook"
                    ),
                }
            )
    return {
        "student": student,
        "tensorlab_version": __version__,
        "release_tensorlab_version": manifest.get("tensorlab_version"),
        "grader": asdict(settings),
        "score": float(sum(s.get("score", 0.0) for s in subs)),
        "max_score": float(sum(s.get("max_score", 0.0) for s in subs if s.get("notebook"))),
        "submissions": sorted(subs, key=lambda s: (s.get("notebook") or "", s.get("path") or "")),
    }


def write_results(
    out_dir: Path, records: list[dict], manifest: dict, settings: Settings
) -> list[dict]:
    """``<student>.json`` for every student and ``gradebook.csv``, each written atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    notebooks = sorted({r["notebook"] for r in records if r.get("notebook")})
    by_student: dict[str, list[dict]] = {}
    for r in records:
        by_student.setdefault(r["student"], []).append(r)
    qids = [q for nb in notebooks for q in manifest["notebooks"][nb]["questions"]]
    files = []
    for student in sorted(by_student):
        recs = by_student[student]
        # one record per notebook: a second submission of the same notebook replaces the first
        latest: dict = {}
        for r in sorted(recs, key=lambda r: r["path"] or ""):
            latest[r.get("notebook") or r["path"]] = r
        doc = _student_file(student, list(latest.values()), notebooks, manifest, settings)
        text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
        write_atomic(out_dir / f"{student}.json", text.encode("utf-8"))
        files.append(doc)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["student", "score", "max_score", *qids])
    for doc in files:
        points = {}
        for sub in doc["submissions"]:
            for qid, rec in sub.get("questions", {}).items():
                points[qid] = rec["points"]
        row = [doc["student"], f"{doc['score']:g}", f"{doc['max_score']:g}"]
        writer.writerow(row + [f"{points[q]:g}" if q in points else "" for q in qids])
    write_atomic(out_dir / "gradebook.csv", buf.getvalue().encode("utf-8"))
    return files


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
) -> dict:
    """Grade every submission; write the results to ``out_dir``. Returns a summary dict."""
    manifest = load_release(release_dir)
    if seed is None:
        seed = secrets.randbits(32)
    settings = Settings(str(Path(release_dir).resolve()), cell_timeout, timeout, memory, seed)
    manifest["templates"] = read_templates(release_dir, manifest)
    paths = discover(submissions)
    job_list = [identify(p, manifest) for p in paths]
    started = time.monotonic()
    bar = Progress(len(job_list), progress)
    records = _run_pool(job_list, manifest, settings, max(1, jobs), bar)
    files = write_results(Path(out_dir), records, manifest, settings)
    return {
        "submissions": len(records),
        "students": len(files),
        "seconds": round(time.monotonic() - started, 2),
        "grader_errors": [r for r in records if r.get("status") == "grader_error"],
        "records": records,
        "seed": seed,
    }
