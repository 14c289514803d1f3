"""``tensorlab assign SOLUTIONS_DIR EXERCISES_DIR``: learner notebooks from the solutions.

A solution notebook marks its cells in metadata, ``cell.metadata["tensorlab"]``:

- ``{"role": "answer", "question": "<id>"}``: the code between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` (nbgrader's markers) is replaced by ``# YOUR CODE HERE`` and an
  instructive ``raise NotImplementedError("...")`` (the question's ``todo`` text);
- ``{"role": "check", "question": "<id>"}``: the learner's check cell (kept, made read-only,
  tagged ``raises-exception`` so that a failing check does not stop Run All);
- ``{"role": "hidden"}``: removed from the exercise (instructor-only material). Code between
  ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS`` is removed from any code cell.

Outputs and execution counts are cleared. ``release.json`` (the release, ``release.Release``) records, for
every question, the notebook, the answer cell's id and the name the answer is bound to; the
batch grader rebuilds submissions from it. Malformed markers raise ``AssignError`` with the
notebook, cell and line. Output is deterministic: assigning twice gives identical bytes.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from . import authoring
from .registry import for_notebook, get
from .release import RELEASE_FILE, RELEASE_FORMAT, NotebookInfo, QuestionInfo, Release

__all__ = ["RELEASE_FILE", "RELEASE_FORMAT", "AssignError", "AuthoringError", "assign"]
LINE_LENGTH = 100
_MARKER = re.compile(
    r"^(?P<indent>\s*)###\s*(?P<what>BEGIN|END) (?P<kind>SOLUTION|HIDDEN TESTS)\s*$"
)
_LOOSE = re.compile(r"(BEGIN|END)\s+(SOLUTION|HIDDEN\s+TESTS)", re.IGNORECASE)
_KEEP_CELL_METADATA = ("tensorlab", "tags", "editable", "deletable")


# A failing check raises ``CheckFailed``; tagged so, it does not stop Run All: JupyterLab and
# the classic Notebook then send the cell with ``stop_on_error=False`` (the kernel does not
# abort the cells queued after it), and nbclient and nbval let that cell raise.
RUN_ALL_TAG = "raises-exception"


class AssignError(ValueError):
    """A solution notebook cannot be turned into an exercise (malformed markers, bad metadata;
    ``tensorlab assign`` exits 2)."""


class AuthoringError(AssignError):
    """An instructor's own question cannot be released (``tensorlab assign`` exits 2)."""


@dataclass(frozen=True)
class Where:
    """A place in a solution notebook, for error messages."""

    notebook: str
    index: int
    cell_id: str

    def __str__(self) -> str:
        return f"{self.notebook}, cell {self.index} (id {self.cell_id})"


def _raise_lines(indent: str, todo: str) -> list[str]:
    """``raise NotImplementedError("todo")`` formatted as ruff would format it."""
    literal = json.dumps(todo, ensure_ascii=False)
    one = f"{indent}raise NotImplementedError({literal})"
    if len(one) <= LINE_LENGTH:
        return [one]
    return [f"{indent}raise NotImplementedError(", f"{indent}    {literal}", f"{indent})"]


def replace_regions(source: str, where: Where, todo: str | None) -> tuple[str, int]:
    """Source with solution regions replaced (``todo`` given) and hidden regions removed.

    Returns (new source, number of solution regions). Raises ``AssignError`` on malformed,
    unmatched or nested markers, and on solution markers when ``todo`` is None (not an answer
    cell).
    """
    out: list[str] = []
    open_kind: str | None = None
    open_line = 0
    regions = 0
    for n, line in enumerate(source.split("\n"), 1):
        m = _MARKER.match(line)
        if m is None:
            if _LOOSE.search(line) and line.lstrip().startswith("#"):
                raise AssignError(
                    f"{where}, line {n}: malformed marker {line.strip()!r}; write exactly "
                    "'### BEGIN SOLUTION' / '### END SOLUTION' (or '### BEGIN HIDDEN TESTS' / "
                    "'### END HIDDEN TESTS') on a line of its own"
                )
            if open_kind is None:
                out.append(line)
            continue
        what, kind, indent = m["what"], m["kind"], m["indent"]
        if what == "BEGIN":
            if open_kind is not None:
                raise AssignError(
                    f"{where}, line {n}: '### BEGIN {kind}' inside the '### BEGIN {open_kind}' "
                    f"region opened at line {open_line}; regions cannot be nested"
                )
            if kind == "SOLUTION":
                if todo is None:
                    raise AssignError(
                        f"{where}, line {n}: '### BEGIN SOLUTION' in a cell that is not an answer "
                        'cell; mark it with metadata {"tensorlab": {"role": "answer", '
                        '"question": "<id>"}}'
                    )
                out.append(f"{indent}# YOUR CODE HERE")
                out.extend(_raise_lines(indent, todo))
                regions += 1
            open_kind, open_line = kind, n
        else:
            if open_kind is None:
                raise AssignError(
                    f"{where}, line {n}: '### END {kind}' without a matching '### BEGIN {kind}'"
                )
            if kind != open_kind:
                raise AssignError(
                    f"{where}, line {n}: '### END {kind}' closes the '### BEGIN {open_kind}' "
                    f"region opened at line {open_line}"
                )
            open_kind = None
    if open_kind is not None:
        raise AssignError(
            f"{where}, line {open_line}: '### BEGIN {open_kind}' is never closed by "
            f"'### END {open_kind}'"
        )
    return "\n".join(out), regions


def _role(cell) -> tuple[str | None, str | None]:
    meta = cell.get("metadata", {}).get("tensorlab", {})
    if not isinstance(meta, dict):
        return None, None
    return meta.get("role"), meta.get("question")


def make_exercise(nb, name: str, authored: list | None = None):
    """(exercise notebook, release entry) for the solution notebook ``nb`` named ``name``.

    ``authored``: the (question, cell index) pairs the notebook declares (``authoring``), for
    an instructor's own notebook; its question cells are left out of the exercise."""
    import nbformat

    assignment = Path(name).stem
    own = {q.id: q for q, _ in authored} if authored is not None else None
    expected_ids = list(own) if own is not None else [q.id for q in for_notebook(assignment)]
    checks: set[str] = set()
    out = nbformat.v4.new_notebook()
    out.metadata = {
        "kernelspec": {
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
            "name": "python3",
        },
        "language_info": {"name": "python"},
        "tensorlab": {"assignment": assignment},
    }
    answers: dict[str, str] = {}
    written: dict[str, QuestionInfo] = {}
    seen_ids: set[str] = set()
    for index, cell in enumerate(nb.cells):
        cell_id = cell.get("id") or f"cell-{index}"
        where = Where(name, index, cell_id)
        if cell_id in seen_ids:
            raise AssignError(f"{where}: duplicate cell id")
        seen_ids.add(cell_id)
        role, qid = _role(cell)
        if role not in (None, *ROLES):
            raise AssignError(
                f"{where}: unknown tensorlab role {role!r} (the roles are {', '.join(ROLES)})"
            )
        if role == "written":
            info = _written(cell, where, name, qid, cell_id)
            if info.id in written or info.id in expected_ids:
                raise AssignError(f"{where}: a second answer cell for {info.id!r}")
            written[info.id] = info
            new = copy.deepcopy(cell)
            new["id"] = cell_id
            new["metadata"] = {"tensorlab": {"role": "written", "question": info.id}}
            new["source"] = _written_source(cell.source, where)
            out.cells.append(_points_cell(info, f"{cell_id}-points"[-64:]))
            out.cells.append(new)
            continue
        if role == "question" and own is None:
            raise AssignError(f"{where}: a question cell in a notebook without questions")
        if role == "question" and qid in own:
            # the learner sees what the question is worth (never typed by hand, never stale)
            # and its prompt, where the instructor's declaration was
            out.cells.append(_points_cell(own[qid], cell_id))
            continue
        if role in ("hidden", "question"):
            continue
        new = copy.deepcopy(cell)
        new["id"] = cell_id
        new["metadata"] = {
            k: v for k, v in cell.get("metadata", {}).items() if k in _KEEP_CELL_METADATA
        }
        if role in ("answer", "check"):
            if not qid:
                raise AssignError(f"{where}: a {role} cell needs a 'question' id in its metadata")
            try:
                q = own[qid] if own is not None else get(qid)
            except KeyError:
                if own is not None:
                    raise AuthoringError(
                        f"{where}: {role} cell for {qid!r}, a question this notebook does not "
                        "declare (declare it with question(...) in a question cell)"
                    ) from None
                raise AssignError(f"{where}: unknown question id {qid!r}") from None
            if role == "check":
                checks.add(qid)
            if q.notebook != assignment:
                raise AssignError(f"{where}: question {qid!r} belongs to notebook {q.notebook!r}")
        if cell.cell_type == "code":
            todo = q.todo if role == "answer" else None
            source, regions = replace_regions(cell.source, where, todo)
            if role == "answer":
                if regions == 0:
                    raise AssignError(
                        f"{where}: answer cell for {qid!r} has no '### BEGIN SOLUTION'"
                    )
                if qid in answers:
                    raise AssignError(f"{where}: a second answer cell for {qid!r}")
                answers[qid] = cell_id
            new["source"] = source
            new["outputs"] = []
            new["execution_count"] = None
        elif role == "answer":
            raise AssignError(f"{where}: answer cells must be code cells")
        elif _LOOSE.search(cell.source):
            raise AssignError(f"{where}: solution markers in a {cell.cell_type} cell")
        if role == "check":
            new["metadata"]["editable"] = False
            new["metadata"]["deletable"] = False
            new["metadata"]["tags"] = _with_tag(cell, RUN_ALL_TAG, where)
        out.cells.append(new)
    missing = [qid for qid in expected_ids if qid not in answers]
    if missing:
        raise AssignError(f"{name}: no answer cell for question(s) {', '.join(missing)}")
    for q, index in authored or ():
        if q.id not in checks:
            raise AuthoringError(
                f"{name}, cell {index}: question {q.id!r} has no check cell (a code cell "
                f'tensorlab.check("{q.id}") with metadata {{"tensorlab": {{"role": "check", '
                f'"question": "{q.id}"}}}})'
            )
    nbformat.validate(out)
    questions = {}
    for qid in expected_ids:
        q = own[qid] if own is not None else get(qid)
        questions[qid] = QuestionInfo(
            id=qid,
            notebook=name,
            cell_id=answers[qid],
            name=q.name,
            kind=q.kind,
            points=q.points,
            partial=bool(getattr(q, "partial", False)),
            # an authored question's feedback files hide values at hidden inputs
            withheld=own is not None and not getattr(q, "reveal", False),
            assessment=q.assessment,
            title=q.title,
        )
    questions.update(written)
    return out, {"assignment": assignment, "questions": questions}


def _with_tag(cell, tag: str, where: Where) -> list[str]:
    """The cell's tags (``metadata.tags``, a list of strings) with ``tag`` added once."""
    tags = cell.get("metadata", {}).get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise AssignError(f"{where}: 'tags' in the cell's metadata must be a list of strings")
    return [t for t in tags if t != tag] + [tag]


def _points_cell(q, cell_id: str):
    import nbformat

    head = f"**{q.title or q.id}** · {q.points:g} point{'' if q.points == 1 else 's'}"
    if q.assessment not in ("free", "written"):
        head += f" · {q.assessment}"
    if getattr(q, "partial", False):
        head += " · partial credit per input"
    if getattr(q, "kind", "") == "written":
        head += " (scored by a person: write your answer in the cell below)"
    prompt = getattr(q, "prompt", "")
    cell = nbformat.v4.new_markdown_cell(head + (f"\n\n{prompt}" if prompt else ""))
    cell["id"] = cell_id
    return cell


ROLES = ("answer", "check", "hidden", "question", "written")


def _written(cell, where: Where, name: str, qid, cell_id: str) -> QuestionInfo:
    """A written-answer question's release entry, from its cell's metadata (``written``)."""
    from .written import rubric_items

    meta = cell.get("metadata", {}).get("tensorlab", {})
    if cell.get("cell_type") != "markdown":
        raise AssignError(f"{where}: a written answer cell must be a markdown cell")
    if not isinstance(qid, str) or not qid:
        raise AssignError(f"{where}: a written cell needs a 'question' id in its metadata")
    points = meta.get("points", 1)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise AssignError(f"{where}: 'points' of {qid!r} must be a number >= 0")
    try:
        rubric = rubric_items(meta.get("rubric"))
    except ValueError as e:
        raise AssignError(f"{where}: {e}") from None
    title = meta.get("title", "")
    if not isinstance(title, str):
        raise AssignError(f"{where}: 'title' of {qid!r} must be a string")
    return QuestionInfo(
        id=qid,
        notebook=name,
        cell_id=cell_id,
        name="",
        kind="written",
        points=float(points),
        assessment="written",
        title=title,
        rubric=rubric,
    )


def _written_source(source: str, where: Where) -> str:
    """A written cell as learners get it: the model answer (between the solution markers, or
    the whole cell) replaced by ``YOUR ANSWER HERE``."""
    from .written import PLACEHOLDER

    if not _LOOSE.search(source):
        return PLACEHOLDER
    text, regions = replace_regions(source, where, "")
    lines = [PLACEHOLDER if ln.strip() == "# YOUR CODE HERE" else ln for ln in text.split("\n")]
    return "\n".join(ln for ln in lines if "raise NotImplementedError" not in ln)


def notebook_bytes(nb) -> bytes:
    """The canonical serialisation of a notebook (stable across runs)."""
    import nbformat

    text = nbformat.writes(nb, version=4)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and ``os.replace``, each made durable:
    the file is fsynced before the rename and its folder after it (whole after a power cut)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    """Make a folder's entries (a rename, a new file) durable; a no-op where unsupported."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def assign(solutions_dir: str | os.PathLike, exercises_dir: str | os.PathLike) -> Release:
    """Generate the exercises and ``release.json`` from every ``*.ipynb`` in ``solutions_dir``.

    Nothing is written unless every notebook is valid. Returns the release.
    """
    import nbformat

    src, dst = Path(solutions_dir), Path(exercises_dir)
    paths = sorted(p for p in src.glob("*.ipynb") if not p.name.startswith("."))
    if not paths:
        raise AssignError(f"no notebooks in {src}")
    outputs: dict[str, bytes] = {}
    release = Release(notebooks={}, questions={}, tensorlab_version=__version__)
    checks: dict[str, dict] = {}
    authored_nbs: dict[str, str] = {}
    for path in paths:
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception as e:  # noqa: BLE001 - any unreadable notebook is an assign error
            raise AssignError(f"{path.name}: cannot read notebook: {e}") from None
        authored = None
        if authoring.is_authored(nb):
            authored = _load_authored(nb, path.name, set(release.questions) | set(checks))
            for q, _ in authored:
                checks[q.id] = authoring.check_data(q)
            authored_nbs[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()
        exercise, entry = make_exercise(nb, path.name, authored)
        data = notebook_bytes(exercise)
        outputs[path.name] = data
        release.notebooks[path.name] = NotebookInfo(
            path.name,
            entry["assignment"],
            hashlib.sha256(data).hexdigest(),
            tuple(entry["questions"]),
        )
        for qid, info in entry["questions"].items():
            if qid in release.questions:
                raise AssignError(f"{path.name}: question {qid!r} also appears in another notebook")
            release.questions[qid] = info
    if authored_nbs:  # the solution notebooks' hashes (never their folder: release.json goes
        # to learners; `grade` finds the solutions beside the exercises, or --solutions)
        release.authored = {"notebooks": authored_nbs}
    dst.mkdir(parents=True, exist_ok=True)
    for name, data in outputs.items():
        write_atomic(dst / name, data)
    if checks:
        doc = {"format": RELEASE_FORMAT, "questions": checks}
        text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
        write_atomic(dst / authoring.CHECKS_FILE, text.encode("utf-8"))
    write_atomic(dst / RELEASE_FILE, release.dumps().encode("utf-8"))
    release.folder = str(dst)
    return release


def _load_authored(nb, name: str, taken: set[str]) -> list:
    """The questions an instructor's notebook declares, validated: ``AuthoringError`` names
    the notebook and cell (duplicate ids, a reference that raises on its own inputs, a
    misconception equal to the reference, unseeded randomness)."""
    from .registry import all_questions

    builtin = {q.id for q in all_questions()}
    try:
        found = authoring.load_code(authoring.notebook_code(nb), name)
    except authoring.LoadError as e:
        raise AuthoringError(f"{name}, cell {e.index}: running the solution failed: {e}") from None
    if not found:
        raise AuthoringError(f"{name}: its question cells declare no question (call question(...))")
    seen: set[str] = set()
    for q, index in found:
        where = f"{name}, cell {index} (question {q.id!r})"
        if q.id in seen or q.id in taken:
            raise AuthoringError(f"{where}: duplicate question id {q.id!r}")
        if q.id in builtin:
            raise AuthoringError(f"{where}: {q.id!r} is the id of a built-in question")
        seen.add(q.id)
        problem = authoring.validate(q)
        if problem:
            raise AuthoringError(f"{where}: {problem}")
    return found


def load_release(release_dir: str | os.PathLike, *, full: bool = False) -> Release:
    """The release of an exercises directory (``release.json``; see ``Release.load``)."""
    return Release.load(release_dir, full=full)
