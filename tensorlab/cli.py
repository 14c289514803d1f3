"""The ``tensorlab`` command: ``assign``, ``grade``, ``check`` (and ``start``, not yet available).

Exit status: 0 on success, 1 when the command itself fails (an unreadable release, an
unwritable output directory, a grader error), 2 for usage errors. Broken submissions are
recorded in the grade files and never change the exit status.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
    release = args.release or _default_release(first)
    with tempfile.TemporaryDirectory() as out:
        try:
            summary = grade(
                args.notebooks,
                out,
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


# ---------------------------------------------------------------------------- start (stub)
# `tensorlab start` (open the course in JupyterLab) is implemented by another issue.
def cmd_start(args) -> int:
    print("tensorlab start: not yet available")
    return 0


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

    s = sub.add_parser("start", help="open the course in JupyterLab (not yet available)")
    s.set_defaults(func=cmd_start)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``tensorlab`` console script."""
    args = build_parser().parse_args(argv)
    if getattr(args, "jobs", 1) < 1:
        print("tensorlab grade: error: --jobs must be >= 1", file=sys.stderr)
        return 2
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
