"""The release, typed: what ``tensorlab assign`` wrote, loaded once into one object that every
grading stage shares (collect, rebuild, run, records, results, pages, export).

``release.json`` (format 1) holds::

    {"format": 1, "tensorlab_version": ...,
     "notebooks": {"04_strides.ipynb": {"assignment", "sha256", "questions": [qid, ...]}},
     "questions": {qid: {"notebook", "cell_id", "name", "kind", "points",
                         "partial"?, "withheld"?, "assessment"?, "title"?}},
     "authored"?: {"notebooks": {name: sha256}}}  (+ "solutions": folder in older files)

``Release.load(folder)`` reads it (and, with ``full=True``, what a grading run needs besides:
the released notebooks' text, checked against their hashes, and an authored course's
questions: the instructor's solutions, or the learners' public checks). The object is plain
data: it travels to pool workers and Dask workers as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path

RELEASE_FILE = "release.json"
RELEASE_FORMAT = 1
CHECKS_FILE = "tensorlab-checks.json"

# What a question asks of the learner (DESIGN.md 6b), shown in notebooks, feedback and report.
ASSESSMENTS = ("derive", "implement", "predict", "written", "free")


@dataclass(frozen=True)
class QuestionInfo:
    """One question as released: where its answer cell is and what it is worth."""

    id: str
    notebook: str  # the released notebook's file name ("04_strides.ipynb")
    cell_id: str
    name: str  # what the learner binds (a value's or a function's name; "" when written)
    kind: str  # "value" | "function" | "written" (a person scores it: ``written``)
    points: float
    partial: bool = False  # points per passed input
    withheld: bool = False  # feedback pages hide the grader's messages (hidden values)
    assessment: str = "free"  # one of ASSESSMENTS
    title: str = ""  # a short human title (feedback pages, report); the id when empty
    rubric: tuple = ()  # a written question's criteria ({"points", "text"}, see ``written``)

    @property
    def label(self) -> str:
        """The title when there is one, else the id."""
        return self.title or self.id

    @classmethod
    def from_json(cls, qid: str, d: dict) -> QuestionInfo:
        return cls(
            id=qid,
            notebook=d["notebook"],
            cell_id=d["cell_id"],
            name=d["name"],
            kind=d["kind"],
            points=float(d["points"]),
            partial=bool(d.get("partial", False)),
            withheld=bool(d.get("withheld", False)),
            assessment=d.get("assessment", "free"),
            title=d.get("title", ""),
            rubric=tuple(d.get("rubric", ())),
        )

    def to_json(self) -> dict:
        """The entry in ``release.json`` (defaults left out, so older files stay the same)."""
        out = {
            "notebook": self.notebook,
            "cell_id": self.cell_id,
            "name": self.name,
            "kind": self.kind,
            "points": self.points,
        }
        for f in fields(self):
            if f.name in out or f.name == "id":
                continue
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class NotebookInfo:
    """One released notebook: its assignment name, its bytes' hash, its questions in order."""

    name: str
    assignment: str
    sha256: str
    questions: tuple[str, ...]

    def to_json(self) -> dict:
        return {
            "assignment": self.assignment,
            "sha256": self.sha256,
            "questions": list(self.questions),
        }


@dataclass
class Release:
    """A release: its notebooks and questions (``release.json``), and, for a grading run, the
    released notebooks' text (``templates``) and an authored course's question code."""

    notebooks: dict[str, NotebookInfo]
    questions: dict[str, QuestionInfo]
    tensorlab_version: str | None = None
    authored: dict | None = None  # {"notebooks": {name: sha256}}
    solutions: str | None = None  # where the grader found the solution notebooks
    folder: str | None = None  # where it was loaded from
    templates: dict[str, str] = field(default_factory=dict)  # notebook -> released text
    authored_code: dict | None = None  # {notebook: [(cell index, source)]}: the grader's
    authored_public: dict | None = None  # tensorlab-checks.json's questions: a learner's

    # -- reading and writing
    @classmethod
    def from_json(cls, doc: dict, folder: str | os.PathLike | None = None) -> Release:
        if doc.get("format") != RELEASE_FORMAT:
            where = Path(folder) / RELEASE_FILE if folder is not None else RELEASE_FILE
            raise ValueError(f"{where}: unsupported release format {doc.get('format')!r}")
        notebooks = {
            name: NotebookInfo(name, d["assignment"], d["sha256"], tuple(d["questions"]))
            for name, d in doc["notebooks"].items()
        }
        questions = {qid: QuestionInfo.from_json(qid, d) for qid, d in doc["questions"].items()}
        return cls(
            notebooks=notebooks,
            questions=questions,
            tensorlab_version=doc.get("tensorlab_version"),
            authored=doc.get("authored"),
            folder=None if folder is None else str(folder),
        )

    def to_json(self) -> dict:
        """The contents of ``release.json``."""
        doc = {
            "format": RELEASE_FORMAT,
            "tensorlab_version": self.tensorlab_version,
            "notebooks": {n: info.to_json() for n, info in self.notebooks.items()},
            "questions": {q: info.to_json() for q, info in self.questions.items()},
        }
        if self.authored:
            doc["authored"] = self.authored
        return doc

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1, sort_keys=True) + "\n"

    @classmethod
    def load(
        cls,
        folder: str | os.PathLike,
        *,
        full: bool = False,
        solutions: str | os.PathLike | None = None,
        need_solutions: bool = False,
    ) -> Release:
        """The release of an exercises folder. ``full``: also the released notebooks' text
        (checked against their hashes) and an authored course's questions, as a grading run
        needs them: the references from ``solutions`` (default: the folder ``solutions``
        beside the exercises folder), else the learners' public checks, which
        ``need_solutions`` (batch grading) refuses."""
        path = Path(folder) / RELEASE_FILE
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise FileNotFoundError(
                f"no {RELEASE_FILE} in {folder}: run `tensorlab assign SOLUTIONS {folder}`"
            ) from None
        release = cls.from_json(doc, folder)
        if full:
            release.read_templates()
            if release.authored:
                release.read_authored(solutions, need_solutions)
        return release

    def read_templates(self) -> None:
        """The released notebooks' text, read once by the parent and checked against
        ``release.json``. Workers get this text, never the files, so nothing a graded notebook
        writes to disk can change how the next ones are rebuilt."""
        out = {}
        for name, info in self.notebooks.items():
            path = Path(self.folder) / name
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                raise FileNotFoundError(f"{path} (listed in {RELEASE_FILE}) is missing") from None
            if hashlib.sha256(data).hexdigest() != info.sha256:
                raise ValueError(
                    f"{path} does not match {RELEASE_FILE}: run `tensorlab assign` again"
                )
            out[name] = data.decode("utf-8")
        self.templates = out

    def read_authored(self, solutions=None, need_solutions: bool = False) -> None:
        """An instructor's own questions for the workers: the solutions' code when the grader
        has the solutions (references, hidden inputs), else the public checks (``tensorlab
        check`` on a learner's machine)."""
        from .authoring import read_solutions

        if solutions is not None:
            candidates = [Path(solutions)]
        else:  # beside the exercises folder, or where an older release.json said
            candidates = [Path(self.folder).resolve().parent / "solutions"]
            if self.authored.get("solutions"):
                candidates.append(Path(self.authored["solutions"]))
        for folder in candidates:
            code = read_solutions(self.authored, folder)
            if code is not None:
                self.authored_code = code
                self.solutions = str(folder)
                return
        if need_solutions or solutions is not None:
            raise FileNotFoundError(
                f"this release has your own questions and their references are in your "
                f"solution notebooks, which are not in {candidates[0]}: pass --solutions DIR "
                "(the folder you gave `tensorlab assign`)"
            )
        path = Path(self.folder) / CHECKS_FILE
        try:
            self.authored_public = json.loads(path.read_text(encoding="utf-8"))["questions"]
        except (OSError, ValueError, KeyError) as e:
            raise FileNotFoundError(
                f"this release has the instructor's own questions, and neither their solutions "
                f"({self.authored.get('solutions')}) nor {path} are here: {e}"
            ) from None

    # -- questions
    def infos(self, notebook: str | None) -> dict[str, QuestionInfo]:
        """The questions of ``notebook`` in order (empty for an unknown notebook)."""
        if notebook is None or notebook not in self.notebooks:
            return {}
        return {q: self.questions[q] for q in self.notebooks[notebook].questions}

    def qids(self, notebooks) -> list[str]:
        """The question ids of ``notebooks``, notebook by notebook, in order."""
        return [q for nb in notebooks if nb in self.notebooks for q in self.notebooks[nb].questions]

    def max_score(self, notebook: str | None) -> float:
        return max_score(self.infos(notebook))

    def withheld(self) -> set[str]:
        """Questions whose grader messages a feedback page must not show (they may name
        values at hidden inputs of an instructor's own question)."""
        return {q for q, info in self.questions.items() if info.withheld}

    def register_authored(self) -> None:
        """Register an authored course's questions in this process (a grading worker)."""
        if self.authored:
            from .authoring import ensure_registered

            ensure_registered(self.authored_code, self.authored_public)


def max_score(infos: dict[str, QuestionInfo]) -> float:
    return float(sum(i.points for i in infos.values()))
