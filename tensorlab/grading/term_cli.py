"""The term's commands: ``tensorlab override``, ``tensorlab late``, ``tensorlab written``
(their parsers and handlers; ``tensorlab.cli`` adds them). Each writes its file in the grade
folder (``term``) and rewrites what is derived from it (gradebook, feedback pages, report)."""

from __future__ import annotations

import sys
from pathlib import Path

OVERRIDE_DESCRIPTION = (
    "Change one student's points for one question: a regrade request, extra credit (points "
    "above the maximum), an excused question (--excuse: out of the score and the maximum). "
    "Kept in DIR/overrides.csv with who, why and when (a file you may also edit by hand), "
    "never overwritten by a regrade, honoured by the gradebook, feedback pages, report and "
    "export, and shown to the student on their page."
)
LATE_DESCRIPTION = (
    "Set due dates and the late policy of the notebooks graded in DIR (DIR/late.json), or "
    "give a student an extension (--extend, kept in DIR/extensions.csv). A submission's time "
    "is the one the LMS recorded (tensorlab collect), else the file's modification time. A "
    "late notebook loses --per-day of its points for each started day late, at most --cap "
    "(--zero: it scores 0); the feedback page states the times and the deduction."
)
WRITTEN_DESCRIPTION = (
    "Written answers: --sheets writes the answers waiting for a grader as CSV sheets (one per "
    "grader with --graders N, each answer with the question's rubric and maximum) to fill in "
    "the 'points' and 'comment' columns; --merge reads filled sheets back into "
    "DIR/written.csv (a later sheet's score for the same answer replaces an earlier one), "
    "after which the scores count like any other. --page writes one HTML page of the answers "
    "to read beside a sheet."
)


def _fraction(text: str) -> float:
    import argparse

    t = text.strip()
    try:
        value = float(t[:-1]) / 100 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a fraction (0.1) or a percentage (10%)"
        ) from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 1 (or 0% and 100%)")
    return value


def add_parsers(sub) -> None:
    o = sub.add_parser(
        "override",
        help="change one student's points for one question (kept, audited, shown to them)",
        description=OVERRIDE_DESCRIPTION,
    )
    o.add_argument("dir", metavar="DIR", help="the folder `tensorlab grade` wrote")
    o.add_argument("student", metavar="STUDENT", help="the student (their folder's name)")
    o.add_argument("question", metavar="QUESTION", help="the question id")
    what = o.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--points",
        metavar="P",
        help="the question's points from now on (above its maximum: extra credit) (default: --add or --excuse)",
    )
    what.add_argument(
        "--add",
        metavar="N",
        help="points added to (or, negative, taken from) the grader's (default: --points or "
        "--excuse)",
    )
    what.add_argument(
        "--excuse",
        action="store_true",
        help="the question counts neither in the score nor in the maximum (default: --points or "
        "--add)",
    )
    o.add_argument("--why", required=True, help="the reason, shown to the student (required)")
    o.add_argument("--by", required=True, help="who decided (required)")
    o.set_defaults(func=cmd_override)

    la = sub.add_parser(
        "late", help="due dates, extensions and the late policy", description=LATE_DESCRIPTION
    )
    la.add_argument("dir", metavar="DIR", help="the folder `tensorlab grade` wrote")
    la.add_argument(
        "--due",
        action="append",
        default=[],
        metavar="NOTEBOOK=TIME",
        help="a notebook's due time, ISO 8601 with its zone (01_conv.ipynb=2026-11-20T23:59Z); "
        "repeatable (default: the due times DIR/late.json has)",
    )
    la.add_argument(
        "--per-day",
        type=_fraction,
        metavar="F",
        help="the share of a notebook's points lost per started day late, 0.1 or 10%% "
        "(default: DIR/late.json's, else 0)",
    )
    la.add_argument(
        "--cap",
        type=_fraction,
        metavar="F",
        help="the most a late notebook loses, 0.5 or 50%% (default: DIR/late.json's, else 100%%)",
    )
    la.add_argument(
        "--zero",
        action="store_true",
        help="a late notebook scores 0 (default: DIR/late.json's policy)",
    )
    la.add_argument(
        "--grace",
        type=float,
        metavar="MINUTES",
        help="minutes after the due time that are not late (default: DIR/late.json's, else 0)",
    )
    la.add_argument(
        "--extend",
        nargs=3,
        metavar=("STUDENT", "NOTEBOOK", "DUE"),
        help="an extension: DUE is a time, or +2d / +36h after the class's due time; "
        "NOTEBOOK * for all; needs --why and --by (default: none)",
    )
    la.add_argument(
        "--why", help="why the extension was given; needed with --extend (default: none)"
    )
    la.add_argument("--by", help="who gave it; needed with --extend (default: none)")
    la.set_defaults(func=cmd_late)

    w = sub.add_parser(
        "written",
        help="written answers: sheets for graders, merged back",
        description=WRITTEN_DESCRIPTION,
    )
    w.add_argument("dir", metavar="DIR", help="the folder `tensorlab grade` wrote")
    act = w.add_mutually_exclusive_group(required=True)
    act.add_argument(
        "--sheets", metavar="FOLDER", help="write grading sheets into FOLDER (default: --merge)"
    )
    act.add_argument(
        "--merge", nargs="+", metavar="SHEET", help="merge filled sheets (default: --sheets)"
    )
    act.add_argument(
        "--page",
        metavar="FILE",
        help="write every answer as one HTML page to read (default: --sheets or --merge)",
    )
    w.add_argument(
        "--graders",
        type=int,
        default=1,
        metavar="N",
        help="with --sheets: one sheet per grader, the students split among them (default: 1)",
    )
    w.add_argument(
        "--all",
        action="store_true",
        help="with --sheets: also the answers already scored, to score again (default: only "
        "those not scored yet)",
    )
    w.set_defaults(func=cmd_written)


def _fail(command: str, message: str, code: int = 1) -> int:
    print(f"tensorlab {command}: error: {message}", file=sys.stderr)
    return code


def cmd_override(args) -> int:
    from .term import TermError, add_override

    if not Path(args.dir).is_dir():
        return _fail("override", f"{args.dir} is not a folder", 2)
    if args.excuse:
        points = "excused"
    elif args.add is not None:
        points = args.add if args.add.lstrip()[:1] in "+-" else f"+{args.add.strip()}"
    else:
        points = args.points
        if points.strip()[:1] in "+-":
            return _fail("override", f"--points {points}: a score; use --add for a change", 2)
    try:
        o = add_override(args.dir, args.student, args.question, points, args.why, args.by)
    except (TermError, ValueError) as e:
        return _fail("override", str(e), 2)
    print(f"{o.student} {o.question}: {o.points} ({o.why}; {o.by}, {o.when})")
    return 0


def cmd_late(args) -> int:
    from .term import TermError, add_extension, set_late

    if not Path(args.dir).is_dir():
        return _fail("late", f"{args.dir} is not a folder", 2)
    try:
        due = {}
        for item in args.due:
            nb, sep, when = item.partition("=")
            if not sep:
                raise TermError(f"--due {item!r}: write NOTEBOOK=TIME")
            due[nb.strip()] = when.strip()
        policy = (args.per_day, args.cap, args.grace)
        setting = bool(due) or args.zero or any(x is not None for x in policy)
        if setting:
            doc = set_late(
                args.dir,
                due,
                per_day=args.per_day,
                cap=args.cap,
                zero=True if args.zero else None,
                grace_minutes=args.grace,
            )
            print(f"due: {doc['due']}; policy: {doc['policy']}")
        if args.extend:
            if not args.why or not args.by:
                raise TermError("--extend needs --why and --by")
            e = add_extension(args.dir, *args.extend, args.why, args.by)
            print(f"extension: {e.student} {e.notebook} {e.due} ({e.why}; {e.by})")
        elif not setting:
            raise TermError("nothing to do: give --due, --per-day, --cap, --zero or --extend")
    except (TermError, ValueError) as e:
        return _fail("late", str(e), 2)
    return 0


def cmd_written(args) -> int:
    from . import written
    from .term import TermError

    if not Path(args.dir).is_dir():
        return _fail("written", f"{args.dir} is not a folder", 2)
    if args.graders < 1:
        return _fail("written", "--graders must be >= 1", 2)
    try:
        if args.sheets:
            paths, n = written.write_sheets(args.dir, args.sheets, args.graders, args.all)
            print(f"wrote {n} answers to grade into {len(paths)} sheet(s): ")
            for p in paths:
                print(f"  {p}")
        elif args.merge:
            n = written.merge(args.dir, args.merge)
            print(f"merged {n} scores into {Path(args.dir) / 'written.csv'}")
        else:
            n = written.write_page(args.dir, args.page)
            print(f"wrote {n} answers to {args.page}")
    except (TermError, ValueError, OSError) as e:
        return _fail("written", str(e), 2)
    return 0
