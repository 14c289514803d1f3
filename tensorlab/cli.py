"""The ``tensorlab`` command: ``start``, ``assign``, ``grade``, ``check``.

Exit status: 0 on success, 1 when the command itself fails (an unreadable release, an
unwritable output directory, a grader error), 2 for usage errors. Broken submissions are
recorded in the grade files and never change the exit status.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .course import DEFAULT_DIR as DEFAULT_COURSE_DIR


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


def cmd_assign(args) -> int:
    from .grading.assign import AssignError, assign

    try:
        manifest = assign(args.solutions_dir, args.exercises_dir)
    except AssignError as e:
        print(f"tensorlab assign: error: {e}", file=sys.stderr)
        return 1
    n_nb, n_q = len(manifest["notebooks"]), len(manifest["questions"])
    print(
        f"wrote {n_nb} exercise notebooks ({n_q} questions) and release.json to {args.exercises_dir}"
    )
    return 0


def cmd_grade(args) -> int:
    from .grading.grade import grade

    release = args.release or _default_release()
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
        )
    except (OSError, ValueError, KeyError) as e:
        print(f"tensorlab grade: error: {e}", file=sys.stderr)
        return 1
    print(
        f"graded {summary['submissions']} submissions from {summary['students']} students in "
        f"{summary['seconds']:.1f} s (seed {summary['seed']}); results in {args.out}"
    )
    for rec in summary["grader_errors"]:
        print(f"grader error on {rec['path']}: {rec['reason']}", file=sys.stderr)
    return 1 if summary["grader_errors"] else 0


def cmd_check(args) -> int:
    import tempfile

    from .grading.grade import grade

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
            )
        except (OSError, ValueError, KeyError) as e:
            print(f"tensorlab check: error: {e}", file=sys.stderr)
            return 1
    for rec in summary["records"]:
        print(f"{rec['path']}: {rec.get('score', 0):g}/{rec.get('max_score', 0):g}")
        if rec.get("reason"):
            print(f"  {rec['reason']}")
        for qid, q in rec.get("questions", {}).items():
            mark = "✓" if q["status"] == "passed" else "✗"
            line = f"  {mark} {qid:<28} {q['status']}"
            if q["status"] != "passed" and q.get("message"):
                line += f": {q['message']}"
            print(line)
            if q.get("misconception_message"):
                print(f"      likely misconception: {q['misconception_message']}")
    return 1 if summary["grader_errors"] else 0


def _release_for_check(folder: Path, scratch: Path) -> str:
    """The release to check against when ``--release`` is not given.

    The notebook's folder when it holds ``release.json`` (else ``./exercises``, else the course
    shipped with tensorlab). A learner answers *in* the released notebooks, so their bytes no
    longer match ``release.json``; the pristine templates are then taken from the course shipped
    with tensorlab when their hashes match, in a scratch copy of the release.
    """
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

    notebooks = load_release(local).get("notebooks", {})
    if all(sha(local / name) == info.get("sha256") for name, info in notebooks.items()):
        return str(local)
    scratch.mkdir(parents=True)
    shutil.copyfile(local / RELEASE_FILE, scratch / RELEASE_FILE)
    for name, info in notebooks.items():
        sources = [local / name] + ([shipped / name] if shipped is not None else [])
        pristine = next((p for p in sources if sha(p) == info.get("sha256")), local / name)
        if pristine.is_file():
            shutil.copyfile(pristine, scratch / name)
    return str(scratch)


# ---------------------------------------------------------------------------- start
def cmd_start(args) -> int:
    from .course import CourseError, lab_command, prepare_course, run_lab

    try:
        report = prepare_course(args.dir, update=args.update)
    except CourseError as e:
        print(f"tensorlab start: error: {e}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    cmd = lab_command(
        report.dest, port=args.port, no_browser=args.no_browser, extra=list(args.lab_args)
    )
    print(f"starting JupyterLab in {report.dest} (stop it with Ctrl-C)", flush=True)
    return run_lab(cmd, report.dest)


# ---------------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tensorlab", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("assign", help="generate exercises/ and release.json from solutions/")
    a.add_argument("solutions_dir")
    a.add_argument("exercises_dir")
    a.set_defaults(func=cmd_assign)

    def limits(sp, cell: float, total: float) -> None:
        sp.add_argument("--release", help="released exercises directory (default: ./exercises)")
        sp.add_argument("--cell-timeout", type=_positive_float, default=cell, metavar="S")
        sp.add_argument("--timeout", type=_positive_float, default=total, metavar="S")
        sp.add_argument("--memory", type=_memory, default=4 * 2**30, metavar="SIZE")

    g = sub.add_parser("grade", help="grade submitted notebooks in fresh kernels")
    g.add_argument("submissions", nargs="+", metavar="SUBMISSIONS")
    g.add_argument("--out", required=True, metavar="DIR")
    g.add_argument("--jobs", type=int, default=1, metavar="N")
    g.add_argument("--seed", type=int, default=None, help="seed for the hidden inputs")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    limits(g, 30.0, 600.0)
    g.set_defaults(func=cmd_grade)

    c = sub.add_parser("check", help="grade your own notebook(s) and print the result")
    c.add_argument("notebooks", nargs="+")
    limits(c, 30.0, 600.0)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser(
        "start",
        help="copy the lessons and exercises into DIR and open JupyterLab there",
        description="Copy the lessons and exercises into DIR (never overwriting a file you "
        "already have) and open JupyterLab there.",
        epilog="Arguments after `--` go to `jupyter lab` unchanged, e.g. "
        "`tensorlab start -- --ServerApp.ip=0.0.0.0`.",
    )
    s.add_argument(
        "dir", nargs="?", default=DEFAULT_COURSE_DIR, metavar="DIR", help="(default: %(default)s)"
    )
    s.add_argument("--port", type=int, help="JupyterLab's port")
    s.add_argument("--no-browser", action="store_true", help="do not open a browser")
    s.add_argument(
        "--update",
        action="store_true",
        help="add the lessons and exercises that are new in this version of tensorlab",
    )
    s.set_defaults(func=cmd_start, lab_args=[])
    return p


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
