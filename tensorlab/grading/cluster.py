"""``tensorlab grade --cluster ADDRESS``: the same sandboxed grading task on a Dask cluster.

One notebook is one Dask task (``task``): it runs on a worker exactly what a local run does
(``run.grade_job``: the rebuilt notebook in a fresh sandboxed, limited kernel, judged against
the references on the worker, outside the kernel) and returns the notebook's record. The
submission's bytes and the release (manifest and templates) travel as task data, so workers need
no shared file system, only tensorlab (``pip install tensorlab[cluster]``) and bubblewrap.

Faults are Dask's: a worker that dies mid-task has its tasks rescheduled on another worker, and
each notebook's record is taken once (the task's key is unique); a notebook whose task still
failed (a grader error) is retried once, as in a local run (``executors.RetryPolicy``). A worker whose sandbox cannot
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
import uuid

from .executors import Executor

CONNECT_TIMEOUT = 10  # seconds to reach a scheduler


class ClusterUnavailable(RuntimeError):
    """``--cluster`` cannot be used: bad address, no scheduler there, or no ``distributed``."""


def connect(address: str):
    """(Client, LocalCluster or None) for ``address``; ``ClusterUnavailable`` otherwise."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterUnavailable(
            "--cluster needs the Dask `distributed` package: pip install 'tensorlab[cluster]'"
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


def task(job, manifest: dict, settings) -> dict:
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
                manifest,
                f"the sandbox cannot start on worker {socket.gethostname()}: {reason}",
            )
    return grade_job(job, manifest, settings)


class DaskExecutor(Executor):
    """Each notebook one task on the Dask cluster at ``address`` (the local pool's retry
    policy: a notebook whose task failed is submitted once more, under a new key)."""

    def __init__(self, address: str):
        self.address = address
        self.client = None
        self.shared = None

    @contextlib.contextmanager
    def session(self, manifest: dict, settings):
        client, cluster = connect(self.address)
        try:
            self.client = client
            self.shared = client.scatter(manifest, broadcast=True)
            self.run_id = uuid.uuid4().hex[:12]
            yield
        finally:
            self.client = self.shared = None
            client.close()
            if cluster is not None:
                cluster.close()

    def attempt(self, items, manifest, settings, number, take) -> None:
        from distributed import as_completed

        from .records import lost_record
        from .run import _clip

        futures = {
            self.client.submit(
                task, job, self.shared, settings, key=f"tensorlab-grade-{self.run_id}-{number}-{i}"
            ): (i, job)
            for i, job in items
        }
        for fut in as_completed(list(futures)):
            i, job = futures[fut]
            try:
                rec = fut.result()
            except Exception as e:  # noqa: BLE001 - e.g. KilledWorker after repeated deaths
                rec = lost_record(job, manifest, f"{type(e).__name__}: {_clip(e)}")
            take(i, rec)
