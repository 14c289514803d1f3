"""``tensorlab grade --cluster ADDRESS``: the same sandboxed grading task on a Dask cluster.

One notebook is one Dask task (``task``): it runs on a worker exactly what a local run does
(``run.grade_job``: the rebuilt notebook in a fresh sandboxed, limited kernel, judged against
the references on the worker, outside the kernel) and returns the notebook's record. The
submission's bytes and the release (a ``Release`` with its templates) travel as task data, so
workers need no shared file system, only tensorlab (``pip install 'tensorlab-course[cluster]'``)
and bubblewrap.

Faults are Dask's: a worker that dies mid-task has its tasks rescheduled on another worker, and
each notebook's record is taken once (the task's key is unique); a notebook whose task still
failed (a grader error) is retried once, as in a local run (``executors.RetryPolicy``). A run
in which no task has finished for longer than a notebook may take (the notebook's time limit
plus ``STALL_MARGIN``) is stalled, since every task is bounded by that limit: the unfinished
tasks are submitted again under new keys (once, as a lost worker's are; preferably on workers
that were not running them), and a notebook whose task stalls twice is recorded as a grader
error (then retried like any other). A worker whose sandbox cannot
start records that, per notebook, as a grader error. The client hands each record to
``progress.update`` as it arrives: in ``grade`` that writes the student's grade file and the
gradebook atomically once the student is complete, exactly as a local run does, and Ctrl-C
undoes the run (``results.Results``). ``distributed`` is imported only here, only when
``--cluster`` is used.

``ADDRESS``: ``tcp://host:8786`` (a running scheduler: ``dask scheduler``, then
``dask worker tcp://host:8786`` on each machine) or ``local:N`` (a ``LocalCluster`` of N worker
processes on this machine, one thread each).
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
import uuid

from .executors import Executor

CONNECT_TIMEOUT = 10  # seconds to reach a scheduler
STALL_MARGIN = 120.0  # seconds beyond a notebook's time limit: kernel start, sandbox, judging


class ClusterUnavailable(RuntimeError):
    """``--cluster`` cannot be used: bad address, no scheduler there, or no ``distributed``."""


def connect(address: str):
    """(Client, LocalCluster or None) for ``address``; ``ClusterUnavailable`` otherwise."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterUnavailable(
            "--cluster needs the Dask `distributed` package: pip install 'tensorlab-course[cluster]'"
        ) from None
    if address.startswith("local:"):
        try:
            n = int(address.split(":", 1)[1])
            if n < 1:
                raise ValueError
        except ValueError:
            raise ClusterUnavailable(
                f"invalid cluster address {address!r}: local:N needs N >= 1 worker processes"
            ) from None
        cluster = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            scheduler_port=0,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        return Client(cluster), cluster
    if "://" not in address:
        raise ClusterUnavailable(
            f"invalid cluster address {address!r} (use tcp://HOST:PORT or local:N)"
        )
    _reachable(address)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT), None
    except (OSError, TimeoutError, ValueError) as e:
        raise ClusterUnavailable(
            f"cannot reach the Dask scheduler at {address}: {type(e).__name__}: {e}"
        ) from None


def _reachable(address: str) -> None:
    """A ``tcp://`` scheduler that refuses connections or does not answer is reported at once
    (Dask's client would keep retrying for ``CONNECT_TIMEOUT`` seconds first)."""
    from urllib.parse import urlsplit

    parts = urlsplit(address)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number: Dask reports it
        return
    if parts.scheme != "tcp" or not host or not port:
        return  # another transport, or no port: Dask checks it
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as e:
        raise ClusterUnavailable(
            f"cannot reach the Dask scheduler at {address}: {e.strerror or type(e).__name__}"
        ) from None


def task(job, release, settings) -> dict:
    """Grade one notebook on a worker: its sandbox is checked first, then graded as locally.

    As in a local worker, the next notebook's kernel is launched while this one is graded.
    """
    from .records import lost_record
    from .run import enable_spare, grade_job

    enable_spare()
    if settings.sandbox == "bwrap":
        from .sandbox import probe

        reason = probe()
        if reason is not None:
            return lost_record(
                job,
                release,
                f"the sandbox cannot start on worker {socket.gethostname()}: {reason}",
            )
    return grade_job(job, release, settings)


class DaskExecutor(Executor):
    """Each notebook one task on the Dask cluster at ``address`` (the local pool's retry
    policy: a notebook whose task failed is submitted once more, under a new key)."""

    task = staticmethod(task)  # what runs on a worker (tests substitute one that hangs)
    stall_margin = STALL_MARGIN

    def __init__(self, address: str):
        self.address = address
        self.client = None
        self.shared = None

    def stall_limit(self, settings) -> float:
        """Seconds without any finished task after which the run is stalled."""
        return settings.timeout + self.stall_margin

    @contextlib.contextmanager
    def session(self, release, settings):
        client, cluster = connect(self.address)
        try:
            self.client = client
            self.shared = client.scatter(release, broadcast=True)
            self.run_id = uuid.uuid4().hex[:12]
            yield
        finally:
            self.client = self.shared = None
            client.close()
            if cluster is not None:
                cluster.close()

    def attempt(self, items, release, settings, number, take) -> None:
        from .records import lost_record
        from .run import _clip

        limit = self.stall_limit(settings)
        futures: dict = {}  # future -> (index, job, submissions so far)

        def submit(i, job, n, avoid=()):
            key = f"tensorlab-grade-{self.run_id}-{number}-{i}-{n}"
            where = {}
            if avoid:  # preferably not behind a task that may still hold a thread
                others = [w for w in self.client.scheduler_info()["workers"] if w not in avoid]
                if others:
                    where = dict(workers=others, allow_other_workers=True)
            fut = self.client.submit(self.task, job, self.shared, settings, key=key, **where)
            futures[fut] = (i, job, n + 1)

        for i, job in items:
            submit(i, job, 0)
        last = time.monotonic()
        while futures:
            done = [f for f in futures if f.done()]
            if done:
                last = time.monotonic()
            elif time.monotonic() - last > limit:  # stalled: nothing can still be running
                stalled = list(futures)
                keys = {f.key for f in stalled}
                busy = {w for w, ks in self.client.processing().items() if keys & set(ks)}
                self.client.cancel(stalled)
                for fut in stalled:
                    i, job, n = futures.pop(fut)
                    if n < 2:
                        submit(i, job, n, avoid=busy)
                    else:
                        reason = f"no answer from the cluster in {limit:g} s, twice"
                        take(i, lost_record(job, release, reason))
                last = time.monotonic()
                continue
            else:
                time.sleep(0.05)
            for fut in done:
                i, job, _ = futures.pop(fut)
                try:
                    rec = fut.result()
                except Exception as e:  # noqa: BLE001 - e.g. KilledWorker after repeated deaths
                    rec = lost_record(job, release, f"{type(e).__name__}: {_clip(e)}")
                take(i, rec)
