"""Stage 5, results: the grade files, written atomically as students complete.

``DIR/<student>.json`` and ``DIR/gradebook.csv`` (their layout: ``records``), merged with what
earlier runs wrote there; an interrupted run (Ctrl-C) is undone.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import tempfile
import time
from pathlib import Path

from .assign import write_atomic
from .collect import student_file
from .pages import REPORT_FILE, report_page, summarise
from .records import GRADEBOOK_COLUMNS, UNASSIGNED, gradebook_row, student_doc
from .release import Release
from .term import (
    QUESTIONS_FILE,
    Term,
    final,
    load_final,  # noqa: F401 - what report and export read (the term applied)
    load_term,
    questions_json,
)


def _key(rec: dict) -> str:
    """What a record stands for in a student's file: its notebook, else its file."""
    return rec.get("notebook") or f"file:{rec.get('path')}"


def previous(out_dir: Path) -> dict[str, list[dict]]:
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


def recorded_seed(out_dir: Path) -> int | None:
    """The seed an earlier run into ``out_dir`` recorded (so a regrade of part of the class
    judges it on the same hidden inputs), else None."""
    for student in sorted(previous(out_dir)) if Path(out_dir).is_dir() else ():
        try:
            doc = json.loads((Path(out_dir) / student_file(student)).read_text(encoding="utf-8"))
            seed = doc["grader"]["seed"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(seed, int) and not isinstance(seed, bool):
            return seed
    return None


LOCK_FILE = ".tensorlab-grade.lock"


class Busy(BlockingIOError):
    """Another ``grade`` is writing into the same folder."""


class Lock:
    """An exclusive lock on ``out_dir`` (``flock`` on ``DIR/.tensorlab-grade.lock``), held for a
    whole run: a second concurrent ``grade`` into the same folder raises ``Busy`` at once. The
    lock file is removed on release (a waiter that opened the removed file retries)."""

    def __init__(self, out_dir):
        self.path = Path(out_dir) / LOCK_FILE
        self.fd: int | None = None

    def acquire(self) -> None:
        import fcntl

        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise Busy(
                    f"another `tensorlab grade` is writing into {self.path.parent} "
                    "(wait for it to finish, or use another --out)"
                ) from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                self.fd = fd
                return
            os.close(fd)  # the holder removed it as we opened it: take the new one

    def release(self) -> None:
        if self.fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self.fd)
            self.fd = None


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

    def __init__(
        self, out_dir, release: Release, settings, jobs=(), min_interval=1.0, feedback=False
    ):
        self.out = Path(out_dir)
        self.feedback = feedback  # finish() also writes DIR/feedback/<student>.html
        self.release, self.settings = release, settings
        self.created = False
        self.undo: Path | None = None
        self.touched: dict[str, bool] = {}  # file name -> existed before this run
        self.written: dict[str, bytes] = {}  # file name -> sha256 of what this run wrote there
        self.by_student: dict[str, dict[str, dict]] = {}
        # overrides, written scores, late policy: applied to every row and page (never to the
        # grade files, which keep what the grader found)
        self.term = load_term(self.out) if self.out.is_dir() else Term()
        if self.out.is_dir():
            for student, subs in previous(self.out).items():
                self.by_student[student] = {_key(r): r for r in subs}
        self.pending: dict[str, int] = {}
        self.incoming: dict[str, list[dict]] = {}
        for job in jobs:
            self.pending[job.student] = self.pending.get(job.student, 0) + 1
        names = {job.notebook for job in jobs} | {
            r.get("notebook") for subs in self.by_student.values() for r in subs.values()
        }
        self.notebooks = sorted(n for n in names if n in release.notebooks)
        self.qids = release.qids(self.notebooks)
        self.rows: dict[str, list[str]] = {}
        for student in self.by_student:
            self.rows[student] = gradebook_row(final(self._doc(student), self.term), self.qids)
        self.min_interval = min_interval
        self.last_gradebook = -math.inf

    # -- files
    def _doc(self, student: str) -> dict:
        subs = list(self.by_student[student].values())
        file = student_file(student)
        return student_doc(student, file, subs, self.notebooks, self.release, self.settings)

    def _write(self, name: str, data: bytes) -> None:
        if not self.out.is_dir():
            self.out.mkdir(parents=True)
            self.created = True
        path = self.out / name
        if not path.parent.is_dir():  # DIR/feedback/
            path.parent.mkdir()
            self.touched.setdefault(path.parent.name + "/", False)
        if name not in self.touched:
            existed = path.exists()
            if existed:
                if self.undo is None:
                    self.undo = Path(tempfile.mkdtemp(prefix=UNDO_PREFIX, dir=self.out))
                (self.undo / name).parent.mkdir(parents=True, exist_ok=True)
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
        self.rows[student] = gradebook_row(final(doc, self.term), self.qids)
        return doc

    def _write_gradebook(self) -> None:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow([*GRADEBOOK_COLUMNS, *self.qids])
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
        if self.feedback:  # a grading run: what the pages and `tensorlab override` read
            self._write(QUESTIONS_FILE, questions_json(self.release, self.notebooks))
            self._write_feedback(docs)
            if (self.out / REPORT_FILE).exists():  # never left stale by a regrade
                info = {q: self.release.questions[q].to_json() for q in self.qids}
                finals = [final(d, self.term) for d in docs]
                self._write(REPORT_FILE, report_page(summarise(finals, info)))
        self._drop_undo()
        return docs

    def _write_feedback(self, docs: list[dict]) -> None:
        from .pages import FEEDBACK_DIR, feedback_file, student_page

        hidden = self.release.withheld()
        info = {q: self.release.questions[q].to_json() for q in self.qids}
        for doc in docs:
            if doc["student"] == UNASSIGNED:
                continue
            name = f"{FEEDBACK_DIR}/{feedback_file(doc['file'])}"
            data = student_page(final(doc, self.term), hidden, info)
            try:
                if (self.out / name).read_bytes() == data:
                    continue
            except OSError:
                pass
            self._write(name, data)

    def abort(self) -> None:
        """Undo the run: the files it replaced put back, the files it added removed."""
        for name, existed in sorted(self.touched.items(), key=lambda kv: kv[0].endswith("/")):
            try:
                if name.endswith("/"):  # a folder this run made (its files went first)
                    (self.out / name).rmdir()
                elif existed and self.undo is not None:
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


def write_results(out_dir: Path, records: list[dict], release: Release, settings) -> list[dict]:
    """``<student>.json`` for every student and ``gradebook.csv``, each written atomically.

    Students and notebooks graded by earlier runs into ``out_dir`` are kept: a run over a
    subset of the class updates those students' notebooks and leaves every other row as it was.
    """
    results = Results(out_dir, release, settings)
    for r in records:
        results.incoming.setdefault(r["student"], []).append(r)
    results.notebooks = sorted(
        set(results.notebooks)
        | {r.get("notebook") for r in records if r.get("notebook") in release.notebooks}
    )
    results.qids = release.qids(results.notebooks)
    return results.finish()


class Sink:
    """Where each notebook's final record goes as it arrives: the progress bar, the files."""

    def __init__(self, bar, results: Results):
        self.bar, self.results = bar, results

    def update(self, record: dict) -> None:
        self.results.add(record)
        self.bar.update(record)


def undo(results: Results) -> None:
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
