"""Stage 3, run: one rebuilt notebook in a fresh kernel, its questions judged (the task each
executor runs, locally or on a Dask worker).

The rebuilt cells run in a fresh kernel (``kernel.Kernel``) inside the bubblewrap sandbox
(``sandbox``: nothing visible but the Python environment and a private scratch folder, the
question banks hidden; own PID and network namespaces; an unprivileged uid; memory, CPU,
process and file-size limits) with per-cell and per-notebook time limits. A cell that kills the
kernel or cannot be interrupted is skipped and the kernel restarted, so one bad answer does not
sink the rest. Then each question is asked for and judged (``batch_judge``). In a worker
process, the kernel for the next submission is launched while the current one is graded.
"""

from __future__ import annotations

import math
import secrets
import time
import traceback
from dataclasses import dataclass

from . import batch_judge, errors, written
from .authoring import case_weights
from .collect import Job
from .encode import Raised
from .rebuild import ExecCell, parse_submission, rebuild
from .records import lost_record, notebook_record, unjudged, verdict_record
from .release import QuestionInfo, Release

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


class _OutOfTime(Exception):
    pass


class _GiveUp(Exception):
    pass


def _clip(text, n: int = 500) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= n else text[: n - 1] + "…"


class Runner:
    """Runs the rebuilt cells of one submission, restarting the kernel around fatal cells."""

    def __init__(self, kernel, cells: list[ExecCell], settings: Settings):
        self.kernel = kernel
        self.cells = cells
        self.settings = settings
        self.deadline = time.monotonic() + settings.timeout
        self.poisoned: dict[int, str] = {}  # cell index -> "timeout" | "kernel_died"
        self.errors: dict[int, tuple[str, str]] = {}  # cell index -> (ename, evalue)
        self.where: dict[int, dict | None] = {}  # cell index -> the learner's line (errors)
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
                self.where[i] = errors.from_outputs(cell.source, r.outputs)
            elif r.status in ("timeout", "dead"):
                self.poisoned[i] = "timeout" if r.status == "timeout" else "kernel_died"
                self.recover(r.status, i)


def _unanswered(runner: Runner, qid: str, decoded_missing: bool) -> tuple[str, str] | None:
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


def _ask_and_judge(
    runner: Runner, q, info: QuestionInfo, nonce: str, settings, results: dict
) -> dict:
    """Ask the kernel for question ``q``'s answer and judge it: the question's record (stored
    in ``results`` before the kernel is restarted after a fatal call)."""
    qid = q.id
    cells = runner.cells
    source = batch_judge.harness_source(nonce, qid, info, batch_judge.payload(q, settings.seed))
    r = runner.run(source)
    if r.status in ("timeout", "dead"):
        status = "timeout" if r.status == "timeout" else "kernel_died"
        reason = (
            "calling your answer did not finish within the time limit"
            if status == "timeout"
            else "calling your answer killed the kernel"
        )
        results[qid] = unjudged({qid: info}, status, reason)[qid]
        runner.recover(r.status, len(cells))
        return results[qid]
    ok = r.status == "ok"
    answer = batch_judge.answer_from(r.outputs, nonce, qid, runner.key) if ok else None
    if answer is None:
        reason = "no answer came back from the kernel"
        if r.status == "error":
            reason += f" ({_clip(r.ename, 100)}: {_clip(r.evalue, 200)})"
        return unjudged({qid: info}, "error", reason)[qid]
    missing = isinstance(answer, dict) and answer.get("t") == "missing"
    override = _unanswered(runner, qid, missing)
    if override is not None:
        rec = unjudged({qid: info}, *override)[qid]
        where = [runner.where.get(i) for i, c in enumerate(cells) if c.qid == qid]
        if override[0] == "error" and where and where[-1]:
            rec["error"] = where[-1]  # the learner's own error: type and line of their cell
        return rec
    verdict = batch_judge.judge_answer(q, answer, settings.seed)  # never raises
    verdict = batch_judge.with_rules(q, cells, verdict)
    authored = hasattr(q, "partial")  # an instructor's own question: its hints are for learners
    weights = case_weights(q, settings.seed) if getattr(q, "weights", None) else None
    rec = verdict_record(verdict, info.points, info.partial, authored, weights)
    if isinstance(verdict.actual, Raised) and not verdict.passed:
        rec["error"] = errors.from_raised([c.source for c in cells if c.qid == qid], verdict.actual)
    return rec


def grade_notebook(job: Job, release: Release, settings: Settings) -> dict:
    """Grade one submission; never raises for anything the submission does."""
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

    workdir, kernel = _take_kernel(settings.kernel_limits())
    with workdir:
        runner = Runner(kernel, cells, settings)
        try:
            runner.start(0)
            runner.run_cells()
            nonce = secrets.token_hex(16)
            for qid, info in infos.items():
                if qid not in results:
                    results[qid] = _ask_and_judge(runner, get(qid), info, nonce, settings, results)
        except _OutOfTime:
            reason = f"the notebook did not finish within {settings.timeout:g} s"
            for qid, info in infos.items():
                results.setdefault(qid, unjudged({qid: info}, "timeout", reason)[qid])
        except _GiveUp:
            reason = "the kernel kept dying or hanging; grading stopped"
            for qid, info in infos.items():
                results.setdefault(qid, unjudged({qid: info}, "kernel_died", reason)[qid])
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


def enable_spare() -> None:
    """In a Dask worker: keep a warm kernel ready for the next task (closed at exit)."""
    if not _spare.get("enabled"):
        import atexit

        _spare["enabled"] = True
        atexit.register(_close_spare)


def _init_worker(limits: tuple) -> None:
    from multiprocessing.util import Finalize

    _spare["enabled"] = True
    Finalize(None, _close_spare, exitpriority=10)
    _prelaunch(limits)


def grade_job(job: Job, release: Release, settings: Settings) -> dict:
    """Worker entry point: ``grade_notebook`` that reports its own crashes as records."""
    try:
        return grade_notebook(job, release, settings)
    except Exception as e:  # noqa: BLE001 - a grader bug must not stop the batch
        return lost_record(job, release, f"{type(e).__name__}: {_clip(e)}", traceback.format_exc())
