"""Stage 3, run (the class): one executor interface, two implementations.

An ``Executor`` grades a list of jobs with ``run.grade_job`` somewhere (``LocalPool``: spawned
worker processes on this machine; ``cluster.DaskExecutor``: tasks on a Dask cluster) and hands
each final record to ``sink.update`` as it arrives. Both share one retry policy
(``RetryPolicy``): a notebook whose grading failed (its worker or kernel killed from outside, a
grader error) is graded once more; if that fails too it is recorded as lost, with its max score
kept and ``attempts: 2``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from .records import lost_record
from .run import _clip, _init_worker, grade_job


@dataclass(frozen=True)
class RetryPolicy:
    """How often a notebook whose grading failed is graded (the same for every executor)."""

    attempts: int = 2

    def again(self, record: dict, attempt: int) -> bool:
        """Whether ``record`` (from attempt number ``attempt``) is thrown away and retried."""
        return record.get("status") == "grader_error" and attempt < self.attempts

    def final(self, record: dict, retried: bool) -> dict:
        if retried:
            record["attempts"] = self.attempts
            if record.get("status") == "grader_error":
                record["reason"] = f"graded twice, failed twice: {record['reason']}"
        return record


RETRY = RetryPolicy()


class Executor:
    """Grades jobs somewhere; subclasses say where (``attempt``) and hold resources
    (``session``). ``run`` applies the retry policy and reports each final record once."""

    policy: RetryPolicy = RETRY

    def session(self, release, settings):
        """A context manager around the whole run (e.g. a cluster connection)."""
        return contextlib.nullcontext()

    def attempt(self, items: list, release, settings, number: int, take) -> None:
        """Grade every ``(index, job)`` of ``items`` once; ``take(index, record)`` as they come."""
        raise NotImplementedError

    def run(self, jobs: list, release, settings, sink) -> list[dict]:
        """Grade ``jobs``; their final records, in the order of ``jobs``."""
        records: dict[int, dict] = {}
        failed: set[int] = set()
        pending = list(range(len(jobs)))
        with self.session(release, settings):
            for number in range(1, self.policy.attempts + 1):
                if not pending:
                    break

                def take(i: int, rec: dict, number=number) -> None:
                    if self.policy.again(rec, number):
                        failed.add(i)
                        return
                    records[i] = self.policy.final(rec, i in failed)
                    sink.update(records[i])

                self.attempt([(i, jobs[i]) for i in pending], release, settings, number, take)
                pending = [i for i in pending if i not in records]
        return [records[i] for i in range(len(jobs)) if i in records]


class LocalPool(Executor):
    """``workers`` spawned processes on this machine, each keeping a warm kernel ready."""

    def __init__(self, workers: int = 1):
        self.workers = max(1, workers)

    def attempt(self, items, release, settings, number, take) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(items)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(settings.kernel_limits(),),
        )
        try:
            # the last ``workers`` jobs start no warm answer process for a job that never comes
            last = len(items) - min(self.workers, len(items))
            futures = {
                pool.submit(grade_job, job, release, settings, n < last): (i, job)
                for n, (i, job) in enumerate(items)
            }
            for fut in as_completed(futures):
                i, job = futures[fut]
                try:
                    rec = fut.result()
                except BrokenProcessPool:
                    rec = lost_record(job, release, "the grading worker was killed")
                except Exception as e:  # noqa: BLE001 - e.g. a record that cannot be sent back
                    rec = lost_record(job, release, f"{type(e).__name__}: {_clip(e)}")
                take(i, rec)
        except BaseException:  # Ctrl-C: stop now; the workers' sandboxes die with them
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()


def executor_for(cluster: str | None, jobs: int) -> Executor:
    """The executor of a run: a Dask cluster at ``cluster``, else ``jobs`` local workers."""
    if cluster is not None:
        from .cluster import DaskExecutor

        return DaskExecutor(cluster)
    return LocalPool(jobs)
