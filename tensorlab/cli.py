"""The ``tensorlab`` command: ``start``, ``assign``, ``collect``, ``grade``, ``check``, ``report``,
``export``, ``override``, ``late``, ``written`` (the last three: ``grading.term_cli``).

Exit statuses, the same for every command (README, "Exit statuses"):

====  ===========================================================================================
0     done: the command did all it was asked (``check``: every question passed; ``grade``: every
      submission recorded, broken ones included)
1     it ran, and the answer is no: ``check`` found a question failed or not attempted, or the
      command could not do its work (an unreadable release, an unwritable output folder, a
      grader error, JupyterLab cannot start)
2     usage: an unknown option, a missing or wrong path, a malformed input file
130   interrupted (Ctrl-C); 143: terminated (SIGTERM). ``grade`` undoes its run first
====  ===========================================================================================
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._version import __version__
from .course import DEFAULT_DIR as DEFAULT_COURSE_DIR

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED = 0, 1, 2, 130, 143


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def _memory(text: str) -> int:
    from .grading.grade import parse_size

    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _default_release(hint: Path | None = None) -> str:
    """``./exercises`` or, for ``check``, the notebook's own folder when it holds release.json."""
    if hint is not None and (hint / "release.json").is_file():
        return str(hint)
    return "exercises"


def _usage_error(command: str, message: str) -> int:
    from .grading.text import terminal

    print(terminal(f"tensorlab {command}: error: {message}"), file=sys.stderr)
    return 2


def _bad_path(path: str, *, folders: bool) -> str | None:
    """Why ``path`` cannot be graded (missing, or not a notebook/folder), else None."""
    p = Path(path)
    if not p.exists():
        return f"{path}: no such file or folder" if folders else f"{path}: no such file"
    if p.is_dir():
        return None if folders else f"{path} is a folder, not a notebook (.ipynb)"
    if p.suffix != ".ipynb" or not p.is_file():
        kind = "a notebook (.ipynb) or a folder of them" if folders else "a notebook (.ipynb)"
        return f"{path} is not {kind}"
    return None


def _sandbox_note(command: str, mode: str) -> None:
    if mode == "none":
        print(
            f"tensorlab {command}: WARNING: kernels run WITHOUT the sandbox (--sandbox none): "
            "student code can read the references and other files, use the network and write "
            "anywhere this user can",
            file=sys.stderr,
        )
        return
    from .grading.cgroups import probe

    reason = probe()
    if reason is not None:  # said once per run; the per-process limits stay
        print(f"tensorlab {command}: note: {reason}", file=sys.stderr)


def cmd_assign(args) -> int:
    from .grading.assign import AssignError, assign

    try:
        release = assign(args.solutions_dir, args.exercises_dir)
    except AssignError as e:  # a malformed solution notebook: exit 2, as every bad input
        print(f"tensorlab assign: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # the exercises folder cannot be written
        print(f"tensorlab assign: error: {e}", file=sys.stderr)
        return 1
    n_nb, n_q = len(release.notebooks), len(release.questions)
    print(
        f"wrote {n_nb} exercise notebooks ({n_q} questions) and release.json to {args.exercises_dir}"
    )
    return 0


class _Terminated(KeyboardInterrupt):
    """SIGTERM (a batch scheduler, ``kill``): handled like Ctrl-C, the run is undone."""


def _on_sigterm(exc: type[BaseException]):
    """Raise ``exc`` on SIGTERM from now on; returns what restores the previous handler."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        raise exc()

    previous = signal.signal(signal.SIGTERM, handler)
    return lambda: signal.signal(signal.SIGTERM, previous)


def cmd_grade(args) -> int:
    from .grading.cluster import ClusterUnavailable
    from .grading.grade import grade
    from .grading.lms import looks_like_download
    from .grading.sandbox import SandboxUnavailable, resolve
    from .grading.text import terminal

    for path in args.submissions:
        problem = _bad_path(path, folders=True)
        if problem:
            return _usage_error("grade", problem)
        lms = looks_like_download(path)
        if lms is not None:
            return _usage_error(
                "grade",
                f"{path} is laid out as a {lms.capitalize()} download, not a class folder of "
                f"<student>/<NN_topic>.ipynb: run `tensorlab collect {path} --out CLASS` "
                "first, then grade CLASS",
            )
    if Path(args.out).exists() and not Path(args.out).is_dir():
        return _usage_error("grade", f"--out {args.out} exists and is not a folder")
    release = args.release or _default_release()
    if args.release is None and not (Path(release) / "release.json").is_file():
        return _usage_error(
            "grade",
            "no --release given, and ./exercises holds no release.json: pass --release DIR, "
            "the exercises folder `tensorlab assign` wrote (the one holding release.json)",
        )
    try:
        mode = resolve(args.sandbox)
    except SandboxUnavailable as e:
        print(f"tensorlab grade: error: {e}", file=sys.stderr)
        return 1
    _sandbox_note("grade", mode)
    restore = _on_sigterm(_Terminated)
    try:
        summary = grade(
            args.submissions,
            args.out,
            release,
            jobs=args.jobs,
            cell_timeout=args.cell_timeout,
            timeout=args.timeout,
            memory=args.memory,
            seed=args.seed,
            progress=not args.quiet,
            sandbox=mode,
            cluster=args.cluster,
            solutions=args.solutions,
            need_solutions=True,
        )
    except ClusterUnavailable as e:
        return _usage_error("grade", str(e))
    except KeyboardInterrupt as e:
        what = "terminated" if isinstance(e, _Terminated) else "interrupted"
        print(
            f"tensorlab grade: {what}: no grades were written (this run's files were "
            f"undone: {args.out} is as it was before)",
            file=sys.stderr,
        )
        return 143 if isinstance(e, _Terminated) else 130
    except (OSError, ValueError, KeyError) as e:
        print(f"tensorlab grade: error: {e}", file=sys.stderr)
        return 1
    finally:
        restore()
    print(
        f"graded {summary['submissions']} submissions from {summary['students']} students in "
        f"{summary['seconds']:.1f} s (seed {summary['seed']}, sandbox {mode}); results in "
        f"{args.out}"
    )
    not_graded = summary.get("not_graded") or []
    for line in not_graded[:20]:
        print(f"not graded: {terminal(line)}")
    if len(not_graded) > 20:
        print(f"not graded: ... and {len(not_graded) - 20} more")
    for rec in summary["grader_errors"]:
        print(
            f"warning: {terminal(rec['path'])} could not be graded (recorded as lost, "
            f"{rec.get('max_score', 0):g} points): {terminal(rec['reason'])}",
            file=sys.stderr,
        )
    return 0


def cmd_check(args) -> int:
    import tempfile

    from .grading.grade import grade
    from .grading.sandbox import SandboxUnavailable, resolve
    from .grading.text import terminal

    for path in args.notebooks:
        problem = _bad_path(path, folders=False)
        if problem:
            return _usage_error("check", problem)
    try:
        mode = resolve(args.sandbox, fallback=True)
    except SandboxUnavailable as e:
        print(f"tensorlab check: error: {e}", file=sys.stderr)
        return 1
    first = Path(args.notebooks[0]).resolve().parent
    with tempfile.TemporaryDirectory() as out:
        try:
            release = args.release or _release_for_check(first, Path(out) / "release")
            summary = grade(
                args.notebooks,
                str(Path(out) / "results"),
                release,
                jobs=1,
                cell_timeout=args.cell_timeout,
                timeout=args.timeout,
                memory=args.memory,
                seed=0,
                progress=False,
                sandbox=mode,
            )
        except (OSError, ValueError, KeyError) as e:
            print(f"tensorlab check: error: {e}", file=sys.stderr)
            return 1
    passed = total = unchecked = 0
    whole = True  # every notebook ran to its end
    for rec in summary["records"]:  # what a notebook or a file name holds is escaped
        print(f"{terminal(rec['path'])}: {rec.get('score', 0):g}/{rec.get('max_score', 0):g}")
        if rec.get("reason"):
            whole = False
            print(f"  {terminal(rec['reason'])}")
        for qid, q in rec.get("questions", {}).items():
            if q["status"] == "needs_grading":  # a written answer: a person will score it
                print(f"  ✎ {qid:<28} written: scored by your instructor")
                continue
            total += 1
            passed += q["status"] == "passed"
            unchecked += q["status"] == "unchecked"  # no self-check: neither passed nor failed
            mark = {"passed": "✓", "unchecked": "?"}.get(q["status"], "✗")
            line = f"  {mark} {qid:<28} {q['status']}"
            if q["status"] != "passed" and q.get("message"):
                line += f": {terminal(q['message'])}"
            print(line)
            if q.get("misconception_message"):
                print(f"      likely misconception: {q['misconception_message']}")
    if whole and passed + unchecked == total:
        if unchecked:
            print(f"all {passed} checked questions passed ({unchecked} with no self-check)")
        else:
            print(f"all {total} questions passed")
        return EXIT_OK
    print(f"{passed} of {total} questions passed" + ("" if whole else "; a notebook was lost"))
    return EXIT_FAILED


def _release_for_check(folder: Path, scratch: Path) -> str:
    """The release to check against when ``--release`` is not given.

    The notebook's folder when it holds ``release.json`` (else ``./exercises``, else the course
    shipped with tensorlab). A learner answers *in* the released notebooks, so their bytes no
    longer match ``release.json``; the pristine templates are then taken from the course shipped
    with tensorlab when their hashes match, in a scratch copy of the release.
    """
    import dataclasses
    import hashlib
    import shutil

    from .course import CourseError, course_root
    from .grading.assign import RELEASE_FILE, load_release

    try:
        shipped: Path | None = course_root() / "exercises"
    except CourseError:
        shipped = None
    candidates = [folder, Path("exercises"), shipped]
    local = next((c for c in candidates if c is not None and (c / RELEASE_FILE).is_file()), None)
    if local is None:
        return _default_release(folder)  # grade() reports the missing release.json

    def sha(path: Path) -> str | None:
        try:
            return hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return None

    release = load_release(local)
    if all(sha(local / name) == info.sha256 for name, info in release.notebooks.items()):
        return str(local)
    scratch.mkdir(parents=True)
    for name, info in list(release.notebooks.items()):
        sources = [local / name] + ([shipped / name] if shipped is not None else [])
        pristine = next((p for p in sources if sha(p) == info.sha256), local / name)
        if pristine.is_file():
            shutil.copyfile(pristine, scratch / name)
            if sha(pristine) != info.sha256 and release.authored:
                # your own course answered in place: no pristine copy anywhere; the answered
                # notebook is the template (a self-check: only your own code runs)
                release.notebooks[name] = dataclasses.replace(info, sha256=sha(pristine))
    (scratch / RELEASE_FILE).write_text(release.dumps())
    for extra in ("tensorlab-checks.json",):  # an authored course's public checks
        if (local / extra).is_file():
            shutil.copyfile(local / extra, scratch / extra)
    return str(scratch)


# ---------------------------------------------------------------------------- start
def cmd_start(args) -> int:
    from .course import (
        CourseError,
        lab_command,
        lab_preflight,
        opens_no_browser,
        prepare_course,
        run_lab,
        serve_lab,
    )

    try:
        report = prepare_course(args.dir, update=args.update)
    except CourseError as e:
        print(f"tensorlab start: error: {e}", file=sys.stderr)
        return EXIT_FAILED
    for line in report.lines():
        print(line)
    extra = list(args.lab_args)
    problem = lab_preflight(report.dest, port=args.port, no_browser=args.no_browser, extra=extra)
    if problem:
        print(f"tensorlab start: error: {problem}", file=sys.stderr)
        return EXIT_FAILED
    serve_only, note = opens_no_browser(args.no_browser, extra)
    if note:
        print(note)
    cmd = lab_command(report.dest, port=args.port, no_browser=serve_only, extra=extra)
    print(f"starting JupyterLab in {report.dest} (stop it with Ctrl-C)", flush=True)
    if serve_only:
        return serve_lab(cmd, report.dest)
    return run_lab(cmd, report.dest)


# ---------------------------------------------------------------------------- parser
DESCRIPTION = (
    "tensorlab: the course (start) and its exercises' grading tools (assign, grade, check). "
    "Run `tensorlab COMMAND --help` for a command's options."
)
GRADE_DESCRIPTION = (
    "Grade submitted notebooks: each is rebuilt from the released template (only the answer "
    "cells are taken), run in a fresh kernel inside an OS sandbox (bubblewrap) with time and "
    "memory limits, and judged against references the kernel never sees. SUBMISSIONS are "
    "notebooks or class folders of <student>/<NN_topic>.ipynb. Writes DIR/<student>.json as "
    "each student completes and DIR/gradebook.csv, atomically (students already in DIR keep "
    "their rows); Ctrl-C or SIGTERM undoes the run. Broken submissions are recorded, never "
    "fatal: the exit status is 0 when every submission was recorded, 1 when the grader itself "
    "fails, 2 for a usage error, 130/143 when interrupted."
)
COLLECT_DESCRIPTION = (
    "Turn an LMS's bulk download of an assignment (Canvas: Download Submissions; Moodle: "
    "Download all submissions, with or without folders) into a class folder CLASS/<student>/"
    "<NN_topic>.ipynb that `tensorlab grade` reads. Each student's LMS identity (Canvas user "
    "id or Moodle participant id, name, Canvas's late flag) is kept in CLASS/<student>/"
    ".tensorlab-submission.json and CLASS/roster.csv (for `tensorlab export`). Renamed "
    "notebooks (04_strides (1).ipynb, Copy of ..., -Copy1, Canvas's -1 of a second upload) "
    "are saved under the released name; of several copies the newest upload is used. A "
    "download laid out as neither LMS names its files is an error (exit 2)."
)
EXPORT_DESCRIPTION = (
    "Write the grades in DIR for a learning management system. With --gradebook, fill the "
    "LMS's own file so the columns are its assignments: Canvas's gradebook export (each "
    "notebook goes to the assignment column 'Name (id)' named like it, or --column; scores "
    "scaled to its Points Possible; EX kept) or a Moodle assignment's grading worksheet "
    "(Grade by Identifier 'Participant N', scaled to Maximum Grade). Without it, write a new "
    "import CSV: canvas (Student, ID, SIS User ID, SIS Login ID, Section, a column per "
    "notebook), moodle (CSV grade import by Email address / ID number), gradescope (Name, SID, "
    "Email, Score). Students on the roster or in the LMS's file with no submission get 0. "
    "Identities come from --roster (column 'student' plus canvas_id / sis_user_id / "
    "sis_login_id, email / id_number / moodle_participant, sid) or from what `tensorlab "
    "collect` kept. Exit 1 when a graded student cannot be matched (unless "
    "--allow-unmatched), 2 for a missing or malformed roster or gradebook."
)
CHECK_DESCRIPTION = (
    "Grade your own notebook(s) exactly as `tensorlab grade` would and print each question's "
    "verdict with the likely misconception. Uses the release.json next to the notebook (the "
    "pristine templates shipped with tensorlab when you answered in place), else ./exercises."
)
ASSIGN_DESCRIPTION = (
    "Generate the learner notebooks and release.json from the solution notebooks: solution "
    "regions become `# YOUR CODE HERE` stubs, hidden cells and hidden tests are removed. "
    "Nothing is written unless every notebook is valid; the output is byte-for-byte "
    "reproducible."
)
EXIT_EPILOG = (
    "Exit status: 0 done; 1 the command ran and the answer is no (check: a question failed or "
    "was not attempted) or it could not do its work; 2 usage error; 130/143 interrupted."
)
START_DESCRIPTION = (
    "Copy the lessons and exercises into DIR (never overwriting a file you already have) and "
    "open JupyterLab there."
)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tensorlab", description=DESCRIPTION, epilog=EXIT_EPILOG)
    p.add_argument("--version", action="version", version=f"tensorlab {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser(
        "start",
        help="copy the lessons and exercises into DIR and open JupyterLab there",
        description=START_DESCRIPTION,
        epilog="Arguments after `--` go to `jupyter lab` unchanged, e.g. "
        "`tensorlab start -- --ServerApp.ip=0.0.0.0`.",
    )
    s.add_argument(
        "dir",
        nargs="?",
        default=DEFAULT_COURSE_DIR,
        metavar="DIR",
        help="the course folder (default: %(default)s)",
    )
    s.add_argument("--port", type=int, help="JupyterLab's port (default: JupyterLab's own, 8888)")
    s.add_argument(
        "--no-browser", action="store_true", help="do not open a browser (default: open one)"
    )
    s.add_argument(
        "--update",
        action="store_true",
        help="add the lessons and exercises that are new in this version of tensorlab "
        "(default: copy nothing into a folder that already has the course)",
    )
    s.set_defaults(func=cmd_start, lab_args=[])

    a = sub.add_parser(
        "assign",
        help="generate exercises/ and release.json from solutions/",
        description=ASSIGN_DESCRIPTION,
    )
    a.add_argument("solutions_dir", metavar="SOLUTIONS", help="folder of solution notebooks")
    a.add_argument(
        "exercises_dir", metavar="EXERCISES", help="folder to write the exercises and release.json"
    )
    a.set_defaults(func=cmd_assign)

    def limits(sp, release_help: str) -> None:
        sp.add_argument("--release", metavar="DIR", help=release_help)
        sp.add_argument(
            "--cell-timeout",
            type=_positive_float,
            default=30.0,
            metavar="S",
            help="seconds each cell may run (default: 30)",
        )
        sp.add_argument(
            "--timeout",
            type=_positive_float,
            default=600.0,
            metavar="S",
            help="seconds each notebook may run in all (default: 600)",
        )
        sp.add_argument(
            "--memory",
            type=_memory,
            default=4 * 2**30,
            metavar="SIZE",
            help="memory cap per kernel, e.g. 512M, 4G; 0 for no cap (default: 4G)",
        )

    k = sub.add_parser(
        "collect",
        help="turn a Canvas or Moodle bulk download into a class folder (and its roster)",
        description=COLLECT_DESCRIPTION,
    )
    k.add_argument(
        "download",
        metavar="DOWNLOAD",
        help="the zip Canvas (Download Submissions) or Moodle (Download all submissions) "
        "gave you, or the folder it unpacks to",
    )
    k.add_argument(
        "--out", required=True, metavar="CLASS", help="the class folder to write (required)"
    )
    k.add_argument(
        "--lms",
        choices=("auto", "canvas", "moodle"),
        default="auto",
        help="which LMS made the download (default: auto, from its file names)",
    )
    k.add_argument(
        "--notebook",
        metavar="NAME",
        help="the released notebook this download is the assignment of: a student's only "
        "notebook is saved under this name whatever they called it (default: names are "
        "matched to the released notebooks)",
    )
    k.add_argument(
        "--release",
        metavar="DIR",
        help="the released exercises folder, holding release.json (default: ./exercises)",
    )
    k.set_defaults(func=cmd_collect)

    g = sub.add_parser(
        "grade",
        help="grade submitted notebooks in sandboxed kernels",
        description=GRADE_DESCRIPTION,
    )
    g.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSIONS",
        help="notebooks, or class folders of <student>/<NN_topic>.ipynb",
    )
    g.add_argument("--out", required=True, metavar="DIR", help="folder for the grades (required)")
    g.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="kernels run in parallel (default: 1)"
    )
    g.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="N",
        help="seed for the hidden inputs (default: the seed an earlier run recorded in DIR, "
        "else random; recorded in the grade files)",
    )
    g.add_argument(
        "--sandbox",
        choices=("auto", "none"),
        default="auto",
        help="auto: every kernel in the bubblewrap sandbox, refusing to run if it is not "
        "usable; none: no sandbox, only for code you trust (default: auto)",
    )
    g.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="grade on a Dask cluster: tcp://HOST:PORT of a scheduler, or local:N worker "
        "processes here; needs Dask: pip install 'tensorlab-course[cluster]' (default: this "
        "machine, --jobs kernels)",
    )
    g.add_argument(
        "--quiet", action="store_true", help="no progress bar (default: show the progress bar)"
    )
    g.add_argument(
        "--solutions",
        metavar="DIR",
        help="your own questions' solution notebooks, the folder you gave `tensorlab assign` "
        "(default: the folder 'solutions' beside the --release folder)",
    )
    limits(g, "the released exercises folder, holding release.json (default: ./exercises)")
    g.set_defaults(func=cmd_grade)

    c = sub.add_parser(
        "check",
        help="grade your own notebook(s) and print the result",
        description=CHECK_DESCRIPTION,
    )
    c.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="your notebook(s) (.ipynb)")
    c.add_argument(
        "--sandbox",
        choices=("auto", "none"),
        default="auto",
        help="auto: the bubblewrap sandbox when it is usable, else none; none: run your "
        "notebook without it (default: auto)",
    )
    limits(
        c,
        "the released exercises folder (default: the notebook's folder when it holds "
        "release.json, else ./exercises, else the exercises shipped with tensorlab)",
    )
    c.set_defaults(func=cmd_check)

    r = sub.add_parser(
        "report",
        help="write DIR/report.html: how the class did (distributions, misconceptions)",
        description="Read the grade files in DIR (written by `tensorlab grade --out DIR`) and "
        "write DIR/report.html: score distributions per notebook and question, the most common "
        "misconceptions, questions nobody solved, lost and killed notebooks (one self-contained "
        "file, plots embedded); print a short summary.",
    )
    r.add_argument("dir", metavar="DIR", help="the folder `tensorlab grade` wrote")
    r.set_defaults(func=cmd_report)

    e = sub.add_parser(
        "export",
        help="write the grades in DIR into the LMS's gradebook file (Canvas, Moodle) or a new "
        "import CSV (Canvas, Moodle, Gradescope)",
        description=EXPORT_DESCRIPTION,
    )
    e.add_argument("dir", metavar="DIR", help="the folder `tensorlab grade` wrote")
    e.add_argument(
        "--format",
        required=True,
        choices=("canvas", "moodle", "gradescope"),
        help="the LMS whose import format to write (required)",
    )
    e.add_argument(
        "--gradebook",
        metavar="FILE",
        help="the LMS's own file to fill: Canvas's gradebook export (Grades > Export) or a "
        "Moodle assignment's grading worksheet (default: write a new import file)",
    )
    e.add_argument(
        "--roster",
        metavar="ROSTER.csv",
        help="CSV mapping the column 'student' (folder names) to LMS identities (default: the "
        "identities `tensorlab collect` kept beside each student's notebooks)",
    )
    e.add_argument("--out", required=True, metavar="FILE", help="the CSV file to write (required)")
    e.add_argument(
        "--per-question",
        action="store_true",
        help="a column per question too; in a Moodle grading worksheet, the questions' points "
        "go into Feedback comments (default: a column per notebook)",
    )
    e.add_argument(
        "--notebook",
        metavar="NAME",
        help="the notebook a Moodle grading worksheet is the assignment of (default: the only "
        "notebook graded in DIR)",
    )
    e.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="NOTEBOOK=NAME",
        help="the Canvas assignment a notebook goes to, when its name differs from the "
        "notebook's; repeatable; NAME may be 'Name (id)' or the id (default: the assignment "
        "named like the notebook)",
    )
    e.add_argument(
        "--feedback-zip",
        metavar="ZIP",
        help="also write the feedback pages as the zip Moodle's 'Upload multiple feedback "
        "files in a zip' takes, with --format moodle (default: no zip)",
    )
    e.add_argument(
        "--allow-unmatched",
        action="store_true",
        help="export the students the roster has even when others are not in it (default: "
        "fail, writing nothing)",
    )
    e.set_defaults(func=cmd_export)

    from .grading.term_cli import add_parsers

    add_parsers(sub)  # override, late, written (the instructor's term)
    return p


def cmd_collect(args) -> int:
    from .grading.lms import LayoutError, collect_download, summary_lines
    from .grading.release import Release

    if not Path(args.download).exists():
        return _usage_error("collect", f"{args.download}: no such file or folder")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        return _usage_error("collect", f"--out {args.out} exists and is not a folder")
    release_dir = args.release or _default_release()
    try:
        release = Release.load(release_dir)
    except (OSError, ValueError, KeyError) as e:
        return _usage_error("collect", f"cannot read the release in {release_dir}: {e}")
    try:
        summary = collect_download(
            args.download, args.out, release, lms=args.lms, notebook=args.notebook
        )
    except (LayoutError, ValueError) as e:
        return _usage_error("collect", str(e))
    except OSError as e:
        print(f"tensorlab collect: error: {e}", file=sys.stderr)
        return 1
    lines = summary_lines(summary, args.out)
    print(lines[0])
    for line in lines[1:]:
        print(line, file=sys.stderr)
    return 0


def cmd_report(args) -> int:
    from .grading.pages import summary_lines, write_report
    from .grading.text import terminal

    if not Path(args.dir).is_dir():
        return _usage_error("report", f"{args.dir} is not a folder")
    try:
        path, summary = write_report(args.dir)
    except (OSError, ValueError) as e:
        print(f"tensorlab report: error: {e}", file=sys.stderr)
        return 1
    for line in summary_lines(summary):
        print(terminal(line))
    print(f"wrote {path}")
    return 0


def cmd_export(args) -> int:
    from .grading.export import RosterError, Unmatched, export
    from .grading.text import terminal

    if not Path(args.dir).is_dir():
        return _usage_error("export", f"{args.dir} is not a folder")
    columns = {}
    for item in args.column:
        nb, sep, name = item.partition("=")
        if not sep or not nb.strip() or not name.strip():
            return _usage_error("export", f"--column {item}: expected NOTEBOOK=NAME")
        columns[nb.strip()] = name.strip()
    try:
        done = export(
            args.dir,
            args.format,
            args.roster,
            args.out,
            allow_unmatched=args.allow_unmatched,
            gradebook=args.gradebook,
            per_question=args.per_question,
            notebook=args.notebook,
            columns=columns,
            feedback_zip=args.feedback_zip,
        )
    except RosterError as e:
        return _usage_error("export", str(e))
    except Unmatched as e:
        where = args.roster or args.gradebook or "the collected identities"
        print(
            terminal(
                f"tensorlab export: error: not in {where}: {e} (nothing written; add them, or "
                "pass --allow-unmatched)"
            ),
            file=sys.stderr,
        )
        return 1
    except (OSError, ValueError) as e:
        print(terminal(f"tensorlab export: error: {e}"), file=sys.stderr)
        return 1
    print(terminal(f"wrote {done['rows']} students to {args.out} ({args.format})"))
    if done["feedback"]:
        print(
            terminal(
                f"wrote the feedback pages to {args.feedback_zip} (Moodle's feedback files zip)"
            )
        )
    for note in done["notes"]:
        print(f"note: {terminal(note)}", file=sys.stderr)
    for student in done["unmatched"]:
        print(f"warning: not in the roster, not exported: {terminal(student)}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tensorlab`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    lab_args: list[str] = []
    if argv[:1] == ["start"] and "--" in argv:  # `tensorlab start DIR -- <jupyter lab args>`
        cut = argv.index("--")
        argv, lab_args = argv[:cut], argv[cut + 1 :]
    args = build_parser().parse_args(argv)
    if args.command == "start":
        args.lab_args = lab_args
    if getattr(args, "jobs", 1) < 1:
        print("tensorlab grade: error: --jobs must be >= 1", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
