"""``tensorlab grade --cluster ADDRESS``: the same sandboxed grading task on a Dask cluster.

One notebook is one Dask task (``task``): it runs on a worker exactly what a local run does
(``grade._grade_job``: the rebuilt notebook in a fresh sandboxed, limited kernel, judged against
the references on the worker, outside the kernel) and returns the notebook's record. The
submission's bytes and the release (manifest and templates) travel as task data, so workers need
no shared file system, only tensorlab (``pip install tensorlab[cluster]``) and bubblewrap.

Faults are Dask's: a worker that dies mid-task has its tasks rescheduled on another worker, and
each notebook's record is taken once (the task's key is unique). A worker whose sandbox cannot
start records that, per notebook, as a grader error. The client hands each record to
``progress.update`` as it arrives: in ``grade`` that writes the student's grade file and the
gradebook atomically once the student is complete, exactly as a local run does, and Ctrl-C
undoes the run (``grade.Results``). ``distributed`` is imported only here, only when
``--cluster`` is used.

``ADDRESS``: ``tcp://host:8786`` (a running scheduler: ``dask scheduler``, then
``dask worker tcp://host:8786`` on each machine) or ``local:N`` (a ``LocalCluster`` of N worker
processes on this machine, one thread each).
"""

from __future__ import annotations

import logging
import socket
import uuid

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
    from .grade import _close_spare, _grade_job, _lost, _spare

    if not _spare.get("enabled"):
        import atexit

        _spare["enabled"] = True
        atexit.register(_close_spare)

    if settings.sandbox == "bwrap":
        from .sandbox import probe

        reason = probe()
        if reason is not None:
            return _lost(
                job,
                manifest,
                f"the sandbox cannot start on worker {socket.gethostname()}: {reason}",
            )
    return _grade_job(job, manifest, settings)


def run(jobs: list, manifest: dict, settings, address: str, progress) -> list[dict]:
    """Grade ``jobs`` on the cluster at ``address``; the records, in the order of ``jobs``.

    ``progress.update(record)`` is called once per notebook, as its record arrives."""
    from distributed import as_completed

    from .grade import _clip, _lost

    client, cluster = connect(address)
    try:
        shared = client.scatter(manifest, broadcast=True)
        run_id = uuid.uuid4().hex[:12]
        futures = [
            client.submit(task, job, shared, settings, key=f"tensorlab-grade-{run_id}-{i}")
            for i, job in enumerate(jobs)
        ]
        index = {f.key: i for i, f in enumerate(futures)}
        records: dict[int, dict] = {}
        for fut in as_completed(futures):
            i = index[fut.key]
            try:
                rec = fut.result()
            except Exception as e:  # noqa: BLE001 - e.g. KilledWorker after repeated deaths
                rec = _lost(jobs[i], manifest, f"{type(e).__name__}: {_clip(e)}")
            records[i] = rec
            progress.update(rec)
        return [records[i] for i in range(len(jobs))]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
