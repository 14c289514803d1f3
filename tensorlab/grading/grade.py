"""``tensorlab grade SUBMISSIONS... --out DIR``: batch grading, one fresh sandboxed interpreter
per submission.

The pipeline, one module a stage:

1. ``collect``: before any kernel starts, every submission is found, read (size-capped; no
   FIFOs, devices or symbolic links leaving the student's folder) and identified; loose,
   unknown, duplicate, unreadable files are recorded with the reason. What was read is what is
   graded;
2. ``rebuild``: each notebook is rebuilt from the released template (``release.json`` + the
   exercise notebook) with only the learner's answer cells spliced in;
3. ``run``: the rebuilt cells run in a fresh sandboxed interpreter (the answer process, no
   IPython) with per-cell and per-notebook limits (``run.grade_notebook``, the task);
   ``executors`` runs the tasks of the class, on a local pool of worker processes or a Dask
   cluster (``cluster``), with one retry policy;
4. ``batch_judge``: each question's answer is asked for and judged in the grader's process
   (``judge``), against references the answer process never sees;
5. ``results``: ``DIR/<student>.json`` and ``DIR/gradebook.csv`` written atomically as students
   complete, merged with earlier runs; an interrupted run (Ctrl-C) is undone.

The layout of every record is defined once, in ``records``. Per-question status: passed |
failed | not_attempted | error | timeout | kernel_died | missing (| grader_error). Submissions
are only read.
"""

from __future__ import annotations

import os
import re
import secrets
import sys
import time
from pathlib import Path

from .collect import (  # noqa: F401 - the stages' public names, importable from here too
    MAX_SUBMISSION_BYTES,
    Job,
    collect,
    needs_kernel,
    read_submission,
    student_file,
)
from .executors import executor_for
from .rebuild import ExecCell, rebuild  # noqa: F401
from .records import STATUSES, UNASSIGNED  # noqa: F401
from .release import Release
from .results import (  # noqa: F401
    UNDO_PREFIX,
    Busy,
    Lock,
    Results,
    Sink,
    recorded_seed,
    undo,
    write_results,
)
from .run import MAX_RESTARTS, Settings, grade_notebook  # noqa: F401
from .text import terminal


# ---------------------------------------------------------------------------- parsing sizes
def parse_size(text: str) -> int:
    """``"4G"``, ``"512M"``, ``"1.5GiB"``, ``"0"`` (no cap) -> bytes."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtT]?)(i?[bB])?\s*", text)
    if not m:
        raise ValueError(f"invalid memory size {text!r} (use e.g. 512M, 4G)")
    scale = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}[m[2].lower()]
    return int(float(m[1]) * scale)


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
        name = record.get("notebook") or Path(record["path"]).name
        label = terminal(f"{record['student']}/{name}")  # a folder name cannot drive the terminal
        score = f"{record.get('score', 0):g}/{record.get('max_score', 0):g}"
        elapsed = time.monotonic() - self.started
        own = record.get("duration_s")  # this notebook's own time, not the run's
        took = f"{own:.1f}s" if isinstance(own, (int, float)) else "-"
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            bar = "█" * filled + "░" * (width - filled)
            self.stream.write(
                f"\r[{bar}] {self.done}/{self.total} {elapsed:5.1f}s {label[:40]:<40} {score} "
                f"({took})"
            )
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(
                f"[{self.done}/{self.total}] {label}: {score} in {took} ({elapsed:.1f}s since "
                "the start)\n"
            )
        self.stream.flush()


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
    solutions: str | os.PathLike | None = None,
    need_solutions: bool = False,
) -> dict:
    """Grade every submission; write the results to ``out_dir``. Returns a summary dict.

    ``sandbox``: ``"auto"`` (bubblewrap, or ``SandboxUnavailable``), ``"bwrap"``, or ``"none"``
    (kernels run unconfined: only for code you trust). ``cluster``: a Dask scheduler address
    (``tcp://host:8786``) or ``local:N``; each notebook is then one task on the cluster
    (``cluster``), and ``jobs`` is not used. ``solutions``: the solution notebooks of an
    authored course (default: ``solutions`` beside ``release_dir``).
    """
    from .sandbox import resolve

    mode = resolve(sandbox)
    # read once; every stage shares it (an authored course's references: ``solutions``, else
    # the folder beside the exercises; ``need_solutions``: never the learners' public checks)
    release = Release.load(
        release_dir, full=True, solutions=solutions, need_solutions=need_solutions
    )
    skipped: list[str] = []  # hidden folders, notebooks of no student: said in the summary
    job_list = collect(submissions, release, skipped)  # every file read now, before any kernel
    out = Path(out_dir)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    lock = Lock(out)
    try:
        lock.acquire()
    except Busy:
        if created:
            out.rmdir()
        raise
    try:
        summary = _grade_locked(
            job_list,
            out,
            created,
            release,
            release_dir,
            mode,
            seed,
            progress,
            jobs,
            cluster,
            cell_timeout,
            timeout,
            memory,
            lock,
        )
        summary["not_graded"] = skipped
        return summary
    finally:
        lock.release()


def _grade_locked(
    job_list,
    out,
    created,
    release: Release,
    release_dir,
    mode,
    seed,
    progress,
    jobs,
    cluster,
    cell_timeout,
    timeout,
    memory,
    lock,
) -> dict:
    if seed is None:  # a regrade into DIR judges on the hidden inputs of the first run
        seed = recorded_seed(out)
    if seed is None:
        seed = secrets.randbits(32)
    settings = Settings(str(Path(release_dir).resolve()), cell_timeout, timeout, memory, seed, mode)
    started = time.monotonic()
    results = Results(out, release, settings, job_list, feedback=True)
    results.created = created
    sink = Sink(Progress(len(job_list), progress), results)
    records: list[dict | None] = [None] * len(job_list)
    try:
        runnable = []
        for i, job in enumerate(job_list):
            if needs_kernel(job):
                runnable.append(i)
            else:
                records[i] = grade_notebook(job, release, settings)
                sink.update(records[i])
        todo = [job_list[i] for i in runnable]
        graded = executor_for(cluster, jobs).run(todo, release, settings, sink) if todo else []
        for i, rec in zip(runnable, graded):
            records[i] = rec
        done = [r for r in records if r is not None]
        files = results.finish()
    except BaseException:  # Ctrl-C, an unreachable cluster, a grader bug: the run is undone
        lock.release()  # (the lock file goes first: an undone run that made DIR removes it)
        undo(results)
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
