"""Stage 3, run: one rebuilt notebook in one fresh interpreter, its questions judged (the task
each executor runs, locally or on a Dask worker).

The rebuilt cells run in a bare answer process (``answers.run``, ``_answers``; no IPython, an
audit hook in place before any learner code) inside the bubblewrap sandbox (``sandbox``:
nothing visible but the Python environment and a private scratch folder, the question banks
hidden; own PID and network namespaces; an unprivileged uid; one cgroup for its memory and
processes; CPU and file-size limits) with per-cell and per-notebook time limits. It records how
each cell ran (an error with the line of the learner's cell it came from); a cell that hangs,
kills the process or runs out of memory is skipped and the others run again in a fresh one, so
one bad answer does not sink the rest. The same process then calls each answer on the
grader's inputs, and the grader judges what came back (``batch_judge``). In a worker process,
the answer process for the next submission is started while the current one is graded.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
import traceback
from dataclasses import dataclass

from . import answers, batch_judge, errors, written
from .authoring import case_weights
from .collect import Job
from .encode import Raised
from .rebuild import ExecCell, parse_submission, rebuild
from .records import lost_record, notebook_record, unjudged, verdict_record
from .release import QuestionInfo, Release

MAX_RESTARTS = answers.MAX_RESTARTS


@dataclass(frozen=True)
class Settings:
    """Limits and seed for a grading run (recorded in every grade file)."""

    release_dir: str
    cell_timeout: float = 30.0
    timeout: float = 600.0
    memory: int = 4 * 2**30
    seed: int = 0
    sandbox: str = "none"  # "bwrap" (every answer process in the OS sandbox) or "none"

    def kernel_limits(self) -> tuple:
        """What an answer process is launched with: (memory cap, CPU seconds, sandboxed)."""
        return (self.memory, int(math.ceil(self.timeout)) + 30, self.sandbox == "bwrap")


class _OutOfTime(Exception):
    pass


def _clip(text, n: int = 500) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


class _Budget:
    """The notebook's time left (``settings.timeout``), capped at a cell's."""

    def __init__(self, settings: Settings):
        self.cell_timeout = settings.cell_timeout
        self.deadline = time.monotonic() + settings.timeout

    def __call__(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0.5:
            raise _OutOfTime
        return min(self.cell_timeout, left)


def _unanswered(asked, cells, qid: str, decoded_missing: bool) -> tuple[str, str] | None:
    """Status and reason for a question whose answer cell failed, when the answer is missing."""
    if not decoded_missing:
        return None
    for i, cell in enumerate(cells):
        if cell.qid != qid:
            continue
        if i in asked.poisoned and asked.poisoned[i] != "memory":
            event = asked.poisoned[i]
            if event == "timeout":
                return "timeout", "the answer cell did not finish within the time limit"
            return "kernel_died", "the answer cell killed the kernel"
        if i in asked.errors:
            ename, evalue = asked.errors[i]
            if ename == "NotImplementedError":
                return "not_attempted", "the answer cell still raises NotImplementedError"
            return "error", f"the answer cell raised {ename}: {evalue}"
    return None


def _where(asked, cells: list[ExecCell], i: int) -> dict | None:
    """The learner's own error in cell ``i``: its type and line (read from the source the
    grader spliced in), or None when the cell raised nothing."""
    if i not in asked.errors:
        return None
    return errors.from_line(cells[i].source, asked.errors[i][0], asked.lines.get(i))


def _judge(cells: list[ExecCell], q, info: QuestionInfo, asked, settings) -> dict:
    """Question ``q``'s record from what the answer process said (``answers.run``)."""
    qid = q.id
    if qid in asked.failed:
        return unjudged({qid: info}, *asked.failed[qid])[qid]
    answer = asked.answers.get(qid)
    what = asked.cannot_follow(qid)
    if what:  # whatever else happened: code the grader cannot follow earns nothing
        answer = {"t": "cannot_follow", "what": ", ".join(what)}
    missing = isinstance(answer, dict) and answer.get("t") == "missing"
    override = _unanswered(asked, cells, qid, missing)  # the answer cell failed: the reason
    if override is not None:
        rec = unjudged({qid: info}, *override)[qid]
        where = [_where(asked, cells, i) for i, c in enumerate(cells) if c.qid == qid]
        if override[0] == "error" and where and where[-1]:
            rec["error"] = where[-1]  # the learner's own error: type and line of their cell
        return rec
    if answer is None:
        return unjudged({qid: info}, "error", "no answer came back from the answer process")[qid]
    verdict = batch_judge.judge_answer(q, answer, settings.seed)  # never raises
    verdict = batch_judge.with_rules(q, cells, verdict)
    authored = hasattr(q, "partial")  # an instructor's own question: its hints are for learners
    weights = case_weights(q, settings.seed) if getattr(q, "weights", None) else None
    rec = verdict_record(verdict, info.points, info.partial, authored, weights)
    if isinstance(verdict.actual, Raised) and not verdict.passed:
        rec["error"] = errors.from_raised([c.source for c in cells if c.qid == qid], verdict.actual)
    return rec


def grade_notebook(job: Job, release: Release, settings: Settings, more: bool = True) -> dict:
    """Grade one submission; never raises for anything the submission does. ``more``: other
    submissions may follow in this process (a warm answer process is then started for them)."""
    import nbformat

    from .registry import get

    started = time.monotonic()
    infos = release.infos(job.notebook)
    record = notebook_record(job, infos)
    if job.problem is not None or job.data is None:
        record.update(status=job.status, reason=job.problem or "the submission was not read")
        record["questions"] = unjudged(infos, "error", record["reason"])
        return record
    try:
        submission = parse_submission(job.data)
    except RecursionError:
        reason = "the submission is not a valid notebook: nested too deeply"
        record.update(status="error", reason=reason)
        record["questions"] = unjudged(infos, "error", reason)
        return record
    except (ValueError, UnicodeDecodeError) as e:
        reason = f"the submission is not a valid notebook: {_clip(e, 200)}"
        record.update(status="error", reason=reason)
        record["questions"] = unjudged(infos, "error", reason)
        return record
    release.register_authored()  # an instructor's own questions, in this process
    template = nbformat.reads(release.templates[job.notebook], as_version=4)
    # written answers are recorded for a person to score, never run (``written``)
    code = {q: i for q, i in infos.items() if i.kind != "written"}
    results: dict[str, dict] = written.records(
        template, submission, {q: i for q, i in infos.items() if i.kind == "written"}
    )
    cells, problems = rebuild(template, submission, code)
    for qid, reason in problems.items():
        results[qid] = unjudged({qid: infos[qid]}, "missing", reason)[qid]

    asked_for = [
        (qid, info.name, info.kind, batch_judge.payload(get(qid), settings.seed))
        for qid, info in infos.items()
        if qid not in results
    ]
    asked = None
    if asked_for:
        workdir, box, early = _take_box(settings.kernel_limits(), more)
        with workdir:
            try:
                asked = answers.run(
                    box.spawn_answers, cells, asked_for, _Budget(settings), settings.cell_timeout,
                    early=early,
                )  # fmt: skip
                for qid, info in infos.items():
                    if qid not in results:
                        results[qid] = _judge(cells, get(qid), info, asked, settings)
            except _OutOfTime:
                reason = f"the notebook did not finish within {settings.timeout:g} s"
                for qid, info in infos.items():
                    results.setdefault(qid, unjudged({qid: info}, "timeout", reason)[qid])
            except answers.GiveUp as e:
                record["restarts"] = e.args[0]
                reason = "the notebook kept crashing or hanging its interpreter; grading stopped"
                for qid, info in infos.items():
                    results.setdefault(qid, unjudged({qid: info}, "kernel_died", reason)[qid])
            finally:
                if early is not None and early.poll() is None:
                    answers._stop(early)
                box.close()
    # answer processes started again after one died, hung or ran out of memory
    if asked is not None:
        record["restarts"] = asked.restarts
    record["questions"] = {qid: results[qid] for qid in infos}
    record["score"] = float(sum(r["points"] for r in record["questions"].values()))
    record["duration_s"] = round(time.monotonic() - started, 2)
    return record


# ---------------------------------------------------------------------------- warm processes
# In a worker process, the answer process for the next submission is started while the current
# one is graded: its start-up (the interpreter, numpy and tensorlab imported) then overlaps with
# useful work, and it waits, sandboxed, for its request on stdin.
_spare: dict = {}


def _launched(limits: tuple):
    """(working directory, sandbox, answer process started in it)."""
    from .kernel import Kernel, WorkDir

    memory, cpu, sandbox = limits
    workdir = WorkDir(prefix="tensorlab-grade-")  # removed without recursion, however deep
    # a ``Kernel`` that is never launched: the sandbox and cgroup the answer processes run in
    box = Kernel(workdir.name, memory, sandbox=sandbox, cpu=cpu)
    try:
        proc = box.spawn_answers()
    except BaseException:
        box.close()
        workdir.cleanup()
        raise
    return workdir, box, proc


def _discard(entry) -> None:
    from .answers import _stop

    workdir, box, proc = entry[:3]
    _stop(proc)
    box.close()
    workdir.cleanup()


def _close_spare() -> None:
    entry = _spare.pop("entry", None)
    if entry is not None:
        _discard(entry)


def _take_box(limits: tuple, more: bool = True):
    """(working directory, sandbox, answer process): the warm spare when there is one; the
    next submission's is started now when ``more`` may come (only inside grading worker
    processes; a spare nobody takes is a start-up paid for nothing)."""
    entry = _spare.pop("entry", None)
    if entry is not None and entry[3] != limits:
        _discard(entry)
        entry = None
    taken = entry[:3] if entry is not None else _launched(limits)
    if more:
        _prelaunch(limits)
    return taken


def _prelaunch(limits: tuple) -> None:
    """Start the next submission's answer process now (only inside grading worker processes)."""
    if _spare.get("enabled") and "entry" not in _spare:
        try:
            _spare["entry"] = (*_launched(limits), limits)
        except Exception:  # noqa: BLE001 - the next job will simply start its own
            pass


def enable_spare() -> None:
    """In a Dask worker: keep a warm answer process ready for the next task (closed at exit)."""
    if not _spare.get("enabled"):
        import atexit

        _spare["enabled"] = True
        atexit.register(_close_spare)


def _detach_worker() -> None:
    """In a grading worker process: die when the grader dies (``kill -9`` included: its kernels
    then die with it, bwrap's ``--die-with-parent``) and hold none of the grader's terminal or
    pipe (``tensorlab grade | tee`` ends when the grader does)."""
    from ._launch import die_with_parent

    die_with_parent()
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:  # pragma: no cover
        return
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


def _init_worker(limits: tuple) -> None:
    from multiprocessing.util import Finalize

    _detach_worker()
    _spare["enabled"] = True
    Finalize(None, _close_spare, exitpriority=10)
    _prelaunch(limits)


def grade_job(job: Job, release: Release, settings: Settings, more: bool = True) -> dict:
    """Worker entry point: ``grade_notebook`` that reports its own crashes as records."""
    try:
        return grade_notebook(job, release, settings, more)
    except Exception as e:  # noqa: BLE001 - a grader bug must not stop the batch
        return lost_record(job, release, f"{type(e).__name__}: {_clip(e)}", traceback.format_exc())
